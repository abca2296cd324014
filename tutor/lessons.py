"""Guided lessons: the lesson file format, its checker and the answer judge.

A lesson is data: a TOML file (``format = "osmosis-lesson/1"``) under the
repository's ``lessons/`` folder, shipped in the wheel as ``tutor/lessons``.
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
    hint = "..."   tip = "..."   explain = "..."   samples = 24
    win_margin = 0.05   cards_margin = 1.0
    [steps.claims]                  # each one confirmed by the engine
    legal = ["w", "d"]   playable = ["6H"]   rows = ["D", "C"]   start_rank = "6"
    score = 15   pass = 3   blocked = false   can_redeal = true   progress = false
    winnable = true   best_cards = 17   lost_from_start = true   cycle = ["8H", "8S"]
    full_information = true

This module draws nothing; the ``lesson`` command renders its values.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field, replace
from functools import cached_property
from importlib import resources
from pathlib import Path

from .cards import NAMES, RANKS, SUITS, parse_card
from .deals import Deal, check_rules, deal_for
from .inputs import load_json, loads_toml, read_text
from .storage import atomic_write_text, is_regular_file, progress_path
from .textsafe import brief, clean, os_reason, quoted
from .errors import CardError, DealError, IllegalMoveError, LessonError, MoveError, RulesError
from .notation import TURN, Move, parse_input, parse_moves
from .rules import Rules
from .state import State
from .knowledge import has_seen_everything as full_information, move_for_card

LESSON_FORMAT = "osmosis-lesson/1"
PROGRESS_FORMAT = "osmosis-progress/1"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")

JUDGES = ("rules", "solver", "hint")
#: An answer is right when it loses at most this much win chance and this
#: many expected cards against the engine's best move.
WIN_MARGIN = 0.05
CARDS_MARGIN = 1.0
#: Samples for hint-judged steps: enough for a stable verdict where the
#: lesson's point decides, few enough to keep a check fast.
DEFAULT_SAMPLES = 24
#: The solver's node limit per candidate move in a lesson (positions in
#: lessons are chosen to be decided well within it).
SOLVER_NODES = 500_000
MAX_SAMPLES = 1000
MAX_LEVEL = 999

_LESSON_KEYS = {"format", "name", "title", "level", "introduction", "summary", "deal", "variant", "steps"}
_STEP_KEYS = {"text", "deal", "variant", "moves", "continue", "reveal", "question", "expect", "teaches",
              "wrong", "judge", "explain", "tip", "hint", "samples", "win_margin", "cards_margin", "claims"}
_CLAIM_KEYS = {"legal", "playable", "rows", "start_rank", "score", "pass", "blocked", "can_redeal", "progress",
               "winnable", "best_cards", "lost_from_start", "cycle", "full_information"}


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
    claims: dict = field(default_factory=dict)

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
                raise self.error(f"{token!r} is not a legal move in this position "
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


def _require(table: dict, key: str, kind, where: str, what: str):
    if key not in table:
        raise LessonError(f"{where}: missing field {key!r} ({what})")
    value = table[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise LessonError(f"{where}: field {brief(key)} is {brief(value)}: expected {what}")
    return value


def _optional(table: dict, key: str, kind, where: str, what: str, default=None):
    if key not in table:
        return default
    return _require(table, key, kind, where, what)


def _deal_of(value, rules: Rules, where: str) -> Deal:
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
    raise LessonError(f"{where}: deal {value!r} is neither a deal number nor a table with reserves, base and talon")


def _rules_of(value, where: str) -> Rules:
    try:
        return Rules.from_json(value)
    except RulesError as exc:
        raise LessonError(f"{where}: {exc}") from None


def _tokens(value, where: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(value.replace(",", " ").split())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise LessonError(f"{where}: field {key!r} is {value!r}: expected moves or cards like \"d w r2\" or [\"7H\"]")


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
        raise LessonError(f"{where}: format {fmt!r} is not supported: expected format = {LESSON_FORMAT!r}")
    unknown = sorted(set(data) - _LESSON_KEYS)
    if unknown:
        raise LessonError(f"{where}: unknown field(s) {', '.join(unknown)}: expected {', '.join(sorted(_LESSON_KEYS))}")
    lesson_name = _require(data, "name", str, where, "a lesson name like \"osmosis-filter\"")
    if not NAME_PATTERN.match(lesson_name):
        raise LessonError(f"{where}: name {lesson_name!r} is not allowed: expected lower-case letters, digits and '-'")
    if name is not None and lesson_name != name:
        raise LessonError(f"{where}: name {lesson_name!r} does not match the file name: expected {name!r}")
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
    steps: list[Step] = []
    previous: Step | None = None
    for number, raw in enumerate(raw_steps, 1):
        step = _parse_step(raw, number, lesson_name, source, data, default_rules, previous)
        steps.append(step)
        previous = step
    return Lesson(lesson_name, title.strip(), level, introduction.strip(), tuple(steps), source, summary.strip())


def _cleaned(value):
    """``value`` with every string passed through :func:`textsafe.clean` (newlines kept); depth is bounded."""
    if isinstance(value, str):
        return clean(value, newlines=True)
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    if isinstance(value, dict):
        return {clean(k): _cleaned(v) for k, v in value.items()}
    return value


def _parse_step(raw, number: int, lesson: str, source: str, data: dict, default_rules: Rules,
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
        for i, move in enumerate(moves, 1):
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
        raise LessonError(f"{where}: judge {judge!r} is unknown: expected one of {', '.join(JUDGES)}")
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
            raise step.error(f"claim {key} = {c[key]!r}: expected true or false")
    for key in ("score", "pass", "best_cards"):
        if key in c and (not isinstance(c[key], int) or isinstance(c[key], bool)):
            raise step.error(f"claim {key} = {c[key]!r}: expected a whole number")
    for key in ("legal", "playable", "cycle", "rows"):
        if key in c:
            _tokens(c[key], step.where(), f"claims.{key}")
    try:
        for token in _tokens(c.get("legal", []), step.where(), "claims.legal"):
            Move.parse(token)
        for key in ("playable", "cycle"):
            for token in _tokens(c.get(key, []), step.where(), f"claims.{key}"):
                parse_card(token)
    except (MoveError, CardError) as exc:
        raise step.error(str(exc)) from None
    for token in _tokens(c.get("rows", []), step.where(), "claims.rows"):
        if token.upper() not in SUITS:
            raise step.error(f"claim rows: {token!r} is not a suit: expected S, H, D or C")
    if "start_rank" in c and (not isinstance(c["start_rank"], str) or c["start_rank"].upper() not in RANKS):
        raise step.error(f"claim start_rank = {c['start_rank']!r}: expected one of {', '.join(RANKS)}")


# ---- finding lessons ------------------------------------------------------------

def lesson_files() -> list[tuple[str, object]]:
    """``(name, resource)`` for every lesson file, from the installed package or the source tree.

    A wheel carries the lessons as ``tutor/lessons``; a source checkout keeps
    them in the repository's ``lessons/`` folder.
    """
    packaged = resources.files("tutor").joinpath("lessons")
    if packaged.is_dir():
        root = packaged
    else:
        root = Path(__file__).resolve().parent.parent / "lessons"
        if not root.is_dir():
            raise LessonError(f"no lessons folder found (looked in the package and in {quoted(root)})")
    found = [(entry.name[: -len(".toml")], entry) for entry in root.iterdir()
             if entry.name.endswith(".toml") and entry.is_file()]
    return sorted(found, key=lambda item: item[0])


def load_lesson_file(path) -> Lesson:
    """Read one lesson file (a path or an importlib resource)."""
    name = Path(str(path)).name
    stem = name[: -len(".toml")] if name.endswith(".toml") else name
    if isinstance(path, (str, os.PathLike)):
        text = read_text(path, "lesson file", LessonError)  # once, bounded, with a clean error
    else:
        try:
            text = path.read_text(encoding="utf-8")  # a resource shipped in the package
        except (OSError, UnicodeDecodeError) as exc:
            raise LessonError(f"lesson file {quoted(str(path))} cannot be read: {clean(exc)}") from None
    return parse_lesson(text, source=_display(path), name=stem)


def _display(path) -> str:
    """A short name for messages: lessons/NAME.toml for shipped lessons."""
    p = Path(str(path))
    if p.parent.name == "lessons":
        return f"lessons/{p.name}"
    return str(path)


def all_lessons() -> list[Lesson]:
    """Every shipped lesson, in teaching order (level, then name)."""
    lessons = [load_lesson_file(res) for _, res in lesson_files()]
    return sorted(lessons, key=lambda lesson: (lesson.level, lesson.name))


def find_lesson(name: str) -> Lesson:
    """The shipped lesson called ``name`` (or its level number), or a lesson file path."""
    if name.endswith(".toml"):
        return load_lesson_file(Path(name))
    files = dict(lesson_files())
    if name in files:
        return load_lesson_file(files[name])
    if name.isascii() and name.isdigit() and len(name) <= len(str(MAX_LEVEL)):
        for lesson in all_lessons():
            if lesson.level == int(name):
                return lesson
    known = ", ".join(files) or "none"
    raise LessonError(f"no lesson called {quoted(name, limit=60)}: expected one of {known} "
                      "(or a level number, or a file NAME.toml)")


# ---- the engine's view of a position -----------------------------------------------

@dataclass(frozen=True)
class Score:
    """The engine's rating of one move: win chance 0..1 and expected final cards."""

    move: Move
    win: float
    cards: float


