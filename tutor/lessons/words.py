"""The sentences of a lesson's feedback, built from the judges' values.

Nothing here decides whether an answer is right (that is :mod:`.judge`);
it only says so. :func:`remembered_talon` is what a step that starts
mid-game shows of the talon the learner is supposed to have seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..cards import NAMES
from ..narrate.hint import cards_decimals, cards_ends, exact_cards
from ..narrate.moves import move_long
from ..notation import Move
from ..state import State
from ..talon import Memory, Seen

if TYPE_CHECKING:
    from .format import Step
    from .judge import Feedback, Score, Verdict


def describe_move(state: State, move: Move) -> str:
    """A move in words: ``r3 (play 7H from reserve pile 3)`` (:func:`tutor.narrate.move_long`)."""
    return move_long(state, move)


def moves_text(moves: Iterable[Move]) -> str:

    return " ".join(sorted(str(m) for m in moves)) or "nothing"


def rating(state: State, verdict: Verdict, move: Move) -> str:
    s = verdict.score_of(move)
    if s is None:
        return f"{move} as not legal"
    if verdict.judge == "rules":
        return f"{move} as {'playable' if s.win else 'not a card that can be played'}"
    return f"{describe_move(state, move)} at {fmt_score(verdict, s)}"


def fmt_score(verdict: Verdict, s: Score) -> str:
    """A move's score in words: the solver's exact result, or the hint's sampled figures each with what it
    rests on (:func:`win_text` and :func:`cards_text`)."""
    if verdict.judge == "solver":
        if s.win >= 1:
            return "a win"
        return f"lost, at best {s.cards:.0f} cards" if verdict.cards_exact else "a lost game"
    return f"{win_text(s)} and {cards_text(s)}"


def _deals(n: int) -> str:
    return f"{n} deal{'s' if n != 1 else ''}"


def win_text(s: Score) -> str:
    """A hint score's win chance as ``osmosis hint`` and the drill say it: ``win 56% (95%: 48-65%, 128
    deals)``, ``win 56% (exact)``, ``win 0% (in every consistent deal)`` where the win is known in each of
    them (:func:`tutor.narrate.hint.win_figure`); ``win 56% (sampled)`` for a score that kept no interval."""
    pct = f"{s.win * 100:.0f}%"
    if s.exact:
        return f"win {pct} (exact)"
    if s.interval is None:
        return f"win {pct} (sampled)"
    lo, hi = s.interval
    if lo == hi or s.lost:
        return f"win {pct} (in every consistent deal)"
    return f"win {pct} (95%: {lo * 100:.0f}-{hi * 100:.0f}%, {_deals(s.samples)})"


def score_cells(s: Score) -> tuple[str, str, str, str, str]:
    """A hint score as the cells of a table: win, its 95% interval (``exact``, ``certain`` where the win is
    known in every consistent deal, ``sampled`` where none was kept), cards, their interval, and deals."""
    if s.exact:
        win_lo_hi = cards_lo_hi = "exact"
    else:
        win_lo_hi = cards_lo_hi = "sampled"
        if s.interval is not None:
            lo, hi = s.interval
            win_lo_hi = "certain" if lo == hi or s.lost else f"{lo * 100:.0f}-{hi * 100:.0f}%"
        if s.cards_interval is not None:
            lo, hi = s.cards_interval
            cards_lo_hi = "same" if round(lo, 6) == round(hi, 6) else cards_ends(lo, hi)
    return f"{s.win * 100:.0f}%", win_lo_hi, f"{s.cards:.1f}", cards_lo_hi, str(s.samples) if s.samples else ""


def cards_text(s: Score) -> str:
    """A hint score's expected cards with what they rest on: ``about 47 cards (95%: 45-49, 128 deals)``,
    ``47 cards (exact)``, ``13 cards (in each of the 32 deals)`` (:func:`tutor.narrate.hint.cards_figure`);
    a decimal where the rounded ends would be one number."""
    if s.exact:
        return f"{exact_cards(s.cards)} cards (exact)"
    if s.cards_interval is None:
        return f"about {s.cards:.0f} cards (sampled)"
    lo, hi = s.cards_interval
    if s.samples > 1 and round(lo, 6) == round(hi, 6):
        return f"{s.cards:.0f} cards (in each of the {s.samples} deals)"
    return f"about {s.cards:.{cards_decimals(lo, hi)}f} cards (95%: {cards_ends(lo, hi)}, {_deals(s.samples)})"


def feedback_lines(step: Step, verdict: Verdict, move: Move | None, right: bool, refusal: str) -> tuple[str, ...]:
    """The verdict on an answer in sentences: right or not, what the step teaches, why, the tip, the explanation."""
    lines = [f"{'Right' if right else 'Not quite'}: {step.teaches}"]
    if refusal:
        lines.append(refusal)
    if not right:
        if move is not None:
            lines.append(why_wrong(step.state, verdict, move))
        if step.tip:
            lines.append(f"Tip: {step.tip}")
    if step.explain:
        lines.append(step.explain)
    return tuple(lines)


def second_try_lines(feedback: Feedback) -> tuple[str, ...]:
    """What a first wrong answer gets instead of the verdict: the reason it is no move, the hint, a second try."""
    lines = ["Not quite. Try once more."]
    if feedback.refusal:
        lines.append(feedback.refusal)
    if feedback.step.hint:
        lines.append(f"Hint: {feedback.step.hint}")
    return tuple(lines)


def why_wrong(state: State, verdict: Verdict, move: Move) -> str:
    best = verdict.scores[0]
    mine = verdict.score_of(move)
    if verdict.judge == "rules":
        if move.is_play:  # pragma: no cover - every legal play is right for a rules question
            return f"{describe_move(state, move)} is legal too."
        cards = " ".join(NAMES[card] for m in sorted(verdict.right, key=str) if (card := state.card_of(m)) is not None)
        return f"Turning is allowed, but the question asks for a card, and {cards} can be played now."
    label = "the solver (every card is known)" if verdict.judge == "solver" else "the tutor (from the cards you have seen)"
    # Every judge scores every legal move, and the answer judged is legal.
    mine_text = fmt_score(verdict, mine) if mine is not None else "no score"
    text = (f"By {label}: {describe_move(state, move)} gives {mine_text}; "
            f"{describe_move(state, best.move)} gives {fmt_score(verdict, best)}.")
    if move in verdict.why:
        text += f" After {move}: {verdict.why[move]}"
    if verdict.reason:
        text += f" {verdict.reason}"
    return text


def remembered_talon(mem: Memory, fan: int) -> str | None:
    """What the learner has seen of the talon that the board does not show, in turning order; None if nothing.

    A step that starts mid-game has a past: the waste below the cards the
    board fans out, and in a later pass the stock, which the learner saw in
    earlier passes. ``mem`` is the memory panel's values
    (:func:`tutor.talon.memory` of an observation), so no hidden card can
    reach this sentence; ``fan`` is how many waste cards the board shows.
    """
    known_stock = any(s.card is not None for group in mem.turns for s in group)
    if len(mem.waste) <= fan and not known_stock:
        return None

    def name(seen: Seen) -> str:
        return NAMES[seen.card] if seen.card is not None else "?"

    waste = " ".join(name(s) for s in mem.waste) + " (top)"
    if not mem.turns:
        return f"You have seen the whole talon in this order: on the waste from the bottom {waste}; the stock is empty."
    if not known_stock:
        return (f"You have seen the waste in this order, from the bottom: {waste}; "
                f"the {mem.unseen} card{'s' if mem.unseen != 1 else ''} in the stock you have not seen yet.")
    parts = [f"on the waste from the bottom {waste}"] if mem.waste else []
    if mem.turns:
        step = "a card at a time" if mem.turn == 1 else f"a turn of {mem.turn} at a time"
        groups = ", ".join(" ".join(name(s) for s in group) for group in mem.turns)
        parts.append(f"{'then ' if parts else ''}in the stock, {step}: {groups}")
    whole = "the whole talon" if mem.unseen == 0 else "the talon"
    return f"You have seen {whole} in this order: " + ", ".join(parts) + "."
