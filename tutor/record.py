"""Game records (``osmosis-record/1``): load, save atomically, replay.

A record names the rules (``variant``: a preset name or an object of
options), the deal (``{"number": N}`` or the deal inline) and the moves as
plain tokens. Per-move annotations (a review's label, tags and comment) live
in a parallel ``annotations`` list, so ``moves`` stays a list of tokens.
``result`` is what the moves reach; loading a record replays it, so an
illegal move is refused with an error that says which and why. A stored
result the moves do not reach (a hand edit, other rules) is not trusted:
the record keeps the result the moves reach and says so in ``warnings``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .deals import DEAL_FORMAT, Deal, deal_for
from .errors import DealError, IllegalMoveError, MoveError, RecordError, RulesError, TutorError
from .inputs import loads_json, read_text, sniff_json
from .notation import Move, expected
from .record_notes import (
    HISTORY_DEPTH,
    Annotation,
    check_annotation,
    deal_notes,
    merged_notes,
    move_object_notes,
    too_deep,
    usable_notes,
)
from .rules import Rules
from .state import State
from .storage import atomic_write_text, create_new_file
from .textsafe import brief, os_reason, quoted

RECORD_FORMAT = "osmosis-record/1"

JSONObject = dict[str, Any]
"""A record's JSON object (:meth:`Record.to_json`), or its ``result`` (``{"cards", "won"}``)."""


def _illegal_reason(state: State, move: Move) -> str:
    """Why ``move`` is illegal in ``state``, without the 'r2 is not possible:' prefix."""
    try:
        state.apply(move)
    except IllegalMoveError as exc:
        text = str(exc)
        prefix = f"{move} is not possible: "
        return text[len(prefix):] if text.startswith(prefix) else text
    return "it is legal"  # pragma: no cover - only called for illegal moves


def result_of(state: State) -> JSONObject:
    """The ``result`` object of a record ending in ``state``."""
    return {"cards": state.cards, "won": state.won}


RECORD_FIELDS = ("format", "variant", "deal", "moves", "annotations", "result")
"""The top-level fields of a record the tutor reads and writes (spec section 3)."""


