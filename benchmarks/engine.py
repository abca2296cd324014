"""Engine speed: random legal playouts per second and positions per second.

A position here is one ``legal_moves()`` plus one ``apply()``, the step every
search makes. Playouts run from several deals under each preset with a
fixed seed, so runs are comparable. Usage::

    python benchmarks/engine.py [--seconds 2] [--deals 1,2,3,31999,32000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import time

from tutor.deals import deal_for
from tutor.rules import PRESETS
from tutor.state import State


def playouts(initials: list[State], seconds: float, seed: int) -> tuple[int, int, float, float]:
    """Random legal playouts cycling over ``initials`` for about ``seconds``.

    Returns (playouts, positions, elapsed seconds, mean final score).
    """
    rng = random.Random(seed)
    choice = rng.choice
    games = positions = total_cards = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = initials[games % len(initials)]
        moves = state.legal_moves()
        while moves:
            state = state.apply(choice(moves))
            positions += 1
            moves = state.legal_moves()
        games += 1
        total_cards += state.cards
        if games % 8 == 0 and time.perf_counter() >= deadline:
            break
    return games, positions, time.perf_counter() - start, total_cards / games


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per preset (default 2)")
    parser.add_argument("--deals", default="1,2,3,617,31999,32000,1000000",
                        help="comma-separated deal numbers to cycle through")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args(argv)
    numbers = [int(n) for n in args.deals.split(",")]

    print(f"random legal playouts, {len(numbers)} deals, seed {args.seed}, {args.seconds:g} s per preset")
    print(f"{'preset':<12} {'playouts/s':>11} {'positions/s':>12} {'moves/game':>11} {'mean cards':>11}")
    all_games = all_positions = 0
    all_time = 0.0
    for name, rules in PRESETS.items():
        initials = [State.initial(deal_for(n, rules), rules) for n in numbers]
        games, positions, elapsed, mean_cards = playouts(initials, args.seconds, args.seed)
        all_games += games
        all_positions += positions
        all_time += elapsed
        print(f"{name:<12} {games / elapsed:>11,.0f} {positions / elapsed:>12,.0f} "
              f"{positions / games:>11.1f} {mean_cards:>11.1f}")
    print(f"{'all':<12} {all_games / all_time:>11,.0f} {all_positions / all_time:>12,.0f} "
          f"{all_positions / all_games:>11.1f}")


if __name__ == "__main__":
    main()
