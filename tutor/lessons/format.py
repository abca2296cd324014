"""The lesson file format: its fields, parsing and validation, and the Step and Lesson values.

A lesson is data: a TOML file (``format = "osmosis-lesson/1"``) under the
repository's ``lessons/`` folder, shipped in the wheel as ``tutor/lessons/data``.
Each step sets up a real position (a deal number or an inline deal, a
variant, the moves that reach it), says something about it, may ask the
player for a move, and may make claims about the position. The engine
confirms every claim (:func:`check_lesson`) and judges every answer
(:func:`judge_answer`): an answer is right when the engine rates it within
a small margin of the best move, so a lesson never hard-codes the one
answer it will accept.

Three judges:

``rules``
    a question about the rules ("play a card that row 2 accepts"): any card
    that can be played now is right; when none can, only the turn is.
``solver``
    full knowledge: each legal move is solved with :func:`tutor.search.solve`.
    Honest only when the player has seen every card (Peek after a whole
    pass, say) or the step shows every card face up (``reveal = true``).
``hint``
    what the player has seen and nothing more: the moves are scored by
    :func:`tutor.hints.hint` on an observation of the position.

The file, in short (``lessons/*.toml`` are worked examples)::

    format = "osmosis-lesson/1"
    name = "waiting"                # the file's stem
    title = "..."   level = 5   introduction = "..."   summary = "..." (optional)
    deal = 214   variant = "peek"   # defaults for the steps (optional)

    [[steps]]
    deal = 4                        # a deal number, or an inline table like a deal file
    variant = "peek"                # a preset, or { preset = "bridesmaids", passes = 1 }
    moves = "r2 d w"                # setup moves from the deal; continue = true adds
                                    # them to the previous step's position instead
    reveal = false                  # show the face-down cards and the stock
    text = "..."
    question = "..."                # the step asks; then expect and teaches are needed
    expect = "6H"                   # the move (or card) it teaches; must be rated right
    teaches = "..."                 # shown with the verdict
    wrong = ["d"]                   # answers the engine must rate wrong
    judge = "solver"                # rules | solver | hint (default: solver when the
                                    # player has seen every card, else hint)
    hint = "..."   tip = "..."   explain = "..."   samples = 128
                                    # hint: shown on h, and with the second try that a
                                    # first wrong answer gets; tip: with a wrong verdict
    win_margin = 0.05   cards_margin = 1.0
    [steps.claims]                  # each one confirmed by the engine
    legal = ["w", "d"]   playable = ["6H"]   rows = ["D", "C"]   start_rank = "6"
    score = 15   pass = 3   blocked = false   can_redeal = true   progress = false
    winnable = true   best_cards = 17   lost_from_start = true   cycle = ["8H", "8S"]
    full_information = true
    went_by = ["4S", "2C"]          # the cards that were playable along the moves and not played

This module draws nothing; the ``lesson`` command renders its values. Finding the
files is :mod:`.files`, the judges :mod:`.judge`, the claim checker :mod:`.claims`.
"""


from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, cast, overload

from ..cards import RANKS, SUITS, parse_card
from ..deals import Deal, check_rules, deal_for
from ..errors import CardError, DealError, IllegalMoveError, LessonError, MoveError, RulesError
from ..hints import DEFAULT_SAMPLES as HINT_SAMPLES
from ..inputs import loads_toml
from ..knowledge import has_seen_everything as full_information
from ..notation import Move, parse_input, parse_moves
from ..rules import Rules
from ..state import State
from ..textsafe import brief, clean, quoted

LESSON_FORMAT = "osmosis-lesson/1"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")

JUDGES = ("rules", "solver", "hint")
#: An answer is right when it loses at most this much win chance and this
#: many expected cards against the engine's best move.
WIN_MARGIN = 0.05
CARDS_MARGIN = 1.0
#: Most samples for hint-judged steps: the hint's own, so that a step's
#: figures are the ones ``h`` gives in play and ``osmosis hint`` gives for the
#: same position (samples stop early once the answer is settled, or the hint's
#: work budget, ``tutor.hints.HINT_NODES``, is spent).
DEFAULT_SAMPLES = HINT_SAMPLES
#: The solver's node limit per candidate move in a lesson (positions in
#: lessons are chosen to be decided well within it).
SOLVER_NODES = 500_000
MAX_SAMPLES = 1000
MAX_LEVEL = 999

MAX_STEPS = 200
"""The most steps a lesson may have (the longest shipped lesson has 8)."""

_LESSON_KEYS = {"format", "name", "title", "level", "introduction", "summary", "deal", "variant", "steps"}
_STEP_KEYS = {"text", "deal", "variant", "moves", "continue", "reveal", "question", "expect", "teaches",
              "wrong", "judge", "explain", "tip", "hint", "samples", "win_margin", "cards_margin", "claims"}
