"""Fuzzing what a player types or passes on the command line: lines, numbers, names, options.

Classes: bytes that are not UTF-8 typed at a prompt, control characters and
NUL in file names, numbers in other scripts or with signs and separators,
numbers far out of range (and nan), empty names, a data folder whose name
is not UTF-8 or is very long, and input that can be read only once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from builders import assert_handled, osmosis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_files import _decodes, bad_bytes, cli

from tutor.deals import deal_for, parse_deal_number
from tutor.errors import DealError
from tutor.record import Record, load_record, save_record
from tutor.rules import preset

RULES = preset("osmosis")
OSMOSIS = [sys.executable, "-c", "from tutor.cli import main; main()"]
FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])

# Digits that str.isdigit() or int() accept but a deal number must not: other scripts, superscripts,
# signs, separators, spaces inside.
odd_digits = st.text(st.characters(whitelist_categories=("Nd", "No"), blacklist_characters="0123456789"),
                     min_size=1, max_size=4)
odd_numbers = st.one_of(
    odd_digits,
    st.integers(1, 10**6).map(lambda n: f"+{n}"),
    st.integers(1000, 10**6).map(lambda n: f"{n:_}"),
    st.integers(1000, 10**6).map(lambda n: f"{n:,}"),
    st.integers(1, 999).map(lambda n: f"{n} 1"),
    st.integers(-10**6, -1).map(str),
    st.integers(10**20 + 1, 2**70).map(str),
    st.integers(31, 6000).map(lambda d: "9" * d),
)


bad_line = bad_bytes.map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")).filter(lambda b: not _decodes(b))


# ---- typed lines --------------------------------------------------------------
@FUZZ
@given(st.lists(bad_line, min_size=1, max_size=3))
def test_undecodable_lines_typed_in_play_are_refused_and_the_game_goes_on(tmp_path, lines):
    home = tmp_path / "home"
    shutil.rmtree(home, ignore_errors=True)
    typed = b"d\n" + b"\n".join(lines) + b"\nd\nq\n"
    result = cli(["play", "1"], home, input=typed)
    assert_handled(result, allowed=(0,))
    assert "is not utf-8 text, so it was ignored" in result.stdout
    (saved,) = (home / "games").glob("*.json")
    assert [str(m) for m in load_record(saved).moves] == ["d", "d"]


@FUZZ
@given(bad_line)
def test_undecodable_lines_in_replay_and_lesson_are_refused(tmp_path, line):
    record = tmp_path / "r.json"
    save_record(Record(RULES, deal_for(1, RULES), ["d", "d"]), record)
    replay = cli(["replay", str(record), "--no-review"], tmp_path / "home", input=line + b"\nq\n")
    assert_handled(replay, allowed=(0,))
    assert "Stopped after move 0" in replay.stdout
    lesson = cli(["lesson", "layout"], tmp_path / "home", input=b"\n" + line + b"\nq\n")
    assert_handled(lesson, allowed=(0,))
    assert "ignored" in lesson.stdout


@FUZZ
@given(st.text(st.characters(whitelist_categories=("Cc", "Cf")), min_size=1, max_size=6))
def test_file_names_with_control_characters_or_nul_are_saved_or_refused_on_one_line(tmp_path, junk):
    name = f"g{junk}.json".replace("/", "").replace("\n", "")
    result = cli(["play", "2"], tmp_path / "home", input=f"d\ns {tmp_path}/{name}\nq\n".encode())
    assert_handled(result, allowed=(0,))
    if "\0" in name:
        assert "cannot hold a NUL character" in result.stdout
    else:
        assert "Saved to" in result.stdout


def test_a_data_folder_named_in_bytes_that_are_not_utf8_is_printed_escaped(tmp_path):
    home = os.fsdecode(bytes(tmp_path) + b"/h\xffme")
    result = osmosis(["play", "3"], home, input="d\nq\n", catch=True)
    assert_handled(result, allowed=(0,))
    # the byte as it was, not Python's stand-in for it ("\\udcff")
    assert "h\\xffme" in result.stdout and "\\udc" not in result.stdout and "The game is saved in" in result.stdout


def test_a_data_folder_name_too_long_for_the_system_is_one_message_and_the_game_goes_on(tmp_path):
    home = str(tmp_path / ("x" * 5000))
    result = osmosis(["play", "3"], home, input="d\nq\nq\n", catch=True)
    assert_handled(result)
    assert "cannot be saved as you play" in result.stdout and "(5" in result.stdout  # quoted, shortened
    lesson = osmosis(["lesson", "layout", "--answers", "d d", "--json"], home, catch=True)
    assert_handled(lesson, allowed=(0,))
    assert "warning: progress" in lesson.stderr


# ---- numbers and names --------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(odd_numbers)
def test_deal_numbers_are_ascii_digits_in_range_only(text):
    with pytest.raises(DealError):
        parse_deal_number(text)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(odd_numbers)
def test_commands_refuse_odd_deal_numbers_on_one_line(run, text):
    result = run(["deal", "--", text])
    assert_handled(result)
    assert result.exit_code == 1 and "deal number" in result.stderr


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(odd_numbers, st.just("²"), st.just("0")))
def test_lesson_names_that_look_like_numbers_are_refused_on_one_line(run, name):
    result = run(["lesson", "--", name])
    assert_handled(result)
    assert result.exit_code == 1 and "no lesson called" in result.stderr and len(result.stderr) < 400


@pytest.mark.parametrize("args", [
    ["solve", "5", "--seconds", "nan"], ["solve", "5", "--seconds", "inf"], ["solve", "5", "--seconds", "-1"],
    ["play", "5", "--threshold", "nan"], ["play", "5", "--threshold", "1e999"],
    ["hint", "5", "--samples", "1000000000"], ["solve", "5", "--nodes", "9" * 40],
    ["solve", "5", "--passes", str(10**30)], ["deal", "5", "--reserve-piles", "9"],
])
def test_numbers_out_of_their_range_are_usage_errors(run, args):
    result = run(args, input="q\n")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output


def test_an_empty_variant_name_is_an_error_not_the_default(run):
    result = run(["deal", "5", "--variant", ""])
    assert_handled(result)
    assert result.exit_code == 1 and "unknown variant ''" in result.stderr


@pytest.mark.parametrize("passes", [10**20, 53, -1, True, "3"])
def test_a_record_whose_variant_has_an_impossible_number_of_passes_is_refused(run, tmp_path, passes):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "osmosis-record/1", "variant": {"passes": passes},
                                "deal": {"number": 1}, "moves": ["d"]}))
    for args in (["hint", "--record", str(path), "--json"], ["replay", str(path), "--all"]):
        result = run(args)
        assert_handled(result)
        assert result.exit_code == 1 and "passes" in result.stderr


# ---- read once, say everything ---------------------------------------------------
def test_a_deal_file_on_a_pipe_is_read_once(tmp_path):
    deal = subprocess.run(OSMOSIS + ["deal", "5", "--json"], capture_output=True, text=True, check=True).stdout
    env = {**os.environ, "OSMOSIS_HOME": str(tmp_path), "NO_COLOR": "1"}
    solved = subprocess.run(OSMOSIS + ["solve", "--deal-file", "/dev/stdin", "--json", "--nodes", "2000"],
                            input=deal, capture_output=True, text=True, env=env, timeout=60)
    assert solved.returncode == 0, solved.stderr
    assert "best_cards" in json.loads(solved.stdout)
    bash = shutil.which("bash")
    if bash:  # process substitution: a /dev/fd pipe
        cmd = " ".join(f"'{a}'" for a in OSMOSIS) + " deal --deal-file <(printf '%s' \"$DEAL\")"
        shown = subprocess.run([bash, "-c", cmd], capture_output=True, text=True, env={**env, "DEAL": deal},
                               timeout=60)
        assert shown.returncode == 0, shown.stderr
        assert "Base" in shown.stdout


def test_a_record_whose_result_disagrees_with_its_moves_warns_on_the_command_line(run, tmp_path):
    path = tmp_path / "r.json"
    data = Record(RULES, deal_for(1, RULES), ["d"]).to_json()
    data["result"] = {"cards": 30, "won": True}
    path.write_text(json.dumps(data))
    for args in (["replay", str(path), "--all", "--no-review"], ["hint", "--record", str(path), "--json"]):
        result = run(args)
        assert result.exit_code == 0
        assert "warning:" in result.stderr and "30 cards" in result.stderr


def test_a_failing_lesson_check_in_json_says_so_on_stderr(run, tmp_path):
    source = Path(__file__).resolve().parent.parent / "lessons" / "layout.toml"
    wrong = tmp_path / "layout.toml"
    wrong.write_text(source.read_text().replace("score = 1\n", "score = 7\n", 1))
    result = run(["lesson", str(wrong), "--check", "--json"])
    assert result.exit_code == 1
    assert any(not step["ok"] for step in json.loads(result.stdout))
    assert result.stderr.startswith("error:") and "does not check out" in result.stderr
