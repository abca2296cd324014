"""The history database's schema: the migrations in order, its version, and the rows a reader cannot take.

:data:`MIGRATIONS` brings an older file up to date in order (each step in one
transaction, run by :class:`tutor.history.db.History`); :func:`unreadable_rows`
finds damage that SQLite's page checks let through.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

# ---- the schema, in order --------------------------------------------------

def _refile_without_reserve(conn: sqlite3.Connection) -> None:
    """Step 9: file a game with no reserve under its plain rules, "open reserve" dropped (it changes
    nothing there): its rules, variant name and content fingerprint, and a review of it stays current."""
    import json

    from ..record import Record, content_of
    from .db import _record_text
    from .games import variant_name

    for row in conn.execute("SELECT id, record, variant, content FROM games").fetchall():
        try:
            options = json.loads(row[2])
        except ValueError:
            continue  # a preset's name
        if not (isinstance(options, dict) and options.get("reserve_piles") == 0 and options.get("open_reserve")):
            continue
        try:
            data = json.loads(row[1])
            record = Record.from_json(data)  # read under its plain rules
        except Exception:  # noqa: BLE001 - left as it was; the reader says what is wrong with it
            continue
        data["variant"] = record.rules.to_json()
        content = content_of(record)
        conn.execute("UPDATE games SET record = ?, variant = ?, content = ? WHERE id = ?",
                     (_record_text(data), variant_name(record), content, row[0]))
        conn.execute("UPDATE reviews SET content = ? WHERE game_id = ? AND content = ?", (content, row[0], row[3]))


#: Each entry brings the schema from version i to i + 1: SQL, or a function for what SQL cannot say.
#: Never edit a released step: add a new one.
MIGRATIONS: list[str | Callable[[sqlite3.Connection], None]] = [
    # 1: games, one row per game; a stable key makes re-saving the same file an update.
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        game_key TEXT NOT NULL UNIQUE,
        record TEXT NOT NULL,
        variant TEXT NOT NULL,
        deal_number INTEGER,
        moves INTEGER NOT NULL,
        cards INTEGER NOT NULL,
        won INTEGER NOT NULL,
        played_at TEXT NOT NULL
    );
    CREATE INDEX games_played ON games(played_at);
    """,
    # 2: dates of their own, whether the game ended, where it came from, an inline deal.
    """
    ALTER TABLE games ADD COLUMN deal TEXT;
    ALTER TABLE games ADD COLUMN over INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN source TEXT;
    ALTER TABLE games ADD COLUMN content TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN started_at TEXT;
    ALTER TABLE games ADD COLUMN updated_at TEXT;
    UPDATE games SET started_at = played_at, updated_at = played_at;
    CREATE INDEX games_content ON games(content);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 3: reviews, one per game, and every reviewed move.
    """
    CREATE TABLE reviews (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL UNIQUE REFERENCES games(id) ON DELETE CASCADE,
        moves_reviewed INTEGER NOT NULL,
        accuracy REAL NOT NULL,
        graded INTEGER NOT NULL,
        samples INTEGER,
        thresholds TEXT NOT NULL,
        hindsight TEXT NOT NULL,
        reviewed_at TEXT NOT NULL
    );
    CREATE TABLE review_moves (
        review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        move TEXT NOT NULL,
        best TEXT NOT NULL,
        label TEXT NOT NULL,
        tags TEXT NOT NULL,
        drop_points REAL NOT NULL,
        win_before REAL NOT NULL,
        win_after REAL NOT NULL,
        graded INTEGER NOT NULL,
        comment TEXT NOT NULL,
        candidates TEXT NOT NULL,
        PRIMARY KEY (review_id, ply)
    );
    """,
    # 4: drills: spaced repetition (Leitner boxes) over the player's own mistakes.
    """
    CREATE TABLE drills (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        played TEXT NOT NULL,
        best TEXT NOT NULL,
        label TEXT NOT NULL,
        tags TEXT NOT NULL,
        drop_points REAL NOT NULL,
        box INTEGER NOT NULL DEFAULT 0,
        due_at TEXT NOT NULL,
        created_at TEXT NOT NULL,
        retired TEXT,
        UNIQUE (game_id, ply)
    );
    CREATE INDEX drills_due ON drills(due_at);
    CREATE TABLE drill_answers (
        id INTEGER PRIMARY KEY,
        drill_id INTEGER NOT NULL REFERENCES drills(id) ON DELETE CASCADE,
        answered_at TEXT NOT NULL,
        answer TEXT NOT NULL,
        right INTEGER NOT NULL,
        box_after INTEGER NOT NULL
    );
    """,
    # 5: which game a review is of: an undo and other moves can bring a game back to the same
    # number of moves, so the count alone cannot tell a current review from a stale one.
    """
    ALTER TABLE reviews ADD COLUMN content TEXT;
    """,
    # 6: the paired 95% interval of each move's drop (points, as JSON), on which its label was given:
    # a drill trusts it over the unpaired win chances of the candidates.
    """
    ALTER TABLE review_moves ADD COLUMN drop_interval TEXT;
    """,
    # 7: how many deals that interval rests on (NULL: not kept, as in a review stored before), so a drill
    # can give the figure with its sample count.
    """
    ALTER TABLE review_moves ADD COLUMN drop_samples INTEGER;
    """,
    # 8: the rules the review's tags were found by (tutor.history.reviews.TAGGING; NULL: the first ones), so
    # the coach compares kinds of error only between reviews tagged alike and reviews older ones again.
    """
    ALTER TABLE reviews ADD COLUMN tagging INTEGER;
    """,
    # 9: games with no reserve whose rules said "open reserve" (``--variant peek --reserve-piles 0``) are
    # Bridesmaids, as the tutor now files them: stored before that, they stayed a variant of their own.
    _refile_without_reserve,
    # 10: the accuracy's 95% interval (as JSON; NULL for a review stored before it was worked out).
    """
    ALTER TABLE reviews ADD COLUMN accuracy_interval TEXT;
    """,
]
VERSION = len(MIGRATIONS)
OUR_TABLES = {"games", "meta", "reviews", "review_moves", "drills", "drill_answers", "schema_version"}

#: Rows the reader could not take, by table (each a condition on one row): damage the page checks of
#: ``PRAGMA quick_check`` let through, such as junk bytes inside a record or a number stored as text.
_UNREADABLE = {
    "games": "json_valid(record) = 0 OR typeof(moves) <> 'integer' OR typeof(cards) <> 'integer' "
             "OR typeof(won) <> 'integer' OR typeof(over) <> 'integer'",
    "reviews": "json_valid(thresholds) = 0 OR json_valid(hindsight) = 0 OR typeof(accuracy) NOT IN ('real', 'integer') "
               "OR (tagging IS NOT NULL AND typeof(tagging) <> 'integer') "
               "OR (accuracy_interval IS NOT NULL AND json_valid(accuracy_interval) = 0)",
    "review_moves": "json_valid(tags) = 0 OR json_valid(candidates) = 0 OR typeof(ply) <> 'integer' "
                    "OR typeof(drop_points) NOT IN ('real', 'integer') OR (drop_interval IS NOT NULL AND "
                    "json_valid(drop_interval) = 0) OR (drop_samples IS NOT NULL AND typeof(drop_samples) <> 'integer')",
    "drills": "json_valid(tags) = 0 OR typeof(box) <> 'integer' OR typeof(ply) <> 'integer'",
}


def unreadable_rows(conn: sqlite3.Connection) -> str | None:
    """What in the file cannot be read back, or None."""
    for table, bad in _UNREADABLE.items():
        n = conn.execute(f"SELECT count(*) FROM {table} WHERE {bad}").fetchone()[0]
        if n:
            return f"{n} row{'s' if n != 1 else ''} of {table} cannot be read"
    return None


def version_of(conn: sqlite3.Connection) -> int:
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    games = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'").fetchone()
    if row is None or not isinstance(row[0], int):
        if row is None and not games:
            return 0  # made, but no migration ran yet
        raise sqlite3.DatabaseError(f"database disk image is malformed (schema version {row[0] if row else 'missing'!r})")
    return row[0]


def statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
