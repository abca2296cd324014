"""The memory panel's values come from what the player has seen; ``t`` never turns past a playable card."""

from __future__ import annotations

import random

import pytest
from builders import position
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor.deals import Deal, deal_for
from tutor.knowledge import observe
from tutor.notation import TURN, WASTE
from tutor.rules import preset
from tutor.state import State
from tutor.talon import TURN_STOPS, memory, turn_ends_game, turning_blocks, turns_to_play


def test_first_pass_memory_lists_the_turned_cards_and_the_stock_as_unseen_groups():
    state = position(1, "d")
    mem = memory(observe(state))
    assert tuple(s.card for s in mem.waste) == state.talon[:3]
    assert mem.waste[-1].shows and not mem.waste[0].shows
    assert [len(g) for g in mem.turns] == [3] * 10 + [2]
    assert all(s.card is None for g in mem.turns for s in g)
    assert mem.seen == 3 and mem.unseen == 32 and mem.pass_no == 1


def test_second_pass_memory_knows_the_whole_talon_in_turning_order_and_marks_playable_cards():
    state = position(5, "r4 " + "d " * 13)
    assert state.pass_no == 2 and state.pos == 0
    mem = memory(observe(state))
    assert tuple(s.card for g in mem.turns for s in g) == state.talon
    assert mem.unseen == 0
    for group in mem.turns:
        assert [s.shows for s in group] == [False] * (len(group) - 1) + [True]
        for s in group:
            assert s.playable == (state.destination(s.card) >= 0)
    assert mem.playable() == tuple(c for c in state.talon if state.destination(c) >= 0)


def test_memory_marks_redeal_next_when_the_stock_is_empty():
    state = position(1, "d " * 12)
    assert state.pos == len(state.talon)
    mem = memory(observe(state))
    assert mem.turns == () and mem.redeal_next and not mem.can_redeal  # no card played: blocked
    played = position(1, "d d d d d w " + "d " * 7)
    assert played.pos == len(played.talon)
    assert memory(observe(played)).can_redeal


def _swap_unseen(deal: Deal, state: State, rng: random.Random) -> Deal:
    """The deal with two cards the player of ``state`` has not seen exchanged."""
    unseen = list(observe(state).unseen_cards())
    a, b = rng.sample(unseen, 2)

    def sw(c):
        return b if c == a else a if c == b else c

    return Deal(tuple(tuple(sw(c) for c in p) for p in deal.reserves), sw(deal.base),
                tuple(sw(c) for c in deal.talon))


@pytest.mark.parametrize("number,moves", [(1, "d"), (1, "d d d d"), (3, "d d"), (10, "d d d d d d")])
def test_swapping_unseen_cards_does_not_change_the_memory(number, moves):
    rules = preset("osmosis")
    deal = deal_for(number, rules)
    state = State.initial(deal, rules).play(moves.split())
    rng = random.Random(number)
    for _ in range(5):
        other = _swap_unseen(deal, state, rng)
        assert other != deal
        twin = State.initial(other, rules).play(moves.split())
        assert memory(observe(twin)) == memory(observe(state))


# ---- t ------------------------------------------------------------------------

def test_t_on_deal_one_turns_until_the_waste_shows_a_playable_card():
    state = position(1)
    run = turns_to_play(state)
    assert run.moves and all(m == TURN for m in run.moves)
    after = state.play(run.moves)
    assert run.why == "playable" and WASTE in after.legal_moves()


def test_t_does_not_turn_when_the_waste_top_can_be_played():
    state = position(1)
    after = state.play(turns_to_play(state).moves)
    run = turns_to_play(after)
    assert run.moves == () and run.why == "waste-playable"


def test_t_stops_before_a_redeal():
    state = position(1, "d d d d d w " + "d " * 5)  # 2C played; the waste shows 29 of 34 cards
    run = turns_to_play(state)
    assert run.moves == (TURN, TURN) and run.why == "redeal"
    after = state.play(run.moves)
    assert after.pos == len(after.talon) and after.pass_no == 1
    again = turns_to_play(after)
    assert again.moves == () and again.why == "redeal"


def test_t_on_a_finished_game_does_nothing():
    state = position(1, "d " * 12)  # a whole pass with no card played: blocked
    assert turns_to_play(state).why == "over"


