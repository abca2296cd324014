"""Fuzzing the files the tutor reads: deal files, records, the progress file and lesson TOML.

Each strategy stands for a class of bad input (broken JSON, deep nesting,
huge integers, control characters, bytes that are not UTF-8); every file
must give data or one clean error, and the command line must answer with
exit status 0 or 1, one line on stderr and no control codes.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from builders import assert_handled, osmosis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor.cli.play import deal_json
from tutor.deals import deal_for, load_deal
from tutor.errors import DealError, LessonError, RecordError
from tutor.inputs import MAX_DEPTH
from tutor.lessons import load_progress, parse_lesson
from tutor.record import Record, load_record
from tutor.rules import preset

FUZZ = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RULES = preset("osmosis")
DEAL_TEXT = deal_json(deal_for(5, RULES))
RECORD_TEXT = Record(RULES, deal_for(1, RULES), ["d", "d", "d"], [{"label": "best", "comment": "ok"}]).dumps()
PROGRESS_TEXT = json.dumps({"format": "osmosis-progress/1",
                            "lessons": {"layout": {"done": True, "best_right": 2,
                                                   "last": {"right": 2, "asked": 2, "finished": True}}}})
LESSON_TEXT = (Path(__file__).resolve().parent.parent / "lessons" / "layout.toml").read_text()


# ---- strategies: one per class of bad input ---------------------------------
def broken(text: str):
    """``text`` cut, spliced or with junk put in: mostly not JSON any more."""
    junk = st.text(alphabet=st.sampled_from('{}[]",:0123456789-eE.truefalsn \\\n\t\x00'), max_size=12)
    return st.builds(lambda i, j, s: text[:i] + s + text[max(i, j):],
                     st.integers(0, len(text)), st.integers(0, len(text)), junk)


def nested(inner: str = "1"):
    """Arrays and objects nested from just past the limit to far beyond Python's recursion limit."""
    def build(depth: int, kinds: list[bool]) -> str:
        opens = "".join('{"a":' if kinds[i % len(kinds)] else "[" for i in range(depth))
        closes = "".join("}" if kinds[i % len(kinds)] else "]" for i in reversed(range(depth)))
        return opens + inner + closes

    return st.builds(build, st.sampled_from([MAX_DEPTH + 1, 500, 5_000, 100_000]),
                     st.lists(st.booleans(), min_size=1, max_size=4))


huge_int = st.integers(31, 6_000).map(lambda digits: "9" * digits)
control_text = st.text(st.characters(whitelist_categories=("Cc", "Cf", "Cs", "Co")), min_size=1, max_size=8)
bad_bytes = st.binary(min_size=1, max_size=40).filter(lambda b: not _decodes(b))


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def with_huge_int(text: str, key: str):
    """``text`` (JSON) with the value of its first ``key`` replaced by an integer of thousands of digits."""
    start = text.index(f'"{key}"')
    colon = text.index(":", start)
    end = min(i for i in (text.find(",", colon), text.find("}", colon), text.find("]", colon)) if i != -1)
    return huge_int.map(lambda n: text[: colon + 1] + " " + n + text[end:])


def any_bad(text: str, keys: list[str]):
    return st.one_of(broken(text), nested(), *(with_huge_int(text, k) for k in keys),
                     bad_bytes.map(lambda b: b + text.encode()))


def write(folder: Path, name: str, content) -> Path:
    path = folder / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return path


def cli(args, home: Path, input=None):
    return osmosis(args, home, input=input)


# ---- the library: data or one clean error ------------------------------------
@FUZZ
@given(any_bad(DEAL_TEXT, ["base"]))
def test_a_bad_deal_file_is_a_deal_error_or_a_deal(content):
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp), "d.json", content)
        try:
            load_deal(path)
        except DealError as exc:
            assert "\n" not in str(exc) and "d.json" in str(exc)


@FUZZ
@given(any_bad(RECORD_TEXT, ["number", "cards"]))
def test_a_bad_record_is_a_record_error_or_a_record(content):
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp), "r.json", content)
        try:
            load_record(path)
        except RecordError as exc:
            assert "\n" not in str(exc) and "r.json" in str(exc)


@FUZZ
@given(st.one_of(any_bad(PROGRESS_TEXT, ["best_right", "right"]),
                 st.sampled_from(['"x"', "[]", '{"asked": 2}', "null", "true", '{"last": {"asked": 2}}',
                                  '{"done": "yes"}', '{"last": {"right": 3, "asked": 1, "finished": true}}'])
                 .map(lambda entry: PROGRESS_TEXT.replace('{"done": true, "best_right": 2, "last": '
                                                          '{"right": 2, "asked": 2, "finished": true}}', entry))))
