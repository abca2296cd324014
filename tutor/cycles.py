"""The "must come before" graph as networkx, and why a position is lost from the start.

:mod:`tutor.constraints` finds, with bit masks, that every row order still
possible leaves a cycle of needs; this module builds the graph of those needs
for one full row order (:func:`constraint_graph`), finds a short cycle in it
(:func:`shortest_cycle`), and turns the cycles into an :class:`Explanation`
that names the cards and why each one waits for the next
(:func:`explain_lost`). ``tutor.constraints.lost_from_start`` is the entry point.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from .cards import NAMES, RANKS, SUIT_NAMES

if TYPE_CHECKING:
    import networkx as nx

    from .state import State


def constraint_graph(state: State, order: tuple[int, ...]) -> nx.DiGraph[int]:
    """The "must come before" graph of the cards not yet placed, for a full row order.

    An edge ``a -> b`` means ``a`` must be played before ``b``; its ``why``
    attribute is ``"pile"`` (``a`` lies above ``b`` in reserve pile ``pile``,
    1-based), ``"row"`` (``a`` has ``b``'s rank in a row above) or ``"start"``
    (``a`` starts ``b``'s row).
    """
    import networkx as nx  # here, not at the top: every command imports this module, few build the graph

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
    import networkx as nx

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
            scope = "in every row order still possible"
        else:
            scope = _orders_phrase(self.orders)
        # one sentence, so the hindsight caveat the review puts before it covers all of it
        out = f"{head}; so {cards} wait for each other and none of them can ever be played ({scope})"
        for other in self.others:
            out += "; and " + other.text()[:-1]
        return out + "."

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


def explain_lost(state: State, orders: list[tuple[int, ...]]) -> Explanation:
    """Why ``state`` is lost under every row order in ``orders``, each of which has a cycle of needs.

    One cycle that every order shares if there is one; else one per group of
    orders, the first covering the most.
    """
    rows = tuple(state.rows)
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
            # The caller found that no order lets every card be placed, so each has a cycle,
            # and every cycle has a pile edge.
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
