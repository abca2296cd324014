"""Win-rate surveys: the policies, deal ranges, batches and a survey's totals.

:func:`tutor.engines.stream_survey` runs a survey batch by batch (here or on
Dask, reading the results store); :func:`run_survey` is the older path that
keeps every outcome in a list and uses a local process pool (kept for
``benchmarks/survey.py scaling`` to compare against).

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

import hashlib
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from multiprocessing import Pool
from pathlib import Path

from .deals import MAX_DEAL_NUMBER, deal_for
from .errors import TutorError
from .estimate import wilson
from .rules import Rules
from .search import DEFAULT_LIMIT, Limit, solve
from .state import State

POLICIES = ("solver", "greedy", "tutor")


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


SURVEY_FIELDS = ("variant", "options", "policy", "deals", "wins", "unknown", "win_rate", "mean_cards", "ci95",
                 "seconds", "first_deal", "last_deal")
"""The fields of a pooled survey's summary (a streamed one adds the store's counts)."""


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
    from_store: int = 0
    seconds: float = 0.0
    first: int | None = None
    last: int | None = None
    undecided: list[int] = field(default_factory=list)

    UNDECIDED_LISTED = 100

    def add(self, outcome: DealOutcome, stored: bool = False) -> None:
        self.deals += 1
        self.wins += outcome.won is True
        self.cards += outcome.cards
        self.from_store += stored
        if outcome.won is None:
            self.unknown += 1
            if len(self.undecided) < self.UNDECIDED_LISTED:
                self.undecided.append(outcome.number)
        self.first = outcome.number if self.first is None else min(self.first, outcome.number)
        self.last = outcome.number if self.last is None else max(self.last, outcome.number)

    @property
    def win_rate(self) -> float:
        """Wins over all deals (undecided deals count as not won: a lower bound if any)."""
        return self.wins / self.deals if self.deals else 0.0

    @property
    def mean_cards(self) -> float:
        return self.cards / self.deals if self.deals else 0.0

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
            "interval": [round(low, 4), round(high, 4)],
            "undecided": self.unknown,
            "undecided_deals": list(self.undecided),
            "from_store": self.from_store,
            "computed": self.deals - self.from_store,
            "seconds": round(self.seconds, 2),
            "first_deal": self.first,
            "last_deal": self.last,
        }


MAX_SURVEY_DEALS = 10**9
"""The most deals one survey may take: at ~100 deals/s a core, that is already months of work."""

_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+))?")


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
    m = _RANGE.fullmatch(raw) if len(raw) <= 41 else None
    if m is None:
        raise TutorError(f"deal range {text!r} is not valid: expected A-B or N in digits 0-9, like 1-1000 or 7")
    a = int(m.group(1))
    b = int(m.group(2)) if m.group(2) is not None else a
    if a < 1 or b < a:
        raise TutorError(f"deal range {text!r} is not valid: expected 1 <= A <= B, like 1-1000")
    if b >= MAX_DEAL_NUMBER:
        raise TutorError(f"deal range {text!r} is out of range: deal numbers go from 1 to {MAX_DEAL_NUMBER - 1}")
    if b - a + 1 > MAX_SURVEY_DEALS:
        raise TutorError(f"deal range {text!r} has {b - a + 1:,} deals: a survey takes at most "
                         f"{MAX_SURVEY_DEALS:,}, like 1-{MAX_SURVEY_DEALS}")
    return DealRange(a, b)


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


def play_deal(number: int, rules: Rules, policy: str, limit: Limit = DEFAULT_LIMIT,
              retry_nodes: int | None = None) -> DealOutcome:
    """Play one deal with one policy.

    With the solver, a deal that the search leaves undecided at ``limit``
    gets a second, win-only search (faster on lost deals) with
    ``retry_nodes`` positions, when that is more than the limit's.
    """
    t0 = time.perf_counter()
    state = State.initial(deal_for(number, rules), rules)
    if policy == "solver":
        res = solve(state, limit)
        won, cards, tried = res.winnable, res.best_cards, limit.nodes
        if won is None and retry_nodes and limit.nodes is not None and retry_nodes > limit.nodes:
            again = solve(state, Limit(nodes=retry_nodes, seconds=limit.seconds), want="win")
            won, cards, tried = again.winnable, max(cards, again.best_cards), retry_nodes
        return DealOutcome(number, won, 52 if won else cards, time.perf_counter() - t0, tried)
    if policy == "greedy":
        end = play_greedy(state)
    elif policy == "tutor":
        end = play_tutor(state)
    else:
        raise TutorError(f"unknown policy {policy!r}: expected one of {', '.join(POLICIES)}")
    return DealOutcome(number, end.won, end.cards, time.perf_counter() - t0)


def play_batch(numbers: Iterable[int], rules: Rules, policy: str, limit: Limit = DEFAULT_LIMIT,
               retry_nodes: int | None = None) -> tuple[str, list[DealOutcome]]:
    """Play a batch of deals: the unit of work a survey sends to a worker.

    Pure and idempotent (the same arguments give the same outcomes, bar the
    timings), so a batch lost with its worker can simply run again. Returns
    the engine version too, so a worker with another solver is caught.
    """
    return engine_version(policy), [play_deal(n, rules, policy, limit, retry_nodes) for n in numbers]


_SOLVER_MODULES = ("cards", "rules", "deals", "notation", "state", "constraints", "search", "search_moves",
                   "search_dfs", "search_proof")
_ENGINE_MODULES = {
    "greedy": ("cards", "rules", "deals", "notation", "state"),
    "solver": _SOLVER_MODULES,
    "tutor": _SOLVER_MODULES + ("knowledge", "hints", "infoset"),
}


@cache
def engine_version(policy: str) -> str:
    """A short hash of the source of every module that decides a policy's answers.

    Stored results are keyed by it, so a changed solver never reuses old answers.
    """
    if policy not in _ENGINE_MODULES:
        raise TutorError(f"unknown policy {policy!r}: expected one of {', '.join(POLICIES)}")
    digest = hashlib.sha256(policy.encode())
    here = Path(__file__).parent
    for name in _ENGINE_MODULES[policy]:
        digest.update((here / f"{name}.py").read_bytes())
    return digest.hexdigest()[:12]


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
