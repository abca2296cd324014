"""Strength of blind play: the tutor (PIMC + information-set search), PIMC alone, greedy and the solver.

    python benchmarks/strength.py --preset osmosis --deals 1-300 --method tutor [--winnable-only] [--out FILE]
    python benchmarks/strength.py --preset osmosis --deals 1-300 --method pimc --winnable-only --out FILE
    python benchmarks/strength.py practical --preset osmosis --deal 10 --moves 40 --games 8

``--method``: ``tutor`` (the hint's choice with the information-set search,
:func:`tutor.policies.play_game`), ``pimc`` (the same with the search off: the
old behaviour), ``greedy`` or ``solver`` (full knowledge); measured and not
kept: ``tutor256`` (a sample budget grown to 256 while the best move is in
doubt) and ``tutorwide`` (the guarded wide tie-break, :func:`wide_leader`).
``--winnable-only``
plays only the deals the solver wins (read from
``benchmarks/results/PRESET-solver-1-2000.jsonl.gz`` when the range lies
inside it, else solved here). Each deal's result is written to ``--out`` as
it comes (one JSON line), so a partial run still counts; ``--resume`` skips
the deals already in ``--out``. The summary gives wins with a 95% Wilson
interval. ``--workers N`` plays the deals on N processes (the same results,
in the same order). ``triage FILE`` replays each lost deal of a results
file, finds its fatal move and judges it by a stronger blind estimate
(``benchmarks/triage.py``). ``practical`` prints the practical win chance of a position (the
tutor's own blind play on sampled deals, :func:`tutor.practical.practical_win`).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

from tutor.deals import deal_for
from tutor.estimate import wilson
from tutor.knowledge import observe
from tutor.policies import Policy, parallel_map, play, play_game
from tutor.rules import PRESETS
from tutor.search import DEFAULT_LIMIT, solve
from tutor.state import State
from tutor.survey import parse_range

RESULTS = Path(__file__).parent / "results"


def deal_list(text: str) -> list[int]:
    """Deal numbers from ranges and numbers joined by commas: ``1-300`` or ``10,22,40-42``."""
    return [n for part in text.split(",") for n in parse_range(part)]


def winnable(preset: str, numbers: list[int]) -> list[int]:
    path = RESULTS / f"{preset}-solver-1-2000.jsonl.gz"
    if path.exists() and numbers and max(numbers) <= 2000:
        with gzip.open(path, "rt") as f:
            won = {r["deal"] for r in map(json.loads, f) if r["won"]}
        return [n for n in numbers if n in won]
    rules = PRESETS[preset]
    return [n for n in numbers if solve(State.initial(deal_for(n, rules), rules), DEFAULT_LIMIT).winnable]


METHODS = {"tutor": (Policy.TUTOR, True), "pimc": (Policy.TUTOR, False), "greedy": (Policy.GREEDY, True),
           "solver": (Policy.SOLVER, True)}
"""Each ``--method``: the policy, and whether the tutor's information-set search is on."""

GROWN = {"tutor256": 256}
"""Methods that are the tutor with a larger sample budget, grown while its best move is in doubt (measured, not kept)."""

def wide_leader(obs, scores, certain):
    """The wide tie-break, guarded: on equal wins the whole order of :func:`tutor.certainty.preference`.

    A reserve play that turns up a card, then a turn, then a waste play; but
    only once a card has been played this pass (``obs.progress``): before that
    the expected cards decide as in the policy, so the tutor cannot turn
    through a whole pass on ties and block the game.
    """
    from tutor.certainty import preference
    from tutor.hints import opens_row

    if certain:
        return certain[0]

    def key(m):
        won = sum(scores.won(m))
        pref = preference(obs, m, certain)
        return (-won, bool(won) and opens_row(obs, m) is not None, pref if won and obs.progress else 0,
                -scores.mean(m), pref)

    return min(scores.moves, key=key)


PATCHED = {"tutorwide": wide_leader}
"""Methods that are the tutor with another tie-break in place of :func:`tutor.hints.leader` (measured, not kept)."""


def patch(method: str) -> None:
    """Install ``method``'s tie-break in this process (each worker calls it before it plays)."""
    import tutor.hints

    tutor.hints.leader = PATCHED[method]


