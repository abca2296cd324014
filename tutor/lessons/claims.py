"""The claim checker: every claim of a lesson step confirmed against the engine."""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import NAMES, RANKS, SUITS, parse_card
from ..errors import IllegalMoveError, LessonError
from ..knowledge import has_seen_everything as full_information
from ..notation import Move, parse_input
from ..state import State
from .format import DEFAULT_SAMPLES, SOLVER_NODES, Lesson, Step, _tokens
from .judge import Verdict, verdict_for
from .words import moves_text, rating


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
        seen_all = full_information(state)
        if seen_all != c["full_information"]:
            raise step.error(f"claims full_information = {str(c['full_information']).lower()}, "
                             f"but the player {'has' if seen_all else 'has not'} seen every card")
        confirmed.append("full_information")
    if "legal" in c:
        claimed_moves = sorted(str(Move.parse(t)) for t in _tokens(c["legal"], step.where(), "legal"))
        legal = sorted(str(m) for m in state.legal_moves())
        if claimed_moves != legal:
            raise step.error(f"claims the legal moves are {' '.join(claimed_moves) or 'none'}, "
                             f"but the engine allows {' '.join(legal) or 'none'}")
        confirmed.append("legal")
    if "playable" in c:
        claimed_cards = sorted(NAMES[parse_card(t)] for t in _tokens(c["playable"], step.where(), "playable"))
        # card_of is None exactly for the turns, so this is the card of every legal play.
        playable = sorted(NAMES[card] for m in state.legal_moves() if (card := state.card_of(m)) is not None)
        if claimed_cards != playable:
            raise step.error(f"claims the playable cards are {' '.join(claimed_cards) or 'none'}, "
                             f"but the engine can play {' '.join(playable) or 'none'}")
        confirmed.append("playable")
    if "went_by" in c:
        # the cards that could have been played somewhere along the step's moves and never were
        claimed_cards = sorted(NAMES[parse_card(t)] for t in _tokens(c["went_by"], step.where(), "went_by"))
        went_by = sorted(NAMES[card] for card in passed_playable(step))
        if claimed_cards != went_by:
            raise step.error(f"claims the cards that went by playable are {' '.join(claimed_cards) or 'none'}, "
                             f"but along its moves the engine could have played {' '.join(went_by) or 'none'}")
        confirmed.append("went_by")
    if "rows" in c:
        claimed_rows = "".join(t.upper() for t in _tokens(c["rows"], step.where(), "rows"))
        rows = "".join(SUITS[s] for s in state.rows)
        if claimed_rows != rows:
            raise step.error(f"claims the rows are {' '.join(claimed_rows)}, but they are {' '.join(rows)}")
        confirmed.append("rows")
    if "start_rank" in c:
        start = RANKS[state.start_rank - 1]
        if c["start_rank"].upper() != start:
            raise step.error(f"claims the starting rank is {c['start_rank']}, but it is {start}")
        confirmed.append("start_rank")
    for key, count in (("score", state.score), ("pass", state.pass_no)):
        if key in c:
            if c[key] != count:
                raise step.error(f"claims {key} {c[key]}, but the engine has {count}")
            confirmed.append(key)
    for key, flag in (("blocked", state.blocked), ("can_redeal", state.can_redeal()),
                      ("progress", state.progress)):
        if key in c:
            if c[key] != flag:
                raise step.error(f"claims {key} = {str(c[key]).lower()}, but the engine says {str(flag).lower()}")
            confirmed.append(key)
    if "lost_from_start" in c or "cycle" in c:
        from ..search import lost_from_start

        explanation = lost_from_start(state)
        lost = explanation is not None
        if c.get("lost_from_start", True) != lost:
            raise step.error(f"claims lost_from_start = {str(c.get('lost_from_start', True)).lower()}, "
                             f"but the engine {'finds a cycle' if lost else 'finds no cycle of needs'}")
        if "cycle" in c:
            cycle: set[int] = set()
            parts = [explanation, *explanation.others] if explanation is not None else []
            for part in parts:
                cycle.update(part.cycle)
            missing = [t.upper() for t in _tokens(c["cycle"], step.where(), "cycle") if parse_card(t) not in cycle]
            if missing:
                found = " ".join(NAMES[x] for x in sorted(cycle)) if lost else "none"
                raise step.error(f"claims the cycle holds {' '.join(missing)}, but the engine's cycle is {found}")
        confirmed.append("lost_from_start")
    if "winnable" in c or "best_cards" in c:
        from ..search import Limit, solve

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
        if step.expect is None:  # parse_lesson refuses a question without one; a Step built by hand may not
            raise step.error("the step asks a question but has no 'expect' (the move it teaches)")
        verdict = verdict or verdict_for(step)
        expect = step.resolve(step.expect)
        if expect not in verdict.right:
            raise step.error(f"expects {expect} ({step.teaches}), but the {verdict.judge} judge rates "
                             f"{rating(state, verdict, expect)}; it accepts {moves_text(verdict.right)}")
        for token in step.wrong:
            parsed = parse_input(token)
            move = parsed if isinstance(parsed, Move) else _card_move(state, parsed)
            if move is not None and move in verdict.right:
                raise step.error(f"claims {token} is wrong, but the {verdict.judge} judge rates "
                                 f"{rating(state, verdict, move)}, within the margin of the best")
        if verdict.judge == "rules":
            _rules_answer_not_worse(step, verdict, expect)
        confirmed.append("expect")
    return confirmed