@dataclass
class Record:
    """A game: the rules, the deal, the moves played and optional annotations.

    ``annotations`` holds one dict or None per move (shorter lists are padded
    with None). ``result`` is the result the record claims; :meth:`to_json`
    writes the result the moves actually reach.
    """

    rules: Rules
    deal: Deal
    moves: list[Move] = field(default_factory=list)
    annotations: list[Annotation | None] = field(default_factory=list)
    result: JSONObject | None = None
    warnings: list[str] = field(default_factory=list, compare=False, repr=False)
    #: Top-level fields the record carries that the tutor does not read (notes added by hand, another tool's
    #: data): written back as they were, after the tutor's own, so saving a resumed game loses none of them.
    extra: JSONObject = field(default_factory=dict, compare=False, repr=False)
    #: The deal's own fields beside its number or cards (a source, a note): written back as they were.
    deal_extra: JSONObject = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.moves = [m if isinstance(m, Move) else Move.parse(m) for m in self.moves]
        annotations = list(self.annotations)
        if len(annotations) > len(self.moves):
            raise RecordError(f"the record has {len(annotations)} annotations for {len(self.moves)} moves: "
                              "expected at most one per move")
        self.annotations = annotations + [None] * (len(self.moves) - len(annotations))

    # ---- replay ---------------------------------------------------------
    def initial(self) -> State:
        """The position before the first move."""
        try:
            return State.initial(self.deal, self.rules)
        except DealError as exc:
            raise RecordError(f"record: bad deal: {exc}") from None

    def states(self) -> list[State]:
        """The position before each move, then the final one (``len(moves) + 1`` states)."""
        return _replay(self.initial(), self.moves, "record")

    def replay(self) -> State:
        """The position after the last move."""
        return self.states()[-1]

    def final_result(self) -> JSONObject:
        """``{"cards", "won"}`` as the moves reach it."""
        return result_of(self.replay())

    # ---- JSON -----------------------------------------------------------
    def to_json(self) -> JSONObject:
        data: JSONObject = {
            "format": RECORD_FORMAT,
            "variant": self.rules.to_json(),
            "deal": self._deal_json(),
            "moves": [str(m) for m in self.moves],
        }
        if any(a is not None for a in self.annotations):
            data["annotations"] = list(self.annotations)
        data["result"] = self.final_result()
        for key, value in self.extra.items():
            data.setdefault(key, value)  # the tutor's own fields are written as the game is, never as carried
        return data

    def _deal_json(self) -> JSONObject:
        """The deal as the record names it, then its own fields (:attr:`deal_extra`) as the file gave them."""
        ref: JSONObject = dict(self.deal.record_ref())
        return {**ref, **{k: v for k, v in self.deal_extra.items() if k not in ref}}

    def dumps(self) -> str:
        """The record as JSON text: one top-level field per line, moves on one line."""
        lines = []
        items = list(self.to_json().items())
        for i, (key, value) in enumerate(items):
            sep = "," if i < len(items) - 1 else ""
            if key == "annotations":
                inner = ",\n".join("    " + json.dumps(a, ensure_ascii=False) for a in value)
                lines.append(f'  "{key}": [\n{inner}\n  ]{sep}')
            else:
                lines.append(f'  "{key}": {json.dumps(value, ensure_ascii=False)}{sep}')
        return "{\n" + "\n".join(lines) + "\n}\n"

    @classmethod
    def from_json(cls, data: object, source: str = "record") -> Record:
        """Build and check a record from its JSON object; :class:`RecordError` says what is wrong."""
        if not isinstance(data, dict):
            raise RecordError(f"{source}: expected a JSON object with format, variant, deal and moves, "
                              f"not {_json_kind(data)}")
        fmt = data.get("format", RECORD_FORMAT)
        if fmt != RECORD_FORMAT:
            hint = (" (that is a deal file, a deal to play rather than a game: osmosis play, solve and hint take it "
                    "with --deal-file)" if fmt == DEAL_FORMAT else "")
            raise RecordError(f"{source}: format {brief(fmt)} is not supported: expected {RECORD_FORMAT!r}{hint}")
        rules = _rules_of(data.get("variant", "osmosis"), source)
        if "deal" not in data:
            raise RecordError(f"{source}: missing field 'deal': expected {{\"number\": N}} or an inline deal")
        deal = _deal_of(data["deal"], rules, source)
        moves = _moves_of(data.get("moves", []), source, rules.reserve_piles)
        raw_notes = [] if data.get("annotations") is None else data["annotations"]
        if not isinstance(raw_notes, list):
            raise RecordError(f"{source}: 'annotations' must be a list with one entry (an object or null) per move")
        if len(raw_notes) > len(moves):
            raise RecordError(f"{source}: {len(raw_notes)} annotations for {len(moves)} moves: "
                              "expected at most one per move")
        notes = [check_annotation(a, f"{source}: annotation {i}") for i, a in enumerate(raw_notes, 1)]
        # a move written as an object: its other fields are that move's notes (kept, where they were dropped)
        objects = move_object_notes(data.get("moves"))
        notes, unkept = usable_notes(merged_notes(notes, objects), source)
        result = data.get("result")
        if result is not None and not isinstance(result, dict):
            raise RecordError(f"{source}: 'result' must be an object like {{\"cards\": 31, \"won\": false}}")
        initial = State.initial(deal, rules)
        final = _replay(initial, moves, source)[-1]
        warning = _check_result(result, final, source) if result is not None else None
        extra = {k: v for k, v in data.items() if k not in RECORD_FIELDS}
        record = cls(rules, deal, moves, notes, result_of(final), extra=extra, deal_extra=deal_notes(data["deal"]))
        record.warnings += [w for w in (warning, unkept) if w]
        deep = too_deep(record.to_json())
        if deep:  # the file keeps it; an export of the history holding it could not be imported again
            names = " and ".join(filter(None, (", ".join(brief(k) for k in deep[:-1]), brief(deep[-1]))))
            record.warnings.append(f"{source}: the record nests {HISTORY_DEPTH + 1} levels deep in field"
                                   f"{'s' if len(deep) > 1 else ''} {names}: the game file keeps all of it, and your "
                                   f"history's copy leaves out what lies deeper than {HISTORY_DEPTH} levels (an export "
                                   "of it could not be read back)")
        return record


