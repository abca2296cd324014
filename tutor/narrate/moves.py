"""The one move describer: every move the player reads about, in every form the tutor prints.

:func:`move_fact` turns a move in a position (a :class:`~tutor.state.State`
or the player's :class:`~tutor.knowledge.Observation`) into a
:class:`MoveFact` (what the move does, naming only the card it moves, which
is face up); the functions below spell that one fact in the forms the
hint, the review, the lessons, play and the board need. Rendering with
colour and suit symbols stays in :mod:`tutor.render`, which calls these.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from ..cards import NAMES, SUIT_NAMES, SYMBOLS
from ..notation import Move

if TYPE_CHECKING:
    from typing import TypeAlias

    from ..knowledge import Observation
    from ..state import State

    View: TypeAlias = State | Observation
    """A position as a move describer reads it: the full state, or what the player has seen."""

__all__ = ["MoveKind", "MoveFact", "move_fact", "card_word", "move_deed", "move_brief", "move_heading", "move_label",
           "move_phrase", "move_gerund", "move_long", "move_short", "move_past", "destination_phrase", "move_named"]


class MoveKind(Enum):
    RESERVE = "reserve"  # play the top card of a reserve pile
    WASTE = "waste"      # play the top card of the waste
    TURN = "turn"        # turn cards from the stock
    REDEAL = "redeal"    # turn the waste over for a new pass


@dataclass(frozen=True, slots=True)
class MoveFact:
    """A move as a fact: its notation, what it does, the card it plays and the pile it comes from."""

    notation: str
    kind: MoveKind
    card: int | None = None
    pile: int | None = None  # 0-based reserve pile


def _talon_left(view: View) -> int:
    """Cards still in the stock (an Observation knows their number, a State their order)."""
    return len(view.stock)


def move_fact(view: View, move: Move) -> MoveFact:
    """The fact a move is, in ``view`` (a State or an Observation) before it is played."""
    if move.kind == "d":
        return MoveFact(str(move), MoveKind.TURN if _talon_left(view) else MoveKind.REDEAL)
    card = view.card_of(move)
    if move.kind == "r":
        return MoveFact(str(move), MoveKind.RESERVE, card, move.pile)
    return MoveFact(str(move), MoveKind.WASTE, card)


def card_word(card: int | None, symbols: bool = False) -> str:
    """A card's one spelling: ``7H`` (``7♥`` with symbols), ``?`` for none."""
    if card is None:
        return "?"
    return SYMBOLS[card] if symbols else NAMES[card]


_DEEDS = {MoveKind.TURN: "turn", MoveKind.REDEAL: "redeal"}


def move_deed(fact: MoveFact, symbols: bool = False) -> str:
    """What a move does in one word, after its notation in a list: the card it plays, else turn or redeal."""
    deed = _DEEDS.get(fact.kind)
    return deed if deed is not None else card_word(fact.card, symbols)


def move_brief(view: View, move: Move, symbols: bool = False) -> str:
    """The move list's form, as the player types the move and what it does: ``r2 7H``, ``d turn``, ``d redeal``."""
    f = move_fact(view, move)
    return f"{f.notation} {move_deed(f, symbols)}"


def move_heading(number: int, view: View, move: Move, symbols: bool = False) -> str:
    """The line after move ``number`` is played from ``view``, in play and replay: ``Move 5: r2 7H``."""
    return f"Move {number}: {move_brief(view, move, symbols)}"


def move_label(view: View, move: Move, symbols: bool = False) -> str:
    """For sentences that quote the notation: ``r2 (7H)``, ``d (turn the talon)``, ``d (redeal the waste)``."""
    f = move_fact(view, move)
    if f.card is not None:
        return f"{f.notation} ({card_word(f.card, symbols)})"
    return f"{f.notation} (turn the talon)" if f.kind is MoveKind.TURN else f"{f.notation} (redeal the waste)"


def move_short(view: View, move: Move, symbols: bool = False) -> str:
    """The review's and the move list's form: ``r2 (7H)``, ``d (turn)``, ``d (redeal)``."""
    f = move_fact(view, move)
    return f"{f.notation} ({card_word(f.card, symbols)})" if f.card is not None else f"{f.notation} ({_DEEDS[f.kind]})"


def move_phrase(view: View, move: Move, capital: bool = True) -> str:
    """A move as a verb phrase: "play 7H from pile 2", "play 4S from the waste", "turn the talon"."""
    f = move_fact(view, move)
    if f.kind is MoveKind.RESERVE:
        text = f"play {card_word(f.card)} from pile {(f.pile or 0) + 1}"
    elif f.kind is MoveKind.WASTE:
        text = f"play {card_word(f.card)} from the waste"
    elif f.kind is MoveKind.TURN:
        text = "turn the talon"
    else:
        text = "turn the waste over for a new pass"
    return text[0].upper() + text[1:] if capital else text


def move_gerund(view: View, move: Move) -> str:
    """A move as the subject of a sentence: "playing 7H from pile 2", "turning the talon"."""
    text = move_phrase(view, move, False)
    verb, _, rest = text.partition(" ")
    return {"play": "playing", "turn": "turning"}[verb] + " " + rest


def move_long(view: View, move: Move) -> str:
    """The lessons' form: ``r3 (play 7H from reserve pile 3)``, ``d (turn the waste over: a redeal)``."""
    f = move_fact(view, move)
    if f.kind is MoveKind.TURN:
        return f"{f.notation} (turn the talon)"
    if f.kind is MoveKind.REDEAL:
        return f"{f.notation} (turn the waste over: a redeal)"
    where = f"reserve pile {(f.pile or 0) + 1}" if f.kind is MoveKind.RESERVE else "the waste"
    return f"{f.notation} (play {card_word(f.card)} from {where})"


def move_past(view: View, move: Move) -> str:
    """A move just played, from the position before it: ``r2 played 7H``, ``d turned the talon``."""
    f = move_fact(view, move)
    if f.card is not None:
        return f"{f.notation} played {card_word(f.card)}"
    return f"{f.notation} turned the talon" if f.kind is MoveKind.TURN else f"{f.notation} redealt the waste"


def destination_phrase(view: View, card: int) -> str:
    """Where a card goes: "to row 1 (spades)" or "to open row 2 for hearts"."""
    row = view.destination(card)
    suit = SUIT_NAMES[card // 13]
    if row >= len(view.rows):
        return f"to open row {row + 1} for {suit}"
    return f"to row {row + 1} ({suit})"


def move_named(view: View, move: Move) -> str:
    """A move as a comment names another move: ``r2 (7H)``, ``d (turning the talon)``."""
    return move_short(view, move) if view.card_of(move) is not None else f"{move} ({move_gerund(view, move)})"
