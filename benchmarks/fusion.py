"""How often the review's strategy-fusion check fires, and what it costs: the tutor's own lost games reviewed.

The games are the tutor policy's losses on Osmosis deals 1-300 (their moves are kept in the loss triage's
file). Each is reviewed at the default settings on one process; the line says its CPU time, how many moves
were labelled, and the moves where the information-set search found the played move as good as PIMC's
leader for a blind player (``fused``), and those where the played move led PIMC on a tie and the search found
another better blind (``behind blind``: graded good, not best). ``--without`` turns the check off, for the time
it adds. Prints figures; never asserts a time.

    python benchmarks/fusion.py [--games 8] [--without]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from tutor import grading
from tutor.deals import deal_for
from tutor.notation import parse_moves
from tutor.record import Record
from tutor.review import Label, review
from tutor.review.facts import Grade
from tutor.rules import preset

TRIAGE = Path(__file__).parent / "results" / "strength" / "triage-osmosis-tutor-1-300.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--without", action="store_true", help="the review without the fusion check")
    args = parser.parse_args()
    if args.without:
        setattr(grading, "wanted", lambda *a: False)  # noqa: B010 (the module's own name for it is replaced)
    rules = preset("osmosis")
    rows = [json.loads(line) for line in TRIAGE.read_text().splitlines()][: args.games]
    times, fired, graded_good = [], 0, 0
    for row in rows:
        record = Record(rules, deal_for(row["deal"], rules), parse_moves(row["game"]))
        start = time.process_time()
        rev = review(record, workers=1)
        cpu = time.process_time() - start
        times.append(cpu)
        fused = [(m.ply, str(m.move), str(g.fused.move)) for m in rev.moves if m.facts is not None
                 for g in [m.facts.grade] if isinstance(g, Grade) and g.fused is not None]
        # the other direction: the played move led PIMC on a tie, and the search found another better blind
        behind = [(m.ply, str(m.move), str(g.best)) for m in rev.moves if m.facts is not None
                  for g in [m.facts.grade] if isinstance(g, Grade) and g.blind_better]
        fired += len(fused)
        graded_good += len(behind)
        labelled = sum(1 for m in rev.moves if m.graded and m.label >= Label.INACCURACY)
        print(f"deal {row['deal']}: {len(record.moves)} moves, CPU {cpu:.1f} s, {labelled} labelled, "
              f"fused {fused or 'none'}, behind blind {behind or 'none'}", flush=True)
    print(f"{len(rows)} games{' without the check' if args.without else ''}: the check fired {fired} times; "
          f"a played move graded good, not best, by it {graded_good} times; "
          f"CPU a review median {statistics.median(times):.1f} s, range {min(times):.1f}-{max(times):.1f} s")


if __name__ == "__main__":
    main()
