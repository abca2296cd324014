"""The results store: every deal a survey plays, kept in SQLite so no survey does work twice.

A result is keyed by what decides it: the rule options, the policy, the
engine version (a hash of the solver's source, :func:`tutor.survey.engine_version`),
the limits that change the answer (the solver's node and time limits) and the
deal number. A rerun reads what is done; a killed survey resumes, because
each batch is committed as soon as it finishes. The database runs in WAL
mode with a busy timeout, so two surveys can share it at once; inserts are
idempotent (a deal played twice gives the same row).

SQLite's integers stop at 2**63 - 1, and PySolFC's deal numbers go up to
10**20: a deal number above that is kept as a 9-byte big-endian BLOB
(:func:`deal_key`). SQLite sorts every integer before every BLOB, and such
BLOBs in the order of their numbers, so ``BETWEEN`` over the keys still
takes a range of deals, even one across 2**63.

An undecided solver result records the node limit it was tried at: a later
survey with a deeper second search (``--retry-nodes``) plays it again, and
one with a shallower search does not reuse a verdict found deeper.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path

from .errors import TutorError
from .rules import Rules
from .search import Limit
from .storage import check_writable_target, damaged_database, data_dir, folder_reason, set_aside
from .survey import DealOutcome, engine_version
from .textsafe import quoted

SCHEMA = """
CREATE TABLE IF NOT EXISTS configs (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS outcomes (
    config INTEGER NOT NULL REFERENCES configs(id),
    deal INTEGER NOT NULL,
    won INTEGER,
    cards INTEGER NOT NULL,
    seconds REAL NOT NULL,
    tried INTEGER,
    PRIMARY KEY (config, deal)
) WITHOUT ROWID;
"""


_BIG = 2**63  # the first deal number SQLite cannot hold as an integer
_BIG_BYTES = 9  # enough for 10**20 (below 2**67)


def deal_key(number: int) -> int | bytes:
    """A deal number as the store keeps it: itself, or 9 big-endian bytes from 2**63 up."""
    return number if number < _BIG else number.to_bytes(_BIG_BYTES, "big")


def deal_of(key: int | bytes) -> int:
    """The deal number a stored key stands for."""
    return int.from_bytes(key, "big") if isinstance(key, bytes) else key


def _valid(key: object, won: object, cards: object, seconds: object, tried: object) -> bool:
    """Whether a stored row is one a survey writes: a deal key, won 0/1/NULL, 1-52 cards (52 exactly when won:
    every card placed is a win), a finite time of 0 or more, a positive node limit or NULL."""
    if not (type(key) is int and key >= 1) and not (isinstance(key, bytes) and len(key) == _BIG_BYTES):
        return False
    if won not in (None, 0, 1) or type(won) is float or type(cards) is not int or not 1 <= cards <= 52:
        return False
    if (won == 1) != (cards == 52):
        return False
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not math.isfinite(seconds) or seconds < 0:
        return False
    return tried is None or (type(tried) is int and tried >= 1)


def default_store_path() -> Path:
    """``surveys.sqlite3`` in the data folder."""
    return data_dir() / "surveys.sqlite3"


def config_key(rules: Rules, policy: str, limit: Limit) -> str:
    """The part of a result's key shared by every deal of a survey, as canonical JSON.

    With full knowledge (solver) or no look at the cards at all (greedy), a
    face-up reserve changes nothing, so Peek shares Osmosis's results there.
    Only the solver reads the limits.
    """
    open_reserve = rules.open_reserve if policy == "tutor" else False
    key = {"turn": rules.turn, "passes": rules.passes, "open_reserve": open_reserve,
           "reserve_piles": rules.reserve_piles, "policy": policy, "engine": engine_version(policy),
           "nodes": limit.nodes if policy == "solver" else None,
           "seconds": limit.seconds if policy == "solver" else None}
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


class ResultStore:
    """One SQLite file of survey results."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        if path is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except (OSError, ValueError) as exc:
                reason = folder_reason(self.path.parent, exc) if isinstance(exc, OSError) else str(exc)
                raise TutorError(f"cannot create the data folder {quoted(self.path.parent)} for the results "
                                 f"store: {reason} (set OSMOSIS_HOME to a writable folder, or give --store FILE)"
                                 ) from None
        #: One line for the player when the default store was damaged and set aside (None: nothing to say).
        self.warning: str | None = None
        #: Stored rows read that no survey writes (a damaged or edited store): skipped and played again.
        self.invalid = 0
        self.default = path is None
        if path is not None and self.path.is_dir():
            raise TutorError(f"results store {str(self.path)!r} is a folder: give --store a file name, like "
                             f"{str(self.path / 'surveys.sqlite3')!r}")
        if path is not None:  # a pipe or a device: sqlite's "disk I/O error" would blame the disk
            try:
                check_writable_target(self.path)
            except OSError as exc:
                raise TutorError(f"results store {str(self.path)!r} cannot be used: {exc.strerror}") from None
        folder = self.path.parent
        if path is not None and self.path.is_symlink():  # a link to a file in no folder: that folder is missing
            try:
                folder = Path(os.path.realpath(self.path)).parent
            except (OSError, ValueError):
                pass
        if path is not None and not folder.is_dir():  # "a new file name" was no help here
            from .record import no_folder

            raise TutorError(f"results store {str(self.path)!r} cannot be made: "
                             f"{no_folder(folder.absolute())}: give --store a file in a folder that exists")
        try:
            self.db = self._open()
        except sqlite3.Error as exc:
            if not damaged_database(exc):  # the file is sound: its folder or the disk is at fault
                where, other = (("the data folder", "set OSMOSIS_HOME to another folder, or give --store FILE")
                                if path is None else ("its folder", "give --store a file on another disk"))
                raise TutorError(f"results store {str(self.path)!r} cannot be used ({exc}): check that {where} is "
                                 f"writable and the disk is not full (or {other})") from None
            if path is not None:
                raise TutorError(f"results store {str(self.path)!r} cannot be used ({exc}): "
                                 "give --store a new file name or an osmosis results store") from None
            # the default store only keeps results that can be played again: set it aside, start a new one
            try:
                aside = set_aside(self.path)
                self.db = self._open()
            except (OSError, sqlite3.Error) as again:
                raise TutorError(f"results store {str(self.path)!r} is damaged ({exc}) and cannot be replaced "
                                 f"({again}): give --store another file name") from None
            self.warning = (f"the results store was damaged ({exc}); it was set aside as {quoted(aside.name)} "
                            "and a new one started")
        self._configs: dict[str, int] = {}

    def _open(self) -> sqlite3.Connection:
        # Switching a new file to WAL takes a lock that SQLite's busy timeout does not wait
        # for, so two surveys opening one new store at once retry for a while.
        deadline = time.monotonic() + 60
        delay = 0.01
        while True:
            db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            try:
                db.execute("PRAGMA busy_timeout = 60000")
                other = sorted({row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                               - {"configs", "outcomes", "sqlite_sequence"})
                if other:  # another program's database (the game history, say): never add tables to it
                    raise TutorError(f"{quoted(self.path)} is not an osmosis results store (it holds the tables "
                                     f"{', '.join(other[:4])}{', ...' if len(other) > 4 else ''}): give --store "
                                     "a new file name or a results store")
                wrong = _not_a_store(db)
                if wrong:  # tables of those names but not a store's: changed by nothing (no column added)
                    raise TutorError(f"{quoted(self.path)} is not an osmosis results store (its table {wrong}): "
                                     "give --store a new file name or a results store")
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")
                db.executescript(SCHEMA)
                columns = {row[1] for row in db.execute("PRAGMA table_info(outcomes)")}
                if "tried" not in columns:  # a store written before the second search existed
                    try:
                        db.execute("ALTER TABLE outcomes ADD COLUMN tried INTEGER")
                    except sqlite3.OperationalError as exc:
                        if "duplicate column" not in str(exc):  # another survey added it first
                            raise
                return db
            except sqlite3.OperationalError as exc:
                db.close()
                if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
            except BaseException:
                db.close()
                raise

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _failed(self, exc: sqlite3.Error) -> TutorError:
        if damaged_database(exc):  # damage met in the data, after the file opened as sound
            if not self.default:
                return TutorError(f"results store {str(self.path)!r} is damaged ({exc}): give --store another "
                                  "file name (a new one, or a store that is not damaged)")
            # the default store keeps only results that can be played again: set aside, as a store damaged
            # where it opens is (every later survey of those deals failed with advice that did not fit)
            try:
                self.db.close()
                aside = set_aside(self.path)
            except (OSError, sqlite3.Error) as again:
                return TutorError(f"results store {str(self.path)!r} is damaged ({exc}) and cannot be set aside "
                                  f"({again}): give --store another file name")
            return TutorError(f"results store {str(self.path)!r} is damaged ({exc}): it was set aside as "
                              f"{quoted(aside.name)}; run the same command again to play with a new one")
        return TutorError(f"results store {str(self.path)!r} cannot be used ({exc}): check that the file "
                          "and its folder are writable and the disk is not full, or give another --store")

    def config_id(self, key: str) -> int:
        try:
            return self._config_id(key)
        except sqlite3.Error as exc:
            raise self._failed(exc) from None

    def _config_id(self, key: str) -> int:
        if key not in self._configs:
            self.db.execute("INSERT OR IGNORE INTO configs(key) VALUES (?)", (key,))
            (cid,) = self.db.execute("SELECT id FROM configs WHERE key = ?", (key,)).fetchone()
            self._configs[key] = cid
        return self._configs[key]

    def get(self, config: int, first: int, last: int) -> dict[int, DealOutcome]:
        """The stored outcomes of deals ``first..last`` (those that are there)."""
        try:
            rows = self.db.execute("SELECT deal, won, cards, seconds, tried FROM outcomes "
                                   "WHERE config = ? AND deal BETWEEN ? AND ?",
                                   (config, deal_key(first), deal_key(last))).fetchall()
        except sqlite3.Error as exc:
            raise self._failed(exc) from None
        out = {}
        for key, won, cards, seconds, tried in rows:
            if not _valid(key, won, cards, seconds, tried):
                # a row no survey writes (a damaged or edited store): not an answer; the deal is played
                # again and its row replaced
                self.invalid += 1
                continue
            out[deal_of(key)] = DealOutcome(deal_of(key), None if won is None else bool(won), cards, float(seconds),
                                            tried)
        return out

    def put(self, config: int, outcomes: Iterable[DealOutcome]) -> None:
        """Keep outcomes, in one transaction, replacing what is there (``--fresh``, or a deeper search)."""
        rows = [(config, deal_key(o.number), None if o.won is None else int(o.won), o.cards, o.seconds, o.tried)
                for o in outcomes]
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("INSERT OR REPLACE INTO outcomes(config, deal, won, cards, seconds, tried) "
                                    "VALUES (?, ?, ?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise self._failed(exc) from None

    def count(self, config: int) -> int:
        (n,) = self.db.execute("SELECT COUNT(*) FROM outcomes WHERE config = ?", (config,)).fetchone()
        return int(n)


_COLUMNS = {"configs": {"id", "key"}, "outcomes": {"config", "deal", "won", "cards", "seconds"}}
"""The columns every store's tables have had (``tried`` came later, and an older store gets it)."""


def _not_a_store(db: sqlite3.Connection) -> str | None:
    """What shows that a database with a ``configs`` or ``outcomes`` table is no results store ("outcomes has no
    column deal"), or None."""
    for table, wanted in _COLUMNS.items():
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if have and not wanted <= have:
            return f"{table} has no column {sorted(wanted - have)[0]}"
    return None
