"""Win chances through a whole game, on one set of sampled deals (the review's scoring).

The review scores every position of a game from what the player could see
there. Scoring each position on its own fresh samples makes the win-chance
chart jump with nothing revealed (two estimates from different samples
differ by their noise). Here the positions share their samples: the hidden
cards are drawn once, at the first position, and carried through the game
(:class:`tutor.knowledge.SharedWorlds`); a sampled deal is only repaired
where a card turned up that contradicts it. So between two positions where
nothing new was seen, every sampled deal is the same deal, the best move's
chance cannot rise, and a change at a reveal (luck) is measured on the same
deals, world by world.

Per position (:class:`PlyScore`):

- forced moves and free plays (a reserve card that opens no row: it keeps
  the position's value) get their own value, the played move's chance on
  the shared deals (not the last graded move's);
- a graded move gets every legal move scored on the shared deals, and the
  paired drop from the best move to the played one. While its label band is
  in doubt (the drop's 95% interval straddles a threshold), more deals are
  drawn for the best and the played move, up to the label budget;
- a position already lost whatever is played (``decided``: no legal move
  wins in any consistent deal) offers no choice that matters for the win:
  the review leaves it ungraded, like a forced move. When every sampled
  deal gives every move a loss, every consistent deal (up to
  :data:`DECIDE_DEALS` of them) is solved for the win to find out (the
  figures stay the sampled ones); and a position whose reserve piles, all
  known, leave no row order that can be completed is lost whatever the
  move (``blocked``). A position where every move keeps the win is not
  decided: a later move can still throw the win away, so its move is
  graded (best, with no drop);
- a forced turn in a pass with no card played since the redeal, when none
  of the cards still to turn (all known from the second pass on) can be
  played, ends the game blocked by the no-progress rule whatever the hidden
  cards are, and so does a forced redeal into such a pass
  (``no_progress``, :func:`blocked_for_sure`): it is not solved,
  its figures are the certain ones (no win, the cards on the foundations now);
- when few deals are consistent (at most :data:`tutor.hints.EXACT_DEALS`),
  every one is solved and the figures are exact.

Solved positions are cached within a run of consecutive positions (the same
deal often reaches the same position from two moves or two plies). The
game is cut into fixed runs of positions (:func:`run_bounds`: one graded
position at most, and the forced moves after it), so the answer does not
depend on how many processes score them. The extra deals of a label in
doubt are drawn after the runs, in batches that every process shares
(:mod:`tutor.label_deals`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace

from .constraints import FULL, Needs, row_orders
from .estimate import Drop, Estimate, mean_interval, wilson
from .hints import BEST_NODES, EXACT_BEST_NODES, EXACT_DEALS, WIN_NODES, certain_moves, leader, lost_for_certain
from .infoset import hint_values, wanted
from .knowledge import Observation, SharedWorlds, observe
from .label_deals import Batches, Doubt, Outcome, known, solve_batch
from .notation import Move
from .pool import WorkerPool
from .sampling import BANDS, Outcomes, SolveCache, outcomes_in
from .state import State

REVIEW_SAMPLES = 64
"""Shared sampled deals per position of a review (every move of the position is scored on them)."""

LABEL_BUDGET = 512
"""The most sampled deals for a label still in doubt after the shared ones."""

DECIDE_DEALS = 720
"""At most this many consistent deals (six unseen cards) are all solved when every sampled deal gives every
move the same result, to see whether the position is decided (won or lost whatever the move)."""

RUN = 12
"""The most positions in a run (a job for a worker process; the solve cache lives within a run)."""

Job = tuple[list[State], list[Move], set[int], int, int, int, int, tuple[float, float, float]]
"""A run of positions to score: ``(states, moves, graded, start, end, samples, budget, bands)``."""


@dataclass(frozen=True)
class PlyScore:
    """The scores of one position of a game (0-based ``ply``: the position before move ``ply + 1``).

    ``estimates``: per scored move, its win chance and cards on the shared
    deals (every legal move when graded, else the played one). ``value``:
    the best move's outcome in each shared deal (the figure the review gives
    the position), for luck; not a per-deal best over the moves, which would
    count wins no one move gets (strategy fusion). ``after``: the played move's outcome in each shared
    deal. ``drop``: best -> played, paired (possibly on more deals).
    ``decided``: no legal move wins (none undecided at the solver's limit)
    in any consistent deal, every one solved, so no move here could save the
    game; or ``blocked``: lost in every consistent deal by the reserve piles'
    needs (every reserve card known, no row order left that can be completed).
    A position where every move wins in every deal is not decided (a later
    move can still lose the win). ``no_progress``: a forced turn after which
    the game is blocked for certain (:func:`blocked_for_sure`).
    ``decided_deals``: how many consistent deals were solved to decide it
    (all of them; the figures may rest on fewer, sampled), 0 for ``blocked``.
    ``cards_gap``: when no move won in any scored deal, the move that places
    the most cards on average (if not the played one) and the paired gap in
    cards to the played move over the same deals: ``(move, mean, lo, hi)``
    with its 95% interval (exact when every consistent deal was scored).
    ``wide``: when more deals were drawn for ``drop``, the win chances on all
    of them of the best and the played move and of every other move that won
    a shared deal, their cards still the shared deals' (else empty).
    ``every``: scored on every consistent deal (``exact`` too unless a node
    limit left a win undecided: then the figures are bounds, with intervals
    reaching up for them). ``blind``: where PIMC may be
    wrong and the played move was not its leader, each live move's win chance
    for a blind player from the information-set search (as the hint's
    ``blind_win``); ``fused``: PIMC's leader when that search found the played
    move as good (strategy fusion), so the played move is ``best``;
    ``blind_exact``: those values are exact (every consistent deal, the
    search complete), else estimates; ``blind_raw`` the same before their
    clamp to 0..1, the centres of their intervals (also where the played move led and tied, see
    ``blind_better``). ``bounded``: a lost deal's best score
    was cut by the node limit, so the cards are lower bounds (the wins stay exact). ``lost``: the moves
    that lose in every consistent deal, certain from what the player has seen (:func:`lost_for_certain`).
    """

    ply: int
    graded: bool
    exact: bool
    samples: int
    best: Move
    estimates: dict[Move, Estimate] = field(default_factory=dict)
    value: tuple[bool, ...] = ()
    after: tuple[bool, ...] = ()
    drop: Drop | None = None
    decided: bool = False
    blocked: bool = False
    decided_deals: int = 0
    cards_gap: tuple[Move, float, float, float] | None = None
    no_progress: bool = False
    wide: dict[Move, Estimate] = field(default_factory=dict)
    every: bool = False
    blind: dict[Move, float] = field(default_factory=dict)
    fused: Move | None = None
    blind_exact: bool = False
    bounded: bool = False
    blind_raw: dict[Move, float] = field(default_factory=dict)
    lost: frozenset[Move] = frozenset()
    blind_better: Move | None = None
    """The played move led PIMC, tied on the deals won with another, and the search found that other better
    for a blind player (the hint's choice there): not the best move, though the deals solved with every card
    known could not tell them apart."""
    doubt: Doubt | None = None
    """The label still in doubt on the shared deals, its extra deals not drawn yet (``defer``): the review
    draws them in batches (:mod:`tutor.label_deals`) and settles it; None in every score it gives out."""


def blocked_for_sure(obs: Observation) -> bool:
    """The game ends blocked whatever the hidden cards are: no card can be played now, no card has been
    played since the redeal, and turning on through the rest of the stock (every card of it known, from the
    second pass on) shows no card that can be played, so the pass ends with no play and the no-progress
    rule blocks the game (:func:`tutor.talon.turning_blocks`).

    Only what the player has seen decides it: while nothing is played the reserve tops stay as they are,
    so the face-down cards under them never matter, and every waste top the turns show is a known card.
    The only move is then the turn, and the game ends with the cards on the foundations now. The same holds
    for a redeal (the stock empty, a card played in the pass that ends) after which none of the talon's
    cards, every one of them seen in the pass before, can be played: the redeal shows no card, so the
    position after it is as well known as this one. And on the last pass of a game with limited passes, a
    card played in it or not, when turning on shows no card that can be played: the game ends when the
    stock runs out, the passes used (:func:`tutor.talon.turning_runs_out`).
    """
    from .notation import TURN
    from .talon import turn_ends_game

    legal = obs.legal_moves()
    return not any(m.is_play for m in legal) and TURN in legal and turn_ends_game(obs)


def _won(outcomes: Iterable[Outcome]) -> tuple[bool, ...]:
    return tuple(bool(w) for w, _ in outcomes)


def score_ply(ply: int, state: State, move: Move, graded: bool, worlds: SharedWorlds, cache: SolveCache,
              samples: int, budget: int, bands: tuple[float, float, float] = BANDS,
              previous: list[Outcome] | None = None,
              changed: AbstractSet[int] = frozenset(), defer: bool = False) -> tuple[PlyScore, list[Outcome] | None]:
    """Score one position of a game on the shared deals (see the module docstring).

    ``previous``: the played move's outcome in each shared deal at the
    position before (None if there is none, or it was exact); ``changed``:
    the deals repaired since. In a deal left as it was, this position *is*
    the position after that move, so a forced move or free play (which keeps
    the position's value) takes that outcome without a new search. Returns
    the score and the played move's outcome in each deal. ``defer``: a label
    still in doubt on the shared deals is left open (the score's ``doubt``)
    for the caller to draw more deals, instead of drawing them here.
    """
    obs = observe(state)
    legal = obs.legal_moves()
    every = obs.every_state() if obs.consistent_deals() <= max(EXACT_DEALS, samples) else None
    exact = every is not None
    deals = every if every is not None else worlds.states(state, samples)
    if not graded and blocked_for_sure(obs):
        # certain from what the player has seen: no win, and the cards on the foundations now, in every deal
        sure: list[Outcome] = [(False, obs.cards)] * len(deals)
        won = _won(sure)
        est = replace(Estimate.of(sure, exact), win_lo=0.0, win_hi=0.0, cards_lo=float(obs.cards),
                      cards_hi=float(obs.cards))
        return (PlyScore(ply, False, exact, len(deals), move, {move: est}, won, won, None, no_progress=True,
                         every=exact),
                None if exact else sure)
    if not graded:
        # A forced move or a free play keeps the position's value: its chance is the position's.
        reuse = previous if previous is not None and not exact and len(previous) == len(deals) else None
        res = [reuse[k] if reuse is not None and k not in changed else cache.solve(d.apply(move), WIN_NODES, 0)
               for k, d in enumerate(deals)]
        won = _won(res)
        outcomes = {w for w, _ in res}
        # every consistent deal, but one left undecided at the node limit: a sampled figure reaching up for it
        all_deals, exact = exact, exact and None not in outcomes
        est = _reaching(Estimate.of(res, exact), sum(w is None for w, _ in res), False)
        blocked = not any(won) and lost_by_reserves(obs)
        if blocked:  # the face-up reserve piles show it lost in every consistent deal: no sampled interval
            est = replace(est, win_lo=0.0, win_hi=0.0)
        elif not exact and len(outcomes) == 1 and None not in outcomes:
            # as for a graded position: when every consistent deal gives the same, the chance is known exactly
            n = same_everywhere(obs, [move], won[0], cache)
            if n:
                est = replace(est, win_lo=est.win, win_hi=est.win, samples=n, exact=True)
        return (PlyScore(ply, False, exact, len(deals), move, {move: est}, won, won, None, blocked=blocked,
                         every=all_deals), None if all_deals else res)
    ps, played, uniform = _graded_ply(ply, state, move, obs, legal, deals, exact, worlds, cache, budget, bands,
                                      defer)
    if uniform and not exact and not any(ps.value):  # a won position is never decided: a later move can lose it
        if lost_by_reserves(obs):
            # every reserve card known and no row order can be completed: lost in every consistent deal
            return replace(ps, decided=True, blocked=True), played
        # no sampled deal is won by any move: is it so in every consistent deal?
        n = same_everywhere(obs, legal, False, cache)
        if n:
            return replace(ps, decided=True, decided_deals=n), played
    return ps, played


def same_everywhere(obs: Observation, moves: list[Move], result: bool, cache: SolveCache) -> int:
    """How many consistent deals there are when each gives every one of ``moves`` the ``result`` (won or
    lost), solved for the win only (quick); 0 when one does not, or when there are more than
    :data:`DECIDE_DEALS` of them to solve."""
    if obs.consistent_deals() > DECIDE_DEALS:
        return 0
    every = obs.every_state()
    if all(cache.solve(d.apply(m), WIN_NODES, 0)[0] is result for d in every for m in moves):
        return len(every)
    return 0


def lost_by_reserves(obs: Observation) -> bool:
    """The position is lost in every consistent deal: every reserve card is known (Peek, or all uncovered),
    and the "must come before" needs of the reserve piles leave no order of the rows still to open that can
    be completed (:func:`tutor.certainty.lost_for_certain`'s test, for the position instead of one move)."""
    if any(c is None for p in obs.reserves for c in p):
        return False
    found = obs.found
    mask = found[0] | found[1] << 13 | found[2] << 26 | found[3] << 39
    reserves = tuple(tuple(c for c in p if c is not None) for p in obs.reserves)
    needs = Needs(reserves, obs.base % 13)
    return not any(needs.reachable(mask, o) == FULL for o in row_orders(obs.rows))


def _graded_ply(ply: int, state: State, move: Move, obs: Observation, legal: list[Move], deals: list[State],
                exact: bool, worlds: SharedWorlds, cache: SolveCache, budget: int,
                bands: tuple[float, float, float], defer: bool = False) -> tuple[PlyScore, list[Outcome] | None, bool]:
    """A graded position scored on ``deals`` (every consistent one when ``exact``); also whether every move
    had one and the same decided result in every one of them."""
    certain = certain_moves(obs, legal)
    lost = {m for m in legal if lost_for_certain(obs, m)}
    scores = Outcomes(legal)
    cut = cache.cut
    for d in deals:
        scores.add(outcomes_in(d, legal, certain, lost, WIN_NODES, EXACT_BEST_NODES if exact else BEST_NODES, cache))
    best = leader(obs, scores, certain)
    # every consistent deal, but a win undecided at a node limit: the win figures are sampled ones whose
    # intervals reach up for it (as the hint does); a best score cut there leaves the wins exact and makes the
    # cards a lower bound, their interval reaching up to 52
    bounded = exact and cache.cut > cut
    every, exact = exact, exact and not any(scores.undecided(m) for m in legal)
    estimates = {m: known(_reaching(scores.estimate(m, exact), scores.undecided(m), bounded), m in lost)
                 for m in legal}
    blind: dict[Move, float] = {}
    blind_raw: dict[Move, float] = {}
    fused, blind_exact, blind_better = None, False, None
    if (move != best and move not in lost and sum(scores.won(best)) > sum(scores.won(move))
            and wanted(obs, scores, legal, lost, exact)):
        # PIMC's leader wins more deals, but PIMC may be wrong here (strategy fusion): where the search over what
        # can still turn up finds the played move as good for a blind player, that lead is no real drop, and the
        # move is not labelled (a lead in cards alone, every win level, is the tie-break's: left as it is)
        found = hint_values(obs, deals, [m for m in legal if m not in lost], cache, EXACT_DEALS, scores)
        if found is not None:
            blind, blind_raw, blind_exact = found.values, found.raw, found.exact
        if blind and blind[move] >= blind[best] - 1e-9:
            best, fused = move, best
    elif (move == best and move not in lost and any(sum(scores.won(m)) == sum(scores.won(move)) for m in legal
                                                    if m != move and m not in lost)
          and wanted(obs, scores, legal, lost, exact)):
        # the played move leads PIMC on a tie with another: the hint settles such a tie by the search, so the
        # review does too (it called the move best where the hint said a blind player cannot cash its share)
        found = hint_values(obs, deals, [m for m in legal if m not in lost], cache, EXACT_DEALS, scores)
        if found is not None:
            others = [m for m in found.values if m != move]
            top = max(others, key=lambda m: found.values[m]) if others else None
            if top is not None and found.values[top] > found.values[move] + 1e-9:
                blind, blind_raw, blind_exact, blind_better = found.values, found.raw, found.exact, top
    doubt = None
    if move != best:
        # the moves scored on the extra deals too: the two compared, and every other one that won a shared deal
        # (one that won none shows 0% and can sit above no figure; leaving it out halves a limited review)
        grown = tuple(m for m in legal if m in (best, move) or (m not in lost and any(scores.won(m))))
        doubt = Doubt(ply, best, move, grown, tuple(c for c in certain if c in grown), frozenset(lost & set(grown)),
                      {m: list(scores.results[m]) for m in grown}, len(deals), exact, every)
        while not defer and doubt.open(budget, bands):
            doubt.add(solve_batch(worlds.states(state, doubt.end(budget))[doubt.done:], doubt.moves, doubt.certain,
                                  doubt.lost, cache))
    played = list(scores.results[move])
    value = _won(scores.results[best])  # the best move's deals (after the fusion check): what the review shows
    outcomes = {w for m in legal for w, _ in scores.results[m]}
    uniform = len(outcomes) == 1 and None not in outcomes
    decided = every and uniform and not any(value)  # lost whatever the move; a won position is not decided
    gap = _cards_gap(scores, move, exact and not bounded) if uniform and not any(value) else None
    score = PlyScore(ply, True, exact, len(deals), best, estimates, value, _won(played), None, decided,
                     decided_deals=len(deals) if decided else 0, cards_gap=gap, every=every, blind=blind,
                     fused=fused, blind_exact=blind_exact, bounded=bounded, blind_raw=blind_raw, lost=frozenset(lost),
                     blind_better=blind_better)
    if doubt is not None:
        # settled here, or (``defer``) left for the review to draw its deals in batches over its processes
        score = replace(score, doubt=doubt) if doubt.open(budget, bands) else doubt.settle(score)
    return score, None if every else played, uniform


def _reaching(est: Estimate, undecided: int, bounded: bool) -> Estimate:
    """A sampled estimate whose intervals reach up for what a node limit left open: deals left undecided
    may be won, and a cut best score may be higher, up to 52 cards."""
    if undecided:
        est = replace(est, win_hi=max(est.win_hi, wilson(round(est.win * est.samples) + undecided, est.samples)[1]))
    return replace(est, cards_hi=52.0) if bounded else est


def _cards_gap(scores: Outcomes, move: Move, exact: bool) -> tuple[Move, float, float, float] | None:
    """In a position where no move won in any scored deal: the move placing the most cards on average and
    its paired gap to ``move`` (mean, 95% interval; the interval is the mean itself when ``exact``)."""
    most = max(scores.moves, key=lambda m: (scores.mean(m), m == move))
    if most == move:
        return None
    diffs = [a - b for (_, a), (_, b) in zip(scores.results[most], scores.results[move], strict=True)]
    mean = sum(diffs) / len(diffs)
    lo, hi = (mean, mean) if exact else mean_interval(diffs, -52.0, 52.0)
    return most, mean, lo, hi


def score_run(job: Job) -> list[PlyScore]:
    """Score positions ``start..end-1`` of a game: ``job = (states, moves, graded, start, end, samples, budget, bands)``.

    The shared deals are rebuilt from the first position and carried to
    ``start`` (cheap), so each run is independent of the others. A label
    still in doubt is left open (``doubt``), for :func:`score_game` to settle.
    """
    states, moves, graded, start, end, samples, budget, bands = job
    worlds = SharedWorlds(states[0], max(samples, budget))
    for k in range(1, start + 1):
        worlds.advance(states[k])
    cache = SolveCache()
    out = []
    previous: list[Outcome] | None = None
    changed: set[int] = set()
    for i in range(start, end):
        if i > start:
            changed = worlds.advance(states[i])
        score, previous = score_ply(i, states[i], moves[i], i in graded, worlds, cache, samples, budget, bands,
                                    previous, changed, defer=True)
        out.append(score)
    return out


def run_bounds(n: int, graded: AbstractSet[int]) -> list[tuple[int, int]]:
    """Positions ``0..n-1`` cut into runs ``(start, end)``: a new run at each graded position, and after
    :data:`RUN` positions. A graded position is most of a run's work (the first ones of a ``limited`` game take
    seconds each), so one run holds at most one of them and the processes share them out; the forced moves
    and free plays after it stay in its run, where they take the played move's outcomes without a search.
    Fixed by the game alone, so the answer does not depend on how many processes score it."""
    cuts = [a for a in range(n) if a == 0 or a in graded]
    out: list[tuple[int, int]] = []
    for a, b in zip(cuts, cuts[1:] + [n]):
        out.extend((c, min(b, c + RUN)) for c in range(a, b, RUN))
    return out


def score_game(states: list[State], moves: list[Move], graded: set[int], samples: int = REVIEW_SAMPLES,
               budget: int = LABEL_BUDGET, bands: tuple[float, float, float] = BANDS, workers: int = 1,
               progress: Callable[[int, int], None] | None = None,
               total: int | None = None) -> dict[int, PlyScore]:
    """Every position's :class:`PlyScore`, in ``workers`` processes (one pool) when more than one."""
    n = len(moves)
    budget = max(budget, samples)
    jobs: list[Job] = [(states[: b + 1], moves[:b], graded, a, b, samples, budget, bands)
                       for a, b in run_bounds(n, graded)]
    count = total if total is not None else n
    scores: dict[int, PlyScore] = {}

    def take(score: PlyScore) -> None:
        scores[score.ply] = score
        if progress:
            progress(len(scores), count)

    with WorkerPool(workers) as pool:
        doubts = Batches(pool, states, budget, bands, max(samples, budget))
        for run in [pool.submit(score_run, job) for job in jobs]:
            for score in run.result():
                if score.doubt is None:
                    take(score)
                else:
                    doubts.wait(score)
            doubts.top_up()
        doubts.settle(take)
        pool.close(now=True)  # every answer is in: a batch started ahead and dropped is not waited for
    return scores
