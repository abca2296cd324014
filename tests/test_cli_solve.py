"""``osmosis solve`` and ``osmosis stats`` through click's CliRunner."""

from __future__ import annotations

import json

import pytest
from builders import make_deal
from click.testing import CliRunner

from tutor.cli import main
from tutor.deals import deal_for, save_deal
from tutor.rules import preset
from tutor.state import State


def start(number: int, variant: str = "osmosis") -> State:
    rules = preset(variant)
    return State.initial(deal_for(number, rules), rules)


def test_solve_json_gives_a_winning_line_that_replays(run):
    result = run(["solve", "4", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["winnable"] is True and data["best_cards"] == 52
    assert isinstance(data["nodes"], int) and isinstance(data["seconds"], float)
    assert start(4).play(data["line"]).won


def test_solve_after_moves_starts_from_that_position(run):
    first = json.loads(run(["solve", "4", "--json"]).stdout)["line"]
    moves = first[:6]
    data = json.loads(run(["solve", "4", "--moves", " ".join(moves), "--json"]).stdout)
    assert data["winnable"] is True
    assert start(4).play(moves + data["line"]).won


def test_solve_lost_deal_reports_best_score_line(run):
    data = json.loads(run(["solve", "1", "--json"]).stdout)
    assert data["winnable"] is False
    assert start(1).play(data["line"]).cards == data["best_cards"]


def test_solve_explains_a_deal_lost_from_the_start(run):
    result = run(["solve", "7"])
    assert result.exit_code == 0
    assert "lost" in result.output
    assert "8H lies above 8S in pile 2" in " ".join(result.output.split())


def test_solve_on_a_terminal_shows_the_verdict_and_the_line(run):
    result = run(["solve", "4"])
    assert result.exit_code == 0
    assert "winnable" in result.output and "Line:" in result.output


def test_solve_stopped_by_its_limit_is_undecided(run):
    data = json.loads(run(["solve", "3", "--nodes", "2", "--json"]).stdout)
    assert data["winnable"] is None and data["complete"] is False
    text = run(["solve", "3", "--nodes", "2"]).output
    assert "undecided" in text


def test_solve_takes_a_deal_file_and_a_variant(run, tmp_path):
    deal = make_deal(["5S 5H KC QC", "JC TC 9C 8C", "7C 6C 4C 3C", "KD QD JD TD"], "2S")
    path = tmp_path / "lost.json"
    save_deal(deal, path)
    data = json.loads(run(["solve", "--deal-file", str(path), "--json"]).stdout)
    assert data["winnable"] is False
    assert sorted(data["explanation"]["cycle"]) == ["5H", "5S"]
    single = json.loads(run(["solve", "3", "--variant", "single", "--json"]).stdout)
    assert start(3, "single").play(single["line"]).cards == single["best_cards"]


def test_solve_illegal_move_is_one_line_error(run):
    result = run(["solve", "4", "--moves", "w"])
    assert result.exit_code == 1
    assert result.stderr.strip().count("\n") == 0 and "move 1 of --moves (w)" in result.stderr
    assert "Traceback" not in result.output


def test_solve_needs_a_deal(run):
    assert run(["solve"]).exit_code == 2


def test_stats_json_has_the_spec_fields(run):
    data = json.loads(run(["stats", "--deals", "1-6", "--nodes", "20000", "--json"]).stdout)
    assert {"variant", "policy", "deals", "wins", "unknown", "win_rate", "mean_cards"} <= set(data)
    assert data["variant"] == "osmosis" and data["policy"] == "solver" and data["deals"] == 6
    assert data["win_rate"] == pytest.approx(data["wins"] / 6, abs=1e-4)
    low, high = data["ci95"]
    assert 0 <= low <= data["win_rate"] <= high <= 1


def test_stats_with_two_workers_equals_one_worker(run):
    args = ["stats", "--deals", "1-8", "--nodes", "20000", "--json", "--fresh", "--batch", "3"]
    one = json.loads(run(args + ["--workers", "1"]).stdout)
    two = json.loads(run(args + ["--workers", "2"]).stdout)
    one.pop("seconds"), two.pop("seconds")
    assert one == two


def test_stats_greedy_policy_and_table(run):
    result = run(["stats", "--variant", "peek", "--deals", "1-20", "--policy", "greedy"])
    assert result.exit_code == 0
    assert "win rate" in result.output and "mean cards" in result.output
    assert "at least" not in result.output  # greedy's cards are its games' own


def test_stats_says_the_solvers_mean_cards_are_a_lower_bound(run):
    # a lost deal's cards are the best score the search found within its node limit (exact unless the search
    # was cut there), so with a lost deal in the range the mean is "at least" that; with every deal won it is 52
    args = ["stats", "--nodes", "20000", "--workers", "1", "--fresh"]
    lost = run([*args, "--deals", "1-12"])
    assert lost.exit_code == 0
    data = json.loads(run([*args, "--deals", "1-12", "--json"]).stdout)
    low, high = data["mean_cards_interval"]  # a sampled mean, with its 95% interval over the 12 deals
    assert 0 < low < data["mean_cards"] < high <= 52
    assert (f"mean cards {data['mean_cards']:.2f} (95% interval {low:.2f}-{high:.2f}; at least: lost deals count the "
            "best score found)") in " ".join(lost.output.replace("│", " ").split())
    assert data["mean_cards_at_least"] is True
    won = json.loads(run([*args, "--deals", "3-4", "--json"]).stdout)  # deals 3 and 4 are both won
    assert won["wins"] == 2 and won["mean_cards"] == 52 and won["mean_cards_at_least"] is False
    # both 52: no spread, but the win rate's interval reaches down to 34%, and so do the cards over a score's
    # range of 1 to 52 (the base card is placed from the start), 52 a deal won
    assert won["mean_cards_interval"] == [round(1 + 51 * won["ci95"][0], 2), 52.0]
    assert "at least" not in run([*args, "--deals", "3-4"]).output


def test_stats_takes_a_policy_in_any_case_as_it_takes_a_variant(run):
    upper = json.loads(run(["stats", "--variant", "Peek", "--deals", "1-3", "--policy", "GREEDY", "--json"]).stdout)
    assert upper["policy"] == "greedy" and upper["variant"] == "peek" and upper["deals"] == 3


def test_stats_bad_range_is_an_input_error(run):
    result = run(["stats", "--deals", "9-3"])
    assert result.exit_code == 1
    assert "'9-3'" in result.stderr


def test_solve_with_a_time_limit_only(run):
    data = json.loads(run(["solve", "4", "--seconds", "30", "--json"]).stdout)
    assert data["winnable"] is True and start(4).play(data["line"]).won


def test_stats_on_a_terminal_draws_progress_then_the_table(home):
    import io

    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, color_system=None)
    runner = CliRunner(env={"NO_COLOR": "1", "COLUMNS": "100", "OSMOSIS_HOME": str(home)})
    result = runner.invoke(main, ["stats", "--deals", "1-5", "--policy", "greedy"], obj={"console": console},
                           catch_exceptions=False)
    assert result.exit_code == 0
    text = out.getvalue()
    assert "greedy osmosis" in text  # the progress bar's label, drawn on the terminal
    assert "win rate" in text and "mean cards" in text


def test_stats_json_names_a_custom_variant_in_words_and_gives_its_options(run):
    result = run(["stats", "--variant", "bridesmaids", "--passes", "1", "--deals", "1-3",
                  "--policy", "greedy", "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert isinstance(data["variant"], str) and "1 pass" in data["variant"]
    assert data["options"] == {"turn": 3, "passes": 1, "open_reserve": False, "reserve_piles": 0}


def test_solve_writes_the_state_graph_as_graphml(run, tmp_path):
    import networkx as nx

    path = tmp_path / "g.graphml"
    result = run(["solve", "4", "--graph", str(path), "--graph-nodes", "300"])
    assert result.exit_code == 0
    assert "Wrote the state graph to" in result.output and "not complete" in result.output
    g = nx.read_graphml(path)
    assert g.number_of_nodes() >= 300
    assert {d["win"] for _, d in g.nodes(data=True)} <= {"true", "false", "unknown"}
    assert all(d["move"] for _, _, d in g.edges(data=True))
    data = json.loads(run(["solve", "4", "--graph", str(path), "--graph-nodes", "300", "--json"]).stdout)
    assert data["graph"]["nodes"] == g.number_of_nodes() and data["graph"]["complete"] is False
    # the count above the limit is explained: the limit counts explored positions, the rest were only reached
    cut = sum(1 for key, d in g.nodes(data=True) if d["win"] == "unknown" and g.out_degree(key) == 0)
    assert data["graph"]["unexplored"] == cut == g.number_of_nodes() - 300
    assert (f"stopped at its limit of 300 positions explored, and {cut} more were reached but not explored"
            in " ".join(result.output.split()))


def test_solve_graph_to_a_folder_that_is_missing_is_one_line(run, tmp_path):
    result = run(["solve", "4", "--graph", str(tmp_path / "no" / "g.graphml"), "--graph-nodes", "50"])
    assert result.exit_code == 1 and "cannot write the graph" in result.output


@pytest.mark.parametrize("columns", ["0", "-3", "7"])
def test_a_width_too_small_to_lay_out_text_in_is_taken_as_unknown(run, columns):
    """COLUMNS=0 made rich print nothing at all (and exit 0): under 20 columns the output takes 80."""
    result = run(["deal", "1"], env={"COLUMNS": columns})
    assert result.exit_code == 0
    assert result.stdout.startswith("Deal 1   osmosis: turn 3, unlimited passes, 4 reserve piles with the top card up\n")


def test_solve_gives_the_exact_best_score_where_the_librarys_limit_gives_a_lower_bound(run):
    """Deal 2 is lost; at the library's 200,000 positions its best score was 42, a lower bound. The command's
    own limit (1,000,000) finishes the search at 269,635 positions: 44, exact, and the line reaches it."""
    data = json.loads(run(["solve", "2", "--json"]).stdout)
    assert data["winnable"] is False and data["best_cards"] == 44 and data["complete"] is True
    assert data["nodes"] < 1_000_000
    bounded = json.loads(run(["solve", "2", "--json", "--nodes", "200000"]).stdout)
    assert bounded["best_cards"] == 42 and bounded["complete"] is False


def test_the_line_solve_prints_pastes_back_into_moves_with_its_cards(run):
    printed = " ".join(run(["solve", "4"]).output.split("Line:")[1].split())
    tokens = printed.split()
    assert any(t[0].isdigit() or t[0] in "AKQJT" for t in tokens)  # the plays carry their cards
    data = json.loads(run(["solve", "4", "--moves", printed, "--json"]).stdout)
    assert data["winnable"] is True and data["line"] == []  # every move of the line played: the game is won


def test_a_card_name_in_moves_plays_that_card_and_an_unplayable_one_is_named(run):
    by_card = json.loads(run(["solve", "7", "--moves", "QS d", "--json"]).stdout)
    by_move = json.loads(run(["solve", "7", "--moves", "r2 d", "--json"]).stdout)
    assert by_card == {**by_move, "seconds": by_card["seconds"]}
    again = run(["solve", "7", "--moves", "r2 QS QS"])
    assert again.exit_code == 1
    assert again.stderr.strip() == "error: move 3 of --moves (QS): QS cannot be played now: it is already on a foundation"


def test_the_solvers_verdict_says_it_sees_every_card_in_the_same_sentence(run):
    # "Deal 7 (...): lost whatever the player does" read as a player's fate; the solver sees every card
    for number, verdict in ((7, "lost whatever the player does"), (4, "winnable")):
        out = " ".join(run(["solve", str(number)]).stdout.split())
        assert f"), with every card known: {verdict}" in out


def test_a_deal_number_with_leading_zeros_reads_as_stats_reads_it(run):
    # `stats --deals 0000000000000000000000000000001-2` was taken, `deal 0000000000000000000000000000005` was
    # "not a number" (the parser's digit limit counted the zeros)
    assert run(["deal", "0" * 30 + "5", "--json"]).stdout == run(["deal", "5", "--json"]).stdout
    zeros = run(["deal", "0" * 34])
    assert zeros.exit_code == 1 and "is out of range: expected 1 to" in zeros.stderr


def test_solve_names_a_deal_file_as_it_is_spelt(run, tmp_path):
    """'The deal in /tmp/auditd/deals/mydeal_b.json': the heading's capital came from str.capitalize(), which
    lower-cases the rest, so it named a file that does not exist on a case-sensitive system."""
    path = tmp_path / "MyDeal_B.json"
    path.write_text(run(["deal", "7", "--json"]).stdout)
    out = " ".join(run(["solve", "--deal-file", str(path)]).stdout.split())
    assert f"The deal in '{path}'" in out or f"The deal in {path}" in out


def test_one_card_is_said_as_one_card(run):
    out = " ".join(run(["solve", "1", "--nodes", "1"]).stdout.split())
    assert "the best line found before the limit places 1 card, and more" in out and "1 cards" not in out


def test_stats_calls_turn_one_limited_pass_scores_exact(run):
    """With turn 1 and limited passes the solver plays one line per row order, so no lost deal's score is a
    bound: the mean is not "at least" (it was, for every range with a lost deal), unless the node limit is
    below what that line can need."""
    args = ["stats", "--turn", "1", "--passes", "3", "--deals", "1-12", "--workers", "1", "--fresh"]
    data = json.loads(run([*args, "--json"]).stdout)
    assert data["wins"] < 12 and data["mean_cards_at_least"] is False
    assert "at least" not in run(args).output
    assert json.loads(run([*args, "--nodes", "100", "--json"]).stdout)["mean_cards_at_least"] is True
    one_pass = json.loads(run([*args[:4], "1", *args[5:], "--reserve-piles", "0", "--json"]).stdout)
    assert one_pass["wins"] == 0 and one_pass["mean_cards_at_least"] is False
    turn_three = json.loads(run([*args[:2], "3", *args[3:], "--json"]).stdout)
    assert turn_three["wins"] < 12 and turn_three["mean_cards_at_least"] is True
