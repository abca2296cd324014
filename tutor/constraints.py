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

Two forms live here: a fast bit-mask form for the search's hot loop
(:class:`Needs`), and a networkx graph for explanations
(:func:`constraint_graph`, :func:`lost_from_start`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import permutations
from typing import TYPE_CHECKING, TypedDict

import networkx as nx

from .cards import NAMES, RANKS, SUIT_NAMES

if TYPE_CHECKING:
    from .state import State

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


# ---------------------------------------------------------------- explanation


def constraint_graph(state: State, order: tuple[int, ...]) -> nx.DiGraph[int]:
    """The "must come before" graph of the cards not yet placed, for a full row order.

    An edge ``a -> b`` means ``a`` must be played before ``b``; its ``why``
    attribute is ``"pile"`` (``a`` lies above ``b`` in reserve pile ``pile``,
    1-based), ``"row"`` (``a`` has ``b``'s rank in a row above) or ``"start"``
    (``a`` starts ``b``'s row).
    """
    start = state.base % 13
    placed = state.mask()
    g: nx.DiGraph[int] = nx.DiGraph(order=order)
    free = [c for c in range(52) if not placed >> c & 1]
    g.add_nodes_from(free)
    for i, pile in enumerate(state.reserves):
        for lower, upper in zip(pile, pile[1:]):
            g.add_edge(upper, lower, why="pile", pile=i + 1)
    for k, suit in enumerate(order):
        for r in range(13):
            card = suit * 13 + r
            if placed >> card & 1 or k == 0:
                continue
            for j in range(k):
                other = order[j] * 13 + r
                # A pile edge is the same under every order: keep it as the reason.
                if not placed >> other & 1 and not g.has_edge(other, card):
                    g.add_edge(other, card, why="row", rows=(j + 1, k + 1))
            opener = suit * 13 + start
            if r != start and not placed >> opener & 1 and not g.has_edge(opener, card):
                g.add_edge(opener, card, why="start", row=k + 1)
    return g


def shortest_cycle(g: nx.DiGraph[int]) -> list[int] | None:
    """The shortest cycle through a reserve-pile edge (every cycle has one), as cards in order."""
    best = None
    for a, b, data in g.edges(data=True):
        if data["why"] != "pile":
            continue
        try:
            path = nx.shortest_path(g, b, a)
        except nx.NetworkXNoPath:
            continue
        if best is None or len(path) < len(best):
            best = path
    return best


def _is_cycle(g: nx.DiGraph[int], cycle: list[int]) -> bool:
    return all(g.has_edge(cycle[i], cycle[(i + 1) % len(cycle)]) for i in range(len(cycle)))


class ExplanationJSON(TypedDict):
    """:meth:`Explanation.to_json`: the ``explanation`` object of the JSON output."""

    cycle: list[str]
    text: str
    orders: list[list[str]]


@dataclass(frozen=True)
class Explanation:
    """Why a position is lost whatever the player does.

    ``cycle``: cards in "must come before" order, each needing the one before
    it and the first needing the last. ``orders``: the row orders it covers
    (every one still possible). ``steps``: one sentence per edge of the cycle.
    ``others``: for row orders the first cycle does not cover, their own cycles.
    """

    cycle: list[int]
    rows: tuple[int, ...]
    orders: list[tuple[int, ...]]
    steps: list[str]
    others: list[Explanation] = field(default_factory=list)
    every_order: bool = True

    def text(self) -> str:
        """The explanation in words: "5H lies above 5S in pile 2; ..."."""
        cards = ", ".join(NAMES[c] for c in self.cycle)
        head = "; ".join(self.steps)
        if len(self.orders) > 1 and self.every_order:
            scope = "whatever the order of the rows"
        else:
            scope = _orders_phrase(self.orders)
        out = f"{head}. So {cards} wait for each other and none of them can ever be played ({scope})."
        for other in self.others:
            out += " " + other.text()
        return out

    def to_json(self) -> ExplanationJSON:
        return {"cycle": [NAMES[c] for c in self.cycle], "text": self.text(),
                "orders": [[SUIT_NAMES[s] for s in o] for o in self.orders]}


def _orders_phrase(orders: Iterable[tuple[int, ...]]) -> str:
    parts = []
    for o in orders:
        parts.append("rows " + ", ".join(SUIT_NAMES[s] for s in o))
    return "with " + " or ".join(parts) if parts else ""


def _step_text(g: nx.DiGraph[int], a: int, b: int, order: tuple[int, ...], orders: list[tuple[int, ...]],
               rows: tuple[int, ...]) -> str:
    """One edge ``a -> b`` (a before b) in words, true of every order in ``orders``.

    A filter edge holds under an order that puts ``a``'s suit above ``b``'s.
    The reason given is what all the covered orders share: a row already
    taken, row 1, or (when they differ) the relation itself, which the
    explanation's scope then names.
    """
    data = g.edges[a, b]
    if data["why"] == "pile":
        return f"{NAMES[a]} lies above {NAMES[b]} in pile {data['pile']}"
    suit_b, suit_a = b // 13, a // 13
    if data["why"] == "start":
        return (f"{NAMES[b]} can only be played after {NAMES[a]}, which opens the "
                f"{SUIT_NAMES[suit_b]} row")
    rank = f"{'an' if RANKS[b % 13] in 'A8' else 'a'} {RANKS[b % 13]}"
    rows_a = {o.index(suit_a) for o in orders}
    rows_b = {o.index(suit_b) for o in orders}
    if rows_a == {0}:
        return (f"{NAMES[b]} can only be played after {NAMES[a]} ({SUIT_NAMES[suit_a]} are row 1, "
                f"and a lower row takes {rank} only once every row above has one)")
    if len(rows_a) == 1 and len(rows_b) == 1:
        ka, kb = rows_a.pop() + 1, rows_b.pop() + 1
        if suit_a in rows and suit_b in rows:
            return (f"{NAMES[b]} can only be played after {NAMES[a]} ({SUIT_NAMES[suit_a]} are row {ka} "
                    f"and {SUIT_NAMES[suit_b]} row {kb})")
        return (f"with {SUIT_NAMES[suit_a]} in row {ka} and {SUIT_NAMES[suit_b]} in row {kb}, "
                f"{NAMES[b]} can only be played after {NAMES[a]}")
    if suit_a in rows and suit_b not in rows:
        return (f"{NAMES[b]} can only be played after {NAMES[a]} ({SUIT_NAMES[suit_a]} already have row "
                f"{rows.index(suit_a) + 1}, so the {SUIT_NAMES[suit_b]} row will be below it and takes "
                f"{rank} only once the rows above have one)")
    return (f"{NAMES[b]} can only be played after {NAMES[a]} (with {SUIT_NAMES[suit_a]} in a row "
            f"above {SUIT_NAMES[suit_b]})")


def _explain(g: nx.DiGraph[int], cycle: list[int], order: tuple[int, ...], orders: list[tuple[int, ...]],
             rows: tuple[int, ...], every_order: bool) -> Explanation:
    # Start the cycle at a pile edge so the sentence opens with the layout fact.
    n = len(cycle)
    for i in range(n):
        if g.edges[cycle[i], cycle[(i + 1) % n]]["why"] == "pile":
            cycle = cycle[i:] + cycle[:i]
            break
    steps = [_step_text(g, cycle[i], cycle[(i + 1) % n], order, orders, rows) for i in range(n)]
    return Explanation(cycle=list(cycle), rows=tuple(rows), orders=list(orders), steps=steps,
                       every_order=every_order)


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
    graphs = {o: constraint_graph(state, o) for o in orders}
    cycles = {o: shortest_cycle(graphs[o]) for o in orders}
    # Prefer one cycle that every order shares; else one per group of orders.
    remaining = list(orders)
    parts: list[Explanation] = []
    while remaining:
        best_cover: list[tuple[int, ...]] = []
        best_cycle: list[int] | None = None
        best_order: tuple[int, ...] | None = None
        for o in remaining:
            cyc = cycles[o]
            # No order reaches FULL, so each has a cycle, and every cycle has a pile edge.
            assert cyc is not None
            cover = [p for p in remaining if _is_cycle(graphs[p], cyc)]
            if len(cover) > len(best_cover) or (len(cover) == len(best_cover) and best_cycle is not None
                                                 and len(cyc) < len(best_cycle)):
                best_cover, best_cycle, best_order = cover, cyc, o
        # The first order in ``remaining`` covers at least itself, so the loop chose one.
        assert best_cycle is not None and best_order is not None
        parts.append(_explain(graphs[best_order], best_cycle, best_order, best_cover, rows,
                              len(best_cover) == len(orders)))
        remaining = [o for o in remaining if o not in best_cover]
    first = parts[0]
    if len(parts) == 1:
        return first
    return Explanation(cycle=first.cycle, rows=first.rows, orders=first.orders, steps=first.steps,
                       others=parts[1:], every_order=False)
