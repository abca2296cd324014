"""The README's win-rate table: every preset, solver and greedy policies, over deals A-B.

    python benchmarks/survey.py [--deals 1-1000] [--workers 2] [--nodes N] [--presets osmosis,peek]
                                [--policies solver,greedy]

Prints one markdown table. The solver plays with every card known, so its
rate is the share of deals that can be won at all (undecided deals are
listed apart: the rate is a lower bound and the interval covers them).
"""

from __future__ import annotations

import argparse
import sys
import time

from tutor.rules import PRESETS
from tutor.search import DEFAULT_LIMIT, Limit
from tutor.survey import parse_range, run_survey

CLAIMS = {"osmosis": "1 in 6", "peek": "1 in 3", "single": "1 in 3", "limited": "-", "bridesmaids": "-"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", default="1-1000")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--nodes", type=int, default=DEFAULT_LIMIT.nodes)
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--policies", default="solver,greedy")
    args = ap.parse_args()
    numbers = parse_range(args.deals)
    policies = args.policies.split(",")
    rows = []
    for name in args.presets.split(","):
        rules = PRESETS[name]
        cells = {}
        for policy in policies:
            t0 = time.perf_counter()
            survey = run_survey(rules, numbers, policy, args.workers, Limit(nodes=args.nodes))
            cells[policy] = survey
            low, high = survey.interval
            print(f"{name:12s} {policy:7s} wins {survey.wins}/{survey.deals} undecided {survey.unknown} "
                  f"rate {100 * survey.win_rate:.1f}% [{100 * low:.1f}-{100 * high:.1f}] "
                  f"mean cards {survey.mean_cards:.2f} ({time.perf_counter() - t0:.0f} s)",
                  file=sys.stderr, flush=True)
        rows.append((name, cells))
    print(f"\nDeals {args.deals} (PySolFC numbering), solver node limit {args.nodes}.\n")
    head = "| preset | rules text claims |"
    rule = "|---|---|"
    for policy in policies:
        head += f" {policy} wins | {policy} win rate (95% CI) | {policy} mean cards |"
        rule += "---:|---|---:|"
        if policy == "solver":
            head += " undecided |"
            rule += "---:|"
    print(head)
    print(rule)
    for name, cells in rows:
        line = f"| `{name}` | {CLAIMS.get(name, '-')} |"
        for policy in policies:
            s = cells[policy]
            low, high = s.interval
            line += (f" {s.wins} | {100 * s.win_rate:.1f}% ({100 * low:.1f}-{100 * high:.1f}%) |"
                     f" {s.mean_cards:.1f} |")
            if policy == "solver":
                line += f" {s.unknown} |"
        print(line)


if __name__ == "__main__":
    main()
