"""The lesson format: loading, validation errors, claims confirmed by the engine, the judge, progress."""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from builders import position

from tutor.deals import deal_for
from tutor.errors import LessonError, MoveError
from tutor.lessons import (
    LESSON_FORMAT,
    Progress,
    all_lessons,
    check_lesson,
    check_step,
    find_lesson,
    full_information,
    judge_answer,
    lesson_files,
    load_lesson_file,
    load_progress,
    parse_lesson,
    verdict_for,
)
from tutor.notation import Move
from tutor.rules import preset

SHIPPED = [name for name, _ in lesson_files()]

# Deal 1 after five turns: 7S on top of the waste, nothing else playable.
SEVEN_SPADES = "d d d d d"
# Deal 78 in Peek at the end of its first pass: QD on pile 3 would open
# diamonds above clubs, and pile 1 holds 9C above 9D, so r3 loses.
PEEK_78 = "r1 r2 r2 r2 d w w w d d d d w d d d d d d d"


def lesson_text(steps: str, head: str = "") -> str:
    """A lesson file around the given [[steps]] tables."""
    return (f'format = "{LESSON_FORMAT}"\nname = "sample"\ntitle = "A sample"\nlevel = 9\n'
            f'introduction = "For the tests."\n{head}\n' + textwrap.dedent(steps))


def write_lesson(tmp_path: Path, steps: str, head: str = "") -> Path:
    path = tmp_path / "sample.toml"
    path.write_text(lesson_text(steps, head), encoding="utf-8")
    return path


# ---- the shipped lessons ------------------------------------------------------

def test_at_least_eight_lessons_ship_in_teaching_order():
    lessons = all_lessons()
    assert len(lessons) >= 8
    levels = [lesson.level for lesson in lessons]
    assert levels == sorted(levels) and len(set(levels)) == len(levels)
    assert [lesson.name for lesson in lessons[:8]] == [
        "layout", "osmosis-filter", "starting-rank", "first-row", "waiting", "reserve-traps",
        "turning-three", "variants"]


def test_shipped_lesson_texts_have_no_ragged_line_breaks():
    """Lesson prose is printed as written: a line broken far short of its neighbours reads as a stray break
    (layout step 3 had "row yet. The two under" alone on a line)."""
    import tomllib

    ragged = []
    for name, path in lesson_files():
        def walk(value, where):
            if isinstance(value, dict):
                for key, sub in value.items():
                    walk(sub, f"{where}.{key}")
            elif isinstance(value, list):
                for i, sub in enumerate(value):
                    walk(sub, f"{where}[{i}]")
            elif isinstance(value, str):
                lines = value.split("\n")
                for a, b in zip(lines, lines[1:]):
                    if a and b and len(a) < 55 and len(a) + 1 + len(b.split(" ")[0]) <= 76:
                        ragged.append((where, a))
        walk(tomllib.loads(path.read_text(encoding="utf-8")), name)
    assert ragged == []


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_lesson_checks_out_against_the_engine(name):
    lesson = find_lesson(name)
    results = check_lesson(lesson)
    failures = [r.message for r in results if not r.ok]
    assert not failures, failures
    assert lesson.questions >= 1


def test_every_shipped_question_lists_a_wrong_answer_the_engine_rejects():
    # A question whose every answer is right teaches nothing; the check
    # confirms each listed wrong answer, so there must be one.
    for lesson in all_lessons():
        for step in lesson.steps:
            if step.asks:
                assert step.wrong, f"{lesson.name} step {step.number}"


def test_solver_judged_steps_show_the_player_every_card_they_judge_with():
    for lesson in all_lessons():
        for step in lesson.steps:
            if step.judge == "solver":
                assert step.reveal or full_information(step.state), f"{lesson.name} step {step.number}"


def test_lesson_found_by_level_number_and_unknown_name_lists_the_lessons():
    assert find_lesson("2").name == "osmosis-filter"
    with pytest.raises(LessonError, match="no lesson called 'nope'.*layout"):
        find_lesson("nope")


# ---- claims the engine does not confirm -----------------------------------------

