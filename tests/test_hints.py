"""Hints see only what the player sees, are repeatable, and find the certain answers."""

from __future__ import annotations

import random

import pytest
from builders import position
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor.cards import NAMES as NAME_OF
from tutor.deals import Deal, deal_for
from tutor.errors import TutorError
from tutor.hints import certain_moves, hint, is_safe, lost_for_certain, play_game, score_moves, turn_keeps_value
from tutor.knowledge import observe
from tutor.narrate import TIPS
from tutor.notation import TURN, Move
from tutor.rules import preset
from tutor.search import Limit, solve
from tutor.state import State

# Deal 1 after five turns: 7S shows on the waste; playing it or turning is a real choice.
CHOICE = (1, "d d d d d")
# Peek deal 3 in its second pass, everything seen: r3 (TH) opens row 3 in an order that can never
# be completed, while playing the waste or turning still wins (found with the solver).
PEEK_CERTAIN = (3, "r3 d d w d d w d d d d d w d w d d w d d d d d d w r3")
# Peek deal 11 in its first pass: 8C on the waste would open row 2 for clubs, and the known
# reserve piles then hold a cycle of cards that wait for each other.
PEEK_CYCLE = (11, "r2 d d")


def swapped(deal: Deal, a: int, b: int) -> Deal:
    def sw(c):
        return b if c == a else a if c == b else c

    return Deal(tuple(tuple(sw(c) for c in p) for p in deal.reserves), sw(deal.base),
                tuple(sw(c) for c in deal.talon))


def test_deals_differing_only_in_unseen_cards_get_exactly_the_same_hint():
    rules = preset("osmosis")
    deal = deal_for(1, rules)
    moves = CHOICE[1].split()
    other = swapped(deal, deal.reserves[2][1], deal.talon[30])  # a face-down card, an unturned one
    s1 = State.initial(deal, rules).play(moves)
    s2 = State.initial(other, rules).play(moves)
    assert s1 != s2
    h1, h2 = hint(observe(s1), samples=6), hint(observe(s2), samples=6)
    assert h1.best == h2.best
    assert h1.candidates == h2.candidates
    assert h1.to_json() == h2.to_json()


def test_the_same_position_gets_the_same_hint_every_time():
    obs = observe(position(*CHOICE))
    first = hint(obs, samples=6)
    again = hint(obs, samples=6)
    assert first.to_json() == again.to_json()


def test_hint_takes_an_observation_never_a_position():
    with pytest.raises(TutorError, match="Observation"):
        hint(position(*CHOICE))


def test_every_legal_move_is_listed_with_the_spec_fields():
    state = position(5)
    h = hint(observe(state), samples=4)
    data = h.to_json()
    assert data["best"] == str(h.best)
    assert sorted(c["move"] for c in data["candidates"]) == sorted(str(m) for m in state.legal_moves())
    assert data["candidates"][0]["move"] == data["best"]
    for c in data["candidates"]:
        assert 0.0 <= c["win"] <= 1.0 and 1 <= c["cards"] <= 52
        assert isinstance(c["move"], str)
    assert isinstance(data["reason"], str) and data["reason"]


def test_a_reserve_card_for_an_open_row_is_best_for_certain():
    # deal 5: 4S on pile 4 goes to row 1 (spades); 3C on pile 3 would open row 2
    h = hint(observe(position(5)), samples=4)
    assert h.best == Move.parse("r4") and h.why == "safe"
    r3, r4 = h.candidate(Move.parse("r3")), h.candidate(Move.parse("r4"))
    assert r4.certain and not r3.certain and r3.opens_row == 2
    assert r4.win >= r3.win and r4.cards >= r3.cards
    assert "dig-reserve" in h.tips and "pile 4" in h.reason


def test_a_forced_move_is_the_hint():
    h = hint(observe(position(1)), samples=3)
    assert h.best == TURN and h.why == "forced" and len(h.candidates) == 1
    assert h.samples == 3


