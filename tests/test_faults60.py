"""Faults found by the audits of stop 60: a history whose values are of the wrong kind, a command told to read
its own output, `-` written as a file, names in quotes at the prompt, a file of notes written over by a graph
or per-deal lines, and a lesson's date quoted as Python spells it."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from builders import osmosis

from tutor.deals import deal_for
from tutor.history.schema import _TYPES
from tutor.record import Record, save_record
from tutor.rules import preset
from tutor.state import State
from tutor.textsafe import brief

OSMOSIS = [sys.executable, "-c", "from tutor.entry import run; run()"]


@pytest.fixture(scope="module")
def full_home(tmp_path_factory) -> Path:
    """A history with a game, its review (moves labelled), a drill and an answer to it: a row in every table."""
    home = tmp_path_factory.mktemp("full") / "home"
    rules = preset("osmosis")
    state = State.initial(deal_for(18, rules), rules)
    moves = []
    while not state.over:  # the greedy game of the README's review: a blunder at move 58
        moves.append(state.legal_moves()[0])
        state = state.apply(moves[-1])
    path = home.parent / "game18.json"
    save_record(Record(rules, deal_for(18, rules), moves), path)
    assert osmosis(["import", str(path)], home).exit_code == 0
    assert osmosis(["review", str(path), "--samples", "8", "--workers", "1"], home).exit_code == 0
    db = sqlite3.connect(home / "history.sqlite3")
    try:
        if not db.execute("SELECT count(*) FROM drills").fetchone()[0]:
            db.execute("INSERT INTO drills (game_id, ply, played, best, label, tags, drop_points, due_at, created_at) "
                       "SELECT 1, 58, 'w', 'd', 'blunder', '[]', 100, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'")
        db.execute("INSERT INTO drill_answers (drill_id, answered_at, answer, right, box_after) "
                   "SELECT id, '2026-01-02T00:00:00Z', 'd', 1, 1 FROM drills LIMIT 1")
        db.commit()
        assert all(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                   for t in ("games", "reviews", "review_moves", "drills", "drill_answers"))
    finally:
        db.close()
    return home


def _damaged(full_home: Path, tmp_path: Path, sql: str) -> Path:
    home = tmp_path / "damaged"
    shutil.copytree(full_home, home)
    db = sqlite3.connect(home / "history.sqlite3")
    db.execute(sql)
    db.commit()
    db.close()
    return home


def _wrong(kind: str) -> str:
    """A value of a class the column does not hold: a word for a number, a blob for text."""
    return "X'ff00'" if kind.startswith("t") else "'x'"


COLUMNS = [(table, *spec.split()) for table, specs in _TYPES.items() for spec in specs.split(", ")]


@pytest.mark.parametrize(("table", "column", "kind"), COLUMNS, ids=[f"{t}.{c}" for t, c, _ in COLUMNS])
def test_a_value_of_the_wrong_kind_in_any_column_is_left_out_not_a_traceback(full_home, tmp_path, table, column,
                                                                             kind):
    """`update reviews set graded = 'x'` (and a blob in a text, 1x for a game's id, ...): history, coach,
    drill --list, games and export ended in a TypeError or ValueError traceback. Every column of every table
    is checked for the classes the tutor writes: a row with another is left out (a copy of the file set
    aside), and the rest of the history is read."""
    home = _damaged(full_home, tmp_path, f"UPDATE {table} SET {column} = {_wrong(kind)} "
                                         f"WHERE rowid = (SELECT min(rowid) FROM {table})")
    for args in (["export", "-"], ["history", "--json"], ["coach", "--no-review", "--json"], ["drill", "--list"],
                 ["games", "--json"]):
        result = osmosis(args, home)  # an exception would end the test with its traceback
        assert result.exit_code == 0, (args, result.output)
    assert any(p.name.startswith("history.sqlite3.damaged-") for p in home.iterdir())


@pytest.mark.parametrize("value", ["'[1]'", "'{}'", "-1", "1.5", "'[1, \"x\"]'", "'r1'"])
def test_an_interval_that_is_no_pair_of_numbers_is_left_out(full_home, tmp_path, value):
    """accuracy_interval '[1]' gave "not enough values to unpack", -1 "'int' object is not iterable"."""
    for sql in (f"UPDATE reviews SET accuracy_interval = {value}", f"UPDATE review_moves SET drop_interval = {value}"):
        home = _damaged(full_home, tmp_path / str(abs(hash(sql))), sql)
        for args in (["history"], ["coach", "--no-review", "--json"], ["drill", "--list"], ["export", "-"]):
            assert osmosis(args, home).exit_code == 0, (sql, args)


def test_a_review_whose_game_cannot_be_told_is_left_out_and_said(full_home, tmp_path):
    """game_id '1x' raised "invalid literal for int()" inside the very code that leaves damaged rows out, so
    games, history and export all failed."""
    home = _damaged(full_home, tmp_path, "UPDATE reviews SET game_id = '1x'")
    result = osmosis(["history"], home)
    assert result.exit_code == 0
    assert "part of your history cannot be read (a review whose game cannot be told)" in " ".join(result.output.split())
    lines = osmosis(["export", "-"], home).stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["review"] is None


def test_rows_of_a_review_no_longer_there_are_said_so(full_home, tmp_path):
    """A move of a review that is gone (and cannot be read) is no review "whose game cannot be told"."""
    home = _damaged(full_home, tmp_path, "UPDATE review_moves SET review_id = 999, tags = 'not json' "
                                         "WHERE rowid = (SELECT min(rowid) FROM review_moves)")
    out = " ".join(osmosis(["history"], home).output.split())
    assert "part of your history cannot be read (rows of a review that is no longer there)" in out


def test_a_schema_version_below_zero_is_damage_not_an_index_error(full_home, tmp_path):
    home = _damaged(full_home, tmp_path, "UPDATE schema_version SET version = -9223372036854775808")
    result = osmosis(["history"], home)
    assert result.exit_code == 0 and "schema version -9223372036854775808" in " ".join(result.output.split())


def test_a_meta_value_that_is_no_text_counts_as_unset(full_home, tmp_path):
    home = _damaged(full_home, tmp_path, "UPDATE meta SET value = X'ff00'")
    for args in (["history"], ["export", "-"], ["coach", "--no-review", "--json"]):
        assert osmosis(args, home).exit_code == 0, args


@pytest.mark.parametrize("args", [["review", "/dev/stdout"], ["hint", "--record", "/dev/stdout"],
                                  ["deal", "--deal-file", "/dev/stdout"], ["import", "/dev/stdout"],
                                  ["hint", "--record", "/dev/stderr"]])
def test_reading_the_pipe_it_writes_to_is_refused_not_a_hang(tmp_path, args):
    """`osmosis review /dev/stdout | cat` waited for ever: it read the pipe it was to write its report to."""
    env = {**os.environ, "OSMOSIS_HOME": str(tmp_path / "home")}
    done = subprocess.run(" ".join([*(f"'{a}'" for a in OSMOSIS), *args]) + " 2>&1 | cat", shell=True, env=env,
                          capture_output=True, text=True, timeout=60)
    assert "is this command's own output (a pipe it writes to" in done.stdout, done.stdout
    assert done.stdout.count("\n") == 1 and "Traceback" not in done.stdout


def test_a_record_from_a_pipe_of_another_command_is_still_read(tmp_path):
    """The check is for this command's own output only: `<(...)` and /dev/stdin are pipes too, and read."""
    env = {**os.environ, "OSMOSIS_HOME": str(tmp_path / "home")}
    text = json.dumps({"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 3}, "moves": ["d"]})
    done = subprocess.run([*OSMOSIS, "replay", "/dev/stdin", "--plain"], input=text, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "own output" not in done.stdout + done.stderr, done.stderr


@pytest.mark.parametrize("args", [["review", "REC", "--samples", "4", "--annotate", "-"], ["solve", "3", "--graph", "-"],
                                  ["stats", "--deals", "1-2", "--policy", "greedy", "--per-deal", "-"],
                                  ["stats", "--deals", "1-2", "--policy", "greedy", "--store", "-"],
                                  ["play", "3", "--save", "-", "--plain"]])
def test_a_dash_is_no_file_name_outside_export(run, tmp_path, monkeypatch, args):
    """`review --annotate -` wrote a file called `-` (and said so), where `-` stands for the output."""
    monkeypatch.chdir(tmp_path)
    rules = preset("osmosis")
    save_record(Record(rules, deal_for(3, rules), ["d"]), tmp_path / "rec.json")
    result = run([str(tmp_path / "rec.json") if a == "REC" else a for a in args], input="d\nq\n")
    assert result.exit_code == 1, result.output
    assert "- stands for the standard output, which only osmosis export writes to" in " ".join(result.output.split())
    assert not (tmp_path / "-").exists()


def test_the_prompt_reads_a_quoted_name_as_the_shell_would(run, tmp_path, monkeypatch):
    """`s ''` saved to a file called '' and `s "a b.json"` to one called "a b.json" (quotes and all); `s -` wrote a
    file called -, while `s ./-` is one."""
    monkeypatch.chdir(tmp_path)
    result = run(["play", "1", "--plain"], input="d\ns ''\ns \"a b.json\"\ns -\ns ./-\nq\n")
    out = " ".join(result.output.split())
    assert "an empty file name was given for this game: give a file name, like s game.json" in out
    assert "Saved to a b.json." in out and (tmp_path / "a b.json").is_file()
    assert "- stands for the standard output" in out and "Saved to ./-." in out
    assert not (tmp_path / "''").exists() and not (tmp_path / '"a b.json"').exists()
    assert json.loads((tmp_path / "-").read_text())["moves"] == ["d"]
    (tmp_path / "~").mkdir()  # a ~ in quotes is no home folder, as in the shell
    result = run(["play", "1", "--plain"], input="d\ns '~/q.json'\nq\n", env={"HOME": str(tmp_path / "fakehome")})
    assert "Saved to ~/q.json." in " ".join(result.output.split()) and (tmp_path / "~" / "q.json").is_file()


@pytest.mark.parametrize("args", [["solve", "3", "--graph", "NOTES"],
                                  ["stats", "--deals", "1-2", "--policy", "greedy", "--per-deal", "NOTES"],
                                  ["review", "REC", "--samples", "4", "--annotate", "NOTES"]])
def test_a_file_of_another_kind_is_kept_from_a_graph_per_deal_lines_or_annotations(run, tmp_path, args):
    """`stats --per-deal /etc/shadow` replaced the file with JSON lines (an audit's slip, on a real machine):
    a graph, per-deal lines and an annotated record replaced any file that was no game. Now only an empty
    file or an earlier one of their own kind."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    rules = preset("osmosis")
    save_record(Record(rules, deal_for(3, rules), ["d"]), tmp_path / "rec.json")
    swap = {"NOTES": str(notes), "REC": str(tmp_path / "rec.json")}
    result = run([swap.get(a, a) for a in args])
    assert result.exit_code == 1
    assert "holds something other than the" in result.output and "is kept as it is" in result.output
    assert notes.read_text() == "my notes\n"


def test_an_earlier_graph_or_per_deal_file_is_still_replaced(run, tmp_path):
    """As is a file with nothing in it but blanks (an empty line), as export takes one."""
    graph, lines, packed, empty, blank = (tmp_path / n for n in ("g.graphml", "d.jsonl", "d.jsonl.gz", "empty.txt",
                                                                 "blank.txt"))
    empty.write_text("")
    blank.write_text("\n \n")
    for path in (graph, empty, blank):
        for _ in range(2):
            assert run(["solve", "3", "--graph", str(path), "--graph-nodes", "50"]).exit_code == 0
        assert path.read_text().startswith("<?xml")
    for path in (lines, packed):
        for n in ("1-2", "3-4"):
            assert run(["stats", "--deals", n, "--policy", "greedy", "--per-deal", str(path)]).exit_code == 0
    assert json.loads(lines.read_text().splitlines()[0])["deal"] == 3


def test_a_toml_date_is_quoted_in_toml_notation_not_pythons(tmp_path):
    """A lesson with `moves = 1979-05-27` said "field 'moves' is datetime.date(1979, 5, 27)". A date or time is
    written in ISO 8601 and unquoted, as TOML writes one (in a list or table too, where it is no text either)."""
    assert brief(datetime.date(1979, 5, 27)) == "1979-05-27"
    assert brief(datetime.time(7, 32)) == "07:32:00"
    assert brief([datetime.datetime(1979, 5, 27, 7, 32)]) == "[1979-05-27T07:32:00]"
    assert brief({"a": datetime.time(7, 32), "b": [1, 2.5, None, True, "x"]}) == \
        '{"a": 07:32:00, "b": [1, 2.5, null, true, "x"]}'
    assert brief({"a": 1}) == '{"a": 1}' and brief("x") == "'x'" and brief({1: 2}) == '{"1": 2}'
    text = (Path(__file__).parent.parent / "lessons" / "first-row.toml").read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("moves = "))
    lesson = tmp_path / "first-row.toml"
    lesson.write_text(text.replace(first, "moves = 1979-05-27", 1), encoding="utf-8")
    result = osmosis(["lesson", "--check", str(lesson)], tmp_path / "home")
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "field 'moves' is 1979-05-27: expected moves or cards" in out, out


def test_the_key_that_closes_a_help_opened_in_the_same_burst_is_not_the_boards_too(tmp_path):
    """`? d d` sent at once played two d: the first d closed the help and ran the board's d binding as well
    (pressed one by one, it only closes the help). The key after ? closes the help, as `x` does in `? x d d`."""
    from test_board import make_session
    from test_board_faults58 import _burst

    from tutor.board.play import BoardApp

    for keys, played in ((["question_mark", "d", "d"], ["d"]), (["question_mark", "u", "d"], ["d", "d"])):
        session = make_session(tmp_path / "-".join(keys), number=34)
        if "u" in keys:
            session.game.push("d")
        assert _burst(BoardApp(session), keys) == 1
        assert [str(m) for m in session.game.moves] == played, keys


@pytest.mark.parametrize("key", ["pagedown", "pageup", "up", "down", "home", "end"])
def test_a_scroll_key_at_a_question_on_a_board_that_fits_is_no_crash(tmp_path, key):
    """At the end question (or the tutor's), a scroll key on a board that fits the terminal (80x40 and
    larger) ended the board with Textual's SkipAction ("nothing to scroll"), a traceback for the player."""
    import asyncio

    from test_board import make_session, settle

    from tutor.board.play import BoardApp

    session = make_session(tmp_path, number=1)
    while not session.game.state.apply(last := session.game.state.legal_moves()[0]).over:
        session.game.push(last)
    app = BoardApp(session)

    async def go():
        async with app.run_test(size=(120, 50)) as pilot:
            await pilot.press(str(last) if str(last) in ("d", "w") else str(last)[1:])
            await settle(app, pilot)
            assert app.pending is not None and session.game.state.over  # the end question is open
            await pilot.press(key)
            await settle(app, pilot)
            return app.is_running

    assert asyncio.run(go()) and app.return_code is None
