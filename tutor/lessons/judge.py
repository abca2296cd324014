"""The three judges (rules, solver, hint) and the verdict on an answer, as values.

An answer is right when the engine rates it within a small margin of the
best move, so a lesson never hard-codes the one answer it accepts. The
sentences shown to the player come from :mod:`.words`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..cards import SUIT_NAMES, parse_card, suit_of
from ..errors import CardError, IllegalMoveError, LessonError, MoveError
from ..knowledge import move_for_card
from ..notation import TURN, Move, parse_input
from ..state import State
from .format import CARDS_MARGIN, DEFAULT_SAMPLES, SOLVER_NODES, WIN_MARGIN, Step
from .words import feedback_lines

if TYPE_CHECKING:  # the hint is imported when a hint verdict is asked, not with the lessons
    from ..hints import Candidate, Hint


@dataclass(frozen=True)
class Score:
    """The engine's rating of one move: win chance 0..1 and expected final cards.

    The hint judge's scores are sampled, and keep what their figures rest on (from the hint's
    :class:`~tutor.hints.Candidate`): ``samples``, the deals scored; ``interval``, the win's 95% interval;
    ``cards_interval``, the cards' 95% interval; ``exact``, every consistent deal was solved (the figures are
    the values); ``lost``, the move loses in every consistent deal; ``drop_low``, the low end of the 95%
    interval of its paired drop in win chance from the hint's best move on the same deals (None for that move
    itself, and where the drop is exact). The rules' and the solver's scores are not sampled: ``interval``
    None.
    """

    move: Move
    win: float
    cards: float
    samples: int = 0
    interval: tuple[float, float] | None = None
    cards_interval: tuple[float, float] | None = None
    exact: bool = False
    lost: bool = False
    drop_low: float | None = None


@dataclass(frozen=True)
class Verdict:
    """How the engine rates the moves of a step's position, best first.

    ``right`` is the set of moves that count as right answers.
    """

    judge: str
    scores: tuple[Score, ...]
    right: frozenset[Move]
    reason: str = ""
    why: dict[Move, str] = field(default_factory=dict)
    cards_exact: bool = True

    @property
    def best(self) -> Move:
        return self.scores[0].move if self.scores else TURN

    def score_of(self, move: Move) -> Score | None:
        for s in self.scores:
            if s.move == move:
                return s
        return None


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
    from ..search import Limit, lost_from_start, solve

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
                 cards_margin: float = CARDS_MARGIN, budget: bool = True) -> Verdict:
    """What the player has seen only: the moves scored by the hint on an observation (:func:`hint_result_verdict`).
    ``budget`` False: every sample the doubt rule asks for, past the hint's work budget
    (:func:`tutor.hints.score_moves`)."""
    from ..hints import hint
    from ..knowledge import observe

    return hint_result_verdict(hint(observe(state), samples=samples, budget=budget), win_margin, cards_margin)


def hint_score(c: Candidate) -> Score:
    """A hint's candidate as a :class:`Score`, with what its figures rest on (interval, deals, exactness)."""
    move = c.move if isinstance(c.move, Move) else Move.parse(str(c.move))
    drop_low = float(c.drop.lo) if c.drop is not None and not c.drop.exact and not c.exact else None
    return Score(move, float(c.win), float(c.cards), samples=int(c.samples),
                 interval=(float(c.interval[0]), float(c.interval[1])),
                 cards_interval=(float(c.cards_interval[0]), float(c.cards_interval[1])),
                 exact=bool(c.exact), lost=bool(c.lost), drop_low=drop_low)


def hint_result_verdict(result: Hint, win_margin: float = WIN_MARGIN, cards_margin: float = CARDS_MARGIN) -> Verdict:
    """The hint judge's verdict from a hint already run (:func:`tutor.hints.hint`): its candidates as scores
    that keep their intervals and deals (:func:`hint_score`), its reason, its best move first on a tie.

    The one way a hint becomes a verdict: the lessons' :func:`hint_verdict` and the drill both build it here.
    """
    scores = [hint_score(c) for c in result.candidates]
    return _verdict("hint", scores, win_margin, cards_margin, reason=str(result.reason or ""),
                    first=Move.parse(str(result.best)))


