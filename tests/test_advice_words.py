"""Words of the advice commands (solve, hint, review) found wrong by the second advice audit."""

from __future__ import annotations

import json
import random
import tempfile

import pytest
from builders import osmosis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor import search
from tutor.deals import deal_for
from tutor.grading import blocked_for_sure
from tutor.knowledge import observe
from tutor.notation import TURN
from tutor.rules import preset
from tutor.state import State

HOME = tempfile.mkdtemp(prefix="osmosis-advice-words-")  # never the real data folder


def run(*args: str):
    return osmosis(list(args), HOME, catch=True)


def greedy(number: int, variant: str = "osmosis") -> list[str]:
    """The greedy policy's moves (benchmarks/greedy_moves.py): the first legal move each time."""
    rules = preset(variant)
    state = State.initial(deal_for(number, rules), rules)
    moves = []
    while state.legal_moves():
        move = state.legal_moves()[0]
        moves.append(str(move))
        state = state.apply(move)
    return moves


def flat(text: str) -> str:
    return " ".join(text.split())


# --- solve ---------------------------------------------------------------------------------------------


def test_solve_after_moves_does_not_call_a_winnable_deal_lost_from_the_start():
    """Peek deal 3 is winnable; greedy move 27 (r3 TH) opens row 3 for hearts, and that row order loses."""
    assert "winnable" in run("solve", "3", "--variant", "peek").output
    out = flat(run("solve", "3", "--variant", "peek", "--moves", " ".join(greedy(3, "peek")[:27])).output)
    assert "from the start" not in out
    assert "Lost now, after 27 moves, by the row order chosen:" in out
    assert "rows opened so far (clubs, diamonds, hearts)" in out and "JH lies above 8H in pile 2" in out


def test_solve_of_a_deal_lost_from_the_start_says_so_with_or_without_moves():
    assert "Lost from the start: 8H lies above 8S" in flat(run("solve", "7").output)
    assert "Lost from the start: 8H lies above 8S" in flat(run("solve", "7", "--moves", "d d").output)


def test_solve_counts_take_the_singular_for_one():
    out = flat(run("solve", "5", "--moves", " ".join(greedy(5))).output)
    assert "1 position searched" in out and "1 positions" not in out
    out = flat(run("solve", "23", "--moves", " ".join(greedy(23)[:82])).output)
    assert "A winning line of 1 move (1 play) follows." in out


def test_solve_of_a_won_game_says_it_is_won():
    moves = greedy(23)
    out = flat(run("solve", "23", "--moves", " ".join(moves)).output)
    assert f"Deal 23 after {len(moves)} moves" in out and ": won: all 52 cards are on the foundations" in out
    assert "winnable" not in out and "0 moves" not in out


# --- a loss certain by the no-progress rule -------------------------------------------------------------

def _positions(variant: str, numbers: range, rng: random.Random):
    """Every position of a game per deal, played by a mix of the greedy policy and random moves."""
    rules = preset(variant)
    for number in numbers:
        state = State.initial(deal_for(number, rules), rules)
        while True:
            yield state
            legal = state.legal_moves()
            if not legal:
                break
            state = state.apply(legal[0] if rng.random() < 0.7 else rng.choice(legal))


def _lost_in(deal: State, cards: int) -> None:
    """The engine's own check: from ``deal`` the only move is ever the turn, and the game ends blocked with
    ``cards`` on the foundations; the solver agrees that it cannot be won."""
    state = deal
    while state.legal_moves():
        assert state.legal_moves() == [TURN]
        state = state.apply(TURN)
    assert state.blocked and not state.won and state.cards == cards
    result = search.solve(deal, search.Limit(nodes=50_000))
    assert result.winnable is False and result.best_cards == cards


@pytest.mark.parametrize("variant", ["osmosis", "peek", "single", "limited", "bridesmaids"])
def test_a_loss_certain_by_the_no_progress_rule_is_a_loss_in_every_consistent_deal(variant):
    """blocked_for_sure claims a loss from what the player has seen: check it on the engine in every deal
    consistent with the position (all of them when there are at most 720, else 40 drawn at random), at every
    position of a few hundred games where it is claimed."""
    rng = random.Random(variant)
    claimed = 0
    for state in _positions(variant, range(1, 61), rng):
        obs = observe(state)
        if not state.legal_moves() or not blocked_for_sure(obs):
            continue
        claimed += 1
        _lost_in(state, obs.cards)
        deals = (obs.every_state() if obs.consistent_deals() <= 720
                 else obs.samples(40, random.Random(claimed)))
        for deal in deals:
            _lost_in(deal, obs.cards)
    assert claimed >= 5, claimed  # the claim was met, so the check above is tested


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(number=st.integers(1, 5000), variant=st.sampled_from(["osmosis", "peek", "single", "limited"]),
       seed=st.integers(0, 2**16), data=st.data())
def test_no_progress_certainty_holds_for_any_arrangement_of_the_unseen_cards(number, variant, seed, data):
    """The same claim, the unseen cards put in any order hypothesis picks (a consistent deal)."""
    rng = random.Random(seed)
    for state in _positions(variant, range(number, number + 1), rng):
        obs = observe(state)
        if state.legal_moves() and blocked_for_sure(obs):
            unseen = list(obs.unseen_cards())
            _lost_in(obs.fill(data.draw(st.permutations(unseen))), obs.cards)