def test_samples_changes_the_effort():
    obs = observe(position(*CHOICE))
    assert hint(obs, samples=2).samples == 2
    assert hint(obs, samples=12).samples >= 8
    with pytest.raises(TutorError, match="samples"):
        hint(obs, samples=0)


def test_a_position_with_everything_seen_is_solved_exactly():
    obs = observe(position(*PEEK_CERTAIN, rules="peek"))
    assert obs.complete
    h = hint(obs, samples=8)
    assert h.exact and h.samples == 1
    losing = h.candidate(Move.parse("r3"))
    assert losing.win == 0.0 and losing.opens_row == 3
    assert h.best != Move.parse("r3")
    assert h.candidate(h.best).win == 1.0
    assert h.candidate(TURN).win == 1.0


def test_a_row_order_the_known_reserve_forbids_is_lost_in_every_deal():
    state = position(*PEEK_CYCLE, rules="peek")
    obs = observe(state)
    assert not obs.complete  # the talon beyond the waste is unseen
    assert lost_for_certain(obs, Move.parse("w"))
    # the constraint check agrees with the solver on every sample
    for sample in obs.samples(3):
        assert solve(sample.apply(Move.parse("w")), Limit(nodes=200_000)).winnable is False
    h = hint(obs, samples=4)
    w = h.candidate(Move.parse("w"))
    assert w.lost and w.win == 0.0 and h.best == TURN
    assert "impossible to complete" in h.reason


def test_the_reason_names_the_card_and_the_figures():
    h = hint(observe(position(*CHOICE)), samples=4)
    assert "7S" in h.reason
    assert "%" in h.reason or "cards" in h.reason
    assert all(t in TIPS for t in h.tips)


def test_tips_have_ids_titles_and_words():
    for key, tip in TIPS.items():
        assert tip.id == key and tip.title and len(tip.text) > 40
    assert {"first-row", "track-ranks", "wait-to-open", "dig-reserve", "plan-passes"} <= set(TIPS)


def test_score_moves_gives_the_hints_candidates():
    obs = observe(position(*CHOICE))
    scored = score_moves(obs, samples=4)
    h = hint(obs, samples=4)
    assert scored.best == h.best and scored.candidates == h.candidates


# ---- the certain moves are really certain (checked against the full-knowledge solver)

@st.composite
def random_positions(draw):
    rules = preset(draw(st.sampled_from(["osmosis", "peek", "single"])))
    state = State.initial(deal_for(draw(st.integers(1, 3000)), rules), rules)
    rng = random.Random(draw(st.integers(0, 10**6)))
    for _ in range(draw(st.integers(20, 160))):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.apply(rng.choice(moves))
    return state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_positions())
def test_certain_moves_keep_the_positions_value(state):
    moves = state.legal_moves()
    obs = observe(state)
    lim = Limit(nodes=60_000)
    here = solve(state, lim)
    if here.winnable is None or not here.complete:
        return
    for m in certain_moves(obs, moves):
        after = solve(state.apply(m), lim)
        if after.winnable is None or not after.complete:
            continue
        assert after.winnable == here.winnable, (m, is_safe(obs, m), turn_keeps_value(obs))
        assert after.best_cards == here.best_cards


def test_the_tutor_plays_a_whole_game_seeing_only_what_a_player_sees():
    state = position(5, rules="peek")
    final, moves = play_game(state, samples=4)
    assert final.over
    assert State.initial(deal_for(5, preset("peek")), preset("peek")).play(moves) == final