@settings(max_examples=25, deadline=None)
@given(number=st.integers(1, 2000), seed=st.integers(0, 10_000), variant=st.sampled_from(["osmosis", "single"]))
def test_t_never_turns_past_a_playable_card(number, seed, variant):
    """Play a random game made of t and plays: no turn inside a t ever covers a waste card that could be played."""
    rules = preset(variant)
    state = State.initial(deal_for(number, rules), rules)
    rng = random.Random(seed)
    for _ in range(200):
        if state.over:
            break
        plays = [m for m in state.legal_moves() if m.is_play]
        if plays and rng.random() < 0.7:
            state = state.apply(rng.choice(plays))
            continue
        run = turns_to_play(state)
        if not run.moves:
            if TURN not in state.legal_moves():
                break
            state = state.apply(TURN)  # what d does when t will not (a redeal, or past a playable top)
            continue
        for move in run.moves:
            assert WASTE not in state.legal_moves(), "t turned past a playable waste card"
            assert state.pos < len(state.talon), "t redealt"
            assert not turn_ends_game(observe(state)), "t played a turn that ends the game"
            assert not (state.pos + rules.turn >= len(state.talon) and not state.progress
                        and None in observe(state).stock), "t emptied the stock into unseen cards"
            state = state.apply(move)
        assert WASTE in state.legal_moves() or state.pos == len(state.talon) or run.why in ("ends", "last-turn")


def test_t_stops_before_a_turn_that_ends_the_game_or_may_end_it():
    """Deal 1, pass 2 after 22 moves: nothing played since the redeal and none of the cards still to turn (all
    seen) can be played, so t used to play the 5 turns to the end and block the game; it stops and says why.
    In the first pass, with no card played, it stops before the turn that empties the stock (the cards it shows
    are unseen: they may or may not be played, so d takes that risk), and never because of what they are."""
    state = position(1, "d d d d d w d w d d d w d d d d d d d d d d")
    assert turning_blocks(observe(state))
    run = turns_to_play(state)
    assert run.moves == () and run.why == "ends" and "d turns anyway" in TURN_STOPS["ends"]
    first = position(1, "d " * 10)
    run = turns_to_play(first)
    assert run.why == "last-turn" and first.play(run.moves).pos + 3 >= len(first.talon)
    assert not first.play(run.moves).over


def test_turning_blocks_only_when_the_pass_can_end_with_no_play_by_what_the_player_knows():
    from tutor.talon import turning_blocks

    rules = preset("peek")
    state = State.initial(deal_for(3, rules), rules)
    checked = {"pass 1": 0, "after a play": 0, "blocks": 0}
    while not state.over:
        obs = observe(state)
        blocks = turning_blocks(obs)
        if state.pass_no == 1:
            assert not blocks  # the stock is not known yet
            checked["pass 1"] += 1
        elif state.progress:
            assert not blocks  # a card was played this pass: the redeal is allowed
            checked["after a play"] += 1
        if blocks:
            # by the engine: turning only, no card ever becomes playable and the game ends blocked
            s = state.apply(TURN)
            while not s.over:
                assert not any(m.is_play for m in s.legal_moves())
                s = s.apply(TURN)
            assert s.blocked
            checked["blocks"] += 1
        state = state.apply(state.legal_moves()[0])
    assert all(checked.values()), checked


def test_a_refused_turn_with_cards_left_to_play_says_why_and_never_that_the_game_is_blocked():
    from tutor.deals import deal_for
    from tutor.notation import Move
    from tutor.rules import preset
    from tutor.state import State
    from tutor.talon import why_illegal

    turn = Move.parse("d")
    seen = set()
    for variant in ("osmosis", "limited"):
        rules = preset(variant)
        for n in range(1, 30):
            state = State.initial(deal_for(n, rules), rules)
            while moves := state.legal_moves():
                if turn not in moves:  # a card is left to play: the turn is refused, the game goes on
                    reason = why_illegal(state, turn)
                    assert "blocked" not in reason
                    last = bool(rules.passes) and state.pass_no >= rules.passes
                    seen.add(last)
                    if last:
                        assert reason == f"d is not possible: all {rules.passes} passes through the talon are used"
                    else:
                        assert reason.endswith(" first") and "no card was played" in reason
                    state = state.apply(moves[0])
                else:
                    state = state.apply(turn)
    assert seen == {True, False}
