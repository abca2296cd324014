"""Export the history as JSON lines, and import them (or any record file) back.

Each exported line is one game: ``{"format": "osmosis-history/1", "key",
"source", "started_at", "played_at", "record": {...osmosis-record/1...},
"review": {...} | null, "drills": [...]}``. Import reads those lines, or a
plain record file (``osmosis-record/1``, say one written by hand from a
PySolFC deal number), so ``export`` then ``import`` on another machine gives
the same history, and a second import changes nothing. An import never takes
from the history what it holds: a game played on further here, a better
review, a drill's answers and progress stay (:mod:`tutor.history.backup`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..deals import DEAL_FORMAT
from ..errors import RecordError, TutorError
from ..inputs import MAX_FILE_BYTES, loads_json, read_text
from ..record import Record, content_of, loads_record
from ..storage import is_regular_file
from ..textsafe import quoted, shown_path
from .backup import LINE_FORMAT, keep_better_review, merge_drill
from .backup import export_lines as export_lines
from .backup import export_text as export_text
from .copies import claim_file_copy, copy_left_behind_at
from .db import History, HistoryError, parse_iso
from .games import add_file, add_record, key_of
from .jsonvalues import MAX_EXPORT_BYTES as MAX_EXPORT_BYTES
from .jsonvalues import Damaged, json_values
from .lines import Bad, check_drills, check_review, int_field, shown, text_field, time_field
from .names import key_for_path, storable
from .reviews import store_review


@dataclass
class ImportResult:
    games: int = 0
    #: The reviews and drills the lines taken hold (in the history already or not).
    reviews: int = 0
    drills: int = 0
    problems: list[str] = field(default_factory=list)
    #: Taken anyway, said on stderr: a stated result that the record's moves do not reach.
    warnings: list[str] = field(default_factory=list)
    #: The history could not be written (a full disk, a lock): nothing after the last problem went in.
    stopped: bool = False
    #: The ids of the games this import stored or found stored (another process's rows are not counted).
    ids: set[int] = field(default_factory=set)
    #: What this import changed, each found in the transaction that wrote it (another import of the same
    #: file at once finds it there): the games it added, those it brought further on (a row that held their
    #: first moves), the reviews it stored and the drills it added or gave answers.
    new: set[int] = field(default_factory=set)
    grown: set[int] = field(default_factory=set)
    new_reviews: int = 0
    new_drills: int = 0
    #: The files that held nothing at all (an export of a history with no game is an empty file), as named.
    empty: list[str] = field(default_factory=list)
    #: The record files of a game with no move played, as named: the history counts a game from its first move.
    unbegun: list[str] = field(default_factory=list)
    #: The file's reviews the history did not take: it keeps its own, and these are one-off looks beside it
    #: (fewer samples, other thresholds), as the review command says of such a review.
    rougher: int = 0
    #: The file's reviews that took the place of the history's own (made on more samples), as it says.
    replaced: set[int] = field(default_factory=set)

    def took(self, game_id: int, before: dict[int, int], moves: int) -> None:
        """Note the game ``game_id`` stored with ``moves`` moves, the rows that could hold it as ``before``
        (id -> moves) in the same transaction, once that is committed."""
        self.ids.add(game_id)
        if game_id not in before:
            self.new.add(game_id)
        elif before[game_id] < moves:
            self.grown.add(game_id)

    def add(self, line: ImportResult) -> None:
        """What one line changed, once its transaction is committed."""
        self.ids |= line.ids
        self.new |= line.new
        self.grown |= line.grown
        self.replaced |= line.replaced
        for name in ("reviews", "drills", "new_reviews", "new_drills", "rougher"):
            setattr(self, name, getattr(self, name) + getattr(line, name))


def _plain(message: str) -> RecordError:
    """A RecordError that leaves "expected" to the import, which reads records and the export's lines alike."""
    return RecordError(message)


def _rows_for(history: History, key: str | None, content: str) -> dict[int, int]:
    """The rows a game stored under ``key`` or found by its content goes to (id -> moves): read before it is
    stored, in the same transaction, they tell a new row from one brought further on or found there."""
    return {r[0]: r[1] for r in history.query("SELECT id, moves FROM games WHERE content = ? OR game_key = ?",
                                                (content, storable(key) if key is not None else None))}


#: More lines that cannot be read than this, and the rest are counted, not each named.
MAX_PROBLEMS = 3


