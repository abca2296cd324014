"""Faults while saving: a full disk, a read-only folder, games started at once, killed saves.

A player must never lose a game: a file that holds a finished game is never
overwritten by a shorter one, "saved" is said only when it is true, and a
quit with moves not saved says so and exits non-zero. The disk faults run
the real command in a child process (RLIMIT_FSIZE; another user for a
read-only folder, since root ignores file modes).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from test_cli_play import greedy_line

from tutor.deals import deal_for
from tutor.errors import RecordError
from tutor.record import Record, load_record, save_record
from tutor.rules import preset
from tutor.storage import STALE_SECONDS, atomic_write_text, create_new_file

RULES = preset("osmosis")
OSMOSIS = [sys.executable, "-c", "from tutor.cli import main; main()"]


def child_env(home: Path) -> dict:
    return {**os.environ, "OSMOSIS_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "100",
            "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"}


def games(home: Path) -> list[Path]:
    return sorted((home / "games").glob("*.json"))


# ---- a finished game is never overwritten by a shorter one -----------------
@pytest.mark.parametrize("number", [23, 1])  # a won game and a blocked one
def test_resuming_a_finished_game_and_undoing_goes_on_in_a_copy(run, home, tmp_path, number):
    moves, final = greedy_line(number)
    assert final.over
    path = tmp_path / "finished.json"
    save_record(Record(RULES, deal_for(number, RULES), moves), path)
    before = path.read_bytes()
    result = run(["play", "--resume", str(path)], input="u\nu 3\ns\nq\n")
    assert result.exit_code == 0
    assert path.read_bytes() == before  # the finished record is as it was
    (copy,) = games(home)  # made by s: the undo alone writes nothing the finished file does not hold
    assert len(load_record(copy).moves) == len(moves) - 4
    out = result.stdout.replace("\n", " ")
    assert "This game is over" in out and f"{path} keeps it as it was" in out and str(copy) in out
    assert f"The game is saved in {copy}" in out


def test_one_file_named_two_ways_is_one_file_not_another_sessions(run, home, tmp_path):
    """`play --resume won.json --save ./won.json`, then only `u`: the session's own write to ./won.json was
    read as another session's write to won.json, a copy was made of an undo alone and counted as a second
    game; and `s` to the autosave under another spelling split the game in two files."""
    moves, final = greedy_line(23)
    assert final.over
    path = tmp_path / "won.json"
    save_record(Record(RULES, deal_for(23, RULES), moves), path)
    before = path.read_bytes()
    out = run(["play", "--plain", "--resume", str(path), "--save", f"{tmp_path}/./won.json"], input="u\nq\n").stdout
    assert "another session" not in out and path.read_bytes() == before and games(home) == []  # no copy
    result = run(["play", "--plain", "2"], input="d\n").stdout  # the autosave, then s to it named otherwise
    (autosave,) = games(home)
    again = f"{home}/games/../games/{autosave.name}"
    out = run(["play", "--plain", "--resume", str(autosave)], input=f"s {again}\nd\nq\n").stdout
    assert "another session" not in out and games(home) == [autosave], (result, out)
    assert len(load_record(autosave).moves) == 2
    assert json.loads(run(["history", "--json"]).stdout)["games"] == 1


@pytest.mark.parametrize("number", [23, 1])  # a won game and a blocked one
def test_no_command_writes_an_unfinished_game_or_another_file_over_a_finished_game(run, home, tmp_path, number):
    moves, final = greedy_line(number)
    path = tmp_path / "finished.json"
    save_record(Record(RULES, deal_for(number, RULES), moves), path)
    before = path.read_bytes()
    unfinished = tmp_path / "two.json"
    save_record(Record(RULES, deal_for(4, RULES), ["d", "d"]), unfinished)
    how = "won" if final.won else f"blocked with {final.cards} cards"
    said = f"{path}' holds a finished game (deal {number}, {how}) and is kept as it is"
    # s FILE in a game, typed after an undo of the finished game itself and in another game
    for args, keys in ((["play", "--resume", str(path)], f"u\ns {path}\nq\n"), (["play", "5"], f"d\ns {path}\nq\n")):
        result = run(args, input=keys)
        assert said in result.stdout and "write this unfinished game to another file" in result.stdout
    # --save onto it, before the game starts; review --annotate, export and solve --graph onto it
    for args in (["play", "5", "--save", str(path)], ["review", str(unfinished), "--annotate", str(path), "--samples", "4"],
                 ["export", str(path)], ["solve", "1", "--graph", str(path), "--graph-nodes", "20"],
                 ["stats", "--variant", "osmosis", "--deals", "1-2", "--policy", "greedy", "--workers", "1",
                  "--per-deal", str(path)]):
        result = run(args, input="d\nq\n")
        assert result.exit_code == 1, args
        assert said in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert path.read_bytes() == before
    # a finished game may go over a finished one: the annotated record of the game itself
    result = run(["review", str(path), "--annotate", str(path), "--samples", "4"])
    assert result.exit_code == 0 and load_record(path).moves == moves


def test_another_finished_game_never_goes_over_a_finished_game(run, home, tmp_path):
    """A won game and a blocked one: neither replaces the other, by review --annotate or by s FILE."""
    (won_moves, won), (lost_moves, lost) = greedy_line(23), greedy_line(1)
    assert won.won and lost.over and not lost.won
    won_path, lost_path = tmp_path / "won.json", tmp_path / "lost.json"
    save_record(Record(RULES, deal_for(23, RULES), won_moves), won_path)
    save_record(Record(RULES, deal_for(1, RULES), lost_moves), lost_path)
    kept = {p: p.read_bytes() for p in (won_path, lost_path)}
    result = run(["review", str(lost_path), "--annotate", str(won_path), "--samples", "4"])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert f"{won_path}' holds a finished game (deal 23, won) and is kept as it is" in result.stderr
    # play deal 23 to its win, then s onto the blocked game of deal 1
    result = run(["play", "23"], input=" ".join(map(str, won_moves)) + f"\ns {lost_path}\nq\n")
    out = " ".join(result.stdout.split())
    assert f"{lost_path}' holds a finished game (deal 1, blocked with {lost.cards} cards) and is kept as it is" in out
    assert f"Saved to {lost_path}" not in out
    assert {p: p.read_bytes() for p in kept} == kept


def test_a_save_path_in_no_folder_is_refused_before_the_game(run, home, tmp_path):
    """It was taken: the game ran, and at q "cannot be written ... the game is kept in ..." with exit 0."""
    result = run(["play", "1", "--save", str(tmp_path / "no-folder" / "x.json")], input="d\nq\n")
    assert result.exit_code == 1
    assert result.stderr == (f"error: --save '{tmp_path / 'no-folder' / 'x.json'}' cannot be written: there is no "
                             f"folder '{tmp_path / 'no-folder'}'\n")
    assert games(home) == []  # no game begun


def test_a_closed_input_or_a_full_disk_for_the_output_is_one_line_and_exit_1(tmp_path):
    env = child_env(tmp_path / "home")
    closed = subprocess.run([*OSMOSIS, "play", "1"], stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                            preexec_fn=lambda: os.close(0), timeout=120)
    assert closed.returncode == 0 and "Traceback" not in closed.stderr and "No move was played" in closed.stdout
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    for args in (["deal", "1"], ["solve", "1", "--json"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([*OSMOSIS, *args], stdout=full, stderr=subprocess.PIPE, text=True, env=env,
                                  timeout=120)
        assert done.returncode == 1, args
        assert done.stderr == "error: the output cannot be written: No space left on device\n"


def test_a_game_quit_with_no_move_leaves_no_file(run, home):
    for keys in ("q\n", "", "?\n\nq\n"):
        result = run(["play", "4"], input=keys)
        assert result.exit_code == 0
        assert "No move was played" in result.stdout
    assert games(home) == []


def test_a_game_saved_with_s_before_any_move_keeps_its_file(run, home):
    """``s`` at move 0 said "Saved to FILE", then quitting removed that file as if nothing had been saved."""
    result = run(["play", "7"], input="s\nq\n")
    assert result.exit_code == 0 and "Saved to" in result.stdout and "was removed" not in result.stdout
    (kept,) = games(home)
    assert not load_record(kept).moves and load_record(kept).deal.number == 7


# ---- names nobody else has ---------------------------------------------------
def test_files_made_at_the_same_moment_never_share_a_name(tmp_path):
    made, barrier = [], threading.Barrier(8)

    def make(i: int) -> None:
        barrier.wait()
        made.append((create_new_file(tmp_path, "deal-4-same-second", ".json", f"game {i}\n"), i))

    threads = [threading.Thread(target=make, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({path for path, _ in made}) == 8
    for path, i in made:
        assert path.read_text() == f"game {i}\n"
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def test_games_started_together_each_get_their_own_file(tmp_path):
    home = tmp_path / "home"
    children = [subprocess.Popen(OSMOSIS + ["play", "4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=child_env(home)) for _ in range(3)]
    first = ["d", "r2", "r3"]  # three different games of deal 4
    outputs = [c.communicate(f"{move}\nq\n", timeout=60) for c, move in zip(children, first)]
    assert [c.returncode for c in children] == [0, 0, 0], outputs
    saved = sorted(str(load_record(p).moves[0]) for p in games(home))
    assert saved == sorted(first)


# ---- killed saves ------------------------------------------------------------
def test_temporary_files_left_by_killed_saves_are_removed_when_old(run, home):
    folder = home / "games"
    folder.mkdir(parents=True)
    old = folder / ".deal-4-20200101-000000.json.abc12xyz.tmp"
    young = folder / ".deal-4-20200101-000000.json.young123.tmp"
    foreign = folder / ".notes.tmp"
    for p in (old, young, foreign):
        p.write_text("{")
    stale = time.time() - STALE_SECONDS - 60
    os.utime(old, (stale, stale))
    os.utime(foreign, (stale, stale))
    assert run(["play", "4"], input="d\nq\n").exit_code == 0
    assert not old.exists() and young.exists() and foreign.exists()


def test_a_save_removes_old_temporary_files_of_the_same_file(tmp_path):
    target = tmp_path / "game.json"
    left = tmp_path / ".game.json.k1ll3d00.tmp"
    left.write_text("half")
    stale = time.time() - STALE_SECONDS - 1
    os.utime(left, (stale, stale))
    atomic_write_text(target, "{}\n")
    assert target.read_text() == "{}\n" and not left.exists()


# ---- a full disk (RLIMIT_FSIZE in a child) -----------------------------------
def _file_size_limit(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_full_disk_never_passes_for_saved(tmp_path):
    home = tmp_path / "home"
    # About 140 bytes for a record plus 5 a turn: the first moves fit, the later ones do not.
    child = subprocess.run(OSMOSIS + ["play", "1"], input="d\n" * 8 + "q\nq\n", capture_output=True, text=True,
                           env=child_env(home), preexec_fn=_file_size_limit(165), timeout=60)
    out = child.stdout
    assert child.returncode == 1, out
    assert "Autosave failed" in out and "The game is saved in" not in out
    assert "Type s FILE to save it, or q again" in out
    # one error line; the history's warning (it cannot be written on the full disk either) is stderr's too
    errors = [line for line in child.stderr.strip().splitlines() if not line.startswith("warning: ")]
    assert len(errors) == 1 and "not saved" in errors[0] and errors[0].startswith("error: ")
    assert all("history" in line for line in child.stderr.splitlines() if line.startswith("warning: "))
    (path,) = games(home)
    kept = load_record(path)  # the last good save is intact
    assert 0 < len(kept.moves) < 8
    assert f"holds the game as it was at move {len(kept.moves)}" in out
    assert not [p for p in (home / "games").iterdir() if p.suffix == ".tmp"]


def test_with_no_usable_games_folder_quit_warns_and_s_file_keeps_the_game_from_then_on(tmp_path):
    home = tmp_path / "home"
    other = tmp_path / "elsewhere.json"
    home.mkdir()
    (home / "games").write_text("")  # a file where the games folder should be
    child = subprocess.run(OSMOSIS + ["play", "1"], input=f"d\nd\nq\ns {other}\nd\nq\n", capture_output=True,
                           text=True, env=child_env(home), timeout=60)
    assert child.returncode == 0, child.stdout + child.stderr
    assert [str(m) for m in load_record(other).moves] == ["d", "d", "d"]
    assert f"The game is saved in {other}" in child.stdout


# ---- a read-only folder (as another user: root ignores file modes) -----------
def _setpriv() -> list[str]:
    tool = shutil.which("setpriv")
    if tool is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv to run the child as another user (root bypasses permissions)")
    return [tool, "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_a_read_only_folder_keeps_the_record_and_quitting_says_it_is_not_saved():
    prefix = _setpriv()
    folder = Path(tempfile.mkdtemp(prefix="osmosis-ro-"))
    try:
        folder.chmod(0o755)  # readable by the other user, writable only by root
        record = folder / "game.json"
        save_record(Record(RULES, deal_for(1, RULES), ["d"]), record)
        record.chmod(0o644)
        before = record.read_bytes()
        home = folder / "home"
        home.mkdir()
        home.chmod(0o755)
        probe = subprocess.run(prefix + ["true"], capture_output=True)
        if probe.returncode != 0:
            pytest.skip(f"setpriv cannot switch user here: {probe.stderr.decode(errors='replace').strip()}")
        child = subprocess.run(prefix + OSMOSIS + ["play", "--resume", str(record)], input="d\nd\nq\nq\n",
                               capture_output=True, text=True, env={**child_env(home), "HOME": str(folder)},
                               timeout=60)
        assert child.returncode == 1, child.stdout + child.stderr
        assert "Traceback" not in child.stderr
        assert "Autosave failed" in child.stdout and "Permission denied" in child.stdout
        assert "The game is saved in" not in child.stdout
        assert record.read_bytes() == before
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# ---- saves go to regular files only ------------------------------------------
def test_a_save_never_replaces_a_pipe_or_a_folder_and_follows_a_link(run, home, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    real = tmp_path / "real.json"
    link = tmp_path / "link.json"
    link.symlink_to(real)
    result = run(["play", "3"], input=f"d\ns {fifo}\ns {tmp_path}\ns {link}\nq\n")
    assert result.exit_code == 0
    assert "not a regular file" in result.stdout and "it is a folder" in result.stdout
    assert fifo.is_fifo() and link.is_symlink()
    assert [str(m) for m in load_record(real).moves] == ["d"]


def test_resuming_from_a_pipe_goes_on_in_a_new_file(tmp_path):
    record = Record(RULES, deal_for(1, RULES), ["d"]).dumps()
    home = tmp_path / "home"
    child = subprocess.run(["bash", "-c", " ".join(f"'{a}'" for a in OSMOSIS)
                            + " play --resume <(printf '%s' \"$REC\")"], input="d\nq\n", capture_output=True,
                           text=True, env={**child_env(home), "REC": record}, timeout=60)
    assert child.returncode == 0, child.stdout + child.stderr
    assert "not a regular file, so the game goes on in a new file" in child.stdout
    (saved,) = games(home)
    assert [str(m) for m in load_record(saved).moves] == ["d", "d"]


@pytest.mark.parametrize("with_format", [True, False])
def test_no_command_writes_over_a_deal_file(run, home, tmp_path, with_format):
    """A deal file that leaves out its format is read as a deal all the same, and --graph, --per-deal and
    --annotate wrote over it: its fields say what it is."""
    path = tmp_path / "deal.json"
    data = deal_for(5, RULES).to_json()
    if not with_format:
        del data["format"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert run(["deal", "--deal-file", str(path)]).exit_code == 0  # a deal to play either way
    record = tmp_path / "game.json"
    record.write_text(Record(RULES, deal_for(1, RULES), ["d"]).dumps(), encoding="utf-8")
    before = path.read_bytes()
    for args in (["play", "--deal-file", str(path), "--save", str(path)], ["play", "5", "--save", str(path)],
                 ["solve", "1", "--graph", str(path), "--graph-nodes", "20"], ["export", str(path)],
                 ["stats", "--deals", "1-2", "--policy", "greedy", "--workers", "1", "--per-deal", str(path)],
                 ["review", str(record), "--samples", "8", "--annotate", str(path)]):
        result = run(args, input="d\nq\n")
        assert result.exit_code == 1, args
        assert "holds a deal file (osmosis-deal/1) and is kept as it is" in result.stderr, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert path.read_bytes() == before


def test_s_file_never_writes_over_another_game_or_a_file_that_is_no_record(run, home, tmp_path):
    """s FILE wrote deal 5's one move over a 2-move game of deal 2, unfinished, without a word."""
    other = tmp_path / "deal2.json"
    assert run(["play", "2"], input=f"d\nd\ns {other}\nq\n").exit_code == 0
    kept = other.read_text(encoding="utf-8")
    result = run(["play", "5"], input=f"r4\ns {other}\nq\n")
    assert result.exit_code == 0 and "holds another game (deal 2, 2 moves) and is kept as it is" in result.output
    assert other.read_text(encoding="utf-8") == kept
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    result = run(["play", "2"], input=f"d\ns {notes}\nq\n")
    assert "is not a game record and is kept as it is" in result.output and notes.read_text() == "my notes\n"
    # --save onto another game is refused before the game starts; onto an earlier save of this game it goes on
    refused = run(["play", "5", "--save", str(other)], input="q\n")
    assert refused.exit_code == 1 and "holds another game" in refused.stderr and other.read_text() == kept
    again = run(["play", "2", "--save", str(other)], input="d\nq\n")  # a new game of the same deal: not that one
    assert again.exit_code == 1 and f"osmosis play --resume {other} goes on with that one" in again.stderr
    goes_on = run(["play", "--resume", str(other)], input=f"d\ns {other}\nq\n")
    assert goes_on.exit_code == 0 and json.loads(other.read_text())["moves"] == ["d", "d", "d"]



