"""Defects found at stop 62 by the audit of time, locale and environment, each with the case that showed it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tutor.cli import common

OSMOSIS = [sys.executable, "-c", "from tutor.entry import run; run()"]


def _osmosis(args: list[str], home: Path, cwd: Path, stdin: str = "", tz: str = "UTC",
             ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OSMOSIS_HOME": str(home), "TZ": tz, "COLUMNS": "100", "NO_COLOR": "1"}
    return subprocess.run([*OSMOSIS, *args], input=stdin, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=300)


# -- a suit symbol typed at a terminal in a locale that is not UTF-8 ------------------------------------------

class _Stdin:
    def __init__(self, encoding: str) -> None:
        self.encoding = encoding


@pytest.mark.parametrize(("encoding", "typed", "read"), [
    ("ascii", "7\udce2\udc99\udca0", "7\u2660"),  # LC_ALL=C, PYTHONUTF8=0: the bytes as surrogates
    ("latin-1", "7\u00e2\x99\xa0", "7\u2660"),  # PYTHONIOENCODING=latin-1: each byte a character
    ("latin-1", "caf\u00e9", "caf\u00e9"),  # Latin-1 text that is no UTF-8 stays as it was typed
    ("utf-8", "7\u2660", "7\u2660"),
])
def test_a_typed_line_in_a_locale_that_is_not_utf8_is_read_as_utf8_first(monkeypatch, encoding, typed, read):
    """The README: a card may carry its suit symbol in any locale. Piped it did; typed at a terminal in a C
    locale it was "unknown move '7\\udce2\\udc99\\udca0'", and under PYTHONIOENCODING=ascii the line was refused."""
    monkeypatch.setattr(sys, "stdin", _Stdin(encoding))
    monkeypatch.setattr("builtins.input", lambda prompt="": typed)
    assert ascii(common._raw_line("move> ", echo=False)) == ascii(read)  # a failure's report stays ASCII (xdist)


def test_a_strict_ascii_terminal_line_is_read_from_its_bytes(monkeypatch):
    def refuse(prompt=""):
        raise UnicodeDecodeError("ascii", b"7\xe2\x99\xa0", 1, 2, "ordinal not in range(128)")

    monkeypatch.setattr(sys, "stdin", _Stdin("ascii"))
    monkeypatch.setattr("builtins.input", refuse)
    assert common._raw_line("move> ", echo=False) == "7\u2660"


# -- the current folder removed under the command ------------------------------------------------------------

def _gone(tmp_path: Path) -> Path:
    folder = tmp_path / "gone"
    folder.mkdir()
    return folder


def test_saving_in_a_removed_current_folder_says_so_and_the_game_goes_on(tmp_path):
    """``s x.json`` in a folder removed under the shell ended the game (status 1, the later moves unread)
    with "the output cannot be written", where nothing was wrong with the output."""
    home, cwd = tmp_path / "home", _gone(tmp_path)
    proc = subprocess.Popen([*OSMOSIS, "play", "7", "--plain"], cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "OSMOSIS_HOME": str(home), "COLUMNS": "100"})
    time.sleep(0.1)
    cwd.rmdir()
    out, err = proc.communicate("d\ns x.json\nd\nq\n", timeout=300)
    assert proc.returncode == 0, err
    assert "the current folder no longer exists" in out and "output cannot be written" not in out + err
    assert "Move 2: d" in out and "(2 moves" in out


@pytest.mark.parametrize("args", [["play", "7", "--plain", "--save", "x.json"], ["export", "x.jsonl"]])
def test_a_relative_output_in_a_removed_current_folder_is_one_line_that_says_so(tmp_path, args):
    home, cwd = tmp_path / "home", _gone(tmp_path)
    proc = subprocess.Popen([*OSMOSIS, *args], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "OSMOSIS_HOME": str(home), "COLUMNS": "100"})
    time.sleep(0.1)
    cwd.rmdir()
    out, err = proc.communicate("q\n", timeout=300)
    assert proc.returncode == 1
    assert err.startswith("error: the current folder no longer exists") and err.count("\n") == 1, err
    assert "Traceback" not in err


# -- when a resumed game began, across time zones --------------------------------------------------------------

def test_the_games_own_copy_is_saved_over_after_a_time_zone_change(tmp_path):
    """Westward the stamp read late, after the copy was saved: the game's own copy was refused as another."""
    home, cwd = tmp_path / "home", tmp_path
    assert _osmosis(["play", "4", "--plain"], home, cwd, "d d\ns my4.json\nd\nq\n",
                    tz="Pacific/Kiritimati").returncode == 0
    time.sleep(1.1)
    done = _osmosis(["play", "--resume", "last", "--plain"], home, cwd, "d\ns my4.json\nq\n", tz="Pacific/Pago_Pago")
    assert "Saved to my4.json." in done.stdout, done.stdout
    assert json.loads((cwd / "my4.json").read_text())["moves"] == ["d", "d", "d", "d"]