def test_false_expected_move_fails_the_check_naming_file_and_step(tmp_path):
    path = write_lesson(tmp_path, f"""
        [[steps]]
        text = "fine"
        deal = 1

        [[steps]]
        deal = 78
        variant = "peek"
        moves = "{PEEK_78}"
        text = "Open diamonds?"
        question = "QD or turn?"
        expect = "r3"
        teaches = "open diamonds at once"
        """)
    lesson = load_lesson_file(path)
    results = check_lesson(lesson)
    assert results[0].ok
    assert not results[1].ok
    assert "sample.toml', step 2" in results[1].message
    assert "expects r3" in results[1].message and "solver" in results[1].message


def test_a_wrong_answer_the_engine_accepts_fails_the_check(tmp_path):
    path = write_lesson(tmp_path, f"""
        [[steps]]
        deal = 1
        moves = "{SEVEN_SPADES}"
        text = "7S is on the waste."
        question = "Play it?"
        expect = "7S"
        judge = "rules"
        teaches = "row 1 takes any spade"
        wrong = ["w"]
        """)
    [result] = check_lesson(load_lesson_file(path))
    assert not result.ok
    assert "step 1" in result.message and "claims w is wrong" in result.message


def _rules_step(tmp_path: Path, deal: int, moves: str, expect: str, question: str = "Type a card you can play now."):
    """The check of a one-step lesson asking a rules question at deal ``deal`` after ``moves``."""
    path = write_lesson(tmp_path, f"""
        [[steps]]
        deal = {deal}
        moves = "{moves}"
        text = "A position."
        question = "{question}"
        expect = "{expect}"
        judge = "rules"
        teaches = "{expect} can be played"
        """)
    [result] = check_lesson(load_lesson_file(path))
    return result


def test_a_rules_answer_the_hint_rates_really_worse_fails_the_check(tmp_path):
    """Deal 1 with 2C on the waste asked "Type the card that can start a new row" and told a player who turned
    "Not quite", while the hint rates opening clubs there 7 points (95%: 2.4-12.6) below the turn: a rules
    question must not teach against the tutor's own advice, so the check refuses it."""
    result = _rules_step(tmp_path, 1, "d d d d d w d w d", "2C", "Type the card that can start a new row.")
    assert not result.ok
    assert "expects w (2C can be played) from the rules, but the hint rates it 7.0 points of win chance below d " \
           "(95%: 2.4-12.6), on 128 deals consistent" in result.message
    # no move wins there: the hint's advice is the cards, 32 (31-33) for the turn against 23 for AD
    result = _rules_step(tmp_path, 2, "d r3 r2 d r2 w d w d d d w r2 r4 d w d d w d d d d d w d d d d w d d", "AD")
    assert not result.ok and "from the rules, but the hint rates it" in result.message
    assert "rates it 8.7 cards below d: about 23 (95%: 23-24) against 32 (95%: 31-33), on 96 deals" in result.message
    # the hint's best is a play the rules accept too: nobody is told "Not quite", whatever the figures
    result = _rules_step(tmp_path, 4, "", "6C")
    assert result.ok, result.message


@pytest.mark.parametrize("claims, problem", [
    ('rows = ["S", "H"]', "claims the rows are S H, but they are S"),
    ('start_rank = "3"', "claims the starting rank is 3, but it is 2"),
    ('legal = ["d", "w"]', "claims the legal moves are d w"),
    ("blocked = true", "claims blocked = true"),
    ("lost_from_start = true", "finds no cycle"),
    ("winnable = true", "finds it lost"),
    ('went_by = ["7S"]', "claims the cards that went by playable are 7S, but along its moves the engine could "
                         "have played none"),
])
def test_each_kind_of_false_claim_is_caught(tmp_path, claims, problem):
    path = write_lesson(tmp_path, f"""
        [[steps]]
        deal = 1
        text = "Deal 1."
        [steps.claims]
        {claims}
        """)
    step = load_lesson_file(path).steps[0]
    with pytest.raises(LessonError, match="step 1") as info:
        check_step(step)
    assert problem in str(info.value)


