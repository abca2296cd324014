"""Lessons: cards spelt one way in all a lesson prints, and a progress file that loses only what is broken in it
(an odd number in one entry, a file that broke while a lesson ran)."""

from __future__ import annotations

import io
import json
import os
import re

import pytest
from rich.console import Console

from tutor.cli.lesson import Run
from tutor.lessons import Progress, find_lesson, load_progress

CARD = re.compile(r"(?<![A-Za-z0-9])(10|[A2-9TJQK])([SHDC])(?![A-Za-z0-9])")  # a card in two letters
GOOD = {"best_right": 3, "done": True, "last": {"asked": 5, "finished": True, "right": 3}}


def _run(lesson: str, lines: list[str], tmp_path, terminal: bool) -> str:
    """What lesson ``lesson`` prints with ``lines`` typed at it, on a terminal (symbols on) or in a pipe."""
    console = Console(file=io.StringIO(), force_terminal=terminal, color_system=None, width=100)
    run = Run(console, find_lesson(lesson), Progress(tmp_path / "progress.json"), answers=None, quiet=False)
    typed = iter(lines)
    run.read = lambda prompt: next(typed, None)  # type: ignore[method-assign]
    run.take()
    return console.file.getvalue()  # type: ignore[attr-defined]


# ---- cards spelt one way ------------------------------------------------------------------------------------

def test_on_a_terminal_a_lesson_spells_every_card_with_its_suit_symbol(tmp_path):
    """The question, the engine's table after a second h, the first line of a verdict and the header of a
    second try were rich Text and were printed as written: "Open hearts with 6H" under a board of 6♥."""
    out = _run("waiting", ["r3", "h", "h", "r3", "q"], tmp_path, terminal=True)
    assert "Open hearts with 6♥, or turn?" in out  # the question
    assert "r3 (play 6♥ from reserve pile 3)" in out  # the engine's table
    assert "let 6♦ open row 2" in out  # the verdict's first line
    assert CARD.findall(out) == []


def test_in_a_pipe_a_lesson_spells_every_card_in_two_letters(tmp_path):
    out = _run("waiting", ["r3", "h", "h", "r3", "q"], tmp_path, terminal=False)
    assert "Open hearts with 6H, or turn?" in out and "r3 (play 6H from reserve pile 3)" in out
    assert not set("♠♥♦♣") & set(out)


# ---- an odd number drops its entry only ---------------------------------------------------------------------

@pytest.mark.parametrize("number", ["1e999", "-1e999", "NaN", "Infinity", "1234567890123456789012345678901234"])
@pytest.mark.parametrize("where", ["best_right", "last.right", "note"])
def test_a_number_out_of_range_drops_its_entry_and_keeps_the_others(tmp_path, number, where):
    """One 1e999 (or NaN, or 34 digits) threw every lesson's progress away ("starting afresh"), where a -1 in
    the same place dropped its entry alone."""
    entry = {"best_right": 1, "done": True, "last": {"asked": 2, "finished": True, "right": 2}}
    if where == "note":
        entry["note"] = ["odd"]
    elif where == "best_right":
        entry["best_right"] = "odd"
    else:
        entry["last"]["right"] = "odd"
    text = json.dumps({"format": "osmosis-progress/1", "lessons": {"layout": entry, "waiting": GOOD}})
    text = text.replace('"odd"', number)
    assert number in text
    path = tmp_path / "progress.json"
    path.write_text(text, encoding="utf-8")
    progress = load_progress(path)
    assert progress.lessons == {"waiting": GOOD}
    assert progress.warning is not None and "'layout'" in progress.warning
    assert "keeping the 1 good entry" in progress.warning and "\n" not in progress.warning
    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("progress.json.broken-")]
    assert aside.read_text(encoding="utf-8") == text  # nothing lost
    assert json.loads(path.read_text(encoding="utf-8"))["lessons"] == {"waiting": GOOD}
    assert load_progress(path).warning is None


