"""Drills: a due date damaged in the history file is one more row that cannot be read, as garbled tags are (left
out with one warning line, a copy of the file set aside), for every command that reads drills: a due_at that is
no UTC time like 2026-12-01T08:48:44Z is one of ``tutor.history.schema``'s ``_UNREADABLE`` rows.
"""

from __future__ import annotations

import json

import pytest
from builders import osmosis

from tutor.deals import deal_for
from tutor.history import drill as drills
from tutor.history.games import add_record, open_history
from tutor.history.reviews import TAGGING, store_review
from tutor.record import Record, content_of
from tutor.rules import preset

RULES = preset("osmosis")
BAD_DATES = ["2026-12-07 07:30:06", "not a date", 12345, "2026-02-30T00:00:00Z"]


def _move(ply: int, move: str, best: str, label: str = "best", drop: float = 0.0, tags=()) -> dict:
    return {"ply": ply, "move": move, "best": best, "label": label, "tags": list(tags), "drop": drop,
            "win_before": 0.5, "win_after": 0.5 - drop / 100, "graded": True, "comment": "", "candidates": []}


def _one_drill(home, monkeypatch, due_at: object) -> int:
    """A history with one reviewed game whose move 2 is a blunder (one drill), its due date set to ``due_at``."""
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    rec = Record(RULES, deal_for(3, RULES), "d d d".split())
    review = {"moves_reviewed": 3, "content": content_of(rec), "accuracy": 50.0, "graded": 3, "samples": 64,
              "thresholds": {}, "hindsight": {}, "tagging": TAGGING,
              "moves": [_move(1, "d", "d"), _move(2, "d", "r1", "blunder", 40.0, ["turned-past"]), _move(3, "d", "d")]}
    with open_history() as h:
        store_review(h, add_record(h, rec, key="games/deal-3.json"), review)
        drills.sync_drills(h)
        (d,) = drills.all_drills(h)
        h.conn.execute("UPDATE drills SET due_at = ? WHERE id = ?", (due_at, d.id))
    return d.id


@pytest.mark.parametrize("due_at", BAD_DATES)
@pytest.mark.parametrize("args", [["drill", "--list"], ["drill", "--list", "--json"], ["coach", "--no-review"]])
def test_a_damaged_due_date_is_left_out_with_one_warning_and_no_traceback(home, monkeypatch, due_at, args):
    """``drill --list`` ended in a ValueError traceback, ``--list --json`` printed the value as it was, and the
    others went on as if nothing were wrong."""
    drill_id = _one_drill(home, monkeypatch, due_at)
    result = osmosis(args, home, catch=True)
    assert result.exception is None and result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and f"part of your history cannot be read (drill {drill_id})" in warnings[0]
    assert len(list(home.glob("history.sqlite3.damaged-*"))) == 1
    if "--json" in args:
        assert all(d["due_at"] != due_at for d in json.loads(result.stdout))


@pytest.mark.parametrize("due_at", BAD_DATES)
def test_the_drills_due_are_read_without_the_damaged_one(home, monkeypatch, due_at):
    drill_id = _one_drill(home, monkeypatch, due_at)
    with open_history() as h:
        assert h.warning is not None and f"(drill {drill_id})" in h.warning
        for d in drills.due(h) + drills.all_drills(h):
            drills.seconds_until(h, d.due_at)  # a time that reads
        nxt = drills.next_due(h)
        assert nxt is None or drills.seconds_until(h, nxt) is not None


@pytest.mark.parametrize("text", ["2026-12-01T08:48:44Z", "2026-12-1T8:48:44Z", "2026-12-01T08:48:60Z",
                                  "2026-02-30T00:00:00Z", "2026-12-01 08:48:44", "1999-01-01T00:00:00Z"])
def test_import_takes_a_due_time_exactly_when_the_history_reads_it_back(text):
    """Import took "2026-12-1T8:48:44Z" (strptime reads it), and the next read of the history called the drill
    damaged and set the file aside: the two checks agree now."""
    import sqlite3

    from tutor.history.lines import Bad, time_field
    from tutor.history.schema import _UNREADABLE

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE drills (id INTEGER PRIMARY KEY, game_id INTEGER, ply INTEGER, played TEXT, best TEXT, "
                 "label TEXT, tags TEXT, drop_points REAL, box INTEGER, due_at TEXT, created_at TEXT, retired TEXT)")
    conn.execute("CREATE TABLE drill_answers (id INTEGER PRIMARY KEY, drill_id INTEGER, answered_at TEXT, answer TEXT, "
                 "right INTEGER, box_after INTEGER)")
    conn.execute("INSERT INTO drills VALUES (1, 1, 2, 'w', 'd', 'mistake', '[]', 12.5, 1, ?, '2026-12-01T08:00:00Z', "
                 "NULL)", (text,))
    damaged = conn.execute(f"SELECT count(*) FROM drills WHERE {_UNREADABLE['drills']}").fetchone()[0] == 1
    try:
        taken = time_field(text, "due_at") == text
    except Bad:
        taken = False
    assert taken == (not damaged)
