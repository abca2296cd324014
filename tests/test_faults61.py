"""Defects found at stop 61 by the audits of the help against the behaviour and of the advice's words, each
with the case that showed it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from tutor.deals import deal_for
from tutor.record import Record, save_record
from tutor.rules import preset


def _games(home: Path) -> dict[int, tuple[int, str]]:
    with sqlite3.connect(home / "history.sqlite3") as conn:
        return {i: (moves, source) for i, moves, source in conn.execute("SELECT id, moves, source FROM games")}


def _two_alike(run, home: Path, tmp_path: Path) -> Path:
    """Deal 5 played ``d d`` twice, the first game a minute earlier; the second saved to copy.json too."""
    assert run(["play", "5", "--plain"], input="d d\nq\n").exit_code == 0
    with sqlite3.connect(home / "history.sqlite3") as conn:  # the first game was played a while before
        conn.execute("UPDATE games SET played_at = '2026-01-01T10:00:00Z', started_at = '2026-01-01T09:59:00Z'")
    copy = tmp_path / "copy.json"
    assert run(["play", "5", "--plain", "--save", str(copy)], input="d d\nq\n").exit_code == 0
    assert {g: m for g, (m, _) in _games(home).items()} == {1: 2, 2: 2}
    return copy


def test_a_copy_resumed_goes_on_in_the_game_that_saved_it_not_an_older_one_played_alike(run, home, tmp_path):
    """Two games of deal 5 played move for move alike, the second saved with --save copy.json: resuming the
    copy went on in the first game's row (the oldest with the same moves), the README says the game it copied."""
    copy = _two_alike(run, home, tmp_path)
    assert run(["play", "--resume", str(copy), "--plain"], input="d\nq\n").exit_code == 0
    games = _games(home)
    assert games[1][0] == 2 and games[2] == (3, str(copy))


def test_a_review_of_a_copy_is_kept_on_the_game_that_saved_it(run, home, tmp_path):
    copy = _two_alike(run, home, tmp_path)
    assert run(["review", str(copy), "--samples", "4"]).exit_code == 0
    with sqlite3.connect(home / "history.sqlite3") as conn:
        assert [g for (g,) in conn.execute("SELECT game_id FROM reviews")] == [2]


def test_a_copy_written_before_the_later_game_stays_the_earlier_ones(home, tmp_path, monkeypatch):
    """The file's time decides: a copy last written before the second game was played is the first's."""
    import os

    from tutor.history.copies import nearest_copy
    from tutor.history.db import parse_iso
    from tutor.history.games import add_record, open_history

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    rules = preset("osmosis")
    rec = Record(rules, deal_for(5, rules), ["d", "d"])
    copy = tmp_path / "copy.json"
    save_record(rec, copy)
    with open_history() as h:
        a = add_record(h, rec, key="games/a.json", started_at="2026-01-01T09:59:00Z", played_at="2026-01-01T10:00:00Z")
        b = add_record(h, rec, key="games/b.json", started_at="2026-01-01T10:59:00Z", played_at="2026-01-01T11:00:00Z")
        os.utime(copy, (parse_iso("2026-01-01T10:30:00Z"),) * 2)
        assert nearest_copy(h, [a, b], copy) == a
        os.utime(copy, (parse_iso("2026-01-01T11:00:00Z"),) * 2)
        assert nearest_copy(h, [a, b], copy) == b
        os.utime(copy, (parse_iso("2026-01-01T09:00:00Z"),) * 2)  # before either began: the time tells nothing
        assert nearest_copy(h, [a, b], copy) == a and nearest_copy(h, [b], copy) == b  # (a restore set it back)
        on = add_record(h, Record(rules, deal_for(5, rules), ["d", "d", "d", "d"]), key="games/c.json",
                        started_at="2026-01-01T08:00:00Z", played_at="2026-01-01T08:30:00Z")
        assert on and nearest_copy(h, [a, b], copy) is None  # the first moves of a game begun before, gone on
        os.utime(copy, (parse_iso("2026-01-01T10:00:00Z") + 0.5,) * 2)  # a fine time: no grace needed
        assert nearest_copy(h, [a, b], copy) == a
        os.utime(copy, (parse_iso("2026-01-01T10:59:30Z"),) * 2)  # b begun, not yet this far: a, last played
        assert nearest_copy(h, [a, b], copy) == a
        assert nearest_copy(h, [a, b], tmp_path / "missing.json") == a  # no time to go by: the first, as before
        assert nearest_copy(h, [a, b], None) == a