def test_a_went_by_claim_must_name_every_card_let_go_by(tmp_path):
    """Deal 1, turned twelve times: 7S, 4S, 2C and QS each lay playable on the waste and went by."""
    text = """
        [[steps]]
        deal = 1
        moves = "d d d d d d d d d d d d"
        text = "The whole pass with no play."
        [steps.claims]
        went_by = [{cards}]
        """
    good = load_lesson_file(write_lesson(tmp_path, text.format(cards='"7S", "4S", "2C", "QS"'))).steps[0]
    assert "went_by" in check_step(good)
    short = load_lesson_file(write_lesson(tmp_path, text.format(cards='"7S"'))).steps[0]
    with pytest.raises(LessonError, match="engine could have played 2C 4S 7S QS"):
        check_step(short)


def test_true_claims_about_a_trapped_deal_are_confirmed(tmp_path):
    path = write_lesson(tmp_path, """
        [[steps]]
        deal = 7
        variant = "peek"
        text = "8H lies on 8S."
        [steps.claims]
        lost_from_start = true
        cycle = ["8H", "8S"]
        start_rank = "7"
        """)
    assert "lost_from_start" in check_step(load_lesson_file(path).steps[0])


def test_a_cycle_claim_naming_cards_outside_the_cycle_fails(tmp_path):
    path = write_lesson(tmp_path, """
        [[steps]]
        deal = 7
        variant = "peek"
        text = "Trap."
        [steps.claims]
        cycle = ["8H", "KD"]
        """)
    with pytest.raises(LessonError, match="cycle holds KD"):
        check_step(load_lesson_file(path).steps[0])


# ---- malformed files ----------------------------------------------------------------

def test_invalid_toml_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('format = "osmosis-lesson/1"\nname = \n', encoding="utf-8")
    with pytest.raises(LessonError, match=r"lesson file '.*broken.toml': not valid TOML"):
        load_lesson_file(path)


def test_unknown_format_version_is_refused(tmp_path):
    path = tmp_path / "sample.toml"
    path.write_text(lesson_text("").replace(LESSON_FORMAT, "osmosis-lesson/9"), encoding="utf-8")
    with pytest.raises(LessonError, match="format 'osmosis-lesson/9' is not supported"):
        load_lesson_file(path)


def test_missing_step_field_names_file_step_and_field(tmp_path):
    path = write_lesson(tmp_path, """
        [[steps]]
        deal = 1
        text = "ok"

        [[steps]]
        deal = 1
        """)
    with pytest.raises(LessonError, match=r"sample.toml', step 2: missing field 'text'"):
        load_lesson_file(path)


def test_missing_title_names_the_file(tmp_path):
    path = tmp_path / "sample.toml"
    path.write_text(lesson_text('[[steps]]\ndeal = 1\ntext = "x"\n').replace('title = "A sample"\n', ""),
                    encoding="utf-8")
    with pytest.raises(LessonError, match=r"sample.toml': missing field 'title'"):
        load_lesson_file(path)


@pytest.mark.parametrize("step, problem", [
    ('deal = 1\ntext = "x"\nsay = "typo"', "unknown field(s) say"),
    ('text = "x"', "missing field 'deal'"),
    ('deal = 1\ntext = "x"\nmoves = "d x9"', "unknown move 'x9'"),
    ('deal = 1\ntext = "x"\nmoves = "w"', "setup move 1 (w) does not replay"),
    ('deal = 1\ntext = "x"\nvariant = "nope"', "unknown variant 'nope'"),
    ('deal = 1\ntext = "x"\nquestion = "?"', "has no 'expect'"),
    ('deal = 1\ntext = "x"\nquestion = "?"\nexpect = "d"', "has no 'teaches'"),
    ('deal = 1\ntext = "x"\nexpect = "d"', "need a 'question'"),
    ('deal = 1\ntext = "x"\nquestion = "?"\nexpect = "1X"\nteaches = "t"', "unknown move '1X'"),
    ('deal = 1\ntext = "x"\njudge = "oracle"', "judge 'oracle' is unknown"),
    ('deal = 1\ntext = "x"\njudge = "solver"', "would use cards the player has not seen"),
    ('deal = 1\ntext = "x"\n[steps.claims]\nsunny = true', "unknown claim(s) sunny"),
    ('deal = 1\ntext = "x"\n[steps.claims]\nrows = ["X"]', "'X' is not a suit"),
    ('deal = 1\ntext = "x"\n[steps.claims]\nscore = "ten"', "expected a whole number"),
    ('continue = true\ntext = "x"', "no previous step"),
])
def test_malformed_step_gives_lesson_error_naming_file_and_step(tmp_path, step, problem):
    path = write_lesson(tmp_path, "[[steps]]\n" + step + "\n")
    with pytest.raises(LessonError) as info:
        load_lesson_file(path)
    message = str(info.value)
    assert "sample.toml', step 1" in message
    assert problem in message


