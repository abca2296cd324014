"""Solving sampled deals for the hints and the review: the cache, one deal's outcomes, the doubt rule.

A sampled deal is a full position (every card known), solved by the
full-knowledge solver on node limits. :class:`SolveCache` keeps the answers
across samples, moves and the positions of a review; :func:`outcomes_in`
scores every legal move in one deal; :class:`Outcomes` holds them paired by
sample, with the estimates and paired drops of :mod:`tutor.estimate`;
:func:`in_doubt` says whether more samples could change the answer.
"""

from __future__ import annotations

from .estimate import Drop, Estimate, paired_drop
from .notation import Move
from .search import Limit, solve
from .state import State

BANDS = (5.0, 10.0, 15.0)
"""The label thresholds in win-chance points (inaccuracy, mistake, blunder), as in the review."""


class SolveCache:
    """Solved sample positions, kept across the samples and moves of a hint and the positions of a review.

    Keyed by the full position: two samples (or two moves, or two positions
    of one game) that reach the same position pay for one search. Holds
    ``(won, cards, with_cards)``; an entry solved for the win only serves a
    later win-only question, one with the best score serves both.
    """

    def __init__(self, max_size: int = 400_000) -> None:
        # (won, cards, with_cards, cut): ``cut`` the node limit that stopped the best-score search, else 0
        self.data: dict[State, tuple[bool | None, int, bool, int]] = {}
        self.max_size = max_size
        self.hits = 0
        self.misses = 0
        self.cut = 0
        """Answers given whose score was asked for and is only the best found before a node limit."""
        self.nodes = 0
        """Positions the searches of the answers not found here visited (what the cache's work cost)."""

    def solve(self, state: State, win_nodes: int, best_nodes: int, lost: bool = False) -> tuple[bool | None, int]:
        want_cards = best_nodes > 0
        found = self.data.get(state)
        if found is not None and (found[2] or not want_cards) and not (want_cards and 0 < found[3] < best_nodes):
            self.hits += 1
            self.cut += want_cards and found[3] > 0
            return found[0], found[1]
        self.misses += 1
        spent = [0]
        won, cards, complete = _solve_sample(state, win_nodes, best_nodes, lost, spent)
        self.nodes += spent[0]
        if len(self.data) >= self.max_size:
            self.data.clear()
        cut = best_nodes if want_cards and not complete else 0
        self.cut += cut > 0
        self.data[state] = (won, cards, want_cards or won is True, cut)
        return won, cards


def _solve_sample(state: State, win_nodes: int, best_nodes: int,
                  lost: bool = False, spent: list[int] | None = None) -> tuple[bool | None, int, bool]:
    """(won?, final score, whether that score is exact) of one sampled position: True/False/None
    (undecided), the score, and False where a node limit stopped a search before it knew the best.

    ``lost``: the position is known to be lost, so only its best score is
    searched. ``best_nodes`` 0: the win only (the win search stops at its
    first win; a lost sample's score is then only the best met on the way).
    ``spent``: a one-element list the positions the searches visited are added to.
    """
    spent = spent if spent is not None else [0]
    if state.won:
        return True, 52, True
    if lost:
        if best_nodes <= 0:
            return False, state.cards, False
        found = solve(state, Limit(nodes=best_nodes), want="best")
        spent[0] += found.nodes
        return False, found.best_cards, found.complete
    res = solve(state, Limit(nodes=win_nodes), want="win")
    spent[0] += res.nodes
    if res.winnable:
        return True, 52, True
    if res.winnable is None or best_nodes <= 0:
        return res.winnable, res.best_cards, False
    best = solve(state, Limit(nodes=best_nodes), want="best")
    spent[0] += best.nodes
    return False, max(res.best_cards, best.best_cards), best.complete


def outcomes_in(world: State, moves: list[Move], certain: list[Move], lost: set[Move], win_nodes: int,
                best_nodes: int, cache: SolveCache, until: tuple[int, int] | None = None,
                ) -> dict[Move, tuple[bool | None, int]]:
    """Every move's outcome in one sampled deal (``world``), certain moves included.

    A certain move keeps the position's value, the best of all moves in this
    deal: what any move reaches, it reaches too (the searches' limits can
    hide that), so it is solved once and raised to the best of the others.
    ``until``: a work budget's end (in ``cache.nodes``) and the least limit: each best-score search gets no
    more than what is left of the budget as it starts, and no less than that least limit.
    """
    def best() -> int:
        return best_nodes if until is None else min(best_nodes, max(until[1], until[0] - cache.nodes))

    results = {m: cache.solve(world.apply(m), win_nodes, best(), m in lost) for m in moves if m not in certain}
    if certain:
        own = cache.solve(world.apply(certain[0]), win_nodes, best())
        won = [own[0]] + [r[0] for r in results.values()]
        value = (True if True in won else None if None in won else False,
                 max([own[1]] + [r[1] for r in results.values()]))
        for m in certain:
            results[m] = value
    return results


class Outcomes:
    """Per move, the outcome in each sample so far (paired by sample index)."""

    def __init__(self, moves: list[Move]) -> None:
        self.moves = moves
        self.results: dict[Move, list[tuple[bool | None, int]]] = {m: [] for m in moves}

    def add(self, results: dict[Move, tuple[bool | None, int]]) -> None:
        for m in self.moves:
            self.results[m].append(results[m])

    def __len__(self) -> int:
        return len(self.results[self.moves[0]]) if self.moves else 0

    def won(self, move: Move) -> list[bool]:
        return [bool(w) for w, _ in self.results[move]]

    def undecided(self, move: Move) -> int:
        return sum(1 for w, _ in self.results[move] if w is None)

    def mean(self, move: Move) -> float:
        # Win chance first; the score only breaks ties (52 cards weigh 0.01 of a win).
        r = self.results[move]
        return sum((1.0 if w else 0.0) + c / 5200 for w, c in r) / len(r) if r else 0.0

    def drop(self, better: Move, move: Move, exact: bool = False) -> Drop:
        """The paired drop in win chance from ``better`` to ``move`` on the same samples."""
        return paired_drop(self.won(better), self.won(move), exact)

    def estimate(self, move: Move, exact: bool = False) -> Estimate:
        return Estimate.of(self.results[move], exact)


def band(points: float, bands: tuple[float, float, float] = BANDS) -> int:
    """Which label band a drop of ``points`` falls in: 0 below the first threshold, then 1, 2, 3."""
    return sum(1 for b in bands if points >= b)


def in_doubt(scores: Outcomes, leader: Move, bands: tuple[float, float, float] = BANDS,
             moves: list[Move] | None = None) -> bool:
    """More samples could change the answer: the best move or a move's label band.

    For each move against the leader (on the same samples): another move may
    be better than the leader by a whole band, or the interval of its drop
    straddles a band threshold (its label is not settled).
    """
    for m in moves if moves is not None else scores.moves:
        if m == leader:
            continue
        _, lo, hi = scores.drop(leader, m).points()
        if lo < -bands[0] or band(lo, bands) != band(hi, bands):
            return True
    return False


def best_in_doubt(scores: Outcomes, lead: Move, margin: float = BANDS[0]) -> bool:
    """More samples could change the best move: another move's paired gain over ``lead`` may reach ``margin`` points.

    The first half of the hint's rule (:func:`in_doubt`), without
    the label bands: the tutor as a player needs only the best move.
    """
    return any(scores.drop(lead, m).points()[1] < -margin for m in scores.moves if m != lead)