@pytest.mark.parametrize("nodes", [1, 5, 200])
def test_solve_reports_no_more_positions_than_its_node_limit(run, nodes):
    """`solve 1 --nodes 5 --json` said "nodes": 6, and `--nodes 1` "2 positions searched"."""
    out = json.loads(run(["solve", "1", "--nodes", str(nodes), "--json"]).output)
    assert out["nodes"] == nodes and out["complete"] is False
    text = run(["solve", "1", "--nodes", str(nodes)]).output
    assert f"{nodes} position{'' if nodes == 1 else 's'} searched" in text


def test_a_solve_within_its_limit_reports_what_it_searched(run):
    out = json.loads(run(["solve", "1", "--json"]).output)
    assert out["complete"] is True and 1 < out["nodes"] < 1_000_000


@pytest.mark.parametrize("accuracy, interval, shown", [
    (32.5, (29.2, 32.5), "32.5 (29.2-32.5)"),  # read "(29-32)": the figure outside its own interval
    (49.1, (45.7, 49.1), "49.1 (45.7-49.1)"),
    (52.1, (50.3, 52.6), "52.1 (50-53)"),      # whole points where they hold the figure
    (96.5, (90.7, 96.5), "96.5 (90.7-96.5)"),
])
def test_the_history_table_never_shows_an_accuracy_outside_its_interval(accuracy, interval, shown):
    from tutor.cli.history_render import _accuracy_cell

    assert _accuracy_cell(accuracy, interval) == shown


def test_a_drop_interval_is_kept_finely_enough_to_be_rounded_as_the_review_rounds_it():
    """The review said "95%: 7.9 to 13.2" (from 7.8512) and the coach "7.8-13.2": the history kept 7.85, a
    float just below it, and rounded that again."""
    from tutor.cli.history_render import _ends
    from tutor.history.reviews import review_data

    move = SimpleNamespace(ply=3, move="r2", best="r3", label="mistake", tags=(), drop=10.5, win_before=0.3,
                           win_after=0.2, graded=True, comment="", candidates=(),
                           paired=SimpleNamespace(lo=0.078512, hi=0.132213, samples=512))
    rules = preset("osmosis")
    rev = SimpleNamespace(record=Record(rules, deal_for(43, rules), ["r1", "r2", "r2"]), moves=[move],
                          accuracy=50.0, graded=1, samples=512, thresholds={}, hindsight={})
    kept = review_data(rev)["moves"][0]["drop_interval"]
    assert kept == [7.8512, 13.2213]
    assert _ends(*kept) == "7.9-13.2"


def test_solve_json_gives_the_words_the_text_gives_for_a_loss(run):
    """After moves on a deal lost from the start, the text explained the deal's cycles ("Lost from the start")
    and the JSON only the position's own: `lost_words` carries the text's."""
    args = ["solve", "5", "--moves", "r3 r4 d w d w d w d d"]
    text = " ".join(run(args).output.split())
    said = json.loads(run([*args, "--json"]).output)["lost_words"]
    assert said["from_start"] is True and said["text"].startswith("Lost from the start: ")
    assert " ".join(said["text"].split()) in text
    assert "lost_words" not in json.loads(run(["solve", "4", "--json"]).output)  # a win: nothing to explain


def test_a_games_folder_that_cannot_be_read_is_not_taken_for_an_empty_one(run, home, monkeypatch):
    """With the games folder unreadable at the history's first open (a permission, a mount not there yet), the
    import saw no file and was marked done: its games never went into the history, and `osmosis games` said
    "No saved games yet". Now the import waits for a folder it can read, and `games` says what is wrong."""
    import os

    import tutor.storage
    from tutor.history.games import IMPORTED_FLAG, open_history

    assert run(["play", "3", "--plain"], input="d d\nq\n").exit_code == 0
    (home / "history.sqlite3").unlink()  # a history lost, to be rebuilt from the games folder
    for extra in ("-wal", "-shm"):
        (home / f"history.sqlite3{extra}").unlink(missing_ok=True)
    games = home / "games"
    real = os.listdir

    def refused(path="."):
        if Path(path) == games:
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(tutor.storage.os, "listdir", refused)
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    with open_history() as h:
        assert h.meta(IMPORTED_FLAG) is None and h.query("SELECT COUNT(*) FROM games")[0][0] == 0
    result = run(["games"])
    assert result.exit_code == 1
    assert "the games folder" in result.output and "cannot be read: Permission denied" in result.output
    monkeypatch.setattr(tutor.storage.os, "listdir", real)
    with open_history() as h:  # readable again: the game goes in
        assert h.meta(IMPORTED_FLAG) is not None and h.query("SELECT moves FROM games")[0][0] == 2


