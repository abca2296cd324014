"""The solver's hot loop: a depth-first search under one full row order, on plain ints.

:class:`_Search` holds one search from one position; :func:`tutor.search.solve`
drives it over the row orders. The ideas (folded moves, safe reserve plays,
the cuts, transpositions and dominance) are described in :mod:`tutor.search`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .constraints import FULL, Needs
from .notation import RESERVE_MOVES, TURN, WASTE
from .search_moves import OPTIONS, Status, Step, Target, _last_card_first, _need_table, _pass_then_late, _turns_to
from .search_proof import DEEP_BUDGET, DEEP_SIZES, front_lost

if TYPE_CHECKING:
    from .search import Limit
    from .state import State


class _Won(Exception):
    pass


class _Stop(Exception):
    pass


class _Ceiling(Exception):
    pass


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
        # With turn 1 and limited passes every play is safe as well: see _sweep.
        self.sweep = rules.turn == 1 and rules.passes > 0 and OPTIONS["sweep"]
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
            ceiling: int | None = None, deep: bool = False) -> tuple[Status, int, list[Step]]:
        """Depth-first search under one full row order.

        It stops at a win, or once the best score reaches the cards outside any
        cycle (no line can place more under this order).
        ``budget``: nodes this run may use before it pauses (the overall limit still applies).
        ``win_only``: cut every position that cannot be won (else only those that cannot
        beat the best score found). ``deep``: with ``win_only`` and no reserve card left,
        also cut every new position whose front of the talon is stuck (tutor.search_proof).
        Returns (status, best, best_line) with status 'won', 'done', 'paused' (budget used)
        or 'stopped' (the limit was hit).
        """
        if self.sweep:
            return self._sweep(order, best, best_line)
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
        # The front game (tutor.search_proof) at every new position, where the talon is all there
        # is: a small knot at the front of what is left dooms a whole subtree, and the search
        # alone would only see it after visiting all of it.
        deep_front = deep and win_only and turn > 1 and OPTIONS["deep_front"] and not any(st.reserves)
        needs = self.needs
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
            if deep_front:
                for size in DEEP_SIZES:
                    # Front positions count as search positions, so the game never takes the
                    # count past the limit (front_lost may visit one more than its budget).
                    room = max_nodes - counter[0] - 1
                    if room < 1:
                        break
                    lost, visited = front_lost(needs, order, mask, talon, pos, turn, size,
                                               int(min(DEEP_BUDGET, room)))
                    counter[0] += visited
                    if lost:
                        del path[mark:]
                        return
                    if lost is None or size >= length:
                        break
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


    def _sweep(self, order: tuple[int, ...], best: int, best_line: list[Step] | None) -> tuple[Status, int, list[Step]]:
        """:meth:`run` with turn 1 and limited passes, where the search is one line.

        Under a fixed row order every play is safe there: playing the waste's top card when it
        shows places it and uncovers the card under it, and every later turn shows the same
        cards as without the play (one card a turn), so the position after the play has all
        the options of the one without it (and a play since the last redeal). Reserve plays
        are safe as in :meth:`run`. So the best line under the order plays every card as soon
        as it can, turns when none can, and redeals while passes are left: a few hundred steps,
        where the search over which card to play when could visit millions of positions.
        Each card placed counts as a position visited (the node limit still applies).
        """
        st = self.root
        need, _ = _need_table(tuple(st.rows), order, self.base)
        rows = tuple(st.rows)
        mask, cards, pos, npass, progress = st.mask(), st.cards, st.pos, st.pass_no, st.progress
        piles = [list(p) for p in st.reserves]
        talon = list(st.talon)
        line: list[Step] = []
        turns = 0
        nodes = self.nodes + 1
        while True:
            if nodes > self.max_nodes:
                self.nodes = nodes
                return "stopped", best, list(best_line or [])
            # The card to play: a reserve pile's top card first (no turn needed), then the waste's.
            play = -1
            for i, pile in enumerate(piles):
                if pile and ((mask & need[pile[-1]]) if need[pile[-1]] > 0 else need[pile[-1]]):
                    play, c = i, pile.pop()
                    line.append((RESERVE_MOVES[i],))
                    break
            else:
                if pos and ((mask & need[talon[pos - 1]]) if need[talon[pos - 1]] > 0 else need[talon[pos - 1]]):
                    pos -= 1
                    play, c = 4, talon.pop(pos)
                    line.append((TURN,) * turns + (WASTE,))
                    turns = 0
            if play >= 0:
                if need[c] < 0:
                    rows = rows + (c // 13,)
                    need, _ = _need_table(rows, order, self.base)
                mask |= 1 << c
                cards += 1
                progress = True
                nodes += 1
                continue
            if pos < len(talon):
                pos += 1  # a turn
            elif talon and progress and npass < self.passes:
                pos, npass, progress = 0, npass + 1, False  # a redeal
            else:
                break
            turns += 1
        self.nodes = nodes
        if cards > best:
            best, best_line = cards, line
        return ("won" if cards == 52 else "done"), best, list(best_line or [])