def _rules_of(value: object, source: str) -> Rules:
    try:
        return plain_rules(Rules.from_json(value))
    except RulesError as exc:
        raise RecordError(f"{source}: bad variant: {exc}") from None


def content_of(record: Record) -> str:
    """A fingerprint of the game itself (rules, deal, moves), the same wherever the file lies (the history's
    and the review cache's key of a game)."""
    data = {"variant": record.rules.to_json(), "deal": record.deal.record_ref(), "moves": [str(m) for m in record.moves]}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()


def plain_rules(rules: Rules) -> Rules:
    """The rules as one name for one game: with no reserve, "open reserve" changes nothing, so it is dropped
    (``--variant peek --reserve-piles 0`` is Bridesmaids, and its games are filed as Bridesmaids)."""
    if rules.reserve_piles == 0 and rules.open_reserve:
        return rules.with_options(open_reserve=False)
    return rules


#: What a record's ``deal`` may be (spec section 3), for an error about one that is neither.
_DEAL_FORMS = 'expected {"number": N} for a PySolFC deal number, or an inline deal with reserves, base and talon'


def _deal_of(value: object, rules: Rules, source: str) -> Deal:
    cards = isinstance(value, dict) and bool({"reserves", "base", "talon"} & set(value))
    try:
        if not isinstance(value, dict) or not (cards or "number" in value):
            if isinstance(value, int) and not isinstance(value, bool):
                raise DealError(f"deal {value} is a bare number: write it as {{\"number\": {value}}}")
            raise DealError(f"deal {brief(value)}: {_DEAL_FORMS}")
        numbered = "number" in value and (value["number"] is not None or not cards)  # a null beside cards: none
        if numbered:
            # {"number": N}; other fields (a note, a source) are kept out of the way, as at the top level
            number = value["number"]
            if isinstance(number, bool) or not isinstance(number, int):
                raise DealError(f"deal number {brief(number)} is not a whole number")
            deal = deal_for(number, rules)
        if cards:
            given = Deal.from_json(value, source="deal")
            if numbered and (given.reserves, given.base, given.talon) != (deal.reserves, deal.base, deal.talon):
                raise DealError(f"it gives both \"number\": {value['number']} and the cards of another deal: keep "
                                "one of the two, the number or the cards")
            deal = given  # a deal given in full, as it always was read (its number agreeing): the same game as before
        if deal.reserve_piles != rules.reserve_piles:  # the record names its variant: no option changes it
            like = {4: '"osmosis"', 0: '"bridesmaids"'}.get(deal.reserve_piles, f'{{"reserve_piles": {deal.reserve_piles}}}')
            raise DealError(f"the deal has {deal.reserve_piles} reserve piles but the record's variant wants "
                            f"{rules.reserve_piles}: give the record a \"variant\" with {deal.reserve_piles}, like {like}")
    except DealError as exc:
        raise RecordError(f"{source}: bad deal: {exc}") from None
    return deal


def _moves_of(value: object, source: str, piles: int = 4) -> list[Move]:
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list):
        raise RecordError(f"{source}: 'moves' must be a list of move tokens like [\"d\", \"w\", \"r2\"]")
    moves = []
    for i, token in enumerate(value, 1):
        if isinstance(token, dict) and "move" in token:
            token = token["move"]  # an annotated move object: {"move": "d", ...}
        try:
            moves.append(Move.parse(token))
        except MoveError:
            # what would be right: the moves of this record's game (no r1 in Bridesmaids)
            raise RecordError(f"{source}: move {i} {brief(token)} is not a move: {expected(piles)}") from None
    return moves


