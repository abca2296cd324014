"""``osmosis hint``: the JSON contract, the position it is asked about, and clear errors."""

from __future__ import annotations

import json
import re
import tempfile

import pytest
from builders import osmosis

from tutor.deals import deal_for, save_deal
from tutor.notation import parse_moves
from tutor.record import Record, save_record
from tutor.rules import preset

HOME = tempfile.mkdtemp(prefix="osmosis-hint-tests-")  # never the real data folder


def run(*args):
    return osmosis(list(args), HOME, catch=True)


def test_json_has_the_spec_fields_and_every_legal_move():
    result = run("hint", "5", "--samples", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) >= {"best", "candidates", "reason"}
    assert data["best"] == "r4"
    assert sorted(c["move"] for c in data["candidates"]) == ["d", "r3", "r4"]
    for c in data["candidates"]:
        assert set(c) >= {"move", "win", "cards"}
        assert isinstance(c["win"], float) and isinstance(c["cards"], float)


def test_samples_option_changes_the_reported_effort():
    few = json.loads(run("hint", "1", "--moves", "d d d d d", "--samples", "2", "--json").stdout)
    more = json.loads(run("hint", "1", "--moves", "d d d d d", "--samples", "9", "--json").stdout)
    assert few["samples"] == 2 and more["samples"] >= 8


def test_the_hint_is_for_the_position_after_the_moves():
    data = json.loads(run("hint", "1", "--moves", "d d d d d", "--samples", "2", "--json").stdout)
    assert sorted(c["move"] for c in data["candidates"]) == ["d", "w"]
    assert "7S" in data["reason"]


def test_record_gives_the_position_after_its_moves_and_then_moves(tmp_path):
    rules = preset("osmosis")
    path = tmp_path / "game.json"
    save_record(Record(rules, deal_for(1, rules), ["d", "d", "d", "d"]), path)
    from_record = run("hint", "--record", str(path), "--moves", "d", "--samples", "2", "--json")
    direct = run("hint", "1", "--moves", "d d d d d", "--samples", "2", "--json")
    assert from_record.exit_code == 0, from_record.output
    assert json.loads(from_record.stdout) == json.loads(direct.stdout)


