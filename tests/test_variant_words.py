"""Advice that fits the variant it is given in: the last of limited passes, turn 1, a game with every
card seen, a Peek game whose only verdict was in view (an audit of the words per variant)."""

from __future__ import annotations

import json

from builders import osmosis

from tutor.certainty import is_safe, lost_for_certain, play_ends_game
from tutor.deals import deal_for
from tutor.knowledge import observe
from tutor.narrate.hint import cards_decimals, cards_ends
from tutor.narrate.tags import tag_tip, tip_topic
from tutor.narrate.tips import TipId
from tutor.notation import parse_moves
from tutor.record import Record, save_record
from tutor.review.facts import Candidate, TurnedPast
from tutor.rules import preset
from tutor.search import Limit, solve
from tutor.state import State
from tutor.talon import last_pass

#: Deal 23 in limited, the last of 3 passes: 7C on the waste, the stock KD KC 4D, TD (the variants lesson's).
L23 = ("r2 d d d w w r3 d d d w w r1 w r2 w w r3 w d d w d w r3 r3 w d d d d d w w w d d w w d d d d w r4 w w "
       "d d d d w d w w w d")


def test_the_last_pass_hint_says_a_card_turned_past_stays_buried_not_that_the_groups_shift(home):
    """It said "taking it now changes which cards the rest of this pass, the last one, shows": a waste play
    leaves the stock as it is, and no pass follows for the groups to shift in."""
    data = json.loads(osmosis(["hint", "23", "--variant", "limited", "--moves", L23, "--json"], home).stdout)
    assert data["best"] == "w" and data["why"] == "safe"  # no pass follows: the play only adds options
    reason = " ".join(data["reason"].split())
    assert ("on the last pass taking it shifts no group of the talon (no pass follows), while a card you turn "
            "past now is buried under the next turn") in reason
    assert "changes which cards" not in reason and "next pass" not in reason
    assert "last-pass" in data["tips"] and "plan-passes" not in data["tips"]


def test_a_last_pass_waste_play_with_the_stock_empty_speaks_of_no_turn(home):
    """With the stock empty no turn is left, so no card can be "turned past": the moves are r4 and w."""
    moves = "r1 r2 r1 d d w r1 r1 d d d d d d d d w d r4 w d"
    data = json.loads(osmosis(["hint", "654", "--variant", "limited", "--passes", "1", "--moves", moves, "--json"],
                              home).stdout)
    assert data["why"] == "safe" and {c["move"] for c in data["candidates"]} == {"r4", "w"}
    reason = " ".join(data["reason"].split())
    assert "on the last pass taking it shifts no group of the talon (no pass follows)." in reason
    assert "turn past" not in reason


#: Deal 43 in limited, pass 2 of 3 with the stock empty: 9S on the waste goes to row 2, and after it no
#: card can be played and the redeal shows none that can (found by random play).
L43 = "r3 d d r1 r2 r2 d w d w d d d d d d d d d d d d w d d w w d d d d d d"


def test_a_play_after_which_the_game_ends_is_lost_for_certain_in_its_own_words(home):
    """It showed a sampled "0% (95%: 0-6%)", and then as lost "9S would open row None for spades, an order
    the reserve piles make impossible to complete"."""
    data = json.loads(osmosis(["hint", "43", "--variant", "limited", "--moves", L43, "--json"], home).stdout)
    w = next(c for c in data["candidates"] if c["move"] == "w")
    assert w["lost"] is True and w["interval"] == [0.0, 0.0] and w["win"] == 0.0
    reason = " ".join(data["reason"].split())
    assert "If you play 9S, no card can be played after it. After it, a redeal would block the game" in reason
    assert "row None" not in reason and "impossible" not in reason
    # the hint recommends that very redeal: "A redeal would block the game" read as against it
    assert data["best"] == "d" and ". A redeal would block" not in reason


