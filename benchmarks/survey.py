"""Survey benchmarks: the README's win-rate table, the engines' scaling, and the solver's time per deal.

    python benchmarks/survey.py table   [--deals 1-2000] [--workers 2] [--presets osmosis,peek]
                                        [--policies solver,greedy] [--store FILE] [--per-deal DIR]
                                        [--nodes N] [--retry-nodes N]
    python benchmarks/survey.py table --from benchmarks/results
    python benchmarks/survey.py scaling [--variant osmosis] [--policy solver] [--deals 1-300] [--batch 25]
    python benchmarks/survey.py times   [--deals 1-200] [--presets ...] | times --from benchmarks/results

``table`` runs :func:`tutor.engines.stream_survey` per preset and policy
(on a Dask LocalCluster, reading and filling the results store) and prints
one markdown table; ``--per-deal DIR`` writes ``PRESET-POLICY-A-B.jsonl.gz``
there. ``table --from DIR`` plays nothing: it rebuilds the table from the
published per-deal files (the largest range of each preset and policy), so
anyone can check the README's figures against them. ``scaling`` plays the same deals with the old process pool
(:func:`tutor.survey.run_survey`) and with Dask, on 1 and 2 workers, and
prints deals/s per core and the scaling efficiency (the 2-worker rate over
twice the 1-worker rate). ``times`` prints the solver's median, 99th
percentile and worst seconds per deal per preset, from a fresh sample played
here or from published per-deal files. On a shared machine every timing
moves with the load; the totals never do.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

from tutor.engines import DaskEngine, InProcess, stream_survey
from tutor.estimate import wilson
from tutor.policies import DealOutcome
from tutor.rules import PRESETS
from tutor.search import DEFAULT_LIMIT, Limit
from tutor.store import ResultStore
from tutor.survey import Tally, parse_range, run_survey

CLAIMS = {"osmosis": "1 in 6", "peek": "1 in 3", "single": "1 in 3", "limited": "-", "bridesmaids": "-"}


def _per_deal_files(folder: Path, pattern: str = "*-*-*.jsonl.gz") -> list[Path]:
    """The per-deal files in ``folder``; a folder that is not there or holds none is one line and exit 1 (an
    empty table with exit 0 read as "no results" where the name was mistyped)."""
    if not folder.is_dir():
        sys.exit(f"survey: --from {str(folder)!r} is not a folder: give the folder of the per-deal files, like "
                 "benchmarks/results")
    paths = sorted(folder.glob(pattern))
    if not paths:
        sys.exit(f"survey: --from {str(folder)!r} holds no per-deal files ({pattern}): give the folder they are "
                 "in, like benchmarks/results")
    return paths


def _largest_files(folder: Path) -> dict[tuple[str, str], tuple[Path, list[dict]]]:
    """The per-deal file with the most deals for each (preset, policy) in ``folder``."""
    best: dict[tuple[str, str], tuple[Path, list[dict]]] = {}
    for path in _per_deal_files(folder):
        with gzip.open(path, "rt") as fh:
            rows = [json.loads(line) for line in fh]
        if not rows:
            continue
        key = (rows[0]["variant"], rows[0]["policy"])
        if key not in best or len(rows) > len(best[key][1]):
            best[key] = (path, rows)
    return best


def _solver_rows(files: dict[tuple[str, str], tuple[Path, list[dict]]], name: str) -> tuple[str, list[dict]] | None:
    """The solver's per-deal rows for preset ``name``, and the preset they were played in.

    Peek's solver rows may come from osmosis: with every card known the two
    are the same game (the store answers one from the other), so the larger
    file of the two serves both.
    """
    own = files.get((name, "solver"))
    if name == "peek":
        other = files.get(("osmosis", "solver"))
        if other is not None and (own is None or len(other[1]) > len(own[1])):
            return "osmosis", other[1]
    return (name, own[1]) if own is not None else None


def of_winnable(rows: list[dict], solver: list[dict]) -> tuple[int, int, int, list[int]]:
    """(won, winnable, covered, against): of the deals of ``rows`` the solver rows cover (``covered``), how
    many the solver wins (``winnable``) and how many of those ``rows`` won; ``against``: the deals ``rows``
    won that the solver calls lost (one of the two is then wrong)."""
    verdict = {r["deal"]: r["won"] for r in solver}
    covered = [r for r in rows if r["deal"] in verdict]
    winnable = [r for r in covered if verdict[r["deal"]] is True]
    against = [r["deal"] for r in covered if r["won"] is True and verdict[r["deal"]] is False]
    return sum(1 for r in winnable if r["won"] is True), len(winnable), len(covered), against


def _summary(rows: list[dict]) -> tuple[int, int, int, float, float, float, float]:
    """(deals, wins, undecided, interval low, interval high, mean cards, seconds) of per-deal rows; the
    interval's top counts the undecided deals as won."""
    n = len(rows)
    wins = sum(1 for r in rows if r["won"] is True)
    unknown = sum(1 for r in rows if r["won"] is None)
    low, _ = wilson(wins, n)
    _, high = wilson(wins + unknown, n)
    return n, wins, unknown, low, high, sum(r["cards"] for r in rows) / n, sum(r["seconds"] for r in rows)


