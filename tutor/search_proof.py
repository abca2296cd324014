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

The talon cards after the front need the pointer to leave the front before
they can be placed, and that matters just as much. Bridesmaids 19602 under
rows H C S D starts 6H 3S 3H 6S: 3H shows at once, and playing it brings 3S
to the top, but 3S needs 3C (far down the talon, and needing 3H), so 3S
must wait until 6S is played to show again; 6S needs 6C, which needs 6H,
which shows only once 3S is played. A front of six cards proves it, where a
front game that counted 3C placed the moment 3H was would need all 51.

**The front game.** Under a fixed row order, take the first ``k`` talon cards
``F`` (the front) and play a smaller game on them alone:

- the pointer ``p`` (0 to ``len(F)``) says how many front cards are in the
  waste; a turn moves it on by ``turn`` while it stays within the front;
- the pointer may jump to the end of the front (``expose``) or back to 0
  (``redeal``) at any time;
- the waste top ``F[p-1]`` may be played when its needs are met, the pointer
  then going back one;
- a card outside the front that a front card needs (directly or through
  other outside cards) is placed once its own needs are: a reserve card at
  any time, a talon card only while the pointer is at 0, which stands for
  "past the front" (to reach a card after the front the real pointer must
  leave it). Such cards are placed as soon as they can be (placing one only
  adds options); the other outside cards do not matter.

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
- playing a front card from the waste top: the same play, its needs met
  (its needs are front cards, placed in both games, or outside cards, each
  placed in the front game no later than in the real one, by induction);
- playing a reserve card: its needs are met in the real game, so in the
  front game it is already placed;
- playing a talon card past the front: the real pointer was past the front
  (front pointer 0), where the front game places every outside card whose
  needs are met, this one included; afterwards the pointer is past the front
  still (0), or on the last front card if the card came right after it:
  expose. Digging down to the last front card is expose too.

