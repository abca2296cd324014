"""Scoring the player's candidate moves from what the player has seen.

A hint is computed from an :class:`~tutor.knowledge.Observation` only, never
from the position itself, so it cannot use a face-down card. Each legal move
is scored by perfect-information Monte Carlo: deals consistent with the
observation are sampled (the unseen cards shuffled into the hidden slots),
the position after the move is solved in each sample with every card of *that
sample* known, and the results are averaged into a chance to win and an
expected final score. Every move is scored on the same samples, so the
comparison is paired and fair. The samples come from the observation's own
seed and the solver runs on node limits, so the same position always gets the
same hint, on any machine.

Structure known for certain comes before sampling: a forced move (the only legal one) needs no choice,
and :mod:`tutor.certainty` finds the plays that only add options, the turns that keep every option, and the
row openings and turns lost in every consistent deal. Such moves are best (or lost) in every consistent deal,
so the hint takes them whatever the samples say. The other moves are still scored honestly: a certain move
costs one search per sample (it keeps the position's value), and every move gets the same samples.

**Every figure with its uncertainty.** Each candidate carries its samples, a
95% Wilson interval for its win chance, a t interval for its expected cards
and, against the best move, the paired drop with its interval
(:mod:`tutor.estimate`). Samples are drawn in batches while the answer is in
doubt: while another move could be better than the leader by a whole label
band, or a move's drop interval straddles a band threshold (5, 10, 15
points), up to the budget. When few deals are consistent with what the
player has seen (late in a game: the talon known, a handful of face-down
reserve cards), every one of them is solved instead and the figures are
exact.

**Warnings.** :meth:`Hint.warns` (the ``--tutor`` warning) fires only when
the lower end of a move's paired drop interval reaches the threshold, so a
gap of one sample never becomes a warning.

A solve stopped by its node limit is "undecided": it counts as no win in
``win`` (a lower bound) and is reported in ``undecided``, never hidden.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum

from .cards import NAMES
from .certainty import (  # noqa: F401 (their old home)
    certain_moves,
    is_safe,
    lost_for_certain,
    opens_row,
    turn_keeps_value,
)
from .certainty import preference as _preference
from .errors import TutorError
from .estimate import Drop, Estimate, wilson
from .infoset import INFOSET_NODES, INFOSET_UNSEEN, BlindValues, hint_values, wanted  # noqa: F401 (the hint API)
from .knowledge import Observation
from .narrate.tips import TipId
from .notation import TURN, Move
from .policies import play_game  # noqa: F401 (its old home)
from .sampling import BANDS, Outcomes, SolveCache, _solve_sample, band, best_in_doubt, in_doubt, outcomes_in  # noqa: F401 (the hint API)
from .search import Limit
from .state import State

DEFAULT_SAMPLES = 128
"""The sample budget of a hint: the most consistent deals drawn for one decision."""

FIRST_BATCH = 32
"""Samples drawn first; more come in batches of :data:`BATCH` while the answer is in doubt."""

BATCH = 32

EXACT_DEALS = 120
"""Up to this many consistent deals (5 unseen cards), every one is solved: the figures are exact."""

WIN_NODES = 20_000
"""Node limit of the winnability search in one sample (cheap: most finish in a few hundred)."""

BEST_NODES = 2_500
"""Node limit of the best-score search in a lost sample (its score is then the best found)."""

EXACT_BEST_NODES = 200_000
"""The same where every consistent deal is solved (at most :data:`EXACT_DEALS`, late in a game, where a
best-score search is small): figures called exact must be. In 2 such positions 2,500 nodes left 6 and 24
searches short of the best (48 cards shown for 50); the largest full search took 23,453 nodes. A search
still cut at this limit makes the figures sampled ones, with their intervals, not exact. Each search gets no
more than what is left of the work budget (:data:`HINT_NODES`): bridesmaids 177 after 21 moves had 6 deals,
each lost, each best score a proof of 93,000-200,000 positions (213 s, two cut at the limit even so)."""

HINT_NODES = 1_200
"""The searches' work budget: positions visited per sample of the budget (153,600 for 128). Past it the hint
draws no more samples (after at least :data:`MIN_SAMPLES`) and says so. A count, not a clock: the same hint on
any machine. On ``limited`` (deals 1-12) it brings the hint's CPU p95 from 6.10 s to under 2 s, stopping 16 of
53 positions; on Osmosis (deals 1-30) 23 of 167 stop, at 41-101 samples: ``benchmarks/hints.py latency``."""

MIN_SAMPLES = 20
"""The fewest samples a hint stops at when its work budget (:data:`HINT_NODES`) is spent."""

DEFAULT_LIMIT = Limit(nodes=WIN_NODES)


class Why(StrEnum):
    """How a hint's best move was settled (the ``why`` of its JSON)."""

    FORCED = "forced"
    """The only legal move."""
    SAFE = "safe"
    """A play that only adds options (:func:`tutor.certainty.is_safe`)."""
    TURN = "turn"
    """Turning keeps every option (:func:`tutor.certainty.turn_keeps_value`)."""
    EXACT = "exact"
    """Every consistent deal solved."""
    SAMPLED = "sampled"
    """Sampled deals consistent with what the player has seen."""