def test_s_file_keeps_an_earlier_try_of_the_deal_whose_moves_this_game_repeats(run, home, tmp_path):
    """s FILE wrote r3 r4 d over a 1-move try of deal 5 (r3) saved an hour before, notes and all, and over
    another game's autosave: their moves began this game, but each is a game of its own."""
    mine = tmp_path / "mine.json"
    mine.write_text('{"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 5}, "moves": ["r3"], '
                    '"notes": "my first try"}\n', encoding="utf-8")
    kept = mine.read_bytes()
    os.utime(mine, (time.time() - 3600, time.time() - 3600))
    result = run(["play", "5"], input=f"r3 r4 d\ns {mine}\nq\n")
    assert result.exit_code == 0 and mine.read_bytes() == kept
    assert ("holds another game (deal 5, 1 move, saved before this game began) and is kept as it is: give a new "
            f"file name (osmosis play --resume {mine} goes on with that one)") in result.output
    assert run(["play", "1"], input="d\nq\n").exit_code == 0
    (first,) = (home / "games").glob("deal-1-*.json")
    os.utime(first, (time.time() - 60, time.time() - 60))
    before = first.read_bytes()
    assert "holds another game" in run(["play", "1"], input=f"d d d\ns {first}\nq\n").output
    assert first.read_bytes() == before and len(list((home / "games").glob("deal-1-*.json"))) == 2
    assert json.loads(run(["history", "--json"]).stdout)["games"] == 3
    # this game's own file, saved on the way, in this session or an earlier one: written again
    own = tmp_path / "own.json"
    assert run(["play", "5"], input=f"r3\ns {own}\nr4\ns {own}\nq\n").exit_code == 0
    assert json.loads(own.read_text())["moves"] == ["r3", "r4"]
    later = run(["play", "--resume", "last"], input=f"d\ns {own}\nq\n")
    assert "Saved to" in later.output and json.loads(own.read_text())["moves"] == ["r3", "r4", "d"]

