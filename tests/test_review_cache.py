"""Reviews kept for the next look (``tutor.review.cache``): the second look at a game reuses the first
review, and anything that could make the review differ, or a cache that is damaged or cannot be
written, reviews again."""

from __future__ import annotations

import json
import os
import stat

import pytest
from builders import osmosis

from tutor.cli import review as cli_review
from tutor.deals import deal_for
from tutor.record import Record, save_record
from tutor.review import cache
from tutor.rules import preset
from tutor.state import State


def first_moves(number: int, count: int) -> Record:
    rules = preset("osmosis")
    state = State.initial(deal_for(number, rules), rules)
    moves = []
    while not state.over and len(moves) < count:
        moves.append(state.legal_moves()[0])
        state = state.apply(moves[-1])
    return Record(rules, deal_for(number, rules), moves)


@pytest.fixture
def counted(monkeypatch):
    """Count the reviews really computed behind ``compute_review``."""
    calls = []
    real = cli_review.review

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(cli_review, "review", counting)
    return calls


def review_json(home, path, *extra):
    result = osmosis(["review", str(path), "--json", "--samples", "3", "--workers", "1", *extra], home)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_second_look_reuses_the_first_review(home, tmp_path, counted):
    path = tmp_path / "g.json"
    save_record(first_moves(7, 12), path)
    first = review_json(home, path)
    second = review_json(home, path)
    assert counted == [1]  # computed once
    assert first == second
    assert len(list((home / "cache" / "reviews").glob("*.pickle"))) == 1


def test_other_settings_or_another_game_review_again(home, tmp_path, counted):
    path = tmp_path / "g.json"
    save_record(first_moves(7, 12), path)
    review_json(home, path)
    review_json(home, path, "--thresholds", "4,9,14")
    assert len(counted) == 2
    save_record(first_moves(7, 11), path)  # the same file, one move fewer: another game
    assert len(review_json(home, path)["moves"]) == 11
    assert len(counted) == 3


def test_the_record_is_the_one_asked_about(home, tmp_path, monkeypatch):
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    record = first_moves(7, 6)
    rev = cli_review.compute_review(cli_review.Console(file=open(os.devnull, "w")), record, 3, workers=1)
    other = first_moves(7, 6)  # the same game, another object (another file's headers)
    kept = cache.load(other, 3, rev.thresholds, None)
    assert kept is not None and kept.record is other
    assert [m.label for m in kept.moves] == [m.label for m in rev.moves]


def test_a_damaged_entry_is_reviewed_again(home, tmp_path, counted):
    path = tmp_path / "g.json"
    save_record(first_moves(7, 8), path)
    first = review_json(home, path)
    (entry,) = (home / "cache" / "reviews").glob("*.pickle")
    entry.write_bytes(b"not a pickle")
    assert review_json(home, path) == first
    assert len(counted) == 2
    entry.write_bytes(__import__("pickle").dumps({"a": 1}))  # readable, but not a review
    assert review_json(home, path) == first
    assert len(counted) == 3


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_cache_that_cannot_be_written_changes_nothing(home, tmp_path, counted):
    path = tmp_path / "g.json"
    save_record(first_moves(7, 8), path)
    folder = home / "cache"
    folder.mkdir(parents=True)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert review_json(home, path) == review_json(home, path)
    finally:
        folder.chmod(stat.S_IRWXU)
    assert len(counted) == 2


def test_a_cache_the_system_refuses_to_write_changes_nothing(home, tmp_path, counted, monkeypatch):
    """The same as a read-only folder, for any user (root writes into one, so the test above skips there): the
    system refuses the cache file itself."""
    path = tmp_path / "g.json"
    save_record(first_moves(7, 8), path)

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cache.tempfile, "mkstemp", refused)
    assert review_json(home, path) == review_json(home, path)
    assert len(counted) == 2
    assert not list((home / "cache").glob("*.pickle"))


def test_a_file_in_the_way_changes_nothing(home, tmp_path, counted):
    path = tmp_path / "g.json"
    save_record(first_moves(7, 8), path)
    home.mkdir(parents=True)
    (home / "cache").write_text("a file where the folder would be")
    assert review_json(home, path) == review_json(home, path)
    assert len(counted) == 2


def test_only_the_newest_are_kept(home, monkeypatch):
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    monkeypatch.setattr(cache, "KEEP", 3)
    console = cli_review.Console(file=open(os.devnull, "w"))
    records = [first_moves(7, n) for n in range(2, 7)]
    for r in records:
        cli_review.compute_review(console, r, 3, workers=1)
    kept = list((home / "cache" / "reviews").glob("*.pickle"))
    assert len(kept) == 3
    assert cache.load(records[-1], 3, cli_review.DEFAULT_THRESHOLDS, None) is not None
    assert cache.load(records[0], 3, cli_review.DEFAULT_THRESHOLDS, None) is None
