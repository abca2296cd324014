"""Card names and move tokens: parsing, formatting and their errors."""

from __future__ import annotations

import re

import pytest

from tutor.cards import (
    CARDS,
    NAMES,
    RANKS,
    SUITS,
    Card,
    format_card,
    format_cards,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from tutor.errors import CardError, MoveError, TutorError
from tutor.notation import ALL_MOVES, RESERVE_MOVES, TURN, WASTE, Move, format_moves, parse_input, parse_moves


def test_card_index_is_suit_times_13_plus_rank_minus_one():
    assert parse_card("AS") == 0
    assert parse_card("KS") == 12
    assert parse_card("AH") == 13
    assert parse_card("7D") == 2 * 13 + 6
    assert parse_card("KC") == 51
    assert suit_of(parse_card("7D")) == 2 and rank_of(parse_card("7D")) == 7


@pytest.mark.parametrize("text", ["10h", "10H", "th", "Th", "TH", "t♥", "T♥", "10♥", " TH ", "t♡"])
def test_ten_of_hearts_is_read_in_every_spelling(text):
    assert parse_card(text) == parse_card("TH") == 13 + 9


@pytest.mark.parametrize("symbol,letter", [("♠", "S"), ("♥", "H"), ("♦", "D"), ("♣", "C")])
def test_suit_symbols_mean_the_suit_letters(symbol, letter):
    for rank in RANKS:
        assert parse_card(rank + symbol) == parse_card(rank + letter)


def test_every_name_and_symbol_reads_back_to_its_card():
    assert len(NAMES) == 52 and len(set(NAMES)) == 52
    for i in range(52):
        assert parse_card(format_card(i)) == i
        assert parse_card(format_card(i, symbols=True)) == i
        assert parse_card(format_card(i).lower()) == i


def test_format_card_gives_two_letters_or_the_symbol():
    assert format_card(parse_card("7s")) == "7S"
    assert format_card(parse_card("10d")) == "TD"
    assert format_card(parse_card("qh"), symbols=True) == "Q♥"
    assert format_cards(parse_cards("JD, 5D KD,AD")) == "JD 5D KD AD"


@pytest.mark.parametrize("text", ["1X", "1S", "11H", "ZZ", "", "S", "7", "7SS", "7 S", "0S", "77", "♠7", "AX"])
def test_unknown_card_names_raise_card_error_quoting_the_input(text):
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert repr(text) in str(info.value)
    assert "expected a rank" in str(info.value)


@pytest.mark.parametrize("value", [None, 7, ["7S"], b"7S"])
def test_non_text_card_raises_card_error(value):
    with pytest.raises(CardError):
        parse_card(value)


@pytest.mark.parametrize("text", ["7\u2665\ufe0f", "7\u2665\ufe0e", "7\u2661\ufe0f"])
def test_a_suit_symbol_with_a_variation_selector_is_the_suit(text):
    assert parse_card(text) == parse_card("7H")  # phone keyboards send the emoji form of the symbol


@pytest.mark.parametrize("text", ["7\u017f", "7\uff33", "7\u0405"])  # long s, fullwidth S, Cyrillic DZE
def test_a_letter_that_only_looks_like_a_suit_is_refused(text):
    with pytest.raises(CardError):
        parse_card(text)


@pytest.mark.parametrize("value, shown", [(None, "null"), (True, "true"), ({"rank": "2"}, '{"rank": "2"}')])
def test_a_card_that_is_not_text_is_quoted_as_the_file_spells_it(value, shown):
    with pytest.raises(CardError, match=f"^unknown card {re.escape(shown)}: expected a rank"):
        parse_card(value)


@pytest.mark.parametrize("value", [["AS"] * 100_000, "X" * 100_000])
def test_a_huge_card_value_is_quoted_cut_to_a_readable_line(value):
    with pytest.raises(CardError) as info:
        parse_card(value)
    assert len(str(info.value)) < 300 and "characters)" in str(info.value)


def test_card_errors_are_tutor_errors():
    assert issubclass(CardError, TutorError) and issubclass(MoveError, TutorError)


def test_card_value_reads_back_from_its_repr():
    card = Card.parse("7♠")
    assert card == Card(0, 7) and card.index == 6
    assert str(card) == "7S" and card.symbol() == "7♠"
    assert repr(card) == "Card.parse('7S')" and eval(repr(card)) == card  # noqa: S307
    assert Card.parse("qd").is_red and not Card.parse("qc").is_red
    assert Card.from_index(51) == CARDS[51] == Card(3, 13)


def test_impossible_card_value_raises_card_error():
    with pytest.raises(CardError):
        Card(4, 1)
    with pytest.raises(CardError):
        Card(0, 14)


def test_suit_order_is_spades_hearts_diamonds_clubs():
    assert SUITS == "SHDC"
    assert [format_card(13 * s) for s in range(4)] == ["AS", "AH", "AD", "AC"]


@pytest.mark.parametrize("token,move", [("r1", RESERVE_MOVES[0]), ("R4", RESERVE_MOVES[3]),
                                        (" w ", WASTE), ("W", WASTE), ("d", TURN), ("D", TURN)])
def test_move_tokens_parse_to_the_interned_moves(token, move):
    assert Move.parse(token) is move


def test_move_tokens_round_trip():
    assert [str(m) for m in ALL_MOVES] == ["r1", "r2", "r3", "r4", "w", "d"]
    for move in ALL_MOVES:
        assert Move.parse(str(move)) == move
        assert eval(repr(move)) == move  # noqa: S307


@pytest.mark.parametrize("text", ["r0", "r5", "r", "x", "", "dd", "r 1", "7s", "u", "w1"])
def test_bad_move_tokens_raise_move_error_quoting_the_input(text):
    with pytest.raises(MoveError) as info:
        Move.parse(text)
    assert repr(text) in str(info.value)
    assert "r1-r4" in str(info.value)


def test_parse_moves_takes_spaces_commas_or_a_list():
    assert parse_moves("d w, r2") == [TURN, WASTE, RESERVE_MOVES[1]]
    assert parse_moves(["d", "r4"]) == [TURN, RESERVE_MOVES[3]]
    assert format_moves(parse_moves("d,w r2")) == "d w r2"
    assert parse_moves("") == []


def test_parse_input_gives_a_move_or_a_card():
    assert parse_input("r3") is RESERVE_MOVES[2]
    assert parse_input("7h") == parse_card("7H")
    assert parse_input("10♣") == parse_card("TC")


def test_parse_input_rejects_neither_move_nor_card_with_move_error():
    with pytest.raises(MoveError) as info:
        parse_input("1X")
    assert "'1X'" in str(info.value) and "a card like 7h" in str(info.value)