def import_line(history: History, data: dict[str, Any], where: str,
                warnings: list[str] | None = None, ids: set[int] | None = None,
                result: ImportResult | None = None) -> tuple[int, int]:
    """One exported line into the history; returns (reviews, drills) it changed (``result`` gets the rest).

    Every field is checked before anything is written, so a bad line leaves
    the history as it was (no game without its review). ``warnings`` gets the record's.
    """
    if not isinstance(data.get("record"), dict):
        raise RecordError(f"{where}: an {LINE_FORMAT} line needs a 'record' object")
    record = Record.from_json(data["record"], source=where)
    if warnings is not None:
        warnings += record.warnings
    try:
        if data.get("id") is not None:
            int_field(data.get("id"), "id", 1, 2**62)
        text_field(data.get("key"), "key", optional=True)
        text_field(data.get("source"), "source", optional=True)
        if not isinstance(data.get("from_import", False), bool):
            raise Bad(f"from_import is {shown(data['from_import'])}: expected true or false")
        time_field(data.get("started_at"), "started_at", optional=True)
        time_field(data.get("played_at"), "played_at", optional=True)
        if data.get("review") is not None and not isinstance(data["review"], dict):
            raise Bad(f"review is {shown(data['review'])}: expected an object or null")
        if isinstance(data.get("review"), dict):
            check_review(data["review"], record.rules.reserve_piles)
        check_drills(data.get("drills"), record.rules.reserve_piles)
    except Bad as exc:
        raise RecordError(f"{where}: not as osmosis export writes it: {exc}") from None
    line = ImportResult()
    try:
        with history.write():  # the game, its review and its drills go in together, or nothing of the line does
            _store_line(history, data, record, where, line, result.ids if result is not None else set())
    except sqlite3.IntegrityError as exc:  # the checks above should leave none: still one line, nothing written
        raise RecordError(f"{where}: not as osmosis export writes it: it cannot be stored ({exc})") from None
    if result is not None:
        result.add(line)
    if ids is not None:
        ids |= line.ids
    return line.new_reviews, line.new_drills


def _store_line(history: History, data: dict[str, Any], record: Record, where: str, result: ImportResult,
                taken: set[int]) -> None:
    # The line's key names a file on the machine that exported it: here another game may hold that key
    # (kept, and this one gets a row of its own), or this game may be stored further on (kept as it is).
    # A record file imported here (a --save copy of the game) holds this game: the line takes its row over,
    # unless an earlier line of this file stored that row (two games played alike in one export stay two).
    # A line that is itself such a copy is found as that file is (_held_copy), or takes over only a copy's
    # row it goes on from (a --save copy of its first moves imported here, then the file of the game played on).
    copy = data.get("from_import") is True
    key, span = data.get("key") or None, (data.get("started_at"), taken, data.get("played_at"))
    if not copy:
        claim_file_copy(history, record, key, *span)
    found = key_of(history, record, key, by_content=False)
    held = _held_copy(history, data, record, taken) if copy and not isinstance(found, int) else None
    if held is None and copy and not isinstance(found, int) and claim_file_copy(history, record, key, *span, copy=True):
        found = key_of(history, record, key, by_content=False)
    if held is not None:  # the game is here already: its row, dates and file stay, and the line adds no game
        result.ids.add(held)
        row = history.game(held)
        if row is not None and row.moves == len(record.moves):
            _merge_review(history, held, data, where, result)  # the same game: the better review is kept
        _merge_drills(history, held, data, where, result)
        return
    if isinstance(found, int):
        row = history.game(found)
        if row is not None and row.moves > len(record.moves):
            result.ids.add(row.id)  # the game and its review stay as the history has them, further on; the
            _merge_drills(history, row.id, data, where, result)  # drills' answers from elsewhere still count
            return
        found = row.key if row is not None else None
    before = _rows_for(history, found, content_of(record))
    stored = found is not None and history.game_by_key(found) is not None  # keeps where its file lies here
    game_id = add_record(history, record, key=found, source=None if stored else data.get("source"),
                         from_import=data.get("from_import") is True,
                         started_at=data.get("started_at"), played_at=data.get("played_at"), game_id=data.get("id"))
    result.took(game_id, before, len(record.moves))
    _merge_review(history, game_id, data, where, result)
    _merge_drills(history, game_id, data, where, result)