@dataclass(frozen=True)
class Verdict:
    """How the engine rates the moves of a step's position, best first.

    ``right`` is the set of moves that count as right answers.
    """

    judge: str
    scores: tuple[Score, ...]
    right: frozenset[Move]
    reason: str = ""
    why: dict = field(default_factory=dict)
    cards_exact: bool = True

    @property
    def best(self) -> Move:
        return self.scores[0].move if self.scores else TURN

    def score_of(self, move: Move) -> Score | None:
        for s in self.scores:
            if s.move == move:
                return s
        return None


def describe_move(state: State, move: Move) -> str:
    """A move in words: ``r3 (play 7H from reserve pile 3)``."""
    if move.kind == "d":
        if state.pos == len(state.talon) and state.pos:
            return "d (turn the waste over: a redeal)"
        return "d (turn the talon)"
    card = state.card_of(move)
    name = NAMES[card] if card is not None else "?"
    where = f"reserve pile {move.pile + 1}" if move.kind == "r" else "the waste"
    return f"{move} (play {name} from {where})"


def rules_verdict(state: State) -> Verdict:
    """A rules question: any card that can be played is right; with none, the turn."""
    legal = state.legal_moves()
    plays = [m for m in legal if m.is_play]
    right = frozenset(plays) if plays else frozenset(m for m in legal if not m.is_play)
    scores = tuple(Score(m, 1.0 if m in right else 0.0, 0.0) for m in legal)
    scores = tuple(sorted(scores, key=lambda s: -s.win))
    return Verdict("rules", scores, right)


