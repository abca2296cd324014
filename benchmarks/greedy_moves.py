"""Print the moves the greedy policy plays in a deal, one line, to pipe into ``osmosis play``.

The greedy policy (tutor.policies.play_greedy) plays the first legal move: any
playable card in the order r1..r4, w, else a turn. Its games are a
beginner's, with the errors the review tags; the README's history tour uses
them: ``python benchmarks/greedy_moves.py 17 | osmosis play 17``.
"""

from __future__ import annotations

import argparse

from tutor.deals import deal_for
from tutor.rules import preset
from tutor.state import State


def greedy_moves(number: int, variant: str = "osmosis") -> list[str]:
    rules = preset(variant)
    state = State.initial(deal_for(number, rules), rules)
    moves = []
    while state.legal_moves():
        move = state.legal_moves()[0]  # the same choice as tutor.policies.play_greedy
        moves.append(str(move))
        state = state.apply(move)
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deal", type=int)
    parser.add_argument("--variant", default="osmosis")
    args = parser.parse_args()
    print(" ".join(greedy_moves(args.deal, args.variant)))


if __name__ == "__main__":
    main()
