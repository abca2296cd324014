"""The files a write never goes over: another game, finished or not, a deal file, an export of the history,
the tutor's own data, or a file that cannot be read (what it holds cannot be checked). ``s FILE`` and
``--save`` check a game's file (:func:`keep_other_file`); every other output (an export, per-deal lines, a
graph, an annotated record) checks its target (:func:`keep_game_file`). Each refusal is one line that says
what the file holds and what to do instead.
"""

from __future__ import annotations

import errno
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import RecordError
from ..inputs import sniff, sniff_json
from ..narrate.play import plural as _plural
from ..record import Record, is_finished, keep_finished_game, load_record
from ..record_notes import moves_as_objects
from ..storage import unreadable
from ..textsafe import os_reason, quoted, shown_path


def keep_other_file(path: str | Path, record: Record, began: float | None = None) -> None:
    """Refuse to write this game over a file that holds something else: another game (other rules, another
    deal, or moves this game does not go on from) or a file that is no game record at all.

    An empty file, and an earlier record of this same game (its moves the start of this one's), may be
    written over: nothing of it is lost. With ``began`` (when this game began, seconds since the epoch), a
    file with fewer moves that was last written before then is an earlier try of the deal, not this game
    saved on the way, and is kept: its moves are in this game too, but the try is a game of its own.
    """
    refuse_folder_name(path, "this game", "game.json")
    p = Path(path)
    keep_unreadable(p, "give a new file name")
    # a finished game or a deal file first: their own, more telling refusal
    keep_finished_game(p, "this game" if is_finished(record) else "this unfinished game", record)
    old = _record_in(p)
    if old is None:
        return
    if not isinstance(old, Record):
        raise RecordError(f"{quoted(p)} is not a game record and is kept as it is: give a new file name")
    keep_move_objects(p, "give a new file name")
    a, b = list(old.moves), list(record.moves)
    earlier = len(a) < len(b) and began is not None and _written_before(p, began)
    if old.rules == record.rules and old.deal == record.deal and a == b[:len(a)] and not earlier:
        return
    rules = f", {old.rules.describe()}" if old.rules != record.rules else ""
    rules += ", saved before this game began" if earlier and a == b[:len(a)] else ""
    again = (f" (osmosis play --resume {shown_path(p)} goes on with that one)"
             if old.rules == record.rules and old.deal == record.deal else "")
    raise RecordError(f"{quoted(p)} holds another game ({_game_words(old)}{rules}) and is "
                      f"kept as it is: give a new file name{again}")


def game_began(resumed: Path | None) -> float:
    """When the game being played began, to the whole second: now for a new game (or one read from a pipe),
    else when the resumed file's game began (its autosave name's stamp, local time where it was saved, never
    after the file's last save; else the file's time). A file's time is when it was last saved, and a save of
    the same game a moment before it (``s FILE`` just before quitting) must not count as written before the
    game began. The stamp read in a time zone east of where the game began comes out early by the difference
    (a name holds no zone)."""
    if resumed is None:
        return time.time()
    from ..history.db import file_started_at

    try:
        return float(math.floor(file_started_at(resumed)))
    except OSError:
        return time.time()


def _written_before(p: Path, began: float) -> bool:
    """Whether the file was last written before this game began. A file system that keeps whole seconds gives
    no finer time, so there a file of the second in which the game began counts as written while it was played
    (a save of this game); elsewhere the times are compared as they are: a try saved earlier in that same
    second (scripts play games one after another) was written over as this game's own."""
    try:
        ns = p.stat().st_mtime_ns
    except OSError:
        return False
    if ns % 1_000_000_000 == 0:
        return ns // 1_000_000_000 < math.floor(began)
    return ns / 1e9 < began


def cannot_write(path: str | Path, exc: OSError, flag: str) -> str:
    """Why ``path`` could not be written, and what to give ``flag`` instead: a file in a folder that exists,
    or one in a folder that can be written (with room on its disk)."""
    from ..record import no_folder

    folder = Path(path).absolute().parent
    if not folder.is_dir():
        return f"{no_folder(folder)}; give {flag} a file in a folder that exists"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{os_reason(exc)}; give {flag} a file in a folder you can write to"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{os_reason(exc)}; give {flag} a file on a disk with room"
    if exc.errno == errno.ENAMETOOLONG:
        return f"{os_reason(exc)}; give {flag} a shorter file name"
    reason = os_reason(exc)  # a folder, a device or a pipe named: the reason says what to give already
    return reason if "give " in reason else f"{reason}; give {flag} another file"


