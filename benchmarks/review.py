"""Time the post-game review of whole games (100 to 150 moves) at the default settings.

Games come from a seeded random player (it plays a playable card two times in
three, else turns), kept when they last 100 to 150 moves, so the figures are
repeatable. Prints one line per game and a summary; never asserts a time.
With three passes a ``limited`` game cannot last 100 moves: for it the
longest games are taken (50 to 100 moves); its hints are the slowest, since
a pass limit leaves the solver less to fold.

    python benchmarks/review.py [--games N] [--variants osmosis,peek,single] [--samples K] [--workers W]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

from tutor.deals import deal_for
from tutor.record import Record
from tutor.review import DEFAULT_SAMPLES, review
from tutor.rules import preset
from tutor.state import State


def random_game(number: int, variant: str, seed: int) -> Record:
    rules = preset(variant)
    deal = deal_for(number, rules)
    rng = random.Random(seed)
    state = State.initial(deal, rules)
    moves = []
    while not state.over and len(moves) < 400:
        legal = state.legal_moves()
        plays = [m for m in legal if m.is_play]
        move = rng.choice(plays) if plays and (rng.random() < 2 / 3 or len(legal) == len(plays)) else legal[-1]
        moves.append(move)
        state = state.apply(move)
    return Record(rules, deal, moves)


def games(variant: str, count: int, low: int = 100, high: int = 150):
    found = 0
    for number in range(1, 500):
        for seed in range(3):
            record = random_game(number, variant, seed)
            if low <= len(record.moves) <= high:
                yield number, record
                found += 1
                if found == count:
                    return
                break


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4, help="games per variant")
    ap.add_argument("--variants", default="osmosis,peek,single,bridesmaids,limited")
    ap.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args(argv)
    print(f"review benchmark: {os.cpu_count()} CPUs, samples {args.samples}, "
          f"workers {args.workers or 'default'}, load {os.getloadavg()[0]:.1f} at the start")
    times = []
    for variant in args.variants.split(","):
        found = list(games(variant, args.games, *((50, 100) if preset(variant).passes else (100, 150))))
        if not found:
            print(f"{variant:8}: no game of the wanted length in the deals tried")
        for number, record in found:
            t0 = time.perf_counter()
            rev = review(record, samples=args.samples, workers=args.workers)
            dt = time.perf_counter() - t0
            times.append(dt)
            c = rev.counts
            print(f"{variant:8} deal {number:5}: {len(record.moves):3} moves, {rev.graded:3} graded, "
                  f"{dt:6.1f} s ({dt / max(1, rev.graded):.2f} s a graded move); accuracy "
                  f"{rev.accuracy:5.1f}; {c['inaccuracy']}/{c['mistake']}/{c['blunder']} ?!/?/??; "
                  f"hindsight winnable={rev.hindsight.winnable} lost_at={rev.hindsight.lost_at_ply}; "
                  f"{rev.sampling_text()}", flush=True)
    if times:
        print(f"{len(times)} games: median {statistics.median(times):.1f} s, worst {max(times):.1f} s "
              f"(goal: a 150-move review within 30 s on 2 cores); load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
