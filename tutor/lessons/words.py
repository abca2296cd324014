"""The sentences of a lesson's feedback, built from the judges' values.

Nothing here decides whether an answer is right (that is :mod:`.judge`);
it only says so. :func:`remembered_talon` is what a step that starts
mid-game shows of the talon the learner is supposed to have seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import NAMES
from ..notation import Move
from ..state import State

if TYPE_CHECKING:
    from .judge import Score, Verdict


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


def moves_text(moves) -> str:
    return " ".join(sorted(str(m) for m in moves)) or "nothing"


def rating(state: State, verdict: Verdict, move: Move) -> str:
    s = verdict.score_of(move)
    if s is None:
        return f"{move} as not legal"
    if verdict.judge == "rules":
        return f"{move} as {'playable' if s.win else 'not a card that can be played'}"
    return f"{describe_move(state, move)} at {fmt_score(verdict, s)}"


def fmt_score(verdict: Verdict, s: Score) -> str:
    if verdict.judge == "solver":
        if s.win >= 1:
            return "a win"
        return f"lost, at best {s.cards:.0f} cards" if verdict.cards_exact else "a lost game"
    return f"win {s.win * 100:.0f}%, {s.cards:.1f} cards"


def why_wrong(state: State, verdict: Verdict, move: Move) -> str:
    best = verdict.scores[0]
    mine = verdict.score_of(move)
    if verdict.judge == "rules":
        if move.is_play:  # pragma: no cover - every legal play is right for a rules question
            return f"{describe_move(state, move)} is legal too."
        cards = " ".join(NAMES[state.card_of(m)] for m in sorted(verdict.right, key=str))
        return f"Turning is allowed, but the question asks for a card, and {cards} can be played now."
    label = "the solver (every card is known)" if verdict.judge == "solver" else "the tutor (from the cards you have seen)"
    text = (f"By {label}: {describe_move(state, move)} gives {fmt_score(verdict, mine)}; "
            f"{describe_move(state, best.move)} gives {fmt_score(verdict, best)}.")
    if move in verdict.why:
        text += f" After {move}: {verdict.why[move]}"
    if verdict.reason:
        text += f" {verdict.reason}"
    return text
