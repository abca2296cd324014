"""Lessons: how long checking each shipped lesson takes, and a finder for new lesson positions.

Checking (the default) times ``check_lesson`` for every lesson in
``lessons/`` and prints seconds per lesson, per step and in total::

    python benchmarks/lessons.py

Finding walks the solver's winning line of each winnable deal and prints
every position where the player has seen every card (so the solver judges
honestly) and one legal move still wins while another loses: the kind of
position where a lesson's point decides the game. Each move is tagged by
what it does (``open-res`` opens a row from the reserve, ``row1-waste``
plays a row-1 card from the waste, ``turn``...), W or L, and the nodes the
solver needed; the move list at the end replays the position::

    python benchmarks/lessons.py --find peek 1-60
    python benchmarks/lessons.py --find osmosis 1-200 --any   # hidden cards too (for reveal = true)
"""

from __future__ import annotations

import argparse
import sys
import time

from tutor.cards import NAMES, SUITS
from tutor.deals import deal_for
from tutor.lessons import all_lessons, check_lesson, full_information
from tutor.notation import format_moves
from tutor.rules import preset
from tutor.search import Limit, solve
from tutor.state import State


def time_checks() -> None:
    total = 0.0
    steps = 0
    failed = 0
    print(f"{'lesson':<16} {'steps':>5} {'seconds':>8} {'per step':>9}")
    for lesson in all_lessons():
        start = time.perf_counter()
        results = check_lesson(lesson)
        took = time.perf_counter() - start
        total += took
        steps += len(results)
        failed += sum(not r.ok for r in results)
        print(f"{lesson.name:<16} {len(results):>5} {took:>8.2f} {took / len(results):>9.3f}")
    print(f"{'all':<16} {steps:>5} {total:>8.2f} {total / max(steps, 1):>9.3f}   failed steps: {failed}")


def tag(state: State, move) -> str:
    if move.kind == "d":
        return "turn"
    card = state.card_of(move)
    row = state.destination(card)
    source = "res" if move.kind == "r" else "waste"
    kind = "open" if row == len(state.rows) else "row1" if row == 0 else "lower"
    return f"{kind}-{source}({NAMES[card]})"


def find(variant: str, first: int, last: int, any_position: bool, nodes: int) -> None:
    rules = preset(variant)
    limit = Limit(nodes=nodes)
    for number in range(first, last + 1):
        state = State.initial(deal_for(number, rules), rules)
        result = solve(state, limit, want="win")
        if not result.winnable:
            continue
        moves = []
        for move in result.line:
            legal = state.legal_moves()
            if len(legal) >= 2 and (any_position or full_information(state)):
                verdicts = {m: solve(state.apply(m), limit, want="win") for m in legal}
                if any(v.winnable for v in verdicts.values()) and any(v.winnable is False for v in verdicts.values()):
                    desc = " ".join(
                        f"{m}:{tag(state, m)}={'W' if v.winnable else 'L' if v.winnable is False else '?'}/{v.nodes}"
                        for m, v in verdicts.items())
                    rows = "".join(SUITS[s] for s in state.rows)
                    print(f"{variant} {number} ply {len(moves)} pass {state.pass_no} rows {rows} "
                          f"score {state.score} | {desc} | moves: {format_moves(moves)}", flush=True)
            state = state.apply(move)
            moves.append(move)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--find", nargs=2, metavar=("VARIANT", "A-B"), help="find lesson positions in deals A-B")
    parser.add_argument("--any", action="store_true", help="also positions with cards the player has not seen")
    parser.add_argument("--nodes", type=int, default=200_000, help="solver node limit per position")
    args = parser.parse_args(argv)
    if args.find:
        variant, span = args.find
        first, _, last = span.partition("-")
        find(variant, int(first), int(last or first), args.any, args.nodes)
    else:
        time_checks()
    return 0


if __name__ == "__main__":
    sys.exit(main())