def _held_copy(history: History, data: dict[str, Any], record: Record, taken: set[int]) -> int | None:
    """The row that holds already the game of a line marked ``from_import`` (a record file imported where the
    export was written: a --save copy, say), the same game or further on; None if no row does.

    Such a line is a file copy, so it is found as ``osmosis import`` finds that file here: by its content,
    or as a copy the game left behind (written, at the line's ``played_at``, while a stored game was played
    on from it). Without this the copy became a second game when its line came after the export of the
    game played, and not when it came before. A row of ``taken`` (stored or found by an earlier line of this
    file) is not one: the history that wrote the file kept those as two games, as two played alike are."""
    for (game_id,) in history.query("SELECT id FROM games WHERE content = ? ORDER BY id", (content_of(record),)):
        if int(game_id) not in taken:
            return int(game_id)
    played = data.get("played_at")
    try:
        key = data.get("key")
        ahead = (copy_left_behind_at(history, record, parse_iso(played), key if isinstance(key, str) else None)
                 if isinstance(played, str) else None)
    except ValueError:
        return None
    return ahead if ahead is not None and ahead not in taken else None


def _merge_review(history: History, game_id: int, data: dict[str, Any], where: str, result: ImportResult) -> None:
    if isinstance(data.get("review"), dict):
        try:  # the history's own review stays unless this one is the better one
            kept = keep_better_review(history, game_id, data["review"], store_review)
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"{where}: the review is incomplete ({exc})") from None
        result.reviews += 1
        result.new_reviews += kept in ("stored", "replaced")
        if kept == "replaced":
            result.replaced.add(game_id)
        result.rougher += kept == "rougher"


def _merge_drills(history: History, game_id: int, data: dict[str, Any], where: str, result: ImportResult) -> None:
    for d in data.get("drills") or []:
        try:  # a drill the history holds keeps its answers and progress, and takes the ones it lacks
            result.new_drills += merge_drill(history, game_id, d)
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"{where}: a drill is incomplete ({exc})") from None
        result.drills += 1


def _newer(data: dict[str, Any]) -> str | None:
    """What to say of a line or file in another version of the export's format, else None."""
    fmt = data.get("format")
    if not isinstance(fmt, str) or not fmt.startswith("osmosis-history/") or fmt == LINE_FORMAT:
        return None
    return (f"format {quoted(fmt)} is not supported: expected {LINE_FORMAT!r}, the one this osmosis-tutor reads "
            "(another version of osmosis-tutor wrote it: export it again with this one, or upgrade this one)")


_EXPECTED = ("an osmosis-record/1 file or what osmosis export writes, one JSON object a line (or each laid out "
             "over several lines)")
_A_LINE = f"expected one {LINE_FORMAT} object a line or an osmosis-record/1 file"
_NO_OBJECT = "holds JSON that is not an object: expected an osmosis-record/1 file or the lines osmosis export writes"


def _damaged(name: str, bad: Damaged) -> str:
    """What to say of a value that cannot be read: its line, or the lines left out with it and whether the
    reading went on after them."""
    what = "is not valid JSON" if bad.syntax else "is not usable"
    why = f" ({bad.reason})" if bad.syntax else f": {bad.reason}"
    if bad.last == bad.line:
        return f"{name} line {bad.line} {what}{why}: {_A_LINE}"
    if bad.to_end:
        return f"{name} {what} from line {bad.line} on{why}: expected {_EXPECTED}; nothing from there on was imported"
    return (f"{name} {what} from line {bad.line} to line {bad.last}{why}: expected {_EXPECTED}; the lines after "
            "it were read")


