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