def test_a_history_read_as_it_is_keeps_the_newest_games_of_its_write_ahead_log(home, monkeypatch):
    """Where the history could only be read (no file handles left, a full disk), it was read with immutable=1,
    which leaves out the write-ahead log: history and export lost the newest games (a session killed before
    SQLite copied them into the file)."""
    import sqlite3 as sql

    from tutor.history import db as hdb
    from tutor.history.games import add_record, open_history
    from tutor.history.schema import database_as_it_is

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    rules = preset("osmosis")
    writer = open_history()
    add_record(writer, Record(rules, deal_for(1, rules), ["d"]), key="games/a.json")
    writer.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    add_record(writer, Record(rules, deal_for(2, rules), ["d", "d"]), key="games/b.json")  # in the log only
    path = home / "history.sqlite3"
    assert Path(f"{path}-wal").stat().st_size > 0
    frozen = sql.connect(f"file:{path}?immutable=1", uri=True)
    assert frozen.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1  # what was read before
    frozen.close()
    copy, missed = database_as_it_is(path)
    assert copy.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2 and not missed

    def refused(self, upgrade_to):
        raise sql.OperationalError("unable to open database file")

    monkeypatch.setattr(hdb.History, "_connect", refused)
    reader = hdb.History(path)
    assert reader.read_only and reader.query("SELECT COUNT(*) FROM games")[0][0] == 2
    assert "without what cannot be read" not in reader.warning
    reader.close()
    writer.close()


def test_a_write_ahead_log_that_cannot_be_copied_is_said_to_be_left_out(home, monkeypatch):
    import shutil
    import sqlite3 as sql

    from tutor.history import db as hdb
    from tutor.history.games import add_record, open_history

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    rules = preset("osmosis")
    writer = open_history()
    writer.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    add_record(writer, Record(rules, deal_for(2, rules), ["d"]), key="games/b.json")

    def full(*args, **kwargs):
        raise OSError(27, "File too large")

    def refused(self, upgrade_to):
        raise sql.OperationalError("unable to open database file")

    monkeypatch.setattr(shutil, "copyfile", full)
    monkeypatch.setattr(hdb.History, "_connect", refused)
    reader = hdb.History(home / "history.sqlite3")
    assert reader.read_only
    assert "without what cannot be read (the newest games, in its write-ahead log" in " ".join(reader.warning.split())
    reader.close()
    writer.close()


@pytest.mark.parametrize("module, app, call", [("tutor.board.play", "BoardApp", "run_board"),
                                              ("tutor.board.replay", "ReplayApp", "run_replay")])
def test_a_kill_closes_the_board_as_ctrl_c_does(monkeypatch, module, app, call):
    """`kill PID` (SIGTERM) ended the board or the viewer at once, the terminal left in the board's modes (the
    alternate screen, the mouse reported, no cursor). While they run, it is Ctrl-C's KeyboardInterrupt, which
    closes the app and puts the terminal back."""
    import importlib
    import signal

    if signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        pytest.skip("SIGTERM is already handled in this process")
    mod = importlib.import_module(module)
    during = []

    class App:
        def __init__(self, *args, **kwargs):
            pass

        def run(self):
            during.append(signal.getsignal(signal.SIGTERM))

    monkeypatch.setattr(mod, app, App)
    rules = preset("osmosis")
    first = Record(rules, deal_for(1, rules), []) if call == "run_replay" else SimpleNamespace(listener=None)
    getattr(mod, call)(first)
    (handler,) = during
    with pytest.raises(KeyboardInterrupt):
        handler(signal.SIGTERM, None)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # put back after