def import_file(history: History, path: str | Path) -> ImportResult:
    """A record file, or a file of exported JSON lines, into the history.

    A line or file that cannot be read is reported in ``problems`` and the
    rest still goes in.
    """
    p = Path(path)
    result = ImportResult()
    name = quoted(path)
    try:
        text = read_text(p, "record or export", RecordError, MAX_EXPORT_BYTES)
    except TutorError as exc:
        result.problems.append(str(exc))
        return result
    if not text.strip():  # what osmosis export writes for a history with no game: nothing to take, no error
        result.empty.append(name)
        return result
    values, damaged = json_values(text)
    objects = any(value.startswith("{") for _, value in values)
    whole: object = None
    if not objects or (len(values) == 1 and not damaged):  # a file of one value is read whole, as a record is
        try:
            whole = loads_json(text, name, _plain)
        except RecordError as exc:  # too deep, a huge number, NaN: the file's one value is refused, and a file
            # with no object in it is no export, however many values it holds: one problem either way
            said = (str(exc) if "is not valid JSON" not in str(exc)
                    else f"{name} is not valid JSON: expected {_EXPECTED}")
            result.problems.append(said if damaged or len(values) < 2 else f"{name} {_NO_OBJECT}")
            return result
    if isinstance(whole, dict) and whole.get("format") == DEAL_FORMAT:
        result.problems.append(f"{name} is a deal file (osmosis-deal/1), a deal to play, not a game: import takes "
                               "game records and what osmosis export writes (osmosis play --deal-file "
                               f"{shown_path(p)} plays the deal)")
        return result
    if isinstance(whole, dict) and (newer := _newer(whole)) is not None:
        result.problems.append(f"{name}: {newer}")
        return result
    if isinstance(whole, dict) and whole.get("format", "osmosis-record/1") != LINE_FORMAT:
        if len(text.encode()) > MAX_FILE_BYTES:  # as every other command that reads a record says it
            result.problems.append(f"record {name} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB: "
                                   "this is not a record")
            return result
        try:
            keyed = is_regular_file(p)
            record = loads_record(text, f"record {quoted(p)}")  # what is wrong with it, as add_file says it
            if not record.moves:  # the history counts a game from its first move: a row here would be a game
                result.unbegun.append(name)  # imported that osmosis history never shows
                result.warnings += record.warnings
                return result
            with history.write():  # what is new is found in the transaction that stores it
                before = _rows_for(history, key_for_path(p) if keyed else None, content_of(record))
                top = history.query("SELECT coalesce(max(id), 0) FROM games")[0][0]
                # the text read above: a pipe (osmosis import /dev/stdin) gives it only once, and has no name to key by
                game_id = add_file(history, p, keyed=keyed, text=text, warnings=result.warnings, from_import=True)
                row = history.game(game_id)  # what the row holds now: one that follows a copy was left as it was
                held = row.moves if row is not None else len(record.moves)
                if game_id <= top and game_id not in before:  # a row found holding the game further on: nothing new
                    before[game_id] = held
            result.took(game_id, before, held)
            result.games += 1
        except TutorError as exc:
            result.problems.append(str(exc))
            result.stopped = isinstance(exc, HistoryError)
        return result
    if whole is not None and not isinstance(whole, dict):
        result.problems.append(f"{name} {_NO_OBJECT}")
        return result
    # One exported line (on one line of text or laid out over several), or several, one after the other
    entries: list[tuple[int, str | dict[str, Any]]] = [(1, whole)] if isinstance(whole, dict) else [*values]
    unread = [(bad.line, _damaged(name, bad)) for bad in damaged]  # said in the order of the file
    refused: list[str] = []  # lines read but not taken: the first few said, then how many more
    stop = None
    for number, entry in entries:
        where = f"{name} line {number}"
        data: object
        if isinstance(entry, str):
            try:
                data = loads_json(entry, where, _plain)
            except RecordError as exc:
                unread.append((number, f"{exc}: {_A_LINE}"))
                continue
        else:
            data = entry
        if not isinstance(data, dict):
            refused.append(f"{where}: expected a JSON object")
            continue
        newer = _newer(data)
        if newer is not None:  # every line alike: said once
            result.problems.append(f"{where}: {newer}; this line and the lines after it were not imported")
            stop = number
            break
        try:
            if data.get("format") == LINE_FORMAT:
                import_line(history, data, where, result.warnings, result=result)
            else:
                one = Record.from_json(data, source=where)
                result.warnings += one.warnings
                with history.write():
                    before = _rows_for(history, None, content_of(one))
                    game_id = add_record(history, one, source=str(path))
                result.took(game_id, before, len(one.moves))
            result.games += 1
        except HistoryError as exc:  # the same for every line to come: one problem, and the rest left out
            result.problems.append(f"{exc} ({where} and the lines after it were not imported)")
            result.stopped = True
            stop = number
            break
        except TutorError as exc:
            refused.append(str(exc))
    result.problems[:0] = refused[:MAX_PROBLEMS]  # before a stop's own line, in the order of the file
    if len(refused) > MAX_PROBLEMS:
        result.problems.insert(MAX_PROBLEMS, f"{name}: {len(refused) - MAX_PROBLEMS} more lines were refused too")
    told = [line for number, line in sorted(unread) if stop is None or number < stop]
    result.problems += told[:MAX_PROBLEMS]
    if len(told) > MAX_PROBLEMS:
        result.problems.append(f"{name}: {len(told) - MAX_PROBLEMS} more lines could not be read either")
    return result