def test_a_stamp_read_in_another_zone_never_puts_a_start_after_the_last_save(tmp_path, monkeypatch):
    from tutor.history.db import file_started_at

    path = tmp_path / "deal-9-20261101-013000.json"
    path.write_text("{}")
    os.utime(path, (1_700_000_000, 1_700_000_000))  # 2023: long before the stamp
    assert file_started_at(path) == 1_700_000_000


# -- a file dated ahead of the clock -------------------------------------------------------------------------

def test_a_game_file_dated_days_ahead_does_not_stay_the_newest_game(tmp_path):
    """A file whose time was two days ahead (a clock that was ahead, a copy from such a machine) became the
    history's newest game for two days: "Last 1" and the streak described it, not the game played last."""
    home, cwd = tmp_path / "home", tmp_path
    assert _osmosis(["play", "23", "--plain"], home, cwd, "d d d d d w\nq\n").returncode == 0
    (path,) = (home / "games").glob("*.json")
    ahead = time.time() + 2 * 86400
    os.utime(path, (ahead, ahead))
    fresh = tmp_path / "home2"
    (fresh / "games").mkdir(parents=True)
    copy = fresh / "games" / path.name  # a copy from a machine whose clock was ahead, into a new history
    copy.write_text(path.read_text())
    os.utime(copy, (ahead, ahead))
    for h in (home, fresh):
        assert _osmosis(["history"], h, cwd).returncode == 0  # looked at (and looked at again) before the next game
        time.sleep(1.1)
        assert _osmosis(["play", "12", "--plain"], h, cwd, "d\nq\n").returncode == 0
        assert _osmosis(["history"], h, cwd).returncode == 0
        with sqlite3.connect(h / "history.sqlite3") as conn:
            rows = conn.execute("SELECT deal_number, started_at, played_at FROM games ORDER BY played_at DESC, id DESC")
            order = list(rows)
        assert [deal for deal, _, _ in order] == [12, 23]
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 1))
        assert all(started <= played <= now for _, started, played in order)


# -- the games list's dates, in UTC as the history's -----------------------------------------------------------

def test_the_games_list_shows_the_same_moment_as_its_json_and_the_history_in_any_zone(tmp_path):
    home, cwd = tmp_path / "home", tmp_path
    assert _osmosis(["play", "3", "--plain"], home, cwd, "d\nq\n").returncode == 0
    table = _osmosis(["games"], home, cwd, tz="Pacific/Kiritimati").stdout
    stamp = json.loads(_osmosis(["games", "--json"], home, cwd, tz="Pacific/Kiritimati").stdout)["games"][0]["date"]
    assert "saved (UTC)" in table
    assert stamp[:10] + " " + stamp[11:16] in table


# -- a survey killed outright left its scratch folder behind ----------------------------------------------------

def test_a_killed_surveys_scratch_folder_goes_at_the_next_survey_and_a_live_ones_stays(tmp_path, monkeypatch):
    """``kill -KILL`` of ``osmosis stats`` left ``osmosis-dask-*`` in the temporary folder, for good."""
    from tutor.scratch import remove_left_behind

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = tmp_path / f"osmosis-dask-{int(gone.stdout)}-abc123"
    (dead / "dask-scratch-space").mkdir(parents=True)
    live = [tmp_path / f"osmosis-dask-{os.getpid()}-def456", tmp_path / f"osmosis-dask-{os.getppid()}-x"]
    other = [tmp_path / "osmosis-dask-abc", tmp_path / "osmosis-dask-notanumber-x",  # no process's number
             tmp_path / "osmosis-dask-99999999999999999999-x"]  # os.kill: OverflowError
    for folder in (*live, *other):
        folder.mkdir()
    remove_left_behind()
    assert not dead.exists() and all(f.exists() for f in (*live, *other))


# ==== the audit of a game's ends and boundaries ==============================================================

