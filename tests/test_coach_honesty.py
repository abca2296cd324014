"""The history and the coach claim no more than their games show (issue: the coach honesty audit)."""

from __future__ import annotations

import io
from dataclasses import replace

from tutor.cli.history_render import rate_text, trend_text
from tutor.history.coach import TagFigures, is_loss
from tutor.history.reviews import StoredMove
from tutor.history.stats import Figures
from tutor.notation import parse_moves


def _tag(older, newer, older_moves=None, newer_moves=None, drops=(10.0, 10.0)):
    mean = sum(drops) / len(drops)
    sd = (sum((d - mean) ** 2 for d in drops) / (len(drops) - 1)) ** 0.5 if len(drops) > 1 else 0.0
    return TagFigures("early-start", older[0] + newer[0], older[1] + newer[1], mean, sum(drops), older, newer,
                      None, [], sd, older_moves, newer_moves)


def test_a_trend_is_a_rate_per_graded_move_not_per_game():
    """Four bad games, then four quit after one move: 6 against 0 per game looked like "getting better"
    (chance 1.6%), but the newer games gave 4 chances to the older games' 34."""
    quit_early = _tag((6, 4), (0, 4), older_moves=34, newer_moves=4)
    assert quit_early.trend == "better" and not quit_early.trend_clear
    assert quit_early.trend_p is not None and quit_early.trend_p > 0.4
    assert "6 times in your 4 older games (34 graded moves), 0 in your 4 newer (4)" in trend_text(quit_early)
    assert trend_text(quit_early).startswith("No clear trend yet")
    # the JSON named the direction it had not shown ("trend": "better", "trend_clear": false)
    assert quit_early.to_json()["trend"] == "unclear" and quit_early.to_json()["lean"] == "better"
    even = _tag((6, 4), (0, 4), older_moves=34, newer_moves=34)
    assert even.trend_clear and "per 100 graded moves" in trend_text(even)
    assert even.to_json()["trend"] == even.to_json()["lean"] == "better"
    no_chance = _tag((0, 10), (8, 10), older_moves=0, newer_moves=200)  # the older games had no graded move
    assert no_chance.trend is None and not no_chance.trend_clear
    assert trend_text(no_chance) == "Trend: needs graded moves in both your older and your newer games."


def test_a_win_rate_counts_finished_games_only():
    two_open = Figures(games=2, wins=0, finished=0, mean_cards=5.0, rated=0, accuracy=None)
    assert two_open.win_rate is None and two_open.interval is None
    assert rate_text(two_open) == "no finished game yet (2 unfinished)"
    mixed = Figures(games=5, wins=2, finished=4, mean_cards=30.0, rated=0, accuracy=None)
    assert mixed.win_rate == 0.5 and rate_text(mixed).startswith("2 of 4 finished won (50%;")
    assert rate_text(mixed).endswith(", 1 unfinished")


def test_drops_all_alike_claim_no_zero_width_interval():
    assert _tag((1, 1), (1, 1), drops=(75.0, 75.0)).interval is None
    assert _tag((1, 1), (1, 1), drops=(70.0, 80.0)).interval is not None


def _move(label, drop, interval):
    return StoredMove(1, 5, "w", "d", label, (), drop, 0.5, 0.48, True, "", (), interval, 64)


def test_a_good_move_whose_drop_may_be_nothing_is_no_loss():
    assert not is_loss(_move("good", 2.0, (-1.82, 4.9)))
    assert is_loss(_move("mistake", 30.0, (15.0, 44.0)))
    assert is_loss(_move("good", 3.0, None))  # an older review that kept no interval: its drop as it is


def test_history_of_a_variant_with_no_games_names_the_variant(run):
    run(["play", "1"], input="d\nq\n")
    out = " ".join(run(["history", "--variant", "peek"]).stdout.split())
    assert out.startswith("No games of peek in your history yet") and "without --variant" in out


