"""Hint latency and the tutor policy's strength.

    python benchmarks/hints.py latency [--deals 1-40] [--every 6] [--source tutor|greedy] [--samples K]
    python benchmarks/hints.py policy [--variant osmosis] [--deals 1-200] [--workers 2] [--out FILE]
    python benchmarks/hints.py misses [--variant osmosis] --deals 10,20,22 [--workers 2]

``latency``: positions from real games (the tutor's own games by default,
or greedy play; every ``--every``-th position with a choice to make), one
hint each at the default sample count, timed in a single process; prints
the median, 90th percentile and worst time, and how often the solver's node
limit left a sample undecided.

``policy``: for each deal, the full-knowledge solver's verdict, the greedy
policy (plays the first playable card, else turns) and the tutor policy
(follows its own hints, seeing only what a player sees) play it out; prints
win rates, the tutor's share of the deals the solver shows winnable, mean
scores and time. Deals run in parallel processes (``--workers``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tutor.advice import SettledHint, advise  # noqa: E402
from tutor.deals import deal_for  # noqa: E402
from tutor.hints import DEFAULT_SAMPLES, POLICY_SAMPLES  # noqa: E402
from tutor.knowledge import observe  # noqa: E402
from tutor.policies import Policy, parallel_map, play, play_game  # noqa: E402
from tutor.rules import preset  # noqa: E402
from tutor.search import solve  # noqa: E402
from tutor.state import State  # noqa: E402


def deal_range(text: str) -> range:
    a, _, b = text.partition("-")
    return range(int(a), int(b or a) + 1)


def greedy_positions(state: State, every: int) -> list[State]:
    out = []
    k = 0
    while True:
        moves = state.legal_moves()
        if not moves:
            return out
        if len(moves) > 1:
            if k % every == 0:
                out.append(state)
            k += 1
        state = state.apply(moves[0])


def _tutor_positions(job):
    variant, number, every, first = job
    rules = preset(variant)
    state = State.initial(deal_for(number, rules), rules)
    _, moves = play_game(state)
    out, k = [], 0
    for move in moves:
        if len(state.legal_moves()) > 1:
            if k % every == 0:
                out.append(state)
            k += 1
        state = state.apply(move)
    return out[:first] if first else out


def latency(args) -> None:
    rules = preset(args.variant)
    positions = []
    if args.source == "greedy":
        for n in deal_range(args.deals):
            positions.extend(greedy_positions(State.initial(deal_for(n, rules), rules), args.every))
    else:
        jobs = [(args.variant, n, args.every, args.first) for n in deal_range(args.deals)]
        for found in parallel_map(_tutor_positions, jobs, args.workers):
            positions.extend(found)
    times, cpu, samples, undecided, whys, exact, settled, spent = [], [], [], 0, {}, 0, 0, []
    for st in positions:
        t0, c0 = time.perf_counter(), time.process_time()
        h = advise(observe(st), samples=args.samples)  # the hint as the player gets it
        settled += isinstance(h, SettledHint)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        samples.append(h.samples)
        if h.budget_spent:
            spent.append(h.samples)
        exact += h.exact
        undecided += any(c.undecided for c in h.candidates)
        whys[h.why] = whys.get(h.why, 0) + 1
    times.sort()
    cpu.sort()
    n = len(times)
    print(f"hint latency, {args.variant}, deals {args.deals}, {n} positions with a choice "
          f"(every {args.every}th of {args.source} play{f', the first {args.first} of each game' if args.first else ''}), samples budget {args.samples or DEFAULT_SAMPLES}, "
          "one process")
    print(f"  median {statistics.median(times):.2f} s   p90 {times[int(0.9 * (n - 1))]:.2f} s   "
          f"p95 {times[int(0.95 * (n - 1))]:.2f} s   worst {times[-1]:.2f} s   mean {statistics.mean(times):.2f} s"
          f"   (goals: median <= 0.5 s, p95 <= 2 s; load {os.getloadavg()[0]:.1f} at the end)")
    print(f"  CPU time (what an unshared core would take): median {statistics.median(cpu):.2f} s   "
          f"p95 {cpu[int(0.95 * (n - 1))]:.2f} s   worst {cpu[-1]:.2f} s")
    print(f"  samples used: mean {statistics.mean(samples):.1f}, median {statistics.median(samples):.0f}, "
          f"most {max(samples)}; exact {exact}; hints with an undecided sample: "
          f"{undecided} ({100 * undecided / n:.1f}%)")
    print(f"  stopped by the work budget (tutor.hints.HINT_NODES): {len(spent)} of {n}"
          + (f", at {min(spent)}-{max(spent)} samples (median {statistics.median(spent):.0f})" if spent else ""))
    print("  settled by: " + ", ".join(f"{k} {v}" for k, v in sorted(whys.items()))
          + f"; {settled} found won or lost whatever the move by solving every consistent deal")


def _one(job):
    variant, number, samples = job
    rules = preset(variant)
    start = State.initial(deal_for(number, rules), rules)
    t0 = time.perf_counter()
    res = play(start, Policy.SOLVER)
    t1 = time.perf_counter()
    g = play(start, Policy.GREEDY)
    final, moves = play_game(start, samples=samples)
    t2 = time.perf_counter()
    return {"deal": number, "solver": res.won, "solver_cards": res.cards,
            "greedy": g.won, "greedy_cards": g.cards, "tutor": final.won, "tutor_cards": final.cards,
            "tutor_moves": len(moves), "solve_seconds": round(t1 - t0, 3), "tutor_seconds": round(t2 - t1, 2)}


def policy(args) -> None:
    jobs = [(args.variant, n, args.samples) for n in deal_range(args.deals)]
    t0 = time.time()
    rows = []
    out = open(args.out, "w") if args.out else None
    for i, row in enumerate(parallel_map(_one, jobs, args.workers), 1):
        rows.append(row)
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()
        if args.progress and i % 10 == 0:
            print(f"  {i}/{len(jobs)} deals, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    wall = time.time() - t0
    rows.sort(key=lambda r: r["deal"])
    n = len(rows)
    solver_w = sum(1 for r in rows if r["solver"])
    undecided = sum(1 for r in rows if r["solver"] is None)
    greedy_w = sum(1 for r in rows if r["greedy"])
    tutor_w = sum(1 for r in rows if r["tutor"])
    tutor_of_winnable = sum(1 for r in rows if r["tutor"] and r["solver"])
    print(f"{args.variant}, deals {args.deals} ({n} deals), samples budget {args.samples or POLICY_SAMPLES}, "
          f"{args.workers} workers, {wall:.0f} s wall")
    print(f"  solver (full knowledge): {solver_w} won ({100 * solver_w / n:.1f}%), {undecided} undecided")
    print(f"  greedy:                  {greedy_w} won ({100 * greedy_w / n:.1f}%), "
          f"mean {statistics.mean(r['greedy_cards'] for r in rows):.1f} cards")
    print(f"  tutor (sees what a player sees): {tutor_w} won ({100 * tutor_w / n:.1f}%), "
          f"mean {statistics.mean(r['tutor_cards'] for r in rows):.1f} cards")
    if solver_w:
        print(f"  tutor wins {tutor_of_winnable} of the {solver_w} solver-winnable deals "
              f"({100 * tutor_of_winnable / solver_w:.1f}%)")
    times = sorted(r["tutor_seconds"] for r in rows)
    print(f"  tutor seconds per game: median {statistics.median(times):.1f}, worst {times[-1]:.1f}")
    missed = [r["deal"] for r in rows if r["solver"] and not r["tutor"]]
    print(f"  winnable deals the tutor lost: {missed}")


def _miss(job):
    """Where the tutor let a win go: the first move after which the true position is lost."""
    variant, number, samples = job
    from tutor.certainty import opens_row
    from tutor.hints import score_moves
    from tutor.search import Limit

    rules = preset(variant)
    start = State.initial(deal_for(number, rules), rules)
    final, moves = play_game(start, samples=samples)
    lim = Limit(nodes=300_000)
    st = start
    for ply, move in enumerate(moves, 1):
        after = st.apply(move)
        if solve(after, lim).winnable is False and solve(st, lim).winnable:
            obs = observe(st)
            scored = score_moves(obs, samples=samples)
            truth = {str(m): solve(st.apply(m), lim).winnable for m in st.legal_moves()}
            kind = ("opens a row" if opens_row(obs, move) is not None else
                    {"d": "turn", "w": "waste play", "r": "reserve play"}[move.kind])
            return {"deal": number, "ply": ply, "move": str(move), "kind": kind, "pass": st.pass_no,
                    "cards": st.cards, "why": scored.why, "samples": scored.samples,
                    "estimates": {str(c.move): round(c.win, 2) for c in scored.candidates}, "truth": truth,
                    "hidden": len(obs.unseen_cards()), "final_cards": final.cards}
        st = after
    return {"deal": number, "ply": None, "final_cards": final.cards}


def misses(args) -> None:
    numbers = [int(x) for x in args.deals.split(",")]
    rows = list(parallel_map(_miss, [(args.variant, n, args.samples) for n in numbers], args.workers))
    kinds: dict[str, int] = {}
    for r in rows:
        print(json.dumps(r))
        if r["ply"]:
            kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print("wins let go, by the kind of move: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    lat = sub.add_parser("latency")
    lat.add_argument("--variant", default="osmosis")
    lat.add_argument("--deals", default="1-40")
    lat.add_argument("--every", type=int, default=6)
    lat.add_argument("--samples", type=int, default=None)
    lat.add_argument("--source", choices=["tutor", "greedy"], default="tutor")
    lat.add_argument("--first", type=int, default=0, help="only the first N such positions of each tutor game")
    lat.add_argument("--workers", type=int, default=2, help="processes playing the games (timing is serial)")
    pol = sub.add_parser("policy")
    pol.add_argument("--variant", default="osmosis")
    pol.add_argument("--deals", default="1-200")
    pol.add_argument("--workers", type=int, default=2)
    pol.add_argument("--samples", type=int, default=None)
    pol.add_argument("--out", default=None, help="write one JSON line per deal here")
    pol.add_argument("--progress", action="store_true")
    mis = sub.add_parser("misses")
    mis.add_argument("--variant", default="osmosis")
    mis.add_argument("--deals", required=True, help="deal numbers separated by commas")
    mis.add_argument("--workers", type=int, default=2)
    mis.add_argument("--samples", type=int, default=None)
    args = ap.parse_args()
    {"latency": latency, "policy": policy, "misses": misses}[args.what](args)


if __name__ == "__main__":
    main()