_CLAIM_KEYS = {"legal", "playable", "rows", "start_rank", "score", "pass", "blocked", "can_redeal", "progress",
               "winnable", "best_cards", "lost_from_start", "cycle", "full_information", "went_by"}


# ---- the format -------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One step of a lesson: a position, words about it, maybe a question and claims."""

    lesson: str
    source: str
    number: int
    text: str
    deal: Deal
    rules: Rules
    moves: tuple[Move, ...]
    reveal: bool = False
    question: str | None = None
    expect: str | None = None
    teaches: str = ""
    wrong: tuple[str, ...] = ()
    judge: str = "rules"
    explain: str = ""
    tip: str = ""
    hint: str = ""
    samples: int = DEFAULT_SAMPLES
    win_margin: float = WIN_MARGIN
    cards_margin: float = CARDS_MARGIN
    claims: dict[str, Any] = field(default_factory=dict)

    @property
    def asks(self) -> bool:
        return self.question is not None

    @cached_property
    def state(self) -> State:
        """The position of this step (the setup moves are checked when the lesson is loaded)."""
        return State.initial(self.deal, self.rules).play(self.moves)

    def where(self) -> str:
        return f"lesson file {quoted(self.source)}, step {self.number}"

    def error(self, problem: str) -> LessonError:
        return LessonError(f"{self.where()}: {problem}")

    def resolve(self, token: str) -> Move:
        """A move token or a card name from the lesson file, as a legal move here."""
        parsed = parse_input(token)
        if isinstance(parsed, Move):
            if not self.state.is_legal(parsed):
                raise self.error(f"{brief(token)} is not a legal move in this position "
                                 f"(legal: {' '.join(map(str, self.state.legal_moves()))})")
            return parsed
        try:
            return self.state.move_for_card(parsed)
        except IllegalMoveError as exc:
            raise self.error(str(exc)) from None


@dataclass(frozen=True)
class Lesson:
    name: str
    title: str
    level: int
    introduction: str
    steps: tuple[Step, ...]
    source: str
    summary: str = ""

    @property
    def questions(self) -> int:
        return sum(1 for s in self.steps if s.asks)


T = TypeVar("T")
U = TypeVar("U")


def _require(table: Mapping[str, Any], key: str, kind: type[T], where: str, what: str) -> T:
    """``table[key]``, which must be of ``kind`` (a bool is no number); :class:`LessonError` says what is expected."""
    if key not in table:
        raise LessonError(f"{where}: missing field {key!r} ({what})")
    return cast(T, _checked(table[key], key, kind, where, what))