def test_file_name_must_match_the_lesson_name(tmp_path):
    path = tmp_path / "other.toml"
    path.write_text(lesson_text('[[steps]]\ndeal = 1\ntext = "x"\n'), encoding="utf-8")
    with pytest.raises(LessonError, match="does not match the file name: expected 'other'"):
        load_lesson_file(path)


def test_inline_deal_and_continued_steps(tmp_path):
    data = deal_for(1, preset("osmosis")).to_json()  # deal 1, written out inline
    inline = ", ".join(f"{k} = {json.dumps(v)}" for k, v in data.items())
    path = write_lesson(tmp_path, f"""
        [[steps]]
        text = "an inline deal"
        moves = "d d"
        deal = {{ {inline} }}

        [[steps]]
        continue = true
        moves = "d d d"
        text = "five turns in"
        [steps.claims]
        playable = ["7S"]
        """)
    lesson = load_lesson_file(path)
    assert lesson.steps[1].moves == tuple(Move.parse("d") for _ in range(5))
    assert lesson.steps[1].state == position(1, SEVEN_SPADES)
    assert all(r.ok for r in check_lesson(lesson))


# ---- judging answers ------------------------------------------------------------------

def test_rules_question_right_and_wrong_answers_get_the_engine_reason_and_the_tip():
    step = find_lesson("osmosis-filter").steps[0]
    right = judge_answer(step, "qs")
    assert right.right and right.move == Move.parse("w")
    assert right.lines[0].startswith("Right:")
    same = judge_answer(step, "w")
    assert same.right
    wrong = judge_answer(step, "QC")
    assert not wrong.right and wrong.move is None
    assert wrong.lines[0].startswith("Not quite:")
    assert any("row 2 (clubs) takes a Q only once row 1 (spades) holds one" in line for line in wrong.lines)
    assert any(line.startswith("Tip: Row 2 takes only the ranks") for line in wrong.lines)


def test_a_question_that_offers_words_takes_them():
    """"Open hearts with 6H, or turn?" refused "turn", the word it offers: "turn" (or "wait") is d, and "play"
    or "open" the one card the question names; where it names none, the error says to type the card."""
    def asking(name: str) -> list:
        return [s for s in find_lesson(name).steps if s.asks]

    six_hearts = asking("waiting")[0]
    assert six_hearts.question == "Open hearts with 6H, or turn?"
    turn = judge_answer(six_hearts, " Turn ")
    assert turn.move == Move.parse("d") and turn.right == judge_answer(six_hearts, "d").right
    assert judge_answer(six_hearts, "wait").move == Move.parse("d")
    assert judge_answer(six_hearts, "open").move == judge_answer(six_hearts, "6h").move is not None
    queen = asking("turning-three")[1]
    assert queen.question == "Play QD, or turn?"
    assert judge_answer(queen, "play").move == Move.parse("w") and not judge_answer(queen, "play").right
    now = next(s for s in asking("waiting") if s.question == "Open hearts now, or turn?")
    # a question that names no card offers the one play it speaks of: the one card that opens hearts' row
    assert judge_answer(now, "open").move == judge_answer(now, "6h").move == Move.parse("w")
    assert judge_answer(now, "open").right
    assert judge_answer(replace(now, question="Open a row now, or turn?"), "open it").move == Move.parse("w")
    for worded in ("Turn, or play QD?", "Do you play QD, or do you turn?", "Play QD or wait?"):
        assert judge_answer(replace(queen, question=worded), "play").move == Move.parse("w"), worded
    with pytest.raises(MoveError, match="type the card to open$"):  # no spade can open a row there
        judge_answer(replace(now, question="Open spades now, or turn?"), "open")
    # a question that asks for a card offers no word for it: "open" there names no card and is no answer
    for name, index, word in (("starting-rank", 0, "open"), ("first-row", 1, "play"), ("layout", 1, "play")):
        step = asking(name)[index]
        assert "or turn" not in step.question
        with pytest.raises(MoveError, match=f"type the card to {word}$"):
            judge_answer(step, word)
    with pytest.raises(MoveError, match="unknown move 'turnip'"):
        judge_answer(six_hearts, "turnip")


