"""The hint as the player gets it: a position settled whatever the move says so (tutor.advice)."""

from __future__ import annotations

import json

from builders import osmosis, position

from tutor import search
from tutor.advice import SettledHint, advise, settle
from tutor.deals import deal_for
from tutor.hints import hint
from tutor.knowledge import observe
from tutor.rules import preset
from tutor.state import State


def _greedy(variant: str, number: int, plies: int) -> tuple[State, list[str]]:
    rules = preset(variant)
    state, moves = State.initial(deal_for(number, rules), rules), []
    for _ in range(plies):
        move = state.legal_moves()[0]
        moves.append(str(move))
        state = state.apply(move)
    return state, moves


def test_a_position_lost_in_every_consistent_deal_is_settled_and_the_engine_agrees():
    """Osmosis deal 3 after 45 greedy moves: six cards unseen (720 deals), every sampled deal lost whatever the
    move. Solving all 720 for the win settles it: the hint says the game is lost whatever the player does."""
    state, _ = _greedy("osmosis", 3, 45)
    obs = observe(state)
    assert obs.consistent_deals() == 720
    advice = advise(obs)
    assert isinstance(advice, SettledHint) and not advice.won and advice.deals == 720 and not advice.exact
    assert advice.reason.endswith("Solving every one of the 720 deals consistent with what you have seen shows that "
                                  "no move wins in any of them: the game is lost whatever you play, and only the "
                                  "cards are left to play for.")
    assert advice.to_json()["settled"] == {"won": False, "deals": 720}
    assert advice.best == hint(obs).best  # the choice of move is the engine's own
    # the win figures are the solved ones, not a sampled "0% (95%: 0-6%)" beside "lost whatever you play"
    assert all(c.win == 0 and c.interval == (0.0, 0.0) for c in advice.candidates)
    assert "95%: 0-" not in advice.reason and "Win 0% (in every consistent deal) either way" in advice.reason
    assert "the cards on 96 sampled deals consistent with what you have seen" in advice.reason
    # and no move is lower than another, for certain: its drop is an exact 0, not a sampled -3.9 to +3.9
    for c in advice.to_json()["candidates"]:
        assert "drop" not in c or (c["drop"] == 0 and c["drop_interval"] == [0, 0] and c["drop_exact"]), c
    for deal in obs.every_state()[::89]:
        for move in state.legal_moves():
            assert search.solve(deal.apply(move), search.Limit(nodes=200_000), want="win").winnable is False


def test_a_position_with_too_many_consistent_deals_is_left_as_the_samples_say():
    """Osmosis deal 2 after 29 greedy moves: every sample lost, but 5040 deals are consistent: not solved."""
    state, _ = _greedy("osmosis", 2, 29)
    obs = observe(state)
    assert obs.consistent_deals() > 720
    advice = advise(obs)
    assert not isinstance(advice, SettledHint) and "settled" not in advice.to_json()


def test_a_hint_with_a_move_that_wins_somewhere_or_an_exact_one_is_not_settled():
    state, _ = _greedy("osmosis", 3, 20)
    advice = hint(observe(state))
    assert any(c.win > 0 for c in advice.candidates)
    assert settle(observe(state), advice) is advice
    won, _ = _greedy("peek", 2, 24)  # one consistent deal: exact already
    exact = hint(observe(won))
    assert exact.exact and settle(observe(won), exact) is exact


def test_hint_and_play_say_a_settled_position_is_lost(tmp_path):
    _, moves = _greedy("osmosis", 3, 45)
    home = tmp_path / "home"
    data = json.loads(osmosis(["hint", "3", "--moves", " ".join(moves), "--json"], home).stdout)
    assert data["settled"] == {"won": False, "deals": 720}
    assert "the game is lost whatever you play" in data["reason"]
    assert all(c["interval"] == [0.0, 0.0] for c in data["candidates"])
    out = osmosis(["play", "3"], home, input=" ".join(moves) + "\nh\nq\n").stdout
    assert "the game is lost whatever you play" in " ".join(out.split())
    table = [line.split() for line in out.splitlines() if line.startswith(("d ", "w "))]
    assert table and all(row[3] == "certain" for row in table)


def test_a_loss_in_plain_view_in_the_face_up_reserve_is_said_by_the_hint_even_for_a_forced_move():
    """Peek deal 7 after r2: the review calls the deal lost from the start by the face-up reserve piles; the
    hint (one legal move here) says so too, instead of a sampled 0% alone."""
    from tutor.advice import RESERVES_LOST
    from tutor.grading import lost_by_reserves
    from tutor.notation import Move

    rules = preset("peek")
    state = State.initial(deal_for(7, rules), rules).apply(Move.parse("r2"))
    obs = observe(state)
    assert lost_by_reserves(obs)
    advice = advise(obs)
    assert isinstance(advice, SettledHint) and advice.deals == 0 and not advice.won
    assert advice.reason.endswith(RESERVES_LOST) and advice.reason.count("leave no order of the rows") == 1
    assert advice.to_json()["settled"] == {"won": False, "by": "reserves"}


def test_the_board_shows_a_settled_hint_as_solved_not_a_sampled_interval():
    from tutor.board.widgets import HintView

    state, _ = _greedy("osmosis", 3, 45)
    advice = advise(observe(state))
    lines = [line.plain for line in HintView(advice, state, False).lines(100)]
    rows = [line for line in lines if line.startswith(("d ", "w "))]
    assert len(rows) == 2 and all("certain" in row and "%-" not in row for row in rows)
    # a hint that is not settled keeps its sampled interval
    sampled = hint(observe(_greedy("osmosis", 3, 20)[0]))
    assert not any("certain" in line.plain for line in HintView(sampled, _greedy("osmosis", 3, 20)[0], False).lines(100))


def test_with_the_last_card_playable_the_hint_plays_it():
    """Deal 3 one move from its win: QH on the waste is the 52nd card. Every move wins, and the sampler's
    tie-break said to redeal; the hint now plays the card that wins the game."""
    from tutor.search import solve

    start = position(3)
    line = solve(start).line
    obs = observe(start.play(line[:-1]))
    assert obs.cards == 51
    advice = advise(obs)
    assert advice.best == line[-1] and "it is the last card, and it wins the game now" in advice.reason
    best = next(c for c in advice.candidates if c.move == advice.best)
    assert best.win == 1.0 and best.interval == (1.0, 1.0) and best.drop is None
    assert all(c.drop is not None for c in advice.candidates if c.move != advice.best)
