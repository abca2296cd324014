"""Games into the history: from a record as it is played, from the games folder, from any record file.

A game's key is stable: a record file kept in the games folder is keyed by its name there
(``games/deal-7-20261201-090000.json``), any other file by its full path, so saving the same autosave file
again updates its row. A record that comes with no file is keyed by its content.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import TutorError
from ..record import Record, content_of, load_record, loads_record
from ..record_notes import for_history
from ..storage import games_dir, is_regular_file, record_files
from ..textsafe import quoted
from .copies import (
    _file_name,
    _left_behind,
    _went_on_in_a_copy,
    copied_row,
    copy_left_behind_at,
    follows_another_file,
    nearest_copy,
    own_key,
    same_deal,
    stored,
)
from .db import History, HistoryError, db_path, file_started_at, iso, parse_iso
from .names import autosave_stamp, file_of_key, key_for_path, source_of, storable, variant_name

IMPORTED_FLAG = "games_folder_imported"
SYNCED_FLAG = "games_folder_synced"
"""When the games folder was last compared with the history (:func:`sync_games_folder`)."""
SYNC_SLACK = 2.0
"""Seconds before that moment whose files are looked at again (times are stored in whole seconds)."""


def open_history(path: Path | None = None, clock: Callable[[], float] = time.time,
                 import_folder: bool = True, playing: Path | None = None) -> History:
    """Open (or create) the history; on first use, the records in the games folder go in, and after that
    the files changed since the last look that the history lags behind (:func:`sync_games_folder`).
    ``playing``: the file of the game in play, whose move the caller stores next: left to it (read here, the
    file just saved ahead of its row looked like a game of its own, and a resumed copy got a second row)."""
    history = History(path or db_path(), clock=clock)
    if import_folder and not history.read_only:  # read as it is: nothing could be stored
        try:
            if history.meta(IMPORTED_FLAG) is None:
                history.imported = import_games_folder(history, playing)
            else:
                sync_games_folder(history, playing)
        except BaseException:
            history.close()
            raise
    return history


def sync_games_folder(history: History, playing: Path | None = None) -> int:
    """Bring the history up to the games folder: the files saved since the last look, each stored where
    its row lags behind it or it has none; returns how many were looked at.

    Play saves the file first and the history second, so a game stopped in between (Ctrl-C, a kill, a
    full disk, a lock held too long) left the history a move or a game behind the file; the next command
    that opens the history catches up. Only files changed since the last look are read (their times
    against the stored moment), so a folder of thousands of games costs a listing. A write the history
    refuses leaves the look for next time.
    """
    since = history.meta(SYNCED_FLAG) or history.meta(IMPORTED_FLAG)
    if since is None:
        return 0
    now = history.now()
    try:
        start = parse_iso(since) - SYNC_SLACK
    except ValueError:
        start = 0.0  # a moment that cannot be read: look at every file once
    if start > now:  # the last look is in the future: the clock was ahead then, so every file is looked at once
        start = 0.0
    folder = games_dir()
    recent = []
    try:
        files = sorted(record_files(folder))
    except OSError:
        return 0
    for path in files:
        try:
            changed = path.stat().st_mtime >= start
        except OSError:
            continue
        if changed and is_regular_file(path) and not _same_file(path, playing):
            recent.append(path)
    if not recent:
        return 0
    try:
        for path in recent:
            try:
                add_file(history, path, as_played=True, by_content=not autosave_name(path))
            except HistoryError:
                raise
            except (TutorError, OSError, ValueError):
                continue  # a broken or foreign file stays where it is
        with history.write():
            history.set_meta(SYNCED_FLAG, iso(now))
    except HistoryError:
        return 0  # refused (read-only, full, locked): tried again on the next open
    return len(recent)


def add_record(history: History, record: Record, *, key: str | None = None, source: str | None = None,
               started_at: str | None = None, played_at: str | None = None, game_id: int | None = None,
               from_import: bool = False, file_time: bool = False) -> int:
    """Store a game (insert, or update the row with the same key); returns its id (``file_time``: the dates are
    a file's, see :func:`add_file`).

    With no key the game is found by its content, so importing the same
    record twice keeps one row. ``from_import``: a record file ``osmosis import`` reads (a new row says so).
    """
    states = record.states()
    final = states[-1]
    content = content_of(record)
    now = iso(history.now())
    with history.write():
        if key is None:
            same = history.game_by_content(content)
            key = same.key if same is not None else "content:" + content
        old = history.game_by_key(key)
        played = played_at or now  # a file's time an hour ahead (a clock that was ahead) is now, kept while no
        if file_time and played > iso(history.now() + 3600):  # move comes: else it stays the newest game for days
            kept = old is not None and old.moves == len(record.moves) and old.played_at <= now
            played = old.played_at if kept and old is not None else now
        begun = min(started_at or (old.started_at if old is not None else now), played)
        return history.upsert_game(
            key, for_history(record.to_json()), variant=variant_name(record), deal_number=record.deal.number,
            deal=None if record.deal.number is not None else json.dumps(record.deal.to_json()),
            moves=len(record.moves), cards=final.cards, won=final.won, over=final.over, content=content,
            source=source, started_at=begun, played_at=played, game_id=game_id, from_import=from_import)


#: The connection a game in play keeps open between its moves: opening and closing the file
#: for every move would cost a checkpoint each time. Keyed by the file; dropped when the
#: file was replaced or an error came up.
_kept: dict[Path, tuple[History, tuple[int, int] | None]] = {}


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _kept_history(history_path: Path, clock: Callable[[], float], playing: Path | None = None) -> History:
    kept = _kept.get(history_path)
    if kept is not None:
        history, ident = kept
        if ident == _file_id(history_path) and history.clock is clock:
            return history
        _drop(history_path)
    history = open_history(history_path, clock=clock, playing=playing)
    _kept[history_path] = (history, _file_id(history_path))
    return history


def _drop(history_path: Path) -> None:
    kept = _kept.pop(history_path, None)
    if kept is not None:
        try:
            kept[0].close()
        except Exception:  # noqa: BLE001 - it is being thrown away
            pass


def take_warning(history_path: Path | None = None) -> str | None:
    """The note about a damaged file set aside by the kept connection, once."""
    kept = _kept.get(Path(history_path or db_path()))
    if kept is None or not kept[0].warning:
        return None
    warning, kept[0].warning = kept[0].warning, None
    return warning


def note_game(record: Record, path: str | Path | None, history_path: Path | None = None,
              clock: Callable[[], float] = time.time, resumed_from: str | None = None,
              moved_from: str | Path | None = None) -> int:
    """Store a game as it is played (the record just autosaved to ``path``); returns its id.

    ``resumed_from``: the content (:func:`tutor.record.content_of`) of the game as the file it was resumed
    from held it. When that file has no row of its own but a row holds that very game, unfinished (a copy
    saved with ``s FILE`` and resumed from it), the game goes on in that row, not in a second one.
    ``moved_from``: the file this game left for a copy at ``path`` as something else wrote it; the row under
    that file's name goes on under the copy's when it holds this game's first moves (nothing of the game
    that wrote the file), so one game is one row.
    The connection stays open for the next move; a failure closes it and is
    retried once on a fresh one (which sets a damaged file aside).
    """
    history_path = Path(history_path or db_path())
    key = key_for_path(path) if path is not None else None
    source = source_of(path) if path is not None else None
    for attempt in (1, 2):
        history = _kept_history(history_path, clock, Path(path) if path is not None else None)
        try:
            if key is not None and resumed_from is not None:
                key = _resumed_key(history, key, resumed_from, source)
            if key is not None and moved_from is not None:
                _follow_copy(history, record, key_for_path(moved_from), key)
            return add_record(history, record, key=_session_key(history, record, key), source=source)
        except Exception:
            _drop(history_path)
            if attempt == 2:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def forget_unplayed(path: str | Path, history_path: Path | None = None) -> None:
    """Take out the row of a game whose file play removed on quit, every move taken back: no file and no move
    are left, so no game is either (kept, it was counted nowhere, yet exported and imported as a game)."""
    history_path = Path(history_path or db_path())
    if not history_path.is_file():
        return
    history = _kept_history(history_path, time.time)
    with history.write() as conn:
        conn.execute("DELETE FROM games WHERE game_key = ? AND moves = 0 AND from_import = 0",
                     (storable(key_for_path(path)),))


def _follow_copy(history: History, record: Record, old: str, new: str) -> None:
    """The row under the file the game left (``old``) goes on under its copy's key (``new``), when the copy has
    no row yet and that row holds this game's first moves, unfinished: the file was then written by something
    that never told the history (another game copied over it), and one game stays one row."""
    if history.game_by_key(new) is not None:
        return
    row = history.game_by_key(old)
    if row is None or row.over:
        return
    kept = stored(row)
    if kept is not None and same_deal(kept, record) and list(record.moves[:len(kept.moves)]) == list(kept.moves):
        with history.write() as conn:
            conn.execute("UPDATE games SET game_key = ? WHERE id = ?", (storable(new), row.id))


#: (history file, a resumed file's key) -> the key its game goes on under, chosen at its first move.
_resumed: dict[tuple[str, str], str] = {}


def _resumed_key(history: History, key: str, content: str, source: str | None = None) -> str:
    """The key a resumed game goes on under: its file's, or the key of the unfinished row that holds the
    game as the file held it when the file has no row (chosen once, then kept for the whole game). A file
    whose row went on in a copy (its ``source`` another file, its game no longer the file's) is an older copy
    played on as a game of its own, as play says: a key of its own (``KEY#2``...), the copy's game kept (it
    was written over)."""
    memo = (str(history.path), key)
    if memo not in _resumed:
        row = history.game_by_key(key)
        same = copied_row(history, content, source) if row is None else None
        chosen = same.key if same is not None and not same.over else key
        if row is not None and source is not None and follows_another_file(row, source) and _content(history, key) != content:
            n = 2  # the row this file's game went on in before (holding the game as the file held it), or a new one
            while history.game_by_key(f"{key}#{n}") is not None and _content(history, f"{key}#{n}") != content:
                n += 1
            chosen = f"{key}#{n}"
        _resumed[memo] = chosen
    return _resumed[memo]


def _content(history: History, key: str) -> str | None:
    rows = history.query("SELECT content FROM games WHERE game_key = ?", (storable(key),))
    return str(rows[0][0]) if rows else None


def _session_key(history: History, record: Record, key: str | None) -> str | None:
    """The key a game in play is stored under: its file's, unless that row holds another deal, or a
    finished game this one is not (an older copy put back over the finished file): then that row is
    kept and the game goes on under the file's key with ``#2`` (``#3``...), the same on every move.
    An undo in the same game keeps its row, as the file does."""
    if key is None:
        return None
    base, n = key, 1
    while True:
        row = history.game_by_key(key)
        if row is None or (not row.over and row.deal_number is not None and row.deal_number == record.deal.number
                           and row.variant == variant_name(record)):
            return key  # the usual case, every move of a game: no record to read back
        kept = stored(row)
        if kept is None:
            return key
        if same_deal(kept, record) and (not row.over or list(kept.moves) == list(record.moves)):
            return key
        n += 1
        key = f"{base}#{n}"


def _same_file(path: Path, other: Path | None) -> bool:
    try:
        return other is not None and os.path.samefile(path, other)
    except OSError:
        return False


def autosave_name(path: Path) -> bool:
    """Whether ``path`` is named as play names a game's own file. Any other file in the games folder is a copy
    the player saved there (``s FILE``, ``--save``): the same game as a stored one is that game, not a second
    (as a file imported from anywhere else), where two files play saved are two games even if played alike."""
    return autosave_stamp(path.name) is not None


def add_file(history: History, path: Path, keyed: bool = True, text: str | None = None,
             warnings: list[str] | None = None, as_played: bool = False, by_content: bool = True,
             from_import: bool = False) -> int:
    """A record file into the history; its dates come from the file. :class:`TutorError` if it is no record.

    ``text``: the file's text when the caller has read it already (a pipe can be read only once).
    ``warnings`` gets the record's (a stated result its moves do not reach: the moves' is stored).
    ``as_played``: a file of the games folder, stored under the key play stores it under
    (:func:`_session_key`: ``#2``... where the file's row holds a finished game this one is not), so a
    game that went on from an older copy put back over a finished one never gets a row of its own.
    ``by_content``: a file found nowhere under its key may be a copy of a stored game (:func:`key_of`); a
    file of the games folder is a game of its own, even one played move for move like another."""
    record = load_record(str(path)) if text is None else loads_record(text, f"record {quoted(path)}")
    if warnings is not None:
        warnings += record.warnings
    mtime = path.stat().st_mtime
    started, played = file_times(path)
    key = key_for_path(path) if keyed else None
    with history.write():  # the look-up and the insert in one transaction: two imports at once make one row
        if key is not None:
            key = own_key(history, key, record)  # an older copy played on as a game of its own: its row
            row = history.game_by_key(key)
            left = _left_behind(row, record, mtime) if as_played else None
            if left is None:  # also for an import of the file: it set the row back as the folder's reading did
                left = _went_on_in_a_copy(row, record, path, mtime)
            if left is not None:
                return left
        if as_played and key is not None:
            key = _session_key(history, record, key)
        found = key_of(history, record, key, by_content)
        if isinstance(found, int):
            return found
        if by_content and (found is None or history.game_by_key(found) is None):
            ahead = copy_left_behind_at(history, record, mtime, path.name)
            if ahead is not None:
                return ahead
        return add_record(history, record, key=found, source=source_of(path), started_at=started,
                          played_at=played, from_import=from_import, file_time=True)


def file_times(path: Path) -> tuple[str, str]:
    """When a record file's game began and was last played, as the history stores them: the file's times
    (``osmosis import`` and ``osmosis review`` of the same file give its game the same dates). OSError if
    the file is gone."""
    return iso(file_started_at(path)), iso(path.stat().st_mtime)  # the start never after the last save


def dates_of(path: str | Path | None) -> tuple[str | None, str | None]:
    """:func:`file_times` of the record file ``path`` where there is one to read (None, None: a pipe's, or a
    record with no file, is now), so ``osmosis review`` stores a new game with the dates an import gives it."""
    if path is None or not is_regular_file(path):
        return None, None
    try:
        return file_times(Path(path))
    except OSError:
        return None, None


def key_of(history: History, record: Record, key: str | None, by_content: bool = True) -> str | int | None:
    """The key a record goes in under when it comes with ``key`` (a file's, or an exported line's).

    An int: the id of the row that already holds this game as far or further on (nothing to store).
    A row under the same key that holds another game keeps it: the record gets a row of its own
    (``None``: found by its content). With ``by_content``, the same game under another key stays one row
    (a record file copied); an exported line keeps its own row, as two games played alike are two games.
    """
    old = history.game_by_key(key) if key is not None else None
    if old is not None:
        kept = stored(old)
        if kept is not None and same_deal(kept, record):
            if list(kept.moves[:len(record.moves)]) == list(record.moves) and len(kept.moves) >= len(record.moves):
                return old.id  # the same game, no further on (an undo's copy): the row keeps every move
            if list(record.moves[:len(kept.moves)]) == list(kept.moves):
                old = None  # the same game, gone on: the row is brought up to date
        if old is not None:
            key = None  # another game now under that name: a row of its own, the stored game kept
    if by_content and key is not None and old is None and history.game_by_key(key) is None:
        same = _copy_of(history, record, key)
        if same is not None:
            return same  # the same game under another name (a copy): one row, its dates and file kept
    return key


def _copy_of(history: History, record: Record, key: str) -> int | None:
    """The row whose game the file under ``key`` is a copy of: the same moves, and not another game of play's
    own. Two files play saved (``deal-12-20261206-104049.json``, ``...-104052.json``) are two games even when
    played move for move alike, wherever they are imported from (a backup of the games folder merged them);
    a copy under the same name, or under a name of the player's own, is the stored game. The whole name: two
    games begun in the same second are ``...-105314.json`` and ``...-105314-2.json``."""
    mine = _own_name(key)
    ids = [int(game_id) for game_id, other in history.query(
        "SELECT id, game_key FROM games WHERE content = ? ORDER BY id", (content_of(record),))
        if mine is None or not other or _own_name(other) is None or _own_name(other) == mine]
    return nearest_copy(history, ids, file_of_key(key))


def _own_name(key: str) -> str | None:
    """The file name of a key whose file play named as a game's own (``deal-12-20261206-105314-2.json``; a
    key's ``#2`` left out), else None."""
    return None if autosave_stamp(key) is None else _file_name(key)


def _play_order(path: Path) -> tuple[float, str]:
    """Files in the order their games began, so ids follow it (by name, deal 10 came before deal 5)."""
    try:
        return file_started_at(path), path.name
    except OSError:
        return float("inf"), path.name


def import_games_folder(history: History, playing: Path | None = None) -> tuple[int, int]:
    """Every record file of the games folder into the history (once); returns (games added, files skipped).

    Each file is a game played, so two played move for move alike are two rows, as play stored them (the
    history rebuilt after damage merged them, and said it had imported both)."""
    folder = games_dir()
    skipped = 0
    inserted = history.inserted  # rows this process adds: another importing at once adds its own, not counted
    try:
        files = sorted(record_files(folder), key=_play_order)
    except OSError:
        return 0, 0  # a folder it may not read: not marked done, so its games go in once it can be read
    for path in files:
        if _same_file(path, playing):
            continue  # the game in play: its caller stores it
        if not is_regular_file(path):  # a pipe named x.json would block the read for ever
            skipped += 1
            continue
        try:
            add_file(history, path, by_content=not autosave_name(path))
        except HistoryError:
            raise  # the history refused the write (full, locked): the import is tried again next time
        except (TutorError, OSError, ValueError):
            skipped += 1  # a broken or foreign file stays where it is; play never wrote it half
    with history.write():
        history.set_meta(IMPORTED_FLAG, iso(history.now()))
    return history.inserted - inserted, skipped


