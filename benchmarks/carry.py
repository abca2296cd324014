"""Play the first-pass tie-break (``strength.py --method tutorfirst``) on a results file, replaying only
the games it can change.

    python benchmarks/carry.py OLD.jsonl[.gz] --preset bridesmaids --out NEW.jsonl [--workers 2]

``tutorfirst`` (:func:`strength.first_pass_leader`) differs from the
policy's tie-break only while no card has been played and the cards still to
turn are unseen, that is in the first pass before the first play. Once a card
is played in the first pass, or the pass is over, it never applies again in
that game. The policy is deterministic (its samples are seeded from each
observation, every search runs on node limits, nothing is cached across
decisions), so a game whose decisions up to that point are the same as the
policy's is the same game to the end, with the same result.

For each row of ``OLD`` (a results file of ``benchmarks/strength.py``,
``--method tutor`` or ``pimc``, or a per-deal file of ``osmosis stats
--policy tutor``) ``tutorfirst`` plays that opening: every call of
:func:`tutor.hints.leader` also computes the policy's own choice, and if the
two ever differ, the row is *replayed*: the whole game is played again with
``tutorfirst`` (the row gets the new result and times, ``"replayed": true``
and its result ``"before"``); else the row is carried as it is. Every row
written says ``"method": "tutorfirst"`` (``"pimcfirst"`` for a ``pimc`` file). Prints how
many rows were carried and replayed, the wins before and after, and each
replayed deal whose result changed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

from strength import first_pass_leader, unplayed_first_pass

import tutor.hints
from tutor.deals import deal_for
from tutor.hints import choose
from tutor.knowledge import observe
from tutor.policies import Policy, parallel_map, play
from tutor.rules import PRESETS
from tutor.search import DEFAULT_LIMIT
from tutor.state import State

_POLICY_LEADER = tutor.hints.leader
_CHANGED = [False]


def checked_leader(obs, scores, certain):
    """``tutorfirst``'s choice, noting whether the policy's would have differed (the game may then change)."""
    new = first_pass_leader(obs, scores, certain)
    if new != _POLICY_LEADER(obs, scores, certain):
        _CHANGED[0] = True
    return new


def opening_changed(state: State, infoset: bool) -> bool:
    """Whether ``tutorfirst`` changes any decision of the game's opening (see the module docstring)."""
    _CHANGED[0] = False
    tutor.hints.leader = checked_leader
    try:
        while not state.over:
            obs = observe(state)
            if not unplayed_first_pass(obs):
                return False
            move = choose(obs, None, None, infoset)
            if _CHANGED[0]:
                return True
            state = state.apply(move)
        return False
    finally:
        tutor.hints.leader = _POLICY_LEADER


def carry_one(job: tuple[str, dict]) -> dict:
    preset, row = job
    rules = PRESETS[preset]
    infoset = row.get("method", "tutor") != "pimc"
    start = State.initial(deal_for(row["deal"], rules), rules)
    if not opening_changed(start, infoset):
        return dict(row, method="tutorfirst" if infoset else "pimcfirst")
    t0, c0 = time.perf_counter(), time.process_time()
    tutor.hints.leader = first_pass_leader
    try:
        result = play(start, Policy.TUTOR, DEFAULT_LIMIT, infoset=infoset)
    finally:
        tutor.hints.leader = _POLICY_LEADER
    new = dict(row, method="tutorfirst" if infoset else "pimcfirst", won=bool(result.won), cards=result.cards, seconds=round(time.perf_counter() - t0, 4),
               replayed=True, before={"won": row["won"], "cards": row["cards"]})
    if "cpu_seconds" in row:
        new["cpu_seconds"] = round(time.process_time() - c0, 2)
    return new


def _open(path: str, mode: str):
    return gzip.open(path, mode + "t") if path.endswith(".gz") else open(path, mode)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old")
    p.add_argument("--preset", required=True, choices=sorted(PRESETS))
    p.add_argument("--out", required=True)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args()
    if Path(args.out).resolve() == Path(args.old).resolve():
        sys.exit("carry.py: --out must be another file than OLD (the old results are kept)")
    with _open(args.old, "r") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    t0 = time.perf_counter()
    out = list(parallel_map(carry_one, [(args.preset, r) for r in rows], args.workers))
    tmp = args.out + ".part" + (".gz" if args.out.endswith(".gz") else "")
    with _open(tmp, "w") as f:
        for r in out:
            f.write(json.dumps(r) + "\n")
    Path(tmp).replace(args.out)
    replayed = [r for r in out if r.get("replayed")]
    won_before = sum(r["before"]["won"] for r in replayed)
    won_after = sum(r["won"] for r in replayed)
    print(f"{args.old}: {len(out)} rows, {len(out) - len(replayed)} carried, {len(replayed)} replayed "
          f"({time.perf_counter() - t0:.0f} s); wins {sum(r['won'] for r in rows)} -> {sum(r['won'] for r in out)}")
    print(f"  replayed: won {won_before} before, {won_after} after")
    for r in replayed:
        b = r["before"]
        if (b["won"], b["cards"]) == (r["won"], r["cards"]):
            continue
        print(f"    deal {r['deal']}: {'won' if b['won'] else 'lost'} {b['cards']} -> "
              f"{'won' if r['won'] else 'lost'} {r['cards']}")


if __name__ == "__main__":
    main()