def test_deal_file_and_variant(tmp_path):
    path = tmp_path / "deal.json"
    save_deal(deal_for(5, preset("peek")), path)
    result = run("hint", "--deal-file", str(path), "--variant", "peek", "--samples", "2", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["best"] == "r4"


def test_terminal_output_shows_the_table_and_the_reason():
    result = run("hint", "5", "--samples", "2")
    assert result.exit_code == 0, result.output
    assert "Hint" in result.output and "r4" in result.output and "4S" in result.output
    assert "options" in result.output  # the reason: a safe play only adds options


@pytest.mark.parametrize("args, message", [
    (["hint", "1", "--moves", "r1"], "move 1 of --moves"),
    (["hint", "1", "--moves", "x9"], "unknown move"),
    (["hint", "1", "--variant", "nosuch"], "unknown variant"),
    (["hint", "--deal-file", "/nonexistent/deal.json"], "does not exist"),
    (["hint", "--record", "/nonexistent/game.json"], "game.json"),
])
def test_input_errors_exit_1_with_one_line(args, message):
    result = run(*args)
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_finished_game_has_no_hint(tmp_path):
    rules = preset("osmosis")
    # deal 1 played greedily to its end
    from tutor.state import State

    state = State.initial(deal_for(1, rules), rules)
    moves = []
    while state.legal_moves():
        m = state.legal_moves()[0]
        moves.append(m)
        state = state.apply(m)
    path = tmp_path / "over.json"
    save_record(Record(rules, deal_for(1, rules), moves), path)
    result = run("hint", "--record", str(path))
    assert result.exit_code == 0 and "game is over" in result.output
    data = json.loads(run("hint", "--record", str(path), "--json").stdout)
    assert data["best"] is None and data["candidates"] == [] and "game is over" in data["reason"]


def test_usage_errors_exit_2(tmp_path):
    assert run("hint").exit_code == 2
    path = tmp_path / "g.json"
    rules = preset("osmosis")
    save_record(Record(rules, deal_for(1, rules), ["d"]), path)
    assert run("hint", "--record", str(path), "--variant", "peek").exit_code == 2
    assert run("hint", "1", "--record", str(path)).exit_code == 2


def test_a_record_takes_variant_options_that_name_its_own_variant(tmp_path):
    """The spec's grammar allows --variant beside --record: naming the record's own variant (by name, alias or
    options) gives the same hint; another variant is refused in one line that names both."""
    path = tmp_path / "peek.json"
    rules = preset("peek")
    save_record(Record(rules, deal_for(5, rules), parse_moves("d d")), path)
    plain = json.loads(run("hint", "--record", str(path), "--json").stdout)
    for same in (["--variant", "peek"], ["--variant", "open-osmosis"], ["--open-reserve"], ["--turn", "3"]):
        result = run("hint", "--record", str(path), *same, "--json")
        assert result.exit_code == 0 and json.loads(result.stdout) == plain, same
    for other in (["--variant", "osmosis"], ["--turn", "1"], ["--no-open-reserve"]):
        result = run("hint", "--record", str(path), *other)
        assert result.exit_code == 2 and "takes the variant from the record (peek: turn 3" in result.output, other
        assert "Traceback" not in result.output


def test_resume_takes_the_records_own_variant_and_refuses_another(tmp_path):
    path = tmp_path / "peek.json"
    rules = preset("peek")
    save_record(Record(rules, deal_for(5, rules), parse_moves("d d")), path)
    ok = osmosis(["play", "--resume", str(path), "--variant", "peek", "--plain"], HOME, input="q\n", catch=True)
    assert ok.exit_code == 0 and "2 moves" in ok.output, ok.output
    refused = osmosis(["play", "--resume", str(path), "--variant", "single", "--plain"], HOME, input="q\n",
                      catch=True)
    assert refused.exit_code == 2 and "takes the variant from the record" in refused.output
    assert len(json.loads(path.read_text())["moves"]) == 2  # the saved game is as it was


def test_tutor_mode_warns_on_a_known_bad_move_and_not_on_the_best(tmp_path):
    # Peek deal 11 after r2 d d: 8C on the waste would open row 2 for clubs in an order the
    # known reserve piles make impossible; turning is best. r2 (a safe play) draws no warning.
    script = "r2\nd\nd\nw\nn\nd\nq\n"
    result = osmosis(["play", "11", "--variant", "peek", "--tutor"], tmp_path, input=script, catch=True)
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.count("That may be a blunder: win 0% (in every consistent deal)") == 1
    # the move loses in every consistent deal (the reserve piles show it): no sampled 0-11% for it
    assert "win 0% (in every consistent deal) against" in " ".join(out.split()) and "win 0% (95%: 0-" not in out
    assert "Move 4: d" in out  # the warned move was not played; the turn was


def test_the_text_hint_says_what_cards_means_and_counts_one_deal_in_the_singular(run):
    out = " ".join(run(["hint", "1", "--moves", "d d d d d"]).stdout.split())
    assert "cards: the cards expected on the foundations at the end" in out
    assert "all 1 consistent deal" not in out


@pytest.mark.parametrize("number, upto", [(61, 48), (3, 26), (5, 7)])
def test_the_hint_shows_the_waste_as_play_shows_it(run, number, upto):
    """The cards of the last turn that still lie on the waste are shown, as on the board and in line mode."""
    from test_cli_play import greedy_line

    moves = greedy_line(number)[0][:upto]
    line = " ".join(map(str, moves))
    hint = run(["hint", str(number), "--moves", line, "--samples", "4"]).stdout
    played = run(["play", str(number), "--plain"], input=line + "\nq\n").stdout
    shown = [ln.strip() for ln in hint.splitlines() if ln.startswith("Waste")]
    last = [ln.strip() for ln in played.splitlines() if ln.strip().startswith("Waste")][-1]  # the position reached
    assert shown == [last]


@pytest.mark.parametrize("deal, moves", [("51", "r2 d"), ("5", ""), ("7", "d d"), ("1", "d d d d d")])
def test_the_hint_states_its_sample_basis_once_in_the_reason(deal, moves):
    """The reason says how many deals its figures rest on (its footer no longer says it again), whatever the
    kind of reason: a free turn with a playable card beside it (51), a safe play (7), a plain comparison."""
    data = json.loads(run("hint", deal, "--moves", moves, "--samples", "6", "--json").stdout)
    assert re.search(r"from \d+ deals consistent with what you have seen|consistent deals? (was|were) solved|"
                     r"you have seen every card|None of the \d+ deals sampled", data["reason"]), data["reason"]
    text = run("hint", deal, "--moves", moves, "--samples", "6")
    assert text.exit_code == 0, text.output
    flat = " ".join(text.output.split())
    assert flat.count("deals consistent with what you have seen") <= 1 and "sampled deals" not in flat
    assert not [line for line in text.output.splitlines() if line.endswith(" ")]  # no trailing spaces


def test_a_safe_waste_play_with_one_pass_claims_no_next_pass():
    """Turn 1, one pass: QD off the waste only adds options, but not because the talon shows again."""
    data = json.loads(run("hint", "6", "--turn", "1", "--passes", "1", "--moves", "d d", "--samples", "4",
                          "--json").output)
    assert data["best"] == "w" and "only adds options" in data["reason"]
    assert "each pass" not in data["reason"] and "next pass" not in data["reason"]


def test_a_cards_figure_every_sample_agrees_on_has_no_empty_interval():
    """'about 34 (95%: 34-34)' said nothing the samples did not: every deal gave 34."""
    from dataclasses import replace

    from tutor.hints import hint
    from tutor.knowledge import observe
    from tutor.narrate.hint import about_cards, cards_figure
    from tutor.rules import preset as _preset
    from tutor.state import State

    rules = _preset("osmosis")
    c = hint(observe(State.initial(deal_for(5, rules), rules)), samples=8).candidates[0]
    same = replace(c, cards=34.0, cards_interval=(34.0, 34.0), exact=False)
    assert cards_figure(same) == f"34 (in each of the {c.samples} deals)"
    assert about_cards(same) == f"34 cards (in each of the {c.samples} deals)"  # the word before the basis
    spread = replace(c, cards=34.0, cards_interval=(31.6, 36.2), exact=False)
    assert about_cards(spread) == "about 34 cards (95%: 32-36)"
    assert about_cards(replace(c, cards=49.0, exact=True)) == "49 cards (exact)"
    # an interval that rounds to one number ("27 (95%: 27-27)") shows its decimal instead
    narrow = replace(c, cards=27.06, cards_interval=(26.71, 27.41), exact=False)
    assert cards_figure(narrow) == "27.1 (95%: 26.7-27.4)"


def test_more_cards_is_a_but_only_when_the_intervals_lie_apart():
    """'win 19% either way, but about 35 cards against 34' claimed more than overlapping intervals show."""
    from dataclasses import replace

    from tutor.hints import hint
    from tutor.knowledge import observe
    from tutor.narrate.hint import _versus
    from tutor.rules import preset as _preset
    from tutor.state import State

    rules = _preset("osmosis")
    c = hint(observe(State.initial(deal_for(5, rules), rules)), samples=8).candidates[0]
    top = replace(c, win=0.19, interval=(0.1, 0.3), cards=35.2, cards_interval=(32.4, 38.0), exact=False)
    close = replace(top, cards=34.1, cards_interval=(31.3, 36.9))
    text = _versus(top, close, "if you turn", "if you play it now")
    assert "but" not in text and "about 35 cards (95%: 32-38) if you turn against 34 (95%: 31-37)" in text
    apart = replace(top, cards=29.0, cards_interval=(28.0, 30.0))
    assert "either way, but about 35 cards" in _versus(top, apart, "if you turn", "if you play it now")


def test_two_moves_whose_win_figures_differ_are_not_said_to_score_the_same(run):
    """Limited deal 4: the turn wins 3 of 128 deals (1-7%), 2D 2 (0-6%). Both round to 2%, and the hint said
    "they score the same. Win 2% (95%: 1-7%) either way", giving the turn's interval to 2D too."""
    from dataclasses import replace

    from tutor.hints import hint
    from tutor.knowledge import observe
    from tutor.narrate.hint import _versus
    from tutor.rules import preset as _preset
    from tutor.state import State

    rules = _preset("osmosis")
    c = hint(observe(State.initial(deal_for(5, rules), rules)), samples=8).candidates[0]
    top = replace(c, win=3 / 128, interval=(0.008, 0.0666), cards=20.0, cards_interval=(18.0, 22.0), exact=False)
    other = replace(top, win=2 / 128, interval=(0.0043, 0.0552))
    assert _versus(top, other, "this way", "if you play it") == ("win 2% (95%: 1-7%) this way, 2% (95%: 0-6%) "
                                                                 "if you play it")
    assert "either way" in _versus(top, replace(top), "this way", "if you play it")
    out = run(["hint", "4", "--variant", "limited", "--moves", "r2 d r3 w d d d w d d d d d"]).stdout
    text = " ".join(out.split())
    assert "score about the same. Win 2% (95%: 1-7%) this way, 2% (95%: 0-6%) if you play 2D" in text
    assert "either way" not in text


def test_one_undecided_deal_is_said_in_the_singular():
    from dataclasses import replace

    from tutor.hints import ScoredPosition, hint
    from tutor.knowledge import observe
    from tutor.narrate.hint import reason_for
    from tutor.rules import preset as _preset
    from tutor.state import State

    rules = _preset("osmosis")
    obs = observe(State.initial(deal_for(5, rules), rules))
    h = hint(obs, samples=8)
    cands = [replace(x, undecided=1) for x in h.candidates]
    text, _ = reason_for(obs, ScoredPosition(h.best, cands, h.why, h.samples, h.exact))
    assert f"(1 of the {h.samples} deals was too deep to decide within the search limit and counts as not won.)" in text


def test_undecided_deals_are_counted_for_the_moves_they_belong_to():
    # limited deal 10 after d: the note said "5 of the 128 deals" beside a best move with 3 (the 5 were r4's)
    from dataclasses import replace

    from tutor.hints import ScoredPosition, hint
    from tutor.knowledge import observe
    from tutor.narrate.hint import reason_for
    from tutor.rules import preset as _preset
    from tutor.state import State

    rules = _preset("osmosis")
    obs = observe(State.initial(deal_for(5, rules), rules))
    h = hint(obs, samples=8)
    assert len(h.candidates) >= 2
    other = next(c.move for c in h.candidates if c.move != h.best)
    cands = [replace(x, undecided=3 if x.move == h.best else 5 if x.move == other else 0) for x in h.candidates]
    text, _ = reason_for(obs, ScoredPosition(h.best, cands, h.why, h.samples, h.exact))
    assert (f"(Some deals were too deep to decide within the search limit and count as not won: 3 of the "
            f"{h.samples} deals after {h.best}, 5 after {other}.)") in " ".join(text.split())
    alone = [replace(x, undecided=1 if x.move == other else 0) for x in h.candidates]
    text, _ = reason_for(obs, ScoredPosition(h.best, alone, h.why, h.samples, h.exact))
    assert (f"(1 of the {h.samples} deals was too deep to decide within the search limit after {other} and counts "
            "as not won.)") in " ".join(text.split())


def test_a_peek_position_lost_by_its_face_up_reserve_says_so_once():
    """Peek deal 31: two cycles of needs lie face up from the first move, so the game is lost whatever the
    player does. The hint says that, as a fact of what the player sees, once."""
    data = json.loads(run("hint", "31", "--variant", "peek", "--samples", "8", "--json").stdout)
    assert all(c["win"] == 0 for c in data["candidates"])
    assert data["reason"].startswith("This position cannot be won any more whatever you do: the reserve piles, "
                                     "every card of them known, leave no order of the rows still to open")
    assert "impossible to complete" not in data["reason"]


def test_the_hint_table_gives_the_expected_cards_their_interval_too(run):
    out = run(["hint", "51", "--moves", "r2 d"]).stdout
    head = next(line for line in out.splitlines() if line.startswith("move "))
    assert head.split() == ["move", "card", "win", "95%", "cards", "95%", "samples"]
    rows = [line.split() for line in out.splitlines() if line.startswith(("d ", "w "))][:2]
    for row in rows:
        lo, hi = map(float, row[5].split("-"))
        assert lo <= float(row[4]) <= hi
    # every move on the same deals, as many as the reason says
    assert rows[0][6] == rows[1][6] and f"from {rows[0][6]} deals consistent" in " ".join(out.split())


def test_one_sampled_deal_is_one_deal_not_one_deals(run):
    """--samples 1 said "from 1 deals consistent with what you have seen, the same ones for every move"."""
    result = run(["hint", "17", "--samples", "1"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "1 deals" not in text and "from 1 deal consistent with what you have seen" in text
    assert "the same one for every move" in text


def test_figures_called_exact_are_exact_cards_too(run):
    """Every consistent deal solved, but each lost deal's best score searched only to 2,500 positions: the
    hint said 48 cards, exact, where both deals reach 50 after every move (the solver with no limit)."""
    moves = ("r2 d w r1 d d d w d d w d w w d d d d d w d w w d d d d d d d w d d w d d d d d d w w d d d d d "
             "w d d w d d w d w w w d w w d d d d w d d w r1 w r1")
    data = json.loads(run(["hint", "17053", "--reserve-piles", "2", "--moves", moves, "--json"]).stdout)
    assert all(c.get("exact") for c in data["candidates"])
    assert {(c["cards"], tuple(c["cards_interval"])) for c in data["candidates"]} == {(50.0, (50.0, 50.0))}


def test_a_cards_interval_never_reaches_below_the_cards_already_placed(run):
    data = json.loads(run(["hint", "30775", "--samples", "1", "--json"]).stdout)
    assert all(c["cards_interval"][0] >= 1 for c in data["candidates"])  # one card is on the foundations


@pytest.mark.parametrize("command", ["hint", "solve"])
def test_an_unknown_token_in_moves_is_named_by_its_place(run, command):
    result = run([command, "1", "--moves", "d xx w", "--json"])
    assert result.exit_code == 1 and result.stderr.startswith("error: move 2 of --moves: unknown move 'xx': expected")


def test_a_lost_deal_solved_short_of_its_best_says_more_may_be_possible_not_at_best(run):
    out = " ".join(run(["solve", "1", "--nodes", "10"]).stdout.split())
    assert "the best line found before the limit places 8 cards, and more may be possible" in out
    assert "at best" not in out and "a larger --nodes searches further" in out


@pytest.mark.parametrize("nodes", [[], ["--nodes", "10000000"]])
def test_a_search_the_clock_stopped_names_seconds_as_the_limit_to_raise(run, monkeypatch, nodes):
    """A time limit alone lifts the node limit, and with a large one the clock stops first: raising --nodes
    searched no further, yet the sentence named it."""
    from tutor.cli import solve as cli_solve
    from tutor.search import Limit

    real = cli_solve.run_solve
    monkeypatch.setattr(cli_solve, "run_solve", lambda state, limit: real(state, Limit(nodes=10)))  # as a clock would
    out = " ".join(run(["solve", "1", "--seconds", "5", *nodes]).stdout.split())
    assert "more may be possible (a larger --seconds searches further)" in out


def test_record_takes_last_and_a_number_from_the_saved_games_as_review_does(run):
    assert run(["play", "1", "--plain"], input="d\nd\nd\nd\nq\n").exit_code == 0
    direct = json.loads(run(["hint", "1", "--moves", "d d d d d", "--samples", "2", "--json"]).stdout)
    for name in ("last", "1"):
        result = run(["hint", "--record", name, "--moves", "d", "--samples", "2", "--json"])
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == direct
    missing = run(["hint", "--record", "7"])
    assert missing.exit_code == 1 and missing.stderr.startswith("error: there is no saved game 7: expected 1 to 1")


def test_the_tutor_question_names_the_reviews_label_for_the_drop():
    # the --tutor question called every move it stopped "a mistake", an 8-point drop the review labels an
    # inaccuracy too; it now goes by the low end of the drop's interval, as the review's label does
    from tutor.estimate import Drop
    from tutor.narrate.question import _kind

    assert _kind(Drop(0.08, 0.05, 0.11, 128), False) == "an inaccuracy"
    assert _kind(Drop(0.12, 0.048, 0.20, 128), False) == "a weaker move"  # the low end under 5 points
    assert _kind(Drop(0.20, 0.10, 0.30, 128), False) == "a mistake"
    assert _kind(Drop(0.60, 0.40, 0.80, 128), False) == "a blunder"
    assert _kind(Drop(0.12, 0.12, 0.12, 720, exact=True), True) == "a mistake"
    assert _kind(None, False) == "a weaker move"


def test_a_settled_hint_that_shows_same_explains_it(run):
    # deal 3 after 50 greedy moves: no move wins in any of the 720 consistent deals (the hint settles it), and
    # the cards column read "34.0 same" with no key for "same"
    moves = ("r3 d d w d d w d d d d d w d w d d w d d d d d d w r3 r3 r3 r4 w d w w d d d d d d w w w r1 r1 d w d "
             "w d w")
    out = run(["hint", "3", "--moves", moves]).stdout
    assert " same " in out.replace("\n", " ")
    assert "same: every sampled deal gives that count" in " ".join(out.split())
