"""PySolFC deal numbers and deal files."""

from __future__ import annotations

import json
import random

import pytest
from builders import make_deal

from tutor.cards import format_cards, parse_card, parse_cards
from tutor.deals import (
    DEAL_FORMAT,
    MAX_DEAL_NUMBER,
    Deal,
    atomic_write_text,
    check_rules,
    deal_for,
    deal_number,
    load_deal,
    parse_deal_number,
    random_deal_number,
    save_deal,
)
from tutor.errors import DealError
from tutor.rules import preset


def pysol_layout(number: int, piles: int = 4, lc: bool | None = None) -> tuple[list[str], str, list[str]]:
    """Re-derive a PySolFC Osmosis layout straight from pysol_cards, in card names.

    PySolFC: LCRandom31 on the ms_rearrange'd deck below 32000, MTRandom from
    32000 on; the shuffled list is dealt from its end, round-robin to the
    reserve, then the base card, then the talon. ``lc`` forces a generator.
    """
    from pysol_cards.cards import createCards
    from pysol_cards.random import LCRandom31, MTRandom, ms_rearrange

    cards = createCards(1)
    if lc if lc is not None else number < 32000:
        rng = LCRandom31()
        rng.setSeed(number)
        shuffled = rng.shuffle(ms_rearrange(cards))
    else:
        rng = MTRandom()
        rng.setSeed(number)
        shuffled = rng.shuffle(cards)
    names = ["A23456789TJQK"[card.rank - 1] + card.suit_s() for card in shuffled][::-1]
    n = 4 * piles
    reserves = [" ".join(names[i] for i in range(p, n, piles)) for p in range(piles)]
    return reserves, names[n], names[n + 1:]


def layout(deal: Deal) -> tuple[list[str], str, list[str]]:
    return [format_cards(p) for p in deal.reserves], format_cards([deal.base]), format_cards(deal.talon).split()


def test_deal_one_matches_pysolfc():
    deal = deal_number(1)
    assert format_cards([deal.base]) == "2S"
    assert [format_cards(p) for p in deal.reserves] == ["JD 5D KD AD", "2D 7H KC QC", "9H 7C 9S KH", "JC 5H 5S 3H"]
    assert deal.talon[:4] == tuple(parse_cards("KS 9D QD JS"))
    assert len(deal.talon) == 35 and deal.number == 1


@pytest.mark.parametrize("number", [1, 2, 3, 617, 11982, 31999, 32000, 32001, 1000000, 123456789012])
def test_deal_numbers_match_pysol_cards(number):
    assert layout(deal_number(number)) == pysol_layout(number)


@pytest.mark.parametrize("number", [2, 31999, 32000, 1000000])
def test_bridesmaids_deals_match_pysol_cards(number):
    assert layout(deal_number(number, 0)) == pysol_layout(number, piles=0)


def test_deal_32000_uses_the_mersenne_twister():
    # The LC generator would give 32000 another layout; PySolFC uses MTRandom from 32000 on.
    ours = layout(deal_number(32000))
    assert ours == pysol_layout(32000, lc=False)
    assert ours != pysol_layout(32000, lc=True)
    assert layout(deal_number(31999)) == pysol_layout(31999, lc=True) != pysol_layout(31999, lc=False)


def test_deal_for_follows_the_variant():
    assert deal_for(5, preset("peek")) == deal_number(5)
    assert deal_for(5, preset("bridesmaids")) == deal_number(5, 0)


@pytest.mark.parametrize("number", [0, -1, 10**20 + 1, 2**70, True, 1.5, "7"])
def test_out_of_range_deal_numbers_raise_deal_error(number):
    with pytest.raises(DealError):
        deal_number(number)


# PySolFC draws its random game numbers from 0 to 10**20 (MTRandom.MAX_SEED, the bound included:
# its seed is taken modulo MAX_SEED + 1, and "next game" goes up to it), so nine in ten are above 2**63.
BIG = [2**63 - 1, 2**63, 12345678901234567890, 2**64, 99999999999999999999, 10**20]


