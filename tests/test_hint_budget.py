"""A hint's searches have a work budget: past it the hint draws no more samples, and says so."""

from __future__ import annotations

import json

import pytest

import tutor.hints as hints
from tutor.deals import deal_for
from tutor.hints import DEFAULT_SAMPLES, MIN_SAMPLES, POLICY_SAMPLES, SolveCache, hint, score_moves
from tutor.knowledge import observe
from tutor.notation import parse_moves
from tutor.rules import preset
from tutor.state import State

# Osmosis deal 1 after five turns: a real choice, sampled in more than one batch.
CHOICE = (1, "d d d d d")
# Osmosis deal 2 after 61 moves: 120 deals are consistent with what the player has seen, so every one is solved.
EXACT = (2, "r2 r2 r3 d d w d w d d d w r2 r4 d w d d w d d d d d w d d d d w d d w d w d d d d d d w d d d d "
            "d d d d d d d d d d w d w r4 r4")


def _obs(variant: str, number: int, moves: str = ""):
    rules = preset(variant)
    state = State.initial(deal_for(number, rules), rules)
    for move in parse_moves(moves):
        state = state.apply(move)
    return observe(state)


def test_a_hint_past_its_work_budget_stops_at_the_fewest_samples_on_the_same_deals(monkeypatch):
    """With a budget of one position a sample, the hint stops at MIN_SAMPLES (not at a batch's end), every
    move scored on the first MIN_SAMPLES of the very deals the unbounded hint plays, and says it stopped."""
    obs = _obs("osmosis", *CHOICE)
    full = score_moves(obs)
    assert full.samples > MIN_SAMPLES and not full.budget_spent
    monkeypatch.setattr(hints, "HINT_NODES", 1)
    cut = score_moves(obs)
    assert cut.samples == MIN_SAMPLES and cut.budget_spent
    assert cut.outcomes is not None and full.outcomes is not None
    for move in full.outcomes.moves:
        assert cut.outcomes.results[move] == full.outcomes.results[move][:MIN_SAMPLES]
    told = hint(obs)
    assert told.budget_spent and told.samples == MIN_SAMPLES
    assert f"from {MIN_SAMPLES} deals consistent with what you have seen" in " ".join(told.reason.split())
    assert "search budget was spent" in " ".join(told.reason.split())
    assert told.to_json()["budget_spent"] is True


def test_the_budget_scales_with_the_samples_asked_for_and_is_spent_before_the_hint_stops(monkeypatch):
    """The budget is HINT_NODES positions per sample of the hint's budget: the searches visited at least that
    when the hint stopped for it, and a larger --samples gives more room."""
    obs = _obs("osmosis", *CHOICE)
    monkeypatch.setattr(hints, "HINT_NODES", 200)
    cache = SolveCache()
    small = score_moves(obs, cache=cache)
    assert small.budget_spent and MIN_SAMPLES <= small.samples < DEFAULT_SAMPLES
    assert cache.nodes >= 200 * DEFAULT_SAMPLES
    big = score_moves(obs, samples=2 * DEFAULT_SAMPLES)
    assert big.budget_spent and big.samples > small.samples


def test_a_hint_within_its_budget_is_as_it_was(monkeypatch):
    obs = _obs("osmosis", *CHOICE)
    plain = score_moves(obs)
    monkeypatch.setattr(hints, "HINT_NODES", 10 ** 9)
    roomy = score_moves(obs)
    assert not roomy.budget_spent and roomy.samples == plain.samples
    assert [c.to_json() for c in roomy.candidates] == [c.to_json() for c in plain.candidates]


def test_the_tutor_as_a_player_and_an_exact_hint_have_no_budget(monkeypatch):
    """The tutor's own play keeps its samples (the strength figures rest on it), and a hint over every
    consistent deal solves every one of them (its figures are called exact)."""
    monkeypatch.setattr(hints, "HINT_NODES", 1)
    obs = _obs("osmosis", *CHOICE)
    played = score_moves(obs, POLICY_SAMPLES, best_nodes=hints.POLICY_BEST_NODES, best_only=True)
    assert played.samples == POLICY_SAMPLES and not played.budget_spent
    every = _obs("osmosis", *EXACT)
    assert every.consistent_deals() == 120
    scored = score_moves(every)
    assert scored.exact and scored.samples == 120 and not scored.budget_spent


