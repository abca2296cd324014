"""Moves whose value is known for certain, before any sampling: the hint's "known structure".

Each rule here holds in every deal consistent with an
:class:`~tutor.knowledge.Observation`, so a hint (and the review, and the
tutor as a player) may take or reject such a move whatever the samples say:

- a reserve card that opens no row only adds options (spec section 5), and
  so does a waste card that opens no row with one card turned at a time, or
  on the last of limited passes, where no redeal follows for the talon's
  groups to shift in (:func:`is_safe`);
- with unlimited passes, once a card was played since the last redeal and the
  waste is in step with the talon's groups (its length a multiple of the turn,
  or the stock empty), turning keeps every option: the player can come back to
  exactly this point next pass (the solver's dominance rule says the same;
  :func:`turn_keeps_value`);
- a turn after which no card can be played before the game ends loses in
  every consistent deal, and so does a play that turns up no hidden card and
  leaves no card to play before the game ends; when every reserve card is
  known (Peek), so does a row opened in an order whose "must come before"
  constraints have a cycle (:func:`lost_for_certain`).

:func:`preference` orders the moves the samples cannot tell apart. Values
only: the words for these facts are in :mod:`tutor.narrate`.
"""

from __future__ import annotations

from .constraints import FULL, Needs, row_orders
from .knowledge import Observation, observe
from .notation import TURN, Move
from .talon import last_pass, turn_ends_game


def opens_row(obs: Observation, move: Move) -> int | None:
    """The row (1-4) that ``move`` would open, or None."""
    card = obs.card_of(move)
    if card is None:
        return None
    row = obs.destination(card)
    return row + 1 if row >= len(obs.rows) else None


def is_safe(obs: Observation, move: Move) -> bool:
    """A play that only adds options: a reserve card opening no row; a waste card too with turn 1, or on the
    last of limited passes.

    A waste play leaves the stock as it is, so within a pass it shifts no group of the talon; the groups
    shift only for the passes after a redeal, and after the last pass none follows. Any line from here is
    still open after it, with the card already in place (a placed card never stops a play).
    """
    if move.kind == "r" or (move.kind == "w" and (obs.rules.turn == 1 or last_pass(obs))):
        card = obs.card_of(move)
        return card is not None and 0 <= obs.destination(card) < len(obs.rows)
    return False


def turn_keeps_value(obs: Observation) -> bool:
    """Turning loses nothing in any deal: unlimited passes, a card played since the
    redeal, and the waste in step with the groups turned from the start of a pass.

    From such a position the player can turn to the end, redeal (a card was
    played) and turn back to exactly this point with nothing changed, so every
    line from here is still open after the turn.
    """
    if obs.rules.passes or not obs.progress or not obs.talon_size:
        return False
    return obs.pos % obs.rules.turn == 0 or obs.pos == obs.talon_size


def certain_moves(obs: Observation, moves: list[Move]) -> list[Move]:
    """The moves that keep the position's value in every consistent deal, most useful first.

    Safe reserve plays first (they also turn up a hidden card), then safe
    waste plays, then a turn that keeps every option.
    """
    out = [m for m in moves if m.kind == "r" and is_safe(obs, m)]
    out += [m for m in moves if m.kind == "w" and is_safe(obs, m)]
    if TURN in moves and turn_keeps_value(obs):
        out.append(TURN)
    return out


def play_ends_game(obs: Observation, move: Move) -> bool:
    """The play turns up no hidden card and the game then ends for certain without a win: no card can be
    played after it, and turning is not allowed or ends the game (:func:`tutor.talon.turn_ends_game`).

    A waste play, or a reserve play whose pile shows the card below (or has none), leaves a position every
    consistent deal shows alike, so any one of them decides it.
    """
    if move.kind == "r":
        pile = obs.reserves[move.pile]
        if len(pile) > 1 and pile[-2] is None:
            return False
    elif move.kind != "w":
        return False
    after = observe(obs.fill(obs.unseen_cards()).apply(move))
    if after.cards == 52:
        return False
    legal = after.legal_moves()
    if any(m.is_play for m in legal):
        return False
    return TURN not in legal or turn_ends_game(after)


def lost_for_certain(obs: Observation, move: Move) -> bool:
    """The move loses in every consistent deal: a turn after which the game ends with no card played
    (:func:`tutor.talon.turn_ends_game`), a play after which it ends (:func:`play_ends_game`), or a play
    that opens a row in an order no consistent deal can win (whole reserve known).

    Only the reserve piles give "must come before" constraints that can form a
    cycle, so when every reserve card is known the check holds in every
    consistent deal.
    """
    if move == TURN:
        return turn_ends_game(obs)
    if play_ends_game(obs, move):
        return True
    if any(c is None for p in obs.reserves for c in p):
        return False
    row = opens_row(obs, move)
    if row is None:
        return False
    card = obs.card_of(move)
    assert card is not None  # a move that opens a row plays a card
    rows = obs.rows + (card // 13,)
    found = list(obs.found)
    found[card // 13] |= 1 << (card % 13)
    mask = found[0] | found[1] << 13 | found[2] << 26 | found[3] << 39
    # Every reserve card is known (checked above): the ``is not None`` only says so to the type checker.
    reserves = tuple(tuple(c for c in p if c is not None and c != card) for p in obs.reserves)
    needs = Needs(reserves, obs.base % 13)
    return not any(needs.reachable(mask, o) == FULL for o in row_orders(rows))


def preference(obs: Observation, move: Move, certain: list[Move]) -> int:
    """Order among moves the samples cannot tell apart: the one that reveals most and commits least.

    The samples are solved with every card known, so they give information no
    value and cannot see a commitment's risk. On a tie: certain moves; a
    reserve play that turns up a face-down card; a turn (it keeps the talon as
    it is, and in the first pass shows new cards); a waste play (with three
    cards turned at a time it shifts the talon's groups for good); a play that
    opens a row last.
    """
    if move in certain:
        return certain.index(move)
    if opens_row(obs, move) is not None:
        return 30
    if move.kind == "r":
        pile = obs.reserves[move.pile]
        return 10 if len(pile) > 1 and pile[-2] is None else 12
    if move.kind == "d":
        return 11
    return 13