def test_the_largest_deal_number_is_pysol_cards_max_seed():
    from pysol_cards.random import MTRandom

    assert MAX_DEAL_NUMBER == MTRandom.MAX_SEED == 10**20
    assert deal_number(MAX_DEAL_NUMBER).number == 10**20
    assert parse_deal_number(str(10**20)) == 10**20
    with pytest.raises(DealError, match="out of range: expected 1 to 100000000000000000000$"):
        parse_deal_number(str(10**20 + 1))


@pytest.mark.parametrize("number", BIG)
def test_big_deal_numbers_match_pysol_cards(number):
    assert layout(deal_number(number)) == pysol_layout(number)
    assert layout(deal_number(number, 0)) == pysol_layout(number, piles=0)
    assert parse_deal_number(f" {number} ") == number


@pytest.mark.parametrize("number, piles, base, talon", [
    (12345678901234567890, ["AH 4S 8C KD", "9D JC 3C 6S", "7H 9S 7S 6H", "3D 6C AC TD"], "5C", "7D AS KS QH"),
    (9223372036854775808, ["3H 5C 4H 2S", "9D TH 9C 9S", "KC JS 2C 5D", "3D 8S 4C 2H"], "TC", "9H AS QC KD"),
    (99999999999999999999, ["KS 2S 4H 8D", "JC 2C 7S 4C", "TD 3S 4D 3D", "5C 9D 2H QH"], "5S", "5H 8H 9S 8C"),
])
def test_big_deal_numbers_give_pysolfc_layouts(number, piles, base, talon):
    """Pinned from pysol_cards' MTRandom(N) shuffle, read from its end (spec section 2)."""
    deal = deal_number(number)
    assert [format_cards(p) for p in deal.reserves] == piles
    assert format_cards([deal.base]) == base and format_cards(deal.talon[:4]) == talon


def test_big_deal_numbers_are_all_different_deals():
    layouts = {str(layout(deal_number(n))) for n in BIG}
    assert len(layouts) == len(BIG)  # no number cut down to another (as a float or 64-bit integer would)


def test_parse_deal_number_reads_text_and_refuses_junk():
    assert parse_deal_number(" 42 ") == 42
    with pytest.raises(DealError) as info:
        parse_deal_number("abc")
    assert "'abc'" in str(info.value)
    with pytest.raises(DealError):
        parse_deal_number("0")


def test_random_deal_numbers_are_valid_and_follow_the_rng():
    a, b = random.Random(7), random.Random(7)
    n = random_deal_number(a)
    assert n == random_deal_number(b) and 1 <= n < 10**9
    assert deal_number(n).number == n


# ---- deal files ---------------------------------------------------------------

def test_deal_json_matches_the_spec_example():
    data = deal_number(1).to_json()
    assert data["format"] == DEAL_FORMAT == "osmosis-deal/1"
    assert data["reserves"][0] == ["JD", "5D", "KD", "AD"] and data["base"] == "2S"
    assert data["talon"][:4] == ["KS", "9D", "QD", "JS"] and len(data["talon"]) == 35


def test_deal_file_round_trip(tmp_path):
    deal = deal_number(31999)
    path = tmp_path / "d.json"
    save_deal(deal, path)
    back = load_deal(path)
    assert (back.reserves, back.base, back.talon) == (deal.reserves, deal.base, deal.talon)
    assert back.number is None
    assert json.loads(path.read_text()) == deal.to_json()


def test_bridesmaids_deal_file_round_trip(tmp_path):
    deal = deal_number(9, 0)
    save_deal(deal, tmp_path / "b.json")
    back = load_deal(tmp_path / "b.json")
    assert back.reserves == () and len(back.talon) == 51 and back.talon == deal.talon


