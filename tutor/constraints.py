"""The "must come before" constraints between cards, and lost-from-start deals.

Once the order of the foundation rows is fixed (suits ``s1..s4``, ``s1`` the
base card's suit), a card can only be played after

- the card lying directly above it in its reserve pile (and so every card
  above it),
- the card of the same rank in every row above its own (the osmosis filter),
- its own row's starting card (a lower row is opened by that card).

These needs form a directed graph on the cards still to be placed. If it has
a cycle, no card of the cycle can ever be played under that row order. If
every row order that is still possible (the rows already opened are fixed)
has a cycle, the position is lost whatever the player does: the tutor says
so, naming the cards of a cycle.

The talon's order adds needs of its own when turning three cards at a time
(a card shows only at a stop of a turn, or once the cards above it are
played): :meth:`Needs.talon_reachable` bounds the cards that can still be
placed with them.

Two forms: the fast bit-mask form for the search's hot loop lives here
(:class:`Needs`); the networkx graph for explanations is :mod:`tutor.cycles`
(:func:`constraint_graph`, :class:`Explanation`), re-exported here.
:func:`lost_from_start` joins them: the bit masks decide, the graph explains.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import permutations
from typing import TYPE_CHECKING

from .cycles import Explanation, ExplanationJSON, constraint_graph, explain_lost, shortest_cycle

if TYPE_CHECKING:
    from .state import State

__all__ = ["FULL", "CardNeed", "row_orders", "row_needs", "Needs", "lost_from_start",
           "constraint_graph", "shortest_cycle", "Explanation", "ExplanationJSON"]

FULL = (1 << 52) - 1


CardNeed = tuple[int, int, int]
"""(card, its bit, the mask of the cards it needs) in :meth:`Needs._table`."""


def row_orders(rows: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every full row order (four suits) that starts with the rows already opened."""
    rest = [s for s in range(4) if s not in rows]
    return [tuple(rows) + p for p in permutations(rest)]


@cache
def row_needs(order: tuple[int, ...], start: int) -> tuple[int, ...]:
    """Per card, the bit mask of the cards it needs because of its row (for a full order).

    ``start`` is the starting rank, 0-based. A card in row ``k`` needs the same
    rank in row ``k-1`` (which in turn needs row ``k-2``, and so on) and its
    row's starting card.
    """
    needs = [0] * 52
    for k, suit in enumerate(order):
        if k == 0:
            continue
        above = order[k - 1]
        for r in range(13):
            bits = 1 << (above * 13 + r)
            if r != start:
                bits |= 1 << (suit * 13 + start)
            needs[suit * 13 + r] = bits
    return tuple(needs)


