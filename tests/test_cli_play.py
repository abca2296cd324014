"""``osmosis deal``, ``play`` and ``replay`` through click's CliRunner, with piped input."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from builders import make_deal, osmosis

from tutor.deals import deal_for, save_deal
from tutor.notation import TURN, WASTE, Move
from tutor.record import Record, load_record, save_record
from tutor.rules import preset
from tutor.state import State


def greedy_line(number: int, rules: str = "osmosis") -> tuple[list[Move], State]:
    """Play the first legal move (plays come before the turn) until the game is over."""
    rules_ = preset(rules)
    state = State.initial(deal_for(number, rules_), rules_)
    moves = []
    while not state.over:
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    return moves, state


def autosaved(home: Path) -> Path:
    files = sorted((home / "games").glob("*.json"))
    assert len(files) == 1, files
    return files[0]


def assert_one_line_error(result, *words):
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]


# ---- deal ------------------------------------------------------------------
def test_deal_shows_the_base_card_and_reserve_tops_with_backs(run):
    result = run(["deal", "1"])
    assert result.exit_code == 0
    out = result.stdout
    assert "Base     2S" in out
    for line in ("r1  ▒▒ ▒▒ ▒▒ AD", "r2  ▒▒ ▒▒ ▒▒ QC", "r3  ▒▒ ▒▒ ▒▒ KH", "r4  ▒▒ ▒▒ ▒▒ 3H"):
        assert line in out
    assert "JD" not in out


def test_deal_reveal_shows_every_card(run):
    out = run(["deal", "1", "--reveal"]).stdout
    assert "JD 5D KD AD" in out
    assert "KS 9D QD" in out


def test_deal_json_is_the_deal_file(run):
    result = run(["deal", "1", "--json"])
    data = json.loads(result.stdout)
    assert set(data) == {"format", "reserves", "base", "talon"}
    assert data["format"] == "osmosis-deal/1"
    assert data["reserves"] == [["JD", "5D", "KD", "AD"], ["2D", "7H", "KC", "QC"],
                                ["9H", "7C", "9S", "KH"], ["JC", "5H", "5S", "3H"]]
    assert data["base"] == "2S"
    assert data["talon"][:4] == ["KS", "9D", "QD", "JS"]
    assert len(data["talon"]) == 35


def test_deal_json_of_a_deal_file_round_trips(run, tmp_path):
    deal = make_deal(["KS QS JS TS", "9S 8S 7S 6S", "5S 4S 3S 2S", "4H 3H 2H AH"], "AS")
    path = tmp_path / "deal.json"
    save_deal(deal, path)
    data = json.loads(run(["deal", "--deal-file", str(path), "--json"]).stdout)
    assert data == deal.to_json()


def test_deal_with_a_bad_card_in_the_file_is_one_line_and_exit_1(run, tmp_path):
    data = deal_for(1, preset("osmosis")).to_json()
    data["talon"][0] = "1X"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert_one_line_error(run(["deal", "--deal-file", str(path)]), "1X")


def test_deal_with_a_missing_deal_file_is_one_line_and_exit_1(run, tmp_path):
    assert_one_line_error(run(["play", "--deal-file", str(tmp_path / "nope.json")]), "nope.json")


def test_deal_number_that_is_not_a_number_is_one_line_and_exit_1(run):
    assert_one_line_error(run(["deal", "abc"]), "abc")


# ---- play ------------------------------------------------------------------
SCRIPT = "\n".join([
    "d",        # KS 9D QD
    "d",        # JS AS AH: AS is under AH
    "zz",       # not a move
    "7h",       # face down in pile 2: the error must not say where
    "r1",       # AD: diamonds have no row
    "d d",      # two turns on one line
    "u",        # take back the second of them
    "5c",       # 3C 4C 5C turned: 5C is on top, but clubs have no row
    "s",
    "q",
]) + "\n"


def test_scripted_game_with_errors_undo_and_save_replays_to_the_same_position(run, home, tmp_path):
    save = tmp_path / "game.json"
    result = run(["play", "1", "--save", str(save)], input=SCRIPT)
    assert result.exit_code == 0
    out = result.stdout
    assert "unknown move 'zz'" in out
    assert "7H cannot be played now: it is not on top of a reserve pile or the waste" in out
    assert "reserve pile 2" not in out.split("7H cannot be played now")[1].splitlines()[0]
    assert "r1 is not possible: AD cannot be played" in out
    assert "Took back 1 move (d)." in out
    assert "5C cannot be played now: it is on top of the waste" in out
    assert f"Saved to {save}." in out
    record = load_record(save)
    assert [str(m) for m in record.moves] == ["d", "d", "d"]
    expected = State.initial(deal_for(1, preset("osmosis")), preset("osmosis")).play("d d d".split())
    assert record.replay() == expected
    # The autosave holds the same game.
    assert load_record(autosaved(home)).moves == record.moves


def test_play_says_where_the_autosave_is_and_keeps_it_at_end_of_input(run, home):
    result = run(["play", "1"], input="d\nd\n")  # no q: the input just ends
    assert result.exit_code == 0
    path = autosaved(home)
    assert f"saved as you play in {path}" in result.stdout.replace("\n", " ")
    assert [str(m) for m in load_record(path).moves] == ["d", "d"]
    assert "The game is saved in" in result.stdout


def test_card_names_play_the_card_in_any_spelling(run, home):
    deal = make_deal(["JD 5D KD 3S", "2D 7H KC TS", "9H 7C QD KH", "JC 5H 5S 3H"], "2S")
    path = home.parent / "deal.json"
    save_deal(deal, path)
    result = run(["play", "--deal-file", str(path)], input="3s\n10♠\n")
    assert result.exit_code == 0
    assert "Move 1: r1 3S" in result.stdout
    assert "Move 2: r2 TS" in result.stdout


def test_undo_goes_back_to_the_start_and_no_further(run, home):
    result = run(["play", "1"], input="d\nd\nu 5\nu\n")
    out = result.stdout
    assert "Took back 2 moves (d d): every move, back to the start." in out
    assert "Nothing to undo: this is the start of the game." in out
    assert not list((home / "games").glob("*.json"))  # every move taken back: no file left, as if never begun


def test_a_typo_anywhere_in_a_line_plays_none_of_it_and_a_refused_move_says_what_went_before(run, home):
    result = run(["play", "12"], input="d d x\nd d 9h\nq\n")
    out = result.stdout
    assert "unknown move 'x'" in out and "nothing of the line was played" in out
    assert "9H cannot be played now" in out and "(played before it: d d)" in out
    assert [str(m) for m in load_record(autosaved(home)).moves] == ["d", "d"]


def test_r_in_line_mode_says_redo_is_the_boards(run, home):
    out = run(["play", "12"], input="d\nu\nr\nq\n").stdout
    assert "r (redo) is a key of the board; here, after u, type the move again." in out
    assert "unknown move 'r'" not in out


def test_an_undo_with_a_word_or_two_counts_is_refused_whole_and_takes_nothing_back(run, home):
    result = run(["play", "1"], input="d\nd\nu u u\nu 1 2\nu 0\nu -1\nq\n")
    out = result.stdout
    assert "'u u u' is not an undo: expected u, or u and a number of moves of at least 1, like u 3" in out
    for bad in ("'u 1 2'", "'u 0'", "'u -1'"):  # one message for every count that is not one
        assert f"{bad} is not an undo: expected u, or u and a number of moves of at least 1, like u 3" in out
    assert "Took back" not in out
    assert [str(m) for m in load_record(autosaved(home)).moves] == ["d", "d"]


def test_play_without_a_number_picks_a_random_deal_and_says_which(run, home):
    result = run(["play"], input="d\nq\n")
    match = re.search(r"Deal (\d+) \(a random deal", result.stdout)
    assert match
    record = load_record(autosaved(home))
    assert record.deal.number == int(match.group(1))


def test_help_lists_the_commands(run):
    out = run(["play", "1"], input="?\nq\n").stdout
    for word in ("r1-r4", "undo", "hint", "save", "quit"):
        assert word in out


def test_help_offers_only_the_reserve_piles_the_game_has(run):
    """Bridesmaids (no reserve) and --reserve-piles 2: the help offered r1-r4, and r1 was then refused; the
    board's key line and help screen likewise offered keys 1-4."""
    from tutor.board.screens import keys_for, play_keys

    none = run(["play", "1", "--variant", "bridesmaids"], input="?\nq\n").stdout
    assert "Moves:  w      play the waste's top card" in none and "r1" not in none and "reserve pile" not in none
    two = run(["play", "1", "--reserve-piles", "2"], input="?\nq\n").stdout
    assert "Moves:  r1-r2  play the top card of a reserve pile" in two and "r1-r4" not in two
    assert keys_for(0)[0] == "w waste" and keys_for(2)[0] == "1-2 reserve" and keys_for(4)[0] == "1-4 reserve"
    assert play_keys(0).startswith("w ") and play_keys(2).startswith("1-2      play the top card of reserve pile 1-2")
    assert "r2" not in play_keys(0) and "reserve" not in play_keys(0) and "r2" not in play_keys(1)


