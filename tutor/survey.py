"""Win-rate surveys: deal ranges, a survey's totals, and the older pooled survey.

:func:`tutor.engines.stream_survey` runs a survey batch by batch (here or on
Dask, reading the results store); :func:`run_survey` is the older path that
keeps every outcome in a list and plays on the process pool
(:func:`tutor.pool.parallel_map`; kept for ``benchmarks/survey.py
scaling`` to compare against). The policies themselves, and the function
that plays a deal with one, are in :mod:`tutor.policies`.

Results do not depend on the number of worker processes: every deal is
played on its own, with no shared state and no randomness beyond what the
deal number and the position fix.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .deals import DEAL_RANGE, MAX_DEAL_NUMBER
from .errors import TutorError
from .estimate import t95, wilson
from .policies import (
    POLICIES,
    DealOutcome,
    Policy,
    engine_version,
    parse_policy,
    play_batch,
    play_deal,
    play_greedy,
    play_tutor,
)
from .pool import parallel_map
from .rules import Rules
from .search import DEFAULT_LIMIT, OPTIONS, Limit
from .textsafe import quoted

__all__ = [
    # Defined here.
    "DealRange", "MAX_SURVEY_DEALS", "SURVEY_FIELDS", "Survey", "Tally", "parse_range", "run_survey", "wilson",
    # Their home is tutor.policies; imported from here by the store, the CLI and older code.
    "POLICIES", "DealOutcome", "Policy", "engine_version", "play_batch", "play_deal", "play_greedy", "play_tutor",
]
@dataclass(frozen=True)
class Survey:
    """The outcome of a survey, with a 95% Wilson interval on the win rate."""

    rules: Rules
    policy: str
    outcomes: list[DealOutcome] = field(repr=False)
    seconds: float

    def tally(self) -> Tally:
        """The survey's totals: the same summary a streamed survey gives."""
        totals = Tally(self.rules, self.policy, seconds=self.seconds)
        for outcome in self.outcomes:
            totals.add(outcome)
        return totals

    @property
    def deals(self) -> int:
        return len(self.outcomes)

    @property
    def wins(self) -> int:
        return self.tally().wins

    @property
    def unknown(self) -> int:
        return self.tally().unknown

    @property
    def win_rate(self) -> float:
        """Wins over all deals (undecided deals count as not won: a lower bound if any)."""
        return self.tally().win_rate

    @property
    def mean_cards(self) -> float:
        return self.tally().mean_cards

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson score interval of the win rate; undecided deals widen its top."""
        return self.tally().interval

    def to_json(self) -> dict:
        summary = self.tally().to_json()
        return {key: summary[key] for key in SURVEY_FIELDS}


SURVEY_FIELDS = ("variant", "options", "policy", "deals", "wins", "unknown", "win_rate", "mean_cards", "mean_cards_interval", "ci95",
                 "seconds", "first_deal", "last_deal")
"""The fields of a pooled survey's summary (a streamed one adds the store's counts)."""


def scores_exact(rules: Rules, limit: Limit) -> bool:
    """Whether every best score the solver gives under ``rules`` within ``limit`` is exact, whatever the deal:
    with turn 1 and limited passes its search is one line per row order (:mod:`tutor.search`), at most 24
    orders of at most 53 positions each, searched at most twice (the win, then the best score), and that line
    never stops for time."""
    return rules.turn == 1 and rules.passes > 0 and OPTIONS["sweep"] and (
        limit.nodes is None or limit.nodes >= SWEEP_NODES)


SWEEP_NODES = 2 * 24 * 53
"""The most positions a solve with turn 1 and limited passes can visit (:func:`scores_exact`)."""


@dataclass
class Tally:
    """A survey's running totals: what a summary needs, whatever the number of deals.

    Totals are sums of per-deal values, so they do not depend on the order in
    which batches finish, the number of workers or the engine.
    """

    rules: Rules
    policy: str
    deals: int = 0
    wins: int = 0
    unknown: int = 0
    cards: int = 0
    cards_squared: int = 0  # the sum of each deal's cards squared: the spread of the mean's interval
    from_store: int = 0
    seconds: float = 0.0
    first: int | None = None
    last: int | None = None
    undecided: list[int] = field(default_factory=list)
    #: The solver's verdicts on the same deals are counted too (:meth:`add_solver`).
    paired: bool = False
    solver_wins: int = 0
    solver_unknown: int = 0
    winnable_won: int = 0
    solver_from_store: int = 0
    #: Every best score the solver gives under these rules and limit is exact (:func:`scores_exact`).
    exact: bool = False

    UNDECIDED_LISTED = 100

    def add(self, outcome: DealOutcome, stored: bool = False) -> None:
        self.deals += 1
        self.wins += outcome.won is True
        self.cards += outcome.cards
        self.cards_squared += outcome.cards * outcome.cards
        self.from_store += stored
        if outcome.won is None:
            self.unknown += 1
            if len(self.undecided) < self.UNDECIDED_LISTED:
                self.undecided.append(outcome.number)
        self.first = outcome.number if self.first is None else min(self.first, outcome.number)
        self.last = outcome.number if self.last is None else max(self.last, outcome.number)

    def add_solver(self, outcome: DealOutcome, solver: DealOutcome, stored: bool = False) -> None:
        """Count the solver's verdict on the deal of ``outcome`` (the policy's), already :meth:`add`-ed."""
        self.solver_from_store += stored
        self.solver_wins += solver.won is True
        self.solver_unknown += solver.won is None
        self.winnable_won += solver.won is True and outcome.won is True

    @property
    def win_rate(self) -> float:
        """Wins over all deals (undecided deals count as not won: a lower bound if any)."""
        return self.wins / self.deals if self.deals else 0.0

    @property
    def of_winnable(self) -> float:
        """The share of the solver-winnable deals the policy won."""
        return self.winnable_won / self.solver_wins if self.solver_wins else 0.0

    @property
    def of_winnable_interval(self) -> tuple[float, float]:
        """Its 95% Wilson interval."""
        return wilson(self.winnable_won, self.solver_wins)

    @property
    def mean_cards(self) -> float:
        return self.cards / self.deals if self.deals else 0.0

    @property
    def cards_interval(self) -> tuple[float, float]:
        """The mean cards' 95% Student-t interval over the deals (1-52, a score's range: the base card is on
        its row from the start; the whole range for fewer than 2; where every deal scored the same, the scores
        the share of deals that could still differ would allow)."""
        n = self.deals
        if n < 2:
            return 1.0, 52.0
        mean = self.mean_cards
        var = max(0.0, (self.cards_squared - n * mean * mean) / (n - 1))
        if var == 0:
            # every deal the same score: the t interval has no width, but more deals could differ; the share of
            # them that could is at most Wilson's top for none in n (as the win rate's interval has it), and each
            # such deal lies within 1-52
            share = wilson(0, n)[1]
            return mean - share * (mean - 1.0), mean + share * (52.0 - mean)
        half = t95(n - 1) * math.sqrt(var / n)
        return max(1.0, mean - half), min(52.0, mean + half)

    @property
    def cards_at_least(self) -> bool:
        """The mean counts deals the solver did not win: each one's cards are the best score its search found
        within the node limit, exact unless the search was cut there, so the mean is a lower bound (unless
        no search can be cut there: :attr:`exact`)."""
        return self.policy == "solver" and self.wins < self.deals and not self.exact

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson score interval of the win rate; undecided deals widen its top."""
        low, _ = wilson(self.wins, self.deals)
        _, high = wilson(self.wins + self.unknown, self.deals)
        return low, high

    def to_json(self) -> dict:
        low, high = self.interval
        paired: dict = {}
        if self.paired:
            lo, hi = self.of_winnable_interval
            paired = {"solver_wins": self.solver_wins, "solver_unknown": self.solver_unknown,
                      "solver_from_store": self.solver_from_store,
                      "of_winnable": {"won": self.winnable_won, "winnable": self.solver_wins,
                                      "rate": round(self.of_winnable, 4) if self.solver_wins else None,
                                      "interval": [round(lo, 4), round(hi, 4)] if self.solver_wins else None}}
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
            "mean_cards_at_least": self.cards_at_least,
            "mean_cards_interval": [round(x, 2) for x in self.cards_interval],
            "ci95": [round(low, 4), round(high, 4)],
            "interval": [round(low, 4), round(high, 4)],
            "undecided": self.unknown,
            "undecided_deals": list(self.undecided),  # the first UNDECIDED_LISTED of them
            "undecided_deals_complete": len(self.undecided) == self.unknown,
            "from_store": self.from_store,
            "computed": self.deals - self.from_store,
            "seconds": round(self.seconds, 2),
            "first_deal": self.first,
            "last_deal": self.last,
            **paired,
        }


