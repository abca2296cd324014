"""Loss triage: for each deal the tutor lost, the fatal move and what a stronger blind estimate says of it.

    python benchmarks/strength.py triage benchmarks/results/strength/osmosis-tutor-1-300.jsonl \\
        [--deals 10,22] [--samples 512] [--out FILE] [--workers 2]

For each lost deal of a results file (:mod:`strength`), the game is played
again with the same method (the policy is deterministic: its samples are
seeded from each observation and every search runs on node limits), and the
real deal is solved along it to find the *fatal move*: the last position
from which the real deal is still winnable (winnability only shrinks along a
game, so a binary search finds it). At that position every legal move gets

- ``real``: does the real deal stay winnable after it (the solver, hindsight);
- ``pimc``: its win share on ``--samples`` fresh consistent deals (drawn
  from another seed than the policy's, so the policy's own noise is not
  reused; every consistent deal when there are no more), with the 95%
  Wilson interval, and the paired drop against the move played;
- ``blind``: the information-set search's value where affordable (the talon
  known, at most 12 unseen cards): exact over every consistent deal when
  they are few, else PIMC's share less the fusion the search finds on
  64 of the deals (:func:`tutor.infoset.hint_values`).

A loss is **fixable** when a move that keeps the real deal winnable has a
clearly higher blind value than the move played (the lower end of the
paired drop's 95% interval above 0): the policy's noise, budget or bias
chose wrong. It is a **coin flip** when no such move is clearly better or
clearly worse (the move played is blind-best within the interval), and **the
deal was the exception** when every move that keeps the real deal winnable
is clearly worse blind (the upper end of its gain's interval below 0).
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from tutor.certainty import certain_moves, lost_for_certain
from tutor.deals import deal_for
from tutor.estimate import paired_drop, wilson
from tutor.infoset import INFOSET_UNSEEN, Search, TooBig, corrected
from tutor.knowledge import observe
from tutor.policies import parallel_map, play_game
from tutor.rules import PRESETS
from tutor.sampling import Outcomes, SolveCache, outcomes_in
from tutor.search import Limit, solve
from tutor.state import State

REAL_NODES = 2_000_000
"""Node limit of the hindsight solves of the real deal (undecided counts as winnable: it was not shown lost)."""

EXACT_DEALS = 720
"""Up to this many consistent deals (6 unseen cards) the fatal position is scored on every one of them."""

SEARCH_WORLDS = 64
SEARCH_NODES = 40_000
EXACT_NODES = 100_000
"""With every consistent deal in the search (at most 120), first the exact search (no depth cut) within this budget."""


def winnable(state: State) -> bool:
    if state.won:
        return True
    res = solve(state, Limit(nodes=REAL_NODES), want="win")
    return res.winnable is not False


def fatal_index(states: list[State]) -> int:
    """The last index whose position is winnable (states[0] is; the last is not)."""
    lo, hi = 0, len(states) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if winnable(states[mid]):
            lo = mid
        else:
            hi = mid
    return lo


def judge(state: State, played, samples: int) -> dict:
    """Every legal move at ``state`` (the fatal position): real outcome, PIMC on many samples, the blind value."""
    obs = observe(state)
    moves = obs.legal_moves()
    certain = certain_moves(obs, moves)
    lost = {m for m in moves if lost_for_certain(obs, m)}
    exact = obs.consistent_deals() <= max(samples, EXACT_DEALS)
    worlds = obs.every_state() if exact else obs.samples(samples, random.Random(obs.seed() ^ 0x5EED))
    cache = SolveCache()
    scores = Outcomes(moves)
    for w in worlds:
        scores.add(outcomes_in(w, moves, certain, lost, 20_000, 0, cache))
    blind: dict | None = None
    method = None
    if None not in obs.stock and len(obs.unseen_cards()) <= INFOSET_UNSEEN:
        live = [m for m in moves if m not in lost]
        part = worlds if len(worlds) <= 120 else random.Random(obs.seed()).sample(worlds, SEARCH_WORLDS)
        search = Search(reveals=10_000, plies=10_000, budget=EXACT_NODES, cache=cache)
        try:
            if len(part) != obs.consistent_deals():
                raise TooBig("not every deal")
            values = search.move_values(obs, part, live)
        except TooBig:
            search = Search(reveals=4, plies=6, budget=SEARCH_NODES, cache=cache)
        try:
            if search.reveals < 10_000:
                values = search.move_values(obs, part, live)
            method = "exact" if (not search.cut and len(part) == obs.consistent_deals()) else f"infoset({len(part)})"
            if len(part) < len(worlds):
                values = {m: min(1.0, max(0.0, v)) for m, v in corrected(search, part, values, scores, live).items()}
            blind = {m: 0.0 if m in lost else values[m] for m in moves}
        except TooBig:
            blind = None
    rows = []
    base = scores.won(played)
    for m in moves:
        won = scores.won(m)
        k = sum(won)
        lo, hi = wilson(k, len(won))
        d = paired_drop(won, base, exact)  # how much better m is than the move played
        shift = 0.0
        if blind is not None:
            shift = (blind[m] - blind[played]) - d.estimate
        value = blind[m] if blind is not None else k / len(won)
        rows.append({"move": str(m), "played": m == played, "real": winnable(state.apply(m)),
                     "pimc": round(k / len(won), 4), "pimc_interval": [round(lo, 4), round(hi, 4)],
                     "samples": len(won), "exact": exact,
                     "blind": round(value, 4), "method": method or "pimc",
                     "gain": round(d.estimate + shift, 4),
                     "gain_interval": [round(d.lo + shift, 4), round(d.hi + shift, 4)]})
    return {"unseen": len(obs.unseen_cards()), "consistent": obs.consistent_deals(),
            "pass": state.pass_no, "talon_known": None not in obs.stock, "moves": rows}


def verdict(rows: list[dict]) -> str:
    alts = [r for r in rows if r["real"] and not r["played"]]
    if not alts:
        return "no winning move?"
    if any(r["gain_interval"][0] > 0 for r in alts):
        return "fixable"
    if any(r["gain_interval"][1] >= 0 for r in alts):
        return "coin flip"
    return "the deal was the exception"


def one(job: tuple[str, int, bool, int]) -> dict:
    preset, number, infoset, samples = job
    rules = PRESETS[preset]
    start = State.initial(deal_for(number, rules), rules)
    t0 = time.process_time()
    end, moves = play_game(start, infoset=infoset)
    replay = time.process_time() - t0
    states = [start]
    for m in moves:
        states.append(states[-1].apply(m))
    out = {"deal": number, "preset": preset, "replay_won": end.won, "replay_seconds": round(replay, 1),
           "game": " ".join(str(m) for m in moves)}
    if end.won:
        return out
    i = fatal_index(states)
    t1 = time.process_time()
    out.update({"fatal": i, "played": str(moves[i])}, **judge(states[i], moves[i], samples))
    out["judge_seconds"] = round(time.process_time() - t1, 1)
    out["verdict"] = verdict(out["moves"])
    return out


def show(r: dict) -> str:
    if r["replay_won"]:
        return f"deal {r['deal']}: the replay WON (the results file is from other code)"
    head = (f"deal {r['deal']}: move {r['fatal'] + 1} `{r['played']}` (pass {r['pass']}, {r['unseen']} unseen, "
            f"{r['consistent']} consistent deals{', talon known' if r['talon_known'] else ''}): {r['verdict']}")
    lines = [head]
    for m in r["moves"]:
        lo, hi = m["pimc_interval"]
        glo, ghi = m["gain_interval"]
        lines.append(f"    {m['move']:>3}{' (played)' if m['played'] else '         '} real deal "
                     f"{'winnable' if m['real'] else 'lost    '}  PIMC {100 * m['pimc']:5.1f}% ({100 * lo:.1f}-"
                     f"{100 * hi:.1f}, {m['samples']}{' exact' if m['exact'] else ''})  blind {100 * m['blind']:5.1f}%"
                     f" [{m['method']}]  vs played {100 * m['gain']:+.1f} ({100 * glo:+.1f} to {100 * ghi:+.1f})")
    return "\n".join(lines)


def triage(args) -> None:
    from strength import deal_list

    path = Path(args.results)
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    lost = [r for r in rows if not r["won"]]
    if not lost:
        print(f"{path}: no lost deals")
        return
    preset, method = lost[0]["preset"], lost[0]["method"]
    if method not in ("tutor", "pimc"):
        sys.exit(f"triage replays the tutor's blind play: {path} holds method {method!r}, expected tutor or pimc")
    wanted = set(deal_list(args.deals)) if args.deals else None
    numbers = [r["deal"] for r in lost if wanted is None or r["deal"] in wanted]
    done: dict[int, dict] = {}
    if args.out and Path(args.out).exists():
        for line in Path(args.out).read_text().splitlines():
            r = json.loads(line)
            done[r["deal"]] = r
    jobs = [(preset, n, method == "tutor", args.samples) for n in numbers if n not in done]
    out = open(args.out, "a") if args.out else None
    try:
        for r in parallel_map(one, jobs, args.workers):
            done[r["deal"]] = r
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
            print(show(r), flush=True)
    finally:
        if out:
            out.close()
    results = [done[n] for n in numbers if n in done]
    print(f"\n{preset} {method}, {len(results)} lost deals of {path.name}:")
    print("| deal | fatal move | pass | unseen | played: blind | best winning-side move: blind | gain (95% CI) | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    counts: dict[str, int] = {}
    for r in results:
        if r["replay_won"]:
            counts["replay won"] = counts.get("replay won", 0) + 1
            print(f"| {r['deal']} | (the replay won) | | | | | | |")
            continue
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        played = next(m for m in r["moves"] if m["played"])
        alts = [m for m in r["moves"] if m["real"] and not m["played"]]
        best = max(alts, key=lambda m: m["gain"]) if alts else None
        alt = (f"`{best['move']}` {100 * best['blind']:.1f}%" if best else "none")
        gain = (f"{100 * best['gain']:+.1f} ({100 * best['gain_interval'][0]:+.1f} to "
                f"{100 * best['gain_interval'][1]:+.1f})" if best else "")
        print(f"| {r['deal']} | {r['fatal'] + 1} `{r['played']}` | {r['pass']} | {r['unseen']} | "
              f"{100 * played['blind']:.1f}% ({played['samples']}{' exact' if played['exact'] else ''}, "
              f"{played['method']}) | {alt} | {gain} | {r['verdict']} |")
    print("summary: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


def fatal_practical(args) -> None:
    """At each fatal position of a triage file: the tutor's own blind play after the move it played, and after
    the move that kept the real deal winnable (the best of them by the triage's blind value), on the same
    ``--games`` consistent deals (:func:`tutor.practical.practical_many`: no card the player had not seen is
    used, and no sample is solved with its cards known: every figure is a blind game played to its end).

        python benchmarks/strength.py fatal benchmarks/results/strength/triage-osmosis-tutor-1-300.jsonl \\
            --games 16 --workers 2
    """
    from strength import deal_list

    from tutor.estimate import wilson
    from tutor.notation import parse_move
    from tutor.practical import Request, practical_many, won_count

    only = set(deal_list(args.deals)) if args.deals else None
    totals = [0, 0, 0]  # games, won after the played move, won after the move keeping the deal
    for line in Path(args.triage).read_text().splitlines():
        row = json.loads(line)
        if only is not None and row["deal"] not in only:
            continue
        keeping = [c for c in row["moves"] if c["real"] and not c["played"]]
        if not keeping:
            continue
        other = max(keeping, key=lambda c: c["blind"])
        rules = PRESETS[row["preset"]]
        state = State.initial(deal_for(row["deal"], rules), rules)
        for move in row["game"].split()[:row["fatal"]]:
            state = state.apply(parse_move(move))
        obs = observe(state)
        t0 = time.perf_counter()
        played, kept = practical_many([Request(obs, args.games, parse_move(row["played"])),
                                       Request(obs, args.games, parse_move(other["move"]))], workers=args.workers)
        a, b = won_count(played), won_count(kept)
        totals[0] += played.samples
        totals[1] += a
        totals[2] += b
        print(f"deal {row['deal']} move {row['fatal'] + 1} ({row.get('verdict', 'no verdict')}): after {row['played']} (played) "
              f"{a}/{played.samples}, after {other['move']} (keeps the real deal) {b}/{kept.samples} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    games, a, b = totals
    if games:
        lo_a, hi_a = wilson(a, games)
        lo_b, hi_b = wilson(b, games)
        print(f"in all: the tutor's blind play won {a}/{games} = {100 * a / games:.1f}% (95% CI "
              f"{100 * lo_a:.1f}-{100 * hi_a:.1f}) after its own move, {b}/{games} = {100 * b / games:.1f}% "
              f"({100 * lo_b:.1f}-{100 * hi_b:.1f}) after the move that kept the real deal winnable")