def test_a_won_game_says_so(run, home):
    moves, final = greedy_line(23)
    assert final.won
    result = run(["play", "23"], input="\n".join(map(str, moves)) + "\n")
    assert "Won! All 52 cards are on the foundations." in result.stdout
    record = load_record(autosaved(home))
    assert record.to_json()["result"] == {"cards": 52, "won": True}


def test_a_blocked_game_gives_the_score(run, home):
    moves, final = greedy_line(1)
    assert final.blocked and final.score < 40
    result = run(["play", "1"], input="\n".join(map(str, moves)) + "\n")
    assert f"Blocked: {final.score} cards on the foundations" in result.stdout
    assert "well played" not in result.stdout


def test_a_blocked_game_with_40_cards_is_called_well_played(run):
    moves, final = greedy_line(18)
    assert final.blocked and final.score >= 40
    result = run(["play", "18"], input=" ".join(map(str, moves)) + "\n")
    assert f"Blocked: {final.score} cards on the foundations" in result.stdout
    assert "well played" in result.stdout


def _other_move_back(moves: list[Move], number: int) -> tuple[int, Move]:
    """The latest ply of the greedy line where another legal move than the one played could be made."""
    rules = preset("osmosis")
    states = [State.initial(deal_for(number, rules), rules)]
    for move in moves:
        states.append(states[-1].apply(move))
    for ply in range(len(moves) - 1, -1, -1):
        other = [m for m in states[ply].legal_moves() if m != moves[ply]]
        if other:
            return ply, other[0]
    raise AssertionError("the line has no choice")


def test_undo_after_the_end_writes_nothing_while_the_finished_file_holds_every_move(run, home):
    moves, final = greedy_line(1)
    result = run(["play", "1"], input=" ".join(map(str, moves)) + "\nu 3\n" + str(moves[-3]) + "\nq\n")
    assert "Blocked" in result.stdout and "Took back 3 moves" in result.stdout
    finished = autosaved(home)  # no copy: it would only repeat the start of the finished game
    before = finished.read_bytes()
    assert len(load_record(finished).moves) == len(moves)
    out = result.stdout.replace("\n", " ")
    assert f"{finished} keeps it as it was, with the moves taken back" in out
    assert (f"You stopped at move {len(moves) - 2} of the finished game that {finished} keeps "
            f"({len(moves)} moves); nothing new was played, so no other file was written.") in out
    assert result.exit_code == 0
    listed = run(["history", "--json"])
    assert [g["moves"] for g in json.loads(listed.stdout)["recent"]] == [len(moves)]  # one game, not two
    assert finished.read_bytes() == before