def test_hand_laid_deal_file_reads_symbols_and_tens(tmp_path):
    data = deal_number(1).to_json()
    data["base"] = "2♠"
    data["talon"] = ["10" + c[1] if c[0] == "T" else c.lower() for c in data["talon"]]
    (tmp_path / "h.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    back = load_deal(tmp_path / "h.json")
    assert back.talon == deal_number(1).talon and back.base == parse_card("2S")


def test_deal_without_format_field_is_read():
    data = deal_number(1).to_json()
    del data["format"]
    assert Deal.from_json(data).base == parse_card("2S")


def test_record_ref_is_the_number_or_the_deal_inline():
    assert deal_number(77).record_ref() == {"number": 77}
    hand = make_deal(["2H 3H 4H 5H", "2D 3D 4D 7H", "2C 3C 4C 7S", "6H 8H 9H KC"], "5S")
    assert hand.record_ref() == hand.to_json()


def _bad(mutate) -> str:
    data = deal_number(1).to_json()
    mutate(data)
    with pytest.raises(DealError) as info:
        Deal.from_json(data, source="deal file 'x.json'")
    assert str(info.value).startswith("deal file 'x.json': ")
    return str(info.value)


def test_missing_card_is_named():
    msg = _bad(lambda d: d["talon"].remove("9D"))
    assert "missing card(s) 9D" in msg


def test_duplicate_card_is_named():
    msg = _bad(lambda d: d["talon"].__setitem__(1, "KS"))  # KS twice, 9D gone
    assert "duplicate card(s) KS" in msg


def test_unknown_card_is_quoted():
    msg = _bad(lambda d: d["reserves"][2].__setitem__(0, "1X"))
    assert "unknown card '1X'" in msg


def test_wrong_pile_size_is_named():
    def short_pile(d):
        d["talon"].append(d["reserves"][1].pop(0))
    msg = _bad(short_pile)
    assert "reserve pile 2 has 3 cards" in msg and "expected 4" in msg


def test_too_many_piles_is_named():
    def five_piles(d):
        d["reserves"].append([d["talon"].pop() for _ in range(4)])
    assert "5 reserve piles" in _bad(five_piles)


def test_wrong_format_is_named():
    msg = _bad(lambda d: d.__setitem__("format", "osmosis-deal/2"))
    assert "'osmosis-deal/2'" in msg and "osmosis-deal/1" in msg


@pytest.mark.parametrize("field", ["reserves", "base", "talon"])
def test_missing_field_is_named(field):
    assert repr(field) in _bad(lambda d: d.pop(field))


@pytest.mark.parametrize("field,value", [("reserves", "JD"), ("reserves", ["JD"]), ("talon", "KS 9D")])
def test_wrong_field_shape_is_named(field, value):
    assert repr(field) in _bad(lambda d: d.__setitem__(field, value))


def test_deal_that_is_not_an_object_is_refused():
    with pytest.raises(DealError) as info:
        Deal.from_json(["JD"])
    assert "JSON object" in str(info.value)


def test_bad_json_file_is_named(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "osmosis-deal/1", "base": ')
    with pytest.raises(DealError) as info:
        load_deal(path)
    assert "bad.json" in str(info.value) and "not valid JSON" in str(info.value)


def test_missing_deal_file_is_named(tmp_path):
    with pytest.raises(DealError) as info:
        load_deal(tmp_path / "nope.json")
    assert "nope.json" in str(info.value) and "does not exist" in str(info.value)


def test_pile_count_must_match_the_variant():
    check_rules(deal_number(1), preset("osmosis"))
    with pytest.raises(DealError) as info:
        check_rules(deal_number(1, 0), preset("osmosis"))
    assert "0 reserve piles" in str(info.value)


def test_atomic_write_leaves_the_old_file_when_the_rename_fails(tmp_path, monkeypatch):
    import os

    path = tmp_path / "keep.json"
    path.write_text("old content")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        atomic_write_text(path, "new content")
    assert path.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]


def test_a_signed_deal_number_is_said_to_have_a_sign(run):
    for signed in ("-1", "+7"):  # a number, but with a sign: said so, not "not a number"
        result = run(["deal", "--", signed])
        assert result.exit_code == 1
        assert result.stderr.startswith(f"error: deal number '{signed}' has a sign: expected a whole number")