def test_a_game_with_every_move_taken_back_leaves_no_file(run, home):
    """'A game quit with no move leaves no file': r3, u, q left a 0-move game in the list."""
    result = run(["play", "5"], input="r3\nu\nq\n")
    assert result.exit_code == 0 and "so the game's file was removed" in result.output
    assert not list((home / "games").glob("*.json"))
    assert "No saved games yet" in run(["games"]).output
    kept = run(["play", "5"], input="r3\nu\nr4\nq\n")  # a move left: the file stays
    assert kept.exit_code == 0 and len(list((home / "games").glob("*.json"))) == 1


def test_s_with_a_tilde_saves_in_the_home_folder(run, home, tmp_path):
    """'s ~/game.json' said 'No such file or directory': the ~ was taken as a folder's name."""
    result = run(["play", "5"], input="r4\ns ~/tilde-game.json\nq\n", env={"HOME": str(tmp_path)})
    assert result.exit_code == 0 and (tmp_path / "tilde-game.json").is_file(), result.output
    assert f"Saved to {tmp_path / 'tilde-game.json'}." in result.output


def test_no_output_file_goes_over_a_saved_unfinished_game(run, home, tmp_path):
    """An export, per-deal lines, a graph or another game's annotated record never replace a saved game that
    is not finished; the game's own annotated record may, and an earlier export may be written again."""
    path = tmp_path / "my.json"
    save_record(Record(RULES, deal_for(1, RULES), ["d", "d"]), path)
    before = path.read_bytes()
    other = tmp_path / "other.json"
    save_record(Record(RULES, deal_for(4, RULES), ["d"]), other)
    for args, what in ((["export", str(path)], "the export"),
                       (["solve", "1", "--graph", str(path), "--graph-nodes", "20"], "the graph"),
                       (["stats", "--variant", "osmosis", "--deals", "1-2", "--policy", "greedy", "--workers", "1",
                         "--per-deal", str(path)], "the per-deal lines"),
                       (["review", str(other), "--annotate", str(path), "--samples", "4"],
                        "the annotated record of this game")):
        result = run(args)
        assert result.exit_code == 1, args
        assert result.stderr == (f"error: '{path}' holds a saved game (deal 1, 2 moves) and is kept as it is: "
                                 f"write {what} to another file\n")
    assert path.read_bytes() == before
    assert run(["review", str(path), "--annotate", str(path), "--samples", "4"]).exit_code == 0
    assert [str(m) for m in load_record(path).moves] == ["d", "d"]
    out = tmp_path / "out.jsonl"
    assert run(["export", str(out)]).exit_code == 0 and run(["export", str(out)]).exit_code == 0