@pytest.mark.parametrize("number", [4])
def test_a_limited_first_hint_stops_for_its_budget_and_the_json_and_the_words_say_so(run, number):
    """Deal 4 with three passes, before any move: most sampled deals are lost and each lost one's best score
    is searched, so the 128 samples took 8.8 s of CPU; the budget stops the hint within MIN_SAMPLES-127."""
    data = json.loads(run(["hint", str(number), "--variant", "limited", "--json"]).stdout)
    assert data["budget_spent"] is True
    assert MIN_SAMPLES <= data["samples"] < DEFAULT_SAMPLES
    assert {c["samples"] for c in data["candidates"]} == {data["samples"]}
    assert "search budget was spent" in " ".join(data["reason"].split())
    text = run(["hint", str(number), "--variant", "limited"]).stdout
    assert "search budget was spent" in " ".join(text.split())


def test_every_reason_says_once_that_the_budget_stopped_the_sampling(monkeypatch):
    """The reasons that count their deals in their own words ("None of the 24 deals sampled ... can be won")
    said nothing of the budget, while the JSON said budget_spent: now a sentence says it, once."""
    monkeypatch.setattr(hints, "HINT_NODES", 1)
    for variant, number, moves in (("limited", 5, "r3 r4 d w d"), ("osmosis", *CHOICE)):
        told = hint(_obs(variant, number, moves))
        reason = " ".join(told.reason.split())
        assert told.budget_spent and reason.count("search budget was spent") == 1, reason
    lost = " ".join(hint(_obs("limited", 5, "r3 r4 d w d")).reason.split())
    assert lost.startswith(f"None of the {MIN_SAMPLES} deals sampled")
    assert lost.endswith(f"(Sampling stopped at {MIN_SAMPLES} deals: the hint's search budget was spent on them.)")


def _nodes_after_each_sample(monkeypatch, obs, asked: int) -> list[int]:
    """The positions the hint's searches had visited after each of its samples (``budget=False``)."""
    seen: list[int] = []
    real = hints.outcomes_in

    def counted(*args):
        out = real(*args)
        seen.append(args[6].nodes)  # the cache, the seventh argument (then the budget's end, if any)
        return out

    monkeypatch.setattr(hints, "outcomes_in", counted)
    score_moves(obs, asked, budget=False)
    monkeypatch.setattr(hints, "outcomes_in", real)
    return seen


@pytest.mark.parametrize(("variant", "number", "moves"), [
    ("osmosis", 2, "r2 r2 r3 " + " ".join(["d"] * 19)),  # the first 32 deals settle the answer
    ("limited", 1, ""),  # a forced move: the first 32 deals whatever the budget
])
def test_a_budget_spent_where_the_sampling_stops_anyway_is_not_said(monkeypatch, variant, number, moves):
    """The budget was called spent when crossed on a batch's last deal, where the doubt rule (or a forced move)
    stops the sampling anyway: two hints on the same 32 deals with the same figures gave opposite reasons
    (--samples 38 and 41 on the first position). Crossed on the 31st deal, it did stop the sampling."""
    obs = _obs(variant, number, moves)
    asked = 40
    nodes = _nodes_after_each_sample(monkeypatch, obs, asked)
    assert len(nodes) == 32 and nodes[30] + asked < nodes[31]
    roomy = score_moves(obs, asked, budget=False)
    monkeypatch.setattr(hints, "MIN_SAMPLES", 8)
    monkeypatch.setattr(hints, "HINT_NODES", nodes[31] // asked)  # crossed by the 32nd deal, not before
    at_end = score_moves(obs, asked)
    assert at_end.samples == roomy.samples == 32 and not at_end.budget_spent
    assert [c.to_json() for c in at_end.candidates] == [c.to_json() for c in roomy.candidates]
    told = hint(obs, samples=asked)
    assert not told.budget_spent and "search budget" not in told.reason
    monkeypatch.setattr(hints, "HINT_NODES", nodes[30] // asked)  # crossed by the 31st deal
    cut = score_moves(obs, asked)
    assert cut.samples == 31 and cut.budget_spent
