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
plays are safe too and the search is a single sweep. What is left to branch
on is which talon card to play, and when (turn 3 shifts later alignment).

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
last talon card is a safe play after a redeal (:func:`_last_card_first`).

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
from functools import cache, cached_property
from typing import TYPE_CHECKING, Literal, TypedDict

from .constraints import FULL, Explanation, ExplanationJSON, Needs, lost_from_start, row_orders
from .errors import TutorError
from .notation import RESERVE_MOVES, TURN, WASTE, Move

if TYPE_CHECKING:
    from .state import State

__all__ = ["Limit", "DEFAULT_LIMIT", "SolveResult", "solve", "lost_from_start",
           "Explanation"]


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

Step = tuple[Move, ...]
"""The atomic moves of one folded move (turns, then the play): one entry of a line."""

Target = tuple[int, int, int]
"""A child in the search: (waste position it is played from, turns to get there, 1 if after a redeal)."""

Status = Literal["won", "done", "paused", "stopped"]
"""How :meth:`_Search.run` ended."""


def _pass_then_late(target: Target) -> tuple[int, int]:
    return target[2], -target[0]


OPTIONS = {"late_first": True, "rounds": True, "cut_cycles": True, "dominance": True, "buried": True,
           "last_pass": True, "talon_order": True, "last_card": True,
           "spacers": True}
"""Switches of the search, for benchmarks/solve.py to measure what each idea buys."""

FIRST_BUDGET = 2000
"""Node budget of each row order in the first round of the win search (then x4 each round)."""


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


class _Won(Exception):
    pass


class _Stop(Exception):
    pass


class _Ceiling(Exception):
    pass


@cache
def _need_table(rows: tuple[int, ...], order: tuple[int, ...], base: int) -> tuple[tuple[int, ...], int]:
    """Per card, under the full row order ``order``: the placed-card bit it needs to be playable
    now (> 0), -1 if it opens the next row of ``order``, 0 if it cannot be played.

    A row-1 card needs the base card (always placed). Also returns a small code of the rows.
    """
    start = base % 13
    table = [0] * 52
    for k, suit in enumerate(rows):
        for r in range(13):
            table[suit * 13 + r] = 1 << base if k == 0 else 1 << (rows[k - 1] * 13 + r)
    if len(rows) < 4:
        table[order[len(rows)] * 13 + start] = -1
    code = len(rows)
    for i, s in enumerate(rows):
        code |= s << (3 + 2 * i)
    return tuple(table), code


def _last_card_first(targets: list[Target], length: int, only: bool) -> list[Target]:
    """The children left once the talon's last card ``c`` is known to be playable.

    Playing ``c`` (turn to the end, play it) loses nothing after a redeal: with ``c`` gone
    the cards before it keep their places, so every turn stop of a later pass is still a
    stop (the one at ``c`` becomes the stop at the card before it), and any line from a
    redeal without ``c`` on the foundations is a line with it. So every play after a redeal
    is dominated by that child: drop them. If the stops left in this pass are those of a
    redeal too (``only``: the waste position is a multiple of the turn) and passes are
    unlimited (a play now is worth no more than the same play after a redeal), every other
    child is dominated as well.
    """
    if only:
        return [t for t in targets if t[0] == length and not t[2]] or [t for t in targets if not t[2]]
    return [t for t in targets if not t[2]]