class Needs:
    """The constraints of one position in bit-mask form, for the search.

    Built once per search from the reserve piles; :meth:`reachable` then gives,
    for a set of placed cards and a full row order, every card that could
    still be placed if the talon never got in the way.
    """

    __slots__ = ("pile_need", "start", "_tables", "_need_lists", "_needed_by")

    def __init__(self, reserves: Iterable[Sequence[int]], start: int) -> None:
        pile_need = [0] * 52
        for pile in reserves:
            for i in range(len(pile) - 1):
                pile_need[pile[i]] = 1 << pile[i + 1]
        self.pile_need = pile_need
        self.start = start
        # Per full row order, built on first use.
        self._tables: dict[tuple[int, ...], tuple[CardNeed, ...]] = {}
        self._need_lists: dict[tuple[int, ...], list[int]] = {}
        self._needed_by: dict[tuple[int, ...], list[int]] = {}

    def _table(self, order: tuple[int, ...]) -> tuple[CardNeed, ...]:
        table = self._tables.get(order)
        if table is None:
            rn = row_needs(order, self.start)
            pn = self.pile_need
            # Cards in row order, top row first, so that one sweep settles most of them.
            table = tuple((c, 1 << c, rn[c] | pn[c]) for s in order for c in range(s * 13, s * 13 + 13))
            self._tables[order] = table
        return table

    def reachable(self, mask: int, order: tuple[int, ...], extra: dict[int, int] | None = None) -> int:
        """The placed cards plus every card whose needs can all be met, as a mask.

        ``extra``: {card: mask} adds needs to some cards for this call (the
        search adds what the talon's order imposes).
        """
        table = self._table(order)
        have = mask
        todo = [t for t in table if not mask & t[1]]
        if extra:
            todo = [(c, b, n | extra[c]) if c in extra else (c, b, n) for c, b, n in todo]
        while todo:
            rest = []
            for t in todo:
                if t[2] & ~have:
                    rest.append(t)
                else:
                    have |= t[1]
            if len(rest) == len(todo):
                break
            todo = rest
        return have

    def talon_reachable(self, mask: int, order: tuple[int, ...], talon: tuple[int, ...], pos: int,
                        turn: int) -> int:
        """Like :meth:`reachable`, with what the talon's order imposes when turning ``turn`` cards.

        ``talon``: the cards not yet played in turning order, ``talon[:pos]`` the waste.

        Why it is sound (the result holds every card any line of play can place). Take a talon
        card ``x`` at index ``j`` now, ``A`` the cards after it in the talon (in order) and ``B``
        the ``j`` cards before it. Cards never enter the talon and plays keep its order, so ``A``
        and ``B`` only lose cards. ``x`` is played from the waste top, so just before, the waste
        pointer sits right after ``x``. Within one pass the cards ahead of the pointer never
        change, so the turns stop right after every ``turn``-th card counted from where the pass
        began, and after the last card; any other position is reached only by playing the card
        just below the pointer. Hence ``x`` is played in a pass in which the ``m`` cards after
        ``x`` up to the next stop (or all cards after it, if fewer) are played before ``x``:

        - in the pass now under way: ``m = pos-1-j`` if ``x`` is in the waste (dig down to it),
          else ``m = (turn-1) - (j-pos) % turn``;
        - in a later pass (it starts at the talon's first card), with ``d`` cards of ``B``
          placed before that pass began: ``m = (turn-1) - (j-d) % turn``, and ``d`` is at most
          the number of ``B`` cards placed before ``x``.

        The first ``m`` cards after ``x`` at the start of that pass are a prefix of the cards of
        ``A`` not yet placed then; together with the ``A`` cards placed before the pass, the
        whole prefix of ``A`` up to them is placed before ``x``, so in particular the first
        ``min(m, len(A))`` cards of ``A`` (in today's order). So ``x`` needs, besides its other
        needs: for the smallest ``m`` over the choices above (``d`` from 0 to the count of ``B``
        cards placed), the first ``m`` cards of ``A`` placed. Every condition is monotone in the
        set of placed cards, so the fixpoint from ``mask`` contains every card any real line
        places (by induction over its plays, each meeting its conditions when made).
        """
        need_of = self._need_list(order)
        have = mask
        length = len(talon)
        span = turn - 1
        bits = [1 << c for c in talon]
        needs = [need_of[c] for c in talon]
        before = [0] * length
        acc = 0
        for j in range(length):
            before[j] = acc
            acc |= bits[j]
        # Cards not in the talon (reserve cards) have only their usual needs.
        others = [(b, n) for _c, b, n in self._table(order) if not (mask | acc) & b]
        # Talon cards from the last to the first: a card's talon needs lie after it, so one sweep
        # settles most of them.
        pending = list(range(length - 1, -1, -1))
        changed = True
        while changed:
            changed = False
            if others:
                rest_o = []
                for b, n in others:
                    if n & ~have:
                        rest_o.append((b, n))
                    else:
                        have |= b
                        changed = True
                others = rest_o
            rest = []
            for j in pending:
                if needs[j] & ~have:
                    rest.append(j)
                    continue
                m = pos - 1 - j if j < pos else span - (j - pos) % turn
                if m:
                    md = span - j % turn
                    if md < m:
                        m = md
                    if m:
                        nb = (have & before[j]).bit_count()
                        if nb >= span:
                            m = 0
                        else:
                            for d in range(1, nb + 1):
                                md = span - (j - d) % turn
                                if md < m:
                                    m = md
                        if m:
                            k = j + 1
                            top = min(j + m, length - 1)
                            while k <= top and have & bits[k]:
                                k += 1
                            if k <= top:
                                rest.append(j)
                                continue
                have |= bits[j]
                changed = True
            pending = rest
        return have

    def _need_list(self, order: tuple[int, ...]) -> list[int]:
        out = self._need_lists.get(order)
        if out is None:
            out = [0] * 52
            for c, _b, n in self._table(order):
                out[c] = n
            self._need_lists[order] = out
        return out

    def ancestors(self, order: tuple[int, ...]) -> list[int]:
        """Per card, every card it needs, directly or through others, under ``order`` (a mask)."""
        direct = [0] * 52
        for c, _bit, need in self._table(order):
            direct[c] = need
        anc = direct[:]
        changed = True
        while changed:
            changed = False
            for c in range(52):
                acc = anc[c]
                rest = acc
                while rest:
                    low = rest & -rest
                    acc |= anc[low.bit_length() - 1]
                    rest ^= low
                if acc != anc[c]:
                    anc[c] = acc
                    changed = True
        return anc

    def needed_by(self, order: tuple[int, ...]) -> list[int]:
        """Per card, the cards that need it directly under ``order`` (a mask)."""
        out = self._needed_by.get(order)
        if out is None:
            out = [0] * 52
            for c, _b, need in self._table(order):
                rest = need
                while rest:
                    low = rest & -rest
                    out[low.bit_length() - 1] |= 1 << c
                    rest ^= low
            self._needed_by[order] = out
        return out

    def can_win(self, mask: int, rows: tuple[int, ...]) -> bool:
        """Some row order still allowed leaves no cycle among the cards to place."""
        for order in row_orders(rows):
            if self.reachable(mask, order) == FULL:
                return True
        return False

    def upper_bound(self, mask: int, rows: tuple[int, ...]) -> int:
        """The most cards that could ever be on the foundations (ignoring the talon's order)."""
        return max(self.reachable(mask, order).bit_count() for order in row_orders(rows))


def lost_from_start(state: State) -> Explanation | None:
    """An :class:`Explanation` if every row order still possible has a cycle, else None.

    Cheap to call: a bit-mask check first, networkx only for a lost position.
    """
    rows = tuple(state.rows)
    orders = row_orders(rows)
    needs = Needs(state.reserves, state.base % 13)
    mask = state.mask()
    if any(needs.reachable(mask, o) == FULL for o in orders):
        return None
    return explain_lost(state, orders)