def _replay(state: State, moves: list[Move], source: str) -> list[State]:
    states = [state]
    for i, move in enumerate(moves, 1):
        try:
            state = state.apply(move)
        except IllegalMoveError:
            raise RecordError(f"{source}: move {i} '{move}' is illegal: {_illegal_reason(state, move)}") from None
        states.append(state)
    return states


def _check_result(result: JSONObject, final: State, source: str) -> str | None:
    """Type errors are errors; a result the moves do not reach gives a warning."""
    cards, won = result.get("cards"), result.get("won")
    if cards is not None and (isinstance(cards, bool) or not isinstance(cards, int)):
        raise RecordError(f"{source}: result cards {brief(cards)} is not a whole number")
    if won is not None and not isinstance(won, bool):
        raise RecordError(f"{source}: result won {brief(won)} is not true or false")
    if cards is not None and cards != final.cards:
        return (f"{source}: the result says {cards} cards but the moves reach {final.cards} "
                "(check the deal and variant); using what the moves reach")
    if won is not None and won != final.won:
        return (f"{source}: the result says won={str(won).lower()} but the moves "
                f"{'win' if final.won else 'do not win'}; using what the moves reach")
    return None


def loads_record(text: str, source: str = "record") -> Record:
    return Record.from_json(loads_json(text, source, RecordError), source=source)


def load_record(path: str | os.PathLike[str]) -> Record:
    """Read (once) and replay a record file; :class:`RecordError` says what is wrong; ``warnings`` what is odd."""
    return loads_record(read_text(path, "record", RecordError), f"record {quoted(path)}")


def finished_game_in(path: str | os.PathLike[str]) -> Record | None:
    """The finished game (won or blocked) the file at ``path`` holds, or None (no file, not a record, unfinished)."""
    try:  # a record may leave its format out (it defaults to osmosis-record/1): it is still a game to keep
        if not Path(path).is_file() or Path(path).stat().st_size > 1 << 24:
            return None
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeError):
        return None
    try:
        record = loads_record(text)
        return record if is_finished(record) else None
    except TutorError:  # not a readable record: nothing of a game to keep
        return None


def _json_kind(value: object) -> str:
    """What a JSON value is, in the words of JSON (``null``, a list, text, a number...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a list" if isinstance(value, list) else type(value).__name__


def _deal_words(deal: Deal) -> str:
    return f"deal {deal.number}" if deal.number is not None else "a deal from a file"


DEAL_FIELDS = ("reserves", "base", "talon")
"""The fields of a deal file (:meth:`tutor.deals.Deal.from_json`), which it needs even without its format."""


def _holds_deal_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a deal file (a deal to play, not a game): nothing is written over one."""
    data, text = sniff_json(path)
    if data is None:  # cut short, hand-edited, or padded past what is read: its format's name, or its fields, say it
        return '"moves"' not in text and (f'"{DEAL_FORMAT.split("/")[0]}/' in text or (
            all(f'"{key}"' in text for key in DEAL_FIELDS) and f'"{RECORD_FORMAT.split("/")[0]}/' not in text))
    if not isinstance(data, dict):
        return False
    # a deal file may leave out its format (it is read as one all the same): then its fields say it
    return data.get("format") == DEAL_FORMAT or ("format" not in data and "moves" not in data
                                                 and all(key in data for key in DEAL_FIELDS))


def keep_finished_game(path: str | os.PathLike[str], what: str, record: Record | None = None) -> None:
    """Refuse to write ``what`` over a deal file, or over a finished game unless it is the same game.

    A finished game is never replaced by an unfinished one, by another game
    (finished or not) or by a file that is not a game at all: only the same
    game (same rules, deal and moves, say with a review's annotations) may be
    written over it. The error says which game the file keeps.
    """
    if _holds_deal_file(path):
        raise RecordError(f"{quoted(path)} holds a deal file (osmosis-deal/1) and is kept as it is: write {what} to "
                          "another file")
    old = finished_game_in(path)
    if old is None:
        return
    if (record is not None and is_finished(record)  # the same game, say with a review's annotations
            and (old.rules, old.deal, list(old.moves)) == (record.rules, record.deal, list(record.moves))):
        return
    end = old.replay()
    how = "won" if end.won else f"blocked with {end.cards} card{'s' if end.cards != 1 else ''}"
    raise RecordError(f"{quoted(path)} holds a finished game ({_deal_words(old.deal)}, {how}) and is kept as it is: "
                      f"write {what} to another file")


