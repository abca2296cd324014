"""The talon as the player knows it: the memory panel's values, and "turn until a card can be played".

:func:`memory` reads an :class:`~tutor.knowledge.Observation` only, so the
memory panel can never show a card the player has not seen: the talon in
turning order, the waste (turned this pass) and the stock cut into the
groups the next turns will show, each card either known or unseen, the
playable ones marked. Two deals that differ only in unseen cards give the
same :class:`Memory`.

:func:`turns_to_play` is the board's ``t``: the turns to play until the
waste shows a card that can be played. It stops before a redeal and before
a block, and never turns past a waste card that can be played.

:func:`waste_fan` is how many waste cards the table shows: the top and the
rest of the turn it came with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import IllegalMoveError
from .knowledge import Observation, move_for_card, observe
from .notation import TURN, WASTE, Move, parse_input
from .state import State


@dataclass(frozen=True, slots=True)
class Seen:
    """One talon card in the memory: ``card`` None when the player has not seen it yet.

    ``playable``: it could go to a foundation now. ``shows``: it is the card
    its turn leaves on top of the waste (the one that can be played then).
    """

    card: int | None
    playable: bool = False
    shows: bool = False


@dataclass(frozen=True, slots=True)
class Memory:
    """What the player has seen of the talon this pass, in turning order.

    ``waste``: the cards turned this pass and still on the waste, top last.
    ``turns``: the stock cut into the groups the coming turns will show,
    next turn first. ``pass_no`` and ``turn``: the pass and cards per turn.
    ``redeal_next``: the stock is empty, so ``d`` redeals (or the game is
    blocked). ``can_redeal``: that redeal is allowed (a card was played
    since the last one, and a pass is left).
    """

    waste: tuple[Seen, ...]
    turns: tuple[tuple[Seen, ...], ...]
    pass_no: int
    turn: int
    redeal_next: bool
    can_redeal: bool = False

    @property
    def seen(self) -> int:
        """Talon cards the player knows."""
        return sum(1 for s in self.waste + tuple(c for g in self.turns for c in g) if s.card is not None)

    @property
    def unseen(self) -> int:
        """Talon cards still face down and never seen."""
        return sum(1 for g in self.turns for s in g if s.card is None)

    def playable(self) -> tuple[int, ...]:
        """The known talon cards that could be played now, in turning order."""
        return tuple(s.card for s in self.waste + tuple(c for g in self.turns for c in g)
                     if s.card is not None and s.playable)


def memory(obs: Observation) -> Memory:
    """The memory panel's values from what the player has seen (never the hidden cards)."""
    view = obs.fill(obs.unseen_cards())  # legal facts only: the hidden cards of this view mean nothing

    def seen(card: int | None, shows: bool = False) -> Seen:
        if card is None:
            return Seen(None, False, shows)
        return Seen(card, view.destination(card) >= 0, shows)

    waste = tuple(seen(c, shows=(i == len(obs.waste) - 1)) for i, c in enumerate(obs.waste))
    turn = obs.rules.turn
    stock = obs.stock
    turns = tuple(tuple(seen(c, shows=(j == len(stock[i:i + turn]) - 1)) for j, c in enumerate(stock[i:i + turn]))
                  for i in range(0, len(stock), turn))
    passes = obs.rules.passes
    can_redeal = (not stock and bool(obs.waste) and obs.progress and (passes == 0 or obs.pass_no < passes))
    return Memory(waste, turns, obs.pass_no, turn, not stock, can_redeal)


# ---- t: turn until a card can be played -------------------------------------

@dataclass(frozen=True, slots=True)
class TurnRun:
    """What ``t`` does from a position: the turns to play, and why it stops there.

    ``why`` is one of ``playable`` (the waste shows a card that can be
    played), ``waste-playable`` (it already does: no turn, so as not to turn
    past it; ``waste-playable-redeal`` with the stock empty, ``waste-playable-only``
    when no turn is possible), ``redeal`` (the stock is empty: the next turn would be a
    redeal), ``ends`` (turning on ends the game for certain), ``last-turn``
    (the next turn empties the stock and no redeal can follow it),
    ``blocked`` (no turn is possible) or ``over``.
    """

    moves: tuple[Move, ...]
    why: str


#: What ``t`` says when it turns nothing, by :attr:`TurnRun.why` (the board and line mode alike).
TURN_STOPS = {
    "waste-playable": "The waste's top card can be played: w plays it, d turns past it.",
    "waste-playable-redeal": "The waste's top card can be played: w plays it, d redeals the waste.",
    "waste-playable-only": "The waste's top card can be played: w plays it (no turn or redeal is possible).",
    "redeal": "The stock is empty: d redeals the waste.",
    "ends": ("Turning on ends the game: none of the cards still to turn (you have seen them all) can come to be "
             "played before the stock runs out. d turns anyway."),
    "last-turn": ("The next turn empties the stock, and no redeal can follow it: if it shows no card that can "
                  "be played, the game ends. d takes it."),
    "blocked": "No turn is possible.",
    "over": "The game is over.",
}


