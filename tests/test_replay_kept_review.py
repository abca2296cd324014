"""The replay the coach sends the player to reads a move as the history's kept review does: the coach quoted a
128-sample review's inaccuracy at move 13, and ``replay --at 13`` reviewed afresh on 64 and called it good."""

from __future__ import annotations

import json
import re


def test_replay_reviews_with_the_samples_of_the_review_the_history_keeps(run, home, tmp_path):
    path = tmp_path / "r9.json"
    assert run(["play", "9", "--variant", "single", "--save", str(path)],
               input="d w d r3 d d d d w d d w w\nq\n").exit_code == 0
    kept = json.loads(run(["review", str(path), "--samples", "128", "--workers", "1", "--json"]).stdout)
    label = kept["moves"][12]["label"]
    assert label == "inaccuracy"  # at 64 samples the same move reads "good": the case this test is for
    coach = run(["coach", "--no-review"]).stdout
    assert "move 13" in coach
    replay = run(["replay", str(path), "--at", "13", "--plain"], input="").stdout
    assert "128 sampled deals a move" in replay
    assert re.search(r"Accuracy " + re.escape(f"{kept['accuracy']:.1f}"), replay), replay
    assert "Inaccuracy: d (turning the talon) was better" in " ".join(replay.split())
    # with no review kept, the replay keeps the default
    other = tmp_path / "r7.json"
    run(["play", "7", "--save", str(other)], input="d d\nq\n")
    assert "64 sampled deals a move" in run(["replay", str(other), "--plain"], input="").stdout
