"""The history database: one SQLite file in the data folder, safe with two terminals at once.

``history.sqlite3`` in :func:`tutor.storage.data_dir`. Opened in WAL mode
(readers never wait for a writer), with foreign keys on and a busy timeout,
and every write in a ``BEGIN IMMEDIATE`` transaction, so two ``osmosis``
processes writing at the same time queue up instead of failing or losing a
row. The schema carries a version; :data:`tutor.history.schema.MIGRATIONS` brings an older file
up to date in order, each step in one transaction.

A file that is not a database, or fails SQLite's quick check, is set aside
(renamed with a timestamp) and a fresh one is started: the player gets one
line in :attr:`History.warning`, never a traceback, and the record files in
the games folder are imported again. A sound file with some rows that cannot
be read keeps everything else: a copy of it is set aside, and only those rows
(with what hangs on them) are left out (:func:`tutor.history.schema.leave_out_unreadable`).
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
from ..storage import damaged_database, data_dir, folder_reason, set_aside
from .names import storable
from .schema import (
    MIGRATIONS,
    OUR_TABLES,
    VERSION,
    database_as_it_is,
    drop_unreadable,
    leave_out_unreadable,
    statements,
    unreadable_rows,
    version_of,
)

DB_NAME = "history.sqlite3"
BUSY_MS = 15000


class HistoryError(TutorError):
    """The history database cannot be used (a newer schema, an unwritable folder)."""


def _what_to_do(exc: BaseException) -> str:
    """The player's way out of an SQLite failure, after its own words."""
    text = str(exc).lower()
    if "full" in text:
        return f"{exc}: free some disk space and run it again"
    if "locked" in text or "busy" in text:
        return f"{exc}: another osmosis is writing it; run this again when that one is done"
    if "readonly" in text or "read-only" in text or "unable to open" in text or "i/o" in text:
        return f"{exc} (set OSMOSIS_HOME to a writable folder, or free some disk space)"
    return str(exc)


def write_failed(path: Path, exc: BaseException) -> HistoryError:
    """A write to the history that SQLite refused, as one line for the player (nothing of it was stored)."""
    return HistoryError(f"your history '{path}' cannot be written: {_what_to_do(exc)}")


def _rollback(conn: sqlite3.Connection, statement: str = "ROLLBACK") -> None:
    """Undo a write that failed, when SQLite has not undone it already (a full disk does): the failure's
    own words must reach the player, not "cannot rollback - no transaction is active"."""
    try:
        if conn.in_transaction:
            conn.execute(statement)
    except sqlite3.Error:
        pass


def db_path() -> Path:
    """Where the history database lives."""
    return data_dir() / DB_NAME


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
        record = json.loads(row["record"])
        return cls(row["id"], row["game_key"], record, row["variant"], _deal_number(row["deal_number"], record),
                   row["moves"], row["cards"], bool(row["won"]), bool(row["over"]), row["source"],
                   row["started_at"], row["played_at"], row["updated_at"])


#: The largest deal number the ``deal_number`` column holds: SQLite's integers stop there and PySolFC's
#: numbers go on to 10**20. A game on a larger number keeps NULL there; its record holds the number.
MAX_COLUMN_NUMBER = 2**63 - 1


