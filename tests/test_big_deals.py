"""Deal numbers above 2**63, up to PySolFC's 10**20: every command that takes one, the history, surveys.

PySolFC draws its random game numbers from 0 to 10**20, so most of the games
a player brings from it have numbers SQLite cannot hold as integers.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from builders import assert_handled, osmosis

from tutor.deals import MAX_DEAL_NUMBER, deal_for
from tutor.errors import TutorError
from tutor.rules import preset
from tutor.state import State
from tutor.store import ResultStore, deal_key, deal_of
from tutor.survey import DealOutcome, parse_range

BIG = 12345678901234567890
EDGES = [1, 2**63 - 2, 2**63 - 1, 2**63, 2**63 + 1, BIG, 2**64, 10**20 - 1, 10**20]
RANGE = "1 to 100000000000000000000"


def one_line_error(result, *words: str) -> None:
    assert_handled(result)
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    for word in words:
        assert word in line, line


def greedy(number: int, variant: str = "peek") -> list[str]:
    """The greedy player's moves on a deal: any card that plays, else turn."""
    rules = preset(variant)
    state = State.initial(deal_for(number, rules), rules)
    moves = []
    while not state.over:
        legal = state.legal_moves()
        move = next((m for m in legal if m.is_play), legal[0])
        moves.append(str(move))
        state = state.apply(move)
    return moves


def record_file(tmp_path, number: int = BIG, moves: list[str] | None = None):
    path = tmp_path / f"deal-{number}.json"
    path.write_text(json.dumps({"format": "osmosis-record/1", "variant": "peek", "deal": {"number": number},
                                "moves": greedy(number) if moves is None else moves}))
    return path


# ---- commands that take a deal number ---------------------------------------
@pytest.mark.parametrize("number", [2**63, BIG, 99999999999999999999, 10**20])
def test_deal_takes_pysolfc_numbers_up_to_10_to_the_20(run, number):
    result = run(["deal", str(number), "--json"])
    assert_handled(result, allowed=(0,))
    assert json.loads(result.stdout) == deal_for(number, preset("osmosis")).to_json()
    assert run(["deal", f" {number} "]).stdout.startswith(f"Deal {number} ")  # spaces around are ignored


@pytest.mark.parametrize("args", [["deal"], ["solve"], ["play"], ["hint"]])
@pytest.mark.parametrize("number", ["0", str(10**20 + 1), "1" + "0" * 31])
def test_numbers_out_of_range_say_the_range_on_one_line(run, args, number):
    one_line_error(run([*args, number], input="q\n"), f"deal number '{number}' is out of range: expected {RANGE}")


def test_a_signed_or_odd_number_says_the_range_too(run):
    one_line_error(run(["deal", "--", "-5"]), "has a sign", RANGE)
    one_line_error(run(["deal", "1_000"]), "is not a number", RANGE)


@pytest.mark.parametrize("args", [["deal", "-1"], ["solve", "-5", "--json"], ["hint", "--json", "-3"], ["play", "-7"]])
def test_a_negative_number_without_dashes_is_a_bad_deal_number_not_an_unknown_option(run, args):
    """Click read '-5' as an unknown option: a usage error (exit 2) where the spec wants an input error."""
    one_line_error(run(args, input="q\n"), "has a sign", RANGE)


def test_an_option_value_or_an_unknown_option_is_still_clicks_to_judge(run):
    assert run(["solve", "--nodes", "-5", "3"]).exit_code == 2  # the option's own range
    assert run(["deal", "--jsn", "3"]).exit_code == 2  # a mistyped option stays a usage error


def test_solve_and_hint_take_a_big_number(run):
    solved = run(["solve", str(BIG), "--variant", "peek", "--nodes", "20000"])
    assert_handled(solved, allowed=(0,))
    assert solved.stdout.startswith(f"Deal {BIG} (peek")
    hint = run(["hint", str(BIG), "--variant", "peek", "--moves", "d", "--samples", "16", "--json"])
    assert_handled(hint, allowed=(0,))
    assert json.loads(hint.stdout)


def test_play_saves_a_big_number_and_resume_review_and_replay_take_it(run, home):
    moves = greedy(BIG)
    played = run(["play", str(BIG), "--variant", "peek"], input=" ".join(moves[:10]) + "\nq\n")
    assert_handled(played, allowed=(0,))
    (saved,) = (home / "games").glob("*.json")
    assert json.loads(saved.read_text())["deal"] == {"number": BIG}
    resumed = run(["play", "--resume", str(saved)], input=" ".join(moves[10:]) + "\n")
    assert_handled(resumed, allowed=(0,))
    assert len(json.loads(saved.read_text())["moves"]) == len(moves)
    assert str(BIG) in run(["games"]).stdout
    review = run(["review", str(saved)])
    assert_handled(review, allowed=(0,))
    assert f"Review of deal {BIG}," in review.stdout
    replay = run(["replay", str(saved), "--at", "3"], input="")
    assert_handled(replay, allowed=(0,))
    assert f"Replay of deal {BIG}," in replay.stdout


def test_a_record_of_a_number_out_of_range_is_one_line(run, tmp_path):
    path = record_file(tmp_path, moves=[])
    path.write_text(path.read_text().replace(str(BIG), str(10**20 + 1)))
    one_line_error(run(["review", str(path)]), "out of range", RANGE)