def solver_verdict(state: State, win_margin: float = WIN_MARGIN, cards_margin: float = CARDS_MARGIN,
                   nodes: int = SOLVER_NODES, where: str = "position") -> Verdict:
    """Full knowledge: every legal move solved exactly. :class:`LessonError` if the solver cannot decide.

    Winnability first (the fast question); only when no move wins are the
    best scores compared. A move that leaves the position lost from the
    start carries the engine's explanation of the trap.
    """
    from .search import Limit, lost_from_start, solve

    limit = Limit(nodes=nodes)
    results = {}
    for move in state.legal_moves():
        results[move] = solve(state.apply(move), limit, want="win")
    exact = not any(r.winnable for r in results.values())
    if exact:
        results = {move: solve(state.apply(move), limit) for move in results}
    scores, why = [], {}
    for move, result in results.items():
        if result.winnable is None or not result.complete:
            raise LessonError(f"{where}: the solver could not decide {move} within {nodes} nodes: "
                              f"pick a position closer to the end")
        scores.append(Score(move, 1.0 if result.winnable else 0.0, float(result.best_cards)))
        if not result.winnable:
            trap = lost_from_start(state.apply(move))
            if trap is not None:
                why[move] = trap.text()
    verdict = _verdict("solver", scores, win_margin, cards_margin, why=why)
    return replace(verdict, cards_exact=exact)


