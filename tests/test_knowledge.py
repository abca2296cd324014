"""The observation holds what the player has seen and nothing else; samples agree with it."""

from __future__ import annotations

import random
from dataclasses import fields

from builders import position
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor.cards import parse_card
from tutor.deals import Deal, deal_for
from tutor.knowledge import Observation, observe
from tutor.rules import preset
from tutor.state import State


def swapped(deal: Deal, a: int, b: int) -> Deal:
    """The same deal with cards ``a`` and ``b`` exchanged."""
    def sw(c):
        return b if c == a else a if c == b else c

    return Deal(tuple(tuple(sw(c) for c in p) for p in deal.reserves), sw(deal.base),
                tuple(sw(c) for c in deal.talon))


def test_face_down_reserve_cards_and_unturned_talon_are_not_in_the_observation():
    state = position(1)
    obs = observe(state)
    assert obs.reserves[0] == (None, None, None, parse_card("AD"))
    assert obs.stock == (None,) * 35
    assert obs.waste == ()
    hidden = {c for p in state.reserves for c in p[:-1]} | set(state.talon)
    values = [getattr(obs, f.name) for f in fields(obs)]
    flat = set()
    for v in values:
        if isinstance(v, tuple):
            for x in v:
                flat.update(x if isinstance(x, tuple) else (x,))
    assert not hidden & {c for c in flat if isinstance(c, int)} - set(obs.found)
    assert set(obs.unseen_cards()) == hidden
    assert len(obs.hidden_slots()) == len(hidden)


def test_every_card_of_a_turn_of_three_is_seen():
    state = position(1, "d")
    obs = observe(state)
    assert obs.waste == state.talon[:3]
    assert not set(state.talon[:3]) & set(obs.unseen_cards())


def test_the_whole_talon_is_known_in_order_from_the_second_pass():
    state = position(5, "d " * 12)
    assert state.pass_no == 1 and state.pos == 35
    # a redeal needs a card played first: deal 5's pile 4 shows 4S (spades are row 1)
    state = position(5, "r4 " + "d " * 13)
    assert state.pass_no == 2
    obs = observe(state)
    assert obs.stock == state.talon
    assert set(obs.unseen_cards()) == {c for p in state.reserves for c in p[:-1]}


def test_the_open_reserve_is_seen_whole_so_later_passes_are_complete():
    state = position(5, "r4 " + "d " * 13, rules="peek")
    obs = observe(state)
    assert obs.reserves == state.reserves
    assert obs.complete and obs.unseen_cards() == ()
    assert obs.samples(5) == [state]


def test_two_deals_differing_only_in_unseen_cards_look_the_same():
    deal = deal_for(1, preset("osmosis"))
    a, b = deal.reserves[0][0], deal.talon[20]  # a face-down card and an unturned one
    other = swapped(deal, a, b)
    rules = preset("osmosis")
    moves = "d d d d d w".split()  # 7S shows on the fifth turn
    s1 = State.initial(deal, rules).play(moves)
    s2 = State.initial(other, rules).play(moves)
    assert s1 != s2
    assert observe(s1) == observe(s2)
    assert observe(s1).seed() == observe(s2).seed()


def test_seed_depends_on_what_was_seen():
    assert observe(position(1, "d")).seed() != observe(position(1, "d d")).seed()
    assert observe(position(1)).seed() != observe(position(2)).seed()
    assert observe(position(1)).seed() != observe(position(1, rules="peek")).seed()


def test_seed_is_a_stable_hash_of_the_observation_text():
    import hashlib

    obs = observe(position(1, "d"))
    expected = int.from_bytes(hashlib.sha256(obs.canonical_text().encode()).digest()[:8], "big")
    assert obs.seed() == expected
    assert "??" in obs.canonical_text() and "AD" in obs.canonical_text()


def test_samples_are_seeded_from_the_observation():
    obs = observe(position(3, "d d"))
    assert obs.samples(6) == obs.samples(6)
    assert len(set(obs.samples(6))) == 6


def test_few_unseen_cards_are_enumerated_exactly():
    # the second pass of deal 5; then pretend the player had seen all but three cards
    state = position(5, "r4 " + "d " * 13)
    obs = observe(state)
    assert len(obs.unseen_cards()) == 11  # three under each top, two under pile 4's
    fake = Observation(obs.rules, obs.base, obs.rows, obs.found,
                       obs.reserves[:1] + state.reserves[1:],
                       obs.waste, obs.stock, obs.pass_no, obs.progress, obs.cards)
    assert len(fake.unseen_cards()) == 3
    every = fake.samples(100)
    assert len(every) == 6 and len(set(every)) == 6
    assert all(observe(s) == obs and s.reserves[1:] == state.reserves[1:] for s in every)
    assert state in every


def test_legal_moves_of_the_observation_are_those_of_the_position():
    for moves in ("", "d", "r4 d", "d d d d", "r4 " + "d " * 13):
        state = position(5, moves)
        assert observe(state).legal_moves() == state.legal_moves()


@st.composite
def played_positions(draw):
    rules = preset(draw(st.sampled_from(["osmosis", "peek", "single", "limited", "bridesmaids"])))
    deal = deal_for(draw(st.integers(1, 5000)), rules)
    state = State.initial(deal, rules)
    rng = random.Random(draw(st.integers(0, 10**6)))
    for _ in range(draw(st.integers(0, 120))):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.apply(rng.choice(moves))
    return state


@settings(max_examples=60, deadline=None)
@given(played_positions(), st.integers(0, 10**6))
def test_a_sample_is_a_full_position_consistent_with_the_observation(state, seed):
    obs = observe(state)
    sample = obs.sample(random.Random(seed))
    assert sorted(sample.all_cards()) == list(range(52))
    assert observe(sample) == obs
    assert sample.legal_moves() == state.legal_moves()
    # a face-down card is never one that the player has seen elsewhere
    seen = obs.seen_cards()
    for i, pile in enumerate(obs.reserves):
        for d, c in enumerate(pile):
            if c is None:
                assert sample.reserves[i][d] not in seen


def test_a_typed_face_down_card_gets_the_same_answer_whatever_lies_there():
    from tutor.errors import IllegalMoveError
    from tutor.knowledge import move_for_card

    rules = preset("osmosis")
    deal = deal_for(1, rules)
    pile = deal.reserves[0]
    a, b = pile[0], pile[1]  # two face-down cards of pile 1
    answers = []
    for d in (deal, swapped(deal, a, b)):
        state = State.initial(d, rules)
        try:
            move_for_card(state, a)
        except IllegalMoveError as exc:
            answers.append(str(exc))
    assert len(answers) == 2 and answers[0] == answers[1]
    assert "under the top card" not in answers[0] and "pile 1" not in answers[0]


def test_peek_shows_the_reserve_but_not_the_stock_before_it_is_turned():
    from tutor.knowledge import observe

    rules = preset("peek")
    seen = observe(State.initial(deal_for(1, rules), rules))
    assert seen.stock == (None,) * 35
    assert all(card is not None for pile in seen.reserves for card in pile)