def test_the_hint_says_a_single_pass_with_no_reserve_is_almost_never_winnable(run):
    """The spec: with --passes 1 and no reserve the tutor should say so when asked; play, deal and solve did,
    the hint (text and JSON) did not."""
    text = run(["hint", "2", "--variant", "bridesmaids", "--passes", "1"]).output
    assert "Note: with no reserve and a single pass through the talon the game is almost never winnable" in text
    data = json.loads(run(["hint", "2", "--variant", "bridesmaids", "--passes", "1", "--json"]).output)
    assert data["note"].startswith("with no reserve and a single pass")
    assert "note" not in json.loads(run(["hint", "2", "--variant", "bridesmaids", "--json"]).output)
    solved = json.loads(run(["solve", "2", "--variant", "bridesmaids", "--passes", "1", "--json"]).output)
    assert solved["note"].startswith("with no reserve and a single pass")


def test_solve_at_a_blocked_end_says_the_game_is_over(run):
    """It said "lost whatever the player does" where no move is left at all, as if a search had decided it."""
    from builders import greedy_moves

    moves = " ".join(greedy_moves(3))  # the greedy policy's game: blocked with 32 cards
    text = " ".join(run(["solve", "3", "--moves", moves]).output.split())
    assert "blocked: the game is over with 32 cards on the foundations, so there is nothing left to play." in text
    assert "whatever the player does" not in text


def test_every_move_taken_back_with_save_leaves_no_empty_file_in_the_games_folder(run, home, tmp_path):
    """With --save, undoing every move left a 0-move file in the games folder, listed by games and not said."""
    out = run(["play", "2", "--plain", "--save", str(tmp_path / "ua.json")], input="d\nu\nq\n").output
    assert "the game's file in the games folder was removed. The game is saved in" in " ".join(out.split())
    assert not list((home / "games").glob("*.json"))
    assert json.loads((tmp_path / "ua.json").read_text())["moves"] == []
    kept = run(["play", "2", "--plain", "--save", str(tmp_path / "ub.json")], input=f"d\ns {tmp_path / 'k.json'}\nu\nq\n")
    assert len(list((home / "games").glob("*.json"))) == 1, kept.output  # k.json holds a move of this game


def test_a_file_with_no_move_is_not_counted_as_a_game_imported(run, home):
    """"Imported 1 saved game" came with "No games in your history yet" for a file saved before any move."""
    assert run(["play", "5", "--plain"], input="s\nq\n").exit_code == 0
    (home / "history.sqlite3").unlink(missing_ok=True)  # none yet: a game with no move is not stored
    done = run(["history"])
    assert "Imported" not in done.output + done.stderr and "No games in your history yet" in done.output


def test_a_review_of_a_record_with_no_move_says_so_and_grades_nothing(run, tmp_path):
    path = tmp_path / "zero.json"
    path.write_text('{"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 4}, "moves": []}')
    text = " ".join(run(["review", str(path)]).output.split())
    assert text.endswith("Accuracy: not rated: no move was played.")
    assert "Win chance, move by move" not in text and "forced" not in text


def test_the_viewer_of_a_record_with_no_move_says_there_is_nothing_to_step_through():
    import asyncio

    from tutor.board import screen_text
    from tutor.board.replay import ReplayApp
    from tutor.deals import deal_for
    from tutor.record import Record
    from tutor.rules import preset

    rules = preset("single")
    app = ReplayApp(Record(rules, deal_for(3, rules), []), None, symbols=True)
    shown: list[str] = []

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            await pilot.pause()
            shown.append(" ".join(screen_text(app).split()))
            for key in ("right", "left", "g", "1", "enter"):
                await pilot.press(key)
                await pilot.pause()
                shown.append(" ".join(screen_text(app).split()))

    asyncio.run(go())
    assert "This record has no move: there is nothing to step through." in shown[0]
    assert all("This record has no move." in s and "steps" not in s.replace("step through", "") for s in shown[1:3])
    assert "This record has no move." in shown[-1] and "There is no move 1" not in shown[-1]