MAX_SURVEY_DEALS = 10**9
"""The most deals one survey may take: at ~100 deals/s a core, that is already months of work."""

_RANGE = re.compile(r"([0-9]+)(?:\s*-\s*([0-9]+))?")


@dataclass(frozen=True, slots=True)
class DealRange:
    """The deal numbers ``first..last`` (inclusive), never built as a list: surveys stream them."""

    first: int
    last: int

    def __len__(self) -> int:
        return self.last - self.first + 1

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.first, self.last + 1))

    def __str__(self) -> str:
        return f"{self.first}-{self.last}" if self.last != self.first else str(self.first)

    def batches(self, size: int) -> Iterator[tuple[int, int]]:
        """Consecutive ``(first, last)`` pieces of at most ``size`` deals, lazily."""
        for a in range(self.first, self.last + 1, size):
            yield a, min(a + size - 1, self.last)


def parse_range(text: str) -> DealRange:
    """Deal numbers from ``A-B`` (inclusive) or a single number ``N``, in ASCII digits."""
    raw = str(text).strip()
    shown = quoted(text)
    m = _RANGE.fullmatch(raw)
    if m is None:
        raise TutorError(f"deal range {shown} is not valid: expected A-B or N in digits 0-9, like 1-1000 or 7")
    if any(len(g.lstrip("0")) > 64 for g in m.groups() if g is not None):  # far past the last deal
        raise TutorError(f"deal range {shown} is out of range: deal numbers go from {DEAL_RANGE}")
    a = int(m.group(1).lstrip("0") or "0")  # int() refuses over 4,300 digits, leading zeros too
    b = int(m.group(2).lstrip("0") or "0") if m.group(2) is not None else a
    if a < 1 or b < a:
        raise TutorError(f"deal range {shown} is not valid: expected 1 <= A <= B, like 1-1000")
    if b > MAX_DEAL_NUMBER:
        raise TutorError(f"deal range {shown} is out of range: deal numbers go from {DEAL_RANGE}")
    if b - a + 1 > MAX_SURVEY_DEALS:
        raise TutorError(f"deal range {shown} has {b - a + 1:,} deals: a survey takes at most "
                         f"{MAX_SURVEY_DEALS:,}, like 1-{MAX_SURVEY_DEALS}")
    return DealRange(a, b)