def test_a_finished_record_without_its_format_field_is_still_kept(run, home, tmp_path):
    """The format field may be left out of a record (it defaults to osmosis-record/1): the game is as
    finished, and as protected, as with it."""
    moves, final = greedy_line(23)
    data = Record(RULES, deal_for(23, RULES), moves).to_json()
    del data["format"]
    path = tmp_path / "nf.json"
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    result = run(["export", str(path)])
    assert result.exit_code == 1 and "holds a finished game (deal 23, won)" in result.stderr
    out = run(["play", "5"], input=f"d\ns {path}\nq\n").stdout
    assert f"'{path}' holds a finished game (deal 23, won) and is kept as it is" in out
    assert path.read_bytes() == before


def test_a_file_name_ending_in_a_slash_is_refused_not_saved_as_a_file_of_the_folders_name(run, home, tmp_path):
    folder = tmp_path / "nd"
    out = run(["play", "1"], input=f"d\ns {folder}/\nq\n").stdout
    assert f"'{folder}/' names a folder, not a file: give a file name, like {folder}/game.json" in out
    result = run(["play", "1", "--save", f"{folder}/"], input="q\n")
    assert result.exit_code == 1 and result.stderr == (f"error: '{folder}/' names a folder, not a file: give a file "
                                                       f"name, like {folder}/game.json\n")
    assert not folder.exists()