def test_resuming_a_finished_game_with_save_says_the_copy_it_wrote(run, home, tmp_path):
    """--resume won.json --save cp.json, u, q: cp.json was written with the finished game when the game opened,
    and the last line said "nothing new was played, so no other file was written"."""
    moves, final = greedy_line(1)
    done = tmp_path / "done.json"
    run(["play", "1", "--save", str(done)], input=" ".join(map(str, moves)) + "\nq\n")
    copy = tmp_path / "cp.json"
    out = run(["play", "--resume", str(done), "--save", str(copy)], input="u\nq\n").stdout.replace("\n", " ")
    assert load_record(copy).moves == moves
    assert (f"You stopped at move {len(moves) - 1} of the finished game that {done} keeps ({len(moves)} moves); "
            f"nothing new was played, and {copy} holds a copy of it.") in out
    assert "no other file was written" not in out


def test_undoing_the_end_of_a_new_game_with_save_names_its_copy_without_saying_when_it_was_written(run, home,
                                                                                                    tmp_path):
    """A new game won with --save, u, q: the copy is written at the end, yet the line said it was "written when
    the game opened" (true only of a finished game resumed with --save)."""
    moves, final = greedy_line(1)
    copy = tmp_path / "x.json"
    out = run(["play", "1", "--save", str(copy)], input=" ".join(map(str, moves)) + "\nu\nq\n").stdout
    out = out.replace("\n", " ")
    assert load_record(copy).moves == moves
    assert f"nothing new was played, and {copy} holds a copy of it." in out and "written when" not in out


def test_a_new_move_after_undoing_the_end_goes_on_in_a_copy_and_keeps_the_finished_file(run, home):
    moves, final = greedy_line(1)
    ply, other = _other_move_back(moves, 1)
    back = len(moves) - ply
    result = run(["play", "1"], input=" ".join(map(str, moves)) + f"\nu {back}\n{other}\nq\n")
    finished, copy = sorted((home / "games").glob("*.json"), key=lambda p: load_record(p).moves == moves,
                            reverse=True)
    assert load_record(finished).moves == moves
    assert load_record(copy).moves == [*moves[:ply], other]
    out = result.stdout.replace("\n", " ")
    assert f"A move {finished} does not hold: the game goes on in a copy, {copy}." in out
    assert f"The game is saved in {copy}" in out


def test_s_after_undoing_the_end_saves_a_copy(run, home):
    moves, final = greedy_line(1)
    result = run(["play", "1"], input=" ".join(map(str, moves)) + "\nu\ns\nq\n")
    finished, copy = sorted((home / "games").glob("*.json"), key=lambda p: len(load_record(p).moves), reverse=True)
    assert len(load_record(finished).moves) == len(moves)
    assert len(load_record(copy).moves) == len(moves) - 1
    out = result.stdout.replace("\n", " ")
    assert f"{finished} keeps the finished game, so the game as it is now goes to a copy, {copy}." in out
    assert f"Saved to {copy}." in out and f"A move {finished} does not hold" not in out


# ---- replay ----------------------------------------------------------------
def _record(tmp_path, moves: str, annotations=None) -> Path:
    rules = preset("osmosis")
    record = Record(rules, deal_for(1, rules), [Move.parse(m) for m in moves.split()], annotations or [])
    path = tmp_path / "record.json"
    save_record(record, path)
    return path


def test_replay_all_prints_every_move_with_its_card_and_the_final_position(run, tmp_path):
    moves, final = greedy_line(1)
    path = _record(tmp_path, " ".join(map(str, moves)))
    out = run(["replay", str(path), "--all"]).stdout
    assert "Move 1: d turn" in out
    assert f"Move {len(moves)}: " in out
    first_play = next(i for i, m in enumerate(moves) if m.is_play)
    assert re.search(rf"Move {first_play + 1}: {moves[first_play]} \w\w", out)
    assert f"Blocked: {final.score} cards on the foundations" in out
    assert out.count("Score ") == len(moves) + 1


def test_replay_steps_on_enter_and_stops_on_q(run, tmp_path):
    path = _record(tmp_path, "d d d d")
    out = run(["replay", str(path)], input="\n\nq\n").stdout
    assert "Move 2: d turn" in out
    assert "Move 3" not in out
    assert "Stopped after move 2 of 4." in out


def test_replay_shows_the_annotation_comments(run, tmp_path):
    note = {"label": "mistake", "tags": ["turned-past"], "comment": "The 4H was playable."}
    path = _record(tmp_path, "d d", [None, note])
    out = run(["replay", str(path), "--all"]).stdout
    assert "mistake [turned-past]: The 4H was playable." in out


def test_replay_computes_the_review_and_prints_its_summary_under_the_heading(run, tmp_path):
    path = _record(tmp_path, "d d d d d d")  # no annotations: the review is computed for the replay
    lines = run(["replay", str(path), "--all"]).stdout.splitlines()
    assert lines[0].startswith("Replay of deal 1, osmosis")
    # the game is not finished: the review's warning first, then the verdict and the accuracy
    head = " ".join(" ".join(lines[1:9]).split())
    assert head.startswith("The hindsight below knows the cards this game has not shown yet")
    assert re.search(r"known\. With hindsight .* Accuracy \d+\.\d / 100 \(95%: \d+\.\d-\d+\.\d\) over \d+ graded "
                     r"moves? \(as osmosis review computes it; win chances from what you could see: \d+ sampled deals "
                     r"a move", head), head
    forced = _record(tmp_path, "d d")  # two forced moves: nothing graded, so no accuracy to speak of
    text = " ".join(run(["replay", str(forced), "--all"]).stdout.split())
    assert "Accuracy not rated: no move of this game was graded (each one was forced" in text


def test_replay_of_a_missing_record_is_one_line_and_exit_1(run, tmp_path):
    assert_one_line_error(run(["replay", str(tmp_path / "missing.json")]), "missing.json")


def test_replay_of_an_illegal_record_names_the_move(run, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "osmosis-record/1", "variant": "osmosis",
                                "deal": {"number": 1}, "moves": ["d", "r1"]}))
    assert_one_line_error(run(["replay", str(path)]), "move 2")


