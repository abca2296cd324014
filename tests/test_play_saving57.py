"""Faults an audit of a player's whole session found (stop 57): a review's report written over as a game, notes on
moves and on the deal dropped at the first save, a try saved in the same second written over, an empty game
exported, a link to no folder, solve's line refused by play."""

from __future__ import annotations

import json
import os
import time

from tutor.cli.keep import _written_before
from tutor.record import Record, load_record

REVIEWED = "d d d d d w".split()


def _review_report(run, tmp_path):
    game = tmp_path / "game.json"
    assert run(["play", "1", "--plain", "--save", str(game)], input=" ".join(REVIEWED) + "\nq\n").exit_code == 0
    result = run(["review", str(game), "--json"])
    assert result.exit_code == 0
    report = tmp_path / "review.json"
    report.write_text(result.stdout, encoding="utf-8")
    return game, report


def test_a_reviews_report_is_never_written_over_by_s_file_nor_by_a_resumed_game(run, home, tmp_path):
    """`s review.json` wrote the game over the review's report (it reads as a record: deal, variant, moves as
    objects), and `--resume review.json` took it for the game's own file: every label and comment was lost."""
    game, report = _review_report(run, tmp_path)
    kept = report.read_bytes()
    result = run(["play", "--resume", str(game), "--plain"], input=f"d\ns {report}\nq\n")
    assert f"'{report}' is a review's report that writes its moves as objects with notes in them (move 1 on), and " \
           "is kept as it is: give a new file name" in result.output
    assert report.read_bytes() == kept
    result = run(["play", "--resume", str(report), "--plain"], input="d\nq\n")
    assert result.exit_code == 0 and report.read_bytes() == kept
    assert "so it is kept as it is: the game goes on in a new file, its notes with it." in result.output
    copy = max((home / "games").glob("deal-1-*.json"), key=lambda p: p.stat().st_mtime_ns)
    record = load_record(copy)
    assert [str(m) for m in record.moves] == [*REVIEWED, "d"]
    assert record.annotations[0]["label"] == "best" and record.annotations[0]["comment"]


HAND_MADE = ('{"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 1, "source": "PySolFC game 715"}, '
             '"moves": [{"move": "d", "comment": "turn first"}, "d", "d", "d", "d", "w"], '
             '"result": {"cards": 2, "won": false}}')


def test_notes_on_a_move_object_and_on_the_deal_are_kept_when_the_game_is_saved_again(run, home, tmp_path):
    """A move written {"move": "d", "comment": ...} and a deal {"number": 1, "source": ...} were read, the
    comment never shown, and the first autosave of a resumed game (or an export) dropped both."""
    mine = tmp_path / "mine.json"
    mine.write_text(HAND_MADE, encoding="utf-8")
    record = Record.from_json(json.loads(HAND_MADE))
    assert record.annotations[0] == {"comment": "turn first"}
    assert record.to_json()["deal"] == {"number": 1, "source": "PySolFC game 715"}
    assert "turn first" in run(["replay", str(mine), "--no-review", "--all"]).stdout
    result = run(["play", "--resume", str(mine), "--plain"], input="d\nq\n")
    assert result.exit_code == 0 and mine.read_text(encoding="utf-8") == HAND_MADE
    (copy,) = (home / "games").glob("deal-1-*.json")
    saved = json.loads(copy.read_text(encoding="utf-8"))
    assert saved["deal"] == {"number": 1, "source": "PySolFC game 715"}
    assert saved["annotations"][0] == {"comment": "turn first"} and len(saved["moves"]) == 7
    assert run(["import", str(mine)]).exit_code == 0
    lines = [json.loads(line) for line in run(["export"]).stdout.splitlines()]
    assert all(line["record"]["deal"]["source"] == "PySolFC game 715" for line in lines)


def test_a_try_saved_earlier_in_the_second_the_game_began_is_another_game(tmp_path):
    """The check counted a file as written before the game only before the whole second it began in: a script
    that played two games of a deal in one second had the first written over by the second's s FILE."""
    path = tmp_path / "try.json"
    path.write_text("{}", encoding="utf-8")
    began = float(int(time.time())) + 0.8
    os.utime(path, ns=(int((began - 0.5) * 1e9), int((began - 0.5) * 1e9)))
    assert _written_before(path, began)
    os.utime(path, ns=(int((began + 0.1) * 1e9), int((began + 0.1) * 1e9)))
    assert not _written_before(path, began)
    # a file system of whole seconds: the second the game began in counts as its own (a save made in it)
    os.utime(path, (int(began), int(began)))
    assert not _written_before(path, began) and _written_before(path, began + 1)


def test_a_game_with_every_move_taken_back_leaves_no_row_to_export(run):
    """Its file was removed ("no game file is left") and history counted no game, yet export wrote it and import
    of that line said one game was imported."""
    result = run(["play", "1", "--plain"], input="d\nu\nq\n")
    assert "no game file is left" in result.output
    assert run(["export"]).stdout == ""
    assert run(["play", "1", "--plain"], input="d\nq\n").exit_code == 0
    assert len(run(["export"]).stdout.splitlines()) == 1


def test_s_to_a_link_that_leads_to_no_folder_says_which_folder_is_missing(run, tmp_path):
    link = tmp_path / "dangling.json"
    link.symlink_to(tmp_path / "gone" / "x.json")
    result = run(["play", "1", "--plain"], input=f"d\ns {link}\nq\n")
    assert f"record '{link}' cannot be written: there is no folder '{tmp_path / 'gone'}'" in result.output


