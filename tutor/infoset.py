"""Search over what can still turn up: expectimax over the information set.

PIMC (:mod:`tutor.hints`) solves each sampled deal with every card of the
sample known, so after a move it lets every sample pick its own continuation
(strategy fusion): two moves can both score 100% though one of them needs the
player to guess a face-down card before it turns up. With one player and
every arrangement of the unseen cards equally likely, the game over what the
player sees is a plain decision process, and this module searches it:

- a *decision node* is an :class:`~tutor.knowledge.Observation` (what the
  player sees); its value is the best of its moves;
- a move that turns a card face up (a reserve card uncovered, a talon card
  turned for the first time) leads to a *chance node*: one branch per unseen
  card that could be there, each with probability 1/k (k unseen cards);
- a transposition table keyed by the observation (the visible position; the
  set of unseen cards follows from it);
- the search plays a fixed set of consistent deals along every line at
  once (every consistent deal when few, else the hint's seeded samples); a
  move's deals are grouped by what the player then sees, so a chance node
  expands only the outcomes its deals hold (sparse sampling deeper down);
  with every consistent deal and no depth cut the values are exact
  (:func:`exact_values`); past ``reveals`` chance levels or ``plies`` choices,
  or with one deal left, a leaf's deals are solved with every card known
  (PIMC on the same deals: with no depth at all the values are PIMC's);
- the moves that keep the value in every deal (a reserve play that opens no
  row, a turn that keeps every option: :func:`tutor.hints.certain_moves`)
  are the only ones searched where they exist: they are best for a blind
  player too, since they keep every option and show at least as much.

Everything is computed from the observation: the samples and the sparse
outcomes are seeded from the observation's own text, so two positions that
differ only in unseen cards get the same answer. A node budget bounds the
cost; past it :class:`TooBig` is raised and the caller keeps PIMC's answer.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import NamedTuple, cast

from .certainty import certain_moves
from .knowledge import Observation, observe
from .notation import RESERVE_MOVES, TURN, WASTE, Move
from .sampling import Outcomes, SolveCache
from .state import State, foundation_row

WIN_NODES = 20_000
"""Node limit of one full-knowledge solve at a leaf (undecided counts as no win)."""


class TooBig(Exception):
    """The search needed more nodes than its budget: keep the sampler's answer."""


# ---------------------------------------------------------------- the visible game


def destination(obs: Observation, card: int) -> int:
    """The foundation row (0-based) ``card`` may go to now, or -1 (as :meth:`State.destination`)."""
    return foundation_row(obs.rows, obs.found, obs.base, card)


def can_redeal(obs: Observation) -> bool:
    return (not obs.stock and obs.pos > 0 and obs.progress
            and (obs.rules.passes == 0 or obs.pass_no < obs.rules.passes))


def legal_moves(obs: Observation) -> list[Move]:
    """The legal moves in the order r1..r4, w, d (as :meth:`State.legal_moves`)."""
    moves = [RESERVE_MOVES[i] for i, p in enumerate(obs.reserves)
             if p and p[-1] is not None and destination(obs, p[-1]) >= 0]
    if obs.waste and destination(obs, obs.waste[-1]) >= 0:
        moves.append(WASTE)
    if obs.stock or can_redeal(obs):
        moves.append(TURN)
    return moves


def certain(obs: Observation, moves: list[Move]) -> Move | None:
    """The first move that keeps the value in every deal, as :func:`tutor.hints.certain_moves` orders them."""
    found = certain_moves(obs, moves)
    return found[0] if found else None


def _place(obs: Observation, card: int, **changes) -> Observation:
    row = destination(obs, card)
    suit = card // 13
    rows = obs.rows if row < len(obs.rows) else obs.rows + (suit,)
    found = list(obs.found)
    found[suit] |= 1 << (card % 13)
    return replace(obs, rows=rows, found=(found[0], found[1], found[2], found[3]), progress=True,
                   cards=obs.cards + 1, **changes)


def step(obs: Observation, move: Move) -> tuple[Observation, list[tuple]]:
    """The observation after ``move`` with ``None`` where a card turns up, and those places.

    A place is ``("r", pile)`` (the new top of a reserve pile) or ``("w", i)``
    (a card of the waste turned for the first time).
    """
    if move.kind == "r":
        pile = obs.reserves[move.pile]
        top = pile[-1]
        if top is None:
            raise ValueError(f"reserve pile {move.pile + 1}'s top card is not revealed yet: reveal() it first")
        rest = pile[:-1]
        reserves = obs.reserves[:move.pile] + (rest,) + obs.reserves[move.pile + 1:]
        after = _place(obs, top, reserves=reserves)
        return after, ([("r", move.pile)] if rest and rest[-1] is None else [])
    if move.kind == "w":
        return _place(obs, obs.waste[-1], waste=obs.waste[:-1]), []
    if obs.stock:
        n = min(obs.rules.turn, len(obs.stock))
        # a card turned for the first time is None here until its chance node reveals it (see reveal())
        waste = cast("tuple[int, ...]", obs.waste + obs.stock[:n])
        after = replace(obs, waste=waste, stock=obs.stock[n:])
        return after, [("w", i) for i in range(len(obs.waste), len(waste)) if waste[i] is None]
    return replace(obs, waste=(), stock=obs.waste, pass_no=obs.pass_no + 1, progress=False), []