def hint_verdict(state: State, samples: int = DEFAULT_SAMPLES, win_margin: float = WIN_MARGIN,
                 cards_margin: float = CARDS_MARGIN) -> Verdict:
    """What the player has seen only: the moves scored by the hint on an observation."""
    from .hints import hint
    from .knowledge import observe

    result = hint(observe(state), samples=samples)
    scores = [Score(c.move if isinstance(c.move, Move) else Move.parse(str(c.move)), float(c.win), float(c.cards))
              for c in result.candidates]
    return _verdict("hint", scores, win_margin, cards_margin, reason=str(result.reason or ""))


def _verdict(judge: str, scores: list[Score], win_margin: float, cards_margin: float, reason: str = "",
             why: dict | None = None) -> Verdict:
    """Order the scores best first and mark the moves within the margins of the best as right.

    A winning move always beats a lost one, whatever the margins.
    """
    ordered = tuple(sorted(scores, key=lambda s: (-s.win, -s.cards)))
    if not ordered:
        return Verdict(judge, (), frozenset(), reason, why or {})
    best = ordered[0]
    right = frozenset(s.move for s in ordered
                      if best.win - s.win <= win_margin + 1e-9 and best.cards - s.cards <= cards_margin + 1e-9)
    return Verdict(judge, ordered, right, reason, why or {})


def verdict_for(step: Step) -> Verdict:
    """The engine's verdict on a step's position, by the step's judge."""
    state = step.state
    if step.judge == "rules":
        return rules_verdict(state)
    if step.judge == "solver":
        return solver_verdict(state, step.win_margin, step.cards_margin, where=step.where())
    return hint_verdict(state, step.samples, step.win_margin, step.cards_margin)


# ---- checking a lesson ---------------------------------------------------------------

@dataclass(frozen=True)
class StepCheck:
    step: Step
    ok: bool
    message: str


