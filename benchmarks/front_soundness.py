"""The front game (tutor.search_proof) against a plain search, on as many random positions as time allows.

For random positions of real deals with 8-14 cards left, under the five rule sets of
tests/test_search_proof.py (with and without a reserve, turn 1 and 3, unlimited and
limited passes), every row order the front game proves lost at some front size is
searched with every atomic move (the test's reference); a single order the reference
wins is a soundness bug and stops the run. Prints the positions tried and the orders
proved lost, all confirmed.

    python benchmarks/front_soundness.py [--seconds 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_search_proof import RULES, proofs, small_position, winnable_under  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    names = sorted(RULES)
    t0 = time.perf_counter()
    positions = proved = 0
    while time.perf_counter() - t0 < args.seconds:
        name = rng.choice(names)
        number, left, seed = rng.randint(1, 99_999), rng.randint(8, 14), rng.randint(0, 10**6)
        s = small_position(RULES[name], number, left, seed)
        for order in {o for o, _size in proofs(s)}:
            if winnable_under(s, order):
                raise SystemExit(f"unsound: {name} deal {number}, {left} left, seed {seed}, order {order} is won")
            proved += 1
        positions += 1
    print(f"{positions:,} positions in {time.perf_counter() - t0:.0f} s: {proved:,} row orders proved lost, "
          f"every one confirmed lost by the plain search")


if __name__ == "__main__":
    main()
