"""``osmosis games`` and ``play --resume last|N``; line mode stays for pipes and --plain."""

from __future__ import annotations

import json
import os
import time

from tutor.cli import play as cli_play
from tutor.cli.play import board_wanted
from tutor.deals import deal_for
from tutor.record import Record, load_record, save_record
from tutor.rules import preset


def _play(run, number, keys):
    return run(["play", str(number)], input=keys)


def test_games_lists_saved_games_newest_first_with_deal_variant_moves_and_result(run, home):
    _play(run, 1, "d d d d d w\nq\n")
    first = sorted((home / "games").glob("*.json"))[0]
    os.utime(first, (time.time() - 60, time.time() - 60))
    _play(run, 2, "d\nq\n")
    out = run(["games"]).stdout
    lines = [line for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert len(lines) == 2
    assert lines[0].split()[:3] == ["1", "2", "osmosis"] and "1 card, not finished" in lines[0]
    assert lines[1].split()[:3] == ["2", "1", "osmosis"] and " 6 " in lines[1] and "2 cards" in lines[1]
    assert "#" in out and "deal" in out and "variant" in out and "saved (UTC)" in out and "result" in out
    data = json.loads(run(["games", "--json"]).stdout)
    assert [g["deal"] for g in data["games"]] == [{"number": 2}, {"number": 1}]
    assert data["games"][1]["moves"] == 6 and data["games"][1]["cards"] == 2


def test_games_with_none_saved_says_so(run):
    result = run(["games"])
    assert result.exit_code == 0 and "No saved games yet" in result.stdout


def test_resume_last_and_resume_n_go_on_with_the_listed_game(run, home):
    _play(run, 1, "d d\nq\n")
    path = sorted((home / "games").glob("*.json"))[0]
    os.utime(path, (time.time() - 60, time.time() - 60))
    _play(run, 2, "d\nq\n")
    out = run(["play", "--resume", "2"], input="d\nq\n").stdout
    assert "Deal 1, osmosis" in out and "after move 2" in out
    assert [str(m) for m in load_record(path).moves] == ["d", "d", "d"]
    out = run(["play", "--resume", "last"], input="q\n").stdout
    assert "Deal 1, osmosis" in out and "after move 3" in out  # saved last, so now the newest

def test_last_skips_a_newer_file_that_cannot_be_read_and_a_number_names_it(run, home):
    _play(run, 7, "d\nq\n")
    good = sorted((home / "games").glob("*.json"))[0]
    os.utime(good, (time.time() - 60, time.time() - 60))
    (home / "games" / "broken.json").write_bytes(b"\xff\xfe")  # the newest file, and unreadable
    out = run(["play", "--resume", "last"], input="q\n").stdout
    assert "Deal 7, osmosis" in out and "after move 1" in out
    result = run(["play", "--resume", "1"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: saved game 1 cannot be resumed: record ") and "broken.json" in result.stderr


def test_review_and_replay_take_last_and_a_number_from_the_list(run, home):
    _play(run, 7, "d\nq\n")
    path = sorted((home / "games").glob("*.json"))[0]
    os.utime(path, (time.time() - 60, time.time() - 60))
    _play(run, 9, "d d\nq\n")
    out = run(["replay", "last", "--plain", "--no-review", "--all"]).stdout
    assert "Deal 9" in out or "deal 9" in out
    out = run(["replay", "2", "--plain", "--no-review", "--all"]).stdout
    assert "Deal 7" in out or "deal 7" in out
    data = json.loads(run(["review", "2", "--json", "--samples", "4", "--workers", "1"]).stdout)
    assert [m["move"] for m in data["moves"]] == ["d"]
    result = run(["review", "3"])
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: there is no saved game 3: expected 1 to 2 (osmosis games lists them)"
    result = run(["review", "nothing-here.json"])
    assert result.exit_code == 1 and "record 'nothing-here.json' does not exist" in result.stderr


def test_last_with_no_readable_game_says_so(run, home):
    (home / "games").mkdir(parents=True, exist_ok=True)
    (home / "games" / "broken.json").write_text("garbage")
    result = run(["review", "last"])
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("error: no saved game in ") and "1 file" in result.stderr


def test_resume_a_number_not_in_the_list_is_one_line_error(run, home):
    _play(run, 1, "d\nq\n")
    result = run(["play", "--resume", "5"])
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: there is no saved game 5: expected 1 to 1 (osmosis games lists them)"


def test_a_finished_game_resumed_opens_as_a_replay(run, home, tmp_path):
    from tutor.deals import deal_for
    from tutor.record import Record, save_record
    from tutor.rules import preset
    from tutor.state import State

    rules = preset("osmosis")
    deal = deal_for(1, rules)
    state, moves = State.initial(deal, rules), []
    while not state.over:
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    (home / "games").mkdir(parents=True)
    save_record(Record(rules, deal, moves), home / "games" / "deal-1-done.json")
    out = run(["play", "--resume", "last"], input="").stdout
    assert "That game is finished: Blocked:" in out and "It opens as a replay." in out
    assert "Replay of deal 1" in out and "Blocked:" in out


def test_line_mode_for_pipes_and_the_board_only_on_a_terminal(run, monkeypatch):
    import io

    from rich.console import Console

    out = run(["play", "1"], input="d\nq\n").stdout
    assert "move> " in out and "Stock 32" in out  # piped: today's line mode
    assert not board_wanted(Console(file=io.StringIO()))
    out = run(["play", "1", "--plain"], input="d\nq\n").stdout
    assert "move> " in out


def test_board_is_wanted_on_a_real_terminal_but_not_a_dumb_one(monkeypatch):
    import io
    import sys

    from rich.console import Console

    console = Console(file=io.StringIO(), force_terminal=True)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(cli_play, "_stderr_is_a_terminal", lambda: True)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert board_wanted(console)
    monkeypatch.setenv("TERM", "dumb")
    assert not board_wanted(console)


def test_no_board_when_stderr_is_no_terminal(monkeypatch):
    """Textual draws on stderr: `osmosis play 2>log` drew the whole board into the log and left the screen
    blank, the keys still playing moves unseen. Line mode instead."""
    import io
    import sys

    from rich.console import Console

    console = Console(file=io.StringIO(), force_terminal=True)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setattr(sys, "__stderr__", io.StringIO())
    assert not cli_play._stderr_is_a_terminal() and not board_wanted(console)


def test_resume_of_a_name_too_long_for_the_system_is_one_line(run):
    result = run(["play", "--resume", "x" * 5000])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    # the name cannot even be looked up: said as the system says it, not "does not exist"
    assert "cannot be read: File name too long" in result.stderr and "(5000 characters)" in result.stderr


def test_an_unreadable_file_is_listed_with_its_name_quoted_never_its_escape_codes(run, home):
    _play(run, 1, "d\nq\n")
    (home / "games" / "zz\x1b]0;x\x07.json").write_bytes(b"\xff")
    out = run(["games"]).stdout
    assert "\x1b" not in out and "\x07" not in out
    assert "unreadable: 'zz\\x1b]0;x\\x07.json'" in out


def test_an_unfinished_game_reviewed_says_its_hindsight_knows_the_cards_to_come(run, home):
    _play(run, 5, "d d\nq\n")
    report = " ".join(run(["review", "last", "--samples", "4"]).stdout.split())
    assert "the game was not finished. The hindsight below knows the cards this game has not shown yet" in report
    # the JSON says it too: it had the shape of a blocked game's, with no word of the cards to come
    data = json.loads(run(["review", "last", "--samples", "4", "--json"]).stdout)
    assert data["over"] is False and data["result"]["won"] is False and data["reveals_unseen"] is True


def test_a_finished_game_reviewed_is_over_and_reveals_nothing_to_come(run, tmp_path):
    from tutor.deals import deal_for
    from tutor.record import Record, save_record
    from tutor.rules import preset
    from tutor.state import State

    rules = preset("osmosis")
    final, moves = State.initial(deal_for(5, rules), rules), []
    while not final.over:  # the first legal move, to the end
        moves.append(final.legal_moves()[0])
        final = final.apply(moves[-1])
    path = tmp_path / "g.json"
    save_record(Record(rules, deal_for(5, rules), list(moves)), path)
    data = json.loads(run(["review", str(path), "--samples", "4", "--json"]).stdout)
    assert data["result"] == {"cards": final.cards, "won": final.won} and data["over"] is True
    assert data["reveals_unseen"] is False


def test_games_name_a_combination_of_options_by_its_options_and_no_reserve_open_is_bridesmaids(run, home):
    run(["play", "3", "--turn", "1", "--passes", "3"], input="d\nq\n")
    run(["play", "3", "--passes", "1", "--reserve-piles", "1"], input="d\nq\n")
    run(["play", "4", "--variant", "peek", "--reserve-piles", "0"], input="d\nq\n")
    out = run(["games"]).stdout
    assert "turn 1, 3 passes, 4 piles" in out and "turn 3, 1 pass, 1 pile " in out and "custom" not in out
    assert "bridesmaids" in out
    history = json.loads(run(["history", "--json"]).stdout)
    assert set(history["variants"]) >= {"bridesmaids"}
    text = run(["history"]).stdout
    assert "1 pass, 1 pile" in text and "1 passes" not in text and "1 piles" not in text


def test_an_old_record_of_no_reserve_with_open_reserve_loads_as_bridesmaids(tmp_path):
    from tutor.record import load_record

    path = tmp_path / "old.json"
    rules = preset("bridesmaids")
    data = Record(rules, deal_for(3, rules), ["d"]).to_json()
    data["variant"] = {"turn": 3, "passes": 0, "open_reserve": True, "reserve_piles": 0}
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_record(path).rules == rules and load_record(path).rules.name == "bridesmaids"


def test_the_json_date_is_utc_whatever_the_time_zone(home, tmp_path):
    import subprocess
    import sys

    folder = home / "games"
    folder.mkdir(parents=True)
    path = folder / "deal-6-20261205-083732.json"
    save_record(Record(preset("osmosis"), deal_for(6, preset("osmosis")), ["d"]), path)
    os.utime(path, (1_800_000_000, 1_800_000_000))
    dates = set()
    for zone in ("UTC", "America/New_York", "Asia/Kolkata"):
        env = {**os.environ, "OSMOSIS_HOME": str(home), "TZ": zone}
        done = subprocess.run([sys.executable, "-c", "from tutor.entry import run; run()", "games", "--json"],
                              capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        dates.add(json.loads(done.stdout)["games"][0]["date"])
    assert dates == {"2027-01-15T08:00:00Z"}


def test_a_folder_named_last_or_a_number_here_does_not_hide_the_list(run, tmp_path, monkeypatch):
    """With folders 'last' and '2' in the current folder, replay last and play --resume 2 said "record 'last'
    is a directory, not a record": the list's names are for files only (a file of that name still wins)."""
    assert run(["play", "5", "--plain"], input="d d\nq\n").exit_code == 0
    assert run(["play", "6", "--plain"], input="d\nq\n").exit_code == 0
    monkeypatch.chdir(tmp_path)
    (tmp_path / "last").mkdir()
    (tmp_path / "2").mkdir()
    replayed = run(["replay", "last", "--no-review"], input="")
    assert replayed.exit_code == 0 and replayed.stdout.startswith("Replay of deal 6"), replayed.output
    resumed = run(["play", "--resume", "2", "--plain"], input="q\n")
    assert resumed.exit_code == 0 and resumed.stdout.startswith("Deal 5"), resumed.output


def test_a_replay_of_an_unfinished_game_warns_as_its_review_does(run, tmp_path):
    """`replay` of a game not finished named a face-down card (5S under KS) with the hindsight verdict and no
    word that it knows cards the game has not shown, which `review` of the same record says."""
    record = {"format": "osmosis-record/1", "variant": {"turn": 1, "passes": 3}, "deal": {"number": 21},
              "moves": "r3 r3 d w d d d d w d d w d w w d d w d d".split()}
    path = tmp_path / "pre21.json"
    path.write_text(json.dumps(record))
    out = " ".join(run(["replay", str(path), "--all"]).stdout.split())
    warning = "The hindsight below knows the cards this game has not shown yet"
    assert warning in out and out.index(warning) < out.index("With hindsight (all cards known)")
    import io

    from rich.console import Console

    from tutor.board.replay import ReplayApp
    from tutor.cli.review import review_for_viewer
    from tutor.record import load_record

    annotated, rev = review_for_viewer(Console(file=io.StringIO()), load_record(path))
    app = ReplayApp(annotated, rev, symbols=True)
    assert any(warning in str(line) for line in app._note())


def test_the_viewer_opened_at_a_move_with_hindsight_warns_too(tmp_path):
    """`replay u45.json --at 53` opened the viewer on move 53, whose comment speaks with hindsight, with no word
    that the unfinished game's hindsight knows the cards it has not shown (the start screen had it)."""
    import io

    from rich.console import Console

    from tutor.board.replay import ReplayApp
    from tutor.cli.review import review_for_viewer
    from tutor.narrate.review import HINDSIGHT
    from tutor.record import load_record

    moves = ("r4 d w d d d d d d w d d d d d w d w d w d w w d w d d d d d d d d d d d d w r2 r2 r2 r2 d d w d w d "
             "d w d d w d d w d w d d").split()[:60]
    path = tmp_path / "u45.json"
    path.write_text(json.dumps({"format": "osmosis-record/1", "variant": {"turn": 1, "passes": 3},
                                "deal": {"number": 45}, "moves": moves}))
    annotated, rev = review_for_viewer(Console(file=io.StringIO()), load_record(path))
    assert rev is not None and rev.reveals_unseen()
    app = ReplayApp(annotated, rev, symbols=True)
    hind = [m.ply for m in rev.moves if HINDSIGHT in m.comment]
    assert hind
    for n in hind:
        app.ply = n
        assert any("The hindsight here knows the cards this game has not shown yet" in str(x) for x in app._note())
    plain = next(m.ply for m in rev.moves if HINDSIGHT not in m.comment)
    app.ply = plain
    assert not any("has not shown yet" in str(x) for x in app._note())


def test_a_game_file_removed_while_the_list_is_read_is_left_out_not_an_error(run, home, monkeypatch):
    """Another session removes a game's file (every move taken back) while osmosis games reads the folder: the
    stat of the vanished file ended the command with 'the output cannot be written' (exit 1)."""
    import tutor.cli.games as games_module

    rules = preset("osmosis")
    (home / "games").mkdir(parents=True, exist_ok=True)
    for n in (1, 2, 3):
        save_record(Record(rules, deal_for(n, rules), ["d"]), home / "games" / f"g{n}.json")
    real = games_module.load_record

    def racing(path):
        if path.name == "g2.json":
            path.unlink()  # gone between the folder's listing and its reading
        return real(path)

    monkeypatch.setattr(games_module, "load_record", racing)
    listed = games_module.saved_games(home / "games")
    assert {g.path.name for g in listed} == {"g1.json", "g3.json"} and [g.number for g in listed] == [1, 2]
    assert all(g.record is not None for g in listed)


def test_a_file_error_is_named_as_the_file_not_as_the_output(run, monkeypatch):
    """Any OSError that reached the top was said as 'the output cannot be written', a file gone meanwhile too."""
    import tutor.cli.games as games_module

    def gone(*args, **kwargs):
        raise FileNotFoundError(2, "No such file or directory", "/tmp/games/g2.json")

    monkeypatch.setattr(games_module, "saved_games", gone)
    result = run(["games"])
    assert result.exit_code == 1 and result.stderr == (
        "error: '/tmp/games/g2.json': No such file or directory (it was removed while the command ran: run the "
        "command again)\n")