def check_step(step: Step, verdict: Verdict | None = None) -> list[str]:
    """Confirm every claim of a step against the engine; returns what was confirmed.

    Raises :class:`LessonError` naming the file, the step and the claim that fails.
    """
    state = step.state
    confirmed: list[str] = []
    c = step.claims
    if "full_information" in c:
        actual = full_information(state)
        if actual != c["full_information"]:
            raise step.error(f"claims full_information = {str(c['full_information']).lower()}, "
                             f"but the player {'has' if actual else 'has not'} seen every card")
        confirmed.append("full_information")
    if "legal" in c:
        claimed = sorted(str(Move.parse(t)) for t in _tokens(c["legal"], step.where(), "legal"))
        actual = sorted(str(m) for m in state.legal_moves())
        if claimed != actual:
            raise step.error(f"claims the legal moves are {' '.join(claimed) or 'none'}, "
                             f"but the engine allows {' '.join(actual) or 'none'}")
        confirmed.append("legal")
    if "playable" in c:
        claimed = sorted(NAMES[parse_card(t)] for t in _tokens(c["playable"], step.where(), "playable"))
        actual = sorted(NAMES[state.card_of(m)] for m in state.legal_moves() if m.is_play)
        if claimed != actual:
            raise step.error(f"claims the playable cards are {' '.join(claimed) or 'none'}, "
                             f"but the engine can play {' '.join(actual) or 'none'}")
        confirmed.append("playable")
    if "rows" in c:
        claimed = "".join(t.upper() for t in _tokens(c["rows"], step.where(), "rows"))
        actual = "".join(SUITS[s] for s in state.rows)
        if claimed != actual:
            raise step.error(f"claims the rows are {' '.join(claimed)}, but they are {' '.join(actual)}")
        confirmed.append("rows")
    if "start_rank" in c:
        actual = RANKS[state.start_rank - 1]
        if c["start_rank"].upper() != actual:
            raise step.error(f"claims the starting rank is {c['start_rank']}, but it is {actual}")
        confirmed.append("start_rank")
    for key, actual in (("score", state.score), ("pass", state.pass_no)):
        if key in c:
            if c[key] != actual:
                raise step.error(f"claims {key} {c[key]}, but the engine has {actual}")
            confirmed.append(key)
    for key, actual in (("blocked", state.blocked), ("can_redeal", state.can_redeal()),
                        ("progress", state.progress)):
        if key in c:
            if c[key] != actual:
                raise step.error(f"claims {key} = {str(c[key]).lower()}, but the engine says {str(actual).lower()}")
            confirmed.append(key)
    if "lost_from_start" in c or "cycle" in c:
        from .search import lost_from_start

        explanation = lost_from_start(state)
        lost = explanation is not None
        if c.get("lost_from_start", True) != lost:
            raise step.error(f"claims lost_from_start = {str(c.get('lost_from_start', True)).lower()}, "
                             f"but the engine {'finds a cycle' if lost else 'finds no cycle of needs'}")
        if "cycle" in c:
            cycle = set()
            parts = [explanation, *explanation.others] if lost else []
            for part in parts:
                cycle.update(part.cycle)
            missing = [t.upper() for t in _tokens(c["cycle"], step.where(), "cycle") if parse_card(t) not in cycle]
            if missing:
                found = " ".join(NAMES[x] for x in sorted(cycle)) if lost else "none"
                raise step.error(f"claims the cycle holds {' '.join(missing)}, but the engine's cycle is {found}")
        confirmed.append("lost_from_start")
    if "winnable" in c or "best_cards" in c:
        from .search import Limit, solve

        result = solve(state, Limit(nodes=SOLVER_NODES), want="best" if "best_cards" in c else "win")
        if result.winnable is None or "best_cards" in c and not result.complete:
            raise step.error(f"the solver could not decide the position within {SOLVER_NODES} nodes")
        if "winnable" in c and result.winnable != c["winnable"]:
            raise step.error(f"claims winnable = {str(c['winnable']).lower()}, "
                             f"but the solver finds it {'winnable' if result.winnable else 'lost'}")
        if "best_cards" in c and result.best_cards != c["best_cards"]:
            raise step.error(f"claims best_cards = {c['best_cards']}, but the solver reaches {result.best_cards}")
        confirmed.append(" and ".join(k for k in ("winnable", "best_cards") if k in c))
    if step.asks:
        verdict = verdict or verdict_for(step)
        expect = step.resolve(step.expect)
        if expect not in verdict.right:
            raise step.error(f"expects {expect} ({step.teaches}), but the {verdict.judge} judge rates "
                             f"{_rating(state, verdict, expect)}; it accepts {_moves(verdict.right)}")
        for token in step.wrong:
            parsed = parse_input(token)
            move = parsed if isinstance(parsed, Move) else _card_move(state, parsed)
            if move is not None and move in verdict.right:
                raise step.error(f"claims {token} is wrong, but the {verdict.judge} judge rates "
                                 f"{_rating(state, verdict, move)}, within the margin of the best")
        confirmed.append("expect")
    return confirmed


def _card_move(state: State, card: int) -> Move | None:
    try:
        return state.move_for_card(card)
    except IllegalMoveError:
        return None


def _moves(moves) -> str:
    return " ".join(sorted(str(m) for m in moves)) or "nothing"


def _rating(state: State, verdict: Verdict, move: Move) -> str:
    s = verdict.score_of(move)
    if s is None:
        return f"{move} as not legal"
    if verdict.judge == "rules":
        return f"{move} as {'playable' if s.win else 'not a card that can be played'}"
    return f"{describe_move(state, move)} at {_fmt_score(verdict, s)}"