def test_text_that_is_not_unicode_in_one_entry_drops_that_entry_only(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text(json.dumps({"format": "osmosis-progress/1",
                                "lessons": {"layout": {"done": True, "note": "\ud800"}, "waiting": GOOD}}),
                    encoding="utf-8")
    progress = load_progress(path)
    assert progress.lessons == {"waiting": GOOD}
    assert progress.warning is not None and "'layout': it holds text that is not valid Unicode" in progress.warning


def test_a_file_that_is_not_json_is_still_set_aside_whole(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text('{"format": "osmosis-progress/1", "lessons": {"layout": NaN', encoding="utf-8")
    progress = load_progress(path)
    assert progress.lessons == {} and progress.warning is not None and "starting afresh" in progress.warning


# ---- a file that breaks while a lesson runs -----------------------------------------------------------------

def _asides(tmp_path) -> list:
    return sorted(p for p in tmp_path.iterdir() if p.name.startswith("progress.json.broken-"))


def test_a_file_broken_while_a_lesson_ran_is_set_aside_not_written_over(tmp_path):
    """The save read the file again, found it broken and wrote this run's entries over it: another run's
    entries lost for good, with no warning and no copy."""
    path = tmp_path / "progress.json"
    path.write_text(json.dumps({"format": "osmosis-progress/1", "lessons": {"waiting": GOOD}}), encoding="utf-8")
    progress = load_progress(path)
    broken = '{"format": "osmosis-progress/1", "lessons": {"first-row": {"done": tr'  # another run, cut short
    path.write_text(broken, encoding="utf-8")
    progress.record("layout", 2, 2, finished=True)
    warning = progress.save()
    assert warning is not None and "\n" not in warning
    assert "is not valid JSON" in warning and "set aside as" in warning and "keeping the 2 good entries" in warning
    [aside] = _asides(tmp_path)
    assert aside.read_text(encoding="utf-8") == broken
    assert str(aside.name) in warning
    again = load_progress(path)
    assert again.warning is None and set(again.lessons) == {"layout", "waiting"}


def test_bad_entries_another_run_left_are_set_aside_and_its_good_ones_kept(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text(json.dumps({"format": "osmosis-progress/1", "lessons": {}}), encoding="utf-8")
    progress = load_progress(path)
    theirs = json.dumps({"format": "osmosis-progress/1",
                         "lessons": {"first-row": GOOD, "variants": {"done": "yes"}, "waiting": {"best_right": 1e999}}})
    path.write_text(theirs, encoding="utf-8")
    progress.record("layout", 2, 2, finished=True)
    warning = progress.save()
    assert warning is not None and "has entries that are not usable" in warning and "1 more" in warning
    [aside] = _asides(tmp_path)
    assert aside.read_text(encoding="utf-8") == theirs
    again = load_progress(path)
    assert again.warning is None and set(again.lessons) == {"first-row", "layout"}


def test_a_broken_file_that_cannot_be_set_aside_is_left_as_it_is(tmp_path, monkeypatch):
    path = tmp_path / "progress.json"
    progress = load_progress(path)
    path.write_text("{oops", encoding="utf-8")
    progress.record("layout", 2, 2, finished=True)

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "link", refused)
    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(OSError, match="could not be set aside"):
        progress.save()
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == "{oops" and _asides(tmp_path) == []


def test_a_lesson_says_in_one_line_that_the_file_broke_while_it_ran(tmp_path, capsys):
    path = tmp_path / "progress.json"
    path.write_text(json.dumps({"format": "osmosis-progress/1", "lessons": {"waiting": GOOD}}), encoding="utf-8")
    console = Console(file=io.StringIO(), force_terminal=False, width=100)
    progress = load_progress(path)
    path.write_text("{cut", encoding="utf-8")
    Run(console, find_lesson("layout"), progress, answers=["d", "w"], quiet=True).take()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: progress file") and "set aside as" in lines[0]
    [aside] = _asides(tmp_path)
    assert aside.read_text(encoding="utf-8") == "{cut"
    assert set(load_progress(path).lessons) == {"layout", "waiting"}


def test_ctrl_c_in_a_lesson_keeps_the_answers_given_so_far_as_q_does(run, home, monkeypatch):
    """q recorded the run's answers so far ("Stopped at step N"); Ctrl-C recorded none of them."""
    lines = iter(["d"])

    def typed(prompt, echo=True):
        try:
            return next(lines)
        except StopIteration:
            raise KeyboardInterrupt from None

    monkeypatch.setattr("tutor.cli.lesson.read_line", typed)
    result = run(["lesson", "waiting"])
    assert result.exit_code != 0 and "Stopped at step" in result.output
    entry = json.loads((home / "progress.json").read_text(encoding="utf-8"))["lessons"]["waiting"]
    assert entry["last"]["asked"] == 1 and entry["last"]["finished"] is False and not entry.get("done")