# ---- the history ---------------------------------------------------------------
def test_a_big_number_goes_through_the_history_exactly(run, home, tmp_path):
    """SQLite's integers stop at 2**63 - 1: the column keeps NULL and the number is read from the record."""
    small = record_file(tmp_path, 5)
    big = record_file(tmp_path, BIG)
    huge = record_file(tmp_path, 10**20, moves=["d", "d"])
    imported = run(["import", str(small), str(big), str(huge)])
    assert_handled(imported, allowed=(0,))
    assert "Imported 3 games" in imported.stdout
    db = sqlite3.connect(home / "history.sqlite3")
    assert sorted(db.execute("SELECT deal_number FROM games").fetchall(), key=str) == [(5,), (None,), (None,)]
    db.close()
    history = json.loads(run(["history", "--json"]).stdout)
    assert sorted(g["deal"] for g in history["recent"]) == [5, BIG, 10**20]
    text = run(["history"]).stdout
    assert str(BIG) in text and str(10**20) in text  # whole, not cut with "…"
    exported = run(["export"]).stdout
    assert sorted(json.loads(line)["record"]["deal"]["number"] for line in exported.splitlines()) == [5, BIG, 10**20]
    (tmp_path / "all.jsonl").write_text(exported)
    elsewhere = tmp_path / "elsewhere"
    assert_handled(osmosis(["import", str(tmp_path / "all.jsonl")], elsewhere), allowed=(0,))
    assert osmosis(["export"], elsewhere).stdout == exported
    again = run(["import", str(big)])  # the same game again: found by its content, kept once
    assert "Nothing new to import" in again.stdout
    # at 80 columns (a pipe's width) and 60 the number stays on one line, never broken over two and misread
    for columns in ("80", "60"):
        narrow = osmosis(["history"], home, env={"COLUMNS": columns}).stdout
        assert str(BIG) in narrow and str(10**20) in narrow, narrow
    (home / "games").mkdir(exist_ok=True)
    for path in (big, huge):
        (home / "games" / path.name).write_text(path.read_text())
    listed = osmosis(["games"], home, env={"COLUMNS": "80"}).stdout
    assert str(BIG) in listed and str(10**20) in listed, listed


def test_coach_and_drill_name_a_big_deal(run, tmp_path):
    assert run(["import", str(record_file(tmp_path))]).exit_code == 0
    coached = run(["coach", "--json"])
    assert_handled(coached, allowed=(0,))
    losses = json.loads(coached.stdout)["losses"]
    assert losses and {e["deal"] for e in losses} == {BIG}
    assert f"deal {BIG} (game id 1)" in run(["coach", "--no-review"]).stdout
    drill = run(["drill", "--count", "1"], input="q\n")
    assert_handled(drill, allowed=(0,))
    assert f"deal {BIG} (peek)" in drill.stdout


# ---- surveys and the results store ---------------------------------------------
def test_the_store_keeps_big_numbers_exactly_and_in_order(tmp_path):
    assert all(deal_of(deal_key(n)) == n for n in EDGES)
    with ResultStore(tmp_path / "s.sqlite3") as store:
        config = store.config_id("test")
        store.put(config, [DealOutcome(n, n % 2 == 0, 52 if n % 2 == 0 else n % 52 + 1, 0.5, None) for n in EDGES])
        assert sorted(store.get(config, 1, MAX_DEAL_NUMBER)) == EDGES
        assert sorted(store.get(config, 2**63 - 1, 2**63)) == [2**63 - 1, 2**63]  # a range across 2**63
        assert sorted(store.get(config, 2**63 + 1, 10**20 - 1)) == [2**63 + 1, BIG, 2**64, 10**20 - 1]
        assert sorted(store.get(config, 2, 2**63 - 2)) == [2**63 - 2]
        assert store.get(config, BIG, BIG)[BIG] == DealOutcome(BIG, True, 52, 0.5, None)  # BIG is even


def test_parse_range_takes_big_numbers_up_to_the_last_deal():
    assert list(parse_range(f"{10**20 - 2}-{10**20}")) == [10**20 - 2, 10**20 - 1, 10**20]
    for bad in (f"{10**20}-{10**20 + 1}", f"{10**20 + 1}", "1" + "0" * 40, "1-" + "9" * 70, "9" * 5000):
        with pytest.raises(TutorError, match="out of range: deal numbers go from 1 to 100000000000000000000"):
            parse_range(bad)
    assert list(parse_range("1-" + "0" * 70 + "3")) == [1, 2, 3]
    assert list(parse_range("0" * 5000 + "2")) == [2]  # int() alone refuses over 4,300 digits


def test_stats_surveys_a_range_across_2_to_the_63_and_reads_it_back_from_the_store(run, tmp_path):
    store = tmp_path / "s.sqlite3"
    first, last = 2**63 - 2, 2**63 + 1
    args = ["stats", "--deals", f"{first}-{last}", "--policy", "greedy", "--store", str(store), "--json"]
    out = tmp_path / "deals.jsonl"
    result = run([*args, "--per-deal", str(out)])
    assert_handled(result, allowed=(0,))
    data = json.loads(result.stdout)
    assert (data["deals"], data["first_deal"], data["last_deal"], data["computed"]) == (4, first, last, 4)
    assert [json.loads(line)["deal"] for line in out.read_text().splitlines()] == list(range(first, last + 1))
    again = json.loads(run(args).stdout)
    assert (again["from_store"], again["computed"], again["mean_cards"]) == (4, 0, data["mean_cards"])
    top = json.loads(run(["stats", "--deals", f"{10**20 - 1}-{10**20}", "--policy", "greedy", "--json"]).stdout)
    assert (top["deals"], top["last_deal"]) == (2, 10**20)
    one_line_error(run(["stats", "--deals", f"{10**20}-{10**20 + 1}"]), "is out of range", RANGE)