def _verdict(judge: str, scores: list[Score], win_margin: float, cards_margin: float, reason: str = "",
             why: dict[Move, str] | None = None, first: Move | None = None) -> Verdict:

    """Order the scores best first and mark the moves within the margins of the best as right.

    A winning move always beats a lost one, whatever the margins. ``first``: the judge's own best move (the
    hint's, which breaks a tie by what a move reveals), put first among the moves with its win chance.
    A sampled move is wrong only when it is clearly worse (:func:`_not_clearly_worse`), as the review's labels
    go by the low end of a drop's interval: an answer the samples cannot tell from the best is not marked wrong.
    """
    top = max((s.win for s in scores), default=0.0)
    ordered = tuple(sorted(scores, key=lambda s: (-s.win, not (s.move == first and s.win == top), -s.cards)))
    if not ordered:
        return Verdict(judge, (), frozenset(), reason, why or {})
    best = ordered[0]
    right = frozenset(s.move for s in ordered
                      if best.win - s.win <= win_margin + 1e-9 and best.cards - s.cards <= cards_margin + 1e-9
                      or _not_clearly_worse(s, best, win_margin, cards_margin))
    return Verdict(judge, ordered, right, reason, why or {})


def _not_clearly_worse(s: Score, best: Score, win_margin: float, cards_margin: float) -> bool:
    """A sampled score the samples cannot tell from the best by the margins: the low end of its paired drop
    in win chance under ``win_margin``, and its cards not clearly fewer (more than ``cards_margin`` below the
    best, with the two cards intervals apart)."""
    if s.drop_low is None or s.drop_low >= win_margin - 1e-9:
        return False
    if best.cards - s.cards <= cards_margin + 1e-9 or s.cards_interval is None or best.cards_interval is None:
        return True
    return s.cards_interval[1] >= best.cards_interval[0]


def verdict_for(step: Step, budget: bool = True) -> Verdict:
    """The engine's verdict on a step's position, by the step's judge (``budget``: see :func:`hint_verdict`)."""
    state = step.state
    if step.judge == "rules":
        return rules_verdict(state)
    if step.judge == "solver":
        return solver_verdict(state, step.win_margin, step.cards_margin, where=step.where())
    return hint_verdict(state, step.samples, step.win_margin, step.cards_margin, budget)


@dataclass(frozen=True)
class Feedback:
    """The judge's answer to the player: right or not, and why, in lines of text.

    ``move`` is the answer as a legal move here (None when it is none);
    ``refusal`` is then the engine's reason, from what the player can see.
    ``lines`` are the sentences of :func:`.words.feedback_lines`.
    """

    step: Step
    answer: str
    move: Move | None
    right: bool
    lines: tuple[str, ...]
    verdict: Verdict
    refusal: str = ""


#: The words a question "Play JC, or turn?" offers, as answers: a turn, or the one card the question names.
_TURN_WORDS = {"turn", "wait", "turn and wait"}
_PLAY_WORDS = {"play", "open", "play it", "open it"}
_TURN_OFFERED = re.compile(r"\b(turn|wait)\b", re.IGNORECASE)
_CHOICE = re.compile(r"\bor\b", re.IGNORECASE)


def _offers(question: str) -> bool:
    """Whether a question offers a play beside the turn ("Play JC, or turn?", "Turn, or play JC?", "Do you play
    JC, or do you turn?"): it names the turn (or the wait) and a choice."""
    return bool(_TURN_OFFERED.search(question) and _CHOICE.search(question))


