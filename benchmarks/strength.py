"""Strength of blind play: the tutor (PIMC + information-set search), PIMC alone, greedy and the solver.

    python benchmarks/strength.py --preset osmosis --deals 1-300 --method tutor [--winnable-only] [--out FILE]
    python benchmarks/strength.py --preset osmosis --deals 1-300 --method pimc --winnable-only --out FILE
    python benchmarks/strength.py practical --preset osmosis --deal 10 --moves 40 --games 8

``--method``: ``tutor`` (the hint's choice with the information-set search,
:func:`tutor.policies.play_game`), ``pimc`` (the same with the search off: the
old behaviour), ``greedy`` or ``solver`` (full knowledge); measured and not
kept: ``tutor128``, ``tutor256``, ``tutor1024`` (a sample budget grown to 128, 256 or 1024 while the best
move is in doubt), ``tutorwide`` (the guarded wide tie-break, :func:`wide_leader`), ``tutorsearch``
(the search at every affordable choice, :func:`search_wanted`), ``tutorcommit`` (the next row's
suit chosen now, :func:`commit_choose`), ``tutorreserve`` (only its reserve rule,
:func:`commit_reserve_choose`), ``tutorfirst`` (a play before a turn on ties until the first card is
played, :func:`first_pass_leader`), ``tutoropen`` (up to 256 samples where a move opens a row,
:func:`open_choose`) and ``tutorscore`` (a lost sample's best score searched by the score phase alone,
:func:`score_after_win`).
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
from tutor.hints import choose as _POLICY_CHOOSE
from tutor.knowledge import observe
from tutor.policies import Policy, parallel_map, play, play_game
from tutor.rules import PRESETS
from tutor.sampling import _solve_sample
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

GROWN = {"tutor128": 128, "tutor256": 256, "tutor1024": 1024}
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


def unplayed_first_pass(obs) -> bool:
    """No card played yet, and cards still to turn unseen: the first pass, before its first play."""
    return not obs.progress and any(c is None for c in obs.stock)


def first_pass_leader(obs, scores, certain):
    """The policy's tie-break, but before any card is played in the first pass (no play yet, cards still to
    turn unseen) a turn loses a tie in samples won to a play: a first pass with no play blocks the game, a
    risk too small for 32 samples to show (Bridesmaids 76 and Osmosis 70480 were lost with 1 card, the turn
    chosen on such ties at every chance to play). Replayed cheaply by ``benchmarks/carry.py``."""
    from tutor.certainty import preference
    from tutor.hints import opens_row

    if certain:
        return certain[0]
    unplayed = unplayed_first_pass(obs)

    def key(m):
        won = sum(scores.won(m))
        return (-won, bool(won) and unplayed and m.kind == "d", bool(won) and opens_row(obs, m) is not None,
                -scores.mean(m), preference(obs, m, certain))

    return min(scores.moves, key=key)


def search_wanted(obs, scores, moves, lost, exact):
    """The information-set search at every sampled choice it can afford, not only where PIMC is in doubt.

    The talon known, at most :data:`tutor.infoset.INFOSET_UNSEEN` unseen cards
    and two moves that may still win: PIMC's confident answers get the search
    too, in case strategy fusion hides behind a clear lead.
    """
    from tutor.infoset import INFOSET_UNSEEN

    if None in obs.stock or len(obs.unseen_cards()) > INFOSET_UNSEEN:
        return False
    return len([m for m in moves if m not in lost]) >= 2


def order_wins(state, nodes=20_000):
    """For each full row order still open, whether ``state`` can be won under it (every card known)."""
    from tutor.constraints import FULL, row_orders
    from tutor.search import Limit
    from tutor.search_dfs import _Search

    out = {}
    for order in row_orders(tuple(state.rows)):
        if state.won:
            out[order] = True
            continue
        search = _Search(state, Limit(nodes=nodes))
        if search.needs.reachable(state.mask(), order) != FULL:
            out[order] = False
            continue
        status, _, _ = search.run(order, state.cards, [], None, win_only=True, ceiling=52)
        out[order] = status == "won"
    return out


def committed_values(obs, moves, worlds):
    """Each move's win share when the next row's suit must be chosen now, the same in every deal.

    PIMC lets every sample open the next foundation row with its own best
    suit later, so waiting looks better than opening it now, even when no
    card will turn up in between to tell the suits apart. Here every move is
    scored by the best single suit for the next row: the share of the deals
    won under some row order with that suit there (later rows still free).
    """
    k = len(obs.rows)
    values, pimc = {}, {}
    for m in moves:
        tables = [order_wins(w.apply(m)) for w in worlds]
        suits = {o[k] for t in tables for o in t}
        values[m] = max(sum(any(v for o, v in t.items() if o[k] == x) for t in tables) for x in suits) / len(worlds)
        pimc[m] = sum(any(t.values()) for t in tables) / len(worlds)
    return values, pimc


def tutor_choose(obs, samples=None, limit=None, infoset=True):
    """The policy's own :func:`tutor.hints.choose` (kept here, as ``patch`` may replace the module's)."""
    return _POLICY_CHOOSE(obs, samples, limit, infoset)


def commit_choose(obs, samples=None, limit=None, infoset=True):
    """The tutor's move, but where a row can be opened (and its suit still matters) by :func:`committed_values`.

    A reserve card that opens the next row with the best committed suit is
    played at once: under that suit it only adds options, and it turns up
    the card beneath. Otherwise the best committed value, PIMC's share and
    then the tutor's own order break ties.
    """
    from tutor.certainty import certain_moves, opens_row, preference
    from tutor.notation import TURN

    moves = obs.legal_moves()
    certain = certain_moves(obs, moves) if len(moves) > 1 else []
    if len(moves) > 1 and (not certain or certain == [TURN]) and len(obs.rows) < 3 \
            and any(opens_row(obs, m) is not None for m in moves):
        # a certain turn keeps every option, but a reserve card that opens the next row with
        # the best committed suit keeps them too and shows the card beneath: it goes first
        reserve = any(m.kind == "r" and opens_row(obs, m) is not None for m in moves)
        if not certain or reserve:
            worlds = obs.samples(samples or 32)
            values, pimc = committed_values(obs, moves, worlds)
            top = max(values.values())
            best = [m for m in moves if values[m] == top]
            if top > 0:
                for m in best:
                    if m.kind == "r" and opens_row(obs, m) is not None:
                        return m
                if certain:
                    return TURN
                if len(best) == 1:
                    return best[0]
                return min(best, key=lambda m: (-pimc[m], preference(obs, m, [])))
    return tutor_choose(obs, samples, limit, infoset)


def commit_reserve_choose(obs, samples=None, limit=None, infoset=True):
    """The tutor's move, except one rule of :func:`commit_choose`: a reserve card that opens the next row
    is played when, with the next row's suit chosen now (:func:`committed_values`), it is as good as any move."""
    from tutor.certainty import certain_moves, opens_row

    moves = obs.legal_moves()
    certain = certain_moves(obs, moves) if len(moves) > 1 else []
    reserve = [m for m in moves if m.kind == "r" and opens_row(obs, m) is not None]
    if reserve and len(obs.rows) < 3 and all(m.kind == "d" for m in certain):
        values, _ = committed_values(obs, moves, obs.samples(samples or 32))
        top = max(values.values())
        for m in reserve:
            if top > 0 and values[m] == top:
                return m
    return tutor_choose(obs, samples, limit, infoset)


