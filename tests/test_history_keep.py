"""The history never loses what it holds: an older export imported, an export written over another file, a row
that cannot be read, two imports at once, a drill on a history that cannot be written (a data-loss audit)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from builders import osmosis

import tutor
from tutor.deals import deal_for
from tutor.history import drill as drills
from tutor.history.db import History
from tutor.history.games import add_record, open_history
from tutor.history.reviews import TAGGING, review_of, reviews, store_review
from tutor.history.transfer import export_text, import_file
from tutor.record import Record, content_of
from tutor.rules import preset

RULES = preset("osmosis")
OSMOSIS = [sys.executable, "-c", "from tutor.cli import main; main()"]
ROOT = Path(tutor.__file__).parent.parent


class Clock:
    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def _record(n: int = 3, moves: str = "d d d") -> Record:
    return Record(RULES, deal_for(n, RULES), moves.split())


def _move(ply: int, move: str, best: str, label: str = "best", drop: float = 0.0, tags=()) -> dict:
    return {"ply": ply, "move": move, "best": best, "label": label, "tags": list(tags), "drop": drop,
            "win_before": 0.5, "win_after": 0.5 - drop / 100, "graded": True, "comment": "", "candidates": []}


def _review(rec: Record, samples: int | None = 64, accuracy: float = 50.0, thresholds: dict | None = None) -> dict:
    """A review of ``rec`` with move 2 a blunder (r1 was better): one drill."""
    return {"moves_reviewed": len(rec.moves), "content": content_of(rec), "accuracy": accuracy, "graded": 3,
            "samples": samples, "thresholds": thresholds or {}, "hindsight": {}, "tagging": TAGGING,
            "moves": [_move(1, "d", "d"), _move(2, "d", "r1", "blunder", 40.0, ["turned-past"]), _move(3, "d", "d")]}


def _game(h: History, n: int = 3, samples: int | None = 64) -> int:
    """A reviewed game with its drill made."""
    rec = _record(n)
    gid = add_record(h, rec, key=f"games/deal-{n}.json")
    store_review(h, gid, _review(rec, samples))
    drills.sync_drills(h)
    return gid


def _drill_state(h: History) -> list[tuple]:
    return [(d.game_id, d.ply, d.box, d.due_at, d.answers, d.right) for d in drills.all_drills(h)]


# ---- 1. an older export imported takes nothing back -------------------------------------------------------

def test_an_older_export_never_replaces_a_better_review_or_resets_a_drill(home, tmp_path, monkeypatch):
    """The audit's repro: export, answer a drill, review again with more samples, import the export: the
    drill went back to box 0 with its answer deleted, the review back to 64 samples, and the import said
    "Nothing new to import"."""
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    clock = Clock()
    with open_history(clock=clock) as h:
        gid = _game(h)
        old = tmp_path / "old.jsonl"
        old.write_text(export_text(h), encoding="utf-8")
        clock.t += 60
        (d,) = drills.due(h)
        drills.answer(h, d, "r1", True)
        store_review(h, gid, _review(_record(), samples=96))
        before = (_drill_state(h), review_of(h, gid))
    result = osmosis(["import", str(old)], home)
    assert result.exit_code == 0, result.output
    with open_history(clock=clock) as h:
        assert drills.all_drills(h)[0].box == 1 and review_of(h, gid).samples == 96
        assert (_drill_state(h), review_of(h, gid)) == before
    assert result.stdout.splitlines() == [
        "Nothing new to import: the 1 game, 1 review, 1 drill were in your history already, and each is kept once.",
        "Your history keeps its own review of 1 game: the file's was made with fewer samples or other thresholds."]


def test_a_better_review_in_the_export_replaces_the_historys_and_an_equal_one_leaves_it(home, tmp_path, monkeypatch):
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    source = tmp_path / "source.sqlite3"
    with History(source) as h:
        gid = _game(h, samples=256)
        better = tmp_path / "better.jsonl"
        better.write_text(export_text(h), encoding="utf-8")
        store_review(h, gid, _review(_record(), samples=64, accuracy=70.0), "2026-12-01T00:00:00Z")
        equal = tmp_path / "equal.jsonl"
        equal.write_text(export_text(h), encoding="utf-8")
        store_review(h, gid, _review(_record(), samples=512, thresholds={"inaccuracy": 2, "mistake": 3,
                                                                          "blunder": 4, "best": 1, "luck": 10}))
        other = tmp_path / "other.jsonl"
        other.write_text(export_text(h), encoding="utf-8")
    with open_history() as h:
        gid = _game(h, samples=64)
    taken = osmosis(["import", str(better)], home)
    assert taken.stdout == ("Imported 1 review into your history (the 1 game was in it already).\n"
                            "The imported review of 1 game replaced your history's own: it was made with more "
                            "samples.\n"), taken.output
    with open_history() as h:
        assert review_of(h, gid).samples == 256
        store_review(h, gid, _review(_record(), samples=64))
        kept = review_of(h, gid)
    # as many samples: the history's own stays (it is no worse), and nothing is said to be imported
    assert osmosis(["import", str(equal)], home).stdout.startswith("Nothing new to import")
    # other thresholds: a one-off look, as osmosis review says, never the coach's review
    refused = osmosis(["import", str(other)], home)
    assert refused.stdout.startswith("Nothing new to import") and "keeps its own review of 1 game" in refused.stdout
    with open_history() as h:
        assert review_of(h, gid) == kept


def test_a_drill_takes_the_exports_answers_it_lacks_and_keeps_its_own(home, tmp_path, monkeypatch):
    """Answered on two machines: the answers of both are kept, and the box and due time are those the last
    answer of all left."""
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    there = Clock()
    with History(tmp_path / "there.sqlite3", clock=there) as h:
        _game(h)
        first = export_text(h)
        there.t += 100
        drills.answer(h, drills.due(h)[0], "r1", True)  # right, on the other machine: box 1
        answered = tmp_path / "answered.jsonl"
        answered.write_text(export_text(h), encoding="utf-8")
    here = Clock(there.t - 50)  # here, a wrong answer before the right one there
    with open_history(clock=here) as h:
        (tmp_path / "first.jsonl").write_text(first, encoding="utf-8")
        import_file(h, tmp_path / "first.jsonl")
        drills.answer(h, drills.due(h)[0], "w", False)
        result = import_file(h, answered)
        assert (result.new, result.new_reviews, result.new_drills) == (set(), 0, 1)
        (d,) = drills.all_drills(h)
        assert (d.answers, d.right, d.box) == (2, 1, 1)  # the right answer there came last: its box
        again = import_file(h, answered)
        assert again.new_drills == 0 and drills.all_drills(h) == [d]
        here.t = there.t + 50
        drills.answer(h, d, "w", False)  # a wrong answer here after it: box 0, and an import keeps that
        import_file(h, answered)
        (d,) = drills.all_drills(h)
        assert (d.answers, d.right, d.box) == (3, 1, 0)


def test_a_drill_answered_elsewhere_counts_when_the_game_here_went_further(home, tmp_path, monkeypatch):
    """The game played on here (more moves than the line's): the line's game and review stay as the history
    has them, and the drill's answers from the other machine were dropped with them, "Nothing new to import"."""
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    there = Clock()
    with History(tmp_path / "there.sqlite3", clock=there) as h:
        _game(h)
        first = tmp_path / "first.jsonl"
        first.write_text(export_text(h), encoding="utf-8")
        there.t += 100
        drills.answer(h, drills.due(h)[0], "r1", True)
        answered = tmp_path / "answered.jsonl"
        answered.write_text(export_text(h), encoding="utf-8")
    with open_history(clock=Clock(there.t - 50)) as h:
        import_file(h, first)
        (gid,) = [g.id for g in h.games()]
        add_record(h, _record(3, "d d d d"), key="games/deal-3.json")  # played on here: 4 moves
        assert h.game(gid).moves == 4
        result = import_file(h, answered)
        assert result.new_drills == 1
        (d,) = drills.all_drills(h)
        assert (d.game_id, d.answers, d.right, d.box) == (gid, 1, 1, 1)
        assert h.game(gid).moves == 4  # the game as the history has it


# ---- 2. export writes over an earlier export only ---------------------------------------------------------

def test_export_never_writes_over_a_file_that_is_not_an_export(home, tmp_path):
    assert osmosis(["play", "5"], home, input="d\nq\n").exit_code == 0
    kept = {"script.py": "print('mine')\n", "notes.txt": "my notes\n", "plain.jsonl": '{"a": 1}\n'}
    for name, text in kept.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        link = tmp_path / f"link-to-{name}"
        link.symlink_to(path)
        for target in (path, link):
            refused = osmosis(["export", str(target)], home)
            assert refused.exit_code == 1, refused.output
            assert refused.stderr == (f"error: '{target}' is not an export of your history and is kept as it is: "
                                      "give a new file name (osmosis export writes over an earlier export only)\n")
            assert path.read_text(encoding="utf-8") == text and link.is_symlink()
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")  # nothing in it to lose
    assert osmosis(["export", str(empty)], home).exit_code == 0
    assert json.loads(empty.read_text())["format"] == "osmosis-history/1"


def test_an_earlier_export_is_still_replaced_and_a_failed_write_keeps_it(home, tmp_path, monkeypatch):
    from tutor import storage

    assert osmosis(["play", "5"], home, input="d\nq\n").exit_code == 0
    out = tmp_path / "backup.jsonl"
    assert osmosis(["export", str(out)], home).exit_code == 0
    assert osmosis(["play", "7"], home, input="d\nq\n").exit_code == 0
    written = osmosis(["export", str(out)], home)
    assert written.exit_code == 0 and written.stderr == f"Exported 2 games to {out}.\n"
    before = out.read_bytes()
    assert osmosis(["play", "9"], home, input="d\nq\n").exit_code == 0

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(storage, "_write_temp", full)
    failed = osmosis(["export", str(out)], home)
    assert failed.exit_code == 1 and failed.stderr == (f"error: cannot write '{out}': No space left on device; give "
                                                       "osmosis export a file on a disk with room\n")
    assert out.read_bytes() == before


# ---- 3. a row that cannot be read leaves the rest ----------------------------------------------------------

def _three_games(h: History) -> list[int]:
    return [_game(h, n) for n in (3, 4, 5)]


def test_one_unreadable_game_leaves_out_that_game_only_and_keeps_a_copy(home, monkeypatch):
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    with open_history() as h:
        a, b, c = _three_games(h)
        drills.answer(h, next(d for d in drills.due(h) if d.game_id == a), "r1", True)
        h.conn.execute("UPDATE games SET record = '{broken' WHERE id = ?", (b,))
    result = osmosis(["history", "--json"], home)
    assert result.exit_code == 0
    (warning,) = result.stderr.splitlines()
    (aside,) = home.glob("history.sqlite3.damaged-*")
    assert warning == (f"warning: part of your history cannot be read (game {b}, with its review and its drill): that "
                       "part was left out and the rest kept; a game left out is read again from its file in the games "
                       f"folder, if that is still there; a copy of the file as it was is set aside as '{aside.name}'")
    assert json.loads(result.stdout)["games"] == 2
    with open_history() as h:
        assert h.warning is None  # said once
        assert set(reviews(h)) == {a, c} and {d.game_id for d in drills.all_drills(h)} == {a, c}
        assert next(d for d in drills.all_drills(h) if d.game_id == a).box == 1  # its progress kept
    copy = sqlite3.connect(aside)
    try:
        assert copy.execute("SELECT record FROM games WHERE id = ?", (b,)).fetchone()[0] == "{broken"
        assert copy.execute("SELECT count(*) FROM drills").fetchone()[0] == 3
    finally:
        copy.close()


def test_a_drill_left_out_keeps_its_number_a_new_drill_takes_the_next(home, monkeypatch):
    """The warning names the drill left out by its id ("drill 3"); SQLite gives the highest id again once that
    row is gone, so the next drill made was "drill 3" too, another question under the number the warning gave.
    An imported drill (tutor.history.backup.merge_drill) takes a fresh number as well."""
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    with open_history() as h:
        _three_games(h)
        top = max(d.id for d in drills.all_drills(h))
        exported = export_text(h)
        h.conn.execute("UPDATE drills SET tags = '[oops' WHERE id = ?", (top,))
    with open_history() as h:
        assert h.warning is not None and f"drill {top}): that part was left out" in h.warning
        assert top not in {d.id for d in drills.all_drills(h)}
        _game(h, 6)  # the drill left out made again from its review, and a new game's drill: numbers of their own
        assert sorted(d.id for d in drills.all_drills(h) if d.id >= top) == [top + 1, top + 2]
        with h.write() as conn:
            conn.execute("DELETE FROM drills WHERE id IN (?, ?)", (top + 1, top + 2))
    backup = home / "backup.jsonl"
    backup.write_text(exported)
    with open_history() as h:
        import_file(h, backup)  # the first one back from the export: a number of its own again
        assert max(d.id for d in drills.all_drills(h)) == top + 3


def test_an_unreadable_reviewed_move_leaves_out_that_review_and_the_game_comes_back_from_its_file(home, monkeypatch):
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    assert osmosis(["play", "5"], home, input="d\nd\nq\n").exit_code == 0
    (saved,) = (home / "games").glob("*.json")
    with open_history() as h:
        a, b, c = _three_games(h)
        (played,) = [g.id for g in h.games() if g.source == str(saved)]
        h.conn.execute("UPDATE review_moves SET tags = '[oops' WHERE ply = 2 AND review_id = "
                       "(SELECT id FROM reviews WHERE game_id = ?)", (c,))
        h.conn.execute("UPDATE games SET moves = 'many' WHERE id = ?", (played,))
    with open_history() as h:
        assert h.warning is not None and "cannot be read" in h.warning and "\n" not in h.warning
        assert f"(game {played}; the review of game {c}): that part was left out" in h.warning
        assert set(reviews(h)) == {a, b}
        assert [g.moves for g in h.games() if g.key.startswith("games/deal-5-")] == [2]  # back from its file


def test_four_processes_opening_a_history_with_an_unreadable_row_at_once(home):
    with History(home / "history.sqlite3") as h:
        a, b, c = _three_games(h)
        h.conn.execute("UPDATE drills SET box = 'high' WHERE game_id = ?", (a,))
    start = time.time() + 1.5
    code = ("import json, sys, time\nfrom tutor.history.games import open_history\n"
            f"time.sleep(max(0, {start} - time.time()))\n"
            "with open_history() as h:\n"
            "    print(json.dumps({'warning': h.warning, 'games': len(h.games()),"
            " 'drills': h.conn.execute('SELECT count(*) FROM drills').fetchone()[0]}))\n")
    env = {**os.environ, "OSMOSIS_HOME": str(home)}
    procs = [subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    said = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        said.append(json.loads(out))
    assert [s["games"] for s in said] == [3] * 4 and [s["drills"] for s in said] == [2] * 4
    warnings = [s["warning"] for s in said if s["warning"]]
    assert len(warnings) == 1 and "(drill " in warnings[0], said
    assert len(list(home.glob("history.sqlite3.damaged-*"))) == 1


# ---- 4. two imports at once ---------------------------------------------------------------------------------

def test_an_import_counts_only_the_rows_it_added_while_another_import_of_the_same_file_runs(home, tmp_path,
                                                                                            monkeypatch):
    from tutor.history import transfer

    with History(tmp_path / "source.sqlite3") as h:
        _three_games(h)
        path = tmp_path / "export.jsonl"
        path.write_text(export_text(h), encoding="utf-8")
    real = transfer.import_file
    monkeypatch.setenv("OSMOSIS_HOME", str(home))

    def with_another_import(history, f):
        with History(history.path) as other:  # another osmosis imports the same file, first
            real(other, f)
        return real(history, f)

    monkeypatch.setattr(transfer, "import_file", with_another_import)
    result = osmosis(["import", str(path)], home)
    assert result.exit_code == 0
    assert result.stdout == ("Nothing new to import: the 3 games, 3 reviews, 3 drills were in your history already, "
                             "and each is kept once.\n")


def test_two_import_commands_at_once_add_each_row_once_between_them(home, tmp_path):
    with History(tmp_path / "source.sqlite3") as h:
        _three_games(h)
        path = tmp_path / "export.jsonl"
        path.write_text(export_text(h), encoding="utf-8")
    assert osmosis(["history"], home).exit_code == 0
    env = {**os.environ, "OSMOSIS_HOME": str(home), "NO_COLOR": "1"}
    procs = [subprocess.Popen(OSMOSIS + ["import", str(path)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    new = 0
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        added = re.match(r"Imported (\d+) games?\b", out)
        if added:  # "Imported 2 games, 2 reviews, 2 drills into your history (1 other game was in it already)."
            new += int(added.group(1))
        else:  # nothing, or only reviews and drills, of the games the other import added first
            assert out.startswith(("Nothing new to import", "Imported")) and "game" in out, out
    assert new == 3
    with History(home / "history.sqlite3") as h:  # and the history holds each of them once
        assert h.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 3


# ---- 5. a drill on a history that cannot be written ---------------------------------------------------------

def _drill_home(home: Path) -> None:
    """A history with one drill due, and a second review whose drill is not made yet."""
    with History(home / "history.sqlite3") as h:
        _game(h, 3)
        rec = _record(4)
        store_review(h, add_record(h, rec, key="games/deal-4.json"), _review(rec))
        h.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


REFUSED = ("cannot be written here ({reason}), so a drill's answer could not be kept and none is asked: "
           "osmosis drill --list shows your drills without writing (to answer them, set OSMOSIS_HOME to a folder "
           "you can write to)")


def test_a_drill_refuses_at_once_a_history_whose_file_refuses_writes(home, monkeypatch):
    """A history that opened as usual but refuses every write (a file made read-only): the drill was shown and
    answered, then the answer failed to be stored."""
    from tutor.history import games

    _drill_home(home)
    monkeypatch.setenv("OSMOSIS_HOME", str(home))

    def read_only(*args, **kwargs):
        h = History(home / "history.sqlite3")
        h.conn.close()
        h.conn = sqlite3.connect(f"file:{home / 'history.sqlite3'}?mode=ro", uri=True, isolation_level=None)
        h.conn.row_factory = sqlite3.Row
        return h

    monkeypatch.setattr(games, "open_history", read_only)
    result = osmosis(["drill", "--count", "1"], home, input="r1\nq\n")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == ("error: your history '" + str(home / "history.sqlite3") + "' "
                             + REFUSED.format(reason="attempt to write a readonly database") + "\n")
    listed = osmosis(["drill", "--list", "--json"], home)
    assert listed.exit_code == 0, listed.output
    assert [d["game"] for d in json.loads(listed.stdout)] == [1]  # as stored: the second drill is not made here


def _as_another_user() -> list[str]:
    """The command prefix that runs a child as a user who cannot write a root-owned folder; [] when this is
    not root (the folder's own mode then stops the writes)."""
    if os.geteuid() != 0:
        return []
    tool = shutil.which("setpriv")
    if tool is None:
        pytest.skip("needs setpriv to run the child as another user (root bypasses permissions)")
    prefix = [tool, "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run(prefix + [sys.executable, "-c", "import tutor"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("the other user cannot run this Python here")
    return prefix


def test_a_drill_on_a_read_only_data_folder_refuses_in_one_line_and_drill_list_still_works():
    prefix = _as_another_user()
    folder = Path(tempfile.mkdtemp(prefix="osmosis-ro-drill-"))
    home = folder / "home"
    try:
        _drill_home(home)
        for path in [folder, home, *home.rglob("*")]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        env = {**os.environ, "OSMOSIS_HOME": str(home), "HOME": str(folder), "NO_COLOR": "1", "COLUMNS": "100"}
        before = (home / "history.sqlite3").read_bytes()
        asked = subprocess.run(prefix + OSMOSIS + ["drill", "--count", "1"], input="r1\nq\n", capture_output=True,
                               text=True, env=env, cwd=ROOT, timeout=120)
        assert asked.returncode == 1 and asked.stdout == "", asked.stdout
        (line,) = asked.stderr.splitlines()
        assert line.startswith("error: your history ") and "so a drill's answer could not be kept and none is " \
            "asked: osmosis drill --list shows your drills without writing" in line
        listed = subprocess.run(prefix + OSMOSIS + ["drill", "--list"], capture_output=True, text=True, env=env,
                                cwd=ROOT, timeout=120)
        assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
        assert "drill" in listed.stdout and "r1" in listed.stdout
        assert (home / "history.sqlite3").read_bytes() == before
    finally:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("folder_mode", [0o777, 0o555])  # the file alone read-only, or its folder too
def test_an_unreadable_row_in_a_history_that_cannot_be_written_is_left_out_of_what_is_read(folder_mode):
    """A file that opened but refused writes, with one row that cannot be read: history and export ended in a
    JSONDecodeError traceback, and each command left a new full copy of the file beside it."""
    prefix = _as_another_user()
    folder = Path(tempfile.mkdtemp(prefix="osmosis-ro-rows-"))
    home = folder / "home"
    try:
        _drill_home(home)
        with sqlite3.connect(home / "history.sqlite3") as conn:
            conn.execute("UPDATE games SET record = '{bad' WHERE id = 1")
        sqlite3.connect(home / "history.sqlite3").execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
        for path in [folder, home, *home.rglob("*")]:
            path.chmod(folder_mode if path.is_dir() else 0o444)
        env = {**os.environ, "OSMOSIS_HOME": str(home), "HOME": str(folder), "NO_COLOR": "1", "COLUMNS": "100"}
        before = (home / "history.sqlite3").read_bytes()
        for command in (["history", "--json"], ["export"], ["drill", "--list"]):
            done = subprocess.run(prefix + OSMOSIS + command, capture_output=True, text=True, env=env, cwd=ROOT,
                                  timeout=120)
            assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)
            assert "cannot be written here" in done.stderr and "without what cannot be read" in done.stderr
        assert json.loads(subprocess.run(prefix + OSMOSIS + ["history", "--json"], capture_output=True, text=True,
                                         env=env, cwd=ROOT, timeout=120).stdout)["games"] == 1  # game 2 read
        assert not list(home.glob("history.sqlite3.damaged-*"))  # no copy a run
        assert (home / "history.sqlite3").read_bytes() == before
    finally:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(folder, ignore_errors=True)
