"""Copies of one game: the files a game leaves behind as it goes on elsewhere, and the rows that follow it.

A game saved to a file of the player's own (``s FILE``, ``--save``) and played on from there, or from the games
folder while the copy stays as it was, leaves one file behind: reading that file (the games folder's look,
``osmosis import``, a review) must not make it a second game, nor set the history's row back to it.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Collection
from pathlib import Path

from ..errors import TutorError
from ..record import Record, content_of, load_record
from .db import MAX_COLUMN_NUMBER, GameRow, History, parse_iso
from .names import autosave_stamp, key_for_path, path_of, source_of, storable, variant_name


def _left_behind(row: GameRow | None, record: Record, mtime: float) -> int | None:
    """The row's id when the games folder's file is a copy the game left behind: the row holds the same game
    further on, played after the file was last written (saved with ``s FILE`` and finished from that file).
    Such a file is no game of its own: without this it got a row (``#2``) and the player two games."""
    if row is None or row.moves <= len(record.moves):
        return None
    kept = stored(row)
    if kept is None or not same_deal(kept, record) or len(kept.moves) <= len(record.moves):
        return None
    if list(kept.moves[:len(record.moves)]) != list(record.moves):
        return None
    return row.id if _played_after(row, mtime) else None


#: a file a game was resumed from (its absolute name) -> the file's time when play read it: the game then goes
#: on in that file, which no longer tells when it was copied
_read_at: dict[str, float] = {}


def resumed_content(record: Record, path: str | Path | None) -> str:
    """The content of a game as the file it is resumed from holds it; the file's time is kept for
    :func:`nearest_copy`."""
    if path is not None:
        with contextlib.suppress(OSError, ValueError):
            _read_at[source_of(path)] = os.stat(path).st_mtime
    return content_of(record)


def nearest_copy(history: History, ids: list[int], path: str | Path | None) -> int | None:
    """Of the rows ``ids`` (oldest first), all holding the game a file at ``path`` holds, the one it is a copy
    of. Two games played move for move alike (``d d`` twice on one deal, the second saved with ``--save
    copy.json``) hold the same content: the copy is of one begun by the time the file was written, the one
    last played by then (the newest such), else the one played soonest after. None where none had begun and
    another game of the deal, begun by then, went on from the file's moves (``s a.json`` at move 2, the game
    played on, then another game played alike): a copy of that one's first moves. The first where the file's
    time is not known, or tells nothing (a copy's time set back by a restore).

    Times: a game's are stored to the second, rounded down, so a file written at 10:00:00.9 came before a
    game begun at 10:00:01; a file time in whole seconds (a coarse file system) gets two seconds' grace."""
    if not ids or path is None:
        return ids[0] if ids else None
    when = _read_at.get(source_of(path))
    try:
        when = os.stat(path).st_mtime if when is None else when
    except (OSError, ValueError):
        return ids[0]
    when += 0 if when % 1 else 2
    by_then: tuple[float, int] | None = None
    after: tuple[float, int] | None = None
    for game_id in ids:
        row = history.game(game_id)
        try:
            played = parse_iso(row.played_at) if row is not None else None
            began = parse_iso(row.started_at) if row is not None and row.started_at else played
        except ValueError:
            continue
        if played is None or began is None or began > when:
            continue  # begun after the file was written: no copy of it
        if played <= when:
            by_then = (played, game_id) if by_then is None or played >= by_then[0] else by_then
        elif after is None or played < after[0]:
            after = (played, game_id)
    found = by_then or after
    if found is not None:
        return found[1]
    first = history.game(ids[0])
    record = stored(first) if first is not None else None
    return None if record is not None and _went_on_before(history, record, when) else ids[0]


def _went_on_before(history: History, record: Record, when: float) -> bool:
    """Whether a game of ``record``'s deal, begun by ``when``, holds its moves and more."""
    for row in _deal_rows(history, record, "", "id"):
        try:
            began = parse_iso(row.started_at) if row.started_at else None
        except ValueError:
            continue
        kept = stored(row) if began is not None and began <= when and row.moves > len(record.moves) else None
        if kept is not None and same_deal(kept, record) and _one_line(kept, record):
            return True
    return False


def copied_row(history: History, content: str, path: str | Path | None) -> GameRow | None:
    """The row holding ``content`` that the file at ``path`` is a copy of (:func:`nearest_copy`)."""
    ids = [int(r[0]) for r in history.query("SELECT id FROM games WHERE content = ? ORDER BY id", (content,))]
    found = nearest_copy(history, ids, path)
    return history.game(found) if found is not None else None


def _played_after(row: GameRow, mtime: float) -> bool:
    """Whether the row's game was last played after a file was last written at ``mtime`` (stored to the
    second, so within a second counts as after)."""
    try:
        return parse_iso(row.played_at) + 1 > mtime
    except ValueError:
        return False


def copy_left_behind_at(history: History, record: Record, mtime: float, name: str | None = None) -> int | None:
    """The row of the game a record file is a copy of, left behind: written while that game was played (after
    it began, before it was last played) and holding its first moves (``--save game.json``, quit, then
    ``play --resume last`` went on in the games folder's file; ``s FILE`` and play went on). ``osmosis
    import``, a review and the games folder's look took such a file for a game of its own, so the history and
    the coach counted the game twice. Of two games of the deal, the one begun last before the file was
    written. A file of a game that was not played on after it is found by its content.

    ``name``: the file's name (or the key it was exported under). Named as play names a game's own file, it
    began when its stamp says: a game goes on in newer files, never back to an older one, so such a file is
    no copy left behind by a game whose own file began before it. This holds where the files' times do not
    (copied without them, every file is as new as the copy, and a later try of the deal that its moves begin
    fell in the earlier game's span)."""
    number = record.deal.number
    began_file = autosave_stamp(name) if name is not None else None
    # the game begun last before the file was written first: the one in play then
    for row in _deal_rows(history, record, "", "started_at DESC, id DESC"):
        try:
            began = parse_iso(row.started_at)
        except ValueError:
            continue
        # written before that game began, the file is no copy of it (a game of the deal played elsewhere,
        # or an earlier one): stored to the second, so a second's grace
        # a file of the game's own name (play names each game's file once) is its copy whatever its time says
        # (a backup made with a plain cp: every file as new as the backup)
        own = began_file is not None and row.key is not None and _file_name(row.key) == _file_name(name or "")
        if row.deal_number != number or (not own and (mtime + 1 < began or not _played_after(row, mtime))):
            continue
        began_row = autosave_stamp(path_of(row.key)) if row.key is not None else None
        if began_file is not None and began_row is not None and began_row < began_file:
            continue
        kept = stored(row)
        # the file a strict start of the game: one ahead of the row is the game gone on in that file (a
        # session's last moves, a rebuilt history's short copy), to be taken in
        if kept is not None and same_deal(kept, record) and len(kept.moves) > len(record.moves) and _one_line(kept, record):
            return row.id
    return None


def _file_name(key: str) -> str:
    """The file name in a key or a path (``games/deal-1-...json#2``: ``deal-1-...json``)."""
    return re.sub(r"#\d+$", "", path_of(key)).replace("\\", "/").rsplit("/", 1)[-1]


def _one_line(a: Record, b: Record) -> bool:
    """Whether one record's moves are the start of the other's: one line of play, at two moments."""
    n = min(len(a.moves), len(b.moves))
    return list(a.moves[:n]) == list(b.moves[:n])


def own_key(history: History, key: str, record: Record) -> str:
    """The key of the row of a file's own game: ``KEY``, or ``KEY#n`` where the file, an older copy of a game
    that went on elsewhere, was played on as a game of its own (tutor.history.games._resumed_key) and that
    row holds the file's game, at this point or another of its line."""
    n = 2
    while (row := history.game_by_key(f"{key}#{n}")) is not None:
        kept = stored(row)
        if kept is not None and same_deal(kept, record) and _one_line(kept, record):
            return f"{key}#{n}"
        n += 1
    return key


def _went_on_in_a_copy(row: GameRow | None, record: Record, path: Path, mtime: float) -> int | None:
    """The row's id when its game went on from a copy of the games folder's file ``path`` (``s FILE``, then
    ``play --resume FILE``: the row follows the copy, its ``source``) after the file was last written: the
    row is not set back to the file's game. A copy resumed and taken back a move (or played another way
    from there), then the folder read again, made the row the file's game once more, and the copy's next
    session a second row. A file written after the row was last played (a session stopped between its save
    and the history's) is still caught up with."""
    if row is None or not follows_another_file(row, path):
        return None
    kept = stored(row)
    if kept is None or not same_deal(kept, record):
        return None
    return row.id if _played_after(row, mtime) else None


def follows_another_file(row: GameRow, path: str | Path) -> bool:
    """Whether the row's game went on in another file than ``path``, its copy: its ``source`` names another
    file. A source of the same name is this file where it lay before (a data folder moved or copied
    elsewhere keeps the names, not the paths), unless that file is still there, another one, holding the
    row's game: a backup of the games folder played on (``cp -p games/*.json bk/``, ``play --resume
    bk/...``), whose older copy in the folder, resumed, set the row back and lost the moves played in bk."""
    if row.source is None or path_of(row.source) == source_of(path):
        return False
    there = Path(path_of(row.source))
    if there.name != Path(path).name:
        return True
    try:
        if there.read_bytes() == Path(path).read_bytes():
            return False
        kept = stored(row)
        return kept is not None and content_of(load_record(there)) == content_of(kept)
    except (OSError, TutorError, ValueError):
        return False


def went_on_in_a_copy(history: History, path: Path, record: Record) -> GameRow | None:
    """The history's game when the file ``path`` (holding ``record``) is one it left to go on from a copy
    (:func:`_went_on_in_a_copy`), else None: what the file holds is no longer that game as it is."""
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    key = key_for_path(path)
    if own_key(history, key, record) != key:
        return None  # played on as a game of its own: that row's
    row = history.game_by_key(key)
    return row if _went_on_in_a_copy(row, record, path, mtime) is not None else None


def copy_left_behind(history: History, path: Path, record: Record) -> GameRow | None:
    """The history's game of which the file ``path`` is a copy left behind (:func:`copy_left_behind_at`)."""
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    found = copy_left_behind_at(history, record, mtime, path.name)
    return history.game(found) if found is not None else None


def went_on_elsewhere(history: History, path: Path, record: Record, mtime: float) -> GameRow | None:
    """The history's game when the games folder's file ``path`` (holding ``record``, last written at
    ``mtime``) is a copy that game left behind (:func:`_left_behind`), else None."""
    key = key_for_path(path)
    if own_key(history, key, record) != key:
        return None  # played on as a game of its own (its ``#2`` row holds it): no copy left behind
    row = history.game_by_key(key)
    return row if _left_behind(row, record, mtime) is not None else None


def claim_file_copy(history: History, record: Record, key: str | None, started_at: str | None = None,
                    taken: Collection[int] = (), played_at: str | None = None, copy: bool = False) -> bool:
    """The row of a record file ``osmosis import`` stored (``from_import``: a copy saved with ``--save`` where
    the game was played, say) that holds the game an exported line under ``key`` brings, now stored under that
    key: the game stays one row whichever came first, the file or the export (a file imported after the export
    is found by its content, as a copy). Only such a row: a game played here, or restored from an export line,
    is a game of its own even when played alike, and the claimed row is one no more, so a second line alike
    gets a row of its own; so does one of ``taken`` (the rows an earlier line of the same file stored).

    ``copy``: the line is itself a file copy (marked ``from_import``: a record file imported where it was
    exported), found already when it holds the row's game or less; here it takes over only a row it goes on
    from, which stays marked as a copy. Whether a row was claimed; nothing changes when the key is stored
    already or no such row is. In ``write``."""
    if key is None or history.game_by_key(key) is not None:
        return False
    rows = [] if copy else [int(r[0]) for r in history.query(
        "SELECT id FROM games WHERE content = ? AND from_import = 1 ORDER BY id", (content_of(record),))
        if int(r[0]) not in taken]
    if not rows:  # a copy saved before the game went on: the export holds it further on (one line of play)
        rows = [row.id for row in _imported_starts(history, record, started_at, played_at) if row.id not in taken]
    if rows:  # stored under the line's key from now on, begun at the earlier of the two starts; the line's
        # game, the same or further on, then brings the row up to date (tutor.history.games.key_of)
        with history.write() as conn:
            conn.execute("UPDATE games SET game_key = ?, from_import = ?, started_at = min(started_at, "
                         "COALESCE(?, started_at)) WHERE id = ?", (storable(key), int(copy), started_at, rows[0]))
    return bool(rows)


def _imported_starts(history: History, record: Record, started_at: str | None,
                     played_at: str | None = None) -> list[GameRow]:
    """The rows of record files ``osmosis import`` stored whose game is a strict start of ``record``'s: a
    ``--save`` copy written before the game it holds went on (imported first, it was a second game when the
    export of that game came after it). Written while that game was played, where the line says when: after
    it began (``started_at``) and no later than it was last played (``played_at``), each stored to the second,
    so a second's grace. A file of the deal from before is no copy of it, and neither is one written after:
    another game begun alike (imported first, it was merged into the game it starts, and not after it)."""
    began, ended = _moment(started_at), _moment(played_at)
    found = []
    for row in _deal_rows(history, record, "from_import = 1 AND ", "id"):
        written = _moment(row.played_at)  # when the file was written, as import stored it
        if (written is None or (began is not None and written < began - 1)
                or (ended is not None and written >= ended + 1)):
            continue
        kept = stored(row)
        if (kept is not None and same_deal(kept, record) and len(kept.moves) < len(record.moves)
                and _one_line(kept, record)):
            found.append(row)
    return found


def _deal_rows(history: History, record: Record, where: str, order: str) -> list[GameRow]:
    """The rows of ``record``'s variant and deal number (``where``: more conditions, each ending in AND), in
    ``order``; a number past the column's range is kept in the record only, so its rows have none."""
    number = record.deal.number
    column = number is not None and number <= MAX_COLUMN_NUMBER
    rows = history.query(f"SELECT * FROM games WHERE {where}variant = ? AND "
                         + ("deal_number = ?" if column else "deal_number IS NULL") + f" ORDER BY {order}",
                         (variant_name(record), *((number,) if column else ())))
    return [GameRow.from_sql(raw) for raw in rows]


def _moment(text: str | None) -> float | None:
    """A stored moment as seconds, None where there is none or it cannot be read."""
    try:
        return parse_iso(text) if text else None
    except ValueError:
        return None


def same_deal(kept: Record, record: Record) -> bool:
    """Whether two records are games of one deal under one set of rules."""
    return (kept.rules, kept.deal) == (record.rules, record.deal)


def stored(row: GameRow) -> Record | None:
    try:
        return record_of(row)
    except TutorError:
        return None


def record_of(row: GameRow) -> Record:
    """The stored game as a :class:`Record` (replayed, so it is checked)."""
    return Record.from_json(row.record, source=f"game {row.id} of the history")
