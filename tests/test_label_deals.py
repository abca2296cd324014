"""The review's extra deals for a label in doubt, drawn in batches over the processes (tutor.label_deals)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from tutor.deals import deal_for
from tutor.grading import RUN, run_bounds, score_game, score_ply
from tutor.knowledge import SharedWorlds
from tutor.rules import preset
from tutor.sampling import SolveCache
from tutor.state import State

SAMPLES, BUDGET = 8, 200  # extra deals in batches 8-72, 72-136, 136-200


def random_game(number: int, variant: str, seed: int, length: int):
    rules = preset(variant)
    state = State.initial(deal_for(number, rules), rules)
    rng = random.Random(seed)
    states, moves = [state], []
    while not state.over and len(moves) < length:
        legal = state.legal_moves()
        plays = [m for m in legal if m.is_play]
        move = rng.choice(plays) if plays and rng.random() < 2 / 3 else legal[-1]
        moves.append(move)
        state = state.apply(move)
        states.append(state)
    graded = {i for i in range(len(moves)) if len(states[i].legal_moves()) > 1}
    return states, moves, graded


@given(st.integers(0, 60), st.sets(st.integers(0, 59)))
def test_runs_cover_every_position_once_with_one_graded_position_at_most(n, marks):
    graded = {g for g in marks if g < n}
    bounds = run_bounds(n, graded)
    assert [p for a, b in bounds for p in range(a, b)] == list(range(n))
    for a, b in bounds:
        assert 0 < b - a <= RUN
        assert not graded & set(range(a + 1, b))  # a graded position only ever starts a run


def test_labels_in_doubt_get_the_same_deals_and_answer_whatever_the_processes():
    states, moves, graded = random_game(11, "osmosis", 2, 40)
    one = score_game(states, moves, graded, SAMPLES, BUDGET, workers=1)
    two = score_game(states, moves, graded, SAMPLES, BUDGET, workers=2)
    assert set(one) == set(range(len(moves)))
    assert all(p.doubt is None for p in one.values())
    grown = [p for p in one.values() if p.drop is not None and p.drop.samples > SAMPLES]
    assert any(p.drop.samples == BUDGET and p.drop.estimate > 0 for p in grown)  # every batch, a real drop
    for ply, p in one.items():
        assert (p.best, p.drop, p.wide, p.estimates) == (two[ply].best, two[ply].drop, two[ply].wide,
                                                         two[ply].estimates)
    for p in grown:
        # the same as drawing them one batch after another inside the position's own scoring
        worlds = SharedWorlds(states[0], BUDGET)
        for k in range(1, p.ply + 1):
            worlds.advance(states[k])
        inline, _ = score_ply(p.ply, states[p.ply], moves[p.ply], True, worlds, SolveCache(), SAMPLES, BUDGET)
        assert (inline.drop, inline.wide, inline.doubt) == (p.drop, p.wide, None)
    # one position alone in doubt: two processes run its batches two at a time, ahead of the doubt rule
    deep = max(grown, key=lambda p: (p.drop.samples, p.drop.estimate))
    alone = score_game(states, moves, {deep.ply}, SAMPLES, BUDGET, workers=2)[deep.ply]
    assert (alone.drop, alone.wide) == (deep.drop, deep.wide)