OPEN_SAMPLES = 256
"""The budget of :func:`open_choose` at a choice where a move opens a foundation row."""


def open_choose(obs, samples=None, limit=None, infoset=True):
    """The policy, but a choice where a move would open a foundation row (when, and with which suit: the
    choices that decide single-card games) draws samples in batches up to :data:`OPEN_SAMPLES` while its
    best move is in doubt (:func:`tutor.hints.best_in_doubt`), not 32 alone; every other choice as before."""
    from tutor.certainty import opens_row

    moves = obs.legal_moves()
    if samples is None and len(moves) > 1 and any(opens_row(obs, m) is not None for m in moves):
        samples = OPEN_SAMPLES
    return tutor_choose(obs, samples, limit, infoset)


_POLICY_SAMPLE = _solve_sample  # the policy's own, kept before a worker patches it


def score_after_win(state, win_nodes, best_nodes, lost=False, spent=None):
    """:func:`tutor.sampling._solve_sample` with a lost deal's best score searched by the score phase alone.

    The policy's ``solve(want="best")`` after a lost win search runs the win search again inside the same
    node limit (600 for the tutor as a player), so the best-score phase is rarely reached and the cards
    tie-break is mostly the best met on the way. Here the limit goes to the score phase, starting from that.
    """
    from tutor.search import Limit, best_phase, row_orders, solve
    from tutor.search_dfs import _Search

    if state.won or lost or best_nodes <= 0:
        return _POLICY_SAMPLE(state, win_nodes, best_nodes, lost, spent)  # as the policy
    spent = spent if spent is not None else [0]
    res = solve(state, Limit(nodes=win_nodes), want="win")
    spent[0] += res.nodes
    if res.winnable or res.winnable is None:
        return res.winnable, 52 if res.winnable else res.best_cards, bool(res.winnable)
    search = _Search(state, Limit(nodes=best_nodes))
    reach = {o: search.needs.reachable(state.mask(), o) for o in row_orders(tuple(state.rows))}
    best, _, complete = best_phase(search, reach, max(res.best_cards, state.cards), [])
    spent[0] += search.nodes
    return False, best, complete


