"""Carry a results store's rows to the current engine keys, after an edit that changes no answer.

    python benchmarks/rekey.py STORE [--check 6] [--workers 2] [--only LABEL] [--verify]

The store keys every result by the engine version, a hash of the source of
every module that decides a policy's answers (:func:`tutor.policies.engine_version`),
so any edit of those modules, even one that changes no answer (a wider range
of deal numbers, a docstring), leaves the stored results under the old key and
a survey plays them all again. Use this only after reading the diff of those
modules and finding no change to what a stored deal gives; the script then
checks it: for each configuration stored under an older engine key it plays
``--check`` of its deals again with the current code (spread over the stored
range, the first and last included) and compares the result (won and cards).
Only when every one matches are all of that configuration's rows copied under
the current key (the old rows stay). Prints each configuration's check and
what was copied; exits 1 if any check failed. A configuration already
carried to the current key (its rows there) is not checked again, and of
the older keys only the newest of each configuration is (the others were
carried to it before: checking each again only multiplied the replays).

``--only LABEL`` keeps the configurations whose label (as printed:
``tutor turn 3 passes 3 piles 4``) contains LABEL; ``--verify`` copies nothing
and checks the rows stored under the current keys instead, ``--check`` deals
of each spread over the stored range: after an edit that may change some
answers, how many of them it changed.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
import urllib.parse

from tutor.policies import engine_version, parallel_map, play_deal
from tutor.rules import Rules
from tutor.search import DEFAULT_LIMIT, Limit
from tutor.store import config_key, deal_of


def replay(job: tuple[dict, int]) -> tuple[int, bool | None, int]:
    key, deal = job
    rules = Rules(key["turn"], key["passes"], key["open_reserve"], key["reserve_piles"])
    limit = Limit(key["nodes"], key["seconds"]) if key["policy"] == "solver" else DEFAULT_LIMIT
    out = play_deal(deal, rules, key["policy"], limit)
    return deal, out.won, out.cards


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("store")
    p.add_argument("--check", type=int, default=6, help="deals played again per configuration (default 6)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--only", default=None, metavar="LABEL", help="only the configurations whose label contains LABEL")
    p.add_argument("--verify", action="store_true", help="check the current keys' rows; copy nothing")
    args = p.parse_args()
    db = open_store(args.store)
    try:
        failed = rekey(db, args)
    except (sqlite3.Error, ValueError, KeyError, TypeError) as exc:  # a store damaged or edited past the check
        sys.exit(f"rekey: {args.store!r} cannot be read as a results store ({exc}): give the path of one")
    finally:
        db.close()
    sys.exit(1 if failed else 0)


def open_store(path: str) -> sqlite3.Connection:
    """The results store at ``path``, or one line on stderr and exit 1: a missing file is not made (a mistyped
    name left an empty file behind), and a file that is no results store says so, not a traceback."""
    if not os.path.isfile(path):
        sys.exit(f"rekey: {path!r} is not a file: give the path of a results store, like "
                 "benchmarks/results/in-progress/surveys.sqlite3")
    try:
        db = sqlite3.connect(f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=rw", uri=True)
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"configs", "outcomes"} <= tables:
            db.close()
            sys.exit(f"rekey: {path!r} is not an osmosis results store (it has no configs and outcomes tables): "
                     "give the path of one")
        db.execute("SELECT id, key FROM configs LIMIT 1").fetchall()
        db.execute("SELECT config, deal, won, cards, seconds, tried FROM outcomes LIMIT 1").fetchall()
    except sqlite3.Error as exc:
        sys.exit(f"rekey: {path!r} cannot be read as a results store ({exc}): give the path of one")
    return db


def rekey(db: sqlite3.Connection, args: argparse.Namespace) -> bool:
    """Check (and, but for ``--verify``, carry) every configuration; whether a check failed."""
    failed = False
    configs = [(cid, json.loads(text)) for cid, text in db.execute("SELECT id, key FROM configs ORDER BY id")]
    for cid, key in configs:
        current = engine_version(key["policy"])
        if not args.verify and any(c > cid and _setup(k) == _setup(key) and k["engine"] != current
                                   for c, k in configs):
            continue  # an older key than another one stored (ids grow): only the newest is checked
        what = f"{key['policy']} turn {key['turn']} passes {key['passes']} piles {key['reserve_piles']}" + (
            " open" if key["open_reserve"] else "")
        if (key["engine"] == current) != args.verify or (args.only is not None and args.only not in what):
            continue
        if not args.verify and _carried(db, key, current):
            continue
        rows = db.execute("SELECT deal, won, cards, seconds, tried FROM outcomes WHERE config = ? ORDER BY deal",
                          (cid,)).fetchall()
        if not rows:
            continue
        rows.sort(key=lambda r: deal_of(r[0]))  # a deal from 2**63 up is keyed by a BLOB (tutor.store.deal_key)
        step = max(1, (len(rows) - 1) // max(1, args.check - 1))
        picked = [rows[i] for i in sorted({*range(0, len(rows), step), len(rows) - 1})][: args.check]
        stored = {deal_of(r[0]): (None if r[1] is None else bool(r[1]), r[2]) for r in picked}
        t0 = time.perf_counter()
        again = {d: (w, c) for d, w, c in parallel_map(replay, [(key, d) for d in stored], args.workers)}
        bad = {d: (stored[d], again[d]) for d in stored if stored[d] != again[d]}
        shown = ", ".join(map(str, stored)) if len(stored) <= 30 else f"{len(stored)} deals from {min(stored)} to {max(stored)}"
        print(f"{what}: engine {key['engine']} -> {current}: {len(stored) - len(bad)} of {len(stored)} deals "
              f"({shown}) give the stored result ({time.perf_counter() - t0:.0f} s)")
        if args.verify:
            if bad:
                failed = True
                print(f"  differ (stored, now): {bad}")
            continue
        if bad:
            failed = True
            print(f"  differ: {bad}; nothing copied")
            continue
        rules = Rules(key["turn"], key["passes"], key["open_reserve"], key["reserve_piles"])
        limit = Limit(key["nodes"], key["seconds"]) if key["policy"] == "solver" else DEFAULT_LIMIT
        new_key = config_key(rules, key["policy"], limit)
        assert json.loads(new_key) == dict(key, engine=current), (new_key, key)
        with db:
            db.execute("INSERT OR IGNORE INTO configs (key) VALUES (?)", (new_key,))
            (new_id,) = db.execute("SELECT id FROM configs WHERE key = ?", (new_key,)).fetchone()
            db.executemany("INSERT OR IGNORE INTO outcomes (config, deal, won, cards, seconds, tried) "
                           "VALUES (?, ?, ?, ?, ?, ?)", [(new_id, *r) for r in rows])
        print(f"  copied {len(rows)} rows under the current key")
    return failed


def _setup(key: dict) -> str:
    """A configuration without its engine key: what stays the same across edits."""
    return json.dumps({k: v for k, v in key.items() if k != "engine"}, sort_keys=True)


def _carried(db: sqlite3.Connection, key: dict, current: str) -> bool:
    """The configuration's rows are under the current key already (an earlier run copied them)."""
    found = db.execute("SELECT id FROM configs WHERE key = ?", (json.dumps(dict(key, engine=current), sort_keys=True,
                                                                           separators=(",", ":")),)).fetchone()
    return found is not None and db.execute("SELECT 1 FROM outcomes WHERE config = ? LIMIT 1", found).fetchone() is not None


if __name__ == "__main__":
    main()