def _autosaved_game(tmp_path):
    """Deal 1 after one move, autosaved in ``tmp_path/games``: (game, its GameFiles, the folder)."""
    from tutor.cli.saves import GameFiles
    from tutor.record import Game

    folder = tmp_path / "games"
    folder.mkdir()
    game = Game(RULES, deal_for(1, RULES))
    files = GameFiles(game, folder, "deal-1")
    game.push("d")
    assert files.after_change() and files.autosave is not None
    return game, files, folder


def test_a_game_file_written_by_another_session_is_kept_and_this_game_goes_on_in_a_copy(tmp_path):
    """Two sessions of one saved game: the one that saves second found its moves gone, or the finished
    game refused with a wrong account of the file. Now a file changed since this session wrote it is kept."""
    game, files, folder = _autosaved_game(tmp_path)
    path = files.autosave
    other = Record(RULES, deal_for(1, RULES), ["d", "d", "d"])  # the other session went further
    save_record(other, path)
    kept = path.read_bytes()
    game.push("d")
    said = files.after_change()
    assert files.autosave != path and path.read_bytes() == kept
    assert said == [f"{path} was written by another session (or program) since this one saved it, and is kept as "
                    "it is; "
                    f"this game goes on in a copy, {files.autosave}."]
    assert [str(m) for m in load_record(files.autosave).moves] == ["d", "d"]
    assert files.saved_sentence().startswith(f"The game is saved in {files.autosave} (2 moves, ")
    game.push("d")
    assert files.after_change() == [] and len(load_record(files.autosave).moves) == 3


def test_a_save_file_another_session_saved_its_game_in_is_kept(tmp_path):
    """Two sessions with --save same.json at once: the one that quit second wrote its game over the other's
    (checked only when the game opened), and s FILE checked a file only before its first write there."""
    game, files, folder = _autosaved_game(tmp_path)
    mine = tmp_path / "same.json"
    files.save_path = str(mine)
    other = Record(RULES, deal_for(2, RULES), ["d", "d"])
    save_record(other, mine)  # the other session quit first
    kept = mine.read_bytes()
    said = files.keep()
    assert mine.read_bytes() == kept
    assert said == [f"Save failed: '{mine}' holds another game (deal 2, 2 moves) and is kept as it is: give a new "
                    f"file name; the game is kept in {files.autosave}."]
    own = tmp_path / "own.json"
    assert files.save(str(own)) == [f"Saved to {own}."]
    save_record(other, own)  # written over by the other session after this one's s own.json
    with pytest.raises(RecordError, match="holds another game"):
        files.save(str(own))
    assert own.read_bytes() == kept
    game.push("d")  # a file that still holds this game's start is this game's, and goes on
    again = tmp_path / "again.json"
    save_record(Record(RULES, deal_for(1, RULES), ["d"]), again)
    assert files.save(str(again)) == [f"Saved to {again}."] and len(load_record(again).moves) == 2


def test_a_game_file_replaced_by_another_game_while_playing_is_one_game_in_the_history(tmp_path):
    """Another game copied over the file of a game in play: this game went on in a copy, but its first moves
    stayed in the history under the old file's name, beside the copy's row and the other game's: 3 games in
    the history, 2 in the games folder."""
    from builders import osmosis

    from tutor.cli.saves import GameFiles
    from tutor.history.games import note_game
    from tutor.record import Game

    home = tmp_path / "home"
    folder = home / "games"
    folder.mkdir(parents=True)
    game = Game(RULES, deal_for(23, RULES))
    files = GameFiles(game, folder, "deal-23")
    for move in ("d", "d"):
        game.push(move)
        files.after_change()
        note_game(game.to_record(), files.autosave, home / "history.sqlite3", moved_from=files.moved_from)
    path = files.autosave
    save_record(Record(RULES, deal_for(5, RULES), ["d", "d", "w"]), path)  # another game copied over it
    game.push("d")
    assert "since this one saved it" in files.after_change()[0] and files.moved_from == path
    note_game(game.to_record(), files.autosave, home / "history.sqlite3", moved_from=files.moved_from)
    data = json.loads(osmosis(["history", "--json"], home).stdout)
    assert sorted((g["deal"], g["moves"]) for g in data["recent"]) == [(5, 3), (23, 3)]


@pytest.mark.parametrize("whole_folder", [False, True])
def test_a_game_file_removed_while_playing_is_saved_again_and_said_so(tmp_path, whole_folder):
    """The file (or the games folder) removed during play: "was written by another session ..., and is kept as
    it is; this game goes on in a copy, <the same name>", three claims none of them true."""
    game, files, folder = _autosaved_game(tmp_path)
    path = files.autosave
    if whole_folder:
        shutil.rmtree(folder)
    else:
        path.unlink()
    game.push("d")
    said = files.after_change()
    assert said == [f"{path} was removed since this one saved it: the game is saved there again."]
    assert files.autosave == path and [str(m) for m in load_record(path).moves] == ["d", "d"]


def test_a_game_file_swapped_for_a_link_to_itself_is_not_said_to_be_removed(tmp_path):
    """The file replaced by a link that leads round to itself: "was removed since this one saved it", where a
    link stood in its place."""
    game, files, folder = _autosaved_game(tmp_path)
    path = files.autosave
    path.unlink()
    path.symlink_to(path)
    game.push("d")
    said = files.after_change()
    assert len(said) == 1 and said[0].startswith(f"{path} was replaced by a link that leads to no file since this "
                                                 "one saved it: the game is saved again, in ")
    assert files.autosave != path and [str(m) for m in load_record(files.autosave).moves] == ["d", "d"]