def _last_pass_positions(seed: int, count: int) -> list[State]:
    """Positions on the last of limited passes (three of them, turn 3, then turn 1), reached by random play."""
    import random

    rng = random.Random(seed)
    out: list[State] = []
    for rules in (preset("limited"), preset("limited").with_options(turn=1)):
        for deal in rng.sample(range(1, 5000), count):
            state = State.initial(deal_for(deal, rules), rules)
            while state.legal_moves():
                if last_pass(state):
                    out.append(state)
                legal = state.legal_moves()
                plays = [m for m in legal if m.is_play]
                state = state.apply(rng.choice(plays) if plays and rng.random() < 0.6 else legal[-1])
    return out


def test_on_the_last_pass_a_waste_play_for_an_open_row_keeps_the_positions_value():
    """tutor.certainty.is_safe: no redeal follows, so a waste play shifts no group; checked against the
    full-knowledge solver, as the turn-1 rule is in tests/test_hints.py."""
    checked = 0
    for state in _last_pass_positions(7, 6)[::5]:
        obs = observe(state)
        for m in obs.legal_moves():
            if m.kind != "w" or not is_safe(obs, m):
                continue
            here, after = solve(state, Limit(nodes=60_000)), solve(state.apply(m), Limit(nodes=60_000))
            if here.complete and after.complete:
                assert (after.winnable, after.best_cards) == (here.winnable, here.best_cards), m
                checked += 1
    assert checked >= 10


def test_a_play_that_ends_the_game_ends_it_in_every_deal_tried():
    checked = 0
    for state in _last_pass_positions(11, 8):
        obs = observe(state)
        for m in obs.legal_moves():
            if not (m.is_play and play_ends_game(obs, m)):
                continue
            assert lost_for_certain(obs, m)
            for world in obs.samples(4):
                after = world.apply(m)
                while (legal := after.legal_moves()):
                    assert not any(x.is_play for x in legal)
                    after = after.apply(legal[0])
                assert after.cards == state.cards + 1 < 52
            checked += 1
    assert checked >= 3


def test_a_card_turned_past_gets_the_tip_of_its_variant_and_pass():
    limited = preset("limited")
    last = State.initial(deal_for(23, limited), limited).play(parse_moves(L23))
    fact = TurnedPast(0, Candidate(parse_moves("w")[0], 0.25, 41.6, 120), first_row=False)
    assert tip_topic(fact, last) == TipId.LAST_PASS  # no next pass to plan for
    row_one = TurnedPast(0, fact.play, first_row=True)
    assert tip_topic(row_one, last) == TipId.LAST_PASS
    osmosis_rules = preset("osmosis")
    start = State.initial(deal_for(23, osmosis_rules), osmosis_rules)
    assert tip_topic(fact, start) == TipId.TURN_PAST and tip_topic(row_one, start) == TipId.FIRST_ROW
    one = preset("osmosis").with_options(turn=1, passes=3)
    assert tip_topic(fact, State.initial(deal_for(23, one), one)) == TipId.TURN_PAST  # no groups of three
    assert tag_tip("turned-past") == TipId.TURN_PAST and tag_tip("no-progress", last) == TipId.LAST_PASS
    assert tag_tip("wrong-row") == TipId.ROW_SUIT  # which suit opens the row, not the ranks row 1 holds


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


#: The waiting lesson's step 4 (Peek deal 4, third pass): 6H on the waste opens row 3, and waiting loses.
P4 = ("r2 r3 d w d d d w d d d d d w d d w w w d w r2 r2 d d d d d d d d w d w d d d d d d d d d d w d")


def test_with_every_card_known_waiting_is_no_bet_against_the_talon(home):
    """It said "waiting is a bet against the talon" beside "exact: you have seen every card"."""
    data = json.loads(osmosis(["hint", "4", "--variant", "peek", "--moves", P4, "--json"], home).stdout)
    assert data["best"] == "w"
    assert "open row 3 for hearts now: with every card known, waiting does not pay here." in data["reason"]
    assert "bet" not in data["reason"] and "pays only if the talon brings" not in data["reason"]


