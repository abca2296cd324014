"""The position as a value: the start of a deal, apply, play, keys and invariants."""

from __future__ import annotations

import pytest
from builders import position

from tutor.cards import parse_card, parse_cards
from tutor.deals import deal_for
from tutor.errors import IllegalMoveError, MoveError
from tutor.notation import ALL_MOVES, RESERVE_MOVES, TURN, WASTE, Move
from tutor.rules import PRESETS, Rules, preset
from tutor.state import State

# Deal 1: five turns show 7S (w), then 4S, 2C (opens row 2 with clubs), QS,
# and with QS on row 1 the QC on top of pile 2 may follow onto row 2.
DEAL_ONE_LINE = "d d d d d w d w d w d d w r2"


def test_initial_position_of_deal_one(deal_one):
    s = State.initial(deal_one, preset("osmosis"))
    assert s.base == parse_card("2S") and s.rows == (0,) and s.start_rank == 2
    assert s.found == (1 << 1, 0, 0, 0)
    assert s.pos == 0 and s.waste == () and s.waste_top is None and len(s.stock) == 35
    assert s.pass_no == 1 and not s.progress and s.score == 1
    assert [p[-1] for p in s.reserves] == parse_cards("AD QC KH 3H")
    assert s.legal_moves() == [TURN]


def test_deal_one_line_reaches_the_expected_position():
    s = position(1, DEAL_ONE_LINE)
    assert s.rows == (0, 3)  # spades, then clubs opened by 2C
    assert s.row_cards(0) == parse_cards("2S 4S 7S QS")
    assert s.row_cards(1) == parse_cards("2C QC")
    assert s.reserves[1] == tuple(parse_cards("2D 7H KC"))
    assert s.score == 6 and s.waste_top == parse_card("8D") and s.pos == 23
    assert s.progress and s.pass_no == 1


def test_apply_returns_a_new_position_and_leaves_the_old_one():
    s = position(1, "d d d d")
    before = tuple(s)
    t = s.apply(TURN)
    assert tuple(s) == before and t is not s and t.pos == s.pos + 3


def test_position_is_immutable():
    s = position(1)
    with pytest.raises(AttributeError):
        s.pos = 3  # type: ignore[misc]


def test_play_takes_tokens_or_moves():
    assert position(1).play(DEAL_ONE_LINE.split()) == position(1).play(Move.parse(t) for t in DEAL_ONE_LINE.split())


def test_play_refuses_a_bad_token_with_move_error():
    with pytest.raises(MoveError):
        position(1).play(["x"])


def test_same_moves_give_equal_positions_and_keys():
    a, b = position(1, DEAL_ONE_LINE), position(1, DEAL_ONE_LINE)
    assert a == b and hash(a.key()) == hash(b.key()) and a.key() == b.key()


def test_key_changes_with_every_move_of_a_line():
    s = position(1)
    keys = {s.key()}
    for token in DEAL_ONE_LINE.split():
        s = s.apply(Move.parse(token))
        keys.add(s.key())
    assert len(keys) == len(DEAL_ONE_LINE.split()) + 1


def test_mask_has_one_bit_per_placed_card():
    s = position(1, DEAL_ONE_LINE)
    assert bin(s.mask()).count("1") == s.score
    assert all(s.is_placed(c) == bool(s.mask() >> c & 1) for c in range(52))


def test_all_cards_accounts_for_the_52():
    s = position(1, DEAL_ONE_LINE)
    assert sorted(s.all_cards()) == list(range(52))


def test_every_legal_move_applies_and_every_other_raises():
    s = position(1, DEAL_ONE_LINE)
    legal = s.legal_moves()
    assert legal == [TURN]  # r2 now shows KC, which needs KS in row 1
    for move in ALL_MOVES:
        if move in legal:
            s.apply(move)
        else:
            with pytest.raises(IllegalMoveError):
                s.apply(move)


def test_is_legal_agrees_with_legal_moves():
    s = position(1, "d d d d d")
    assert [m for m in ALL_MOVES if s.is_legal(m)] == s.legal_moves() == [WASTE, TURN]


def test_card_of_names_the_card_a_play_would_place():
    s = position(1, "d d d d d")
    assert s.card_of(WASTE) == parse_card("7S")
    assert s.card_of(RESERVE_MOVES[0]) == parse_card("AD")
    assert s.card_of(TURN) is None


def test_why_not_explains_the_filter_and_the_starting_rank():
    s = position(1, DEAL_ONE_LINE)
    assert "row 2 (clubs)" in s.why_not(parse_card("KC")) and "row 1 (spades)" in s.why_not(parse_card("KC"))
    assert "starting rank 2" in s.why_not(parse_card("KH"))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_preset_starts_with_an_empty_waste_and_one_card_placed(name):
    rules = preset(name)
    s = State.initial(deal_for(3, rules), rules)
    assert s.score == 1 and s.pos == 0 and len(s.talon) == rules.talon_size
    assert len(s.reserves) == rules.reserve_piles
    assert sorted(s.all_cards()) == list(range(52))


def test_a_blocked_first_pass_says_since_the_start_not_since_a_redeal():
    """The spec: no card played "since the previous redeal, or since the start"; pass 1 had no redeal."""
    rules = preset("osmosis")
    with pytest.raises(IllegalMoveError, match="no card was played since the start, so the game is blocked"):
        State.initial(deal_for(1, rules), rules).play(["d"] * 13)


@pytest.mark.parametrize("passes", [1, 3])
def test_a_redeal_refused_in_the_last_pass_names_the_passes_not_the_plays(passes):
    """In the last pass a redeal is refused for the passes used up, whatever was played: the refusal said
    "no card was played since the start, so the game is blocked" (turn 1, one pass, 35 turns and no play)."""
    rules = Rules(turn=1, passes=passes)
    s = State.initial(deal_for(1, rules), rules)
    played = 0
    while s.pass_no < passes or s.pos < len(s.talon):
        # one play in each pass before the last (a redeal needs one), none in the last
        plays = [m for m in s.legal_moves() if m.is_play]
        if plays and played < s.pass_no < passes:
            s, played = s.apply(plays[0]), s.pass_no
        else:
            s = s.apply(Move.parse("d"))
    assert not s.progress  # where the refusal blamed the plays
    used = "the one pass through the talon is used" if passes == 1 else "all 3 passes through the talon are used"
    with pytest.raises(IllegalMoveError, match=f"d is not possible: {used}"):
        s.apply(Move.parse("d"))