def _rules_answer_not_worse(step: Step, verdict: Verdict, expect: Move) -> None:
    """A rules question teaches what the rules allow, and tells a player whose move the rules judge does not
    accept "Not quite": so where the hint's best move is such a move, the move the question expects must not
    be really worse by the hint's own figures (the low end of the 95% interval of its paired drop in win
    chance above 0, or, where neither wins more, its cards' interval below the best's), or the lesson would
    teach against the tutor's own advice."""
    from ..hints import Candidate, hint
    from ..knowledge import observe

    advice = hint(observe(step.state), samples=DEFAULT_SAMPLES)
    if advice.best in verdict.right:
        return
    mine = next(c for c in advice.candidates if c.move == expect)
    top = next(c for c in advice.candidates if c.move == advice.best)
    if mine.drop is not None and mine.drop.lo > 0:  # exact: lo is the drop itself
        points, low, high = mine.drop.points()
        spread = "" if mine.drop.exact else f" (95%: {low:.1f}-{high:.1f})"
        worse = f"{points:.1f} points of win chance below {advice.best}{spread}"
    elif mine.cards_interval[1] < top.cards_interval[0] and (mine.drop is None or mine.drop.estimate >= 0):
        def cards(c: Candidate) -> str:
            low, high = c.cards_interval
            return f"{c.cards:.0f}" if c.exact else f"{c.cards:.0f} (95%: {low:.0f}-{high:.0f})"

        fewer = top.cards - mine.cards
        worse = (f"{fewer:.1f} card{'' if round(fewer, 1) == 1 else 's'} below {advice.best}: about {cards(mine)} "
                 f"against {cards(top)}")
    else:
        return
    deals = f"{mine.samples} deal{'' if mine.samples == 1 else 's'}"
    raise step.error(f"expects {expect} ({step.teaches}) from the rules, but the hint rates it {worse}, on {deals} "
                     "consistent with what the player has seen: a player who plays the better move would be told "
                     "'Not quite'; choose a position where the rules' answer is not the worse move")


def passed_playable(step: Step) -> set[int]:
    """The cards playable at some position along ``step.moves`` that the moves never played."""
    state = State.initial(step.deal, step.rules)
    seen: set[int] = set()
    played: set[int] = set()
    for move in step.moves:
        seen.update(card for m in state.legal_moves() if (card := state.card_of(m)) is not None)
        card = state.card_of(move)
        if card is not None:
            played.add(card)
        state = state.apply(move)
    return seen - played


def _card_move(state: State, card: int) -> Move | None:
    try:
        return state.move_for_card(card)
    except IllegalMoveError:
        return None


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