def worded_answer(step: Step, answer: str) -> Move | int:
    """What the player typed, as :func:`tutor.notation.parse_input` reads it; the lessons' own questions also
    offer words: "turn" (or "wait") is ``d``, and "play" or "open" the card the question names, when it names
    exactly one ("Open hearts with 6H, or turn?"), else the one play the question offers ("Open hearts now, or
    turn?": the one card that can open a row for hearts); only a question that offers the turn beside a play
    takes those words. Anything else is a :class:`~tutor.errors.MoveError` that
    gives the forms a move takes, and at such a question the card's own name too."""
    word = " ".join(answer.lower().split())
    if word in _TURN_WORDS:
        return TURN
    # only a question that offers a play or the turn ("..., or turn?") takes "play" or "open" for its play: at
    # "Type a card you can play now." the word names no card, and the player is asked to type one
    if word in _PLAY_WORDS and _offers(step.question or ""):
        named = _named_cards(step.question or "")
        if len(named) == 1:
            return named[0]
        offered = [] if named else _offered_plays(step, word)
        if len(offered) == 1:  # "Open hearts now, or turn?": the one card that can open hearts' row
            return offered[0]
    piles = step.rules.reserve_piles
    try:
        parsed = parse_input(answer, piles)  # what would be right: the step's own piles
    except MoveError as exc:
        if word in _PLAY_WORDS:  # a question that names no one card: which one is the player's to type
            raise MoveError(f"{exc}; type the card to {word}") from None
        raise
    if isinstance(parsed, Move) and parsed.kind == "r" and parsed.pile >= piles:
        # a pile this game does not have is no answer (as r5 is none): it costs no try
        try:
            step.state.apply(parsed)
        except IllegalMoveError as exc:
            raise MoveError(str(exc)) from None
    return parsed


def _offered_plays(step: Step, word: str) -> list[Move]:
    """The plays a question that names no card offers with ``word``: those that open a row for "open", and of
    the suits it names ("Open hearts now, or turn?": the plays that open a row with a heart)."""
    state = step.state
    plays = [m for m in state.legal_moves() if m.is_play]
    if word.startswith("open"):
        plays = [m for m in plays if (c := state.card_of(m)) is not None and state.destination(c) >= len(state.rows)]
    text = (step.question or "").lower()
    suits = [s for s, name in enumerate(SUIT_NAMES) if name in text]
    if suits:
        plays = [m for m in plays if (c := state.card_of(m)) is not None and suit_of(c) in suits]
    return plays


def _named_cards(question: str) -> list[int]:
    """The cards a question names ("Play QD, or turn?": QD), in order, each once."""
    found: list[int] = []
    for token in question.replace(",", " ").replace("?", " ").split():
        if len(token) < 2 or not token[0].isalnum():
            continue
        try:
            card = parse_card(token)
        except CardError:
            continue
        if card not in found:
            found.append(card)
    return found


def judge_answer(step: Step, answer: str, verdict: Verdict | None = None) -> Feedback:
    """Judge what the player typed at a step that asks. :class:`MoveError` if it is no move or card.

    A typed card is found with :func:`tutor.knowledge.move_for_card`, so the
    reply never says where a card the player has not seen lies.
    """
    if not step.asks:
        raise step.error("this step asks no question")
    state = step.state
    parsed = worded_answer(step, answer)
    verdict = verdict or verdict_for(step)
    refusal = ""
    move: Move | None
    if isinstance(parsed, Move):
        move = parsed
        if not state.is_legal(move):
            try:
                state.apply(move)
            except IllegalMoveError as exc:
                refusal = f"{exc}."
            move = None
    else:
        try:
            move = move_for_card(state, parsed)
        except IllegalMoveError as exc:
            refusal = f"{exc}."
            move = None
    right = move is not None and move in verdict.right
    lines = feedback_lines(step, verdict, move, right, refusal)
    return Feedback(step, answer.strip(), move, right, lines, verdict, refusal)