def test_a_single_pass_is_not_the_last_of_1_passes():
    from tutor.knowledge import observe
    from tutor.narrate.hint import _lost_turn

    rules = preset("osmosis").with_options(passes=1)
    text = _lost_turn(observe(State.initial(deal_for(1, rules), rules)))
    assert "this is the only pass," in text and "of 1 passes" not in text
    from tutor.advice import no_progress_reason

    forced = no_progress_reason(observe(State.initial(deal_for(1, rules), rules)))
    assert "the game ends with this pass, the only one." in forced and "last of 1" not in forced


def test_a_word_that_is_no_move_is_answered_with_the_moves_of_the_game_played(run):
    """Every unknown word was answered "expected r1-r4 ..." and the r1 it offered was then refused in
    Bridesmaids (no reserve) and r3 with 2 piles: what would be right now names only the piles there are."""
    out = run(["play", "5", "--variant", "bridesmaids"], input="foo\nr 1\nq\n").output
    assert "unknown move 'foo': expected w (the waste), d (turn the talon) or a card like 7h" in out
    assert "'r 1' is no move: this game has no reserve" in out and "r1-r4" not in out
    out = run(["play", "5", "--reserve-piles", "2"], input="foo\nr 3\nr 2\nr3\nq\n").output
    assert "expected r1-r2 (a reserve pile), w (the waste), d (turn the talon)" in out
    assert "no space, r1 to r2;" in out and "no space, r2;" in out
    assert "reserve pile 3 does not exist; this game has 2 reserve piles (r1-r2)" in out
    for args in (["solve", "1", "--moves", "d x"], ["hint", "1", "--moves", "x" * 60 + " d"]):
        result = run([*args, "--reserve-piles", "1"])
        assert result.exit_code == 1 and "expected r1 (the reserve pile), w (the waste)" in result.stderr
    result = run(["solve", "1", "--moves", "r2 x", "--variant", "bridesmaids"])
    assert "move 2 of --moves: unknown move 'x': expected w (the waste), d" in result.stderr


def test_a_random_deal_says_how_to_play_that_same_game_again(run):
    """"play it again with: osmosis play N" dropped the variant: it named an Osmosis game after a Bridesmaids
    one. The command given now opens the same deal with the same rules, options included."""
    import re

    for args in ([], ["--variant", "bridesmaids"], ["--variant", "peek", "--turn", "1"],
                 ["--turn", "1", "--passes", "3", "--reserve-piles", "2"]):
        first = run(["play", *args], input="q\n").output.splitlines()
        again = re.search(r"play it again with: osmosis (play .*)\)$", first[0]).group(1).split()
        assert run(again, input="q\n").output.splitlines()[0] == first[1]


def test_a_lesson_on_a_board_with_no_reserve_offers_no_reserve_pile(run):
    """The variants lesson's Bridesmaids question answered a typo with "expected r1-r4 ...", and so did its help
    (and a drill of a Bridesmaids game, through the same judge)."""
    out = run(["lesson", "variants"], input="KS\n\n\n\n\n7C\n\n\nxx\nd w\n?\nq\n").output
    assert "unknown move 'xx': expected w (the waste), d (turn the talon) or a card like 7h" in out
    assert "unknown move 'd w': expected w (the waste), d (turn the talon)" in out
    assert "Answer with a move: w (the waste), d (turn the talon) or a card like 7h. h gives a hint" in out
    assert "r1-r4" not in out


def test_solve_says_one_card_is_on_the_foundations_at_a_blocked_end(run):
    out = run(["solve", "1", "--variant", "bridesmaids", "--passes", "1", "--moves", " ".join(["d"] * 17)]).output
    assert "blocked: the game is over with 1 card on the foundations" in " ".join(out.split())  # no move left
