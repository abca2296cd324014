"""The history database: one SQLite file in the data folder, safe with two terminals at once.

``history.sqlite3`` in :func:`tutor.storage.data_dir`. Opened in WAL mode
(readers never wait for a writer), with foreign keys on and a busy timeout,
and every write in a ``BEGIN IMMEDIATE`` transaction, so two ``osmosis``
processes writing at the same time queue up instead of failing or losing a
row. The schema carries a version; :data:`MIGRATIONS` brings an older file
up to date in order, each step in one transaction.

A file that is not a database, or fails SQLite's quick check, is set aside
(renamed with a timestamp) and a fresh one is started: the player gets one
line in :attr:`History.warning`, never a traceback, and the record files in
the games folder are imported again.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import TutorError
from ..storage import damaged_database, data_dir, set_aside

DB_NAME = "history.sqlite3"
BUSY_MS = 15000


class HistoryError(TutorError):
    """The history database cannot be used (a newer schema, an unwritable folder)."""


def db_path() -> Path:
    """Where the history database lives."""
    return data_dir() / DB_NAME


# ---- the schema, in order --------------------------------------------------

#: Each entry brings the schema from version i to i + 1. Never edit a released
#: step: add a new one.
MIGRATIONS: list[str] = [
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
]
VERSION = len(MIGRATIONS)
OUR_TABLES = {"games", "meta", "reviews", "review_moves", "drills", "drill_answers", "schema_version"}

#: Rows the reader could not take, by table (each a condition on one row): damage the page checks of
#: ``PRAGMA quick_check`` let through, such as junk bytes inside a record or a number stored as text.
_UNREADABLE = {
    "games": "json_valid(record) = 0 OR typeof(moves) <> 'integer' OR typeof(cards) <> 'integer' "
             "OR typeof(won) <> 'integer' OR typeof(over) <> 'integer'",
    "reviews": "json_valid(thresholds) = 0 OR json_valid(hindsight) = 0 OR typeof(accuracy) NOT IN ('real', 'integer')",
    "review_moves": "json_valid(tags) = 0 OR json_valid(candidates) = 0 OR typeof(ply) <> 'integer' "
                    "OR typeof(drop_points) NOT IN ('real', 'integer') OR (drop_interval IS NOT NULL AND "
                    "json_valid(drop_interval) = 0) OR (drop_samples IS NOT NULL AND typeof(drop_samples) <> 'integer')",
    "drills": "json_valid(tags) = 0 OR typeof(box) <> 'integer' OR typeof(ply) <> 'integer'",
}


def _unreadable_rows(conn: sqlite3.Connection) -> str | None:
    """What in the file cannot be read back, or None."""
    for table, bad in _UNREADABLE.items():
        n = conn.execute(f"SELECT count(*) FROM {table} WHERE {bad}").fetchone()[0]
        if n:
            return f"{n} row{'s' if n != 1 else ''} of {table} cannot be read"
    return None


def iso(t: float) -> str:
    """A moment as sortable UTC text, ``2026-12-01T08:48:44Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def parse_iso(text: str) -> float:
    import calendar

    return float(calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ")))


@dataclass
class GameRow:
    """One stored game, as the history reads it."""

    id: int
    key: str
    record: dict[str, Any]
    variant: str
    deal_number: int | None
    moves: int
    cards: int
    won: bool
    over: bool
    source: str | None
    started_at: str
    played_at: str
    updated_at: str

    @classmethod
    def from_sql(cls, row: sqlite3.Row) -> GameRow:
        return cls(row["id"], row["game_key"], json.loads(row["record"]), row["variant"], row["deal_number"],
                   row["moves"], row["cards"], bool(row["won"]), bool(row["over"]), row["source"],
                   row["started_at"], row["played_at"], row["updated_at"])


class History:
    """An open history database. Use :func:`open_history`; close it (or use ``with``) when done.

    ``clock`` gives the time (seconds since the epoch); tests inject one.
    ``warning`` is one line for the player when the file was set aside.
    """

    def __init__(self, path: Path, clock: Callable[[], float] = time.time, upgrade_to: int = VERSION) -> None:
        self.path = Path(path)
        self.clock = clock
        self.warning: str | None = None
        self.imported: tuple[int, int] | None = None  # (games, files skipped) of the first-use import
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HistoryError(f"cannot create the data folder '{self.path.parent}': {exc.strerror or exc} "
                               "(set OSMOSIS_HOME to a writable folder)") from None
        try:
            self.conn = self._connect(upgrade_to)
        except sqlite3.DatabaseError as exc:
            if not damaged_database(exc):
                raise HistoryError(f"the history database '{self.path}' cannot be used: {exc}") from None
            self._set_aside(str(exc))
            self.conn = self._connect(upgrade_to)

    # ---- opening ---------------------------------------------------------
    def _connect(self, upgrade_to: int) -> sqlite3.Connection:
        # Switching a new file to WAL takes a lock that the busy timeout does not wait for:
        # a second terminal opening the history at that moment retries for a while.
        deadline = time.monotonic() + BUSY_MS / 1000
        delay = 0.01
        while True:
            try:
                return self._connect_once(upgrade_to)
            except sqlite3.OperationalError as exc:
                if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def _connect_once(self, upgrade_to: int) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            # junk bytes in a text are read as U+FFFD, not as an error in the middle of a command
            conn.text_factory = lambda data: data.decode("utf-8", "replace")
            conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            conn.execute("PRAGMA foreign_keys = ON")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":  # another process holds it in another mode: still usable
                pass
            conn.execute("PRAGMA synchronous = NORMAL")
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"database disk image is malformed ({check})")
            self._migrate(conn, upgrade_to)
            if upgrade_to == VERSION:
                unreadable = _unreadable_rows(conn)
                if unreadable is not None:
                    raise sqlite3.DatabaseError(f"database disk image is malformed ({unreadable})")
        except BaseException:
            conn.close()
            raise
        return conn

    def _migrate(self, conn: sqlite3.Connection, upgrade_to: int) -> None:
        version = _version(conn)
        if version > VERSION:
            raise HistoryError(f"the history database '{self.path}' has schema version {version}, newer than "
                               f"this osmosis knows ({VERSION}): upgrade osmosis-tutor to use it")
        if version >= upgrade_to:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = _version(conn)  # another process may have migrated meanwhile
            if version == 0:
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if tables - OUR_TABLES:
                    raise sqlite3.DatabaseError("file is not a database of osmosis-tutor "
                                                f"(it holds tables {', '.join(sorted(tables - OUR_TABLES))})")
                conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                conn.execute("INSERT INTO schema_version (version) SELECT 0 WHERE NOT EXISTS "
                             "(SELECT 1 FROM schema_version)")
            for step in range(version, upgrade_to):
                for statement in _statements(MIGRATIONS[step]):
                    conn.execute(statement)
                conn.execute("UPDATE schema_version SET version = ?", (step + 1,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _set_aside(self, problem: str) -> None:
        try:
            aside = set_aside(self.path, self.clock())
        except OSError as exc:
            raise HistoryError(f"the history database '{self.path}' is damaged ({problem}) and cannot be set "
                               f"aside: {exc.strerror or exc}") from None
        self.warning = (f"the history database was damaged ({problem}); it was set aside as '{aside.name}' "
                        "and a new one started")

    # ---- plumbing --------------------------------------------------------
    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> float:
        return self.clock()

    def write(self) -> _Write:
        """A write transaction (``BEGIN IMMEDIATE``): ``with history.write(): ...``."""
        return _Write(self.conn)

    def query(self, sql: str, args: Sequence[object] = ()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, args).fetchall()

    @property
    def version(self) -> int:
        return _version(self.conn)

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                          "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    # ---- games -----------------------------------------------------------
    def upsert_game(self, key: str, record: dict[str, Any], *, variant: str, deal_number: int | None, deal: str | None,
                    moves: int, cards: int, won: bool, over: bool, content: str, source: str | None,
                    started_at: str, played_at: str) -> int:
        """Insert a game, or update the one with the same key; returns its id. Call inside :meth:`write`."""
        now = iso(self.now())
        self.conn.execute(
            """INSERT INTO games (game_key, record, variant, deal_number, deal, moves, cards, won, over, content,
                                  source, started_at, played_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT(game_key) DO UPDATE SET record = excluded.record, variant = excluded.variant,
                   deal_number = excluded.deal_number, deal = excluded.deal, moves = excluded.moves,
                   cards = excluded.cards, won = excluded.won, over = excluded.over, content = excluded.content,
                   source = COALESCE(excluded.source, games.source), played_at = excluded.played_at,
                   updated_at = excluded.updated_at""",
            (storable(key), _record_text(record), variant, deal_number, deal, moves, cards, int(won),
             int(over), content, storable(source) if source is not None else None, started_at, played_at, now))
        return int(self.conn.execute("SELECT id FROM games WHERE game_key = ?", (storable(key),)).fetchone()[0])

    def game_by_key(self, key: str) -> GameRow | None:
        row = self.conn.execute("SELECT * FROM games WHERE game_key = ?", (storable(key),)).fetchone()
        return GameRow.from_sql(row) if row else None

    def game_by_content(self, content: str) -> GameRow | None:
        row = self.conn.execute("SELECT * FROM games WHERE content = ? ORDER BY id LIMIT 1", (content,)).fetchone()
        return GameRow.from_sql(row) if row else None

    def game(self, game_id: int) -> GameRow | None:
        row = self.conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return GameRow.from_sql(row) if row else None

    def games(self, played_only: bool = False) -> list[GameRow]:
        """Every game, oldest first (by when it was last played)."""
        where = "WHERE moves > 0" if played_only else ""
        return [GameRow.from_sql(r) for r in
                self.conn.execute(f"SELECT * FROM games {where} ORDER BY played_at, id")]


class _Write:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an error); inside another write, a savepoint, so the
    writes of one imported line go in together or not at all, whichever helpers make them."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.nested = False

    def __enter__(self) -> sqlite3.Connection:
        self.nested = self.conn.in_transaction
        self.conn.execute("SAVEPOINT inner_write" if self.nested else "BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if not self.nested:
            self.conn.execute("COMMIT" if kind is None else "ROLLBACK")
            return
        if kind is not None:
            self.conn.execute("ROLLBACK TO inner_write")
        self.conn.execute("RELEASE inner_write")


def _record_text(record: dict[str, Any]) -> str:
    """A record as stored: JSON text, with ``\\u`` escapes only where a text of it is not UTF-8 (a lone
    surrogate from a JSON escape, which SQLite cannot take)."""
    text = json.dumps(record, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(record)
    return text


#: The mark of a stored name that held bytes that are not UTF-8 (see :func:`storable`).
BYTES_MARK = "bytes:"
_ESCAPED = re.compile(rb"\\\\|\\x([0-9a-f]{2})")


def storable(text: str) -> str:
    """A file name (or a key made from one) as the history stores it: itself when it is UTF-8 text, as nearly
    every name is. A name with bytes that are not UTF-8 (Python holds them as lone surrogates, which SQLite
    cannot take) is stored as ``bytes:`` and the name with each such byte written ``\\xNN`` and each backslash
    doubled, so :func:`path_of` gets the name back and the file can still be opened."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name holds (a JSON escape): kept distinct all the same
        raw = text.encode("utf-8", "surrogatepass")
    return BYTES_MARK + raw.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def path_of(stored: str) -> str:
    """The file name a stored one stands for (:func:`storable` undone): bytes that are not UTF-8 come back as
    the lone surrogates Python uses for them, so ``open`` finds the file."""
    if not stored.startswith(BYTES_MARK):
        return stored
    body = stored[len(BYTES_MARK):].encode("utf-8")
    raw = _ESCAPED.sub(lambda m: bytes([int(m.group(1), 16)]) if m.group(1) else b"\\", body)
    return raw.decode("utf-8", "surrogateescape")


def _version(conn: sqlite3.Connection) -> int:
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


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


_STAMP = re.compile(r"(\d{8}-\d{6})")


def file_started_at(path: Path) -> float:
    """When a record file's game began: the autosave name's stamp, else the file's time."""
    match = _STAMP.search(path.name)
    if match:
        try:
            return time.mktime(time.strptime(match.group(1), "%Y%m%d-%H%M%S"))
        except (ValueError, OverflowError):
            pass
    return path.stat().st_mtime