def test_a_copy_of_a_game_that_went_on_is_not_merged_into_a_later_game_played_alike(run, home, tmp_path):
    """Game A saved `s a.json` at move 2 and went on; game B, begun later, played the same two moves. Resuming
    a.json went on in B's row (the only one holding those two moves), and a review of a.json was stored on B."""
    copy = tmp_path / "a.json"
    assert run(["play", "1", "--plain"], input=f"d d\ns {copy}\nd d\nq\n").exit_code == 0
    with sqlite3.connect(home / "history.sqlite3") as conn:  # game A was played an hour before
        conn.execute("UPDATE games SET played_at = '2026-01-01T10:00:00Z', started_at = '2026-01-01T09:59:00Z'")
    import os

    from tutor.history.db import parse_iso

    os.utime(copy, (parse_iso("2026-01-01T10:00:00Z"),) * 2)
    assert run(["play", "1", "--plain"], input="d d\nq\n").exit_code == 0  # game B
    review = run(["review", str(copy), "--samples", "4"])
    assert "Not kept in your history: this file holds the first 2 of the 4 moves of game 1" in " ".join(
        review.output.split())
    assert run(["play", "--resume", str(copy), "--plain"], input="d\nq\n").exit_code == 0
    games = _games(home)
    assert games[1][0] == 4 and games[2][0] == 2  # neither set back nor merged
    assert len(games) == 3 and games[3] == (3, str(copy))  # the older copy played on as a game of its own


def test_the_folders_older_copy_of_a_game_played_on_in_a_backup_does_not_set_its_row_back(run, home, tmp_path):
    """`cp -p games/*.json bk/`, the game played on in bk's copy (5 moves), then the folder's older copy (2
    moves) resumed: play said it plays that copy on as a game of its own, yet the row went back to 3 moves
    and the 3 moves played in bk were lost from the history (the same file name was taken for the same file)."""
    import shutil

    assert run(["play", "1", "--plain"], input="d d\nq\n").exit_code == 0
    (own,) = (home / "games").glob("*.json")
    backup = tmp_path / "bk"
    backup.mkdir()
    shutil.copy2(own, backup / own.name)
    assert run(["play", "--resume", str(backup / own.name), "--plain"], input="d d d\nq\n").exit_code == 0
    assert _games(home)[1] == (5, str(backup / own.name))
    resumed = run(["play", "--resume", "1", "--plain"], input="d\nq\n")
    assert "plays this older copy on as a game of its own" in " ".join(resumed.output.split())
    games = _games(home)
    assert games[1] == (5, str(backup / own.name)) and games[2] == (3, str(own))


def test_a_data_folder_copied_whole_still_takes_its_files_for_its_games(run, home, tmp_path):
    """The same name is still the same game where the file elsewhere holds the same one (a data folder
    copied, ``cp -a``): reviewing or resuming the copied folder's file goes on in its row."""
    import shutil

    assert run(["play", "1", "--plain"], input="d d\nq\n").exit_code == 0
    other = tmp_path / "home2"
    shutil.copytree(home, other)
    env = {"OSMOSIS_HOME": str(other)}
    assert run(["play", "--resume", "1", "--plain"], input="d\nq\n", env=env).exit_code == 0
    with sqlite3.connect(other / "history.sqlite3") as conn:
        assert [m for (m,) in conn.execute("SELECT moves FROM games")] == [3]


@pytest.mark.parametrize("kind", ["dangling", "loop", "file"])
def test_a_data_folder_that_is_a_broken_link_or_a_file_is_said_so_not_file_exists(run, tmp_path, kind):
    """`OSMOSIS_HOME` a link to a missing folder, a link loop or a file: "cannot create the data folder ...:
    File exists", the same for all three."""
    odd = tmp_path / "odd"
    if kind == "dangling":
        odd.symlink_to(tmp_path / "nowhere")
    elif kind == "loop":
        odd.symlink_to(odd)
    else:
        odd.write_text("x")
    why = {"dangling": "is a link to", "loop": "is a symbolic link that loops", "file": "is a file, not a folder"}
    for args, stdin in ((["history"], None), (["play", "1", "--plain"], "d\nq\n"),
                        (["stats", "--deals", "1-2", "--policy", "greedy"], None)):
        out = " ".join(run(args, input=stdin, env={"OSMOSIS_HOME": str(odd)}).output.split())
        assert why[kind] in out and "File exists" not in out, (args, out)