The front game adds moves and drops conditions (the passes left, the
progress a redeal needs, the outside cards' own talon order), so it is a
relaxation, and a loss in it is a loss in the real game. It is small (the
``2^k * (k+1)`` front positions, times the sets of outside cards placed,
which only grow), so it is searched exhaustively, for a few front sizes in
turn, within a budget of positions. tests/test_search_proof.py checks the
argument against a plain search of every atomic move, order by order, on
small positions.

**Where it is used.** :func:`tutor.search.solve` tries it once per row order
the search finds hard (:func:`talon_front_lost`, fronts of 6 to 24 cards).
Where the talon is all there is (no reserve card left), the depth-first
search also plays it at every new position of its win search, on fronts of
:data:`DEEP_SIZES` cards (:mod:`tutor.search_dfs`): a position whose front is
stuck is cut with everything below it, and the front positions visited count
as positions of the search. That settled the last Bridesmaids deals of
1-100,000 the search left undecided: ten proved lost, and 41804, which
2,000,000 positions had not decided, won in under 10,000.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .constraints import Needs, row_needs

if TYPE_CHECKING:
    from .state import State

FRONT_SIZES = (6, 9, 12, 15, 18, 21, 24)
"""Front sizes :func:`talon_front_lost` tries, smallest first (a larger front is a tighter argument)."""

DEEP_SIZES = (6, 9, 12)
"""Front sizes the depth-first search tries at each new position (:mod:`tutor.search_dfs`)."""

DEEP_BUDGET = 2_000
"""Front-game positions per front size at each new position of the depth-first search."""

FRONT_BUDGET = 100_000
"""Front-game positions :func:`talon_front_lost` may visit per row order, over all sizes."""


def _bits(cards: tuple[int, ...]) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def _split_needs(needs: Needs, order: tuple[int, ...], mask: int, front: tuple[int, ...],
                 later: int) -> tuple[dict[int, tuple[int, int]], list[tuple[int, int, int, bool]]]:
    """The needs of the front game: per front card, (front cards, outside cards) it needs directly;
    and the outside cards that matter (those front cards need, directly or through other outside
    cards), each as (bit, front needs, outside needs, whether it lies in the talon after the front).

    ``later``: the mask of the talon cards after the front; every other unplaced card outside the
    front is a reserve card.
    """
    direct = row_needs(order, needs.start)
    pile_need = needs.pile_need
    inside = _bits(front)
    front_need: dict[int, tuple[int, int]] = {}
    relevant = 0
    stack: list[int] = []
    for c in front:
        want = (direct[c] | pile_need[c]) & ~mask
        front_need[c] = (want & inside, want & ~inside)
        stack.append(want & ~inside)
    outside: list[tuple[int, int, int, bool]] = []
    while stack:
        rest = stack.pop() & ~relevant
        while rest:
            low = rest & -rest
            rest ^= low
            if relevant & low:
                continue
            relevant |= low
            o = low.bit_length() - 1
            want = (direct[o] | pile_need[o]) & ~mask
            outside.append((low, want & inside, want & ~inside, bool(later & low)))
            stack.append(want & ~inside)
    return front_need, outside


def front_lost(needs: Needs, order: tuple[int, ...], mask: int, talon: tuple[int, ...], pos: int, turn: int,
               size: int, budget: int) -> tuple[bool | None, int]:
    """Whether the first ``size`` cards of ``talon`` can never all be placed under ``order``.

    ``mask``: the placed cards; ``pos``: the waste pointer (``talon[:pos]`` is the waste).
    Returns (True: lost, a proof; False: the front game places them all, nothing proved;
    None: ``budget`` front positions were not enough) and the front positions visited.
    """
    front = talon[:size]
    front_need, outside = _split_needs(needs, order, mask, front, _bits(talon[size:]))

    closed: dict[tuple[int, bool, int], int] = {}

    def close(left: int, p: int, have: int) -> int:
        # Every outside card that can be placed here is (placing one only adds options); a talon
        # card after the front only while the pointer is past the front (p == 0). The same
        # (front cards left, pointer past the front or not, outside cards placed) comes up again
        # and again, so each answer is kept.
        key = (left, p > 0, have)
        found = closed.get(key)
        if found is not None:
            return found
        grew = True
        while grew:
            grew = False
            for bit, nf, no, later in outside:
                if have & bit or (later and p) or nf & left or no & ~have:
                    continue
                have |= bit
                grew = True
        closed[key] = have
        return have

    # A node is (the front cards left, in talon order, as a tuple and as a bit set; the pointer; the outside
    # cards placed); the bit set alone names the cards left (their order is the front's), so it is the key.
    p0 = pos if pos <= len(front) else 0
    everything = _bits(front)
    start = (front, everything, p0, close(everything, p0, 0))
    seen: set[tuple[int, int, int]] = set()
    stack = [start]
    visited = 0
    while stack:
        rest, left, p, have = stack.pop()
        key = (left, p, have)
        if key in seen:
            continue
        if not rest:
            return False, visited
        seen.add(key)
        visited += 1
        if visited > budget:
            return None, visited
        length = len(rest)
        if p:
            stack.append((rest, left, 0, close(left, 0, have) if outside else have))
        if p != length:
            stack.append((rest, left, length, have))
        if p + turn <= length:
            stack.append((rest, left, p + turn, have))
        # Plays last, so they are tried first: a front game that can be won usually is at once.
        if p:
            card = rest[p - 1]
            nf, no = front_need[card]
            if not nf & left and not no & ~have:
                left2 = left & ~(1 << card)
                stack.append((rest[:p - 1] + rest[p:], left2, p - 1, close(left2, p - 1, have) if outside else have))
    return True, visited


def talon_front_lost(state: State, needs: Needs, order: tuple[int, ...],
                     sizes: tuple[int, ...] = FRONT_SIZES, budget: int = FRONT_BUDGET) -> bool:
    """True if, for some front size, the front game under ``order`` proves ``state`` lost.

    False says nothing (the front games tried were won, or ran out of ``budget``).
    """
    talon = tuple(state.talon)
    mask = state.mask()
    turn = state.rules.turn
    used = 0
    for size in sizes:
        if size > len(talon):
            size = len(talon)
        lost, visited = front_lost(needs, order, mask, talon, state.pos, turn, size, budget - used)
        used += visited
        if lost:
            return True
        if lost is None or size == len(talon) or used >= budget:
            return False
    return False