def turns_to_play(state: State) -> TurnRun:
    """The turns ``t`` plays from ``state``: turn until the waste's top card can be played.

    It never turns past a waste card that can be played (it stops on it, and
    plays no turn at all when the top can be played already), and it stops
    before a redeal and before a turn that ends or may end the game, which the
    player chooses with ``d``: ``ends`` when turning on shows no card that can
    be played before the game ends (:func:`turn_ends_game`, from what the
    player has seen), ``last-turn`` before the turn that empties the stock
    when no redeal can follow it (nothing played since the redeal, or the last
    of a limited number of passes) and it turns up cards not seen yet. A reserve
    card that can be played does not stop it: turning leaves the reserve as it is.
    """
    if state.over:
        return TurnRun((), "over")
    legal = state.legal_moves()
    if WASTE in legal:
        if TURN not in legal:
            return TurnRun((), "waste-playable-only")
        return TurnRun((), "waste-playable" if state.pos < len(state.talon) else "waste-playable-redeal")
    moves: list[Move] = []
    while True:
        if state.pos >= len(state.talon):
            return TurnRun(tuple(moves), "redeal" if state.can_redeal() else "blocked")
        seen = observe(state)
        if turn_ends_game(seen):
            return TurnRun(tuple(moves), "ends")
        if (state.pos + state.rules.turn >= len(state.talon) and (not state.progress or last_pass(state))
                and None in seen.stock):  # with the stock all seen, the line above has decided it
            return TurnRun(tuple(moves), "last-turn")
        state = state.apply(TURN)
        moves.append(TURN)
        if WASTE in state.legal_moves():
            return TurnRun(tuple(moves), "playable")


def waste_fan(states: Sequence[State], moves: Sequence[Move]) -> int:
    """How many waste cards the player sees after ``moves`` (``states`` the positions along them).

    The top and the rest of the turn it came with: the cards turned by the
    last turn are ``talon[start:pos]`` where ``start`` is the talon pointer
    before that turn; plays from the waste since then only remove cards above
    ``start``. After a redeal nothing of an earlier turn lies on the waste.
    """
    state = states[-1]
    for i in range(len(moves) - 1, -1, -1):
        if moves[i].kind != "d":
            continue
        before = states[i]
        if before.pos == len(before.talon):
            return 1
        return max(1, state.pos - before.pos)
    return 1


def turning_blocks(obs: Observation) -> bool:
    """A turn now lets the pass end with no card played, so the game is blocked (the no-progress rule).

    True when no card has been played since the redeal, the player knows every card still to turn (from
    the second pass on), and turning on shows no card that can be played before the stock runs out: the
    reserve tops stay as they are while nothing is played, so their hidden cards do not matter and the
    answer depends only on what the player has seen.
    """
    return not obs.progress and _turning_shows_no_play(obs)


def last_pass(position: Observation | State) -> bool:
    """The game has limited passes and this is the last of them: no redeal follows this pass."""
    return bool(position.rules.passes) and position.pass_no >= position.rules.passes


def turning_runs_out(obs: Observation) -> bool:
    """On the last pass of a game with limited passes, turning on shows no card that can be played before the
    stock runs out, so the game ends then, whether or not a card was played in this pass (the passes are used).

    As for :func:`turning_blocks`, only what the player has seen decides it: every card still to turn is
    known from the second pass on, and the reserve tops stay as they are while nothing is played.
    """
    return last_pass(obs) and _turning_shows_no_play(obs)


def turn_ends_game(obs: Observation) -> bool:
    """Turning now ends the game for certain with no card played after it: the pass ends with no play
    (:func:`turning_blocks`), the last of a limited number of passes runs out (:func:`turning_runs_out`), or,
    the stock empty, the redeal shows none of the talon's cards (all seen in the pass that ends) that can be
    played, so the next pass ends with no play. Only what the player has seen decides it."""
    if obs.stock:
        return turning_blocks(obs) or turning_runs_out(obs)
    if TURN not in obs.legal_moves():
        return False
    # the redeal shows no card: any consistent deal gives the same position after it
    return turning_blocks(observe(obs.fill(obs.unseen_cards()).apply(TURN)))


def _turning_shows_no_play(obs: Observation) -> bool:
    """Every card still to turn is known, a turn is legal now, and turning on to the end of the stock shows no
    card that can be played (nor does the position now), so the game ends when the stock runs out."""
    if not obs.stock or any(c is None for c in obs.stock):
        return False
    state = obs.fill(obs.unseen_cards())  # any consistent deal: only the known stock and the tops decide
    if TURN not in state.legal_moves():
        return False
    state = state.apply(TURN)
    while True:
        legal = state.legal_moves()
        if any(m.is_play for m in legal):
            return False
        if TURN not in legal:
            return state.blocked
        state = state.apply(TURN)


def passes_used(passes: int) -> str:
    """``the one pass through the talon is used``, or ``all 3 passes through the talon are used``."""
    if passes == 1:
        return "the one pass through the talon is used"
    return f"all {passes} passes through the talon are used"


def why_illegal(state: State, move: Move) -> str:
    """Why ``move`` cannot be played in ``state`` (which must not allow it), in the rules' words.

    One change to them: a turn refused while a card can still be played is not a blocked game, so the player
    is told why (the passes are used, or no card was played in this one) and, for the second, what to play.
    """
    try:
        state.apply(move)
    except IllegalMoveError as exc:
        reason = str(exc)
    else:
        raise ValueError(f"{move} is legal here")
    moves = state.legal_moves()
    if move.kind != "d" or not state.talon or not moves:
        return reason
    if last_pass(state):
        return f"d is not possible: {passes_used(state.rules.passes)}"
    since = "since the last redeal" if state.pass_no > 1 else "in this first pass"
    return (f"d is not possible: no card was played {since}, and the talon is turned over again only after a "
            f"play: play {' or '.join(map(str, moves))} first")


def move_typed(state: State, word: str) -> Move:
    """The legal move a typed word means (a move like ``r2`` or a card like ``7h``); a :class:`MoveError` or
    :class:`IllegalMoveError` says why there is none. Line mode and the board's prompt read words alike."""
    target = parse_input(word, state.rules.reserve_piles)
    move = target if isinstance(target, Move) else move_for_card(state, target)
    if move not in state.legal_moves():
        raise IllegalMoveError(why_illegal(state, move))
    return move