def test_a_memory_limit_too_low_to_load_a_library_is_the_out_of_memory_line(monkeypatch, capsys):
    """`(ulimit -v 32000; osmosis deal 1)`: Python's traceback of "libsqlite3.so.0: failed to map segment from
    shared object" (an ImportError), as a command's modules load, outside the command's own handler."""
    import tutor.cli
    from tutor import entry

    def fails(error):
        def main():
            raise error
        return main

    monkeypatch.setattr(tutor.cli, "main", fails(ImportError("libsqlite3.so.0: failed to map segment from shared object")))
    with pytest.raises(SystemExit) as done:
        entry.run()
    assert done.value.code == 1
    assert capsys.readouterr().err == ("error: the command ran out of memory: raise the memory limit (ulimit -v) or "
                                       "free some memory, and run it again\n")
    monkeypatch.setattr(tutor.cli, "main", fails(MemoryError()))
    with pytest.raises(SystemExit):
        entry.run()
    monkeypatch.setattr(tutor.cli, "main", fails(ImportError("No module named 'rich'")))
    with pytest.raises(ImportError):  # a missing library is no memory limit
        entry.run()


def test_a_game_taken_back_to_its_start_is_not_exported_as_the_history_does_not_count_it(run, home, tmp_path):
    """`u 2` on a resumed two-move game: history said "No games in your history yet" and export "Exported 1
    game" (imported elsewhere, still no game there)."""
    assert run(["play", "1", "--plain"], input="d d\nq\n").exit_code == 0
    assert run(["play", "--resume", "last", "--plain"], input="u 2\nq\n").exit_code == 0
    assert "No games in your history yet" in run(["history"]).output
    out = tmp_path / "e.jsonl"
    result = run(["export", str(out)])
    assert result.exit_code == 0 and "Exported 0 games" in result.output and out.read_text() == ""


def test_the_coach_sends_the_player_to_the_copy_a_game_went_on_in(home, tmp_path, monkeypatch):
    """A game saved `s c.json` at move 6 and played on from c.json to move 9: the coach's example said
    `osmosis replay games/deal-33-....json --at 8`, a file of 6 moves ("there is no move 8")."""
    from tutor.history.coach import current_source
    from tutor.history.games import add_record, open_history

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    rules = preset("peek")
    games = home / "games"
    games.mkdir(parents=True)
    first = Record(rules, deal_for(33, rules), ["r2", "d", "d", "d", "d", "d"])
    whole = Record(rules, deal_for(33, rules), [*first.moves, "w", "w", "d"])
    save_record(first, games / "deal-33-20261207-100000.json")
    save_record(whole, tmp_path / "c.json")
    with open_history() as h:
        game_id = add_record(h, whole, key="games/deal-33-20261207-100000.json", source=str(tmp_path / "c.json"))
        assert current_source(h.game(game_id)) == str(tmp_path / "c.json")
        save_record(Record(rules, deal_for(7, rules), ["d"]), tmp_path / "c.json")  # the copy holds another game now
        assert current_source(h.game(game_id)) == str(games / "deal-33-20261207-100000.json")
        (tmp_path / "c.json").unlink()  # or is gone
        assert current_source(h.game(game_id)) == str(games / "deal-33-20261207-100000.json")
        # the folder moved (the stored name points at the old place, gone): the folder's file, as before
        save_record(first, games / "deal-33-20261207-110000.json")
        moved = add_record(h, first, key="games/deal-33-20261207-110000.json",
                           source="/gone/home/games/deal-33-20261207-110000.json")
        assert current_source(h.game(moved)) == str(games / "deal-33-20261207-110000.json")


