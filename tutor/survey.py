"""Win-rate surveys: play many deals with one policy, in parallel processes.

Policies:

- ``solver``: full knowledge; a deal counts as won if the solver finds a win
  (undecided deals are counted apart) and its score is the best the solver
  reaches.
- ``greedy``: plays the first playable card in the fixed move order
  (r1..r4, then w), else turns the talon, until the game is over.
- ``tutor``: follows the tutor's own hint at every move, seeing only what a
  player sees (:func:`tutor.hints.hint` on :func:`tutor.knowledge.observe`).
  Slow: every move samples and solves many deals.

Results do not depend on the number of worker processes: every deal is
played on its own, with no shared state and no randomness beyond what the
deal number and the position fix.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from typing import Callable, Iterable

from .deals import deal_for
from .errors import TutorError
from .rules import Rules
from .search import DEFAULT_LIMIT, Limit, solve
from .state import State

POLICIES = ("solver", "greedy", "tutor")


@dataclass(frozen=True)
class DealOutcome:
    """One deal's result: ``won`` is None when the solver could not decide."""

    number: int
    won: bool | None
    cards: int
    seconds: float


@dataclass(frozen=True)
class Survey:
    """The outcome of a survey, with a 95% Wilson interval on the win rate."""

    rules: Rules
    policy: str
    outcomes: list[DealOutcome] = field(repr=False)
    seconds: float

    @property
    def deals(self) -> int:
        return len(self.outcomes)

    @property
    def wins(self) -> int:
        return sum(o.won is True for o in self.outcomes)

    @property
    def unknown(self) -> int:
        return sum(o.won is None for o in self.outcomes)

    @property
    def win_rate(self) -> float:
        """Wins over all deals (undecided deals count as not won: a lower bound if any)."""
        return self.wins / self.deals if self.deals else 0.0

    @property
    def mean_cards(self) -> float:
        return sum(o.cards for o in self.outcomes) / self.deals if self.deals else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson score interval of the win rate; undecided deals widen its top."""
        low, _ = wilson(self.wins, self.deals)
        _, high = wilson(self.wins + self.unknown, self.deals)
        return low, high

    def to_json(self) -> dict:
        low, high = self.interval
        return {
            "variant": self.rules.name or self.rules.describe(),
            "options": {"turn": self.rules.turn, "passes": self.rules.passes,
                        "open_reserve": self.rules.open_reserve, "reserve_piles": self.rules.reserve_piles},
            "policy": self.policy,
            "deals": self.deals,
            "wins": self.wins,
            "unknown": self.unknown,
            "win_rate": round(self.win_rate, 4),
            "mean_cards": round(self.mean_cards, 2),
            "ci95": [round(low, 4), round(high, 4)],
            "seconds": round(self.seconds, 2),
            "first_deal": self.outcomes[0].number if self.outcomes else None,
            "last_deal": self.outcomes[-1].number if self.outcomes else None,
        }


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def parse_range(text: str) -> list[int]:
    """Deal numbers from ``A-B`` (inclusive) or a single number ``N``."""
    raw = str(text).strip()
    parts = raw.split("-")
    try:
        if len(parts) == 1:
            a = b = int(parts[0])
        elif len(parts) == 2:
            a, b = int(parts[0]), int(parts[1])
        else:
            raise ValueError
    except ValueError:
        raise TutorError(f"deal range {text!r} is not valid: expected A-B, like 1-1000") from None
    if a < 1 or b < a:
        raise TutorError(f"deal range {text!r} is not valid: expected 1 <= A <= B, like 1-1000")
    return list(range(a, b + 1))


# ---------------------------------------------------------------- policies


def play_greedy(state: State) -> State:
    """The first playable card in move order (r1..r4, w), else a turn, until the game is over."""
    while True:
        moves = state.legal_moves()
        if not moves:
            return state
        state = state.apply(moves[0])


def play_tutor(state: State) -> State:
    """Follow the tutor's hints, built only from what the player has seen, until the game is over.

    :func:`tutor.hints.play_game` makes the hint's choices (with a cheaper
    search for the expected-cards tie-break), so a survey costs less than
    asking for a full hint at every move.
    """
    from .hints import play_game

    return play_game(state)[0]


def play_deal(number: int, rules: Rules, policy: str, limit: Limit = DEFAULT_LIMIT) -> DealOutcome:
    """Play one deal with one policy."""
    t0 = time.perf_counter()
    state = State.initial(deal_for(number, rules), rules)
    if policy == "solver":
        res = solve(state, limit)
        return DealOutcome(number, res.winnable, res.best_cards, time.perf_counter() - t0)
    if policy == "greedy":
        end = play_greedy(state)
    elif policy == "tutor":
        end = play_tutor(state)
    else:
        raise TutorError(f"unknown policy {policy!r}: expected one of {', '.join(POLICIES)}")
    return DealOutcome(number, end.won, end.cards, time.perf_counter() - t0)


def _job(args) -> DealOutcome:
    number, rules, policy, limit = args
    return play_deal(number, rules, policy, limit)


def run_survey(rules: Rules, numbers: Iterable[int], policy: str = "solver", workers: int = 1,
               limit: Limit = DEFAULT_LIMIT,
               progress: Callable[[int, int], None] | None = None) -> Survey:
    """Play every deal of ``numbers`` with ``policy`` in ``workers`` processes.

    ``progress(done, total)`` is called after each deal. Outcomes keep the
    order of ``numbers``.
    """
    if policy not in POLICIES:
        raise TutorError(f"unknown policy {policy!r}: expected one of {', '.join(POLICIES)}")
    if workers < 1:
        raise TutorError(f"workers {workers!r} is not allowed: expected 1 or more")
    numbers = list(numbers)
    jobs = [(n, rules, policy, limit) for n in numbers]
    t0 = time.perf_counter()
    outcomes: list[DealOutcome] = []
    total = len(jobs)
    if workers == 1 or total <= 1:
        for job in jobs:
            outcomes.append(_job(job))
            if progress:
                progress(len(outcomes), total)
    else:
        # Small chunks keep the progress bar moving and the slow deals spread out.
        chunk = 1 if policy == "tutor" else max(1, min(8, total // (workers * 16)))
        with Pool(workers) as pool:
            for outcome in pool.imap(_job, jobs, chunksize=chunk):
                outcomes.append(outcome)
                if progress:
                    progress(len(outcomes), total)
    return Survey(rules, policy, outcomes, time.perf_counter() - t0)