def _deal_number(column: object, record: dict[str, Any]) -> int | None:
    """A stored game's deal number: the column's, else (NULL there) the number its record names, if any."""
    if isinstance(column, int):
        return column
    deal = record.get("deal") if isinstance(record, dict) else None
    number = deal.get("number") if isinstance(deal, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else None


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
            raise HistoryError(f"cannot create the data folder '{self.path.parent}': {folder_reason(self.path.parent, exc)} "
                               "(set OSMOSIS_HOME to a writable folder)") from None
        #: Opened as it is, with no write possible (a read-only or full data folder, :meth:`_read_only`): why.
        #: ``inserted``: the games this connection added (not updated), each found in its own write transaction.
        self.read_only, self.refused, self.inserted = False, "", 0
        self.unreadable: str | None = None  # read-only: what could not be read and is not shown (None: nothing)
        if self.path.is_dir():  # SQLite says only "unable to open database file"
            raise HistoryError(f"the history database '{self.path}' is a folder, not a file: move that folder away "
                               "(or set OSMOSIS_HOME to another folder)")
        try:
            self.conn = self._connect(upgrade_to)
        except sqlite3.DatabaseError as exc:
            if not damaged_database(exc):
                conn = self._read_only(exc, upgrade_to)
                if conn is None:
                    raise HistoryError(f"the history database '{self.path}' cannot be used: {_what_to_do(exc)}"
                                       ) from None
                self.conn, self.read_only, self.refused = conn, True, str(exc)
                left = f", without what cannot be read ({self.unreadable})" if self.unreadable else ""
                self.warning = (f"your history '{self.path}' cannot be written here ({exc}): it is read as it "
                                f"is{left}, and nothing new is stored (set OSMOSIS_HOME to a writable folder, or "
                                "free some disk space)")
                return
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
            conn.execute("PRAGMA journal_mode = WAL")  # another process may hold it in another mode: still usable
            conn.execute("PRAGMA synchronous = NORMAL")
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"database disk image is malformed ({' '.join(check.split())})")  # 1 line
            self._migrate(conn, upgrade_to)
            if upgrade_to == VERSION and unreadable_rows(conn) is not None:  # rows only: the rest of the file is kept
                self.warning = leave_out_unreadable(conn, self.path, self.clock()) or self.warning
        except BaseException:
            conn.close()
            raise
        return conn

    def _read_only(self, exc: sqlite3.DatabaseError, upgrade_to: int) -> sqlite3.Connection | None:
        """The history opened as it is, for reading, where a read-only or full data folder refused the
        usual opening (WAL needs to write beside the file); None if that is not the trouble or it fails.
        History, export, drill --list and coach --no-review then still read the games: a player can
        always get their history out. Nothing can be written on this connection."""
        text = str(exc).lower()
        if not any(word in text for word in ("readonly", "read-only", "unable to open", "i/o", "full")):
            return None
        if not self.path.is_file():
            return None
        try:  # a copy in memory, brought up to date (an older osmosis's) and without what cannot be read
            conn, missed = database_as_it_is(self.path)
        except (sqlite3.Error, OSError):
            return None
        try:
            conn.row_factory = sqlite3.Row
            conn.text_factory = lambda data: data.decode("utf-8", "replace")
            if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                conn.close()
                return None
            self._migrate(conn, upgrade_to)
            rows = unreadable_rows(conn)
            if rows:
                conn.execute("PRAGMA foreign_keys = ON")  # a game's reviews and drills go with it
                drop_unreadable(conn)
            self.unreadable = "; ".join(filter(None, [rows, "the newest games, in its write-ahead log, which "
                                                      "could not be read here" if missed else None])) or None
            conn.execute("PRAGMA query_only = ON")  # nothing written here could be kept
        except (sqlite3.Error, HistoryError):
            conn.close()
            return None
        return conn

    def _migrate(self, conn: sqlite3.Connection, upgrade_to: int) -> None:
        version = version_of(conn)
        if version > VERSION:
            raise HistoryError(f"the history database '{self.path}' has schema version {version}, newer than "
                               f"this osmosis knows ({VERSION}): upgrade osmosis-tutor to use it")
        if version >= upgrade_to:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = version_of(conn)  # another process may have migrated meanwhile
            if version == 0:
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                foreign = tables - OUR_TABLES or tables - {"schema_version"}  # a history has its version from its start
                if foreign:
                    raise sqlite3.DatabaseError("file is not a database of osmosis-tutor "
                                                f"(it holds tables {', '.join(sorted(foreign))})")
                conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                conn.execute("INSERT INTO schema_version (version) SELECT 0 WHERE NOT EXISTS "
                             "(SELECT 1 FROM schema_version)")
            for step in range(version, upgrade_to):
                migration = MIGRATIONS[step]
                if callable(migration):
                    migration(conn)
                else:
                    for statement in statements(migration):
                        conn.execute(statement)
                conn.execute("UPDATE schema_version SET version = ?", (step + 1,))
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise

    def _set_aside(self, problem: str) -> None:
        try:
            aside = set_aside(self.path, self.clock())
        except OSError as exc:
            raise HistoryError(f"the history database '{self.path}' is damaged ({problem}) and cannot be set "
                               f"aside: {exc.strerror or exc}") from None
        self.warning = (f"the history database was damaged ({problem}); it was set aside as '{aside.name}' "
                        "and a new one started from the games folder: its reviews, drills and games imported from "
                        "elsewhere stay only in that file (a game saved to a file of your own with --save or s FILE "
                        "and played on there is in the new one only as far as the folder's copy goes: osmosis import "
                        "FILE adds the whole game beside it)")

    # ---- plumbing --------------------------------------------------------
    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> float:
        return self.clock()

    def write_refused(self) -> str | None:
        """Why nothing can be written to the history here (SQLite's words: a read-only file or folder, a lock
        held too long), or None: a write tried and undone. A history opened read-only, and one whose file
        refuses writes though it opened as usual (drill asks nothing then: its answer could not be kept)."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.execute("UPDATE schema_version SET version = version")
            finally:
                _rollback(self.conn)
        except sqlite3.Error as exc:
            return str(exc)
        return None

    def write(self) -> _Write:
        """A write transaction (``BEGIN IMMEDIATE``): ``with history.write(): ...``."""
        return _Write(self.conn, self.path)

    def query(self, sql: str, args: Sequence[object] = ()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, args).fetchall()

    @property
    def version(self) -> int:
        return version_of(self.conn)

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row and isinstance(row[0], str) else None  # a value that is no text is damage: unset

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                          "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    # ---- games -----------------------------------------------------------
    def upsert_game(self, key: str, record: dict[str, Any], *, variant: str, deal_number: int | None, deal: str | None,
                    moves: int, cards: int, won: bool, over: bool, content: str, source: str | None,
                    started_at: str, played_at: str, game_id: int | None = None, from_import: bool = False) -> int:
        """Insert a game, or update the one with the same key; returns its id. Call inside :meth:`write`. ``game_id``:
        the id a new row takes (an exported game's own) if free; ``from_import``: a new row is a record imported."""
        now = iso(self.now())
        column = deal_number if deal_number is None or deal_number <= MAX_COLUMN_NUMBER else None
        new = self.game_by_key(key) is None
        if game_id is not None and (self.game(game_id) is not None or not new):
            game_id = None
        self.conn.execute(
            """INSERT INTO games (id, game_key, record, variant, deal_number, deal, moves, cards, won, over, content,
                                  source, started_at, played_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT(game_key) DO UPDATE SET record = excluded.record, variant = excluded.variant,
                   deal_number = excluded.deal_number, deal = excluded.deal, moves = excluded.moves,
                   cards = excluded.cards, won = excluded.won, over = excluded.over, content = excluded.content,
                   source = COALESCE(excluded.source, games.source), played_at = excluded.played_at,
                   updated_at = excluded.updated_at""",
            (game_id, storable(key), _record_text(record), variant, column, deal, moves, cards, int(won),
             int(over), content, storable(source) if source is not None else None, started_at, played_at, now))
        stored = int(self.conn.execute("SELECT id FROM games WHERE game_key = ?", (storable(key),)).fetchone()[0])
        self.inserted += new and moves > 0  # a game played: one with no move is counted nowhere
        if from_import and new:
            self.conn.execute("UPDATE games SET from_import = 1 WHERE id = ?", (stored,))
        return stored

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
    writes of one imported line go in together or not at all, whichever helpers make them. What SQLite
    refuses for want of room, a lock or a writable file is a :class:`HistoryError`, one line for the player."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.nested = False

    def __enter__(self) -> sqlite3.Connection:
        self.nested = self.conn.in_transaction
        try:
            self.conn.execute("SAVEPOINT inner_write" if self.nested else "BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise write_failed(self.path, exc) from None
        return self.conn

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, *rest: object) -> None:
        if self.nested:
            if kind is not None:
                _rollback(self.conn, "ROLLBACK TO inner_write")
            try:
                self.conn.execute("RELEASE inner_write")
            except sqlite3.Error:
                pass
        elif kind is None:
            try:
                self.conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                _rollback(self.conn)
                raise write_failed(self.path, exc) from None
        else:
            _rollback(self.conn)
            if isinstance(value, sqlite3.OperationalError):
                raise write_failed(self.path, value) from None


def _record_text(record: dict[str, Any]) -> str:
    """A record as stored: JSON text, with ``\\u`` escapes only where a text of it is not UTF-8 (a lone
    surrogate from a JSON escape, which SQLite cannot take)."""
    text = json.dumps(record, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(record)
    return text


_STAMP = re.compile(r"(\d{8}-\d{6})")


def file_started_at(path: Path) -> float:
    """When a record file's game began: the autosave name's stamp (local time where it was saved), else the
    file's time; never after the file's time (a game begins before its last save). OSError if it is gone."""
    mtime = path.stat().st_mtime
    match = _STAMP.search(path.name)
    if match:
        try:
            return min(time.mktime(time.strptime(match.group(1), "%Y%m%d-%H%M%S")), mtime)
        except (ValueError, OverflowError):
            pass
    return mtime