def test_a_cost_counted_for_two_tags_says_so():
    from tutor.cli.history_render import render_coaching
    from tutor.history.coach import Coaching

    shared = _tag((1, 1), (1, 1), drops=(10.0, 20.0))
    parts = render_coaching(Coaching(2, 20, {"inaccuracy": 0, "mistake": 0, "blunder": 0},
                                     [replace(shared, shared=1)], [], None, 0), {})
    text = " ".join(p.renderable.plain if hasattr(p, "renderable") else p.plain for p in parts)
    assert "1 of those moves carries another tag too, and the move's whole drop counts for each." in text


def test_the_cost_of_one_time_carries_that_moves_own_interval():
    # "Cost: 11 win points, the one time." had no interval, while the losses table beside it said 11 (8-14)
    from tutor.cli.history_render import render_coaching
    from tutor.history.coach import Coaching, Example

    def text_of(tag):
        parts = render_coaching(Coaching(1, 20, {"inaccuracy": 1, "mistake": 0, "blunder": 0}, [tag], [], None, 0),
                                {})
        from rich.console import Console

        console = Console(width=200, record=True, file=io.StringIO())
        for part in parts:
            console.print(getattr(part, "text", part))
        return console.export_text()

    move = Example(5, 17, "osmosis", "2026-12-05", None, 1, "r1", "r2", "inaccuracy", ("early-start",), 11.2,
                   drop_interval=(8.1, 14.3), drop_samples=512)
    one = replace(_tag((0, 1), (1, 1), drops=(11.2,)), examples=[move])
    assert one.interval == (8.1, 14.3) and one.to_json()["interval"] == [8.1, 14.3]
    assert "Cost: 11 win points (95% interval 8-14), the one time." in " ".join(text_of(one).split())
    exact = replace(one, examples=[replace(move, drop_interval=(11.2, 11.2))])
    assert "Cost: 11 win points (exact), the one time." in " ".join(text_of(exact).split())
    unkept = replace(one, examples=[replace(move, drop_interval=None)])  # an older review kept no interval
    assert unkept.interval is None and "Cost: 11 win points, the one time." in " ".join(text_of(unkept).split())


def test_a_tags_interval_does_not_depend_on_the_examples_shown():
    """`coach --examples 0` dropped a one-time tag's interval (it was read from the examples shown), and two
    equal drops of one move played twice claimed none though each review kept its own (7.7-13.0)."""
    once = replace(_tag((0, 1), (1, 1), drops=(11.2,)), kept=((8.1, 14.3),))
    assert once.interval == (8.1, 14.3) and once.to_json()["interval"] == [8.1, 14.3]
    twice = replace(_tag((1, 1), (1, 1), drops=(10.4, 10.4)), kept=((7.68, 12.99), (7.68, 12.99)))
    assert twice.interval == (7.68, 12.99)
    apart = replace(twice, kept=((7.0, 12.0), (8.0, 13.5)))
    assert apart.interval == (7.0, 13.5)
    assert replace(twice, kept=((7.68, 12.99), None)).interval is None  # a review that kept none: none claimed


def test_coach_with_no_examples_keeps_the_one_time_interval(run, tmp_path):
    from tutor.deals import deal_for
    from tutor.record import Record, save_record
    from tutor.rules import preset

    rules = preset("peek")
    path = tmp_path / "g.json"
    save_record(Record(rules, deal_for(33, rules), list(parse_moves("r2 d d d d d w w d"))), path)
    run(["review", str(path)])  # two tags met once each
    import json

    full = json.loads(run(["coach", "--no-review", "--json"]).stdout)
    bare = json.loads(run(["coach", "--no-review", "--json", "--examples", "0"]).stdout)
    intervals = {t["tag"]: t["interval"] for t in full["tags"]}
    assert intervals and all(v is not None for v in intervals.values())
    assert {t["tag"]: t["interval"] for t in bare["tags"]} == intervals