def refuse_folder_name(path: str | Path, what: str, example: str = "out.json") -> None:
    """Refuse an empty name, or one ending in a slash: ``Path()`` would drop the slash and write a file of the
    folder's name."""
    if not str(path):
        raise RecordError(f"an empty file name was given for {what}: give a file name, like {example}")
    if str(path) == "-":  # a file of that name would stand where the output was meant
        raise RecordError(f"- stands for the standard output, which only osmosis export writes to: give a file name "
                          f"for {what}, like {example} (./- for a file called -)")
    if str(path).endswith(("/", os.sep)):
        raise RecordError(f"{quoted(path)} names a folder, not a file: give a file name, like "
                          f"{shown_path(str(path).rstrip('/' + os.sep) + os.sep + example)}")


def _claims_record(p: Path) -> bool:
    """Whether the file at ``p`` says it is a game record (its ``format``, or a deal and moves) though it does not
    load: a hand-edited game is still somebody's game, whatever an edit did to it (a format name mistyped, the
    end cut off, the file saved as UTF-16, or made larger than a record is read)."""
    data, text = sniff_json(p)
    if data is None:  # no JSON any more (a comma too many, the end cut off): its format's name, or a deal and moves
        return '"osmosis-record/' in text or ('"deal"' in text and '"moves"' in text)
    return isinstance(data, dict) and (str(data.get("format", "")).startswith("osmosis-record")
                                       or ("deal" in data and "moves" in data))


NOT_A_RECORD = object()
"""What :func:`_record_in` finds in a file that holds something, but no game record."""


def _record_in(p: Path) -> Record | object | None:
    """The game record in the file at ``p``; None for no file, an empty one or one that cannot be read (the
    write itself will say what is wrong); :data:`NOT_A_RECORD` for a file that holds something else."""
    try:
        if not p.is_file() or p.stat().st_size == 0:
            return None
        if p.stat().st_size > 1 << 24:
            return NOT_A_RECORD
        return load_record(p)
    except OSError:
        return None
    except RecordError:
        return NOT_A_RECORD


def move_objects_words(p: Path) -> str | None:
    """Why the game file at ``p`` is not written over in place, if it writes a move as an object with notes in
    it (a review's report, another tool's file): a save writes moves as tokens, the notes as annotations."""
    data, _ = sniff_json(p)
    first = moves_as_objects(data)
    if first is None:
        return None
    what = "a review's report" if isinstance(data, dict) and "accuracy" in data else "a game file"
    return f"{quoted(p)} is {what} that writes its moves as objects with notes in them (move {first} on)"


def keep_move_objects(p: Path, instead: str) -> None:
    """Refuse to write over a game file laid out as :func:`move_objects_words` says: saved again, its layout
    would change (its notes kept, but as a record's annotations), and a review's report would be a record."""
    why = move_objects_words(p)
    if why is not None:
        raise RecordError(f"{why}, and is kept as it is: {instead}")


def keep_unreadable(path: str | Path, instead: str) -> None:
    """Refuse to write over a file that cannot be read: what it holds (a game, a backup) cannot be checked."""
    why = unreadable(path)
    if why is not None:
        raise RecordError(f"{quoted(path)} cannot be read ({why}), so what it holds cannot be checked, and it is "
                          f"kept as it is: {instead}")


def _game_words(old: Record) -> str:
    deal = f"deal {old.deal.number}" if old.deal.number is not None else "a deal given in full"
    return f"{deal}, {_plural(len(old.moves), 'move')}"


def graph_file(p: Path) -> bool:
    """Whether ``p`` holds a graph as ``solve --graph`` writes it (GraphML)."""
    text, _ = sniff(p, 4096)
    return text.lstrip().startswith("<?xml") and "<graphml" in text


def _no_file(p: Path) -> bool:
    """Whether ``p`` names a device, a stream of this program or a folder, which no output is written to."""
    from ..storage import check_writable_target

    try:
        check_writable_target(p)
    except (OSError, ValueError):
        return True
    return False