def test_a_plain_copy_of_the_games_folder_imported_does_not_count_an_older_copy_twice(run, home, tmp_path):
    """Game saved `s copy.json` at move 2 and played on there; then `cp games/*.json bk/` (no -p: every file
    as new as the backup) and `osmosis import bk/*.json`: "Imported 1 game", two games for one."""
    import os
    import shutil
    import time

    copy = tmp_path / "copy.json"
    assert run(["play", "1", "--plain"], input=f"d d\ns {copy}\nq\n").exit_code == 0
    assert run(["play", "--resume", str(copy), "--plain"], input="d d\nq\n").exit_code == 0
    (own,) = (home / "games").glob("*.json")
    backup = tmp_path / "bk"
    backup.mkdir()
    shutil.copyfile(own, backup / own.name)
    later = time.time() + 3600  # the backup made an hour later
    os.utime(backup / own.name, (later, later))
    result = run(["import", str(backup / own.name)])
    assert "Imported 1 game" not in result.output, result.output
    assert {g: m for g, (m, _) in _games(home).items()} == {1: 4}


def test_a_file_played_on_as_a_game_of_its_own_is_not_listed_as_an_older_copy(run, home, tmp_path):
    """The folder's file of a game that went on in `s copy.json`, resumed (play: "plays this older copy on as a
    game of its own", a `#2` row), then the game played on in copy.json: `osmosis games` called the folder's
    file an older copy of it again, though the `#2` row holds exactly that file's game."""
    import json as js

    copy = tmp_path / "copy.json"
    assert run(["play", "1", "--plain"], input=f"d d\ns {copy}\nq\n").exit_code == 0
    assert run(["play", "--resume", str(copy), "--plain"], input="d d d\nq\n").exit_code == 0
    assert "as a game of its own" in " ".join(run(["play", "--resume", "1", "--plain"], input="d\nq\n").output.split())
    assert run(["play", "--resume", str(copy), "--plain"], input="w\nq\n").exit_code == 0
    listed = js.loads(run(["games", "--json"]).output)["games"]
    assert [(g["moves"], g.get("went_on")) for g in listed] == [(3, None)]
    again = run(["play", "--resume", "1", "--plain"], input="q\n")
    assert "older copy" not in again.output
    assert {g: m for g, (m, _) in _games(home).items()} == {1: 6, 2: 3}


def test_a_drill_retired_because_its_game_changed_says_so(run, home, monkeypatch):
    """Drills listed as due, then their moves taken back: `osmosis drill` retired them without a word and
    said "0 of 0 right." (the engine's own retirement is said)."""
    from test_history_db import _move, _review

    from tutor.history import drill as drills
    from tutor.history.games import add_record, open_history
    from tutor.history.reviews import store_review

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    rules = preset("osmosis")
    with open_history() as h:
        g = add_record(h, Record(rules, deal_for(1, rules), ["d", "d"]), key="g")
        store_review(h, g, _review([_move(2, "d", "w", "blunder", ["turned-past"], 60.0,
                                          cands=[{"move": "w", "win": 0.8, "samples": 24},
                                                 {"move": "d", "win": 0.2, "samples": 24}])]))
        assert drills.sync_drills(h) == 1
        add_record(h, Record(rules, deal_for(1, rules), ["d"]), key="g")  # move 2 taken back
    assert "turned-past" in run(["drill", "--list"]).output
    out = " ".join(run(["drill", "--count", "3"], input="w\n").output.split())
    assert "(Drill 1: move 2 of game 1 is no longer the one reviewed (moves were taken back or played another " \
           "way since); it is retired.)" in out and "0 of 0 right." in out


def test_a_copy_goes_on_in_its_own_game_when_a_game_alike_began_in_the_next_second(run, home, tmp_path):
    """`play 5 --save copy.json` (d d), at once `play 5` (d d) again, then `play --resume copy.json`: the
    second game, begun within a second of the copy, took the copy's moves (a second's grace let it in)."""
    copy = tmp_path / "copy.json"
    assert run(["play", "5", "--plain", "--save", str(copy)], input="d d\nq\n").exit_code == 0
    import os

    from tutor.history.db import parse_iso

    with sqlite3.connect(home / "history.sqlite3") as conn:  # the second game begins in the next second
        (began,) = conn.execute("SELECT started_at FROM games").fetchone()
    written = parse_iso(began) + 0.9
    os.utime(copy, (written, written))
    assert run(["play", "5", "--plain"], input="d d\nq\n").exit_code == 0
    with sqlite3.connect(home / "history.sqlite3") as conn:
        conn.execute("UPDATE games SET started_at = ?, played_at = ? WHERE id = 2",
                     (_iso(parse_iso(began) + 1),) * 2)
        conn.execute("UPDATE games SET played_at = ? WHERE id = 1", (began,))
    assert run(["play", "--resume", str(copy), "--plain"], input="d\nq\n").exit_code == 0
    assert {g: m for g, (m, _) in _games(home).items()} == {1: 3, 2: 2}


