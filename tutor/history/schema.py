"""The history database's schema: the migrations in order, its version, and the rows a reader cannot take.

:data:`MIGRATIONS` brings an older file up to date in order (each step in one
transaction, run by :class:`tutor.history.db.History`); :func:`unreadable_rows`
finds damage that SQLite's page checks let through, and :func:`leave_out_unreadable`
takes those rows out of a file that is otherwise sound, a copy of it kept.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# ---- the schema, in order --------------------------------------------------

def _refile_without_reserve(conn: sqlite3.Connection) -> None:
    """Step 9: file a game with no reserve under its plain rules, "open reserve" dropped (it changes
    nothing there): its rules, variant name and content fingerprint, and a review of it stays current."""
    import json

    from ..record import Record, content_of
    from .db import _record_text
    from .names import variant_name

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

def _keep_drill_ids(conn: sqlite3.Connection) -> None:
    """Schema 12: a trigger keeps the highest id of a deleted drill in ``meta`` (one statement: the migration
    runner splits a script at its semicolons)."""
    conn.execute("CREATE TRIGGER drills_ids_kept AFTER DELETE ON drills BEGIN "
                 "INSERT INTO meta (key, value) VALUES ('drill_ids_used', OLD.id) ON CONFLICT(key) DO UPDATE "
                 "SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER)); END")

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
    # 11: a game stored from a record file by ``osmosis import`` (a copy from elsewhere, say a --save copy):
    # an exported line that holds the same game takes that row over (tutor.history.copies.claim_file_copy).
    """
    ALTER TABLE games ADD COLUMN from_import INTEGER NOT NULL DEFAULT 0;
    """,
    # 12: the highest id a deleted drill had (a drill left out as unreadable, or with its game), so a new
    # drill never takes the number a warning or an earlier list gave another one (:func:`next_drill_id`).
    _keep_drill_ids,
]
VERSION = len(MIGRATIONS)
OUR_TABLES = {"games", "meta", "reviews", "review_moves", "drills", "drill_answers", "schema_version"}

def _pair(column: str) -> str:
    """``column`` holds no JSON pair of numbers (a 95% interval), where it is not NULL."""
    return (f"({column} IS NOT NULL AND CASE WHEN json_valid({column}) THEN json_type({column}) <> 'array' OR "
            f"json_array_length({column}) <> 2 OR json_type({column}, '$[0]') NOT IN ('integer', 'real') OR "
            f"json_type({column}, '$[1]') NOT IN ('integer', 'real') ELSE 1 END)")


#: Every column's storage classes (SQLite's typeof) as the tutor writes them, by table: "i" an integer, "r" a
#: number, "t" text, "?" NULL allowed too. A value of another class (a blob, a word where a count belongs) is
#: damage that no page check sees, and the code that reads the row would fail on it.
_TYPES = {
    "games": "game_key t, record t, variant t, deal_number i?, moves i, cards i, won i, played_at t, deal t?, "
             "over i, source t?, content t, started_at t?, updated_at t?, from_import i",
    "reviews": "game_id i, moves_reviewed i, accuracy r, graded i, samples i?, thresholds t, hindsight t, "
               "reviewed_at t, content t?, tagging i?, accuracy_interval t?",
    "review_moves": "review_id i, ply i, move t, best t, label t, tags t, drop_points r, win_before r, win_after r, "
                    "graded i, comment t, candidates t, drop_interval t?, drop_samples i?",
    "drills": "game_id i, ply i, played t, best t, label t, tags t, drop_points r, box i, due_at t, created_at t, "
              "retired t?",
}
_CLASSES = {"i": "'integer'", "r": "'integer', 'real'", "t": "'text'"}


def _typed(table: str) -> str:
    """The rows of ``table`` with a value of a class its column does not hold (:data:`_TYPES`)."""
    conditions = []
    for spec in _TYPES[table].split(", "):
        column, kind = spec.split()
        classes = _CLASSES[kind[0]] + (", 'null'" if kind.endswith("?") else "")
        conditions.append(f"typeof({column}) NOT IN ({classes})")
    return " OR ".join(conditions)


#: Rows the reader could not take, by table (each a condition on one row): damage the page checks of
#: ``PRAGMA quick_check`` let through, such as junk bytes inside a record or a number stored as text.
_UNREADABLE = {
    "games": f"json_valid(record) = 0 OR {_typed('games')}",
    "reviews": f"json_valid(thresholds) = 0 OR json_valid(hindsight) = 0 OR {_pair('accuracy_interval')} "
               f"OR {_typed('reviews')}",
    "review_moves": f"json_valid(tags) = 0 OR json_valid(candidates) = 0 OR {_pair('drop_interval')} "
                    f"OR {_typed('review_moves')}",
    # a due time that is no UTC time as iso() writes it (2026-12-01T08:48:44Z), or no day there is (02-30);
    # an answer given to it that cannot be read takes the drill with it
    "drills": f"json_valid(tags) = 0 OR {_typed('drills')} "
              "OR strftime('%Y-%m-%dT%H:%M:%SZ', julianday(due_at)) IS NOT due_at OR id IN (SELECT drill_id FROM "
              "drill_answers WHERE typeof(drill_id) <> 'integer' OR typeof(answered_at) <> 'text' OR "
              "typeof(answer) <> 'text' OR typeof(right) <> 'integer' OR typeof(box_after) <> 'integer')",
}


def unreadable_rows(conn: sqlite3.Connection) -> str | None:
    """What in the file cannot be read back, or None."""
    for table, bad in _UNREADABLE.items():
        n = conn.execute(f"SELECT count(*) FROM {table} WHERE {bad}").fetchone()[0]
        if n:
            return f"{n} row{'s' if n != 1 else ''} of {table} cannot be read"
    return None


def next_drill_id(conn: sqlite3.Connection) -> int:
    """The id for a new drill: above every drill there is and every one deleted since schema 12 (SQLite alone
    would give the highest id again once that drill is gone)."""
    row = conn.execute("SELECT max(coalesce((SELECT max(id) FROM drills), 0), coalesce((SELECT CAST(value AS "
                       "INTEGER) FROM meta WHERE key = 'drill_ids_used'), 0))").fetchone()
    return int(row[0]) + 1


def _ids(conn: sqlite3.Connection, sql: str, args: list[int] | tuple[()] = ()) -> list[int]:
    """The ids ``sql`` selects (a damaged reference that is no number refers to no row)."""
    return sorted({r[0] for r in conn.execute(sql, args) if isinstance(r[0], int)})


def _unreadable_ids(conn: sqlite3.Connection) -> tuple[list[int], list[int]]:
    """The ids of the games and of the reviews (a review with a move that cannot be read, whole) not read."""
    return (_ids(conn, f"SELECT id FROM games WHERE {_UNREADABLE['games']}"),
            _ids(conn, f"SELECT id FROM reviews WHERE {_UNREADABLE['reviews']} UNION SELECT review_id FROM "
                       f"review_moves WHERE {_UNREADABLE['review_moves']}"))


def leave_out_unreadable(conn: sqlite3.Connection, path: Path, when: float) -> str | None:
    """Take the rows that cannot be read (:func:`unreadable_rows`) out of a file that is otherwise sound, with
    the rows that hang on them: a game's review and drills, a review's moves (a review with a move that
    cannot be read goes whole: the coach makes it again). Everything else stays, and a copy of the file as it
    was is set aside first (``NAME.damaged-<time>``, as :func:`tutor.storage.set_aside` names a damaged
    file), so nothing is lost. Returns the warning line; None when another process had done it already.

    In one write transaction: of several processes opening the file at once, one does it. A copy that cannot
    be made (a full disk) is a :class:`sqlite3.DatabaseError`, and the whole file is set aside as before.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        games, reviews = _unreadable_ids(conn)
        marks = ",".join("?" * len(games))
        reviewed = _ids(conn, f"SELECT game_id FROM reviews WHERE id IN ({','.join(map(str, reviews))}) "
                              f"AND game_id NOT IN ({marks})", games) if reviews else []
        drills = _ids(conn, f"SELECT id FROM drills WHERE ({_UNREADABLE['drills']}) AND game_id NOT IN ({marks})",
                      games)
        if not (games or reviews or drills) and unreadable_rows(conn) is None:  # another process was first
            conn.execute("ROLLBACK")
            return None
        untold = _ids(conn, f"SELECT id FROM reviews WHERE id IN ({','.join(map(str, reviews))}) AND typeof(game_id) "
                            "<> 'integer'") if reviews else []
        with_them = [conn.execute(f"SELECT count(*) FROM {table} WHERE game_id IN ({marks})", games).fetchone()[0]
                     for table in ("reviews", "drills")]
        # a file that opens but refuses writes (read-only, its folder not): found out before any copy is made,
        # and read as it is, those rows left out in memory (History._read_only); a copy a run made the folder fill
        conn.execute("UPDATE schema_version SET version = version")
        try:
            aside = _copy_aside(path, when)
        except (OSError, sqlite3.Error) as exc:
            raise sqlite3.DatabaseError(f"database disk image is malformed ({unreadable_rows(conn)}; no copy of it "
                                        f"could be made: {exc})") from None
        drop_unreadable(conn, games, reviews)
        if games:  # their files in the games folder are read again on this opening (tutor.history.games)
            from .games import SYNCED_FLAG

            conn.execute("INSERT INTO meta (key, value) VALUES (?, '1970-01-01T00:00:00Z') "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (SYNCED_FLAG,))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    parts = []
    if games:
        hung = [f"its {what}" if n == 1 and len(games) == 1 else f"{n} {what}{'s' if n != 1 else ''}"
                for n, what in zip(with_them, ("review", "drill"), strict=True) if n]
        parts.append(_numbered("game", games) + (f", with {' and '.join(hung)}" if hung else ""))
    if reviewed:
        parts.append(f"the review of {_numbered('game', reviewed)}")
    if drills:
        parts.append(_numbered("drill", drills))
    if not parts:  # the rows left out belong to no game it can name
        parts = ["a review whose game cannot be told" if untold else "rows of a review that is no longer there"]
    back = "; a game left out is read again from its file in the games folder, if that is still there" if games else ""
    return (f"part of your history cannot be read ({'; '.join(parts)}): that part was left out and the rest "
            f"kept{back}; a copy of the file as it was is set aside as '{aside.name}'")