def _blank(p: Path) -> bool:
    """Whether the file at ``p`` holds nothing but blanks (an empty line): as good as empty."""
    text, whole = sniff(p, 4096)
    return whole and not text.strip()


def per_deal_file(p: Path) -> bool:
    """Whether ``p`` holds per-deal lines as ``stats --per-deal`` writes them (gzipped or not): its first line
    an object with a deal."""
    import gzip
    import zlib

    try:
        with p.open("rb") as f:
            head = f.read(4096)
        if head.startswith(b"\x1f\x8b"):
            head = zlib.decompressobj(31).decompress(head, 4096)
    except (OSError, zlib.error, gzip.BadGzipFile):
        return False
    first = head.decode("utf-8", "replace").split("\n", 1)[0]
    try:
        line = json.loads(first)
    except ValueError:
        return False
    return isinstance(line, dict) and "deal" in line and "policy" in line


def keep_game_file(path: str | Path, what: str, record: Record | None = None, example: str = "out.json",
                   export: bool = False, same_kind: Callable[[Path], bool] | None = None) -> None:
    """Refuse to write ``what`` (an export, per-deal lines, a graph, an annotated record) over a deal file or
    over a saved game, finished or not, unless ``record`` is that same game (rules, deal and moves), or over an
    export of the history (whole games: a backup) unless ``what`` is an export too (``export``: the caller
    checks that it keeps every game of the old one).

    Another file of the same output (``same_kind``: an earlier graph, per-deal lines) may be written over, as
    may an empty file; any other file is kept (a file of notes named by mistake), as is the tutor's own data
    (:func:`keep_tutor_data`).
    """
    from ..history.backup import export_in

    refuse_folder_name(path, what, example)
    keep_unreadable(path, f"write {what} to another file")
    keep_tutor_data(path, what)
    keep_finished_game(path, what, record)
    p = Path(path)
    held = export_in(p)
    if held is not None and export:
        return  # an export over an export: the export command checks that the new one keeps every game of it
    if held is not None:
        holds = (f"{_plural(len(held.games), 'game')}" if not held.unreadable else
                 "a damaged or edited one: what it holds cannot all be read")
        raise RecordError(f"{quoted(p)} is an export of the history ({holds}) and is kept as it is: write {what} to "
                          "another file")
    old = _record_in(p)
    if old is NOT_A_RECORD and _claims_record(p):
        raise RecordError(f"{quoted(p)} holds a game record that cannot be read as it is (a hand edit?) and is "
                          f"kept as it is: write {what} to another file")
    if old is None or (old is NOT_A_RECORD and (export or _blank(p) or _no_file(p)
                                                or (same_kind is not None and same_kind(p)))):
        return  # nothing there (or blanks), a stream (the write says so), an earlier output, or export's to check
    if not isinstance(old, Record):
        raise RecordError(f"{quoted(p)} holds something other than {what} and is kept as it is: write {what} to "
                          "another file (or remove that one first)")
    keep_move_objects(p, f"write {what} to another file")
    if record is not None and (old.rules, old.deal, list(old.moves)) == (record.rules, record.deal,
                                                                          list(record.moves)):
        return
    raise RecordError(f"{quoted(p)} holds a saved game ({_game_words(old)}) and is kept as it is: write {what} "
                      "to another file")


SQLITE_MAGIC = b"SQLite format 3\x00"


def keep_tutor_data(path: str | Path, what: str) -> None:
    """Refuse to write ``what`` over the tutor's own data: an SQLite database (the history, a survey store)
    or its journal files, or the lessons' progress file."""
    from ..storage import progress_path

    p = Path(path)
    kind = None
    try:
        if p.is_file():
            with p.open("rb") as f:
                if f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC:
                    kind = "an SQLite database (the history or a survey store)"
            if kind is None and p.resolve() == progress_path().resolve():
                kind = "the lessons' progress file"
        if kind is None and p.name.endswith(("-wal", "-shm", "-journal")):
            db = p.with_name(p.name.rsplit("-", 1)[0])
            if db.is_file():
                with db.open("rb") as f:
                    if f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC:
                        kind = "a journal file of an SQLite database"
    except OSError:
        return  # unreadable: the write itself will say what is wrong
    if kind is not None:
        raise RecordError(f"{quoted(p)} is {kind} and is kept as it is: write {what} to another file")
