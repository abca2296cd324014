"""Advice that fits the variant it is given in: the last of limited passes, turn 1, a game with every
card seen, a Peek game whose only verdict was in view (an audit of the words per variant)."""

from __future__ import annotations

import json

from builders import osmosis

from tutor.deals import deal_for
from tutor.narrate.hint import cards_decimals, cards_ends
from tutor.narrate.tags import tag_tip, tip_topic
from tutor.narrate.tips import TipId
from tutor.notation import parse_moves
from tutor.record import Record, save_record
from tutor.review.facts import Candidate, TurnedPast
from tutor.rules import preset
from tutor.state import State

#: Deal 23 in limited, the last of 3 passes: 7C on the waste, the stock KD KC 4D, TD (the variants lesson's).
L23 = ("r2 d d d w w r3 d d d w w r1 w r2 w w r3 w d d w d w r3 r3 w d d d d d w w w d d w w d d d d w r4 w w "
       "d d d d w d w w w d")


def test_the_last_pass_hint_says_a_card_turned_past_stays_buried_not_that_the_groups_shift(home):
    """It said "taking it now changes which cards the rest of this pass, the last one, shows": a waste play
    leaves the stock as it is, and no pass follows for the groups to shift in."""
    data = json.loads(osmosis(["hint", "23", "--variant", "limited", "--moves", L23, "--json"], home).stdout)
    assert data["best"] == "w"
    reason = " ".join(data["reason"].split())
    assert "this is the last pass, so a card you turn past now is buried under the next turn" in reason
    assert "changes which cards" not in reason and "groups" not in reason and "next pass" not in reason
    assert "last-pass" in data["tips"] and "plan-passes" not in data["tips"]


def test_a_card_turned_past_gets_the_tip_of_its_variant_and_pass():
    limited = preset("limited")
    last = State.initial(deal_for(23, limited), limited).play(parse_moves(L23))
    fact = TurnedPast(0, Candidate(parse_moves("w")[0], 0.25, 41.6, 120), first_row=False)
    assert tip_topic(fact, last) == TipId.LAST_PASS  # no next pass to plan for
    row_one = TurnedPast(0, fact.play, first_row=True)
    assert tip_topic(row_one, last) == TipId.LAST_PASS
    osmosis_rules = preset("osmosis")
    start = State.initial(deal_for(23, osmosis_rules), osmosis_rules)
    assert tip_topic(fact, start) == TipId.PLAN_PASSES and tip_topic(row_one, start) == TipId.FIRST_ROW
    one = preset("osmosis").with_options(turn=1, passes=3)
    assert tip_topic(fact, State.initial(deal_for(23, one), one)) == TipId.TURN_PAST  # no groups of three
    assert tag_tip("turned-past") == TipId.PLAN_PASSES and tag_tip("no-progress", last) == TipId.LAST_PASS


def test_a_certain_end_with_every_card_seen_names_no_face_down_cards(home):
    moves = "d d d d w d d w d d d d w d w d d w d w d w d d d d d d d d d d"
    reason = " ".join(json.loads(osmosis(["hint", "1", "--variant", "bridesmaids", "--moves", moves, "--json"],
                                         home).stdout)["reason"].split())
    assert "both certain: every card is known." in reason and "face-down" not in reason


def test_the_hindsight_warning_comes_only_with_hindsight(home, tmp_path):
    """A Peek game whose one verdict, a trap of the reserve piles, was face up from the first move: no
    hindsight below, so no warning about it."""
    for variant, warned in (("peek", False), ("osmosis", True)):
        rules = preset(variant)
        path = tmp_path / f"{variant}.json"
        save_record(Record(rules, deal_for(5, rules), parse_moves("r4 d d d d d d")), path)
        text = " ".join(osmosis(["review", str(path)], home).stdout.split())
        assert ("The hindsight below knows the cards this game has not shown yet" in text) is warned, variant


def test_a_cards_interval_keeps_the_decimals_that_tell_its_ends_apart():
    assert cards_ends(27.2, 31.4) == "27-31" and cards_decimals(27.2, 31.4) == 0
    assert cards_ends(27.2, 27.4) == "27.2-27.4"
    assert cards_ends(24.97, 25.03) == "24.97-25.03" and cards_decimals(24.97, 25.03) == 2