def test_two_sessions_saving_the_same_game_at_once_take_turns_so_one_goes_on_in_a_copy(tmp_path, monkeypatch):
    """The check that the file is as this session left it and the write went apart: the other session could
    write between them, and both said "saved" while the file held one of the two moves (13 of 20 trials of
    two real processes). The folder's lock makes them one step: the second sees the first's write."""
    import threading
    import time

    from tutor.cli import saves
    from tutor.record import Game

    folder = tmp_path / "games"
    folder.mkdir()
    path = folder / "game.json"
    save_record(Record(RULES, deal_for(1, RULES), ["d"] * 5), path)  # then w and d are both legal
    games = [Game.from_record(load_record(path)) for _ in range(2)]
    files = [saves.GameFiles(g, folder, "deal-1", resumed=path) for g in games]
    said: dict[int, list[str]] = {}
    checked = saves.GameFiles._changed_elsewhere

    def slow_check(self, where):  # session 0 checks, then session 1 tries to save before 0 writes
        changed = checked(self, where)
        if self is files[0] and not threads:
            other = threading.Thread(target=lambda: said.__setitem__(1, files[1].after_change()))
            threads.append(other)
            other.start()
            time.sleep(0.3)
        return changed

    threads: list[threading.Thread] = []
    monkeypatch.setattr(saves.GameFiles, "_changed_elsewhere", slow_check)
    games[0].push("w")
    games[1].push("d")
    said[0] = files[0].after_change()
    for t in threads:
        t.join(10)
    assert said[0] == [] and [str(m) for m in load_record(path).moves] == ["d"] * 5 + ["w"]
    assert files[1].autosave != path and "was written by another session (or program)" in said[1][0]
    assert [str(m) for m in load_record(files[1].autosave).moves] == ["d"] * 6


def test_a_data_folder_that_is_a_file_is_named_as_such(tmp_path):
    """OSMOSIS_HOME set to a file: games says no game can be saved there (not "osmosis play starts one"), and
    a lesson's progress warning says which file stands in the way (not "File exists")."""
    from builders import osmosis

    home = tmp_path / "homefile"
    home.write_text("")
    listed = osmosis(["games"], home)
    assert " ".join(listed.stdout.split()) == (f"No saved games: {home / 'games'} cannot be a folder, since {home} is a file (set "
                             "OSMOSIS_HOME to a writable folder).")
    lesson = osmosis(["lesson", "layout"], home, input="q\n")
    assert (f"warning: progress not saved to '{home / 'progress.json'}': '{home}' is a file, not a folder (set "
            "OSMOSIS_HOME to a writable folder)") in lesson.stderr


def test_no_output_file_goes_over_the_tutors_own_data(run, home, tmp_path):
    """The history database (any SQLite file, a survey store too), its journal and the lessons' progress are
    never an export, a graph or per-deal lines: each refusal is one line, and the data is kept."""
    assert run(["history"]).exit_code == 0
    db = home / "history.sqlite3"
    progress = home / "progress.json"
    progress.write_text('{"format": "osmosis-progress/1", "lessons": {}}', encoding="utf-8")
    wal = home / "history.sqlite3-wal"
    wal.write_bytes(b"")
    for target, kind in ((db, "an SQLite database (the history or a survey store)"),
                         (progress, "the lessons' progress file"),
                         (wal, "a journal file of an SQLite database")):
        before = target.read_bytes()
        for args, what in ((["export", str(target)], "the export"),
                           (["solve", "1", "--graph", str(target), "--graph-nodes", "20"], "the graph"),
                           (["stats", "--deals", "1-2", "--policy", "greedy", "--workers", "1",
                             "--per-deal", str(target)], "the per-deal lines")):
            result = run(args)
            assert result.exit_code == 1, args
            assert result.stderr == f"error: '{target}' is {kind} and is kept as it is: write {what} to another file\n"
        assert target.read_bytes() == before
    assert run(["history", "--json"]).exit_code == 0


