"""Hint faults found at stop 57: the reason and the JSON must say what the figures beside them say."""

from __future__ import annotations

import json

from builders import osmosis

# Peek deal 42: lost in all 120 consistent deals; playing KC expects 7.4 cards, turning 7.2, both exact.
LOST_PEEK = ["hint", "42", "--variant", "peek", "--moves", "d w d w w d d d d w d d d d"]
# Deal 140: settled lost over the 720 consistent deals, where the information-set search ran on 32 of them.
SETTLED = ("d r4 r4 r2 d d w d d d d d w d d w d d d d d d d d d w d d d d d d d d d d d w w w d r1 d d w d d d d "
           "d d w d w w d w d d d d d d d w d w d d d w r1 d r1 w d d d d w d")
# Deal 18: 51 cards up, 6D on the waste wins; the sampler's tie-break had chosen the turn.
LAST = ("r3 d d d d w d r4 d w r1 d d d w w d d d d d d d d d d w w r1 r1 r4 r4 d w w w r2 d d r1 d w w d w d r2 d d "
        "d d w w d d d w w d w d d w w d r2 w d d d d w w d d w d d w d d d d w w d w w w w d r2 d d r3 r3 r3 d w "
        "w w d w d r4 d")


def test_exact_cards_that_read_differently_are_not_the_same_either_way(tmp_path):
    """The table said 7.4 and 7.2 cards, both exact, and the reason "7.4 cards (exact) either way"."""
    result = osmosis(LOST_PEEK, tmp_path)
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "either way" not in said
    assert "7.4 cards (exact) against 7.2 (exact)" in said
    data = json.loads(osmosis([*LOST_PEEK, "--json"], tmp_path).output)
    cards = {c["move"]: c["cards"] for c in data["candidates"]}
    assert cards["w"] > cards["d"] and data["best"] == "w"


def test_a_settled_loss_leaves_no_blind_chance_in_the_json(tmp_path):
    """Settled lost in every consistent deal, the search's "blind_interval": [0, 0.0385] stood beside it."""
    data = json.loads(osmosis(["hint", "140", "--json", "--moves", SETTLED], tmp_path).output)
    assert data["settled"] == {"won": False, "deals": 720}
    searched = [c for c in data["candidates"] if "blind_win" in c]
    assert searched  # the search ran here: its figures are what the fix is about
    for c in searched:
        assert c["blind_win"] == 0.0 and c["blind_interval"] == [0.0, 0.0]
        assert c["interval"] == [0.0, 0.0]


def test_the_last_card_hint_says_why_and_which_move_is_certain(tmp_path):
    """The hint that plays the last card kept the turn's "why": "turn", its tip and its "certain" flag."""
    data = json.loads(osmosis(["hint", "18", "--json", "--moves", LAST], tmp_path).output)
    assert data["best"] == "w"
    assert "it is the last card, and it wins the game now" in data["reason"]
    assert data["why"] == "safe" and data["tips"] == []
    by_move = {c["move"]: c for c in data["candidates"]}
    assert by_move["w"].get("certain") is True and by_move["w"]["win"] == 1.0