def reveal(obs: Observation, place: tuple, card: int) -> Observation:
    """``obs`` with ``card`` face up at ``place`` (see :func:`step`)."""
    if place[0] == "r":
        i = place[1]
        pile = obs.reserves[i][:-1] + (card,)
        return replace(obs, reserves=obs.reserves[:i] + (pile,) + obs.reserves[i + 1:])
    j = place[1]
    return replace(obs, waste=obs.waste[:j] + (card,) + obs.waste[j + 1:])


def unseen(obs: Observation) -> tuple[int, ...]:
    """The unseen cards (``None`` places of :func:`step` count as unseen)."""
    return obs.unseen_cards()


# ---------------------------------------------------------------- the search


@dataclass
class Search:
    """Expectimax over reveals on a fixed set of consistent deals (see the module docstring).

    The root's deals (``worlds``: every consistent deal when few, else seeded
    samples) are played along every line together. A move's deals are
    grouped by what the player would then see: one group is a plain decision
    node, several are a chance node whose branches weigh their share of the
    deals (with every consistent deal, exactly 1/k a card). A node with one
    deal left, or past ``reveals`` chance levels or ``plies`` choices (nodes
    with more than one move worth searching), is a leaf: its deals are solved
    with every card known (PIMC on the same deals, so with no depth at all
    the values are PIMC's). ``budget``: decision nodes before :class:`TooBig`.
    """

    reveals: int = 3
    plies: int = 4
    budget: int = 4000
    cache: SolveCache | None = None

    def __post_init__(self) -> None:
        self.table: dict[tuple[Observation, int, int], float] = {}
        self.nodes = 0
        self.cut = False
        if self.cache is None:
            self.cache = SolveCache()

    def move_values(self, obs: Observation, worlds: list[State] | None = None,
                    moves: list[Move] | None = None) -> dict[Move, float]:
        """Each move's expected win chance for a player who sees only ``obs`` and plays on as well as it can.

        ``worlds``: the deals to average over (default :func:`worlds`: every
        consistent deal when there are at most :data:`WORLDS`).
        """
        states = tuple(worlds if worlds is not None else root_worlds(obs))
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 20_000))
        try:
            return {m: self._after(states, m, self.reveals, self.plies)
                    for m in (moves or legal_moves(obs))}
        finally:
            sys.setrecursionlimit(old)

    def value(self, obs: Observation, worlds: list[State] | None = None) -> float:
        """The expected win chance of the best blind play from ``obs``."""
        values = self.move_values(obs, worlds)
        return max(values.values()) if values else float(obs.won)

    # ---- nodes
    def _decision(self, obs: Observation, states: tuple[State, ...], depth: int, plies: int) -> float:
        key = (obs, depth, plies)
        found = self.table.get(key)
        if found is not None:
            return found
        self.nodes += 1
        if self.nodes > self.budget:
            raise TooBig(f"more than {self.budget} decision nodes")
        first = states[0]
        moves = first.legal_moves()
        if first.won:
            value = 1.0
        elif not moves:
            value = 0.0
        elif obs.complete or len(states) == 1:
            value = self._leaf(states)
        else:
            sure = certain(obs, moves) if len(moves) > 1 else None
            choice = [sure] if sure is not None else moves
            if len(choice) > 1 and plies <= 0:
                self.cut = True
                value = self._leaf(states)
            else:
                value = 0.0
                left = plies - 1 if len(choice) > 1 else plies
                for m in choice:
                    value = max(value, self._after(states, m, depth, left))
                    if value >= 1.0:
                        break
        self.table[key] = value
        return value

    def _after(self, states: tuple[State, ...], move: Move, depth: int, plies: int) -> float:
        groups: dict[Observation, list[State]] = {}
        for s in states:
            after = s.apply(move)
            groups.setdefault(observe(after), []).append(after)
        if len(groups) == 1:
            ((obs, group),) = groups.items()
            return self._decision(obs, tuple(group), depth, plies)
        if depth <= 0:
            self.cut = True
            return self._leaf(tuple(a for g in groups.values() for a in g))
        total = sum(len(g) * self._decision(o, tuple(g), depth - 1, plies) for o, g in groups.items())
        return total / len(states)

    def pimc(self, worlds: list[State] | tuple[State, ...], move: Move) -> float:
        """PIMC's win share of ``move`` on ``worlds`` (each solved with every card known), as the leaves count it."""
        return self._leaf(tuple(w.apply(move) for w in worlds))

    def _leaf(self, states: tuple[State, ...]) -> float:
        """PIMC at the cut: the share of the deals won with every card known."""
        assert self.cache is not None
        return sum(1.0 for s in states if self.cache.solve(s, WIN_NODES, 0)[0]) / len(states)


