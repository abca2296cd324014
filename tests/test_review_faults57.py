"""Faults an audit of the review and replay found (stop 57): the unseen-cards warning where every card was seen,
none when replay reads the review back from an --annotate file, and a record's variant error that named
options review and replay do not have."""

from __future__ import annotations

import json

from tutor.narrate.review import UNSEEN_WARNING

# Peek deal 3, the solver's first 30 moves: pass 2, the talon known, the reserve face up: nothing is hidden
PEEK_3_SEEN = "r3 d d d d d d d d d d d d w d d d d d d d d d d d w d d d d"
# deal 11, ten moves: unfinished, face-down cards left, and the review's hindsight names some of them
DEAL_11 = "d d w r2 d d w d d d"


def said(text: str) -> str:
    """The words of an output, its line breaks (wrapped at 100 columns) as spaces."""
    return " ".join(text.split())


def _saved(run, tmp_path, number: int, moves: str, variant: str = "osmosis"):
    path = tmp_path / f"{variant}-{number}.json"
    result = run(["play", str(number), "--variant", variant, "--plain", "--save", str(path)], input=moves + "\nq\n")
    assert result.exit_code == 0
    return path


def test_no_unseen_warning_where_the_player_has_seen_every_card(run, tmp_path):
    """It said "The hindsight below knows the cards this game has not shown yet" (and "reveals_unseen": true)
    where the hint of the same position says only one deal fits what was seen."""
    path = _saved(run, tmp_path, 3, PEEK_3_SEEN, "peek")
    hint = json.loads(run(["hint", "3", "--variant", "peek", "--moves", PEEK_3_SEEN, "--json"]).stdout)
    assert hint["method"] == "exact"  # every card seen: the hint itself is exact
    review = json.loads(run(["review", str(path), "--json"]).stdout)
    assert review["over"] is False and review["reveals_unseen"] is False
    assert "hindsight" in said(run(["review", str(path)]).stdout).lower()
    assert UNSEEN_WARNING not in said(run(["review", str(path)]).stdout)
    assert UNSEEN_WARNING not in said(run(["replay", str(path), "--all"]).stdout)


def test_replay_of_an_annotated_unfinished_game_warns_of_the_hindsight_as_the_review_did(run, tmp_path):
    """replay of the --annotate file showed "With hindsight (all cards known) ... KD lies above TC in pile 3"
    (face down at the end of the record) with no warning; replay of the plain record warns."""
    path = _saved(run, tmp_path, 11, DEAL_11)
    annotated = tmp_path / "annotated.json"
    assert UNSEEN_WARNING in said(run(["review", str(path), "--annotate", str(annotated)]).stdout)
    shown = said(run(["replay", str(annotated), "--all"]).stdout)
    assert "With hindsight (all cards known)" in shown and UNSEEN_WARNING in shown
    assert shown.index(UNSEEN_WARNING) < shown.index("With hindsight (all cards known)")


def test_a_record_whose_deal_has_other_piles_than_its_variant_says_to_fix_the_variant(run, tmp_path):
    """The error said "use a matching --variant or --reserve-piles", options review and replay do not take."""
    deal = json.loads(run(["deal", "17", "--json"]).stdout)
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps({"format": "osmosis-record/1", "variant": "bridesmaids", "deal": deal, "moves": []}),
                    encoding="utf-8")
    for command in ("review", "replay"):
        result = run([command, str(path)])
        assert result.exit_code == 1 and "--variant" not in result.output
        assert ("the deal has 4 reserve piles but the record's variant wants 0: give the record a \"variant\" with 4, "
                'like "osmosis"') in said(result.output)


# limited deal 2, a greedy player's first 25 moves: at move 25 w and d both win none of the 64 deals, and d
# surely places more cards (about 24 against 21)
LIMITED_2 = "r2 r2 r3 d d w d w d d d w r2 r4 d w d d w d d d d d w"


def test_a_best_move_beside_one_the_hint_takes_for_its_cards_names_that_one_best_as_the_comment_does(run, tmp_path):
    """The JSON said "best": "w" beside a comment saying "the hint would choose d for the cards" (and the hint
    there says d); a decided position names the move of more cards, so the two kinds read alike now."""
    path = _saved(run, tmp_path, 2, LIMITED_2, "limited")
    review = json.loads(run(["review", str(path), "--json", "--workers", "1"]).stdout)
    last = review["moves"][-1]
    assert last["move"] == "w" and last["label"] == "best" and "the hint would choose d for the cards" in last["comment"]
    assert last["best"] == "d"
    hint = json.loads(run(["hint", "2", "--variant", "limited", "--moves", " ".join(LIMITED_2.split()[:-1]),
                           "--json"]).stdout)
    assert hint["best"] == "d"
    # every move graded best names itself unless its comment names the hint's choice for the cards
    for m in review["moves"]:
        if m["label"] == "best" and m["best"] != m["move"]:
            assert f"the hint would choose {m['best']} for the cards" in m["comment"], m


def test_a_best_move_too_close_to_call_says_so_with_the_deals_its_drop_rests_on(run, tmp_path):
    """With --samples 8, moves graded best and marked "close" (the drop's interval reaching the inaccuracy
    threshold, on 64 deals drawn for it) said only "Best move: win 0% (95%: 0-32%, 8 deals)."."""
    # deal 18, a greedy player's first 35 moves
    path = _saved(run, tmp_path, 18, "r3 d w w d d d w r4 w d d w r1 d d d w w d d w d w w d d w d d d d w w r1")
    review = json.loads(run(["review", str(path), "--json", "--samples", "8"]).stdout)
    close = [m for m in review["moves"] if m["label"] == "best" and m.get("close")]
    assert close
    for m in close:
        assert "Too close to call against " in m["comment"] and f"on {m['drop_samples']} deals, paired" in m["comment"]
