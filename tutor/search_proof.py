"""The solver's second method: a proof that the front of the talon can never be cleared.

The depth-first search (:mod:`tutor.search_dfs`) proves a loss by visiting
every position, which is hopeless when many cards are free to be played in
many orders and a small knot of cards dooms them all. The typical knot sits
at the front of the talon: with turn 3, the first card only shows once the
two after it are played (nothing ever comes before it to shift the stops),
and if those need cards that need the first card, the front of the talon is
stuck however the rest of the game goes. Bridesmaids deal 483 under rows
S H D C: 7S (first) waits for KD and 3C, KD for KH; 7H (fourth) needs 7S,
and once 7S is gone nothing is left before 7H to bring it to a stop, so 7H
waits for the cards after it, among them 7C, which needs 7D, which needs
7H. The search sees that only when few cards are left, after millions of
positions; :func:`front_lost` sees it from the start.

**The front game.** Under a fixed row order, take the first ``k`` talon cards
``F`` (the front) and play a smaller game on them alone:

- the pointer ``p`` (0 to ``len(F)``) says how many front cards are in the
  waste; a turn moves it on by ``turn`` while it stays within the front;
- the pointer may jump to the end of the front (``expose``) or back to 0
  (``redeal``) at any time;
- the waste top ``F[p-1]`` may be played when its needs are met, the pointer
  then going back one;
- a card outside the front (later in the talon or in a reserve) counts as
  placed as soon as every front card it needs, directly or through other
  cards, is placed; nothing else about it matters.

**Why it is sound.** Every line of the real game (under that row order) maps
to a line of the front game that places the same front cards in the same
order, so if the front game cannot place every front card, the real game
cannot be won. The front cards come first in the talon and plays keep its
order, so the real waste pointer ``pos`` covers ``min(pos, len(F))`` front
cards. Map a real position to the front pointer ``pos`` while
``pos <= len(F)``, and to 0 once the pointer is past the front (its top is
not a front card; from 0 the front game can do all that is possible from
there: expose or redeal). Then each real move is a front move:

- a turn from ``pos`` with ``pos + turn <= len(F)`` lands on ``pos + turn``
  (the talon is at least as long as the front): a front turn;
- any other turn lands past the front (a front redeal to 0), or, when the
  front is all the talon has left, on its end (expose); a redeal is a redeal;
- playing a front card from the waste top: the same play, its needs met (a
  front card's needs are front cards, placed in both games, or outside
  cards, placed in the real game only once all their own needs are, front
  ones included);
- any other play (a reserve card, or a talon card past the front) changes
  nothing in the front game, except that digging down to the last front card
  makes it the waste top: expose.

The front game adds moves and drops conditions (the passes left, the
progress a redeal needs, the outside cards' own talon order), so it is a
relaxation, and a loss in it is a loss in the real game. It is small (at
most ``2^k * (k+1)`` positions), so it is searched exhaustively, for a few
front sizes in turn. tests/test_search_proof.py checks the argument against
a plain search of every atomic move, order by order, on small positions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .constraints import Needs, row_needs

if TYPE_CHECKING:
    from .state import State

FRONT_SIZES = (6, 9, 12, 15, 18, 21, 24)
"""Front sizes :func:`talon_front_lost` tries, smallest first (a larger front is a tighter argument)."""

FRONT_BUDGET = 100_000
"""Front-game positions :func:`talon_front_lost` may visit per row order, over all sizes."""


def _front_needs(needs: Needs, order: tuple[int, ...], ancestors: list[int], mask: int,
                 front: tuple[int, ...]) -> dict[int, int]:
    """Per front card, the front cards it needs placed (directly, or through an outside card not yet placed).

    ``ancestors``: :meth:`Needs.ancestors` of ``order``.
    """
    direct = row_needs(order, needs.start)
    inside = 0
    for c in front:
        inside |= 1 << c
    out: dict[int, int] = {}
    for c in front:
        want = direct[c] | needs.pile_need[c]
        acc = want & inside
        rest = want & ~inside & ~mask
        while rest:
            low = rest & -rest
            acc |= ancestors[low.bit_length() - 1] & inside
            rest ^= low
        out[c] = acc
    return out


def front_lost(needs: Needs, order: tuple[int, ...], mask: int, talon: tuple[int, ...], pos: int, turn: int,
               size: int, budget: int, ancestors: list[int] | None = None) -> tuple[bool | None, int]:
    """Whether the first ``size`` cards of ``talon`` can never all be placed under ``order``.

    ``mask``: the placed cards; ``pos``: the waste pointer (``talon[:pos]`` is the waste).
    Returns (True: lost, a proof; False: the front game places them all, nothing proved;
    None: ``budget`` front positions were not enough) and the front positions visited.
    ``ancestors``: :meth:`Needs.ancestors` of ``order``, if the caller has it.
    """
    front = talon[:size]
    need = _front_needs(needs, order, needs.ancestors(order) if ancestors is None else ancestors, mask, front)
    start = (front, pos if pos <= len(front) else 0)
    seen: set[tuple[tuple[int, ...], int]] = set()
    stack = [start]
    visited = 0
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        rest, p = node
        if not rest:
            return False, visited
        seen.add(node)
        visited += 1
        if visited > budget:
            return None, visited
        left = 0
        for c in rest:
            left |= 1 << c
        length = len(rest)
        if p:
            stack.append((rest, 0))
        if p != length:
            stack.append((rest, length))
        if p + turn <= length:
            stack.append((rest, p + turn))
        # Plays last, so they are tried first: a front game that can be won usually is at once.
        if p and not need[rest[p - 1]] & left:
            stack.append((rest[:p - 1] + rest[p:], p - 1))
    return True, visited


def talon_front_lost(state: State, needs: Needs, order: tuple[int, ...],
                     sizes: tuple[int, ...] = FRONT_SIZES, budget: int = FRONT_BUDGET) -> bool:
    """True if, for some front size, the front game under ``order`` proves ``state`` lost.

    False says nothing (the front games tried were won, or ran out of ``budget``).
    """
    talon = tuple(state.talon)
    mask = state.mask()
    turn = state.rules.turn
    ancestors = needs.ancestors(order)
    used = 0
    for size in sizes:
        if size > len(talon):
            size = len(talon)
        lost, visited = front_lost(needs, order, mask, talon, state.pos, turn, size, budget - used, ancestors)
        used += visited
        if lost:
            return True
        if lost is None or size == len(talon) or used >= budget:
            return False
    return False