# ---- resuming, hints and tutor mode ------------------------------------------
def _greedy_record(tmp_path, number: int, rules: str, plies: int) -> Path:
    """A record of the first ``plies`` greedy moves of a deal."""
    rules_ = preset(rules)
    state = State.initial(deal_for(number, rules_), rules_)
    moves = []
    for _ in range(plies):
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    path = tmp_path / f"deal-{number}.json"
    save_record(Record(rules_, deal_for(number, rules_), moves), path)
    return path


# Peek deal 3 after 24 greedy moves: TD tops the waste and opens row 2. Every
# deal consistent with what the player has seen is solved: w wins, d loses.
PEEK3_PLIES = 24


def test_resume_goes_on_with_a_saved_game_and_saves_back_to_it(run, tmp_path):
    path = _greedy_record(tmp_path, 3, "peek", PEEK3_PLIES)
    result = run(["play", "--resume", str(path)], input="w\nq\n")
    assert "after move 24" in result.stdout
    assert "Move 25: w TD" in result.stdout
    record = load_record(path)
    assert len(record.moves) == PEEK3_PLIES + 1 and record.rules == preset("peek")


def test_resume_refuses_a_deal_number_too(run, tmp_path):
    path = _greedy_record(tmp_path, 3, "peek", 2)
    result = run(["play", "3", "--resume", str(path)])
    assert result.exit_code == 2


def test_hint_shows_every_move_best_first_with_the_reason(run, tmp_path):
    path = _greedy_record(tmp_path, 3, "peek", PEEK3_PLIES)
    out = run(["play", "--resume", str(path)], input="h\nq\n").stdout
    assert "Hint: w (TD)" in out
    lines = out.splitlines()
    w_row = next(i for i, line in enumerate(lines) if line.startswith("w ") and "100%" in line)
    d_row = next(i for i, line in enumerate(lines) if line.startswith("d ") and "0%" in line)
    assert w_row < d_row
    assert "open row 2" in out


def test_tutor_warns_before_a_losing_move_and_does_not_play_it_on_no(run, tmp_path):
    path = _greedy_record(tmp_path, 3, "peek", PEEK3_PLIES)
    out = run(["play", "--resume", str(path), "--tutor"], input="d\nn\nq\n").stdout
    assert "That would be a blunder: win 0% against 100% for w (TD), exact" in out
    assert "Play it anyway? [y/N, h hint, q quit]" in out
    assert "Move not played." in out
    assert len(load_record(path).moves) == PEEK3_PLIES


def test_the_tutors_question_shows_the_hint_on_h_and_asks_again_on_anything_else(run, tmp_path):
    path = _greedy_record(tmp_path, 3, "peek", PEEK3_PLIES)
    out = run(["play", "--resume", str(path), "--tutor"], input="d\nh\nzz\ny\nq\n").stdout
    assert out.count("Play it anyway? [y/N, h hint, q quit]") == 3
    assert "Hint: w (TD)" in out
    assert "'zz': type y to play it anyway, n (or Enter) to keep it back, h for the hint, q to quit." in out
    assert "Move 25: d turn" in out and str(load_record(path).moves[-1]) == "d"


def test_tutor_plays_the_questioned_move_on_yes(run, tmp_path):
    path = _greedy_record(tmp_path, 3, "peek", PEEK3_PLIES)
    out = run(["play", "--resume", str(path), "--tutor"], input="d\ny\nq\n").stdout
    assert "Move 25: d turn" in out
    assert str(load_record(path).moves[-1]) == "d"


def test_tutor_stays_quiet_on_the_best_move(run, tmp_path):
    path = _greedy_record(tmp_path, 3, "peek", PEEK3_PLIES)
    out = run(["play", "--resume", str(path), "--tutor"], input="w\nq\n").stdout
    assert "mistake" not in out
    assert "Move 25: w TD" in out


def test_tutor_threshold_above_the_drop_keeps_it_quiet(run, tmp_path):
    path = _greedy_record(tmp_path, 3, "peek", PEEK3_PLIES)
    out = run(["play", "--resume", str(path), "--tutor", "--threshold", "100"], input="w\nq\n").stdout
    assert "mistake" not in out


def test_tutor_computes_no_hint_for_a_forced_move(run, monkeypatch):
    import tutor.hints

    calls = []
    real = tutor.hints.hint

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(tutor.hints, "hint", counting)
    # Deal 1 starts with nothing playable: d is the only move three times.
    out = run(["play", "1", "--tutor"], input="d\nd\nd\nq\n").stdout
    assert "Move 3: d turn" in out
    assert calls == []


def test_tutor_mode_computes_the_hint_at_the_position_shown_while_the_player_thinks(run, monkeypatch):
    """Every move under --tutor waits for its position's hint: 14.6 s before move 1 of a limited game. Line
    mode now starts it as the position is shown, in a thread, and the move's check takes that one."""
    import threading

    import tutor.advice

    calls = []
    real = tutor.advice.advise

    def recording(obs, *args, **kwargs):
        calls.append(threading.current_thread().name)
        return real(obs, *args, **kwargs)

    monkeypatch.setattr(tutor.advice, "advise", recording)
    out = run(["play", "5", "--tutor"], input="r4\nq\n").stdout  # deal 5: r4 3C r4 4S d, a real choice
    assert "Move 1: r4" in out
    assert calls and calls[0] == "osmosis-next-hint"  # the first position's hint, computed ahead
    assert calls.count("MainThread") == 0  # the check of r4 took it, computing nothing again