def test_a_bad_progress_file_is_set_aside_never_raised_and_never_lost(content):
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp), "progress.json", content)
        progress = load_progress(path)
        for name in progress.lessons:  # what is kept is usable as it is
            progress.done(name)
            progress.record(name, 1, 2, True)
        if progress.warning:
            kept = list(Path(tmp).glob("progress.json.broken-*"))
            assert len(kept) == 1
            original = content if isinstance(content, bytes) else content.encode()
            assert kept[0].read_bytes() == original
        progress.save()
        assert load_progress(path).warning is None


@FUZZ
@given(st.one_of(broken(LESSON_TEXT),
                 st.sampled_from([5_000, 100_000]).map(lambda n: LESSON_TEXT + "\ndeep = " + "[" * n + "]" * n),
                 huge_int.map(lambda n: LESSON_TEXT.replace("level = 1", f"level = {n}")),
                 control_text.map(lambda s: LESSON_TEXT.replace("The layout and the moves", f"The layout{s}"))))
def test_a_bad_lesson_file_is_a_lesson_error_or_a_lesson_without_control_codes(text):
    try:
        lesson = parse_lesson(text, "layout.toml", name="layout")
    except LessonError as exc:
        assert "\n" not in str(exc)
        return
    texts = [lesson.title, lesson.introduction] + [step.text for step in lesson.steps]
    assert not any(ch in t for t in texts for ch in "\x1b\x07\x00\u202e")


# ---- through the command line: a sample of each class ------------------------
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_bad(DEAL_TEXT, ["base"]))
def test_commands_given_a_bad_deal_file_answer_cleanly(content):
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp), "deal.json", content)
        for args in (["deal", "--deal-file", str(path)], ["solve", "--deal-file", str(path), "--nodes", "50"]):
            assert_handled(cli(args, Path(tmp) / "home"))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_bad(RECORD_TEXT, ["number", "cards"]))
def test_commands_given_a_bad_record_answer_cleanly(content):
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp), "game.json", content)
        home = Path(tmp) / "home"
        assert_handled(cli(["replay", str(path), "--all", "--no-review"], home))
        assert_handled(cli(["play", "--resume", str(path)], home, input="q\n"))
        if path.exists() and not isinstance(content, bytes):
            assert path.read_text() == content  # whatever happened, the file is as it was


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(nested(), huge_int.map(lambda n: PROGRESS_TEXT.replace('"best_right": 2', f'"best_right": {n}'))))
def test_lesson_goes_on_with_a_broken_progress_file_and_says_so(content):
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        write(home, "progress.json", content)
        result = cli(["lesson", "layout", "--answers", "d d", "--json"], home)
        assert_handled(result, allowed=(0,))
        assert "set aside" in result.stderr
        assert json.loads(result.stdout)["lesson"] == "layout"
        assert load_progress(home / "progress.json").warning is None  # the run's progress was saved


@FUZZ
@given(control_text, control_text)
def test_replay_prints_no_control_codes_from_a_record(label, comment):
    with tempfile.TemporaryDirectory() as tmp:
        record = Record(RULES, deal_for(1, RULES), ["d", "d"], [{"label": label, "comment": comment}, None])
        path = write(Path(tmp), "shared.json", json.dumps(record.to_json()))  # \\u escapes, as a hostile file has
        result = cli(["replay", str(path), "--all", "--no-review"], Path(tmp) / "home")
        assert_handled(result)
        if any("\ud800" <= ch <= "\udfff" for ch in label + comment):
            assert "not valid Unicode" in result.stderr
        else:
            assert result.exit_code == 0 and "Move 2: d" in result.stdout


@pytest.mark.parametrize("name", ["new\nline.json", "esc\x1b[2J.json", "bidi\u202eevil.json", "tab\there.json"])
def test_file_names_in_errors_are_quoted_on_one_line(tmp_path, name):
    result = cli(["replay", str(tmp_path / name)], tmp_path / "home")
    assert_handled(result)
    assert result.exit_code == 1 and "does not exist" in result.stderr


@pytest.mark.parametrize("content, wrong", [("", "is empty"), ("   \n", "is empty"),
                                            (DEAL_TEXT[:40], "is not valid JSON ("), ("{\x01}", "is not valid JSON (")])
def test_a_file_with_no_json_says_what_it_should_hold(tmp_path, content, wrong):
    """An empty or cut-short deal file or record said only "is not valid JSON: Expecting value at line 1 column
    1": the one line also says what would be right, the kind of file the command reads."""
    path = tmp_path / "f.json"
    path.write_text(content, encoding="utf-8")
    home = tmp_path / "home"
    for args, kind in ((["deal", "--deal-file", str(path)], "a deal file (osmosis-deal/1), as osmosis deal N --json"),
                       (["replay", str(path), "--no-review"], "a game record (osmosis-record/1), as osmosis play"),
                       (["play", "--resume", str(path)], "a game record (osmosis-record/1), as osmosis play")):
        result = cli(args, home, input="q\n")
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, (args, result.stderr)
        assert f"{wrong}" in result.stderr and f": expected {kind}" in result.stderr, (args, result.stderr)
    assert path.read_text(encoding="utf-8") == content