def play_one(job: tuple[str, int, str]) -> dict:
    preset, number, method = job
    rules = PRESETS[preset]
    start = State.initial(deal_for(number, rules), rules)
    t0, c0 = time.perf_counter(), time.process_time()
    if method in GROWN:
        result = play_game(start, samples=GROWN[method])[0]
    elif method in PATCHED:
        patch(method)
        result = play(start, Policy.TUTOR, DEFAULT_LIMIT, infoset=True)
    else:
        policy, infoset = METHODS[method]
        result = play(start, policy, DEFAULT_LIMIT, infoset=infoset)
    return {"deal": number, "preset": preset, "method": method, "won": bool(result.won), "cards": result.cards,
            "seconds": round(time.perf_counter() - t0, 2), "cpu_seconds": round(time.process_time() - c0, 2)}


def run(args) -> None:
    numbers = deal_list(args.deals)
    if args.winnable_only:
        numbers = winnable(args.preset, numbers)
    rows: list[dict] = []
    done: set[int] = set()
    if args.out and args.resume and Path(args.out).exists():
        for line in Path(args.out).read_text().splitlines():
            r = json.loads(line)
            if r["method"] == args.method and r["preset"] == args.preset:
                rows.append(r)
                done.add(r["deal"])
    out = open(args.out, "a") if args.out else None
    jobs = [(args.preset, n, args.method) for n in numbers if n not in done]
    try:
        for r in parallel_map(play_one, jobs, args.workers):
            n = r["deal"]
            rows.append(r)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
            print(f"  deal {n}: {'won' if r['won'] else 'lost'} {r['cards']} cards, {r['seconds']} s",
                  file=sys.stderr, flush=True)
    finally:
        if out:
            out.close()
    summary(rows, args)


def summary(rows: list[dict], args) -> None:
    n = len(rows)
    wins = sum(1 for r in rows if r["won"])
    lo, hi = wilson(wins, n) if n else (0.0, 1.0)
    kind = "solver-winnable deals" if args.winnable_only else "deals"
    print(f"{args.preset} {args.method}, {kind} of {args.deals}: won {wins}/{n} = "
          f"{100 * wins / max(n, 1):.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f})")
    print("  lost: " + (", ".join(str(r["deal"]) for r in rows if not r["won"]) or "none"))


def practical(args) -> None:
    from tutor.practical import practical_win

    rules = PRESETS[args.preset]
    state = State.initial(deal_for(args.deal, rules), rules)
    for m in play_game(state)[1][: args.moves]:
        state = state.apply(m)
    t0 = time.perf_counter()
    est = practical_win(observe(state), args.games)
    print(f"deal {args.deal} after {args.moves} of the tutor's moves: practical win chance {100 * est.win:.0f}% "
          f"(95% CI {100 * est.win_lo:.0f}-{100 * est.win_hi:.0f}, {est.samples} sampled deals played out by "
          f"the tutor), {time.perf_counter() - t0:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd")
    tr = sub.add_parser("triage", help="find each lost deal's fatal move and its blind values")
    tr.add_argument("results", help="a strength results file (PRESET-METHOD-DEALS.jsonl)")
    tr.add_argument("--deals", help="only these deals of the file's losses (a range or list)")
    tr.add_argument("--samples", type=int, default=512, help="PIMC samples at the fatal position (default 512)")
    tr.add_argument("--out", help="one JSON line a deal (the game's moves too); deals in it are not redone")
    tr.add_argument("--workers", type=int, default=1)
    pr = sub.add_parser("practical")
    pr.add_argument("--preset", default="osmosis", choices=sorted(PRESETS))
    pr.add_argument("--deal", type=int, default=10)
    pr.add_argument("--moves", type=int, default=40)
    pr.add_argument("--games", type=int, default=8)
    for p in (ap,):
        p.add_argument("--preset", default="osmosis", choices=sorted(PRESETS))
        p.add_argument("--deals", default="1-300", help="a range, or ranges and numbers joined by commas")
        p.add_argument("--method", default="tutor", choices=("tutor", "pimc", "greedy", "solver", *GROWN, *PATCHED))
        p.add_argument("--winnable-only", action="store_true")
        p.add_argument("--out")
        p.add_argument("--resume", action="store_true")
        p.add_argument("--workers", type=int, default=1, help="processes playing the deals (default 1)")
    args = ap.parse_args()
    if args.cmd == "practical":
        practical(args)
    elif args.cmd == "triage":
        from triage import triage

        triage(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