def test_a_failed_survey_leaves_the_earlier_per_deal_file_as_it_was(run, tmp_path):
    """The per-deal lines go to a temporary file renamed over the name only when the survey has finished."""
    out = tmp_path / "per.jsonl"
    args = ["stats", "--deals", "1-3", "--policy", "greedy", "--workers", "1", "--per-deal", str(out)]
    assert run(args).exit_code == 0
    before = out.read_bytes()
    assert len(before.splitlines()) == 3
    failed = run(["stats", "--deals", "4-9", "--policy", "greedy", "--per-deal", str(out), "--scheduler", "foo"])
    assert failed.exit_code == 1 and "the scheduler address 'foo' is not a host and port" in failed.stderr
    assert out.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temporary file left behind
    assert run(["stats", "--deals", "4-5", "--policy", "greedy", "--workers", "1", "--per-deal", str(out)]).exit_code == 0
    assert len(out.read_bytes().splitlines()) == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_never_blocks_a_command(run, home, tmp_path):
    """A pipe named x.json in the games folder, or given as a record, with no writer: every command answers
    at once (the folder's import leaves it out; a record read ends at its empty end) instead of waiting."""
    (home / "games").mkdir(parents=True, exist_ok=True)
    os.mkfifo(home / "games" / "x.json")
    pipe = tmp_path / "p.json"
    os.mkfifo(pipe)
    results: dict[str, object] = {}

    def go() -> None:
        results["history"] = run(["history"])
        results["review"] = run(["review", str(pipe)])
        results["import"] = run(["import", str(pipe)])

    worker = threading.Thread(target=go, daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "a command blocked on a named pipe"
    assert results["history"].exit_code == 0
    result = results["review"]
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "Traceback" not in result.output
    result = results["import"]  # nothing in it, as in an export of a history with no game: nothing to import
    assert result.exit_code == 0 and "holds no game" in result.stdout and not result.stderr


OUTPUTS = (
    (["solve", "1", "--graph", "{}", "--graph-nodes", "20"], "the graph", "graph.graphml"),
    (["stats", "--variant", "osmosis", "--deals", "1-2", "--policy", "greedy", "--workers", "1", "--per-deal", "{}"],
     "the per-deal lines", "deals.jsonl"),
    (["review", "{rec}", "--annotate", "{}", "--samples", "4"], "the annotated record of this game", "out.json"),
    (["export", "{}"], "the export", "history.jsonl"),
)


@pytest.mark.parametrize("args,what,example", OUTPUTS)
def test_every_output_refuses_a_name_ending_in_a_slash_or_an_empty_name(run, home, tmp_path, args, what, example):
    rec = tmp_path / "rec.json"
    save_record(Record(RULES, deal_for(1, RULES), ["d", "d"]), rec)
    folder = tmp_path / "nd"
    result = run([a.replace("{}", f"{folder}/").replace("{rec}", str(rec)) for a in args])
    assert result.exit_code == 1 and result.stderr == (f"error: '{folder}/' names a folder, not a file: give a "
                                                       f"file name, like {folder}/{example}\n")
    assert not folder.exists()
    result = run([a.replace("{}", "").replace("{rec}", str(rec)) for a in args])
    assert result.exit_code == 1 and result.stderr == (f"error: an empty file name was given for {what}: give a "
                                                       f"file name, like {example}\n")


def test_the_survey_store_refuses_a_name_ending_in_a_slash(run, home, tmp_path):
    result = run(["stats", "--deals", "1-2", "--policy", "greedy", "--workers", "1", "--store", f"{tmp_path}/z/"])
    assert result.exit_code == 1 and "names a folder, not a file" in result.stderr
    assert not (tmp_path / "z").exists()


@pytest.mark.parametrize("damage", ["bom", "annotation"])
@pytest.mark.parametrize("args,what,example", OUTPUTS[:3])
def test_a_hand_edited_finished_game_that_does_not_load_is_never_written_over(run, home, tmp_path, args, what,
                                                                                example, damage):
    moves, final = greedy_line(1)
    assert final.over
    path = tmp_path / "edited.json"
    data = Record(RULES, deal_for(1, RULES), moves).to_json()
    if damage == "annotation":
        data["annotations"] = [{"tags": "x"}]
    path.write_bytes((b"\xef\xbb\xbf" if damage == "bom" else b"") + json.dumps(data).encode())
    before = path.read_bytes()
    other = tmp_path / "other.json"
    save_record(Record(RULES, deal_for(4, RULES), ["d"]), other)
    result = run([a.replace("{}", str(path)).replace("{rec}", str(other)) for a in args])
    assert result.exit_code == 1 and "is kept as it is" in result.stderr, result.stderr
    assert path.read_bytes() == before


def test_a_byte_order_mark_is_no_part_of_a_file(run, home, tmp_path):
    moves, _ = greedy_line(23)
    rec = tmp_path / "bom.json"
    rec.write_bytes(b"\xef\xbb\xbf" + Record(RULES, deal_for(23, RULES), moves).dumps().encode())
    assert load_record(rec).moves == Record(RULES, deal_for(23, RULES), moves).moves
    assert run(["replay", str(rec)]).exit_code == 0
    deal = tmp_path / "deal.json"
    deal.write_bytes(b"\xef\xbb\xbf" + run(["deal", "5", "--json"]).stdout.encode())
    shown = run(["deal", "--deal-file", str(deal)])
    assert shown.exit_code == 0 and shown.stdout.split("\n")[1:] == run(["deal", "5"]).stdout.split("\n")[1:]


def test_a_huge_word_in_an_error_is_cut_to_a_readable_line(run, home, tmp_path):
    data = json.loads(run(["deal", "5", "--json"]).stdout)
    data["base"] = "Q" * 100_000
    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps(data))
    result = run(["deal", "--deal-file", str(deal)])
    assert result.exit_code == 1 and len(result.stderr) < 400 and result.stderr.count("\n") == 1
    assert "...' (100000 characters): expected a rank" in result.stderr


def test_a_save_keeps_the_old_files_mode_and_a_new_file_gets_the_umasks(tmp_path):
    """mkstemp makes its file 0600, and the rename used to carry that over: an export came out -rw------- and
    a review --annotate turned a 0664 record into 0600."""
    old = os.umask(0o022)
    try:
        path = tmp_path / "r.json"
        atomic_write_text(path, "one")
        assert (path.stat().st_mode & 0o777) == 0o644
        path.chmod(0o664)
        atomic_write_text(path, "two")
        assert (path.stat().st_mode & 0o777) == 0o664 and path.read_text() == "two"
        made = create_new_file(tmp_path, "game", ".json", "{}")
        assert (made.stat().st_mode & 0o777) == 0o644
    finally:
        os.umask(old)