def test_a_reserve_pile_the_game_does_not_have_is_no_answer_and_costs_no_try():
    """In the Bridesmaids step (no reserve) r1 was judged a wrong answer and used up a try, while r5 was "no
    move" and cost none: a pile the game lacks is no answer either, said in the engine's words."""
    bridesmaids = next(s for s in find_lesson("variants").steps if s.asks and s.rules.reserve_piles == 0)
    with pytest.raises(MoveError, match="^r1 is not possible: reserve pile 1 does not exist; this game has no reserve$"):
        judge_answer(bridesmaids, "r1")
    assert not judge_answer(bridesmaids, "d").refusal  # a move the game has is still judged


def test_turning_when_a_card_is_asked_for_is_explained():
    step = find_lesson("osmosis-filter").steps[0]
    feedback = judge_answer(step, "d")
    assert not feedback.right
    assert any("the question asks for a card, and QS can be played now" in line for line in feedback.lines)


def test_solver_question_wrong_answer_names_the_trap_it_springs():
    step = find_lesson("starting-rank").steps[3]
    assert step.judge == "solver"
    wrong = judge_answer(step, "r3")
    assert not wrong.right
    text = " ".join(wrong.lines)
    assert "r3 (play TH from reserve pile 3) gives a lost game" in text
    assert "w (play TS from the waste) gives a win" in text
    trap = text.split("After r3:", 1)[1]  # the engine's cycle, in its own words
    assert "8S" in trap and "8H" in trap and "JH" in trap
    assert judge_answer(step, "ts").right


def test_hint_judged_question_uses_the_tutors_scores():
    step = find_lesson("waiting").steps[4]
    assert step.judge == "hint" and not full_information(step.state)
    wrong = judge_answer(step, "d")
    assert not wrong.right
    assert "By the tutor (from the cards you have seen)" in " ".join(wrong.lines)
    assert judge_answer(step, "qh", wrong.verdict).right


def test_an_answer_that_is_no_move_or_card_is_refused():
    step = find_lesson("layout").steps[1]
    with pytest.raises(MoveError, match="unknown move 'x'"):
        judge_answer(step, "x")


# ---- progress -----------------------------------------------------------------------------

def test_progress_round_trips_through_an_atomic_file(tmp_path):
    path = tmp_path / "progress.json"
    progress = load_progress(path)
    assert progress.lessons == {} and progress.warning is None
    progress.record("layout", 2, 2, finished=True)
    progress.record("waiting", 1, 3, finished=False)
    progress.save()
    again = load_progress(path)
    assert again.done("layout") and not again.done("waiting")
    assert again.lessons["layout"]["last"] == {"right": 2, "asked": 2, "finished": True}
    assert [p.name for p in tmp_path.iterdir()] == ["progress.json"]


def test_a_finished_lesson_stays_done_after_an_unfinished_retry(tmp_path):
    progress = Progress(tmp_path / "progress.json")
    progress.record("layout", 2, 2, finished=True)
    progress.record("layout", 0, 1, finished=False)
    assert progress.done("layout")
    assert progress.lessons["layout"]["best_right"] == 2