def salted(salt: int):
    """The observation's seed with a salt: the same policy on other samples, to measure how many deals
    change result by the luck of the samples alone (the noise floor of any comparison of policies)."""
    import hashlib

    def seed(self) -> int:
        digest = hashlib.sha256(f"salt {salt}\n{self.canonical_text()}".encode()).digest()
        return int.from_bytes(digest[:8], "big")

    return seed


PATCHED = {"tutorseed": ("knowledge.Observation.seed", salted(1)),
           "tutorseed2": ("knowledge.Observation.seed", salted(2)), "tutorscore": ("sampling._solve_sample", score_after_win), "tutorwide": ("leader", wide_leader), "tutorfirst": ("leader", first_pass_leader), "tutorsearch": ("wanted", search_wanted),
           "tutoropen": ("choose", open_choose),
           "tutorcommit": ("choose", commit_choose),
           "tutorreserve": ("choose", commit_reserve_choose)}
"""Methods that are the tutor with one of its functions replaced (measured, not kept): for example
``tutorwide`` another tie-break in place of :func:`tutor.hints.leader`, ``tutorsearch`` the search's
gate :func:`tutor.infoset.wanted` opened wide; ``tutorseed`` and ``tutorseed2`` the policy itself on other
samples (the observation's seed salted), to measure how many deals the luck of the samples alone changes."""


def patch(method: str) -> None:
    """Install ``method``'s replacement in this process (each worker calls it before it plays)."""
    import importlib

    name, fn = PATCHED[method]
    # "leader" is tutor.hints.leader; "sampling._solve_sample" and "knowledge.Observation.seed" name their module
    *path, attr = name.split(".")
    target = importlib.import_module(f"tutor.{path[0]}" if path else "tutor.hints")
    for part in path[1:]:
        target = getattr(target, part)
    setattr(target, attr, fn)


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


UNTUNED = ("70001-70100", "70101-70300", "70301-70500")
"""The untuned deal ranges the policy was measured on, pooled in the table as 70001-70500."""


def load(path: Path) -> dict[int, dict]:
    """A results file's rows by deal (one JSON line a deal)."""
    return {r["deal"]: r for r in map(json.loads, path.read_text().splitlines())}


def read_rows(preset: str, method: str, ranges: tuple[str, ...]) -> tuple[dict[int, dict], list[str]]:
    """The per-deal rows of ``PRESET-METHOD-RANGE.jsonl`` over ``ranges``, and the ranges with no file."""
    rows: dict[int, dict] = {}
    missing = []
    for part in ranges:
        path = RESULTS / "strength" / f"{preset}-{method}-{part}.jsonl"
        if path.exists():
            rows.update(load(path))
        else:
            missing.append(part)
    return rows, missing


def sign_p(a: int, b: int) -> float:
    """Two-sided exact sign test: the chance of a split at least as uneven as ``a`` against ``b`` by luck."""
    from math import comb

    n = a + b
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(a, b) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def share(rows: dict[int, dict]) -> str:
    wins, n = sum(1 for r in rows.values() if r["won"]), len(rows)
    if not n:
        return "no deal"
    lo, hi = wilson(wins, n)
    return f"{wins}/{n} = {100 * wins / n:.1f}% ({100 * lo:.1f}-{100 * hi:.1f})"