def test_a_relative_xdg_data_home_is_ignored_as_the_xdg_specification_says(monkeypatch, tmp_path):
    from tutor.storage import data_dir

    monkeypatch.delenv("OSMOSIS_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "reldata")
    assert data_dir() == tmp_path / ".local" / "share" / "osmosis-tutor"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "osmosis-tutor"


def _read_only_for(prefix: list[str], home: Path, folder: Path) -> dict:
    """``home`` readable by the other user and writable only by root; the child's environment."""
    for path in [home, *home.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    probe = subprocess.run(prefix + ["true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot switch user here: {probe.stderr.decode(errors='replace').strip()}")
    return {**child_env(home), "HOME": str(folder)}


def test_a_read_only_data_folder_with_a_history_from_an_older_osmosis_is_read_too(tmp_path, monkeypatch):
    """An older schema is brought up to date in a copy in memory: the file needs no write to be read."""
    from tutor.history.db import History
    from tutor.history.games import add_record

    prefix = _setpriv()
    folder = Path(tempfile.mkdtemp(prefix="osmosis-ro-old-"))
    try:
        folder.chmod(0o755)
        home = folder / "home"
        monkeypatch.setenv("OSMOSIS_HOME", str(home))
        old = History(home / "history.sqlite3", upgrade_to=4)  # drills, before reviews knew their content
        add_record(old, Record(RULES, deal_for(3, RULES), ["d", "d"]), key="games/a.json")
        rules = preset("peek").with_options(reserve_piles=0)
        add_record(old, Record(rules, deal_for(4, rules), ["d"]), key="games/b.json")
        old.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        old.close()
        before = (home / "history.sqlite3").read_bytes()
        env = _read_only_for(prefix, home, folder)
        shown = subprocess.run(prefix + OSMOSIS + ["history", "--json"], capture_output=True, text=True, env=env,
                               timeout=60)
        assert shown.returncode == 0, shown.stderr
        data = json.loads(shown.stdout)
        assert data["games"] == 2
        assert shown.stderr.startswith("warning: your history") and "cannot be written here" in shown.stderr
        assert "bridesmaids" in shown.stdout  # filed as the upgrade files it, in the copy
        for command in (["export"], ["drill", "--list"], ["coach", "--no-review"]):
            done = subprocess.run(prefix + OSMOSIS + command, capture_output=True, text=True, env=env, timeout=60)
            assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)
        assert (home / "history.sqlite3").read_bytes() == before  # the file as it was
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_read_only_data_folder_still_lets_the_history_be_read_and_exported(tmp_path):
    prefix = _setpriv()
    folder = Path(tempfile.mkdtemp(prefix="osmosis-ro-home-"))
    try:
        folder.chmod(0o755)
        home = folder / "home"
        made = subprocess.run(OSMOSIS + ["play", "3"], input="d\nd\nq\n", capture_output=True, text=True,
                              env=child_env(home), timeout=60)
        assert made.returncode == 0, made.stderr
        env = _read_only_for(prefix, home, folder)
        shown = subprocess.run(prefix + OSMOSIS + ["history", "--json"], capture_output=True, text=True, env=env,
                               timeout=60)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["games"] == 1
        assert shown.stderr.startswith("warning: your history") and "cannot be written here" in shown.stderr
        exported = subprocess.run(prefix + OSMOSIS + ["export"], capture_output=True, text=True, env=env,
                                  timeout=60)
        assert exported.returncode == 0, exported.stderr
        assert len([line for line in exported.stdout.splitlines() if line.strip()]) >= 1
        for command in (["drill", "--list"], ["coach", "--no-review"], ["games"]):
            done = subprocess.run(prefix + OSMOSIS + command, capture_output=True, text=True, env=env, timeout=60)
            assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("length", [241, 242, 250])
def test_a_file_name_near_the_limit_is_saved_and_its_stale_temporary_files_found(tmp_path, length):
    """A legal name of 242-255 bytes could never be saved: the temporary name beside it (.NAME.XXXXXXXX.tmp)
    went past the file system's 255 bytes, and every autosave failed ("File name too long")."""
    from tutor.storage import remove_stale_temps, temp_prefix

    path = tmp_path / ("y" * (length - 5) + ".json")
    atomic_write_text(path, "one")
    atomic_write_text(path, "two")
    assert path.read_text() == "two" and sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    stale = tmp_path / f"{temp_prefix(path.name)}abcd1234.tmp"
    stale.write_text("left by a killed save")
    os.utime(stale, (time.time() - 2 * STALE_SECONDS, time.time() - 2 * STALE_SECONDS))
    assert remove_stale_temps(path) == [stale] and len(os.fsencode(stale.name)) <= 255


def test_an_annotated_record_is_checked_again_when_written(run, home, tmp_path, monkeypatch):
    """`review F --annotate F` checked F before the review (minutes) and wrote after: a session that played on
    in F meanwhile lost those moves to the older copy. Now the report is shown, F kept, and exit 1."""
    from tutor.cli import review as review_module

    moves, _ = greedy_line(23)
    path = tmp_path / "g.json"
    save_record(Record(RULES, deal_for(23, RULES), moves[:30]), path)
    longer = Record(RULES, deal_for(23, RULES), moves[:35])
    real = review_module.compute_review

    def meanwhile(*args, **kwargs):
        rev = real(*args, **kwargs)
        save_record(longer, path)  # another session played on in the file while the review ran
        return rev

    monkeypatch.setattr(review_module, "compute_review", meanwhile)
    result = run(["review", str(path), "--samples", "4", "--annotate", str(path)])
    assert result.exit_code == 1 and "holds a saved game (deal 23, 35 moves) and is kept as it is" in result.stderr
    assert len(load_record(path).moves) == 35 and "Review of deal 23" in result.stdout


def test_per_deal_lines_never_replace_a_game_saved_there_while_the_survey_ran(tmp_path):
    from tutor.cli.stats import PerDealFile

    path = tmp_path / "x.json"
    lines = PerDealFile(str(path))
    lines.stream.write('{"deal": 1}\n')
    moves, _ = greedy_line(23)
    save_record(Record(RULES, deal_for(23, RULES), moves), path)  # saved there while the survey ran
    before = path.read_bytes()
    with pytest.raises(RecordError) as info:
        lines.close(keep=True)
    assert path.read_bytes() == before
    kept = tmp_path / "x.per-deal.jsonl"
    assert kept.read_text() == '{"deal": 1}\n' and f"the per-deal lines are in {kept}" in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json", "x.per-deal.jsonl"]  # no temporary left


def test_a_survey_refused_its_per_deal_file_still_shows_its_figures(run, tmp_path, monkeypatch):
    """The refusal came out of the survey's clean-up: the figures of a finished survey were never printed."""
    from tutor.cli.stats import PerDealFile

    path = tmp_path / "x.jsonl.gz"
    real = PerDealFile.close

    def meanwhile(self, keep):
        save_record(Record(RULES, deal_for(3, RULES), []), path)  # a game saved there while the survey ran
        return real(self, keep)

    monkeypatch.setattr(PerDealFile, "close", meanwhile)
    result = run(["stats", "--deals", "1-3", "--workers", "1", "--per-deal", str(path), "--json"])
    assert result.exit_code == 1 and json.loads(result.stdout)["deals"] == 3
    kept = tmp_path / "x.per-deal.jsonl.gz"
    assert f"the per-deal lines are in {kept}" in result.stderr
    import gzip

    with gzip.open(kept, "rt") as lines:
        assert [json.loads(line)["deal"] for line in lines] == [1, 2, 3]
    assert kept.read_bytes()[10:10 + len(kept.name) - 3] == kept.name[:-3].encode()  # gunzip -N gives its name
