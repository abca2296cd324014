"""Hindsight: what the solver says with every card known (the true deal), never what the player saw.

Whether the deal was winnable at the start, at which move the win was lost
(:func:`hindsight`), which moves alone kept a win (:func:`only_moves`), and
the cycle of needs that opening a row created (:func:`new_cycle`). Every
sentence built from these says it is hindsight.
"""

from __future__ import annotations

from dataclasses import replace

from .. import search
from ..constraints import Explanation
from ..errors import TutorError
from ..notation import Move
from ..state import State
from .values import Hindsight

__all__ = ["hindsight", "only_moves", "new_cycle", "name_blind_best"]


def hindsight(states: list[State], limit: search.Limit | None = None) -> Hindsight:
    """Solve the true positions (every card known): winnable at the start, and where the win was lost.

    Winnability with full knowledge never comes back once lost, so
    ``lost_at_ply`` is found by bisection over the positions after each move.
    """
    lim = limit if limit is not None else search.DEFAULT_LIMIT
    cache: dict[int, search.SolveResult] = {}

    def solve(k: int) -> search.SolveResult:
        if k not in cache:
            cache[k] = search.solve(states[k], lim, want="win")
        return cache[k]

    first = solve(0)
    winnable = first.winnable
    if winnable is False:
        explanation = first.explanation or search.lost_from_start(states[0])
        return Hindsight(False, None, explanation=explanation)
    if winnable is None:
        return Hindsight(None, None)
    n = len(states) - 1
    final = states[-1]
    if final.won:
        return Hindsight(True, None, still_winnable=True, won=True)
    if not final.over:
        end = solve(n).winnable
        if end is True:
            return Hindsight(True, None, still_winnable=True)
        if end is None:
            return Hindsight(True, None, still_winnable=None)
    # states[lo] is winnable, states[hi] is not; find the first k with states[k] not winnable.
    lo, hi = 0, n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        verdict = solve(mid).winnable
        if verdict is None:
            # Undecided at the limit: try a few neighbours for a decided position.
            for probe in [p for d in range(1, 4) for p in (mid + d, mid - d) if lo < p < hi]:
                verdict = solve(probe).winnable
                if verdict is not None:
                    mid = probe
                    break
            else:
                return Hindsight(True, None, still_winnable=False, undecided=True)
        if verdict:
            lo = mid
        else:
            hi = mid
    line = solve(lo).line or ()
    better = line[0] if line else None
    card = states[lo].card_of(better) if better is not None else None
    return Hindsight(True, hi, better=better, still_winnable=False, better_card=card)


def name_blind_best(facts: Hindsight, states: list[State], moves: list[Move], blind_best: Move,
                    limit: search.Limit | None = None) -> Hindsight:
    """Name the blind best move as the one that would have kept the win, when it would have.

    The solver's line gives one winning move; where several kept the win, naming another than the move the
    review calls better (``blind_best``, from what the player saw) would give the player two answers.
    """
    if facts.lost_at_ply is None or facts.better is None or blind_best == facts.better:
        return facts
    i = facts.lost_at_ply - 1
    if blind_best == moves[i] or not states[i].is_legal(blind_best):
        return facts
    lim = limit if limit is not None else search.DEFAULT_LIMIT
    if search.solve(states[i].apply(blind_best), lim, want="win").winnable is not True:
        return facts
    return replace(facts, better=blind_best, better_card=states[i].card_of(blind_best))


def only_moves(states: list[State], moves: list[Move], facts: Hindsight,
               limit: search.Limit | None = None) -> set[int]:
    """Hindsight: the 0-based plies whose played move was the only one that kept a win.

    Computed (with :func:`tutor.graph.winning_facts`) only where the true position
    was winnable: before ``lost_at_ply``, or to the end when the win was kept.
    """
    from ..graph import winning_facts

    if not facts.winnable:
        return set()
    end = len(moves) if facts.lost_at_ply is None else facts.lost_at_ply - 1
    if facts.lost_at_ply is None and not (facts.won or facts.still_winnable):
        return set()
    lim = limit if limit is not None else search.DEFAULT_LIMIT
    out = set()
    for i in range(end):
        if len(states[i].legal_moves()) > 1:
            only = winning_facts(states[i], lim).only_move
            if only is not None and only == moves[i]:
                out.add(i)
    return out


def new_cycle(state: State, move: Move) -> Explanation | None:
    """The constraint cycle of the true deal that opening a row with ``move`` creates (None if none, or lost before)."""
    try:
        if search.lost_from_start(state) is not None:
            return None
        return search.lost_from_start(state.apply(move))
    except TutorError:
        return None