def save_record(record: Record, path: str | os.PathLike[str]) -> None:
    """Write a record atomically: a failed write never truncates an existing file, and a file that holds a
    finished game is never replaced by another or an unfinished one (:func:`keep_finished_game`)."""
    keep_finished_game(path, "this game" if is_finished(record) else "this unfinished game", record)
    text = _keeping_fields(record, path).dumps()
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        from .storage import CWD_GONE, cwd_gone

        if cwd_gone() and not os.path.isabs(path):
            raise RecordError(f"record {quoted(path)} cannot be written: {CWD_GONE}") from None
        folder = Path(path).parent if "\0" in os.fspath(path) else Path(os.path.realpath(path)).parent  # a link's
        try:  # target's folder, not its own; the common case, said in words that say what would be right
            gone = not folder.is_dir()
        except OSError:  # the folder's name itself cannot be looked up (too long, a loop): the OS says why
            gone = False
        raise RecordError(f"record {quoted(path)} cannot be written: " + (
            no_folder(folder) if gone else os_reason(exc))) from None


def _keeping_fields(record: Record, path: str | os.PathLike[str]) -> Record:
    """The record with the fields of its own (top-level, and the deal's) that the file it replaces holds, where
    that file is a record of this game (same rules and deal, its moves the first of these): a game annotated
    into, or saved over, another file of it keeps that file's notes, the record's own first; else nothing."""
    data, _ = sniff_json(path)
    if not isinstance(data, dict) or data.get("format", RECORD_FORMAT) != RECORD_FORMAT:
        return record
    try:
        old = Record.from_json(data, source=quoted(path))
    except TutorError:
        return record
    cards = (old.deal.reserves, old.deal.base, old.deal.talon)  # the same layout, by number or inline
    if (old.rules, cards) != (record.rules, (record.deal.reserves, record.deal.base, record.deal.talon)) or \
            record.moves[:len(old.moves)] != old.moves:
        return record
    kept = {k: v for k, v in old.extra.items() if k not in record.extra}
    deal_kept = {k: v for k, v in old.deal_extra.items() if k not in record.deal_extra}
    if not kept and not deal_kept:
        return record
    return replace(record, extra={**record.extra, **kept}, deal_extra={**record.deal_extra, **deal_kept})


def no_folder(folder: Path) -> str:
    """Why a file cannot be made in ``folder``: it is not there, or a file stands where it (or a folder above
    it) should be (``/etc/passwd/x.json``)."""
    from .storage import file_in_the_way

    blocked = file_in_the_way(folder)
    if blocked is not None:
        return f"{quoted(blocked)} is a file, not a folder: give a path in a folder"
    return f"there is no folder {quoted(folder)}"


def save_new_record(record: Record, directory: str | os.PathLike[str], stem: str) -> Path:
    """Write a record to a new file in ``directory`` that no other game has (see storage.create_new_file)."""
    try:
        return create_new_file(Path(directory), stem, ".json", record.dumps())
    except OSError as exc:
        raise RecordError(f"a new record in {quoted(directory)} cannot be written: {os_reason(exc)}") from None


def is_finished(record: Record) -> bool:
    """Whether the record's game is over (won or blocked): such a file is never overwritten by a shorter game."""
    return record.replay().over


def __getattr__(name: str) -> Any:
    """``Game`` lived here: it is :class:`tutor.game.Game` now (imported on first use: it imports this module)."""
    if name == "Game":
        from .game import Game

        return Game
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