def _turns_to(length: int, pos: int, target: int, turn: int) -> tuple[int, bool]:
    """Turns needed from waste position ``pos`` until position ``target``, and whether it redeals."""
    if target >= pos and (target == pos or target == length or (target - pos) % turn == 0):
        if target == pos:
            return 0, False
        return -(-(target - pos) // turn), False
    to_end = -(-(length - pos) // turn)
    return to_end + 1 + -(-target // turn), True


class _Search:
    """One search from one position: the state of the hot loop.

    The search runs once per full row order still possible. Under a fixed
    order every reserve play is safe (opening the next row of that order
    only adds options), so the only branching left is in the talon.
    """

    def __init__(self, state: State, limit: Limit) -> None:
        rules = state.rules
        self.turn = rules.turn
        self.passes = rules.passes
        self.single = rules.turn == 1 and rules.passes == 0
        self.base = state.base
        self.needs = Needs(state.reserves, state.base % 13)
        self.max_nodes: float = limit.nodes if limit.nodes is not None else float("inf")
        self.deadline: float | None = None
        self.nodes = 0
        self.root = state

    def _late(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    # ------------------------------------------------------------------
    def run(self, order: tuple[int, ...], best: int = 0, best_line: list[Step] | None = None,
            budget: int | None = None, win_only: bool = False,
            ceiling: int | None = None) -> tuple[Status, int, list[Step]]:
        """Depth-first search under one full row order.

        It stops at a win, or once the best score reaches the cards outside any
        cycle (no line can place more under this order).
        ``budget``: nodes this run may use before it pauses (the overall limit still applies).
        ``win_only``: cut every position that cannot be won (else only those that cannot
        beat the best score found).
        Returns (status, best, best_line) with status 'won', 'done', 'paused' (budget used)
        or 'stopped' (the limit was hit).
        """
        st = self.root
        turn, passes, single, base = self.turn, self.passes, self.single, self.base
        # Under this order the cards outside any cycle never change as cards are placed
        # (a card is only played once its needs are met), so their count caps the score.
        if ceiling is None:
            ceiling = self.needs.reachable(st.mask(), order).bit_count()
        # With limited passes a card skipped now costs a pass: keep the talon's order there.
        late_first = OPTIONS["late_first"] and not passes
        buried = turn > 1 and OPTIONS["buried"]
        last_card = turn > 1 and OPTIONS["last_card"]
        canon = OPTIONS["spacers"] and OPTIONS["dominance"] and not any(st.reserves)
        direct = self.needs.needed_by(order) if canon else []  # read only when canon
        # The talon's order, card by card: it pays off where the talon is all there is (no reserve
        # left); with a reserve the search is quick anyway and the check costs more than it saves
        # (measured in benchmarks/solve.py on osmosis deals: 3x fewer nodes, 2x the time).
        talon_order = turn > 1 and OPTIONS["talon_order"] and not any(st.reserves)
        talon_reachable = self.needs.talon_reachable
        last_pass = bool(passes) and OPTIONS["last_pass"]
        ancestors = self.needs.ancestors(order) if last_pass else []  # read only when last_pass
        caps: dict[int, int] = {}
        reachable = self.needs.reachable
        root_mask = st.mask()
        plain_tt = not OPTIONS["dominance"]
        max_nodes = self.max_nodes
        if budget is not None:
            max_nodes = min(max_nodes, self.nodes + budget)
        deadline = self.deadline
        # Transposition tables, per key (cards placed and rows, see below): the children already
        # searched as a bit set of waste positions (with limited passes: one per pass, in tt_passes).
        tt: dict[int | tuple[bytes, int], int] = {}
        tt_passes: dict[int | tuple[bytes, int], list[int]] = {}
        path: list[Step] = []
        npiles = len(st.reserves)
        # The best score found and its line, as boxes dfs can write to.
        best_box = [best]
        line_box = [list(best_line or [])]
        counter = [self.nodes]

        def dfs(mask: int, rows: tuple[int, ...], piles: tuple[tuple[int, ...], ...], talon: tuple[int, ...],
                pos: int, npass: int, progress: bool, cards: int) -> None:
            n_nodes = counter[0] + 1
            counter[0] = n_nodes
            if n_nodes > max_nodes:
                raise _Stop
            if deadline is not None and not n_nodes & 1023 and time.perf_counter() > deadline:
                raise _Stop
            mark = len(path)
            need, code = _need_table(rows, order, base)
            # Safe plays: they only add options, so make them without branching.
            again = True
            while again:
                again = False
                for i in range(npiles):
                    pile = piles[i]
                    if not pile:
                        continue
                    c = pile[-1]
                    nd = need[c]
                    if nd > 0:
                        if not mask & nd:
                            continue
                    elif nd == 0:
                        continue
                    else:
                        rows = rows + (c // 13,)
                        need, code = _need_table(rows, order, base)
                    mask |= 1 << c
                    cards += 1
                    piles = piles[:i] + (pile[:-1],) + piles[i + 1:]
                    path.append((RESERVE_MOVES[i],))
                    progress = True
                    again = True
                if single:
                    j = 0 if progress else max(pos - 1, 0)
                    while j < len(talon):
                        c = talon[j]
                        nd = need[c]
                        if nd > 0:
                            if not mask & nd:
                                j += 1
                                continue
                        elif nd == 0:
                            j += 1
                            continue
                        else:
                            rows = rows + (c // 13,)
                            need, code = _need_table(rows, order, base)
                        k, _ = _turns_to(len(talon), pos, j + 1, 1)
                        path.append((TURN,) * k + (WASTE,))
                        mask |= 1 << c
                        cards += 1
                        talon = talon[:j] + talon[j + 1:]
                        pos = j
                        progress = True
                        again = True
                        j = 0
            if cards > best_box[0]:
                best_box[0] = cards
                line_box[0] = path[:]
                if cards == 52:
                    raise _Won
                if cards >= ceiling:
                    raise _Ceiling
            # The first talon cards show only as the waste is played down to them: with turn 3,
            # card 1 needs card 2 played first, and card 2 needs card 3 (card 1 cannot go before
            # it), unless one of them shows now. Where that order is stuck, see what it costs.
            if buried and len(talon) >= turn and (pos == 0 or pos >= turn):
                pair = talon[0] | talon[1] << 6 | talon[2] << 12 if turn == 3 else talon[0] | talon[1] << 6
                cap = caps.get(pair)
                if cap is None:
                    extra = {talon[i]: 1 << talon[i + 1] for i in range(turn - 1)}
                    cap = caps[pair] = reachable(root_mask, order, extra).bit_count()
                if cap <= best_box[0] or (win_only and cap < 52):
                    del path[mark:]
                    return
            # Every talon card needs the cards between it and the next turn stop played first, in
            # the pass that plays it (Needs.talon_reachable has the argument): see what that costs.
            if talon_order:
                cap = talon_reachable(mask, order, talon, pos, turn)
                if (cap != FULL) if win_only else cap.bit_count() <= best_box[0]:
                    del path[mark:]
                    return
            # In the last pass the waste is a stack and each turn pushes the next few cards on it:
            # a card comes free only once the cards above it in the waste, or in its own group of
            # the stock, are played. Where that leaves cards stuck for good, see what it costs.
            if last_pass and npass >= passes:
                # A card needed (through any chain) by a card above it is stuck.
                length = len(talon)
                stuck = False
                acc = 0
                for i in range(pos - 1, -1, -1):
                    c = talon[i]
                    if acc >> c & 1:
                        stuck = True
                        break
                    acc |= ancestors[c]
                q = pos
                while q < length and not stuck:
                    top = min(q + turn, length)
                    acc = 0
                    for i in range(top - 1, q - 1, -1):
                        c = talon[i]
                        if acc >> c & 1:
                            stuck = True
                            break
                        acc |= ancestors[c]
                    q = top
                if stuck:
                    if win_only:
                        del path[mark:]
                        return
                    # How many cards could still be placed with these needs added?
                    extra = {talon[i]: 1 << talon[i + 1] for i in range(pos - 1)}
                    q = pos
                    while q < length:
                        top = min(q + turn, length)
                        for i in range(q, top - 1):
                            extra[talon[i]] = 1 << talon[i + 1]
                        q = top
                    if reachable(mask, order, extra).bit_count() <= best_box[0]:
                        del path[mark:]
                        return
            # The children: every waste position q reachable by turning (this pass, then after a
            # redeal) whose card is playable. Their set decides everything below this node.
            length = len(talon)
            targets: list[Target] = []
            seen = 0
            if length:
                q = pos
                k = 0
                if q:
                    nd = need[talon[q - 1]]
                    if (mask & nd) if nd > 0 else nd:
                        targets.append((q, 0, 0))
                        seen = 1 << q
                while q < length:
                    q += turn
                    if q > length:
                        q = length
                    k += 1
                    nd = need[talon[q - 1]]
                    if (mask & nd) if nd > 0 else nd:
                        targets.append((q, k, 0))
                        seen |= 1 << q
                if progress and (not passes or npass < passes):
                    k += 1
                    q = 0
                    while q < length:
                        q += turn
                        if q > length:
                            q = length
                        k += 1
                        if q >= pos and (q == length or (q - pos) % turn == 0):
                            continue
                        nd = need[talon[q - 1]]
                        if (mask & nd) if nd > 0 else nd:
                            targets.append((q, k, 1))
                            # With limited passes a play after a redeal is a different child.
                            seen |= 1 << q
            if not targets:
                del path[mark:]
                return
            # Transpositions and dominance: below a node there is nothing but its children, and a
            # child is fixed by the cards placed and the waste position it is played from. So per
            # (cards placed, rows) keep the union of the children already searched, and search
            # only the new ones (none: the node is a transposition or dominated).
            key: int | tuple[bytes, int] = mask | code << 52
            if canon:
                # With no reserve, a playable card that no card left needs is a mere spacer in
                # the talon: positions that differ only in which spacers are left are the same.
                key = bytes([52 if (nd := need[c]) and (nd < 0 or mask & nd) and not direct[c] & ~mask
                             else c for c in talon]), code
            if plain_tt:
                # Without dominance (for measurements): a plain table of exact positions.
                assert isinstance(key, int)  # canon needs dominance, so the key is still the int
                key |= pos << 64 | npass << 72
                if key in tt:
                    del path[mark:]
                    return
                tt[key] = 1
            elif passes:
                # A child is fixed by its waste position and its pass; the same child in an
                # earlier pass is at least as good (it has passes to spare).
                by_pass = tt_passes.get(key)
                if by_pass is None:
                    by_pass = tt_passes[key] = [0] * (passes + 2)
                fresh = []
                for t in targets:
                    bit = 1 << t[0]
                    cp = npass + t[2]
                    for m in range(1, cp + 1):
                        if by_pass[m] & bit:
                            break
                    else:
                        fresh.append(t)
                if not fresh:
                    del path[mark:]
                    return
                for t in fresh:
                    by_pass[npass + t[2]] |= 1 << t[0]
                targets = fresh
            else:
                done = tt.get(key, 0)
                if not seen & ~done:
                    del path[mark:]
                    return
                tt[key] = done | seen
                if done:
                    targets = [t for t in targets if not (1 << t[0]) & done]
            if last_card and len(targets) > 1:
                # The talon's last card, if playable, is a safe play (see _last_card_first).
                nd = need[talon[-1]]
                if (mask & nd) if nd > 0 else nd:
                    targets = _last_card_first(targets, length, pos % turn == 0 and not passes)
            if late_first and len(targets) > 1:
                # This pass before a redeal, and in each the deepest waste position first: wins
                # are found sooner with unlimited passes (measured in benchmarks/solve.py).
                targets.sort(key=_pass_then_late)
            for q, k, redeal in targets:
                c = talon[q - 1]
                crows = rows + (c // 13,) if need[c] == -1 else rows
                path.append((TURN,) * k + (WASTE,))
                dfs(mask | 1 << c, crows, piles, talon[:q - 1] + talon[q:], q - 1, npass + redeal, True,
                    cards + 1)
                path.pop()
            del path[mark:]

        status: Status
        try:
            dfs(st.mask(), tuple(st.rows), tuple(st.reserves), tuple(st.talon), st.pos, st.pass_no,
                st.progress, st.cards)
            status = "done"
        except _Won:
            status = "won"
        except _Ceiling:
            status = "done"
        except _Stop:
            status = "paused" if counter[0] <= self.max_nodes and not self._late() else "stopped"
        self.nodes = counter[0]
        return status, best_box[0], line_box[0]


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
    budget = FIRST_BUDGET
    while pending:
        for order in list(pending):
            rounds = OPTIONS["rounds"] and len(pending) > 1
            status, best, line = search.run(order, best, line, budget if rounds else None, win_only=True,
                                            ceiling=52)
            if status == "won":
                return SolveResult(True, 52, search.nodes, time.perf_counter() - t0, _flatten(line), True, None)
            if status == "stopped":
                return SolveResult(None, best, search.nodes, time.perf_counter() - t0, _flatten(line), False,
                                   None)
            if status == "done":
                pending.remove(order)
        budget *= 4
    lost_position = state if all(r != FULL for r in reach.values()) else None
    complete = True
    if want == "best":
        # The win search cut every position that cannot be won (and skipped the orders with a
        # cycle): search again, cutting only what cannot beat the best score found.
        for order in by_ceiling:
            if reach[order].bit_count() <= best:
                continue
            status, best, line = search.run(order, best, line, ceiling=reach[order].bit_count())
            if status == "stopped":
                complete = False
                break
    return SolveResult(False, best, search.nodes, time.perf_counter() - t0, _flatten(line), complete,
                       lost_position)


# ---------------------------------------------------------------- the explored DAG


def folded_moves(state: State) -> list[tuple[int, Step]]:
    """Every card playable from ``state`` by turning the talon and then playing it.

    Returns (card, atomic moves) pairs: reserve plays first, then talon plays
    in the order they show (this pass first, then after a redeal).
    """
    out: list[tuple[int, Step]] = []
    for i, pile in enumerate(state.reserves):
        if pile and state.destination(pile[-1]) >= 0:
            out.append((pile[-1], (RESERVE_MOVES[i],)))
    talon, pos, turn = state.talon, state.pos, state.rules.turn
    length = len(talon)
    seen: set[int] = set()
    targets: list[int] = []
    if pos:
        targets.append(pos)
    q = pos
    while q < length:
        q = min(q + turn, length)
        targets.append(q)
    if state.progress and (state.rules.passes == 0 or state.pass_no < state.rules.passes) and length:
        q = 0
        while q < length:
            q = min(q + turn, length)
            targets.append(q)
    for q in targets:
        if q in seen:
            continue
        seen.add(q)
        card = talon[q - 1]
        if state.destination(card) >= 0:
            k, _ = _turns_to(length, pos, q, turn)
            out.append((card, (TURN,) * k + (WASTE,)))
    return out
