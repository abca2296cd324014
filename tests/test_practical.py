"""The practical win chance (tutor/practical.py) and ``osmosis review --practical N``.

The record: deal 50 of Osmosis played by the first legal move for 102 moves. Its last move, w (8S) in pass
6 with 4 cards unseen (24 consistent deals), is a blunder against d: an error moment, late and cheap to play
out blind.
"""

from __future__ import annotations

import io
import json
from functools import cache

import pytest
from rich.console import Console

from tutor.cli.review import render_review
from tutor.deals import Deal, deal_for
from tutor.errors import TutorError
from tutor.knowledge import observe
from tutor.notation import Move
from tutor.policies import play_game
from tutor.practical import practical_after, practical_win, won_count
from tutor.record import Record, save_record
from tutor.review import review
from tutor.rules import preset
from tutor.state import State

OSMOSIS = preset("osmosis")
PLIES = 102


@cache
def late_record() -> Record:
    state = State.initial(deal_for(50, OSMOSIS), OSMOSIS)
    moves = []
    for _ in range(PLIES):
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    return Record(OSMOSIS, deal_for(50, OSMOSIS), moves)


def never_seen(record: Record) -> list[int]:
    """The cards the player of ``record`` never saw, at any position of the game."""
    seen: set[int] = set()
    for state in record.states():
        seen |= observe(state).seen_cards()
    return [c for c in range(52) if c not in seen]


def swapped(record: Record) -> Record:
    """``record``'s game on the deal with its first two never-seen cards exchanged (a deal given in full)."""
    a, b = never_seen(record)[:2]
    swap = {a: b, b: a}
    deal = record.deal
    other = Deal(tuple(tuple(swap.get(c, c) for c in pile) for pile in deal.reserves), deal.base,
                 tuple(swap.get(c, c) for c in deal.talon))
    return Record(record.rules, other, list(record.moves))


@pytest.fixture(scope="module")
def exact_review():
    return review(late_record(), samples=6, workers=1, practical=24)


def test_the_late_error_is_played_out_on_every_consistent_deal(exact_review):
    errors = [c for c in exact_review.critical if str(c.kind) == "error"]
    assert [c.ply for c in errors] == [PLIES]
    data = exact_review.to_json()
    assert data["practical"]["games"] == 24
    (moment,) = [c for c in data["critical"] if c["kind"] == "error"]
    p = moment["practical"]
    assert p["method"] == "tutor playouts" and p["exact"] is True and p["games"] == 24
    assert p["played"]["move"] == "w" and p["best"]["move"] == "d"
    for side in ("played", "best"):
        fig = p[side]
        assert 0 <= fig["won"] <= p["games"] == fig["games"]
        assert fig["win"] == round(fig["won"] / fig["games"], 4)
        assert fig["interval"] == [fig["win"], fig["win"]]  # exact: no sampling error
    # Exact means every consistent deal, each played out by the tutor: the same count, played here one by one.
    obs = observe(exact_review.states[PLIES - 1])
    deals = obs.every_state()
    assert len(deals) == 24
    won = sum(play_game(d.apply(Move.parse("d")))[0].won for d in deals)
    assert won == p["best"]["won"]
    # The words: blind play on deals consistent with what the player had seen, both counts.
    text = moment["practical"]["text"]
    assert text.startswith("Played out blind by the tutor on all 24 deals consistent with what you had seen "
                           "(exact):")
    assert f"{p['played']['won']} of 24 won after your w (8S)" in text
    assert f"{p['best']['won']} of 24 after d (turning the talon)" in text
    console = Console(file=io.StringIO(), width=100, color_system=None, force_terminal=False)
    console.print(render_review(exact_review, False, width=100))
    report = " ".join(console.file.getvalue().split())
    assert "Practical win chance at the errors (the tutor playing blind)" in report
    assert f"Move {PLIES}: Played out blind by the tutor on all 24 deals" in report


def test_never_seen_cards_do_not_change_the_practical_figure(run, tmp_path):
    """Two games identical in what the player saw, two never-seen cards swapped: identical figures and words
    (4 of the 24 deals: sampled, so this rests on the seed coming from what the player saw)."""
    record = late_record()
    twin = swapped(record)
    assert twin.deal != record.deal
    out = []
    for name, rec in (("a", record), ("b", twin)):
        save_record(rec, tmp_path / f"{name}.json")
        result = run(["review", str(tmp_path / f"{name}.json"), "--samples", "6", "--practical", "4",
                      "--workers", "1", "--json"])
        assert result.exit_code == 0, result.output
        out.append(json.loads(result.stdout))
    a, b = ([c["practical"] for c in d["critical"] if "practical" in c] for d in out)
    assert a == b and len(a) == 1
    p = a[0]
    assert p["games"] == 4 and p["exact"] is False
    for side in ("played", "best"):
        lo, hi = p[side]["interval"]
        assert lo <= p[side]["win"] <= hi and p[side]["won"] <= p["games"]
        # the mean cards of 4 sampled games carried no interval, against the house rule for a sampled figure
        clo, chi = p[side]["cards_interval"]
        assert clo <= p[side]["cards"] <= chi and (clo < chi or clo == chi == p[side]["cards"])
    assert "on 4 deals consistent with what you had seen" in p["text"] and "(95%:" in p["text"]
    assert out[0]["practical"] == out[1]["practical"] == {"games": 4, "method": "tutor playouts", "moments": 1}


