"""Play policies, the one function that plays a position with one, and the one process pool.

Policies (:class:`Policy`; the strings are the ``--policy`` choices and the
``policy`` of every survey's JSON):

- ``solver``: full knowledge; a deal counts as won if the solver finds a win
  (undecided deals are counted apart) and its score is the best the solver
  reaches.
- ``greedy``: plays the first playable card in the fixed move order
  (r1..r4, then w), else turns the talon, until the game is over.
- ``tutor``: follows the tutor's own choice at every move, seeing only what a
  player sees (:func:`play_game` on :func:`tutor.knowledge.observe`). Slow:
  every move samples and solves many deals.

:func:`play` plays a position with a policy, :func:`play_deal` a numbered
deal, :func:`play_batch` a survey's unit of work. Every deal is played on its
own, with no shared state and no randomness beyond what the deal number and
the position fix, so results never depend on the number of processes.

**The process pool** lives in :mod:`tutor.pool` (:class:`WorkerPool`,
:func:`parallel_map`; both are imported here, their old home): how jobs are
spread over processes never changes an answer, so it is not part of any
engine version.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path

from .deals import deal_for
from .errors import TutorError
from .notation import Move
from .pool import POOL_ERRORS, Task, WorkerPool, parallel_map  # noqa: F401 (their old home)
from .rules import Rules
from .search import DEFAULT_LIMIT, Limit, solve
from .state import State


class Policy(StrEnum):
    """Who plays a survey's deals (the value is the ``--policy`` string and the JSON's ``policy``)."""

    SOLVER = "solver"
    GREEDY = "greedy"
    TUTOR = "tutor"


POLICIES: tuple[str, ...] = tuple(p.value for p in Policy)
"""The policy names, in the order the CLI lists them."""


def parse_policy(name: str) -> Policy:
    """The policy called ``name``; an unknown name is a :class:`TutorError` listing the right ones."""
    try:
        return Policy(name)
    except ValueError:
        raise TutorError(f"unknown policy {name!r}: expected one of {', '.join(POLICIES)}") from None


@dataclass(frozen=True)
class DealOutcome:
    """One deal's result: ``won`` is None when the solver could not decide.

    ``tried``: with the solver policy, the node limit of the last search
    behind the verdict (the second search's when there was one).
    """

    number: int
    won: bool | None
    cards: int
    seconds: float
    tried: int | None = None


@dataclass(frozen=True, slots=True)
class Played:
    """How a policy did from one position: ``won`` (None: the solver could not decide), the final
    score ``cards`` (52 for a win), and for the solver the node limit behind the verdict."""

    won: bool | None
    cards: int
    tried: int | None = None


# ---------------------------------------------------------------- the policies


def play_greedy(state: State) -> State:
    """The first playable card in move order (r1..r4, w), else a turn, until the game is over."""
    while True:
        moves = state.legal_moves()
        if not moves:
            return state
        state = state.apply(moves[0])


def play_game(state: State, samples: int | None = None, limit: Limit | None = None,
              final_nodes: int = 2_000_000, infoset: bool = True) -> tuple[State, list[Move]]:
    """The tutor plays from ``state`` to the end, seeing only what a player sees.

    Each move is :func:`tutor.hints.choose`'s (the hint's choice, with a
    cheaper search for the expected-cards tie-break). Once nothing is hidden
    any more (the observation is complete), the tutor knows the whole
    position, like any attentive player, and follows the solver's line from
    there. Returns the final position and the moves played.
    """
    from .hints import choose
    from .knowledge import observe

    moves: list[Move] = []
    while not state.over:
        obs = observe(state)
        if obs.complete:
            res = solve(state, Limit(nodes=final_nodes))
            if res.line:
                for m in res.line:
                    state = state.apply(m)
                    moves.append(m)
                if state.over or res.winnable:
                    break
                continue
        move = choose(obs, samples, limit, infoset)
        state = state.apply(move)
        moves.append(move)
    return state, moves


def play_tutor(state: State) -> State:
    """Follow the tutor's choices, built only from what the player has seen, until the game is over."""
    return play_game(state)[0]


def play(state: State, policy: Policy | str, limit: Limit = DEFAULT_LIMIT, retry_nodes: int | None = None,
         infoset: bool = True) -> Played:
    """Play ``state`` with ``policy``: the one way every survey and benchmark plays a position.

    With the solver, a position the search leaves undecided at ``limit`` gets
    a second, win-only search (faster on lost deals) with ``retry_nodes``
    positions, when that is more than the limit's. ``infoset``: with the
    tutor, False plays PIMC's choice alone (the information-set search off).
    """
    policy = parse_policy(policy)
    if policy is Policy.SOLVER:
        res = solve(state, limit)
        won, cards, tried = res.winnable, res.best_cards, limit.nodes
        if won is None and retry_nodes and limit.nodes is not None and retry_nodes > limit.nodes:
            again = solve(state, Limit(nodes=retry_nodes, seconds=limit.seconds), want="win")
            won, cards, tried = again.winnable, max(cards, again.best_cards), retry_nodes
        return Played(won, 52 if won else cards, tried)
    if policy is Policy.GREEDY:
        end = play_greedy(state)
    else:
        end = play_game(state, infoset=infoset)[0]
    return Played(end.won, end.cards)


def play_deal(number: int, rules: Rules, policy: Policy | str, limit: Limit = DEFAULT_LIMIT,
              retry_nodes: int | None = None) -> DealOutcome:
    """Play deal ``number`` under ``rules`` with one policy (:func:`play`), timed."""
    t0 = time.perf_counter()
    result = play(State.initial(deal_for(number, rules), rules), policy, limit, retry_nodes)
    return DealOutcome(number, result.won, result.cards, time.perf_counter() - t0, result.tried)


def play_batch(numbers: Iterable[int], rules: Rules, policy: Policy | str, limit: Limit = DEFAULT_LIMIT,
               retry_nodes: int | None = None) -> tuple[str, list[DealOutcome]]:
    """Play a batch of deals: the unit of work a survey sends to a worker.

    Pure and idempotent (the same arguments give the same outcomes, bar the
    timings), so a batch lost with its worker can simply run again. Returns
    the engine version too, so a worker with another solver is caught.
    """
    return engine_version(policy), [play_deal(n, rules, policy, limit, retry_nodes) for n in numbers]


_BASE = ("cards", "rules", "deals", "notation", "state", "policies")
_SOLVER = ("constraints", "search", "search_dfs", "search_moves", "search_proof")
_ENGINE_MODULES = {
    Policy.GREEDY: _BASE,
    Policy.SOLVER: _BASE + _SOLVER,
    Policy.TUTOR: _BASE + _SOLVER + ("knowledge", "hints", "certainty", "sampling", "estimate", "infoset", "talon"),
}


@cache
def engine_version(policy: Policy | str) -> str:
    """A short hash of the source of every module that decides a policy's answers.

    Stored results are keyed by it, so a changed solver never reuses old answers.
    """
    policy = parse_policy(policy)
    digest = hashlib.sha256(policy.value.encode())
    here = Path(__file__).parent
    for name in _ENGINE_MODULES[policy]:
        digest.update((here / f"{name}.py").read_bytes())
    return digest.hexdigest()[:12]
