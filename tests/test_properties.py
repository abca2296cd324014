"""Properties of the engine under random play and random input (hypothesis)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor.cards import NAMES, RANKS, SUIT_SYMBOLS, SUITS, format_card, parse_card
from tutor.deals import Deal, deal_for
from tutor.errors import TutorError
from tutor.notation import ALL_MOVES, Move, format_moves, parse_input, parse_moves
from tutor.record import Game, Record, loads_record
from tutor.rules import PRESETS, Rules, preset
from tutor.state import State

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PRESET_NAMES = sorted(PRESETS)
deal_numbers = st.one_of(st.integers(1, 31999), st.integers(32000, 10**12))
rules_options = st.builds(Rules, turn=st.sampled_from([1, 3]), passes=st.integers(0, 4),
                          open_reserve=st.booleans(), reserve_piles=st.integers(0, 4))


def random_game(deal_number: int, rules: Rules, seed: int, max_moves: int = 400):
    """Random legal play from a deal: the states visited and the moves played."""
    rng = random.Random(seed)
    state = State.initial(deal_for(deal_number, rules), rules)
    states, moves = [state], []
    while len(moves) < max_moves:
        legal = state.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        state = state.apply(move)
        states.append(state)
        moves.append(move)
    return states, moves


@FAST
@given(number=deal_numbers, name=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32))
def test_random_legal_play_keeps_all_52_cards(number, name, seed):
    states, _ = random_game(number, preset(name), seed)
    for s in states:
        assert sorted(s.all_cards()) == list(range(52))
        assert bin(s.mask()).count("1") == s.cards
        assert 0 <= s.pos <= len(s.talon)
        # Exactly the suits with a row hold cards, each in one row.
        assert len(s.rows) == len(set(s.rows)) and {x for x in range(4) if s.found[x]} == set(s.rows)
    assert all(a.cards <= b.cards for a, b in zip(states, states[1:]))


@FAST
@given(number=deal_numbers, rules=rules_options, seed=st.integers(0, 2**32))
def test_random_legal_play_never_raises_and_ends_won_or_blocked(number, rules, seed):
    # Every game ends: a pass with no card played blocks it, so at most 52 passes of at most 52 turns and a
    # redeal each, besides at most 52 plays. A game still going after that many moves is a rule broken.
    states, moves = random_game(number, rules, seed, max_moves=52 * 53 + 52 + 1)
    last = states[-1]
    assert last.over and last.legal_moves() == [], f"still going after {len(moves)} moves"
    assert last.won != last.blocked
    assert last.won == (last.score == 52)


@FAST
@given(number=deal_numbers, name=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32))
def test_every_legal_move_applies_and_illegal_ones_raise_illegal_move(number, name, seed):
    states, _ = random_game(number, preset(name), seed, max_moves=60)
    for s in states[::7]:
        legal = s.legal_moves()
        for move in ALL_MOVES:
            try:
                s.apply(move)
            except TutorError:
                assert move not in legal
            else:
                assert move in legal


@FAST
@given(number=deal_numbers, name=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32))
def test_replaying_a_record_gives_the_same_position(number, name, seed):
    rules = preset(name)
    states, moves = random_game(number, rules, seed)
    record = Record(rules, deal_for(number, rules), moves)
    back = loads_record(record.dumps())
    assert back.replay() == states[-1]
    assert back.states() == states
    assert back.to_json()["result"] == {"cards": states[-1].cards, "won": states[-1].won}


@FAST
@given(number=deal_numbers, rules=rules_options, seed=st.integers(0, 2**32))
def test_inline_deal_records_with_option_variants_replay(number, rules, seed):
    from tutor.record import plain_rules

    # no reserve with an open reserve is the same game as Bridesmaids, and a record reads back as that
    assert Record.from_json(Record(rules, deal_for(number, rules), []).to_json()).rules == plain_rules(rules)
    rules = plain_rules(rules)
    states, moves = random_game(number, rules, seed, max_moves=120)
    deal = deal_for(number, rules)
    inline = Deal(deal.reserves, deal.base, deal.talon)
    back = Record.from_json(json.loads(json.dumps(Record(rules, inline, moves).to_json())))
    assert back.rules == rules and back.replay() == states[-1]


@FAST
@given(number=deal_numbers, seed=st.integers(0, 2**32), data=st.data())
def test_game_undo_returns_to_the_earlier_position(number, seed, data):
    states, moves = random_game(number, preset("osmosis"), seed, max_moves=80)
    game = Game(preset("osmosis"), deal_for(number, preset("osmosis")), moves)
    back = data.draw(st.integers(0, len(moves)))
    game.undo(back)
    assert game.state == states[len(moves) - back]


@FAST
@given(number=deal_numbers, seed=st.integers(0, 2**32))
def test_equal_keys_mean_equal_positions_up_to_later_passes(number, seed):
    states, _ = random_game(number, preset("osmosis"), seed)
    seen = {}
    for s in states:
        norm = s._replace(pass_no=min(s.pass_no, 2))
        other = seen.setdefault(s.key(), norm)
        assert other == norm


# ---- parse / format round trips -------------------------------------------------

cards = st.integers(0, 51)


@settings(max_examples=200, deadline=None)
@given(card=cards, symbols=st.booleans(), lower=st.booleans(), ten=st.booleans(), pad=st.booleans())
def test_card_names_round_trip_in_every_spelling(card, symbols, lower, ten, pad):
    text = format_card(card, symbols=symbols)
    if ten and text[0] == "T":
        text = "10" + text[1:]
    if lower:
        text = text.lower()
    if pad:
        text = f" {text} "
    assert parse_card(text) == card
    assert format_card(parse_card(format_card(card))) == NAMES[card]


@settings(max_examples=100, deadline=None)
@given(moves=st.lists(st.sampled_from(ALL_MOVES), max_size=30), upper=st.booleans(), sep=st.sampled_from([" ", ",", ", "]))
def test_move_lists_round_trip(moves, upper, sep):
    text = sep.join(str(m).upper() if upper else str(m) for m in moves)
    assert parse_moves(text) == moves
    assert parse_moves(format_moves(moves)) == moves
    assert all(Move.parse(str(m)) is m for m in moves)


# ---- arbitrary input gives only the library's errors ------------------------------

card_like = st.one_of(
    st.text(max_size=6),
    st.text(alphabet=RANKS + SUITS + SUIT_SYMBOLS + "10xX ♤♡\u00a0", max_size=5),
)


@settings(max_examples=300, deadline=None)
@given(text=card_like)
def test_arbitrary_card_text_parses_or_raises_card_error(text):
    try:
        card = parse_card(text)
    except TutorError:
        return
    assert 0 <= card < 52


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=5), st.text(alphabet="rRwWdD0123456789 ", max_size=4), card_like))
def test_arbitrary_move_text_parses_or_raises_tutor_error(text):
    for parse in (Move.parse, parse_input, parse_moves):
        try:
            parse(text)
        except TutorError:
            pass


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 60), st.integers(), st.floats(),
              st.sampled_from(NAMES + ("1X", "10h", "osmosis", "osmosis-deal/1", "osmosis-record/1", "d", "r2"))),
    lambda children: st.one_of(st.lists(children, max_size=6),
                               st.dictionaries(st.sampled_from(["format", "reserves", "base", "talon", "number",
                                                                "variant", "deal", "moves", "result", "annotations",
                                                                "turn", "passes", "preset", "cards", "won"]),
                                               children, max_size=6)),
    max_leaves=30,
)


def _mutated_deal(data) -> dict:
    deal = deal_for(1, preset("osmosis")).to_json()
    field = data.draw(st.sampled_from(["reserves", "base", "talon", "format"]))
    deal[field] = data.draw(json_values)
    return deal


@settings(max_examples=150, deadline=None)
@given(value=json_values)
def test_arbitrary_json_as_deal_gives_deal_error_only(value):
    try:
        Deal.from_json(value)
    except TutorError:
        pass


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_deal_with_one_field_replaced_gives_deal_error_only(data):
    try:
        Deal.from_json(_mutated_deal(data))
    except TutorError:
        pass


@settings(max_examples=150, deadline=None)
@given(value=json_values)
def test_arbitrary_json_as_record_gives_record_error_only(value):
    try:
        Record.from_json(value)
    except TutorError:
        pass


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_record_with_one_field_replaced_gives_record_error_only(data):
    record = {"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 1},
              "moves": ["d", "d", "d", "d", "d", "w"], "result": {"cards": 2, "won": False}}
    field = data.draw(st.sampled_from(["format", "variant", "deal", "moves", "result", "annotations"]))
    record[field] = data.draw(st.one_of(json_values, st.builds(lambda: _mutated_deal(data))))
    try:
        Record.from_json(record)
    except TutorError:
        pass


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=40))
def test_arbitrary_text_as_record_file_gives_record_error_only(text):
    try:
        loads_record(text)
    except TutorError:
        pass