class Method(StrEnum):
    """The kind of estimate behind a hint's figures and its choice (the ``method`` of its JSON)."""

    PIMC = "pimc"
    """Perfect-information Monte Carlo: each sampled deal solved with every card known."""
    EXACT = "exact"
    """Every consistent deal solved (or the information-set search over all of them)."""
    INFOSET = "infoset"
    """The best move is the information-set search's (:mod:`tutor.infoset`) on the sampled deals."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One legal move with its scores.

    ``win``: share of samples won after the move (undecided ones count as not
    won), ``interval`` its 95% Wilson interval. ``cards``: mean final score
    (52 for a win; for a lost sample the best score the search found),
    ``cards_interval`` its 95% t interval. ``card``: the card the move plays
    (None for a turn). ``samples``: samples scored; ``undecided``: how many of
    them the node limit left undecided. ``exact``: every consistent deal was
    solved (the intervals are the values). ``drop``: against the best move, on
    the same samples (None for the best move itself). ``certain``: the move
    keeps the position's value in every consistent deal (a safe play, or a
    turn that loses nothing). ``lost``: the move loses in every consistent
    deal. ``opens_row``: the row (1-4) it opens, if any. ``blind``: where
    the information-set search ran, the move's win chance for a player who
    sees only the table, ``blind_interval`` its 95% interval.
    """

    move: Move
    win: float
    cards: float
    card: int | None = None
    samples: int = 0
    undecided: int = 0
    certain: bool = False
    lost: bool = False
    opens_row: int | None = None
    interval: tuple[float, float] = (0.0, 1.0)
    cards_interval: tuple[float, float] = (0.0, 52.0)
    exact: bool = False
    drop: Drop | None = None
    method: Method = Method.PIMC
    blind: float | None = None
    blind_interval: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", Method(self.method))

    def to_json(self) -> dict:
        out = {"move": str(self.move), "win": round(self.win, 4), "cards": round(self.cards, 2),
               "card": NAMES[self.card] if self.card is not None else None,
               "samples": self.samples, "undecided": self.undecided,
               "interval": [round(self.interval[0], 4), round(self.interval[1], 4)],
               "cards_interval": [round(self.cards_interval[0], 2), round(self.cards_interval[1], 2)]}
        if self.exact:
            out["exact"] = True
        out["method"] = self.method
        if self.blind is not None:
            out["blind_win"] = round(self.blind, 4)
        if self.blind_interval is not None:
            out["blind_interval"] = [round(self.blind_interval[0], 4), round(self.blind_interval[1], 4)]
        if self.drop is not None:
            out.update(self.drop.to_json())
        if self.opens_row is not None:
            out["opens_row"] = self.opens_row
        if self.certain:
            out["certain"] = True
        if self.lost:
            out["lost"] = True
        return out


