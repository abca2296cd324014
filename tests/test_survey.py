"""Win-rate surveys: policies, the interval, and parallel runs that agree with serial ones."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutor.deals import deal_for
from tutor.errors import TutorError
from tutor.rules import preset
from tutor.search import Limit, solve
from tutor.state import State
from tutor.survey import parse_range, play_deal, play_greedy, play_tutor, run_survey, wilson

OSMOSIS = preset("osmosis")


def test_wilson_interval_known_values():
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 20)[0] == 0.0 and 0 < wilson(0, 20)[1] < 0.2
    assert wilson(0, 0) == (0.0, 1.0)


def test_parse_range_takes_a_range_or_one_number():
    assert list(parse_range("3-6")) == [3, 4, 5, 6]
    assert list(parse_range("7")) == [7]
    for bad in ("6-3", "0-4", "a-b", "1-2-3"):
        with pytest.raises(TutorError):
            parse_range(bad)


def test_greedy_plays_the_first_legal_move_until_over():
    state = State.initial(deal_for(2, OSMOSIS), OSMOSIS)
    end = play_greedy(state)
    assert end.over
    # Replaying "first legal move" by hand reaches the same position.
    s = state
    while s.legal_moves():
        s = s.apply(s.legal_moves()[0])
    assert s == end


def test_solver_policy_reports_the_solver_verdict():
    outcome = play_deal(4, OSMOSIS, "solver", Limit(nodes=20_000))
    assert outcome.won is True and outcome.cards == 52
    lost = play_deal(7, OSMOSIS, "solver", Limit(nodes=50_000))
    expected = solve(State.initial(deal_for(7, OSMOSIS), OSMOSIS), Limit(nodes=50_000))
    assert lost.won is False and lost.cards == expected.best_cards


def test_survey_counts_wins_unknown_and_mean():
    survey = run_survey(OSMOSIS, range(1, 9), "solver", workers=1, limit=Limit(nodes=3))
    assert survey.deals == 8
    assert survey.wins + survey.unknown + sum(o.won is False for o in survey.outcomes) == 8
    assert survey.unknown > 0  # a 3-node limit leaves deals undecided, never guessed
    data = survey.to_json()
    assert data["mean_cards"] == pytest.approx(sum(o.cards for o in survey.outcomes) / 8, abs=0.01)


@pytest.mark.parametrize("policy", ["solver", "greedy"])
def test_two_workers_give_the_same_outcomes_as_one(policy):
    limit = Limit(nodes=30_000)
    one = run_survey(OSMOSIS, range(20, 30), policy, workers=1, limit=limit)
    two = run_survey(OSMOSIS, range(20, 30), policy, workers=2, limit=limit)
    assert [(o.number, o.won, o.cards) for o in one.outcomes] == [(o.number, o.won, o.cards) for o in two.outcomes]


def test_progress_is_reported_per_deal():
    calls = []
    run_survey(OSMOSIS, range(1, 4), "greedy", progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_unknown_policy_is_an_error():
    with pytest.raises(TutorError):
        run_survey(OSMOSIS, [1], "random")


def test_tutor_policy_follows_its_hints_to_the_end():
    # Near the end of a won deal the tutor's own hints must finish the game.
    start = State.initial(deal_for(4, OSMOSIS), OSMOSIS)
    line = solve(start).line
    near_end = start.play(line[:-6])
    end = play_tutor(near_end)
    assert end.over and end.won


@given(st.lists(st.integers(min_value=1, max_value=52), min_size=2, max_size=60))
def test_a_surveys_mean_cards_carry_the_student_t_interval_of_the_deals_cards(cards):
    """The survey's mean cards were printed bare, a sampled figure with no interval: its 95% interval is the
    Student-t interval of the deals' cards, the one the hints use, kept from running sums."""
    from tutor.estimate import mean_interval
    from tutor.policies import DealOutcome
    from tutor.survey import Tally

    tally = Tally(preset("osmosis"), "greedy")
    for number, n in enumerate(cards, 1):
        tally.add(DealOutcome(number, n == 52, n, 0.0))
    low, high = tally.cards_interval
    want_low, want_high = mean_interval(cards, 1.0, 52.0)  # a score is 1 to 52: the base card is placed at the start
    if len(set(cards)) == 1:  # no spread: the t interval has no width; the share that could differ bounds it
        share = wilson(0, len(cards))[1]
        want_low, want_high = cards[0] - share * (cards[0] - 1), cards[0] + share * (52 - cards[0])
        assert want_low < cards[0] or cards[0] == 1
    assert low == pytest.approx(want_low, abs=1e-6) and high == pytest.approx(want_high, abs=1e-6)
    assert tally.to_json()["mean_cards_interval"] == [round(low, 2), round(high, 2)]
    assert Tally(preset("osmosis"), "greedy").cards_interval == (1.0, 52.0)
