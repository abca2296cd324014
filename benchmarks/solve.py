"""Solver benchmark: deals A-B of a variant at a node limit.

Prints the share of deals decided, the median / 99th-percentile / maximum
time per deal, nodes per second, and peak memory (per worker process).

    python benchmarks/solve.py [--variant osmosis] [--turn 1|3] [--passes N] [--deals 1-1000] [--nodes N]
                               [--want best|win] [--workers 2] [--graph] [--options JSON]

``--options '{"buried": false}'`` switches one idea of the search off, to
measure what it buys (the switches are in ``tutor.search.OPTIONS``).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time

from tutor import search
from tutor.deals import deal_for
from tutor.policies import parallel_map
from tutor.rules import Rules, preset
from tutor.search import DEFAULT_LIMIT, Limit, solve
from tutor.state import State


def _rules(variant: str, turn: int | None, passes: int | None) -> Rules:
    return preset(variant).with_options(turn=turn, passes=passes)


def _one(args):
    number, variant, turn, passes, nodes, want, options = args
    search.OPTIONS.update(options)  # in the worker process: the pool's workers do not fork from this one
    rules = _rules(variant, turn, passes)
    state = State.initial(deal_for(number, rules), rules)
    t0 = time.perf_counter()
    result = solve(state, Limit(nodes=nodes), want=want)
    seconds = time.perf_counter() - t0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return number, result.winnable, result.best_cards, result.complete, result.nodes, seconds, peak_kib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="osmosis")
    ap.add_argument("--turn", type=int, choices=[1, 3], help="the variant with this turn")
    ap.add_argument("--passes", type=int, help="the variant with this many passes (0 = unlimited)")
    ap.add_argument("--deals", default="1-1000")
    ap.add_argument("--nodes", type=int, default=DEFAULT_LIMIT.nodes)
    ap.add_argument("--want", default="best", choices=["best", "win"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--slowest", type=int, default=5, help="list this many slowest deals")
    ap.add_argument("--graph", action="store_true", help="also compare the hot loop with networkx objects")
    ap.add_argument("--options", default="{}",
                    help='switch ideas off to measure them, e.g. \'{"buried": false}\' (see tutor.search.OPTIONS)')
    args = ap.parse_args()
    options = json.loads(args.options)
    unknown = set(options) - set(search.OPTIONS)
    if unknown:
        ap.error(f"unknown option(s) {sorted(unknown)}: expected some of {sorted(search.OPTIONS)}")
    search.OPTIONS.update(options)  # here (graph_comparison below); each job sets them in its worker too
    a, b = (int(x) for x in args.deals.split("-"))
    jobs = [(n, args.variant, args.turn, args.passes, args.nodes, args.want, options) for n in range(a, b + 1)]
    t0 = time.perf_counter()
    rows = list(parallel_map(_one, jobs, args.workers, chunksize=4))
    wall = time.perf_counter() - t0
    times = sorted(r[5] for r in rows)
    decided = sum(r[1] is not None for r in rows)
    complete = sum(r[3] for r in rows)
    wins = sum(r[1] is True for r in rows)
    nodes = sum(r[4] for r in rows)
    n = len(rows)
    p99 = times[min(n - 1, int(round(0.99 * (n - 1))))]
    print(f"variant {_rules(args.variant, args.turn, args.passes).describe()}, deals {args.deals}, node limit {args.nodes}, want={args.want}, "
          f"{args.workers} workers" + (f", options {options}" if options else ""))
    print(f"decided      {decided}/{n} = {100 * decided / n:.2f}%  (complete incl. best score: {complete})")
    print(f"won          {wins}  lost {decided - wins}  undecided {n - decided}")
    print(f"time/deal    median {1000 * statistics.median(times):.1f} ms, p99 {1000 * p99:.0f} ms, "
          f"max {1000 * times[-1]:.0f} ms, mean {1000 * statistics.mean(times):.1f} ms")
    counts = sorted(r[4] for r in rows)
    print(f"nodes        total {nodes}, {nodes / sum(times):,.0f} nodes/s; per deal median "
          f"{counts[n // 2]}, p90 {counts[int(0.9 * (n - 1))]}, p99 {counts[int(0.99 * (n - 1))]}, max {counts[-1]}")
    print(f"peak memory  {max(r[6] for r in rows) / 1024:.0f} MiB (max RSS of a worker)")
    print(f"wall         {wall:.1f} s")
    slow = sorted(rows, key=lambda r: -r[5])[: args.slowest]
    print("slowest      " + ", ".join(f"#{r[0]} {r[5]:.2f}s {r[4]} nodes {r[1]}" for r in slow))
    undecided = [r[0] for r in rows if r[1] is None]
    if undecided:
        print("undecided    " + " ".join(map(str, undecided[:40])))
    if args.graph:
        graph_comparison(_rules(args.variant, args.turn, args.passes), rows)


def graph_comparison(rules: Rules, rows, count: int = 20, nodes: int = 20_000) -> None:
    """The hot loop's choice: plain ints, tuples and dicts against networkx graph objects.

    On the deals that needed the most nodes: the solver's positions per second,
    :func:`position_graph`'s (a networkx DiGraph of State objects), and the
    transposition table's own operations in a dict and as DiGraph node attributes.
    """
    import networkx as nx

    from tutor.graph import position_graph

    hard = [r[0] for r in sorted(rows, key=lambda r: -r[4])[:count]]
    starts = [State.initial(deal_for(n, rules), rules) for n in hard]
    t0 = time.perf_counter()
    visits = sum(solve(s, Limit(nodes=nodes), want="win").nodes for s in starts)
    plain = visits / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    graph_nodes = sum(position_graph(s, Limit(nodes=nodes)).number_of_nodes() for s in starts)
    graph = graph_nodes / (time.perf_counter() - t0)
    keys = [(i * 2654435761) % (1 << 60) for i in range(200_000)]
    table: dict[int, int] = {}
    t0 = time.perf_counter()
    for k in keys:
        done = table.get(k, 0)
        table[k] = done | 5
    in_dict = (time.perf_counter() - t0) / len(keys)
    g = nx.DiGraph()
    t0 = time.perf_counter()
    for i, k in enumerate(keys):
        if k in g:
            g.nodes[k]["done"] |= 5
        else:
            g.add_node(k, done=5)
        g.add_edge(keys[i // 2], k)
    in_graph = (time.perf_counter() - t0) / len(keys)
    print(f"hot loop     on the {count} hardest deals: solver {plain:,.0f} positions/s; position_graph "
          f"(networkx DiGraph + State) {graph:,.0f} positions/s")
    print(f"             table per position: dict {1e6 * in_dict:.2f} us, networkx node+edge "
          f"{1e6 * in_graph:.2f} us ({in_graph / in_dict:.0f}x)")


if __name__ == "__main__":
    main()