def _job(args: tuple[int, Rules, Policy, Limit]) -> DealOutcome:
    number, rules, policy, limit = args
    return play_deal(number, rules, policy, limit)


def run_survey(rules: Rules, numbers: Iterable[int], policy: str = "solver", workers: int = 1,
               limit: Limit = DEFAULT_LIMIT,
               progress: Callable[[int, int], None] | None = None) -> Survey:
    """Play every deal of ``numbers`` with ``policy`` in ``workers`` processes.

    ``progress(done, total)`` is called after each deal. Outcomes keep the
    order of ``numbers``.
    """
    chosen = parse_policy(policy)
    if workers < 1:
        raise TutorError(f"workers {workers!r} is not allowed: expected 1 or more")
    jobs = [(n, rules, chosen, limit) for n in numbers]
    t0 = time.perf_counter()
    outcomes: list[DealOutcome] = []
    total = len(jobs)
    # Small chunks keep the progress bar moving and the slow deals spread out.
    chunk = 1 if chosen is Policy.TUTOR else max(1, min(8, total // (workers * 16)))
    for outcome in parallel_map(_job, jobs, workers if total > 1 else 1, chunksize=chunk):
        outcomes.append(outcome)
        if progress:
            progress(len(outcomes), total)
    return Survey(rules, chosen, outcomes, time.perf_counter() - t0)