def test_a_copy_whose_time_was_set_back_is_still_its_games(run, home, tmp_path):
    """`--save c.json`, then `touch -d 2000-01-01 c.json` (a restore that set the times back) and `import
    c.json`: "Imported 1 game", a second game of one."""
    import os

    copy = tmp_path / "c.json"
    assert run(["play", "5", "--plain", "--save", str(copy)], input="d d\nq\n").exit_code == 0
    os.utime(copy, (946684800, 946684800))
    result = run(["import", str(copy)])
    assert "Imported 1 game" not in result.output and len(_games(home)) == 1


def _iso(t: float) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def test_a_kill_of_the_board_says_where_the_game_is_and_exits_130(run, monkeypatch, home):
    """A SIGTERM on the board (now a KeyboardInterrupt) printed only "interrupted"; the line mode's Ctrl-C says
    where the game is kept."""
    import tutor.board.play
    import tutor.cli.play

    def killed(session, symbols=True):
        raise KeyboardInterrupt

    monkeypatch.setattr(tutor.cli.play, "board_wanted", lambda console: True)
    monkeypatch.setattr(tutor.board.play, "run_board", killed)
    result = run(["play", "3"])
    assert result.exit_code == 130, result.output
    assert "interrupted" not in result.output
    assert result.output.endswith("No move was played, so no game file was written.\n")  # the quit's words


def test_too_many_open_files_is_said_as_the_limit_not_as_a_module_of_pythons(run, monkeypatch):
    """`ulimit -n 6; osmosis history`: "error: '/usr/lib/python3.11/calendar.py': Too many open files"."""
    import errno

    import tutor.cli.games

    def full(folder=None):
        raise OSError(errno.EMFILE, "Too many open files", "/usr/lib/python3.11/calendar.py")

    monkeypatch.setattr(tutor.cli.games, "saved_games", full)
    result = run(["games"])
    assert result.exit_code == 1
    assert "error: too many files are open at once for this command: raise the limit (ulimit -n, now" in result.output
    assert "calendar.py" not in result.output


def test_a_graph_too_large_for_the_memory_limit_is_one_line(run, tmp_path, monkeypatch):
    """`(ulimit -v 250000; osmosis solve 2 --graph g.graphml)`: 7-9 tracebacks, the out-of-memory handler running
    out of memory itself while the graph was still held."""
    import tutor.graph

    def too_big(state, limit):
        raise MemoryError

    monkeypatch.setattr(tutor.graph, "position_graph", too_big)
    result = run(["solve", "2", "--graph", str(tmp_path / "g.graphml"), "--graph-nodes", "100000"])
    assert result.exit_code == 1 and not (tmp_path / "g.graphml").exists()
    assert "error: the graph of 100000 positions did not fit in the memory this command may use: give a smaller " \
           "--graph-nodes, or raise the memory limit (ulimit -v)" in " ".join(result.output.split())


def test_pythons_own_calls_failing_under_a_memory_limit_are_the_out_of_memory_line(monkeypatch, capsys):
    import tutor.cli
    from tutor import entry

    def main():
        raise SystemError("<function Command.__call__> returned NULL without setting an exception")

    monkeypatch.setattr(tutor.cli, "main", main)
    with pytest.raises(SystemExit):
        entry.run()
    assert "ran out of memory" in capsys.readouterr().err

    def other():
        raise SystemError("something else")

    monkeypatch.setattr(tutor.cli, "main", other)
    with pytest.raises(SystemError):
        entry.run()


def test_a_history_warning_in_play_gives_a_reason_even_for_an_exception_that_says_nothing(home, monkeypatch):
    """Under `ulimit -v` play warned "the game could not be added to your history (); play goes on"."""
    from tutor.cli import history as chistory

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    said: list[str] = []

    def fails(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(chistory.hgames, "note_game", fails)
    rules = preset("osmosis")
    chistory.note_game(Record(rules, deal_for(1, rules), ["d"]), None, said.append)
    assert said == ["warning: the game could not be added to your history (out of memory); play goes on"]