def test_a_file_name_beyond_ascii_saved_in_a_c_locale_is_written_under_its_own_bytes(tmp_path):
    """Read as UTF-8 (so a suit symbol is one), ``s partie-\u00e9t\u00e9.json`` in a C locale ended in a
    UnicodeEncodeError traceback (the file system's encoding is ASCII there), the later moves lost."""
    env = {**os.environ, "OSMOSIS_HOME": str(tmp_path / "home"), "LC_ALL": "C", "PYTHONUTF8": "0",
           "PYTHONIOENCODING": ""}
    done = subprocess.run([*OSMOSIS, "play", "9", "--plain"], input="d\ns partie-\u00e9t\u00e9.json\nd\nq\n".encode(),
                          capture_output=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    assert json.loads((tmp_path / "partie-\u00e9t\u00e9.json").read_text())["moves"] == ["d"]
    assert b"(2 moves" in done.stdout


# ==== the audit of responsiveness ==============================================================================

def _endgame(monkeypatch):
    """A fast stand-in for a blind game (the real one takes seconds), in this process."""
    import tutor.practical as practical

    monkeypatch.setattr(practical, "playout", lambda job: (False, 1))
    monkeypatch.setattr(practical, "lost_for_certain", lambda obs, move: False)


def test_the_blind_games_say_they_have_begun_before_the_first_ends(monkeypatch):
    """``review --practical``: for a minute the bar stood full at the last position, its clock stopped, until
    the first blind game ended (the count was given only after each game)."""
    from tutor.deals import deal_for
    from tutor.knowledge import observe
    from tutor.practical import Request, practical_many
    from tutor.rules import preset
    from tutor.state import State

    calls: list[tuple[int, int]] = []
    _endgame(monkeypatch)
    rules = preset("osmosis")
    obs = observe(State.initial(deal_for(5, rules), rules))
    practical_many([Request(obs, 3)], workers=1, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]


def test_an_interrupted_survey_stops_its_busy_workers_at_once_and_none_comes_back():
    """Ctrl-C of a survey said "interrupted" at once, then waited 4 s for each busy worker (dask asks a worker
    to stop and kills it only after 4 s), deaf to another Ctrl-C."""
    from tutor.engines import DaskEngine

    engine = DaskEngine(workers=2, worker_timeout=60)
    nannies = list(engine._own_cluster.workers.values())
    pids = [n.pid for n in nannies]
    assert len(pids) == 2 and all(pids)
    engine.close(at_once=True)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def _on_a_terminal(args: list[str], home: Path, stop_after: bytes) -> tuple[int, bytes]:
    """Run osmosis on a pseudo-terminal, SIGTERM it once ``stop_after`` is shown; (status, all it wrote)."""
    import pty
    import select
    import signal

    leader, follower = pty.openpty()
    env = {**os.environ, "OSMOSIS_HOME": str(home), "TERM": "xterm-256color", "COLUMNS": "80"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([*OSMOSIS, *args], stdin=follower, stdout=follower, stderr=follower, env=env,
                            start_new_session=True)
    os.close(follower)
    out, sent = b"", False
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process ended
            break
        if not chunk:
            break
        out += chunk
        if not sent and stop_after in out:
            proc.send_signal(signal.SIGTERM)
            sent = True
    os.close(leader)
    return proc.wait(timeout=60), out


def test_a_kill_of_solve_puts_the_cursor_back_as_ctrl_c_does(tmp_path):
    """The spinner hid the cursor; a kill while it turned left the terminal without one."""
    status, out = _on_a_terminal(["solve", "1254", "--variant", "bridesmaids"], tmp_path / "home", b"Solving")
    assert status == 130, out[-300:]
    assert b"\x1b[?25l" in out and out.rindex(b"\x1b[?25h") > out.rindex(b"\x1b[?25l")
    assert b"interrupted" in out and b"Traceback" not in out


# ==== the audit of a returning player's history =================================================================

def test_the_coach_on_a_restored_history_says_where_the_moves_are_in_lines_under_the_example(run, home, tmp_path):
    """After an export imported into a new home (the old one gone), the note under each example wrapped back
    to 2 spaces under its 4 and said only "the history keeps the moves"."""
    import shutil

    from builders import greedy_moves, osmosis

    # the greedy policy's game, with the errors the coach lists
    assert run(["play", "17", "--plain"], input=" ".join(greedy_moves(17)) + "\n").exit_code == 0
    assert run(["coach", "--samples", "4"]).exit_code == 0
    export = tmp_path / "all.jsonl"
    assert run(["export", str(export)]).exit_code == 0
    new = tmp_path / "new"
    assert osmosis(["import", str(export)], new).exit_code == 0
    shutil.rmtree(home)
    text = osmosis(["coach", "--no-review"], new).output
    at = text.index("(no game file at")
    block = text[at - 4:text.index(")", at) + 1].splitlines()
    assert len(block) > 1 and all(line.startswith("    ") and not line.startswith("     ") for line in block), block
    assert "osmosis export writes them out" in " ".join(text.split())