WORLDS = 32
"""Deals a search averages over by default (every consistent deal when there are no more)."""


def root_worlds(obs: Observation, count: int = WORLDS) -> list[State]:
    """The deals a search starts from: every consistent one when at most ``count``, else seeded from ``obs``."""
    return obs.samples(count)


def exact_values(obs: Observation, budget: int = 200_000) -> dict[Move, float]:
    """Every move's exact blind value: every consistent deal, every reveal and choice expanded.

    Raises :class:`TooBig` past ``budget`` decision nodes (only for tiny late positions).
    """
    search = Search(reveals=10_000, plies=10_000, budget=budget)
    return search.move_values(obs, obs.every_state())


# ---------------------------------------------------------------- the hint's use of the search


INFOSET_UNSEEN = 12
"""The information-set search is tried with the talon known and at most this many unseen cards."""

INFOSET_NODES = 2_500
"""Its node budget in a hint; past it the hint keeps PIMC's answer."""


def wanted(obs: Observation, scores: Outcomes, moves: list[Move], lost: set[Move], exact: bool) -> bool:
    """PIMC's answer may be wrong and the search is affordable: the talon known, few unseen cards,
    and another move whose win interval reaches the leader's chance (strategy fusion hides there)."""
    if None in obs.stock or len(obs.unseen_cards()) > INFOSET_UNSEEN:
        return False
    live = [m for m in moves if m not in lost]
    if len(live) < 2:
        return False
    top = max(live, key=scores.mean)
    lead = scores.estimate(top, exact)
    return any(scores.estimate(m, exact).win_hi >= lead.win for m in live if m != top)


class BlindValues(NamedTuple):
    """What :func:`hint_values` found: each move's blind win chance, whether they are exact, and the same before
    the clamp to 0..1."""

    values: dict[Move, float]
    """The blind win chances, 0 to 1: what a choice between the moves goes by."""
    exact: bool
    """Every consistent deal searched and the search complete: the values are exact."""
    raw: dict[Move, float]
    """Before the clamp (:func:`corrected` can go below 0 where the fusion found is more than the sampler's share
    on all the deals): the centre of the value's interval, so that it keeps the fusion the search found."""
    searched: int
    """The deals the search played (the first :data:`WORLDS` of the hint's, or all of them up to its exact
    limit)."""


def hint_values(obs: Observation, states: list[State], moves: list[Move], cache: SolveCache, exact_deals: int,
                scores: Outcomes | None = None) -> BlindValues | None:
    """The search's values of ``moves`` on the hint's own deals (the first :data:`WORLDS`; all of them up to ``exact_deals``), or None.

    When the search plays only the first of more deals (a hint's 128 samples),
    its figure alone would be PIMC on fewer deals: noisier than the sampler's
    own. Then each move's value is the sampler's win share on all the deals
    less what the search found the blind player loses to strategy fusion on
    its deals (PIMC's share on the same deals minus the search's value): a
    control variate, so the search corrects PIMC's bias without adding its
    own sampling noise. With every deal searched (the tutor policy, an exact
    hint) the values are the search's own.
    """
    worlds = states if len(states) <= exact_deals else states[:WORLDS]
    search = Search(budget=INFOSET_NODES, cache=cache)
    try:
        values = search.move_values(obs, worlds, moves)
    except TooBig:
        return None
    raw = values
    if scores is not None and len(worlds) < len(scores):
        raw = corrected(search, worlds, values, scores, moves)
        values = {m: min(1.0, max(0.0, v)) for m, v in raw.items()}
    return BlindValues(values, not search.cut and len(worlds) == obs.consistent_deals(), raw, len(worlds))


def corrected(search: Search, worlds: list[State], values: dict[Move, float], scores: Outcomes,
              moves: list[Move]) -> dict[Move, float]:
    """Each move's sampler win share on all its deals less the fusion the search found on ``worlds`` (a part of
    them): PIMC's share there minus the search's value, a control variate (see :func:`hint_values`). Not
    clamped: a share of 3% less 5 points of fusion found is -2%, the centre of its interval (a figure shown
    is clamped to 0..1 by the caller)."""
    out = {}
    for m in moves:
        # never below 0: the search's value is at most PIMC's on the same deals at every leaf, and a blind
        # player never wins more than one who sees every card (a negative difference is the leaves' node limits)
        fusion = max(0.0, search.pimc(worlds, m) - values[m])
        won = scores.won(m)
        out[m] = sum(won) / len(won) - fusion
    return out