@dataclass(frozen=True)
class Hint:
    """The advice at one position: the best move, every legal move scored, and why.

    ``why``: how the best move was settled: 'forced', 'safe' (a play that only
    adds options), 'turn' (turning keeps every option), 'exact' (every
    consistent deal solved) or 'sampled'. ``tips``: ids of :data:`tutor.narrate.TIPS`
    the reason draws on.
    """

    best: Move
    candidates: list[Candidate]
    reason: str
    why: Why = Why.SAMPLED
    samples: int = 0
    exact: bool = False
    seconds: float = 0.0
    tips: tuple[TipId, ...] = field(default_factory=tuple)
    method: Method = Method.PIMC
    budget_spent: bool = False
    """Sampling stopped at ``samples`` because the searches' work budget (:data:`HINT_NODES`) was spent."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "why", Why(self.why))
        object.__setattr__(self, "method", Method(self.method))

    def candidate(self, move: Move) -> Candidate:
        for c in self.candidates:
            if c.move == move:
                return c
        raise TutorError(f"{move} is not a legal move here: expected one of "
                         + ", ".join(str(c.move) for c in self.candidates))

    def warns(self, move: Move, threshold: float) -> bool:
        """The ``--tutor`` warning: ``move``'s drop from the best is at least ``threshold`` points with
        confidence (the lower end of its paired 95% interval; an exact drop is taken as it is)."""
        cand = self.candidate(move)
        if move == self.best or cand.drop is None:
            return False
        return cand.drop.lo * 100 >= threshold

    def ranked(self) -> list[Candidate]:
        """The candidates best first (the best move, then by win chance and score)."""
        return sorted(self.candidates, key=lambda c: (c.move != self.best, -c.win, -c.cards))

    def to_json(self) -> dict:
        return {"best": str(self.best),
                "candidates": [c.to_json() for c in self.ranked()],
                "reason": self.reason,
                "why": self.why, "samples": self.samples, "exact": self.exact,
                "tips": list(self.tips), "method": self.method, "budget_spent": self.budget_spent}


# ---------------------------------------------------------------- sampling


def leader(obs: Observation, scores: Outcomes, certain: list[Move]) -> Move:
    """The move with the best mean (certain moves first: they are best in every deal).

    One exception to the mean: a move that opens a foundation row loses to a
    move that wins as many samples without opening one, whatever their
    expected cards. The samples are solved with every card known, so they see
    no risk in opening a row early; the game's own advice is to open the lower
    rows as late as possible. Where no sample is won, the expected cards decide.
    """
    if certain:
        return certain[0]

    def key(m: Move) -> tuple[int, bool, float, int]:
        won = sum(scores.won(m))
        return (-won, bool(won) and opens_row(obs, m) is not None, -scores.mean(m), _preference(obs, m, certain))

    return min(scores.moves, key=key)


def exact_worlds(obs: Observation, budget: int) -> list[State] | None:
    """Every consistent deal when they are few (at most :data:`EXACT_DEALS`, or the budget), else None."""
    if obs.consistent_deals() <= max(budget, EXACT_DEALS):
        return obs.every_state()
    return None


def score_moves(obs: Observation, samples: int | None = None, limit: Limit | None = None,
                best_nodes: int = BEST_NODES, cache: SolveCache | None = None,
                bands: tuple[float, float, float] = BANDS, infoset: bool = True,
                best_only: bool = False, budget: bool = True) -> ScoredPosition:
    """Score every legal move of ``obs`` (see the module docstring); the scores and how they were settled.

    ``samples``: the sample budget (default :data:`DEFAULT_SAMPLES`). Samples
    are drawn in batches (:data:`FIRST_BATCH`, then :data:`BATCH` more) while
    the best move or a move's label band is in doubt (:func:`in_doubt`).
    ``infoset``: where PIMC's answer may be wrong and the search is affordable
    (:func:`tutor.infoset.wanted`), the best move is the information-set search's
    (:mod:`tutor.infoset`); False keeps PIMC's (the old behaviour).
    ``best_only``: more samples only while the best move is in doubt
    (:func:`best_in_doubt`), not a move's label band (the tutor as a player).
    ``budget``: stop once the searches' work budget is spent (:data:`HINT_NODES`);
    False for a verdict as sure as the samples allow (the drill's).
    """
    if not isinstance(obs, Observation):
        raise TutorError("a hint needs what the player has seen (an Observation from observe(state)), "
                         f"not {type(obs).__name__}")
    most = DEFAULT_SAMPLES if samples is None else samples
    if most < 1:
        raise TutorError(f"samples {samples!r} is not allowed: expected a positive number")
    win_nodes = (limit or DEFAULT_LIMIT).nodes or WIN_NODES
    moves = obs.legal_moves()
    if not moves:
        raise TutorError("the game is over: there is no move to score")
    cache = cache if cache is not None else SolveCache()
    certain = certain_moves(obs, moves)
    lost = {m for m in moves if lost_for_certain(obs, m)}
    if len(moves) == 1:
        why = Why.FORCED
    elif certain:
        why = Why.TURN if certain[0] == TURN else Why.SAFE
    else:
        why = Why.SAMPLED

    every = exact_worlds(obs, most)
    exact = every is not None
    states = every if every is not None else obs.samples(most)  # seeded from the observation alone
    scores = Outcomes(moves)
    done = 0
    size = len(states) if exact else min(most, FIRST_BATCH)
    cut = cache.cut
    if exact and best_nodes > 0 and not best_only:  # the tutor as a player needs the best move, not the figures
        best_nodes = max(best_nodes, EXACT_BEST_NODES)
    # the searches' work is bounded too (not for the tutor as a player); spent only where it stopped the sampling,
    # not at a batch's end; every consistent deal is solved past it (its budget the default's at least: a
    # smaller --samples does not shrink it, as it solves them all whatever it says), searches shorter
    work = None if best_only or not budget else HINT_NODES * (max(most, DEFAULT_SAMPLES) if exact else most)
    start, spent = cache.nodes, False
    until = None if work is None or not exact else (start + work, BEST_NODES)  # each search: what is left of it
    while done < len(states):
        end = done + size
        for world in states[done:end]:
            scores.add(outcomes_in(world, moves, certain, lost, win_nodes, best_nodes, cache, until))
            done += 1
            if work is not None and not exact and done >= MIN_SAMPLES and cache.nodes - start >= work \
                    and done < len(states):
                spent = True
                break
        size = min(BATCH, len(states) - done)
        lead = leader(obs, scores, certain)
        if exact or why == Why.FORCED or not (
                best_in_doubt(scores, lead, bands[0]) if best_only else in_doubt(scores, lead, bands)):
            spent = spent and done < end
            break
        if spent:
            break
    if exact and why == Why.SAMPLED:
        why = Why.EXACT
    best = moves[0] if why == Why.FORCED else leader(obs, scores, certain)
    method = Method.EXACT if exact else Method.PIMC
    blind = None
    if infoset and why in (Why.SAMPLED, Why.EXACT) and wanted(obs, scores, moves, lost, exact):
        blind = hint_values(obs, states, [m for m in moves if m not in lost], cache, EXACT_DEALS, scores)
        if blind is not None:
            method = Method.EXACT if blind.exact else Method.INFOSET
            values = blind.values
            best = max(values, key=lambda m: (values[m], scores.mean(m), -_preference(obs, m, certain)))
    bounded = exact and not best_only and cache.cut > cut
    if exact and not best_only and (bounded or any(scores.undecided(m) for m in moves)):
        # a score or a win only bounded by a node limit: every consistent deal, but figures not exact
        exact = False
        why = Why.SAMPLED if why == Why.EXACT else why
        method = Method.PIMC if method == Method.EXACT and blind is None else method
    candidates = []
    for m in moves:
        est = scores.estimate(m, exact)
        undecided = scores.undecided(m)
        # an undecided deal counts as lost in the figure, and may be won: the interval reaches up for it
        win_hi = est.win_hi if not undecided else max(
            est.win_hi, wilson(round(est.win * est.samples) + undecided, est.samples)[1])
        candidates.append(Candidate(
            move=m, win=est.win, cards=est.cards, card=obs.card_of(m),
            samples=est.samples, undecided=undecided, certain=m in certain, lost=m in lost,
            # a move lost in every consistent deal: its win is known, not sampled
            opens_row=opens_row(obs, m), interval=(0.0, 0.0) if m in lost else (est.win_lo, win_hi),
            # a best score cut by the node limit is a lower bound: the cards may reach up to 52
            cards_interval=(max(est.cards_lo, float(obs.cards)), 52.0 if bounded else est.cards_hi), exact=exact,
            drop=None if m == best else scores.drop(best, m, exact), method=method,
            blind=None if blind is None else blind.values.get(m, 0.0),
            blind_interval=None if blind is None else _blind_interval(blind, m, est)))
    return ScoredPosition(best, candidates, why, done, exact, scores, method, spent)


def _blind_interval(blind: BlindValues, move: Move, est: Estimate) -> tuple[float, float]:
    """The 95% interval of ``move``'s blind win chance (:func:`tutor.narrate.blind.blind_interval`, from the
    value before its clamp); a move lost in every consistent deal has 0 for certain."""
    from .narrate.blind import blind_interval

    if move not in blind.raw:
        return 0.0, 0.0
    return blind_interval(blind.raw[move], est.win, est.samples, blind.searched, blind.exact)


@dataclass(frozen=True)
class ScoredPosition:
    """What :func:`score_moves` found: the best move, every candidate, and how it was settled."""

    best: Move
    candidates: list[Candidate]
    why: Why
    samples: int
    exact: bool
    outcomes: Outcomes | None = field(default=None, repr=False, compare=False)
    method: Method = Method.PIMC
    budget_spent: bool = False
    """Sampling stopped because the searches' work budget (:data:`HINT_NODES`) was spent."""

    def __post_init__(self) -> None:
        # callers may pass the JSON strings; the values held are the enums.
        object.__setattr__(self, "why", Why(self.why))
        object.__setattr__(self, "method", Method(self.method))