@pytest.mark.parametrize("content", ["{not json", '{"format": "other", "lessons": {}}', "[1, 2]"])
def test_broken_progress_file_is_set_aside_and_reported(tmp_path, content):
    path = tmp_path / "progress.json"
    path.write_text(content, encoding="utf-8")
    progress = load_progress(path)
    assert progress.lessons == {}
    assert progress.warning and "progress file" in progress.warning and "set aside" in progress.warning
    assert not path.exists()
    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("progress.json.broken-")]
    assert aside.read_text(encoding="utf-8") == content
    progress.record("layout", 1, 2, finished=True)
    progress.save()
    assert load_progress(path).done("layout")


def test_progress_path_follows_osmosis_home(monkeypatch, tmp_path):
    from tutor.lessons import progress_path

    monkeypatch.setenv("OSMOSIS_HOME", str(tmp_path / "h"))
    assert progress_path() == tmp_path / "h" / "progress.json"
    monkeypatch.delenv("OSMOSIS_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert progress_path() == tmp_path / "xdg" / "osmosis-tutor" / "progress.json"


def test_lessons_are_found_in_the_package_or_the_source_tree():
    names = dict(lesson_files())
    assert "layout" in names
    folder = Path(str(names["layout"])).parent
    # The source tree's lessons/ (editable install), or tutor/lessons/data in an installed wheel.
    assert folder.name == "lessons" or (folder.name, folder.parent.name) == ("data", "lessons")
    assert find_lesson("layout").source == "lessons/layout.toml"
    assert parse_lesson(Path(str(names["layout"])).read_text(encoding="utf-8"), "x", "layout").name == "layout"


def test_lessons_shipped_inside_the_package_come_first(monkeypatch, tmp_path):
    # An installed wheel carries the lessons as tutor/lessons/data (see pyproject.toml).
    package = tmp_path / "tutor" / "lessons"
    (package / "data").mkdir(parents=True)
    source = dict(lesson_files())["layout"]
    (package / "data" / "layout.toml").write_text(Path(str(source)).read_text(encoding="utf-8"),
                                                   encoding="utf-8")
    import tutor.lessons.files as files_module

    asked = []
    monkeypatch.setattr(files_module.resources, "files", lambda name: asked.append(name) or package)
    found = lesson_files()
    assert asked and set(asked) == {"tutor.lessons"}
    assert [name for name, _ in found] == ["layout"]
    assert Path(str(found[0][1])).parent == package / "data"
    assert [lesson.name for lesson in all_lessons()] == ["layout"]


def test_typing_a_card_never_seen_does_not_say_where_it_lies():
    from tutor.cards import NAMES
    from tutor.knowledge import seen_cards
    from tutor.lessons import verdict_for

    for lesson in all_lessons():
        for step in lesson.steps:
            if not step.asks or full_information(step.state):
                continue
            hidden = [c for p in step.state.reserves for c in p[:-1]]
            hidden = [c for c in hidden if c not in seen_cards(step.state)]
            verdict = verdict_for(step)
            for card in hidden[:3]:
                text = " ".join(judge_answer(step, NAMES[card], verdict).lines)
                assert "under the top card" not in text and "pile 1" not in text.split("Tip:")[0], text
            return
    raise AssertionError("no lesson step with face-down cards")


# ---- what the learner has seen -------------------------------------------------------------

def _hidden_steps():
    """Every shipped step that asks and has face-down reserve cards the learner has never seen.

    Each comes with two swaps of unseen cards: two of one pile, and (when
    another pile has one) one of that pile with one of another pile.
    """
    from tutor.knowledge import seen_cards

    for lesson in all_lessons():
        for step in lesson.steps:
            if not step.asks or step.reveal:
                continue
            seen = seen_cards(step.state)
            unseen = [(p, i) for p, pile in enumerate(step.state.reserves)
                      for i, c in enumerate(pile[:-1]) if c not in seen]
            by_pile = {}
            for p, i in unseen:
                by_pile.setdefault(p, []).append((p, i))
            same = next((slots[:2] for slots in by_pile.values() if len(slots) >= 2), None)
            if same:
                yield pytest.param(step, *same, id=f"{lesson.name}-{step.number}-one-pile")
            if len(by_pile) >= 2:
                a, b = list(by_pile.values())[:2]
                yield pytest.param(step, a[0], b[0], id=f"{lesson.name}-{step.number}-two-piles")


HIDDEN_STEPS = list(_hidden_steps())


def test_some_shipped_steps_have_face_down_cards_to_swap():
    judges = {param.values[0].judge for param in HIDDEN_STEPS}
    assert len(HIDDEN_STEPS) >= 10 and {"rules", "hint"} <= judges


@pytest.mark.parametrize("step, a, b", HIDDEN_STEPS)
def test_swapping_two_face_down_cards_leaves_every_feedback_line_the_same(step, a, b):
    from dataclasses import replace

    from tutor.cards import NAMES
    from tutor.deals import Deal
    from tutor.knowledge import observe
    from tutor.lessons.words import remembered_talon, second_try_lines
    from tutor.talon import memory

    deal = step.deal
    piles = [list(p) for p in deal.reserves]
    (p, i), (q, j) = a, b
    piles[p][i], piles[q][j] = piles[q][j], piles[p][i]
    other = replace(step, deal=Deal(tuple(map(tuple, piles)), deal.base, deal.talon, deal.number))
    assert other.state.reserves != step.state.reserves  # a different deal ...
    assert observe(other.state) == observe(step.state)  # ... that looks the same to the learner
    hidden = [NAMES[piles[p][i]], NAMES[piles[q][j]]]
    answers = [step.expect, *step.wrong, *hidden, "d"]
    mine, theirs = verdict_for(step), verdict_for(other)
    for answer in answers:
        x, y = judge_answer(step, answer, mine), judge_answer(other, answer, theirs)
        assert x.lines == y.lines, answer
        assert x.right == y.right and second_try_lines(x) == second_try_lines(y)
    assert any(not judge_answer(step, answer, mine).right for answer in answers)
    assert remembered_talon(memory(observe(step.state)), 3) == remembered_talon(memory(observe(other.state)), 3)


def test_the_hint_judge_puts_the_hints_own_best_first_on_a_tie():
    """Osmosis deal 3 after 26 greedy moves: turning and w (6C) tie. The hint (and so the review and the
    drill's list) says d; the judge's first move, which a drill names as the answer, must be d too."""
    from tutor.hints import hint
    from tutor.knowledge import observe
    from tutor.lessons.judge import hint_verdict
    from tutor.state import State

    rules = preset("osmosis")
    state = State.initial(deal_for(3, rules), rules)
    for _ in range(26):
        state = state.apply(state.legal_moves()[0])
    verdict = hint_verdict(state, samples=64)
    assert verdict.scores[0].move == hint(observe(state), samples=64).best == Move.parse("d")
    assert {Move.parse("d"), Move.parse("w")} <= verdict.right
    assert verdict.scores[0].win == max(s.win for s in verdict.scores)


def test_two_lessons_taken_at_once_each_keep_their_progress(tmp_path):
    # the file was read when a lesson started and written whole when it ended: the last one to end erased the
    # other's lesson ("1 of 8 lessons done" after two were finished in two terminals)
    path = tmp_path / "progress.json"
    first, second = load_progress(path), load_progress(path)  # two terminals, each started before the other ended
    second.record("osmosis-filter", 3, 3, finished=True)
    second.save()
    first.record("layout", 2, 2, finished=True)
    first.record("osmosis-filter", 0, 1, finished=False)  # and a retry of the other one there, given up
    first.save()
    now = load_progress(path)
    assert now.done("layout") and now.done("osmosis-filter")
    assert now.lessons["osmosis-filter"]["best_right"] == 3
    assert now.lessons["osmosis-filter"]["last"] == {"right": 0, "asked": 1, "finished": False}