def test_the_figure_is_the_same_on_one_process_or_two():
    state = late_record().states()[PLIES - 1]
    obs = observe(state)
    one = practical_after(obs, Move.parse("w"), games=6, workers=1)
    two = practical_after(obs, Move.parse("w"), games=6, workers=2)
    assert one == two and one.samples == 6 and not one.exact
    assert won_count(one) == round(one.win * 6)
    assert practical_win(observe(state.apply(Move.parse("w"))), games=6).samples == 6


def test_an_illegal_move_or_a_bad_count_is_an_input_error():
    obs = observe(late_record().states()[PLIES - 1])
    with pytest.raises(TutorError, match="not legal"):
        practical_after(obs, Move.parse("r3"), games=2)
    with pytest.raises(TutorError, match="practical games 0"):
        practical_win(obs, games=0)


@pytest.mark.parametrize("value", ["-1", "abc", "0", "1.5"])
def test_a_bad_practical_count_is_a_usage_error_as_for_every_numeric_option(run, tmp_path, value):
    save_record(late_record(), tmp_path / "r.json")
    result = run(["review", str(tmp_path / "r.json"), "--practical", value])
    assert result.exit_code == 2, result.output  # as --samples 0: click's usage error
    said = result.stderr.strip().splitlines()[-1]
    assert said.startswith("Error: Invalid value for '--practical': ") and "like 16" in said
    assert "Traceback" not in result.output


def test_without_the_flag_the_review_has_no_practical_field(run, tmp_path):
    record = Record(OSMOSIS, deal_for(50, OSMOSIS), list(late_record().moves[:12]))
    save_record(record, tmp_path / "short.json")
    data = json.loads(run(["review", str(tmp_path / "short.json"), "--samples", "3", "--workers", "1",
                           "--json"]).stdout)
    assert "practical" not in data and all("practical" not in c for c in data["critical"])


def test_a_sampled_practical_figure_keeps_its_interval_beside_its_count():
    """"6 of 8 (95%: 41-93%) after d (turning the talon)": the interval next to the count it qualifies,
    never stacked after the move's own brackets."""
    from tutor.estimate import Estimate
    from tutor.narrate.review import practical_sentence
    from tutor.review.facts import Practical

    state = late_record().states()[PLIES - 1]
    played = Estimate.of([(True, 52)] * 2 + [(False, 40)] * 6)
    top = Estimate.of([(True, 52)] * 6 + [(False, 40)] * 2)
    text = practical_sentence(state, Practical(Move.parse("w"), Move.parse("d"), played, top, 8, False))
    assert "on 8 deals consistent with what you had seen:" in text
    assert f"2 of 8 won (95%: {played.win_lo * 100:.0f}-{played.win_hi * 100:.0f}%) after your w (8S)" in text
    assert ") (" not in text and text.endswith("after d (turning the talon).")
    one = practical_sentence(state, Practical(Move.parse("w"), Move.parse("d"), Estimate.of([(False, 40)]),
                                              Estimate.of([(True, 52)]), 1, False))
    assert "on 1 deal consistent with what you had seen:" in one  # --practical 1 said "on 1 deals"


def test_a_move_lost_in_every_consistent_deal_has_its_win_known_not_a_wilson_interval():
    """Deal 60 after 33 moves of a player who turns past cards: `d` blocks the game in every consistent
    deal (the review grades it lost, 0-0), and the practical figure said "0 of 4 won (95%: 0-49%)"."""
    from tutor.certainty import lost_for_certain
    from tutor.estimate import Estimate
    from tutor.narrate.review import practical_sentence
    from tutor.notation import parse_moves
    from tutor.review.facts import Practical

    state = State.initial(deal_for(60, OSMOSIS), OSMOSIS)
    for move in parse_moves("r3 d d d w d d d d w d d d d d d d w d d d d d d w d w d d d d d d"):
        state = state.apply(move)
    obs, turn = observe(state), Move.parse("d")
    assert lost_for_certain(obs, turn) and obs.consistent_deals() > 4
    est = practical_after(obs, turn, games=4)
    assert (est.win, est.win_lo, est.win_hi, est.samples, est.exact) == (0.0, 0.0, 0.0, 4, False)
    top = Estimate.of([(True, 52)] + [(False, 40)] * 3)
    text = practical_sentence(state, Practical(turn, Move.parse("w"), est, top, 4, False))
    assert "0 of 4 won (it loses in every consistent deal) after your d" in text and "0-49%" not in text
    assert f"1 of 4 (95%: {top.win_lo * 100:.0f}-{top.win_hi * 100:.0f}%) after w" in text
