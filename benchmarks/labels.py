"""Can a learner trust the review's labels and chart? (issue 11's done-when measures)

Games of four kinds of player in Osmosis (reserve face down) are reviewed at
the default settings, then checked against independent estimates:

1. every mistake/blunder label is re-estimated at the same position from
   400 fresh samples (a seed the review never uses; every consistent deal
   when there are at most 400): the label is *confirmed* when the 400-sample
   drop is within one band of it (a mistake needs 5+ points, a blunder 10+);
2. every move that threw a win away (hindsight: the true deal was winnable
   before it and not after) is re-estimated the same way; those with a clear
   drop (15+ points at 400 samples) should be labelled mistake or blunder;
3. between two successive moves where nothing new was shown, the best
   move's chance (``win_before``) should never rise by more than 10 points.

Players: ``random`` (any legal move), ``greedy`` (the first playable card,
else turn), ``opener`` (opens a row at the first chance, else greedy),
``turner`` (turns past a playable card half the time, else greedy).

    python benchmarks/labels.py [--games N] [--deals 1-400] [--workers 2] [--samples K] [--check 400]

``--games`` is per kind of player; each game is one deal, taken in order
from ``--deals``, skipping deals the solver shows lost from the start only
for the throw-away measure (they have none). Prints one line per game and
the three measures with their counts; never asserts.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tutor.certainty import certain_moves, lost_for_certain  # noqa: E402
from tutor.deals import deal_for  # noqa: E402
from tutor.hints import EXACT_DEALS, WIN_NODES, SolveCache, outcomes_in  # noqa: E402
from tutor.knowledge import observe  # noqa: E402
from tutor.notation import TURN  # noqa: E402
from tutor.policies import parallel_map  # noqa: E402
from tutor.record import Record  # noqa: E402
from tutor.review import DEFAULT_SAMPLES, DEFAULT_THRESHOLDS, Label, review, seen_cards  # noqa: E402
from tutor.rules import preset  # noqa: E402
from tutor.state import State  # noqa: E402

KINDS = ("random", "greedy", "opener", "turner")


def _opens(state: State, move) -> bool:
    card = state.card_of(move)
    return card is not None and card // 13 not in state.rows and state.destination(card) >= 0


def choose(kind: str, state: State, rng: random.Random):
    legal = state.legal_moves()
    plays = [m for m in legal if m.is_play]
    if kind == "random":
        return rng.choice(legal)
    if kind == "opener":
        openers = [m for m in plays if _opens(state, m)]
        if openers:
            return openers[0]
    if kind == "turner" and plays and TURN in legal and rng.random() < 0.5:
        return TURN
    return plays[0] if plays else legal[0]


def play(kind: str, number: int, max_moves: int = 250) -> Record:
    rules = preset("osmosis")
    deal = deal_for(number, rules)
    rng = random.Random(number * 7919 + KINDS.index(kind))
    state = State.initial(deal, rules)
    moves = []
    while not state.over and len(moves) < max_moves:
        move = choose(kind, state, rng)
        moves.append(move)
        state = state.apply(move)
    return Record(rules, deal, moves)


def check_drop(state: State, played, count: int) -> tuple[float, int]:
    """The drop (points) from the best move to ``played`` on ``count`` independent samples (or every deal)."""
    obs = observe(state)
    legal = obs.legal_moves()
    if obs.consistent_deals() <= max(EXACT_DEALS, count):
        deals = obs.every_state()
    else:
        rng = random.Random(obs.seed() ^ 0x9E3779B97F4A7C15)  # not a seed the review uses
        deals = obs.samples(count, rng)
    certain = certain_moves(obs, legal)
    lost = {m for m in legal if lost_for_certain(obs, m)}
    cache = SolveCache()
    wins = {m: 0 for m in legal}
    for d in deals:
        res = outcomes_in(d, legal, certain, lost, WIN_NODES, 0, cache)
        for m in legal:
            wins[m] += bool(res[m][0])
    n = len(deals)
    return (max(wins.values()) - wins[played]) * 100 / n, n


def one_game(job) -> dict:
    kind, number, samples, check = job
    record = play(kind, number)
    t0 = time.perf_counter()
    rev = review(record, samples=samples, workers=1)
    seconds = time.perf_counter() - t0
    states = record.states()
    th = DEFAULT_THRESHOLDS
    labels = []
    for m in rev.moves:
        if m.label >= Label.MISTAKE:
            drop400, n = check_drop(states[m.ply - 1], m.move, check)
            confirmed = drop400 >= (th.inaccuracy if m.label == Label.MISTAKE else th.mistake)
            labels.append((m.ply, str(m.label), round(m.drop, 1), round(drop400, 1), n, confirmed))
    thrown = None
    ply = rev.hindsight.lost_at_ply
    if ply is not None:
        m = rev.moves[ply - 1]
        drop400, n = check_drop(states[ply - 1], m.move, check)
        thrown = (ply, str(m.label), round(m.drop, 1), round(drop400, 1), n)
    rises = []
    for a, b in zip(rev.moves, rev.moves[1:]):
        if seen_cards(states[b.ply - 1]) == seen_cards(states[a.ply - 1]):
            rises.append((round((b.win_before - a.win_before) * 100, 1), a.ply))
    return {"kind": kind, "deal": number, "moves": len(record.moves), "graded": rev.graded,
            "seconds": seconds, "labels": labels, "thrown": thrown, "rises": rises,
            "sampling": rev.sampling(), "counts": rev.counts}


def deal_range(text: str) -> range:
    a, _, b = text.partition("-")
    return range(int(a), int(b or a) + 1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2, help="games per kind of player")
    ap.add_argument("--deals", default="1-400")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="the review's shared samples a move")
    ap.add_argument("--check", type=int, default=400, help="independent samples of the re-estimate")
    args = ap.parse_args(argv)
    deals = list(deal_range(args.deals))
    jobs = [(kind, deals[(g * len(KINDS) + k) % len(deals)], args.samples, args.check)
            for g in range(args.games) for k, kind in enumerate(KINDS)]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"labels benchmark: {len(jobs)} games ({args.games} per kind), review samples {args.samples}, "
          f"re-estimates at {args.check}; {os.cpu_count()} CPUs, load {load:.1f} at the start", flush=True)
    t0 = time.perf_counter()
    results = list(parallel_map(one_game, jobs, args.workers))
    for r in results:
        c = r["counts"]
        print(f"{r['kind']:7} deal {r['deal']:4}: {r['moves']:3} moves, {r['graded']:3} graded, "
              f"{r['seconds']:5.1f} s; ?!/?/?? {c['inaccuracy']}/{c['mistake']}/{c['blunder']}; "
              f"thrown {r['thrown']}; labels {r['labels']}", flush=True)
    labels = [x for r in results for x in r["labels"]]
    confirmed = sum(1 for x in labels if x[5])
    thrown = [r["thrown"] for r in results if r["thrown"] is not None]
    clear = [t for t in thrown if t[3] >= 15]
    caught = sum(1 for t in clear if t[1] in ("mistake", "blunder"))
    rises = [x for r in results for x in r["rises"]]
    worst = max((x[0] for x in rises), default=0.0)
    per_move = sorted({n for r in results for n in r["sampling"]["samples_a_move"]})
    print()
    print(f"1. mistake/blunder labels confirmed by a {args.check}-sample re-estimate (within one band): "
          f"{confirmed} of {len(labels)}" + (f" = {100 * confirmed / len(labels):.0f}%" if labels else "")
          + " (goal >= 90%)")
    print(f"2. moves that threw a win away: {len(thrown)}; with a clear drop (>= 15 points at "
          f"{args.check} samples): {len(clear)}, labelled mistake/blunder: {caught}"
          + (f" = {100 * caught / len(clear):.0f}%" if clear else "") + " (goal >= 90%)")
    missed = [t for t in clear if t[1] not in ("mistake", "blunder")]
    if missed:
        print(f"   missed (ply, label, review drop, {args.check}-sample drop, deals): {missed}")
    print(f"3. largest rise of the best move's chance between two moves with nothing new shown: "
          f"{worst:+.1f} points over {len(rises)} such pairs (goal <= 10)")
    print(f"review samples a move: {per_move}; total {time.perf_counter() - t0:.0f} s, load "
          f"{os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