def _cards(rows: list[dict]) -> str:
    """The mean cards of per-deal rows with their 95% interval, as osmosis stats gives it (Tally.cards_interval)."""
    tally = Tally(PRESETS["osmosis"], "solver")
    for r in rows:
        tally.add(DealOutcome(r["deal"], r["won"], r["cards"], 0.0))
    return _cards_of(tally)


def _cards_of(tally: Tally) -> str:
    low, high = tally.cards_interval
    return f"{tally.mean_cards:.2f} ({low:.2f}-{high:.2f})"


def table_from_files(folder: Path, policies: list[str]) -> None:
    files = _largest_files(folder)
    print(f"From the per-deal files in {folder} (the largest range of each preset and policy; "
          "seconds: the sum of the per-deal times, CPU of one worker; of the winnable: the deals the "
          "solver wins, from the preset's solver file).\n")
    print("| preset | policy | deals | won (95% CI) | of the solver-winnable (95% CI) | mean cards (95% CI) "
          "| undecided | seconds | file |")
    print("|---|---|---:|---|---|---:|---:|---:|---|")
    notes = []
    for name in PRESETS:
        solver = _solver_rows(files, name)
        for policy in policies:
            if (name, policy) not in files:
                continue
            path, rows = files[(name, policy)]
            n, wins, unknown, low, high, cards, seconds = _summary(rows)
            mean = _cards(rows)
            share = "-"
            if policy != "solver" and solver is not None:
                won, winnable, covered, against = of_winnable(rows, solver[1])
                if against:
                    notes.append(f"{name} {policy} won {len(against)} deals the solver calls lost: "
                                 f"{', '.join(map(str, against[:20]))}")
                if winnable:
                    lo, hi = wilson(won, winnable)
                    share = f"{won:,}/{winnable:,} = {100 * won / winnable:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}%)"
                    if covered < n:
                        share += f" (on the {covered:,} deals the solver file covers)"
            file = path.name
            if policy == "solver" and solver is not None and solver[0] != name:
                file = f"{files[(solver[0], 'solver')][0].name} (with every card known {name} is {solver[0]})"
                n, wins, unknown, low, high, cards, seconds = _summary(solver[1])
                mean = _cards(solver[1])
                notes.append(f"{name}'s own solver file: {path.name}, {len(files[(name, policy)][1]):,} deals")
            print(f"| `{name}` | {policy} | {n:,} | {wins:,} = {100 * wins / n:.1f}% ({100 * low:.1f}-{100 * high:.1f}%) "
                  f"| {share} | {mean} | {unknown} | {seconds:,.0f} | {file} |")
    for note in notes:
        print(f"\n{note}.")


def table(args) -> None:
    if args.from_dir:
        table_from_files(Path(args.from_dir), (args.policies or "solver,greedy,tutor").split(","))
        return
    deals = parse_range(args.deals)
    policies = (args.policies or "solver,greedy").split(",")
    limit = Limit(nodes=args.nodes)
    store = ResultStore(args.store) if args.store else ResultStore()
    engine = DaskEngine(workers=args.workers) if args.workers > 1 else InProcess()
    rows = []
    try:
        for name in args.presets.split(","):
            cells = {}
            for policy in policies:
                out = None
                if args.per_deal:
                    Path(args.per_deal).mkdir(parents=True, exist_ok=True)
                    out = gzip.open(Path(args.per_deal) / f"{name}-{policy}-{deals}.jsonl.gz", "wt")
                try:
                    t = stream_survey(PRESETS[name], deals, policy, limit, engine=engine, store=store, per_deal=out,
                                      retry_nodes=args.retry_nodes)
                finally:
                    if out is not None:
                        out.close()
                cells[policy] = t
                low, high = t.interval
                print(f"{name:12s} {policy:7s} wins {t.wins}/{t.deals} undecided {t.unknown} {t.undecided} "
                      f"rate {100 * t.win_rate:.1f}% [{100 * low:.1f}-{100 * high:.1f}] mean cards "
                      f"{t.mean_cards:.2f} ({t.seconds:.0f} s, {t.from_store} from the store)",
                      file=sys.stderr, flush=True)
            rows.append((name, cells))
    finally:
        engine.close()
        store.close()
    print(f"\nDeals {deals} (PySolFC numbering), solver node limit {args.nodes}, then {args.retry_nodes} "
          "for a win-only second search of the deals left undecided.\n")
    head, rule = "| preset | rules text claims |", "|---|---|"
    for policy in policies:
        head += f" {policy}: won (95% CI) | {policy} mean cards (95% CI) |"
        rule += "---|---:|"
        if policy == "solver":
            head += " undecided |"
            rule += "---|"
    print(head)
    print(rule)
    for name, cells in rows:
        line = f"| `{name}` | {CLAIMS.get(name, '-')} |"
        for policy in policies:
            t = cells[policy]
            low, high = t.interval
            line += f" {t.wins} = {100 * t.win_rate:.1f}% ({100 * low:.1f}-{100 * high:.1f}%) | {_cards_of(t)} |"
            if policy == "solver":
                line += f" {t.unknown}" + (f" ({', '.join(map(str, t.undecided))})" if t.unknown else "") + " |"
        print(line)