def _fmt_score(verdict: Verdict, s: Score) -> str:
    if verdict.judge == "solver":
        if s.win >= 1:
            return "a win"
        return f"lost, at best {s.cards:.0f} cards" if verdict.cards_exact else "a lost game"
    return f"win {s.win * 100:.0f}%, {s.cards:.1f} cards"


def check_lesson(lesson: Lesson) -> list[StepCheck]:
    """Check every step; one :class:`StepCheck` per step, in order."""
    results = []
    for step in lesson.steps:
        try:
            confirmed = check_step(step)
        except LessonError as exc:
            results.append(StepCheck(step, False, str(exc)))
        else:
            results.append(StepCheck(step, True, ", ".join(confirmed) or "position replays"))
    return results


# ---- judging an answer ---------------------------------------------------------------

@dataclass(frozen=True)
class Feedback:
    """The judge's answer to the player: right or not, and why, in lines of text."""

    step: Step
    answer: str
    move: Move | None
    right: bool
    lines: tuple[str, ...]
    verdict: Verdict


def judge_answer(step: Step, answer: str, verdict: Verdict | None = None) -> Feedback:
    """Judge what the player typed at a step that asks. :class:`MoveError` if it is no move or card."""
    if not step.asks:
        raise step.error("this step asks no question")
    state = step.state
    parsed = parse_input(answer)
    verdict = verdict or verdict_for(step)
    lines: list[str] = []
    move: Move | None
    if isinstance(parsed, Move):
        move = parsed
        if not state.is_legal(move):
            try:
                state.apply(move)
            except IllegalMoveError as exc:
                lines.append(f"{exc}.")
            move = None
    else:
        try:
            move = move_for_card(state, parsed)
        except IllegalMoveError as exc:
            lines.append(f"{exc}.")
            move = None
    right = move is not None and move in verdict.right
    if right:
        lines.insert(0, f"Right: {step.teaches}")
    else:
        lines.insert(0, f"Not quite: {step.teaches}")
        if move is not None:
            lines.append(_why_wrong(state, verdict, move))
        if step.tip:
            lines.append(f"Tip: {step.tip}")
    if step.explain:
        lines.append(step.explain)
    return Feedback(step, answer.strip(), move, right, tuple(lines), verdict)


def _why_wrong(state: State, verdict: Verdict, move: Move) -> str:
    best = verdict.scores[0]
    mine = verdict.score_of(move)
    if verdict.judge == "rules":
        if move.is_play:  # pragma: no cover - every legal play is right for a rules question
            return f"{describe_move(state, move)} is legal too."
        cards = " ".join(NAMES[state.card_of(m)] for m in sorted(verdict.right, key=str))
        return f"Turning is allowed, but the question asks for a card, and {cards} can be played now."
    label = "the solver (every card is known)" if verdict.judge == "solver" else "the tutor (from the cards you have seen)"
    text = (f"By {label}: {describe_move(state, move)} gives {_fmt_score(verdict, mine)}; "
            f"{describe_move(state, best.move)} gives {_fmt_score(verdict, best)}.")
    if move in verdict.why:
        text += f" After {move}: {verdict.why[move]}"
    if verdict.reason:
        text += f" {verdict.reason}"
    return text


# ---- the player's progress --------------------------------------------------------------