def test_play_goes_on_when_the_games_directory_cannot_be_made(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    target = tmp_path / "kept.json"
    result = osmosis(["play", "1"], blocker, input=f"d\ns\ns {target}\nq\n", catch=True)
    assert result.exit_code == 0
    assert "cannot be saved as you play" in result.stdout
    assert "there is no file to save to" in result.stdout
    assert [str(m) for m in load_record(target).moves] == ["d"]
    assert f"The game is saved in {target}" in result.stdout


def test_replay_with_piped_input_that_ends_prints_the_rest(run, tmp_path):
    path = _record(tmp_path, "d d d d")
    out = run(["replay", str(path)], input="\n").stdout
    assert "Move 4: d turn" in out
    assert "Stopped" not in out
    assert "the game was not finished" in out


def test_variants_lists_every_preset_with_its_aliases(run):
    result = run(["variants", "--json"])
    assert result.exit_code == 0
    data = {v["name"]: v for v in json.loads(result.stdout)}
    assert set(data) == {"osmosis", "peek", "single", "limited", "bridesmaids"}
    assert data["osmosis"]["aliases"] == ["treasure-trove"]
    assert (data["limited"]["passes"], data["single"]["turn"], data["bridesmaids"]["reserve_piles"]) == (3, 1, 0)


def test_single_pass_bridesmaids_warns_that_it_is_almost_never_winnable(run):
    result = run(["play", "5", "--variant", "bridesmaids", "--passes", "1"], input="q\n")
    assert result.exit_code == 0
    assert "almost never winnable" in result.output
    shown = run(["deal", "5", "--variant", "bridesmaids", "--passes", "1"])
    assert shown.exit_code == 0 and "almost never winnable" in shown.output
    assert "almost never" not in run(["deal", "5", "--variant", "bridesmaids"]).output
    # the figure is the turn's own: turning one card at a time places far more (it was 9.4, turn 3's, for both)
    assert "(it places 9.4 cards on average)" in " ".join(shown.output.split())
    one = run(["deal", "5", "--variant", "bridesmaids", "--passes", "1", "--turn", "1"])
    assert "(it places 24.6 cards on average)" in " ".join(one.output.split()) and "9.4" not in one.output


def test_a_deal_file_without_reserve_is_played_as_bridesmaids_unless_a_variant_says_otherwise(run, tmp_path):
    path = tmp_path / "b5.json"
    save_deal(deal_for(5, preset("bridesmaids")), path)
    shown = run(["deal", "--deal-file", str(path)])
    assert shown.exit_code == 0 and "no reserve" in shown.output
    refused = osmosis(["deal", "--deal-file", str(path), "--variant", "osmosis"], tmp_path / "home", catch=True)
    assert refused.exit_code == 1 and "0 reserve piles" in refused.output


def test_replay_at_a_move_opens_there_and_refuses_a_move_past_the_end(run, tmp_path):
    path = _record(tmp_path, "d d d d d w")
    out = run(["replay", str(path), "--at", "6", "--no-review"], input="\n").stdout
    assert "From move 6, the position before it:" in out
    assert "Move 6: w" in out and "Move 5:" not in out
    refused = run(["replay", str(path), "--at", "7"])
    assert refused.exit_code == 1 and "expected --at 1 to 6" in refused.stderr


@pytest.mark.parametrize("where, said", [
    ("missing/x.json", "cannot be written: there is no folder "),
    ("afile/x.json", "afile' is a file, not a folder: give a path in a folder"),
    ("/dev/null", "cannot be written: it is a device or a stream of this program, not a file"),
    ("dangling.json", "cannot be written: there is no folder "),
])
def test_a_save_path_no_game_could_be_written_to_is_refused_before_the_game(run, home, tmp_path, where, said):
    """--save in a folder that is not there was taken: the game ran, and at q "Save failed" and exit 0."""
    (tmp_path / "afile").write_text("notes\n")
    (tmp_path / "dangling.json").symlink_to(tmp_path / "missing" / "x.json")  # a link to no folder: the same
    path = where if where.startswith("/") else str(tmp_path / where)
    result = run(["play", "5", "--save", path], input="d\nq\n")
    assert_one_line_error(result, said)
    assert "Move 1:" not in result.stdout and not list(home.glob("games/*.json"))  # refused before any move
    assert (tmp_path / "afile").read_text() == "notes\n"


def test_a_save_path_that_is_empty_or_a_folder_is_refused_before_the_game(run, home, tmp_path):
    assert_one_line_error(run(["play", "5", "--save", ""], input="d\nq\n"), "--save '' is empty: give a file name")
    assert_one_line_error(run(["play", "5", "--save", str(tmp_path)], input="d\nq\n"), "is a folder: give a file name")
    assert not list(home.glob("games/*.json"))  # no game was begun


def test_a_save_path_in_a_folder_that_cannot_be_written_is_refused_before_the_game(run, home, tmp_path,
                                                                                  monkeypatch):
    """A read-only folder (a read-only disk, or no right to write) was taken: the game ran, and at q "Save
    failed" and exit 0. A link that leads round to itself said only "Too many levels of symbolic links"."""
    import errno
    import tempfile

    locked = tmp_path / "locked"
    locked.mkdir()
    real = tempfile.mkstemp

    def mkstemp(*args, **kwargs):  # the folder as a read-only disk answers, whoever runs the test (root too)
        if Path(str(kwargs.get("dir", ""))) == locked:
            raise OSError(errno.EROFS, "Read-only file system")
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    result = run(["play", "5", "--save", str(locked / "g.json")], input="d\nq\n")
    assert_one_line_error(result, "cannot be written: Read-only file system; give --save a file in a folder you "
                                  "can write to")
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    looped = run(["play", "5", "--save", str(tmp_path / "loop1")], input="d\nq\n")
    assert_one_line_error(looped, "cannot be written: Too many levels of symbolic links; give --save another file")
    assert not list(home.glob("games/*.json")) and not list(locked.iterdir())  # no game begun, no probe left
    ok = run(["play", "5", "--save", str(tmp_path / "g.json")], input="d\nq\n")
    assert ok.exit_code == 0 and (tmp_path / "g.json").exists() and not list(tmp_path.glob(".osmosis-*"))


def test_a_deal_number_too_long_is_out_of_range_and_a_long_move_is_quoted_cut(run):
    assert_one_line_error(run(["deal", "1" + "0" * 31]), "is out of range: expected 1 to 100000000000000000000")
    result = run(["solve", "5", "--moves", "d " + "x" * 100000])
    assert_one_line_error(result, "unknown move 'xxx", "(100000 characters)")
    assert len(result.stderr) < 400


def test_replay_line_mode_steps_only_on_enter_and_says_what_keys_do(run, tmp_path):
    """'p' or 'back' stepped forward as Enter does, with no word of what they are."""
    path = _record(tmp_path, "d d d d")
    out = run(["replay", str(path), "--no-review"], input="\np\nback\nq\n").stdout
    assert "Move 1: d turn" in out and "Move 2" not in out
    assert out.count("Here Enter shows the next move and q stops") == 2
    assert "Stopped after move 1 of 4." in out


def test_the_tutors_question_names_the_moves_it_holds_back_and_takes_q(run, home):
    """Deal 3: TH off pile 3 opens row 3 too early. Answering n kept it back and dropped the rest of the line
    without a word; q was refused as an answer."""
    moves = "r3 d d w d d w d d d d d w d w d d w d d d d d d w r3 w d"
    result = run(["play", "3", "--tutor"], input=f"{moves} r3 d\nn\nr3\nq\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Move not played. Nor the rest of the line: d." in out
    assert out.count("Play it anyway? [y/N, h hint, q quit]") == 2 and "type y to play it anyway" not in out
    assert "(28 moves," in out  # q at the question quit with the game as it was


def test_t_kept_back_by_the_tutor_does_not_say_how_many_turns_were_left(run, tmp_path):
    """Deal 359, one pass: t worked out its run of turns on the face-down stock, and n at the tutor's question
    listed the turns not played ("Nor the rest of the line: d d d d d d d."): how far the next playable card
    lay. Two deals that differ only in two stock cards nobody has seen printed different lines."""
    outputs = []
    for n, swap in enumerate((False, True)):
        deal = deal_for(359, preset("osmosis"))
        talon = list(deal.talon)
        if swap:
            talon[8], talon[29] = talon[29], talon[8]
        path = tmp_path / f"d{n}.json"
        save_deal(replace(deal, talon=tuple(talon)), path)
        result = run(["play", "--deal-file", str(path), "--passes", "1", "--tutor", "--plain"],
                     input="d d w w w w\nt\nn\nq\n")
        outputs.append(result.stdout.replace(str(path), "FILE"))
    assert "Move not played, nor the rest of t's turns." in outputs[0]
    assert re.sub(r"deal-file-[\d-]+", "", outputs[0]) == re.sub(r"deal-file-[\d-]+", "", outputs[1])


def test_a_run_of_t_the_tutor_cut_short_does_not_say_it_reached_its_end(run, monkeypatch):
    """The question kept back the third of t's five turns on deal 1; the line after it still said "turned the
    talon 2 times, until the waste shows a card that can be played", which it never did."""
    from tutor.cli.session import Session

    asked = []

    def check(self, state, move):
        asked.append(move)
        return len(asked) < 3  # the third turn kept back, as n at the question does

    monkeypatch.setattr(Session, "tutor_check", check)
    out = " ".join(run(["play", "1", "--tutor", "--plain"], input="t\nq\n").stdout.split())
    assert "Moves 1-2: turned the talon 2 times, until the tutor's question." in out
    assert "until the waste shows a card" not in out


def test_q_at_the_tutors_question_is_a_q_at_the_prompt_when_moves_are_not_saved(tmp_path):
    """q at the question quit at once, "the last moves are lost", where q at the prompt warns first and
    offers s FILE: the moves could not be saved (the home is a file, so no games folder)."""
    home = tmp_path / "home"
    home.write_text("")
    result = osmosis(["play", "51", "--tutor", "--plain", "--threshold", "5"], home,
                     input=f"r2 d w\nq\ns {tmp_path / 'kept.json'}\nq\n")
    assert "Type s FILE to save it, or q again to quit without saving." in result.stdout, result.output
    assert result.exit_code == 0 and load_record(tmp_path / "kept.json").moves == [Move.parse("r2"), TURN]


def test_tutor_asks_before_a_move_that_surely_gives_cards_away_where_no_move_wins(run, tmp_path):
    """Peek deal 2 after 24 greedy moves: every card is known and no move wins in the one consistent deal, but w
    places fewer cards at the end than turning. The tutor asks, by the solver's own figures."""
    from tutor import search

    path = _greedy_record(tmp_path, 2, "peek", 24)
    state = load_record(path).replay()
    best = {m: search.solve(state.apply(m), search.Limit(nodes=2_000_000), want="best") for m in state.legal_moves()}
    assert {r.winnable for r in best.values()} == {False}
    d, w = best[TURN].best_cards, best[WASTE].best_cards
    assert d - w >= 3
    out = run(["play", "--resume", str(path), "--tutor"], input="w\nn\nq\n").stdout
    assert ("That gives cards away: no move wins in the one deal consistent with what you have seen (solved), "
            f"and d (turn the talon) places {d} cards against {w} after this move.") in " ".join(out.split())
    assert "Move not played." in out and len(load_record(path).moves) == 24


def test_tutor_asks_about_sampled_cards_only_when_their_intervals_lie_apart():
    from tutor.estimate import Drop
    from tutor.hints import Candidate, Hint
    from tutor.narrate import tutor_question

    def ask(cands, exact=False):
        return tutor_question(Hint(TURN, cands, "", samples=64, exact=exact), WASTE, 10, "d")

    d = Candidate(TURN, 0.0, 32.0, samples=64, interval=(0.0, 0.06), cards_interval=(31.0, 34.0))
    w = Candidate(WASTE, 0.0, 24.0, card=5, samples=64, interval=(0.0, 0.06), cards_interval=(23.0, 25.0))
    asked = ask([d, w])
    assert asked == ("That gives cards away: no move wins in any of the 64 deals sampled from what you have "
                     "seen, and d places about 32 cards (95%: 31-34) against 24 (23-25) after this move.")
    assert ask([d, replace(w, cards_interval=(20.0, 31.5))]) is None  # the intervals overlap: not sure
    assert ask([d, replace(w, cards=29.5, cards_interval=(29.0, 30.0))]) is None  # under 3 cards
    assert ask([replace(d, win=0.02), w]) is None  # a move wins somewhere: the win chance decides
    assert ask([d, replace(w, undecided=1)]) is None  # an undecided deal may be a win
    assert ask([replace(d, samples=2), replace(w, samples=2)], exact=True).startswith(
        "That gives cards away: no move wins in any of the 2 deals consistent with what you have seen (all solved)")
    # a move wins somewhere, and this one surely less (lost in every consistent deal, or its drop above 0)
    live = replace(d, win=0.03, interval=(0.01, 0.07))
    assert ask([live, replace(w, lost=True)]) == (
        "That gives cards away and lowers your chance: win 0% (in every consistent deal) against 3% (95%: 1-7%) "
        "for d, which places about 32 cards (95%: 31-34) against 24 (23-25) after this move, on 64 deals "
        "consistent with what you have seen.")
    assert ask([live, replace(w, drop=Drop(0.03, 0.005, 0.06, 64))]) is not None
    assert ask([live, replace(w, drop=Drop(0.03, -0.01, 0.06, 64))]) is None  # maybe no lower: the cards' price
    assert ask([replace(live, interval=(0.0, 0.07)), replace(w, lost=True)]) is None


def test_tutor_asks_before_a_turn_that_blocks_the_game_where_a_play_keeps_a_chance(run, home):
    """Deal 59 after 29 moves: the turn ends the pass with no play and blocks the game (7 cards, lost in every
    consistent deal); playing 5S wins 2% and places about 22 cards. Under the threshold in win points, the
    question never came, and the game was blocked at once."""
    line = "r2 r2 d d d w d d w d w d d w d d d d d d d d d d d d d d d"
    out = " ".join(run(["play", "59", "--tutor"], input=f"{line}\nd\nn\nq\n").stdout.split())
    assert ("That gives cards away and lowers your chance: win 0% (in every consistent deal) against 2% (95%: 1-7%) "
            "for w (5S), which places about 22 cards (95%: 20-24) against 7 (the same in every deal) after this "
            "move") in out
    assert "Move not played." in out and "Blocked" not in out


def test_moves_left_on_a_line_after_the_game_ends_are_named_as_not_played(run, home):
    moves, final = greedy_line(1)
    out = run(["play", "1"], input=" ".join(map(str, moves)) + " d w\nq\n").stdout
    assert "Not played, since the game is over: d w." in out and "Blocked" in out
    assert load_record(autosaved(home)).moves == moves


def test_t_in_line_mode_turns_to_a_playable_waste_card_as_the_board_does(run, home):
    """``t`` on a line of its own plays the turns of tutor.talon.turns_to_play, the board shown once, and
    turns nothing (saying why) when the waste's top can be played already: the board's t, in line mode."""
    from tutor.talon import TURN_STOPS, turns_to_play

    rules = preset("osmosis")
    state = State.initial(deal_for(5, rules), rules)
    first = turns_to_play(state).moves
    assert first
    out = run(["play", "5", "--save", str(home / "t.json")], input="t\nt\nq\n").stdout
    word = "once" if len(first) == 1 else f"{len(first)} times"
    assert f"turned the talon {word}, until the waste shows a card that can be played." in out
    assert TURN_STOPS["waste-playable"] in out  # the second t: the waste's top can be played, nothing turned
    assert out.count("Score ") == 2  # the start and once after the turns, not a board per turn
    assert load_record(home / "t.json").moves == list(first)
    assert "t      turn until the waste shows a card that can be played" in run(["play", "5"], input="?\nq\n").stdout


def test_a_turn_the_no_play_rule_refuses_names_the_moves_left_not_a_blocked_game(run):
    out = run(["play", "5", "--plain"], input="d d d d d d d d d d d d\nd\nq\n").stdout
    assert ("d is not possible: no card was played in this first pass, and the talon is turned over again only "
            "after a play: play r3 or r4 or w first") in out.replace("\n", " ")
    assert "blocked" not in out
    result = run(["hint", "5", "--moves", "d " * 13])
    assert result.exit_code == 1 and "play r3 or r4 or w first" in result.stderr


def test_an_undo_of_more_moves_than_any_game_has_takes_every_move_back(run):
    out = run(["play", "5", "--plain"], input="d d w\nu 99999999999\nu 00\nq\n").stdout
    assert "Took back 3 moves (d d w): every move, back to the start." in out
    assert "'u 00' is not an undo" in out
    out = run(["play", "5", "--plain"], input="d d d\nu 0000002\nq\n").stdout
    assert "Took back 2 moves" in out and "every move" not in out  # leading zeros are no digits of the count


def test_moves_on_a_line_may_be_set_apart_with_commas_as_moves_takes_them(run):
    """`--moves "d,w"` was taken and the same moves typed in play, "d, w", refused as "unknown move 'd,'"."""
    out = run(["play", "5", "--plain"], input="d, w\nd,d\nq\n").stdout
    assert "unknown move" not in out
    assert "Move 2: w 3H" in out and "Move 4: d turn" in out


def test_a_command_inside_a_line_of_moves_says_it_goes_alone(run):
    """'d t' said "unknown move 't'", though the help lists t among the moves: it is a command, typed alone."""
    result = run(["play", "1", "--plain"], input="d t\nd h\nq\n")
    assert result.exit_code == 0
    assert "t is a command, not a move: type it on a line of its own; nothing of the line was played" in result.stdout
    assert "h is a command, not a move" in result.stdout and "unknown move 't'" not in result.stdout
    assert "0 moves" in result.stdout or "No move was played" in result.stdout  # the d of those lines stayed unplayed


def test_a_pile_number_typed_apart_from_its_r_gets_the_move_it_meant(run):
    """'r 1' said "r is a command, not a move: type it on a line of its own", and r alone then said that
    line mode has no redo."""
    out = " ".join(run(["play", "1", "--plain"], input="r 1\nd r 7\nq\n").stdout.split())
    assert "'r 1' is no move: a reserve pile is typed with its number and no space, r1;" in out
    assert "'r 7' is no move: a reserve pile is typed with its number and no space, r1 to r4;" in out
    assert "is a command" not in out


def test_t_names_d_as_it_is_here_a_redeal_or_not_possible_and_one_pass_is_said_in_the_singular(run):
    """With the waste's top playable, t said "d turns past it" where d was refused (the one pass used), and
    the refusal said "all 1 passes"."""
    keys = "d d d d d d d w d d d d d d d d d w d\nt\nd\nq\nq\n"
    out = " ".join(run(["play", "3", "-v", "bridesmaids", "--passes", "1"], input=keys).stdout.split())
    assert "The waste's top card can be played: w plays it (no turn or redeal is possible)." in out
    assert "d turns past it" not in out
    assert "d is not possible: the one pass through the talon is used" in out and "all 1 passes" not in out


def test_t_with_the_stock_empty_and_the_waste_playable_says_d_redeals():
    from tutor.rules import preset
    from tutor.search import Limit, solve
    from tutor.state import State
    from tutor.talon import TURN_STOPS, turns_to_play

    rules = preset("osmosis")
    state = State.initial(deal_for(3, rules), rules)
    line = solve(state, Limit(nodes=200_000), want="win").line
    for move in line[:208]:  # 51 cards up, the stock empty, the last card on the waste
        state = state.apply(move)
    run = turns_to_play(state)
    assert state.pos == len(state.talon) and run.why == "waste-playable-redeal"
    assert TURN_STOPS[run.why] == "The waste's top card can be played: w plays it, d redeals the waste."


def test_a_tutor_threshold_of_0_never_calls_a_move_no_worse_than_the_best_a_mistake(run, tmp_path):
    from tutor.rules import preset
    from tutor.search import Limit, solve
    from tutor.state import State

    rules = preset("osmosis")
    line = solve(State.initial(deal_for(3, rules), rules), Limit(nodes=200_000), want="win").line
    path = tmp_path / "r.json"
    save_record(Record(rules, deal_for(3, rules), line[:208]), path)
    out = run(["play", "--resume", str(path), "--tutor", "--threshold", "0"], input="d\nn\nq\nq\n").stdout
    assert "may be a mistake" not in out and "Play it anyway" not in out


def test_ctrl_c_while_the_tutor_checks_a_move_keeps_the_move_back_and_gives_the_prompt(run, home, monkeypatch):
    """--tutor: Ctrl-C while the tutor weighed a typed move ended the command with a bare "interrupted" and exit
    130. It stops the check, as it stops a hint: the move is not played, the prompt comes back, q says where."""
    from tutor.cli.session import Session

    real, calls = Session.hint_for, []

    def cut_short(self, state):  # Ctrl-C reaches the main thread, waiting for the hint or working it out
        calls.append(state)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(self, state)

    monkeypatch.setattr(Session, "hint_for", cut_short)
    result = run(["play", "10", "--tutor"], input="r2\nd\nq\n")
    assert result.exit_code == 0, result.output
    assert "Stopped the tutor's check: the move was not played. Ctrl-C at the prompt, or q, quits." in result.stdout
    assert "The game is saved in" in result.stdout
    assert [str(m) for m in load_record(autosaved(home)).moves] == ["d"]  # r2 kept back, d checked and played


def test_ctrl_c_while_a_hint_thinks_stops_the_hint_not_the_game(run, home, monkeypatch):
    """Ctrl-C during a line-mode hint ended the command with "interrupted" and exit 130, no word of where the
    three moves were kept (Ctrl-C at the prompt quits and names the file). It stops the hint: the prompt
    comes back, the game goes on, and q says where it is."""
    import tutor.advice

    real, calls = tutor.advice.advise, []

    def cut_short(obs, *args, **kwargs):
        calls.append(obs)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(obs, *args, **kwargs)

    monkeypatch.setattr(tutor.advice, "advise", cut_short)
    result = run(["play", "10"], input="r2\nh\nd\nh\nq\n")
    assert result.exit_code == 0, result.output
    assert "Stopped. Ctrl-C at the prompt, or q, quits." in result.stdout
    assert "Hint:" in result.stdout.split("Stopped.")[1]  # the second hint, after the move played on
    assert "The game is saved in" in result.stdout
    assert [str(m) for m in load_record(autosaved(home)).moves] == ["r2", "d"]


def test_back_on_a_finished_files_moves_after_a_copy_began_makes_no_twin_finished_game(run, home):
    """u u, another move (a copy begins), u, then the finished game's own moves again: the copy became a second
    file and history game with the same 42 moves, blocked, and the end and quit messages named different files."""
    moves = ("d d d d d r2 w d d d d d d d d d d d d d d d d d d w d w d d d d d d d d d d d d d w").split()
    result = run(["play", "7", "--variant", "limited", "--plain"],
                 input=" ".join(moves) + "\nu\nu\nw\nu\n" + " ".join(moves[-2:]) + "\nq\n")
    assert result.exit_code == 0, result.output
    files = sorted((home / "games").glob("*.json"), key=lambda p: len(load_record(p).moves))
    held = [load_record(p).moves for p in files]
    assert [str(m) for m in held[-1]] == moves  # the finished file, as it was
    assert sum(1 for h in held if [str(m) for m in h] == moves) == 1  # and no twin of it
    recent = json.loads(run(["history", "--json"]).stdout)["recent"]
    assert sum(1 for g in recent if g["finished"] and g["moves"] == len(moves)) == 1
    said = [line for line in result.stdout.splitlines() if "The game is saved in" in line]
    assert said and all(str(files[-1]) in line for line in said)  # the same file named at the end and at q


def test_a_command_with_more_words_is_refused_not_half_done(run):
    """'h d' showed the hint and dropped the d without a word; 'q w' quit: a command goes on a line of its own,
    as 'd h' and 't 3' were told already."""
    result = run(["play", "1", "--plain"], input="h d\nq w\n? x\nhint me\nd\nq\n")
    said = [line for line in result.stdout.splitlines() if "is a command, not a move" in line]
    assert [line.split()[0] for line in said] == ["h", "q", "?", "hint"]
    assert all(line.endswith("nothing of the line was played") for line in said)
    assert "Move 1:" in result.stdout or "1 move" in result.stdout  # the game went on: d played, then q
    assert "Hint:" not in result.stdout