def scaling(args) -> None:
    deals = parse_range(args.deals)
    rules = PRESETS[args.variant]
    limit = Limit(nodes=args.nodes)
    results = {}
    for workers in (1, 2):
        t0 = time.perf_counter()
        pool = run_survey(rules, deals, args.policy, workers, limit)
        results[("pool", workers)] = (time.perf_counter() - t0, (pool.wins, pool.unknown, pool.mean_cards))
        engine = InProcess() if workers == 1 else None
        t0 = time.perf_counter()
        if engine is None:
            engine = DaskEngine(workers=workers)  # cluster start-up counted apart, below
            started = time.perf_counter() - t0
            t0 = time.perf_counter()
        else:
            started = 0.0
        try:
            t = stream_survey(rules, deals, args.policy, limit, engine=engine, batch=args.batch)
        finally:
            engine.close()
        results[("dask", workers)] = (time.perf_counter() - t0, (t.wins, t.unknown, t.mean_cards))
        print(f"{workers} worker(s): pool {results[('pool', workers)][0]:.1f} s, "
              f"{'dask' if workers > 1 else 'in-process'} {results[('dask', workers)][0]:.1f} s"
              f" (+{started:.1f} s cluster start-up)", file=sys.stderr, flush=True)
    totals = {v[1] for v in results.values()}
    print(f"\n{args.variant}, policy {args.policy}, deals {deals}, batch {args.batch}; "
          f"every engine gave the same totals: {len(totals) == 1} {sorted(totals)[0]}\n")
    print("| engine | 1 worker: deals/s | 2 workers: deals/s | per core | scaling efficiency |")
    print("|---|---:|---:|---:|---:|")
    for name in ("pool", "dask"):
        one, two = len(deals) / results[(name, 1)][0], len(deals) / results[(name, 2)][0]
        label = "process pool (old path)" if name == "pool" else "in-process / Dask LocalCluster"
        print(f"| {label} | {one:.1f} | {two:.1f} | {two / 2:.1f} | {100 * two / (2 * one):.0f}% |")


def _seconds_from_files(folder: Path) -> dict[str, list[float]]:
    out = {}
    for path in _per_deal_files(folder, "*-solver-*.jsonl.gz"):
        with gzip.open(path, "rt") as fh:
            rows = [json.loads(line) for line in fh]
        if not rows:
            continue
        out[f"{rows[0]['variant']} ({path.name})"] = [r["seconds"] for r in rows]
    return out


def times(args) -> None:
    if args.from_dir:
        samples = _seconds_from_files(Path(args.from_dir))
        origin = f"per-deal files in {args.from_dir}"
    else:
        deals = parse_range(args.deals)
        samples = {}
        for name in args.presets.split(","):
            buf = []

            class Collect:
                def write(self, line, buf=buf):
                    buf.append(json.loads(line)["seconds"])

            stream_survey(PRESETS[name], deals, "solver", Limit(nodes=args.nodes), per_deal=Collect())
            samples[name] = buf
        origin = f"deals {deals}, played here, one process"
    print(f"Solver seconds per deal ({origin}):\n")
    print("| preset | deals | median | p99 | worst |")
    print("|---|---:|---:|---:|---:|")
    for name, secs in samples.items():
        secs = sorted(secs)
        p99 = secs[min(len(secs) - 1, int(0.99 * len(secs)))]
        print(f"| {name} | {len(secs)} | {1000 * statistics.median(secs):.1f} ms | {p99:.2f} s | {secs[-1]:.2f} s |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("table")
    t.add_argument("--deals", default="1-2000")
    t.add_argument("--workers", type=int, default=2)
    t.add_argument("--presets", default=",".join(PRESETS))
    t.add_argument("--policies", default=None,
                   help="default solver,greedy (with --from: solver,greedy,tutor; the tutor takes hours a preset)")
    t.add_argument("--store", default=None)
    t.add_argument("--per-deal", default=None, metavar="DIR")
    t.add_argument("--retry-nodes", type=int, default=10 * DEFAULT_LIMIT.nodes)
    t.add_argument("--from", dest="from_dir", default=None, metavar="DIR",
                   help="play nothing: rebuild the table from the per-deal files in DIR")
    s = sub.add_parser("scaling")
    s.add_argument("--variant", default="osmosis")
    s.add_argument("--policy", default="solver")
    s.add_argument("--deals", default="1-300")
    s.add_argument("--batch", type=int, default=25)
    m = sub.add_parser("times")
    m.add_argument("--deals", default="1-200")
    m.add_argument("--presets", default=",".join(PRESETS))
    m.add_argument("--from", dest="from_dir", default=None, metavar="DIR")
    for p in (t, s, m):
        p.add_argument("--nodes", type=int, default=DEFAULT_LIMIT.nodes)
    args = ap.parse_args()
    {"table": table, "scaling": scaling, "times": times}[args.what](args)


if __name__ == "__main__":
    main()