def hint(obs: Observation, samples: int | None = None, limit: Limit | None = None, budget: bool = True) -> Hint:
    """The hint for the player of ``obs``: every legal move scored, the best one, and why.

    ``samples``: the sample budget (default :data:`DEFAULT_SAMPLES`); ``limit``:
    the node limit of each winnability search (default :data:`DEFAULT_LIMIT`);
    ``budget``: the searches' work budget applies (:func:`score_moves`).
    """
    from .narrate import reason_for

    t0 = time.perf_counter()
    scored = score_moves(obs, samples, limit, budget=budget)
    text, tips = reason_for(obs, scored)
    return Hint(scored.best, scored.candidates, text, scored.why, scored.samples, scored.exact,
                time.perf_counter() - t0, tuple(tips), scored.method, scored.budget_spent)


# ---------------------------------------------------------------- the tutor as a player


POLICY_SAMPLES = 32
"""The tutor policy's sample budget (it needs the best move, not figures a player reads). A larger budget
grows in batches of :data:`BATCH` while the best move is in doubt (:func:`best_in_doubt`); 256 was measured
and not kept: on the 113 solver-winnable deals of the strength runs it won 1 game the 32-sample policy lost
and lost 6 it won, at about twice the CPU (README, "Stronger blind play")."""

POLICY_BEST_NODES = 600
"""Node limit of the best-score searches when the tutor plays (scores only break ties there)."""


def choose(obs: Observation, samples: int | None = None, limit: Limit | None = None, infoset: bool = True) -> Move:
    """The move the tutor plays: a certain one without sampling, else the hint's best."""
    moves = obs.legal_moves()
    if not moves:
        raise TutorError("the game is over: there is no move to choose")
    if len(moves) == 1:
        return moves[0]
    certain = certain_moves(obs, moves)
    if certain:
        return certain[0]
    return score_moves(obs, POLICY_SAMPLES if samples is None else samples, limit,
                       best_nodes=POLICY_BEST_NODES, infoset=infoset, best_only=True).best

