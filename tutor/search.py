"""The full-knowledge solver: can this position be won, and how many cards at best?

**Folded moves.** Turning the talon is folded into the play it leads to
("turn until X shows, then play X"), so every edge places a card and the
graph of positions is acyclic, at most 51 plays deep. From waste position
``p`` with turn ``t`` and ``L`` talon cards left, the cards that can show
without another play are those at positions ``p, p+t, p+2t, ..., L`` and,
after a redeal (if one is allowed), ``t, 2t, ..., L``. The winning line is
expanded back into atomic moves, every ``d`` included.

**One search per row order.** The search runs once for each full row order
(suits of rows 1-4) still possible. Under a fixed order every reserve play
is safe: it only adds options, opening the next row of that order included.
With turn 1 and unlimited passes every talon card shows each pass, so talon
plays are safe too and the search is a single sweep. With turn 1 and limited
passes a waste play as soon as its card shows is safe as well (it uncovers
the card under it, and every later turn shows the same cards), so under a
fixed order the best line is one line: play whatever can be played, turn
when nothing can, redeal while passes are left (``_Search._sweep``). What is
left to branch on is which talon card to play, and when (turn 3 shifts later
alignment).

**Cuts.** (:mod:`tutor.constraints`) Under a fixed order a card needs the card
above it in its pile, the same rank in the row above and its row's starting
card. An order whose needs have a cycle cannot be won; if every order has
one, the position is lost from the start, and the cycle is the explanation.
The cards outside any cycle never change along the search (a card is played
only once its needs are met), so they cap the score under that order. With
turn 3 the first talon card only shows once the card above it is played,
and the second once the third is: these needs, added per position, cut the
positions where the talon's order leaves cards stuck for good. Where no
reserve is left (always in Bridesmaids), every talon card gets such needs:
the cards between it and the next stop of a turn, in the pass that plays it
(:meth:`Needs.talon_reachable`). In the last
of a limited number of passes the waste is a stack and each turn pushes a
group of cards on it: a card needed by a card above it in the waste (or in
its group) is stuck, and so is the position.

**Transpositions and dominance.** Below a position there is nothing but its
children, and a child is fixed by the cards placed and the waste position
it is played from (and the pass, with limited passes). So per (cards
placed, rows) the search keeps the union of the children already searched
and searches only new ones: transpositions and dominated talon positions
cost one lookup. With no reserve, a playable card that no card left needs is a
mere spacer, so the key names the talon with spacers as blanks. A playable
last talon card is a safe play after a redeal (:func:`~tutor.search_moves._last_card_first`).

**A second method.** Where the search is hard (an order still open after its
first round's budget, or every order left when the node limit is hit), a small
exhaustive game on the first talon cards alone (:mod:`tutor.search_proof`)
may prove that they can never all be placed under that order: the order is
then lost without searching it. It settled every Bridesmaids deal of 1-10,000
that the search alone left undecided (483 among them, undecided at 4,000,000
positions). Where no reserve card is left, the win search also plays that
game at each new position and cuts the ones whose front is stuck: that
decided the eleven Bridesmaids deals of 1-100,000 still left.

**Order.** Row orders are searched in rounds with growing node budgets, so a
big lost search under one order does not hide a quick win under another;
with unlimited passes the deepest waste position is tried first.

The hot loop works on plain ints and tuples (bit masks of placed cards);
networkx is used for the explained constraint graph; :mod:`tutor.graph`
builds the explored DAG as a networkx graph for export and for the review.
``benchmarks/solve.py`` measures the choice and what each idea buys.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, TypedDict

from .constraints import FULL, Explanation, ExplanationJSON, lost_from_start, row_orders
from .errors import TutorError
from .notation import Move
from .search_dfs import _Search
from .search_moves import FIRST_BUDGET, OPTIONS, Status, Step, Target, folded_moves
from .search_proof import talon_front_lost

if TYPE_CHECKING:
    from .state import State

__all__ = ["Limit", "DEFAULT_LIMIT", "SolveResult", "SolveResultJSON", "solve", "folded_moves",
           "lost_from_start", "Explanation", "OPTIONS", "FIRST_BUDGET", "Step", "Target", "Status"]


@dataclass(frozen=True, slots=True)
class Limit:
    """How far a search may go: a number of positions and/or seconds (None = no bound).

    A node limit gives the same answer on every machine; a time limit does not.
    """

    nodes: int | None = 200_000
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.nodes is not None and self.nodes < 1:
            raise TutorError(f"node limit {self.nodes!r} is not allowed: expected a positive number")
        if self.seconds is not None and self.seconds <= 0:
            raise TutorError(f"time limit {self.seconds!r} is not allowed: expected a positive number of seconds")


DEFAULT_LIMIT = Limit()


@dataclass(frozen=True)
class SolveResult:
    """The outcome of :func:`solve`.

    ``winnable``: True, False, or None when the limit stopped the search first.
    ``best_cards``: the most cards on the foundations reachable (52 when won);
    exact when ``complete``, else the best found so far. ``line``: atomic moves
    from the position (every ``d`` included) that win, or reach ``best_cards``.
    ``nodes``: positions visited (transpositions and dominated ones included,
    each costs a lookup). ``complete``: both answers are exact.
    ``explanation``: when the position is lost whatever the player does
    because of a cycle of constraints, what that cycle is (built on first
    use from ``lost_position``, so that callers who never read it, like the
    hints' many sample solves, do not pay for the networkx graph).
    """

    winnable: bool | None
    best_cards: int
    nodes: int
    seconds: float
    line: tuple[Move, ...]
    complete: bool
    lost_position: State | None = field(default=None, repr=False, compare=False)

    @cached_property
    def explanation(self) -> Explanation | None:
        return lost_from_start(self.lost_position) if self.lost_position is not None else None

    def to_json(self) -> SolveResultJSON:
        return {"winnable": self.winnable, "best_cards": self.best_cards, "nodes": self.nodes,
                "seconds": round(self.seconds, 4), "line": [str(m) for m in self.line],
                "complete": self.complete,
                "explanation": self.explanation.to_json() if self.explanation else None}


class SolveResultJSON(TypedDict):
    """:meth:`SolveResult.to_json` (spec section 4)."""

    winnable: bool | None
    best_cards: int
    nodes: int
    seconds: float
    line: list[str]
    complete: bool
    explanation: ExplanationJSON | None



def _flatten(line: Iterable[Step]) -> tuple[Move, ...]:
    return tuple(m for step in line for m in step)


def solve(state: State, limit: Limit = DEFAULT_LIMIT, want: str = "best") -> SolveResult:
    """Solve ``state`` with every card known.

    ``want='best'`` (default): decide whether the position can be won, and if
    not, the best score reachable. ``want='win'``: only decide winnability
    (faster on lost positions); ``best_cards`` is then the best score met on
    the way (a lower bound) and ``complete`` says whether winnability was
    decided. Per-call setup is small, so it can be called many times.
    """
    if want not in ("best", "win"):
        raise TutorError(f"unknown solve goal {want!r}: expected 'best' or 'win'")
    t0 = time.perf_counter()
    if state.won:
        return SolveResult(True, 52, 0, 0.0, (), True, None)
    search = _Search(state, limit)
    if limit.seconds is not None:
        search.deadline = t0 + limit.seconds
    mask, rows = state.mask(), tuple(state.rows)
    reach = {o: search.needs.reachable(mask, o) for o in row_orders(rows)}
    by_ceiling = sorted(reach, key=lambda o: -reach[o].bit_count())
    best = state.cards
    line: list[Step] = []
    # Win search: the row orders without a cycle, in rounds with a growing node budget so
    # that one order with a huge lost search does not hide a quick win under another.
    pending = [o for o in by_ceiling if reach[o] == FULL or not OPTIONS["cut_cycles"]]
    # The second method, for the orders the search finds hard (see tutor.search_proof): tried once
    # per order, when its first budget is spent, or on every order left when the limit is hit.
    front: dict[tuple[int, ...], bool] = {}

    def front_lost(order: tuple[int, ...]) -> bool:
        if order not in front:
            front[order] = OPTIONS["front"] and talon_front_lost(state, search.needs, order)
        return front[order]

    budget = FIRST_BUDGET
    first = True
    deep = OPTIONS["deep_front"] and state.rules.turn > 1 and not any(state.reserves)
    while pending:
        for order in list(pending):
            # The first round is plain; an order still open after it is hard, so later rounds play
            # the front game at every new position too (where it applies, see tutor.search_proof).
            rounds = OPTIONS["rounds"] and (len(pending) > 1 or (first and deep))
            status, best, line = search.run(order, best, line, budget if rounds else None, win_only=True,
                                            ceiling=52, deep=deep and not first)
            if status == "won":
                return SolveResult(True, 52, search.nodes, time.perf_counter() - t0, _flatten(line), True, None)
            if status == "stopped":
                if not all(front_lost(o) for o in pending):
                    return SolveResult(None, best, search.nodes, time.perf_counter() - t0, _flatten(line), False,
                                       None)
                pending.clear()
                break
            if status == "done" or front_lost(order):
                pending.remove(order)
        budget *= 4
        first = False
    lost_position = state if all(r != FULL for r in reach.values()) else None
    complete = True
    if want == "best":
        # The win search cut every position that cannot be won (and skipped the orders with a
        # cycle): search again, cutting only what cannot beat the best score found.
        best, line, complete = best_phase(search, reach, best, line)
    return SolveResult(False, best, search.nodes, time.perf_counter() - t0, _flatten(line), complete,
                       lost_position)


def best_phase(search: _Search, reach: dict[tuple[int, ...], int], best: int,
               line: list[Step]) -> tuple[int, list[Step], bool]:
    """The best score of a lost position: each row order whose reachable cards (``reach``) could beat
    ``best``, most first, searched cutting only what cannot beat it. Returns the score, its line, and
    whether the search finished within ``search``'s limit."""
    for order in sorted(reach, key=lambda o: -reach[o].bit_count()):
        if reach[order].bit_count() <= best:
            continue
        status, best, line = search.run(order, best, line, ceiling=reach[order].bit_count())
        if status == "stopped":
            return best, line, False
    return best, line, True
