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

Structure known for certain comes before sampling:

- a forced move (the only legal one) needs no choice;
- a reserve card that opens no row only adds options (spec section 5), and
  so does, with one card turned at a time, a waste card that opens no row;
- with unlimited passes, once a card was played since the last redeal and the
  waste is in step with the talon's groups (its length a multiple of the turn,
  or the stock empty), turning keeps every option: the player can come back to
  exactly this point next pass (the solver's dominance rule says the same);
- when every reserve card is known (Peek), a row opened in an order whose
  "must come before" constraints have a cycle loses in every consistent deal.

Such moves are best (or lost) in every consistent deal, whatever the samples
say, so the hint takes them whatever the samples say. The other moves are
still scored honestly: a certain move costs one search per sample (it keeps
the position's value), and every move gets the same samples.

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

from .cards import NAMES
from .constraints import FULL, Needs, row_orders
from .errors import TutorError
from .estimate import Drop
from .knowledge import Observation, observe
from .notation import TURN, Move
from .sampling import BANDS, Outcomes, SolveCache, _solve_sample, band, in_doubt, outcomes_in  # noqa: F401 (the hint API)
from .search import Limit, solve
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

DEFAULT_LIMIT = Limit(nodes=WIN_NODES)


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
    deal. ``opens_row``: the row (1-4) it opens, if any.
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
    method: str = "pimc"
    blind: float | None = None

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
    why: str = "sampled"
    samples: int = 0
    exact: bool = False
    seconds: float = 0.0
    tips: tuple[str, ...] = field(default_factory=tuple)
    method: str = "pimc"

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
                "tips": list(self.tips), "method": self.method}


# ---------------------------------------------------------------- known structure


def opens_row(obs: Observation, move: Move) -> int | None:
    """The row (1-4) that ``move`` would open, or None."""
    card = obs.card_of(move)
    if card is None:
        return None
    row = obs.destination(card)
    return row + 1 if row >= len(obs.rows) else None


def is_safe(obs: Observation, move: Move) -> bool:
    """A play that only adds options: a reserve card opening no row; with turn 1, a waste card too."""
    if move.kind == "r" or (move.kind == "w" and obs.rules.turn == 1):
        card = obs.card_of(move)
        return card is not None and 0 <= obs.destination(card) < len(obs.rows)
    return False


def turn_keeps_value(obs: Observation) -> bool:
    """Turning loses nothing in any deal: unlimited passes, a card played since the
    redeal, and the waste in step with the groups turned from the start of a pass.

    From such a position the player can turn to the end, redeal (a card was
    played) and turn back to exactly this point with nothing changed, so every
    line from here is still open after the turn.
    """
    if obs.rules.passes or not obs.progress or not obs.talon_size:
        return False
    return obs.pos % obs.rules.turn == 0 or obs.pos == obs.talon_size


def certain_moves(obs: Observation, moves: list[Move]) -> list[Move]:
    """The moves that keep the position's value in every consistent deal, most useful first.

    Safe reserve plays first (they also turn up a hidden card), then safe
    waste plays, then a turn that keeps every option.
    """
    out = [m for m in moves if m.kind == "r" and is_safe(obs, m)]
    out += [m for m in moves if m.kind == "w" and is_safe(obs, m)]
    if TURN in moves and turn_keeps_value(obs):
        out.append(TURN)
    return out


def lost_for_certain(obs: Observation, move: Move) -> bool:
    """The move opens a row in an order that no consistent deal can win (whole reserve known).

    Only the reserve piles give "must come before" constraints that can form a
    cycle, so when every reserve card is known the check holds in every
    consistent deal.
    """
    if any(c is None for p in obs.reserves for c in p):
        return False
    row = opens_row(obs, move)
    if row is None:
        return False
    card = obs.card_of(move)
    rows = obs.rows + (card // 13,)
    found = list(obs.found)
    found[card // 13] |= 1 << (card % 13)
    mask = found[0] | found[1] << 13 | found[2] << 26 | found[3] << 39
    reserves = tuple(tuple(c for c in p if c != card) for p in obs.reserves)
    needs = Needs(reserves, obs.base % 13)
    return not any(needs.reachable(mask, o) == FULL for o in row_orders(rows))


# ---------------------------------------------------------------- sampling


def _preference(obs: Observation, move: Move, certain: list[Move]) -> int:
    """Order among moves the samples cannot tell apart: the one that reveals most and commits least.

    The samples are solved with every card known, so they give information no
    value and cannot see a commitment's risk. On a tie: certain moves; a
    reserve play that turns up a face-down card; a turn (it keeps the talon as
    it is, and in the first pass shows new cards); a waste play (with three
    cards turned at a time it shifts the talon's groups for good); a play that
    opens a row last.
    """
    if move in certain:
        return certain.index(move)
    if opens_row(obs, move) is not None:
        return 30
    if move.kind == "r":
        pile = obs.reserves[move.pile]
        return 10 if len(pile) > 1 and pile[-2] is None else 12
    if move.kind == "d":
        return 11
    return 13


def leader(obs: Observation, scores: Outcomes, certain: list[Move]) -> Move:
    """The move with the best mean (certain moves first: they are best in every deal)."""
    if certain:
        return certain[0]
    return min(scores.moves, key=lambda m: (-scores.mean(m), _preference(obs, m, certain)))


def exact_worlds(obs: Observation, budget: int) -> list[State] | None:
    """Every consistent deal when they are few (at most :data:`EXACT_DEALS`, or the budget), else None."""
    if obs.consistent_deals() <= max(budget, EXACT_DEALS):
        return obs.every_state()
    return None


def score_moves(obs: Observation, samples: int | None = None, limit: Limit | None = None,
                best_nodes: int = BEST_NODES, cache: SolveCache | None = None,
                bands: tuple[float, float, float] = BANDS, infoset: bool = True) -> ScoredPosition:
    """Score every legal move of ``obs`` (see the module docstring); the scores and how they were settled.

    ``samples``: the sample budget (default :data:`DEFAULT_SAMPLES`). Samples
    are drawn in batches (:data:`FIRST_BATCH`, then :data:`BATCH` more) while
    the best move or a move's label band is in doubt (:func:`in_doubt`).
    ``infoset``: where PIMC's answer may be wrong and the search is affordable
    (:func:`wants_infoset`), the best move is the information-set search's
    (:mod:`tutor.infoset`); False keeps PIMC's (the old behaviour).
    """
    if not isinstance(obs, Observation):
        raise TutorError("a hint needs what the player has seen (an Observation from observe(state)), "
                         f"not {type(obs).__name__}")
    budget = DEFAULT_SAMPLES if samples is None else samples
    if budget < 1:
        raise TutorError(f"samples {samples!r} is not allowed: expected a positive number")
    win_nodes = (limit or DEFAULT_LIMIT).nodes or WIN_NODES
    moves = obs.legal_moves()
    if not moves:
        raise TutorError("the game is over: there is no move to score")
    cache = cache if cache is not None else SolveCache()
    certain = certain_moves(obs, moves)
    lost = {m for m in moves if lost_for_certain(obs, m)}
    if len(moves) == 1:
        why = "forced"
    elif certain:
        why = "turn" if certain[0] == TURN else "safe"
    else:
        why = "sampled"

    every = exact_worlds(obs, budget)
    exact = every is not None
    states = every if exact else obs.samples(budget)  # seeded from the observation alone
    scores = Outcomes(moves)
    done = 0
    size = len(states) if exact else min(budget, FIRST_BATCH)
    while done < len(states):
        for world in states[done:done + size]:
            scores.add(outcomes_in(world, moves, certain, lost, win_nodes, best_nodes, cache))
        done += size
        size = min(BATCH, len(states) - done)
        if exact or why == "forced" or not in_doubt(scores, leader(obs, scores, certain), bands):
            break
    if exact and why == "sampled":
        why = "exact"
    best = moves[0] if why == "forced" else leader(obs, scores, certain)
    method = "exact" if exact else "pimc"
    blind = None
    if infoset and why in ("sampled", "exact") and wants_infoset(obs, scores, moves, lost, exact):
        blind, blind_exact = _infoset_values(obs, states, [m for m in moves if m not in lost], cache, scores)
        if blind is not None:
            method = "exact" if blind_exact else "infoset"
            best = max(blind, key=lambda m: (blind[m], scores.mean(m), -_preference(obs, m, certain)))
    candidates = []
    for m in moves:
        est = scores.estimate(m, exact)
        candidates.append(Candidate(
            move=m, win=est.win, cards=est.cards, card=obs.card_of(m),
            samples=est.samples, undecided=scores.undecided(m), certain=m in certain, lost=m in lost,
            opens_row=opens_row(obs, m), interval=(est.win_lo, est.win_hi),
            cards_interval=(est.cards_lo, est.cards_hi), exact=exact,
            drop=None if m == best else scores.drop(best, m, exact), method=method,
            blind=None if blind is None else blind.get(m, 0.0)))
    return ScoredPosition(best, candidates, why, done, exact, scores, method)


INFOSET_UNSEEN = 12
"""The information-set search is tried with the talon known and at most this many unseen cards."""

INFOSET_NODES = 2_500
"""Its node budget in a hint; past it the hint keeps PIMC's answer."""


def wants_infoset(obs: Observation, scores: Outcomes, moves: list[Move], lost: set[Move], exact: bool) -> bool:
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


def _infoset_values(obs: Observation, states: list[State], moves: list[Move], cache: SolveCache,
                    scores: Outcomes | None = None):
    """The search's values of ``moves`` on the hint's own deals (the first :data:`infoset.WORLDS`), or None.

    When the search plays only the first of more deals (a hint's 128 samples),
    its figure alone would be PIMC on fewer deals: noisier than the sampler's
    own. Then each move's value is the sampler's win share on all the deals
    less what the search found the blind player loses to strategy fusion on
    its deals (PIMC's share on the same deals minus the search's value): a
    control variate, so the search corrects PIMC's bias without adding its
    own sampling noise. With every deal searched (the tutor policy, an exact
    hint) the values are the search's own.
    """
    from .infoset import WORLDS, Search, TooBig

    worlds = states if len(states) <= EXACT_DEALS else states[:WORLDS]
    search = Search(budget=INFOSET_NODES, cache=cache)
    try:
        values = search.move_values(obs, worlds, moves)
    except TooBig:
        return None, False
    if scores is not None and len(worlds) < len(scores):
        for m in moves:
            fusion = search.pimc(worlds, m) - values[m]
            won = scores.won(m)
            values[m] = min(1.0, max(0.0, sum(won) / len(won) - fusion))
    return values, not search.cut and len(worlds) == obs.consistent_deals()


@dataclass(frozen=True)
class ScoredPosition:
    best: Move
    candidates: list[Candidate]
    why: str
    samples: int
    exact: bool
    outcomes: Outcomes | None = field(default=None, repr=False, compare=False)
    method: str = "pimc"


def hint(obs: Observation, samples: int | None = None, limit: Limit | None = None) -> Hint:
    """The hint for the player of ``obs``: every legal move scored, the best one, and why.

    ``samples``: the sample budget (default :data:`DEFAULT_SAMPLES`); ``limit``:
    the node limit of each winnability search (default :data:`DEFAULT_LIMIT`).
    """
    from .narrate import reason_for

    t0 = time.perf_counter()
    scored = score_moves(obs, samples, limit)
    text, tips = reason_for(obs, scored)
    return Hint(scored.best, scored.candidates, text, scored.why, scored.samples, scored.exact,
                time.perf_counter() - t0, tuple(tips), scored.method)


# ---------------------------------------------------------------- the tutor as a player


POLICY_SAMPLES = 32
"""The tutor policy's sample budget (it needs the best move, not figures a player reads)."""

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
                       best_nodes=POLICY_BEST_NODES, infoset=infoset).best


def play_game(state: State, samples: int | None = None, limit: Limit | None = None,
              final_nodes: int = 2_000_000, infoset: bool = True) -> tuple[State, list[Move]]:
    """The tutor plays from ``state`` to the end, seeing only what a player sees.

    Once nothing is hidden any more (the observation is complete), the tutor
    knows the whole position, like any attentive player, and follows the
    solver's line from there.
    """
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