def test_a_position_with_a_play_or_an_unknown_card_to_turn_is_never_claimed():
    rules = preset("osmosis")
    first = observe(State.initial(deal_for(5, rules), rules))
    assert not blocked_for_sure(first)  # the first pass: the stock is not known
    moves = greedy(5)
    state = State.initial(deal_for(5, rules), rules).play(moves[:20])
    assert blocked_for_sure(observe(state))
    # a position where a card can be played is never claimed, whatever follows
    for s in _positions("osmosis", range(1, 21), random.Random(1)):
        if any(m.is_play for m in s.legal_moves()):
            assert not blocked_for_sure(observe(s))


def test_the_hint_says_a_no_progress_loss_is_certain_not_a_sampled_interval():
    """Greedy deal 5 after the redeal: nothing to play in the pass, every card of it known."""
    for k in (19, 20, 28, 29):
        result = run("hint", "5", "--moves", " ".join(greedy(5)[:k]))
        out = flat(result.output)
        assert "certain" in out and "95%: 0-" not in out and "Win 0% and 8 cards on the foundations" in out, out
        assert "a pass with no play blocks the game" in out and "95% intervals" not in out
        data = json.loads(run("hint", "5", "--moves", " ".join(greedy(5)[:k]), "--json").stdout)
        assert data["settled"] == {"won": False, "by": "no-progress"}
        assert [c["interval"] for c in data["candidates"]] == [[0.0, 0.0]]
        assert [c["cards_interval"] for c in data["candidates"]] == [[8.0, 8.0]]


def test_the_last_pass_of_limited_ending_with_nothing_left_to_play_is_certain_not_sampled():
    """Limited deal 2 after 42 greedy moves: the last of 3 passes, cards played in it, and none of the 17
    cards still to turn (all seen) can be played: the game ends when the stock runs out, with 16 cards,
    whatever the face-down cards are. The hint and the review say so, with no sampled interval."""
    moves = greedy(2, "limited")
    for k in (42, 44, 46):  # the turns that run the stock out
        rules = preset("limited")
        obs = observe(State.initial(deal_for(2, rules), rules).play(moves[:k]))
        assert obs.progress and obs.pass_no == 3 and blocked_for_sure(obs)
        out = flat(run("hint", "2", "-v", "limited", "--moves", " ".join(moves[:k])).output)
        assert "the game ends with this pass, the last of 3" in out and "no redeal follows" in out, out
        assert "Win 0% and 16 cards on the foundations, both certain" in out and "95%: 0-" not in out, out
        assert "a pass with no play blocks" not in out and "since the redeal" not in out, out
        data = json.loads(run("hint", "2", "-v", "limited", "--moves", " ".join(moves[:k]), "--json").stdout)
        assert data["settled"] == {"won": False, "by": "passes"} and data["tips"] == []
        assert [(c["interval"], c["cards_interval"]) for c in data["candidates"]] == [([0.0, 0.0], [16.0, 16.0])]
    # one move earlier a card (6S) can still be played: nothing is claimed
    assert not blocked_for_sure(observe(State.initial(deal_for(2, preset("limited")), preset("limited"))
                                        .play(moves[:41])))


def test_the_review_says_the_last_pass_ran_out_for_certain():
    record = {"format": "osmosis-record/1", "variant": "limited", "deal": {"number": 2}, "moves": greedy(2, "limited")}
    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=HOME, delete=False) as f:
        json.dump(record, f)
    moves = json.loads(run("review", f.name, "--json").stdout)["moves"]
    last = [m for m in moves if "this was the last pass" in m["comment"]]
    assert [m["ply"] for m in last] == list(range(43, 49)), [m["comment"] for m in moves[40:]]
    for m in last:
        assert m["interval"] == [0.0, 0.0] and "16 cards on the foundations" in m["comment"]
        assert "since the redeal" not in m["comment"] and "95%" not in m["comment"]


def test_an_exact_hint_says_exact_once():
    """Peek deal 3 after 26 greedy moves: every card seen, so every figure is exact; the reason says so once."""
    moves = " ".join(greedy(3, "peek")[:26])
    reason = json.loads(run("hint", "3", "--variant", "peek", "--moves", moves, "--json").stdout)["reason"]
    assert "Win 100% either way, 52 cards, exact: only one deal fits what you have seen, and the position was solved." in reason
    assert reason.count("exact") == 1, reason


def test_a_position_with_one_deal_left_does_not_claim_every_card_was_seen():
    """Greedy deal 18 after 61 moves: one card is still face down, but only one deal fits what the player has
    seen; the exact hint said "you have seen every card" (the review said "you had seen every card")."""
    from tutor.advice import advise

    rules = preset("osmosis")
    state = State.initial(deal_for(18, rules), rules)
    for _ in range(61):
        state = state.apply(state.legal_moves()[0])
    obs = observe(state)
    assert not obs.complete and obs.consistent_deals() == 1
    reason = advise(obs).reason
    assert "only one deal fits what you have seen" in reason and "seen every card" not in reason