def test_a_loss_cell_says_exact_apart_from_an_interval_not_kept():
    # an exact drop and one whose interval an older review did not keep both showed a bare "75"
    from tutor.cli.drill import _figure_json, _lost_cell
    from tutor.cli.history_render import lost_cell
    from tutor.history.drill import Drill, DropFigure

    assert lost_cell(75.0, (75.0, 75.0)) == "75 (exact)" and lost_cell(75.0, None, exact=True) == "75 (exact)"
    assert lost_cell(18.0, None) == "18" and lost_cell(18.0, (14.2, 21.6)) == "18 (14-22)"
    # a low end that would round up gets a decimal, as the review gives it: 4.78 shown as 5 sat beside "good"
    # under the inaccuracy threshold of 5
    assert lost_cell(7.0, (4.78, 9.27)) == "7 (4.8-9.3)" and lost_cell(7.0, (5.0, 9.0)) == "7 (5-9)"
    assert lost_cell(2.0, (-1.5, 5.2)) == "2 (-2 to 5)" and lost_cell(2.0, (-0.4, 5.2)) == "2 (-0.4 to 5.2)"
    d = Drill(1, 5, 56, "w", "d", "blunder", ("talon-shift",), 75.0, 0, "2026-12-05T00:00:00+00:00")
    older = DropFigure(exact=True)  # an exact figure whose interval the review did not store
    assert _lost_cell(d, older) == "75 (exact)"
    assert _figure_json(d, older) == {"drop_interval": [75.0, 75.0], "drop_samples": None, "drop_exact": True}
    assert _figure_json(d, None) == {"drop_interval": None, "drop_samples": None, "drop_exact": False}


def test_history_counts_rated_games_where_the_coach_counts_reviewed_ones():
    # history said "accuracy 78.4 over 1 reviewed game" beside the coach's "2 reviewed games": one review had no
    # graded move (Peek, every move forced or decided), so it rates nothing; history now says what it counts
    from types import SimpleNamespace

    from tutor.cli.history_render import figures_line

    fig = SimpleNamespace(games=2, finished=2, wins=0, win_rate=0.0, interval=(0.0, 0.66), mean_cards=20.0,
                          rated=1, accuracy=78.4)
    line = figures_line("All games", fig).plain
    assert line.endswith(", accuracy 78.4 over 1 rated game.") and "reviewed" not in line


def test_an_accuracy_interval_that_rounds_to_one_value_keeps_its_decimals():
    """A game's row showed "99.9" bare while the summary gave 99.6-100.0: ends that round alike got hidden."""
    from tutor.cli.history_render import _accuracy_cell, _ci

    assert _accuracy_cell(99.9, (99.6, 100.0)) == "99.9 (99.6-100.0)"
    assert _accuracy_cell(87.3, (81.0, 91.2)) == "87.3 (81-91)"
    assert _accuracy_cell(100.0, (100.0, 100.0)) == "100.0"  # every drop exact: one value, no interval
    assert _ci((99.96, 100.0)) == " (95%: 99.96-100.00)" and _ci((74.1, 78.3)) == " (95%: 74.1-78.3)"
    assert _ci((50.0, 50.0)) == "" and _ci(None) == ""


def test_a_talon_tag_of_turn_one_or_limited_games_points_to_the_variants_lesson():
    """turned-past in three turn-1, 3-pass games sent the player to the turning-three lesson, which turns three
    cards with unlimited passes ("Unlimited passes are not unlimited time"); the variants lesson plays
    single-card turns and limited passes. A game of the default talon among them keeps turning-three."""
    from tutor.history.coach import lesson_for
    from tutor.history.db import GameRow

    def game(variant):
        return GameRow(1, "k", {"variant": variant}, "v", 1, 10, 20, False, True, None, "", "", "")

    aisleriot = game({"turn": 1, "passes": 3})
    for tag in ("turned-past", "no-progress"):
        assert lesson_for(tag, [aisleriot, game("limited"), game("single")]).name == "variants"
        assert lesson_for(tag, [aisleriot, game("osmosis")]).name == "turning-three"
        assert lesson_for(tag, [game("peek"), game({"turn": "x"})]).name == "turning-three"
        assert lesson_for(tag).name == "turning-three"  # no games named: as before
    assert lesson_for("early-start", [aisleriot]).name == "waiting"