@dataclass
class Progress:
    """Which lessons the player finished, and how their last run went.

    ``warning`` is set when a broken progress file was found and set aside.
    """

    path: Path
    lessons: dict = field(default_factory=dict)
    warning: str | None = None

    def done(self, name: str) -> bool:
        return bool(self.lessons.get(name, {}).get("done"))

    def record(self, name: str, right: int, asked: int, finished: bool) -> None:
        entry = dict(self.lessons.get(name, {}))
        entry["done"] = bool(entry.get("done")) or finished
        entry["last"] = {"right": right, "asked": asked, "finished": finished}
        if finished:
            best = entry.get("best_right", -1)
            entry["best_right"] = max(best, right)
        self.lessons[name] = entry

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"format": PROGRESS_FORMAT, "lessons": self.lessons}
        atomic_write_text(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def load_progress(path: Path | None = None) -> Progress:
    """The saved progress; a broken file is renamed aside and reported in ``warning``, never raised.

    Every field is checked; entries that are not usable are dropped (the
    file is set aside first, so nothing is lost) and the good ones kept.
    """
    path = path or progress_path()
    try:
        os.stat(path)
    except FileNotFoundError:
        return Progress(path)
    except (OSError, ValueError) as exc:
        reason = os_reason(exc) if isinstance(exc, OSError) else "not a usable file name"
        return Progress(path, {}, warning=f"progress file {quoted(path)} cannot be used ({reason}); "
                                          "progress is not kept this time")
    if not is_regular_file(path):  # a pipe would block the read, a folder cannot be one
        return _set_aside(path, f"progress file {quoted(path)} is not a regular file", {})
    try:
        data = load_json(path, "progress file", LessonError)
    except LessonError as exc:
        return _set_aside(path, str(exc), {})
    if not isinstance(data, dict) or data.get("format") != PROGRESS_FORMAT or not isinstance(data.get("lessons"), dict):
        return _set_aside(path, f"progress file {quoted(path)} is not a {PROGRESS_FORMAT} file", {})
    lessons, problems = {}, []
    for name, entry in data["lessons"].items():
        problem = _entry_problem(name, entry)
        if problem:
            problems.append(f"{quoted(name, limit=40)}: {problem}")
        else:
            lessons[name] = entry
    if problems:
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        return _set_aside(path, f"progress file {quoted(path)} has entries that are not usable "
                                f"({problems[0]}{more})", lessons)
    return Progress(path, lessons)


_MAX_COUNT = 10_000


def _count_ok(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_COUNT


def _entry_problem(name, entry) -> str | None:
    """What is wrong with one lesson's progress entry, or None; unknown fields are kept as they are."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name) or len(name) > 100:
        return "not a lesson name"
    if not isinstance(entry, dict):
        return "expected an object with done, last and best_right"
    if "done" in entry and not isinstance(entry["done"], bool):
        return "'done' is not true or false"
    if "best_right" in entry and not _count_ok(entry["best_right"]):
        return "'best_right' is not a count"
    last = entry.get("last")
    if last is not None:
        if not isinstance(last, dict):
            return "'last' is not an object with right, asked and finished"
        for key in ("right", "asked"):
            if not _count_ok(last.get(key)):
                return f"'last.{key}' is not a count"
        if not isinstance(last.get("finished"), bool):
            return "'last.finished' is not true or false"
        if last["right"] > last["asked"]:
            return "'last.right' is more than 'last.asked'"
    return None


def _set_aside(path: Path, problem: str, kept: dict) -> Progress:
    """Rename a broken progress file aside (never deleted) and go on with the entries that were good."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    moved = None
    for n in range(1, 1000):
        aside = path.with_name(f"{path.name}.broken-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            os.link(path, aside)  # never replaces an earlier broken file
        except FileExistsError:
            continue
        except OSError:
            try:
                if aside.exists():
                    continue
                os.replace(path, aside)
            except OSError as exc:
                moved = f"and could not be set aside ({os_reason(exc)})"
                break
        else:
            try:
                os.unlink(path)
            except OSError:
                pass
        moved = f"set aside as {quoted(aside)}"
        break
    moved = moved or "and could not be set aside (no free name)"
    progress = Progress(path, dict(kept))
    start = "starting afresh"
    if kept:
        start = f"keeping the {len(kept)} good entr{'y' if len(kept) == 1 else 'ies'}"
        try:
            progress.save()  # the good entries stay in use from the next run on
        except OSError as exc:
            start += f" for this run (they cannot be written back: {os_reason(exc)})"
    progress.warning = f"{problem}; {moved}, {start}"
    return progress
