"""``osmosis lesson``: the list, --json, --check, --answers and a lesson taken through piped input."""

from __future__ import annotations

import json
import textwrap

from tutor.lessons import LESSON_FORMAT, all_lessons, lesson_files


def listing(run) -> dict:
    result = run(["lesson", "--json"])
    assert result.exit_code == 0, result.output
    return {entry["name"]: entry for entry in json.loads(result.stdout)}


def test_json_list_has_name_title_steps_and_done_for_every_lesson(run):
    result = run(["lesson", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [e["name"] for e in data][:3] == ["layout", "osmosis-filter", "starting-rank"]
    assert len(data) == len(lesson_files()) >= 8
    for entry in data:
        assert set(entry) == {"name", "title", "steps", "done"}
        assert isinstance(entry["steps"], int) and entry["steps"] > 0
        assert entry["done"] is False


def test_list_shows_titles_and_how_many_are_done(run):
    result = run(["lesson"])
    assert result.exit_code == 0
    assert "The osmosis filter" in result.stdout
    assert "0 of " in result.stdout and "lessons done" in result.stdout


def test_scripted_run_gives_right_and_wrong_feedback_and_marks_the_lesson_done(run, home):
    result = run(["lesson", "osmosis-filter", "--answers", "QC qc 3d"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Lesson 2: The osmosis filter" in out
    assert "Step 4 of 4" in out
    # Step 1: QC is wrong, with the engine's reason and the step's tip.
    assert "Not quite: QS goes to row 1" in out
    assert "QC cannot be played now: it is on top of reserve pile 2, but row 2 (clubs) takes a Q only" in out
    assert "Tip: Row 2 takes only the ranks that row 1 already has." in out
    # Steps 2 and 3 are right.
    assert "Right: with QS in row 1, row 2 (clubs) accepts QC" in out
    assert "Right: 3D goes to row 1" in out
    assert "Lesson 2 (osmosis-filter) done. 2 of 3 answers right." in out
    assert "Steps to look at again: 1" in out
    assert listing(run)["osmosis-filter"]["done"] is True
    saved = json.loads((home / "progress.json").read_text(encoding="utf-8"))
    assert saved["lessons"]["osmosis-filter"]["last"] == {"right": 2, "asked": 3, "finished": True}


def test_scripted_run_as_json(run):
    result = run(["lesson", "layout", "--answers", "d w", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["lesson"] == "layout" and data["done"] is True
    assert data["right"] == 2 and data["asked"] == 2
    assert [a["best"] for a in data["answers"]] == ["d", "w"]


def test_wrong_number_of_answers_is_an_input_error(run):
    result = run(["lesson", "layout", "--answers", "d"])
    assert result.exit_code == 1
    assert result.stderr.strip() == ("error: 1 answer given but lesson 'layout' asks 2 questions: "
                                     "give one answer per question, in order")


def test_an_answer_that_is_no_move_is_an_input_error(run):
    result = run(["lesson", "layout", "--answers", "d zz"])
    assert result.exit_code == 1
    assert "unknown move 'zz'" in result.stderr


def test_answers_take_the_words_the_questions_offer(run):
    """"Open diamonds with QD, or turn?": --answers "turn d" was refused ("unknown move 'turn'", exit 1)."""
    result = run(["lesson", "reserve-traps", "--answers", "turn turn", "--json"])
    assert result.exit_code == 0, result.stderr
    assert [a["answer"] for a in json.loads(result.stdout)["answers"]] == ["turn", "turn"]


def test_check_of_a_shipped_lesson_exits_zero(run):
    result = run(["lesson", "starting-rank", "--check"])
    assert result.exit_code == 0, result.output
    assert "4 of 4 steps confirmed by the engine" in result.stdout


def test_check_of_a_lesson_with_a_false_claim_exits_one_naming_the_step(run, tmp_path):
    path = tmp_path / "false-claim.toml"
    path.write_text(textwrap.dedent(f"""
        format = "{LESSON_FORMAT}"
        name = "false-claim"
        title = "A lesson that is wrong"
        level = 20
        introduction = "It claims too much."
        deal = 1

        [[steps]]
        text = "The start of deal 1."
        [steps.claims]
        start_rank = "2"

        [[steps]]
        moves = "d d d d d"
        text = "7S is on the waste."
        question = "What now?"
        expect = "d"
        judge = "rules"
        teaches = "turn, because nothing can be played"
        """), encoding="utf-8")
    result = run(["lesson", str(path), "--check"])
    assert result.exit_code == 1
    assert "ok   false-claim step 1" in result.stdout
    assert "FAIL lesson file" in result.stdout and "step 2: expects d" in result.stdout
    assert "1 of 2 steps confirmed by the engine; 1 failed" in result.stdout
    assert result.stderr.strip() == "error: lesson 'false-claim' step 2 does not check out"


def test_check_json_reports_every_step(run):
    result = run(["lesson", "layout", "--check", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [r["step"] for r in data] == [1, 2, 3, 4, 5, 6]
    assert all(r["ok"] for r in data)


def test_piped_lesson_with_hints_a_wrong_and_a_right_answer(run):
    # Piped input is read only at questions (text steps do not wait), one
    # line a try: h (the step's nudge), h (the engine's view), a bad token
    # (no try), a wrong answer (the hint and a second try), an empty line
    # (asked again), the wrong answer again (now the verdict), then the right
    # answer to the second question.
    answers = ["?", "h", "h", "zz", "r1", "", "r1", "7s"]
    result = run(["lesson", "layout"], input="\n".join(answers) + "\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Answer with a move: r1-r4 (a reserve pile), w (the waste), d (turn the talon)" in out  # ? is help
    assert "unknown move '?'" not in out
    assert "Hint: Look for a spade or a 2" in out
    assert "By the rules:" in out
    table = out[out.index("By the rules:"):].splitlines()
    assert table[1].split() == ["move", "answer"] and table[2].split()[-1] == "right"
    assert "unknown move 'zz'" in out
    first, verdict = out.index("Not quite. Try once more."), out.index("Not quite: no card fits yet")
    assert first < verdict and out.count("Not quite: no card fits yet") == 1
    assert out.count("Hint: Look for a spade or a 2") == 2  # asked for, then given with the second try
    assert "Right: 7S is a spade" in out
    assert "Lesson 1 (layout) done. 1 of 2 answers right." in out
    assert listing(run)["layout"]["done"] is True


def test_quitting_part_way_does_not_mark_the_lesson_done(run):
    result = run(["lesson", "layout"], input="q\n")
    assert result.exit_code == 0
    assert "Stopped at step 2: 0 of 0 answers right so far." in result.stdout
    assert listing(run)["layout"]["done"] is False


def test_quitting_a_lesson_done_before_says_it_stays_done(run):
    assert run(["lesson", "osmosis-filter", "--answers", "QS qc 3d"]).exit_code == 0
    result = run(["lesson", "osmosis-filter"], input="q\n")  # it said "The lesson is not marked done."
    assert "so far. It stays done from an earlier run." in result.stdout
    assert listing(run)["osmosis-filter"]["done"] is True


def test_end_of_input_stops_the_lesson_without_a_traceback(run):
    result = run(["lesson", "waiting"], input="")
    assert result.exit_code == 0
    assert "Stopped at step 1" in result.stdout


def test_broken_progress_file_is_reported_in_one_line_and_set_aside(run, home):
    home.mkdir(parents=True)
    (home / "progress.json").write_text("{oops", encoding="utf-8")
    result = run(["lesson", "--json"])
    assert result.exit_code == 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: progress file")
    assert "set aside" in lines[0]
    assert json.loads(result.stdout)[0]["done"] is False
    assert [p.name.startswith("progress.json.broken-") for p in home.iterdir()] == [True]
    again = run(["lesson", "--json"])
    assert again.stderr == ""


def test_unknown_lesson_is_one_line_and_exit_one(run):
    result = run(["lesson", "no-such-lesson"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: no lesson called 'no-such-lesson'")
    assert len(result.stderr.strip().splitlines()) == 1


def test_answers_without_a_name_is_a_usage_error(run):
    result = run(["lesson", "--answers", "d"])
    assert result.exit_code == 2


def test_piped_wrong_then_right_answer_gets_the_hint_then_counts_as_right_at_the_second_try(run):
    # Step 1 of the osmosis filter: QC is wrong (row 2 takes no Q yet), QS is right.
    piped = run(["lesson", "osmosis-filter"], input="qc\nqs\nqc\n3d\n")
    assert piped.exit_code == 0, piped.output
    out = piped.stdout
    retry = out.index("Not quite. Try once more.")
    # The first try gets the engine's reason and the hint, never the verdict or the lesson's point.
    between = out[retry:out.index("Right: QS goes to row 1")]
    assert "QC cannot be played now" in between and "Hint: " in between
    assert "Not quite: QS goes to row 1" not in out and "Tip:" not in between
    assert "Lesson 2 (osmosis-filter) done. 3 of 3 answers right (1 at the second try)." in out


def test_scripted_tries_map_one_token_per_question_and_a_slash_for_a_second_try(run):
    result = run(["lesson", "osmosis-filter", "--answers", "QC/qs qc 3d", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [a["tries"] for a in data["answers"]] == [["QC", "qs"], ["qc"], ["3d"]]
    assert [a["right"] for a in data["answers"]] == [True, True, True]
    assert data["answers"][0]["answer"] == "qs"
    text = run(["lesson", "osmosis-filter", "--answers", "QC/qs qc 3d"]).stdout
    assert text.index("answer: QC") < text.index("Not quite. Try once more.") < text.index("answer: qs")
    assert "done. 3 of 3 answers right (1 at the second try)." in text
    # One wrong try and no second: the verdict at once, as before.
    once = run(["lesson", "osmosis-filter", "--answers", "QC qc 3d"]).stdout
    assert "Try once more" not in once and "Not quite: QS goes to row 1" in once


def test_scripted_answer_with_more_than_two_tries_is_an_input_error(run):
    result = run(["lesson", "layout", "--answers", "r1/r2/d w"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: answer 'r1/r2/d' is not one or two tries")
    assert len(result.stderr.strip().splitlines()) == 1


def step_displays(run, lesson) -> dict[int, str]:
    """What the learner is shown before each step's question (the lesson taken with its expected answers)."""
    answers = " ".join(step.expect for step in lesson.steps if step.asks)
    result = run(["lesson", lesson.name, "--answers", answers] if answers else ["lesson", lesson.name])
    assert result.exit_code == 0, result.output
    out, total, shown = result.stdout, len(lesson.steps), {}
    for step in lesson.steps:
        start = out.index(f"Step {step.number} of {total}\n")
        end = out.index(step.question, start) if step.asks else out.index(step.text.split("\n")[0], start)
        shown[step.number] = out[start:end]
    return shown


def test_every_step_that_says_the_whole_talon_was_seen_shows_the_remembered_talon(run):
    checked = 0
    for lesson in all_lessons():
        shown = step_displays(run, lesson)
        for step in lesson.steps:
            words = " ".join((step.text, step.hint, step.question or "", step.teaches)).replace("\n", " ")
            if "seen the whole talon" not in words:
                continue
            checked += 1
            state = step.state
            assert state.pass_no >= 2 or state.pos == len(state.talon), (lesson.name, step.number)
            assert "You have seen the whole talon in this order:" in shown[step.number], (lesson.name, step.number)
    assert checked >= 4  # waiting 3 and 5, reserve-traps 2, starting-rank 4


def test_remembered_talon_lists_the_stock_a_turn_at_a_time_before_the_question(run):
    lesson = next(l for l in all_lessons() if l.name == "waiting")
    shown = step_displays(run, lesson)[5]
    line = next(l for l in shown.splitlines() if l.startswith("You have seen"))
    # Deal 20, second pass: the waste (top 9H AC QH) and then the 17 stock cards in turns of three.
    assert "9H AC QH (top), then in the stock, a turn of 3 at a time: " in line
    groups = line.split("a turn of 3 at a time: ")[1].rstrip(".").split(", ")
    assert [len(g.split()) for g in groups] == [3, 3, 3, 3, 3, 2]
    first = step_displays(run, next(l for l in all_lessons() if l.name == "layout"))[1]
    assert "You have seen" not in first  # the start of a deal has no past to show


def test_a_hint_judged_step_says_its_figures_with_their_intervals_and_deals(run):
    """'By the tutor (...): r3 (...) gives win 5%, 33.5 cards; d (...) gives win 28%, 41.3 cards.' printed the
    hint's sampled figures bare, beside the reason's '28% (95%: 21-36%)' for the same move."""
    import re

    result = run(["lesson", "waiting", "--answers", "d 6D r3 6H d"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())  # wrapped at word boundaries for the terminal
    # a move lost in every consistent deal (step 5's turn, which blocks the game) has no interval to give
    win = r"win (\d+)% (?:\(95%: (\d+)-(\d+)%, \d+ deals\)|\(in every consistent deal\))"
    cards = r"(?:about )?\d+(?:\.\d)? cards \((?:95%: [\d.]+-[\d.]+, \d+ deals|in each of the \d+ deals)\)"
    said = re.findall(rf"By the tutor \(from the cards you have seen\): (.+?) gives {win} and {cards}; "
                      rf"(.+?) gives {win} and {cards}\. (.+?)(?= Tip: )", out)
    assert len(said) == 2, out  # steps 3 and 5, each answered wrong
    for found in said:
        reason = found[-1]
        for pct, lo, hi in (found[1:4], found[5:8]):  # the reason gives the same win figures
            shown = f"{pct}% (95%: {lo}-{hi}%)" if lo else f"{pct}% (in every consistent deal)"
            assert shown in reason, (pct, lo, hi, reason)
    assert not re.search(r"gives win \d+%,", out)


def test_the_second_hint_of_a_hint_judged_step_shows_every_figure_with_its_interval_and_deals(run):
    out = run(["lesson", "waiting"], input="d\n6D\nh\nh\nr3\nq\n").stdout
    table = out[out.index("The tutor, from the cards you have seen:"):].splitlines()
    assert table[1].split() == ["move", "win", "95%", "cards", "95%", "deals"]
    import re
    for row in table[2:4]:
        assert re.search(r"\d+%\s+\d+-\d+%\s+\d+\.\d\s+\d+-\d+\s+128$", row), row


def test_a_very_long_answer_is_quoted_cut_as_in_play(run):
    result = run(["lesson", "layout"], input="x" * 5000 + "\nq\n")
    assert result.exit_code == 0
    line = next(line for line in result.stdout.splitlines() if "unknown move" in line)
    assert "(5000 characters)" in line and len(line) < 400


def test_the_list_shows_the_best_finished_run_not_an_abandoned_try(run):
    """After a finished run with 2 of 2 right, a try stopped after a wrong answer made the list say
    'yes (0/1 right)'; it shows the best finished run."""
    assert run(["lesson", "layout"], input="d\n7s\n").exit_code == 0
    assert run(["lesson", "layout"], input="r1\nr1\nq\n").exit_code == 0
    row = next(line for line in run(["lesson"]).stdout.splitlines() if " layout " in line)
    assert "yes (best 2/2 right)" in row


def test_a_lesson_name_in_another_case_opens_it_and_the_error_lists_lessons_in_teaching_order(run):
    lower = run(["lesson", "layout", "--json"])
    upper = run(["lesson", "Layout", "--json"])
    assert upper.exit_code == 0 and upper.stdout == lower.stdout
    result = run(["lesson", "nope"])
    assert "expected one of layout, osmosis-filter, starting-rank, first-row, waiting, reserve-traps, " \
           "turning-three, variants (or a level number, 1-8" in " ".join(result.stderr.split())


def test_an_answer_given_after_the_answer_was_shown_is_not_counted_as_found(run):
    # layout: the first question answered wrong twice; the second answered after h, h (the verdict table)
    moves = "r1\nr1\nh\nh\n7s\n"
    out = " ".join(run(["lesson", "layout"], input=moves).stdout.split())
    assert "Lesson 1 (layout) done. 0 of 2 answers right (1 more after the answer was shown)." in out
    assert "Steps to look at again: 2, 4" in out
    found = " ".join(run(["lesson", "layout"], input="r1\nr1\nh\n7s\n").stdout.split())
    assert "done. 1 of 2 answers right." in found  # the first hint nudges and shows nothing


def test_a_lesson_taken_from_typed_answers_with_json_prints_only_the_json(run):
    """With piped answers and --json the whole lesson came before the JSON on stdout, so no reader could take
    it; the lesson now goes to stderr."""
    result = run(["lesson", "layout", "--json"], input="d\n7s\n")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["done"] is True and data["right"] == 2
    assert "Lesson 1: The layout and the moves" in result.stderr


def test_a_lesson_file_the_engine_does_not_confirm_is_refused_and_one_it_does_keeps_its_own_progress(run, tmp_path):
    """A file --check rejects was taught as if nothing were wrong, and marked the shipped lesson of its name done
    with its own score."""
    from tutor.lessons.files import lesson_files

    shipped = dict(lesson_files())["layout"].read_text(encoding="utf-8")
    wrong = tmp_path / "bad" / "layout.toml"
    wrong.parent.mkdir()
    wrong.write_text(shipped.replace('expect = "7S"', 'expect = "d"').replace('wrong = ["d"]', 'wrong = ["7S"]'),
                     encoding="utf-8")
    refused = run(["lesson", str(wrong), "--answers", "d d"])
    assert refused.exit_code == 1 and refused.stdout == "" and refused.stderr.count("\n") == 1
    assert "step 4: expects d" in refused.stderr and "--check lists every claim" in refused.stderr
    mine = tmp_path / "mine" / "layout.toml"
    mine.parent.mkdir()
    mine.write_text(shipped, encoding="utf-8")
    assert run(["lesson", str(mine), "--answers", "d 7s"]).exit_code == 0
    listed = {row["name"]: row["done"] for row in json.loads(run(["lesson", "--json"]).stdout)}
    assert listed["layout"] is False  # the shipped lesson is not done by a file of one's own