def test_a_row_kept_closed_on_a_tie_in_deals_won_is_explained():
    # tutor.hints.leader: waiting beats a row opening that wins the same deals, even with fewer cards.
    import dataclasses

    from tutor.hints import Candidate, ScoredPosition, Why
    from tutor.narrate import reason_for
    from tutor.notation import WASTE

    rules = preset("osmosis")
    state = State.initial(deal_for(1, rules), rules)
    for _ in range(7):
        state = state.apply(TURN)
    obs = observe(state)
    opening = Candidate(move=WASTE, win=0.30, cards=38.0, card=obs.card_of(WASTE), samples=32, opens_row=2,
                        interval=(0.16, 0.48), cards_interval=(35.0, 41.0))
    wait = dataclasses.replace(opening, move=TURN, card=None, cards=35.0, opens_row=None,
                               cards_interval=(32.0, 38.0))
    scored = ScoredPosition(TURN, [opening, wait], Why.SAMPLED, 32, False)
    reason, tips = reason_for(obs, scored)
    name = NAME_OF[obs.card_of(WASTE)]
    assert f"{name} would open row 2: it places a few more cards on average but wins no more deals" in reason
    assert "either way, about 35" in reason and "but about" not in reason
    assert "wait-to-open" in tips
    # With more deals won by waiting, the figures say it all: no such sentence.
    better = dataclasses.replace(wait, win=0.40, interval=(0.25, 0.57))
    reason, _ = reason_for(obs, ScoredPosition(TURN, [opening, better], Why.SAMPLED, 32, False))
    assert "wins no more deals" not in reason


def _depth(text: str) -> int:
    depth = deepest = 0
    for c in text:
        depth += (c == "(") - (c == ")")
        deepest = max(deepest, depth)
    return deepest


@pytest.mark.parametrize("variant, number", [("osmosis", 7), ("peek", 3)])
def test_a_hints_words_never_stack_parentheses(variant, number):
    """"Win 23% (95%: 15-35%) (from 64 deals ...)" read badly: a figure and its basis share one sentence,
    and no bracket goes deeper than a figure's interval inside the figures."""
    rules = preset(variant)
    state, seen = State.initial(deal_for(number, rules), rules), 0
    while not state.over and seen < 40:
        h = hint(observe(state), samples=8)
        assert ") (" not in h.reason and _depth(h.reason) <= 2, h.reason
        plays = [m for m in state.legal_moves() if m.is_play]
        state = state.apply(plays[0] if plays else state.legal_moves()[0])
        seen += 1
    assert seen >= 20


@pytest.mark.parametrize("variant, number, upto", [("osmosis", 51, 2), ("peek", 3, 4), ("osmosis", 3, 26),
                                                    ("osmosis", 61, 48), ("osmosis", 22, 70)])
def test_a_hints_figures_never_nest_brackets(variant, number, upto):
    from test_cli_play import greedy_line

    from tutor.hints import hint as compute
    from tutor.knowledge import observe

    rules = preset(variant)
    state = State.initial(deal_for(number, rules), rules)
    for move in greedy_line(number, variant)[0][:upto]:
        state = state.apply(move)
    text = compute(observe(state), samples=16).reason
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        assert depth <= 1, text
    assert depth == 0 and ") (" not in text


def test_a_turn_that_ends_the_game_for_certain_is_lost_with_no_interval():
    """Deal 3, pass 2, nothing played since the redeal: TD on the waste opens row 2, and none of the cards still
    to turn (all seen) can be played, so the turn lets the pass end with no play and the game is blocked. Its
    win is known in every consistent deal: 0%, no sampled interval (it read 0-4% on 96 deals)."""
    obs = observe(position(3, "r3 d d w d d w d d d d d w d w d d w d d d d d d"))
    assert lost_for_certain(obs, TURN)
    assert not lost_for_certain(observe(position(3, "r3 d d w d d w d d d d d w d w d d w d d d d d")), TURN)
    advice = hint(obs, samples=16)
    turn = next(c for c in advice.candidates if c.move == TURN)
    assert turn.lost and turn.win == 0.0 and turn.interval == (0.0, 0.0)
    assert turn.cards == obs.cards and turn.cards_interval == (obs.cards, obs.cards)
    data = turn.to_json()
    assert data["interval"] == [0.0, 0.0] and data["lost"] is True
    assert "0% (in every consistent deal) if you turn" in advice.reason and "95%: 0-" not in advice.reason