def test_solves_line_with_its_card_labels_plays_as_it_is_printed(run, home):
    """`r3 9C d ...` pasted from solve: 9C was read as a second move (already on a foundation) and the line
    stopped after r3; --moves of solve and hint read it as r3's label."""
    line = next(t for t in run(["solve", "3"]).stdout.splitlines() if t.startswith("Line: "))[len("Line: "):]
    words = line.split()
    moves = [w for w in words if w == "d" or w == "w" or w.startswith("r")]
    assert len(moves) < len(words)  # the line carries labels
    result = run(["play", "3", "--plain"], input=line + "\nq\n")
    assert "cannot be played" not in result.output
    (saved,) = (home / "games").glob("deal-3-*.json")
    assert [str(m) for m in load_record(saved).moves] == moves
    # a card that is no label (typed again later) is still a move of its own, refused with its reason
    assert "9C cannot be played now" in run(["play", "3", "--plain"], input="r3 9C d 9C\nq\n").output


def test_solves_labelled_line_typed_at_the_boards_prompt_plays_every_move(tmp_path):
    """The board's : prompt read `r3 9C d` as r3, then 9C (on a foundation already): the line stopped."""
    from test_board import make_session, screens

    session = make_session(tmp_path, number=3)
    screens(session, ["colon", *"r3 9C d d", "enter"])
    assert [str(m) for m in session.game.moves] == ["r3", "d", "d"]


def test_a_resumed_games_own_save_made_just_before_its_file_is_written_again(run, tmp_path):
    """A resumed file counts as begun at its last save: s try.json a moment before (the same second, 14 ms)
    was refused as "another game ... saved before this game began" once times were compared to the
    fraction of a second; a resumed game's start is now its file's second, as before."""
    mine, other = tmp_path / "mine.json", tmp_path / "try.json"
    assert run(["play", "1", "--plain", "--save", str(mine)], input=f"d\ns {other}\nd\nq\n").exit_code == 0
    second = int(time.time()) - 10
    os.utime(other, ns=(second * 10**9 + 500_000_000,) * 2)
    os.utime(mine, ns=(second * 10**9 + 900_000_000,) * 2)
    result = run(["play", "--resume", str(mine), "--plain"], input=f"d\ns {other}\nq\n")
    assert f"Saved to {other}." in result.output and "holds another game" not in result.output


def test_a_move_objects_field_no_annotation_can_hold_is_left_out_with_a_warning_not_an_error(run, tmp_path):
    """{"move": "d", "label": 1} (another tool's number) made the whole record unreadable, where it loaded
    before move objects were read as annotations."""
    path = tmp_path / "clash.json"
    path.write_text('{"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 1}, "moves": '
                    '[{"move": "d", "label": 1, "by": "x"}, {"move": "d", "tags": "t"}, "d"], '
                    '"annotations": [null, {"label": "best"}]}', encoding="utf-8")
    record = load_record(path)
    assert record.annotations[:2] == [{"by": "x"}, {"label": "best"}]
    assert any("move 1's 'label', move 2's 'tags' in its move objects cannot be an annotation" in w
               for w in record.warnings)
    result = run(["replay", str(path), "--no-review", "--all"])
    assert result.exit_code == 0 and "cannot be an annotation" in result.output


def test_review_annotate_to_a_new_file_keeps_the_deals_own_fields(run, tmp_path):
    path = tmp_path / "dn.json"
    path.write_text('{"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 1, "source": "PySolFC"}, '
                    '"moves": ["d", "d", "d"], "notes": "mine"}', encoding="utf-8")
    out = tmp_path / "ann.json"
    assert run(["review", str(path), "--samples", "4", "--annotate", str(out)]).exit_code == 0
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["deal"] == {"number": 1, "source": "PySolFC"} and saved["notes"] == "mine"


def test_quitting_a_game_resumed_from_a_file_of_move_objects_says_the_file_keeps_it(run, tmp_path):
    """It said the file "is not a regular file (a pipe or a device)", after its first line said why it is kept."""
    mine = tmp_path / "mine.json"
    mine.write_text(HAND_MADE, encoding="utf-8")
    result = run(["play", "--resume", str(mine), "--plain"], input="q\n")
    assert f"The game (6 moves) is in {mine}, kept as it was read." in " ".join(result.output.split())
    assert "pipe" not in result.output


def test_the_tutors_question_does_not_count_the_held_moves_own_label_as_the_rest_of_the_line(run):
    """`r4 JD d` held back: "Nor the rest of the line: JD d." named the held move's own card as a move to type."""
    result = run(["play", "10", "--tutor", "--threshold", "5", "--plain"], input="r4 JD d\nn\nq\n")
    assert "Move not played. Nor the rest of the line: d." in result.output


def test_a_file_name_with_a_nul_is_refused_in_words_not_with_a_valueerror(tmp_path):
    """Naming the missing folder of a link (realpath) raised ValueError for a NUL in the name (hypothesis found it
    in test_fuzz_typing)."""
    import pytest

    from tutor.errors import RecordError
    from tutor.record import save_record

    record = Record.from_json(json.loads(HAND_MADE))
    with pytest.raises(RecordError, match="cannot be written"):
        save_record(record, str(tmp_path / "a\x00b.json"))
