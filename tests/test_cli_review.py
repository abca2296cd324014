"""``osmosis review`` through click's CliRunner: the report, --json, --annotate and errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tutor.deals import deal_for
from tutor.notation import parse_moves
from tutor.record import Record, load_record, save_record
from tutor.review import move_accuracy
from tutor.rules import preset
from tutor.state import State


def first_moves(number: int, variant: str, count: int) -> Record:
    """A record of the first legal move (plays before turns) for ``count`` moves or to the end."""
    rules = preset(variant)
    deal = deal_for(number, rules)
    state = State.initial(deal, rules)
    moves = []
    while not state.over and len(moves) < count:
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    return Record(rules, deal, moves)


@pytest.fixture(scope="module")
def lost_record(tmp_path_factory) -> Path:
    """Deal 7 of osmosis (8H lies above 8S in pile 2: lost from the start), 18 moves."""
    path = tmp_path_factory.mktemp("rec") / "deal7.json"
    save_record(first_moves(7, "osmosis", 18), path)
    return path


def test_review_json_follows_the_spec(run, lost_record):
    result = run(["review", str(lost_record), "--json", "--samples", "3", "--workers", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) >= {"moves", "accuracy", "hindsight", "result"}
    assert len(data["moves"]) == 18
    assert [m["ply"] for m in data["moves"]] == list(range(1, 19))
    for m in data["moves"]:
        assert set(m) >= {"ply", "move", "best", "win_before", "win_after", "label", "tags", "comment"}
        assert m["label"] in ("best", "good", "inaccuracy", "mistake", "blunder")
    assert data["hindsight"]["winnable"] is False
    assert data["hindsight"]["lost_at_ply"] is None
    assert data["result"] == load_record(lost_record).final_result()
    assert 0 <= data["accuracy"] <= 100


def test_review_report_shows_verdict_accuracy_chart_and_cycle(run, lost_record):
    result = run(["review", str(lost_record), "--samples", "3", "--workers", "1"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # the report wraps at the terminal's width
    assert "Review of deal 7" in out
    assert "With hindsight (all cards known): the deal could not be won from the start" in out
    assert "8H lies above 8S in pile 2" in out
    assert "Accuracy:" in out
    assert "Win chance, move by move" in out
    assert any(ch in out for ch in "▁▂▃▄▅▆▇█")
    assert "Reviewing" not in out  # no progress bar in a pipe


def test_annotate_writes_a_record_that_loads_back_and_replays_the_same_game(run, lost_record, tmp_path):
    out = tmp_path / "annotated.json"
    result = run(["review", str(lost_record), "--annotate", str(out), "--samples", "3", "--workers", "1"])
    assert result.exit_code == 0, result.output
    original = load_record(lost_record)
    annotated = load_record(out)
    assert annotated.moves == original.moves
    assert annotated.replay() == original.replay()
    assert all(a is not None and a["label"] in ("best", "good", "inaccuracy", "mistake", "blunder")
               and a["comment"] for a in annotated.annotations)
    replay = run(["replay", str(out), "--all"])
    assert replay.exit_code == 0, replay.output
    assert annotated.annotations[0]["comment"] in " ".join(replay.output.split())


@pytest.mark.parametrize("value", ["10,5", "5,3,1", "5,10,150"])
def test_bad_thresholds_are_a_usage_error_as_for_every_numeric_option(run, lost_record, value):
    result = run(["review", str(lost_record), "--thresholds", value])
    assert result.exit_code == 2  # as --samples 0: click's usage error
    assert "Invalid value for '--thresholds'" in result.output and "5,10,15" in result.output
    assert "Traceback" not in result.output


def test_missing_record_is_one_line_and_exit_1(run, tmp_path):
    result = run(["review", str(tmp_path / "nope.json")])
    assert result.exit_code == 1
    assert "does not exist" in result.output
    assert "Traceback" not in result.output


def test_replay_with_review_comments_every_move_of_an_unannotated_record(run, tmp_path):
    # Ten moves of deal 7: the review runs at its default samples here, so keep the game short.
    path = tmp_path / "deal7-short.json"
    save_record(first_moves(7, "osmosis", 10), path)
    result = run(["replay", str(path), "--all", "--review"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "With hindsight (all cards known): the deal could not be won from the start" in out
    assert "The only legal move: win" in out  # its own value, with its interval
    lines = result.output.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("Move ")]
    assert len(heads) == 10 and all(lines[i + 1].startswith("  ") and lines[i + 1].strip() for i in heads)
    # a graded move shows its label once; a forced move or a free play no label ("best" said nothing there)
    assert "best: The only legal move" not in out and "best: A free play" not in out
    assert not any(w in out for w in ("best: Best", "good: Good", "inaccuracy: Inaccuracy", "mistake: Mistake"))


def test_replay_reviews_the_moves_an_annotated_record_gained_since_and_keeps_its_own_notes(run, tmp_path):
    """A game annotated, then played on: replay trusted the annotations and left the new moves without a word;
    an annotation naming another move than the one played now (a hand edit) was shown against the new move."""
    whole = first_moves(7, "osmosis", 10)
    path = tmp_path / "short.json"
    save_record(Record(whole.rules, whole.deal, whole.moves[:6]), path)
    assert run(["review", str(path), "--samples", "8", "--annotate", str(path)]).exit_code == 0
    annotated = load_record(path)
    assert [note["move"] for note in annotated.annotations] == [str(m) for m in whole.moves[:6]]
    notes = list(annotated.annotations) + [None] * 4
    notes[0] = {**notes[0], "comment": "My own note."}  # kept: it is on the move it names
    notes[1] = {**notes[1], "move": "w" if str(whole.moves[1]) != "w" else "d", "comment": "Stale."}  # not kept
    save_record(Record(whole.rules, whole.deal, whole.moves, notes), path)
    out = run(["replay", str(path), "--all"]).stdout
    lines = out.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("Move ")]
    assert len(heads) == 10 and all(lines[i + 1].startswith("  ") and lines[i + 1].strip() for i in heads), out
    assert "My own note." in out and "Stale." not in out


def test_review_json_rates_an_early_start_that_throws_a_win_away(run, tmp_path):
    from test_review import early_start_game

    record, ply = early_start_game()
    path = tmp_path / "peek.json"
    save_record(record, path)
    result = run(["review", str(path), "--json", "--samples", "4", "--workers", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    move = data["moves"][ply - 1]
    assert move["label"] == "blunder"
    assert "early-start" in move["tags"]
    assert move["best"] != move["move"]
    assert data["hindsight"] == {**data["hindsight"], "winnable": True, "lost_at_ply": ply}


def test_the_report_quotes_the_accuracy_formula_as_it_scores(run, lost_record):
    """The report (its closing paragraph on how the figures are made) says what a move losing 1 and 10 points
    scores, the formula's own values (a move labelled best may lose up to 1 point, so it does not promise 100
    for "best")."""
    out = " ".join(run(["review", str(lost_record), "--samples", "3", "--workers", "1"]).stdout.split())
    assert (round(move_accuracy(0)), round(move_accuracy(1)), round(move_accuracy(10))) == (100, 97, 65)
    assert ("a move that loses no points against the best scores 100, one that loses 1 point 97 and one that "
            "loses 10 points 65, so one big error pulls a game down hard") in out


def test_the_header_keeps_the_figure_and_the_method_goes_to_the_end(run, lost_record):
    """The accuracy line is the figure, its interval and what it covers; how the figures are made (the formula,
    the deals sampled) is a paragraph at the end, after the tables, so the header reads without the jargon."""
    out = " ".join(run(["review", str(lost_record), "--samples", "3", "--workers", "1"]).stdout.split())
    head, _, foot = out.partition("How the figures are made ")
    assert re.search(r"Accuracy: [\d.]+ / 100 (\(95%: [\d.]+-[\d.]+\) )?over \d+ graded moves? "
                     r"\(how the figures are made: at the end\)\.", head)
    assert "Lichess" not in head and "sampled deals" not in head
    assert foot.startswith("Accuracy follows Lichess's formula") and "Win chances come from what you could see: " in foot


def test_a_one_move_game_counts_one_move(run, tmp_path):
    path = tmp_path / "one.json"
    save_record(first_moves(1, "osmosis", 1), path)
    text = " ".join(run(["review", str(path)]).stdout.split())
    assert "1 move: 0 graded" in text and "1 moves" not in text


def test_the_critical_moments_luck_rows_are_the_luck_sentences_figures(run, tmp_path):
    """Bridesmaids deal 4, turned 17 times: a luck row showed 0% -> -33% where its comment said 33% -> 0%
    (the row was built from the move's own figure, on other deals, plus the luck's swing)."""
    rules = preset("bridesmaids")
    path = tmp_path / "b4.json"
    save_record(Record(rules, deal_for(4, rules), ["d"] * 17), path)
    data = json.loads(run(["review", str(path), "--json"]).stdout)
    lucky = [m for m in data["critical"] if m["kind"] == "luck"]
    assert lucky
    for m in lucky:
        assert 0.0 <= m["before"] <= 1.0 and 0.0 <= m["after"] <= 1.0
        comment = data["moves"][m["ply"] - 1]["comment"]
        assert re.search(rf"moved the win chance from {m['before'] * 100:.0f}% (\([^)]*\) )?to "
                         rf"{m['after'] * 100:.0f}%", comment), comment
        # the row names the deals its interval rests on, as the error rows do
        assert m["text"].endswith(", exact)") or re.search(r"95%: [-+0-9]+ to [-+0-9]+[,;] .*deals", m["text"]), m["text"]
    figures_of_the_moments(data)


def figures_of_the_moments(data: dict) -> None:
    """Each critical moment's two win chances and its swing carry their deals and 95% intervals (or
    ``exact``), each interval around its figure: the rows showed "30% -> 59%" with neither."""
    assert data["critical"]
    for m in data["critical"]:
        assert m["samples"] >= 1 and isinstance(m["exact"], bool), m
        for figure, span in (("before", "before_interval"), ("after", "after_interval"), ("swing", "swing_interval")):
            if span not in m:
                assert figure == "after" and m["kind"] == "luck", m  # a luck whose after figure was not kept
                continue
            lo, hi = m[span]
            assert lo - 1e-4 <= m[figure] <= hi + 1e-4 or (figure == "swing" and "swing_samples" in m), m
            if m["exact"]:
                assert lo == hi, m


def test_the_critical_moments_win_chances_carry_their_intervals(run, tmp_path):
    """Deal 3, 40 moves of a player who plays the last card it can, else turns: its sampled error and luck
    rows give each win chance with its interval in the table too ("30% (95%: 20-42%)"), not the bare figure."""
    rules = preset("osmosis")
    state = State.initial(deal_for(3, rules), rules)
    moves = []
    for _ in range(40):
        legal = state.legal_moves()
        move = ([m for m in legal if m.is_play] or legal)[-1]
        moves.append(move)
        state = state.apply(move)
    path = tmp_path / "last.json"
    save_record(Record(rules, deal_for(3, rules), moves), path)
    data = json.loads(run(["review", str(path), "--json", "--workers", "1"]).stdout)
    figures_of_the_moments(data)
    sampled = [m for m in data["critical"] if not m["exact"]]
    assert {m["kind"] for m in sampled} == {"error", "luck"}
    text = run(["review", str(path), "--workers", "1"]).stdout
    table = text[text.index("Critical moments"):text.index("Labelled")]
    for m in sampled:
        lo, hi = m["before_interval"]
        assert f"{m['before'] * 100:.0f}% (95%: {lo * 100:.0f}-{hi * 100:.0f}%)" in table, table


def test_forced_moves_in_a_peek_deal_the_reserve_piles_show_lost_carry_no_sampled_interval(run, tmp_path):
    """Peek deal 13: the face-up piles show the deal lost from the start; a forced move there said
    "win 0% (95%: 0-6%, 64 deals)" beside the header's certain loss."""
    rules = preset("peek")
    moves = parse_moves("r2 d d d d w d d d d d w d w d d d d d d d")
    path = tmp_path / "p13.json"
    save_record(Record(rules, deal_for(13, rules), moves), path)
    data = json.loads(run(["review", str(path), "--json"]).stdout)
    forced = [m for m in data["moves"] if m["comment"].startswith("The only legal move")]
    assert forced
    for m in forced:
        assert "95%" not in m["comment"] and "win 0%" in m["comment"]


def test_a_review_in_a_pipe_says_how_far_it_is_on_stderr_while_it_runs(run, home, tmp_path, monkeypatch):
    import shutil

    from tutor.cli import common

    monkeypatch.setattr(common, "PIPE_EVERY", 0.05)
    path = tmp_path / "g.json"
    save_record(Record(preset("osmosis"), deal_for(10, preset("osmosis")), ["d"] * 12), path)
    for args in (["review", str(path)], ["review", str(path), "--json"]):
        shutil.rmtree(home / "cache", ignore_errors=True)  # a kept review would come back at once, silently
        result = run(args)
        assert result.exit_code == 0, result.stderr
        lines = result.stderr.splitlines()
        assert lines and all(re.fullmatch(r"review: \d+ of 13 positions scored, \d+ s so far", x) for x in lines)