def _checked(value: Any, key: str, kind: type[Any] | tuple[type[Any], ...], where: str, what: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise LessonError(f"{where}: field {brief(key)} is {brief(value)}: expected {what}")
    return value


@overload
def _optional(table: Mapping[str, Any], key: str, kind: type[T], where: str, what: str) -> T | None: ...
@overload
def _optional(table: Mapping[str, Any], key: str, kind: type[T], where: str, what: str, default: T) -> T: ...
@overload
def _optional(table: Mapping[str, Any], key: str, kind: tuple[type[T], type[U]], where: str, what: str,
              default: T | U) -> T | U: ...
def _optional(table: Mapping[str, Any], key: str, kind: type[Any] | tuple[type[Any], ...], where: str, what: str,
              default: Any = None) -> Any:
    """Like :func:`_require`, with ``default`` when the field is absent."""
    if key not in table:
        return default
    return _checked(table[key], key, kind, where, what)


def _deal_of(value: object, rules: Rules, where: str) -> Deal:
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return deal_for(value, rules)
        except DealError as exc:
            raise LessonError(f"{where}: {exc}") from None
    if isinstance(value, dict):
        try:
            deal = Deal.from_json(value, source="inline deal")
            check_rules(deal, rules)
        except DealError as exc:
            raise LessonError(f"{where}: {exc}") from None
        return deal
    raise LessonError(f"{where}: deal {brief(value)} is neither a deal number nor a table with reserves, base and talon")


def _rules_of(value: object, where: str) -> Rules:
    try:
        return Rules.from_json(value)
    except RulesError as exc:
        raise LessonError(f"{where}: {exc}") from None


def _tokens(value: object, where: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(value.replace(",", " ").split())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise LessonError(f"{where}: field {key!r} is {brief(value)}: expected moves or cards like \"d w r2\" or [\"7H\"]")


def parse_lesson(text: str, source: str, name: str | None = None) -> Lesson:
    """A lesson from its TOML text; :class:`LessonError` names the file, the step and the problem.

    Structure only, plus replaying each step's setup moves; the claims are
    confirmed by :func:`check_lesson`.
    """
    where = f"lesson file {quoted(source)}"
    # A lesson file may come from anyone: no control codes in any text it prints.
    data = _cleaned(loads_toml(text, where, LessonError))
    fmt = data.get("format")
    if fmt != LESSON_FORMAT:
        raise LessonError(f"{where}: format {brief(fmt)} is not supported: expected format = {LESSON_FORMAT!r}")
    unknown = sorted(set(data) - _LESSON_KEYS)
    if unknown:
        raise LessonError(f"{where}: unknown field(s) {', '.join(unknown)}: expected {', '.join(sorted(_LESSON_KEYS))}")
    lesson_name = _require(data, "name", str, where, "a lesson name like \"osmosis-filter\"")
    if not NAME_PATTERN.match(lesson_name):
        raise LessonError(f"{where}: name {brief(lesson_name)} is not allowed: expected lower-case letters, digits and '-'")
    if name is not None and lesson_name != name:
        raise LessonError(f"{where}: name {brief(lesson_name)} does not match the file name: expected {name!r}")
    title = _require(data, "title", str, where, "the lesson's title")
    level = _require(data, "level", int, where, "a whole number, 1 for the first lesson")
    if not 1 <= level <= MAX_LEVEL:
        raise LessonError(f"{where}: level {level} is not allowed: expected 1 to {MAX_LEVEL}")
    introduction = _require(data, "introduction", str, where, "the text that opens the lesson")
    summary = _optional(data, "summary", str, where, "the text that closes the lesson", "")
    default_rules = _rules_of(data.get("variant", "osmosis"), where)
    raw_steps = _require(data, "steps", list, where, "a list of [[steps]] tables")
    if not raw_steps:
        raise LessonError(f"{where}: the lesson has no steps: expected at least one [[steps]] table")
    if len(raw_steps) > MAX_STEPS:  # each step is checked against the engine: a huge file would take minutes
        raise LessonError(f"{where}: the lesson has {len(raw_steps):,} steps: expected at most {MAX_STEPS}")
    steps: list[Step] = []
    previous: Step | None = None
    for number, raw in enumerate(raw_steps, 1):
        step = _parse_step(raw, number, lesson_name, source, data, default_rules, previous)
        steps.append(step)
        previous = step
    return Lesson(lesson_name, title.strip(), level, introduction.strip(), tuple(steps), source, summary.strip())


def _cleaned(value: Any) -> Any:
    """``value`` with every string passed through :func:`textsafe.clean` (newlines kept); depth is bounded."""
    if isinstance(value, str):
        return clean(value, newlines=True)
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    if isinstance(value, dict):
        return {clean(k): _cleaned(v) for k, v in value.items()}
    return value


def _parse_step(raw: object, number: int, lesson: str, source: str, data: Mapping[str, Any], default_rules: Rules,
                previous: Step | None) -> Step:

    where = f"lesson file {quoted(source)}, step {number}"
    if not isinstance(raw, dict):
        raise LessonError(f"{where}: expected a [[steps]] table")
    unknown = sorted(set(raw) - _STEP_KEYS)
    if unknown:
        raise LessonError(f"{where}: unknown field(s) {', '.join(unknown)}: expected {', '.join(sorted(_STEP_KEYS))}")
    text = _require(raw, "text", str, where, "what the step says")
    moves_tokens = _tokens(raw.get("moves", ""), where, "moves")
    try:
        moves = tuple(parse_moves(list(moves_tokens)))
    except MoveError as exc:
        raise LessonError(f"{where}: {exc}") from None
    if _optional(raw, "continue", bool, where, "true or false", False):
        if previous is None:
            raise LessonError(f"{where}: continue = true but there is no previous step to continue from")
        if "deal" in raw or "variant" in raw:
            raise LessonError(f"{where}: a step that continues the previous one takes no deal or variant")
        rules, deal, moves = previous.rules, previous.deal, previous.moves + moves
    else:
        rules = _rules_of(raw["variant"], where) if "variant" in raw else default_rules
        if "deal" in raw:
            deal = _deal_of(raw["deal"], rules, where)
        elif "deal" in data:
            deal = _deal_of(data["deal"], rules, where)
        else:
            raise LessonError(f"{where}: missing field 'deal' (a deal number or an inline deal), "
                              f"in the step or at the top of the lesson")
    try:
        state = State.initial(deal, rules)
        for i, move in enumerate(moves, 1):  # noqa: B007 - i names the move in the error below
            state = state.apply(move)
    except IllegalMoveError as exc:
        raise LessonError(f"{where}: setup move {i} ({move}) does not replay: {exc}") from None
    except DealError as exc:
        raise LessonError(f"{where}: {exc}") from None

    question = _optional(raw, "question", str, where, "the question put to the player")
    expect = _optional(raw, "expect", str, where, "the move or card the step teaches, like \"d\" or \"7H\"")
    teaches = _optional(raw, "teaches", str, where, "what the step teaches, in a sentence", "")
    if question is not None:
        if expect is None:
            raise LessonError(f"{where}: the step asks a question but has no 'expect' (the move it teaches)")
        if not teaches:
            raise LessonError(f"{where}: the step asks a question but has no 'teaches' (what it teaches)")
    elif expect is not None or "wrong" in raw:
        raise LessonError(f"{where}: 'expect' and 'wrong' need a 'question' to ask")
    reveal = _optional(raw, "reveal", bool, where, "true or false", False)
    judge = _optional(raw, "judge", str, where, f"one of {', '.join(JUDGES)}")
    if judge is None:
        judge = "solver" if reveal or full_information(state) else "hint"
    if judge not in JUDGES:
        raise LessonError(f"{where}: judge {brief(judge)} is unknown: expected one of {', '.join(JUDGES)}")
    if judge == "solver" and not (reveal or full_information(state)):
        raise LessonError(f"{where}: judge 'solver' would use cards the player has not seen: "
                          f"use judge = \"hint\", or show every card with reveal = true")
    samples = _optional(raw, "samples", int, where, "a whole number of samples", DEFAULT_SAMPLES)
    if not 1 <= samples <= MAX_SAMPLES:
        raise LessonError(f"{where}: samples {samples} is not allowed: expected 1 to {MAX_SAMPLES}")
    win_margin = float(_optional(raw, "win_margin", (int, float), where, "a chance from 0 to 1", WIN_MARGIN))
    cards_margin = float(_optional(raw, "cards_margin", (int, float), where, "a number of cards", CARDS_MARGIN))
    if not 0 <= win_margin <= 1 or not 0 <= cards_margin <= 52:
        raise LessonError(f"{where}: win_margin must be from 0 to 1 and cards_margin from 0 to 52")
    claims = _optional(raw, "claims", dict, where, "a table of claims about the position", {})
    unknown = sorted(set(claims) - _CLAIM_KEYS)
    if unknown:
        raise LessonError(f"{where}: unknown claim(s) {', '.join(unknown)}: expected {', '.join(sorted(_CLAIM_KEYS))}")
    wrong = _tokens(raw.get("wrong", []), where, "wrong")
    step = Step(
        lesson=lesson, source=source, number=number, text=text.strip(), deal=deal, rules=rules,
        moves=moves, reveal=reveal, question=question, expect=expect, teaches=teaches.strip(),
        wrong=wrong, judge=judge,
        explain=_optional(raw, "explain", str, where, "text shown after the answer", "").strip(),
        tip=_optional(raw, "tip", str, where, "the strategy tip shown with a wrong answer", "").strip(),
        hint=_optional(raw, "hint", str, where, "a nudge shown when the player asks for a hint", "").strip(),
        samples=samples, win_margin=win_margin, cards_margin=cards_margin, claims=dict(claims),
    )
    # Typos in answers and claims are file errors, found at load time.
    for token in ((expect,) if expect else ()) + wrong:
        try:
            parse_input(token)
        except MoveError as exc:
            raise step.error(str(exc)) from None
    _parse_claims(step)
    return step


def _parse_claims(step: Step) -> None:
    """Type-check the claims (their truth is :func:`check_step`'s job)."""
    c = step.claims
    bools = ("blocked", "can_redeal", "progress", "winnable", "lost_from_start", "full_information")
    for key in bools:
        if key in c and not isinstance(c[key], bool):
            raise step.error(f"claim {key} = {brief(c[key])}: expected true or false")
    for key in ("score", "pass", "best_cards"):
        if key in c and (not isinstance(c[key], int) or isinstance(c[key], bool)):
            raise step.error(f"claim {key} = {brief(c[key])}: expected a whole number")
    for key in ("legal", "playable", "cycle", "rows", "went_by"):
        if key in c:
            _tokens(c[key], step.where(), f"claims.{key}")
    try:
        for token in _tokens(c.get("legal", []), step.where(), "claims.legal"):
            Move.parse(token)
        for key in ("playable", "cycle", "went_by"):
            for token in _tokens(c.get(key, []), step.where(), f"claims.{key}"):
                parse_card(token)
    except (MoveError, CardError) as exc:
        raise step.error(str(exc)) from None
    for token in _tokens(c.get("rows", []), step.where(), "claims.rows"):
        if token.upper() not in SUITS:
            raise step.error(f"claim rows: {brief(token)} is not a suit: expected S, H, D or C")
    if "start_rank" in c and (not isinstance(c["start_rank"], str) or c["start_rank"].upper() not in RANKS):
        raise step.error(f"claim start_rank = {brief(c['start_rank'])}: expected one of {', '.join(RANKS)}")
