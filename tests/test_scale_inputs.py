"""Inputs at scale: one clear line, bounded memory, never a traceback (the scale audit)."""

from __future__ import annotations

import json

from tutor.narrate.play import not_played, over_rest


def test_a_game_number_past_python_int_limit_is_no_saved_game(run):
    run(["play", "1"], input="d\nq\n")
    result = run(["review", "1" * 4301])
    assert result.exit_code == 1 and result.stderr.startswith("error: there is no saved game '111")
    assert "(4303 characters)" in result.stderr and "Traceback" not in result.output


def test_practical_with_thousands_of_digits_is_too_many_games(run, tmp_path):
    run(["play", "1"], input="d\nq\n")
    result = run(["review", "last", "--practical", "9" * 4301])
    assert result.exit_code == 2 and "is too many games: expected a whole number from 1 to" in result.stderr
    none = run(["review", "last", "--practical", "0"])  # worded as the other two, not "practical games 0"
    assert none.exit_code == 2
    assert "Invalid value for '--practical': '0' is no game at all: expected a whole number from 1 to 10000" \
        in none.stderr


def test_a_piped_line_longer_than_the_limit_is_skipped_not_held(run):
    result = run(["play", "1"], input="x" * 250_000 + "\nd\nq\n")
    assert "That line is longer than 100,000 bytes (250,001), so it was ignored: type it again." in result.stdout
    assert "(1 move," in result.stdout


def test_the_rest_of_a_long_line_is_cut_to_a_readable_sentence():
    assert over_rest(["d"] * 1000) == "Not played, since the game is over: " + " ".join(["d"] * 12) + " ... (988 more)."
    assert len(not_played(["y" * 10_000])) < 200


def test_an_import_with_thousands_of_bad_lines_says_three_and_how_many_more(run, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps({"n": n}) + "\n" for n in range(500)))  # objects, none an export line
    result = run(["import", str(path)])
    said = [line for line in result.output.splitlines() if line.startswith("error:") and "line" in line]
    assert len(said) == 4 and "497 more lines were refused too" in result.output, result.output
    # a file of JSON values none of which is an object is no export: one line for it, not one a value
    path.write_text("".join(json.dumps([n]) + "\n" for n in range(500)))
    assert len(run(["import", str(path)]).output.strip().splitlines()) == 1


def test_coach_in_a_pipe_says_how_far_its_reviews_are(run, monkeypatch):
    from tutor.cli import common

    monkeypatch.setattr(common, "PIPE_EVERY", 0.02)
    for n in (1, 2, 3):
        run(["play", str(n)], input="d\nd\nq\n")
    result = run(["coach", "--samples", "4", "--workers", "1"])
    assert result.exit_code == 0
    assert "coach: reviewed 1 of 3 games, about " in result.stderr and "coach: reviewed 2 of 3 games" in result.stderr


def _lesson(tmp_path, name: str, steps: str):
    from tutor.lessons.format import LESSON_FORMAT

    path = tmp_path / f"{name}.toml"
    path.write_text(f'format = "{LESSON_FORMAT}"\nname = "{name}"\ntitle = "T"\nlevel = 20\nintroduction = "I."\n'
                    f"deal = 1\n{steps}", encoding="utf-8")
    return path


def test_a_lesson_with_more_steps_than_any_lesson_needs_is_one_line(run, tmp_path):
    path = _lesson(tmp_path, "many", '[[steps]]\ntext = "x"\n' * 201)
    result = run(["lesson", str(path)])
    assert result.exit_code == 1 and "the lesson has 201 steps: expected at most 200" in result.stderr


def test_a_huge_value_in_a_lesson_file_is_quoted_cut(run, tmp_path):
    path = _lesson(tmp_path, "huge", '[[steps]]\ntext = "x"\nquestion = "q"\nexpect = "d"\nteaches = "t"\njudge = "'
                   + "j" * 100_000 + '"\n')
    result = run(["lesson", str(path)])
    assert result.exit_code == 1 and len(result.stderr) < 500 and "characters)" in result.stderr