def cell(rows: dict[int, dict], missing: list[str]) -> str:
    """A table cell: the share, saying which ranges were not run (never a silently smaller pool)."""
    if not rows:
        return "not run"
    return share(rows) + (f", not run on {', '.join(missing)}" if missing else "")


def paired(a: dict[int, dict], b: dict[int, dict]) -> tuple[list[int], list[int]]:
    """The deals both played that only ``a`` won, and those only ``b`` won."""
    both = sorted(set(a) & set(b))
    return ([d for d in both if a[d]["won"] and not b[d]["won"]],
            [d for d in both if b[d]["won"] and not a[d]["won"]])


def table(args) -> None:
    """The README's strength table, from the per-deal files: the tutor against PIMC alone and greedy."""
    print("| preset | deals | solver-winnable | tutor (95% CI) | PIMC alone (95% CI) | greedy (95% CI) | "
          "paired: only the tutor won / only PIMC | sign test p |")
    print("|---|---|---|---|---|---|---|---|")
    pooled: dict[str, tuple[int, int, int]] = {}
    for preset in ("osmosis", "peek", "single", "limited", "bridesmaids"):
        for label, ranges in (("1-300", ("1-300",)), ("70001-70500 (untuned)", UNTUNED)):
            (tutor, gaps), (pimc, pimc_gaps), (greedy, greedy_gaps) = (read_rows(preset, m, ranges)
                                                                     for m in ("tutor", "pimc", "greedy"))
            if not tutor:
                continue  # not measured in this preset
            cells = [cell(tutor, gaps), cell(pimc, pimc_gaps), cell(greedy, greedy_gaps)]
            mine, theirs = paired(tutor, pimc)
            n, a, b = pooled.get(preset, (0, 0, 0))
            pooled[preset] = (n + len(set(tutor) & set(pimc)), a + len(mine), b + len(theirs))
            split = f"{len(mine)} / {len(theirs)}" if pimc else ""
            p = f"{sign_p(len(mine), len(theirs)):.2g}" if pimc else ""
            print(f"| {preset} | {label} | {len(tutor)} | {' | '.join(cells)} | {split} | {p} |")
    n, a, b = pooled["osmosis"]
    print(f"\nOsmosis paired over all {n} deals: {a} won only by the tutor, {b} only by PIMC alone "
          f"(sign test p = {sign_p(a, b):.2g}).")


def compare(args) -> None:
    """Two results files deal by deal: each one's share, the deals only one won, and the sign test."""
    a, b = load(Path(args.a)), load(Path(args.b))
    both = set(a) & set(b)
    a, b = {d: a[d] for d in both}, {d: b[d] for d in both}
    mine, theirs = paired(a, b)
    print(f"{len(both)} deals in both: {Path(args.a).name} {share(a)}, {Path(args.b).name} {share(b)}")
    print(f"  only the first won {len(mine)}: {', '.join(map(str, mine)) or 'none'}")
    print(f"  only the second won {len(theirs)}: {', '.join(map(str, theirs)) or 'none'}")
    print(f"  two-sided sign test p = {sign_p(len(mine), len(theirs)):.2g}")


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
    fa = sub.add_parser("fatal", help="the tutor's own blind play after each fatal move and after the move "
                                      "that kept the real deal winnable")
    fa.add_argument("triage", help="a triage file (triage-PRESET-METHOD-DEALS.jsonl)")
    fa.add_argument("--deals", help="only these deals of the file (a range or list)")
    fa.add_argument("--games", type=int, default=16, help="blind games after each of the two moves (default 16)")
    fa.add_argument("--workers", type=int, default=1)
    sub.add_parser("table", help="the README's table: tutor, PIMC alone and greedy per preset, from the files")
    cp = sub.add_parser("compare", help="two results files deal by deal, with a sign test")
    cp.add_argument("a")
    cp.add_argument("b")
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
    elif args.cmd == "table":
        table(args)
    elif args.cmd == "compare":
        compare(args)
    elif args.cmd == "fatal":
        from triage import fatal_practical

        fatal_practical(args)
    elif args.cmd == "triage":
        from triage import triage

        triage(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