def drop_unreadable(conn: sqlite3.Connection, games: list[int] | None = None,
                    reviews: list[int] | None = None) -> None:
    """Delete the rows that cannot be read and what hangs on them (a game's reviews and drills, a review's
    moves); ``games`` and ``reviews``: those ids, when already found."""
    if games is None or reviews is None:
        games, reviews = _unreadable_ids(conn)
    conn.execute(f"DELETE FROM games WHERE id IN ({','.join('?' * len(games))})", games)  # reviews, drills too
    conn.executemany("DELETE FROM reviews WHERE id = ?", [(i,) for i in reviews])
    for table, bad in _UNREADABLE.items():  # and any row left that belongs to none of them
        conn.execute(f"DELETE FROM {table} WHERE {bad}")


def _numbered(what: str, ids: list[int]) -> str:
    """``game 3``, ``games 3, 4 and 9``, ``12 games``: the rows left out, by id while they are few."""
    if len(ids) == 1:
        return f"{what} {ids[0]}"
    if len(ids) > 5:
        return f"{len(ids)} {what}s"
    return f"{what}s {', '.join(map(str, ids[:-1]))} and {ids[-1]}"


def _copy_aside(path: Path, when: float) -> Path:
    """A copy of the database at ``path`` as it is, under the first free ``NAME.damaged-<time>[-N]``."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    mode = os.stat(path).st_mode & 0o777  # a history only its owner may read stays so in the copy
    n = 1
    while True:
        aside = path.with_name(f"{path.name}.damaged-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            os.close(os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))  # the name is this one's
            break
        except FileExistsError:
            n += 1
    try:
        source = sqlite3.connect(path)
        try:  # through a connection of its own: the one that holds the write lock would wait on itself
            copy = sqlite3.connect(aside)
            try:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode = DELETE")  # one file, with no -wal beside it
            finally:
                copy.close()
        finally:
            source.close()
    except BaseException:
        os.unlink(aside)
        raise
    return aside


def version_of(conn: sqlite3.Connection) -> int:
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    games = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'").fetchone()
    if row is None or not isinstance(row[0], int) or row[0] < 0:
        if row is None and not games:
            return 0  # made, but no migration ran yet
        raise sqlite3.DatabaseError(f"database disk image is malformed (schema version {row[0] if row else 'missing'!r})")
    return row[0]


def statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def database_as_it_is(path: Path) -> tuple[sqlite3.Connection, bool]:
    """A copy in memory of the database at ``path``, read with nothing written beside it (a read-only or full
    data folder), with what its write-ahead log holds: the newest games, committed but not yet copied into the
    file (``immutable=1`` alone reads the file without them, and history and export left them out). The log
    is read from a copy of both files in a temporary folder. The flag: a log was there and could not be read."""
    from urllib.parse import quote

    memory = sqlite3.connect(":memory:", isolation_level=None)
    wal = Path(f"{path}-wal")
    try:
        if wal.is_file() and wal.stat().st_size > 0:
            with tempfile.TemporaryDirectory(prefix="osmosis-history-") as folder:
                copy = Path(folder) / "history.sqlite3"
                shutil.copyfile(path, copy)
                shutil.copyfile(wal, f"{copy}-wal")
                source = sqlite3.connect(copy, isolation_level=None)
                try:
                    source.backup(memory)
                finally:
                    source.close()
                return memory, False
        missed = False
    except (OSError, sqlite3.Error):
        missed = True
    source = sqlite3.connect(f"file:{quote(str(path.resolve()))}?immutable=1", uri=True, isolation_level=None)
    try:
        source.backup(memory)
    finally:
        source.close()
    return memory, missed
