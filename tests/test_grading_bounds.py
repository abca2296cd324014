"""An exact review position whose figures a node limit left as bounds says so, as the hint does.

Deal 17053 with two reserve piles, late in the game: every consistent deal is
solved, and each lost deal's best score is searched. With the search cut short
(the old 2,500-position budget) the best score found is 48 cards where every
deal reaches 50: the review must not call that figure exact.
"""

from __future__ import annotations

import pytest

from tutor import grading
from tutor.deals import deal_for
from tutor.grading import score_ply
from tutor.knowledge import SharedWorlds, observe
from tutor.notation import parse_moves
from tutor.rules import Rules
from tutor.sampling import SolveCache
from tutor.state import State

MOVES = ("r2 d w r1 d d d w d d w d w w d d d d d w d w w d d d d d d d w d d w d d d d d d w w d d d d d "
         "w d d w d d w d w w w d w w d d d d w d d w r1 w r1")


def _position() -> State:
    rules = Rules(reserve_piles=2)
    state = State.initial(deal_for(17053, rules), rules)
    for m in parse_moves(MOVES):
        state = state.apply(m)
    return state


def _score(state: State):
    legal = observe(state).legal_moves()
    assert len(legal) > 1
    ps, _ = score_ply(len(MOVES.split()), state, legal[0], True, SharedWorlds(state, 24), SolveCache(), 24, 200)
    return ps


def test_every_consistent_deal_searched_to_its_best_is_exact():
    ps = _score(_position())
    assert ps.every and ps.exact
    assert {(e.cards, e.cards_lo, e.cards_hi) for e in ps.estimates.values()} == {(50.0, 50.0, 50.0)}


def test_a_best_score_cut_by_the_node_limit_is_a_bound_not_an_exact_figure(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(grading, "EXACT_BEST_NODES", 2_500)
    ps = _score(_position())
    assert ps.every and not ps.exact
    assert all(not e.exact and e.cards_hi == 52.0 and e.cards_lo <= e.cards <= 50.0 for e in ps.estimates.values())
    assert any(e.cards < 50.0 for e in ps.estimates.values())  # the cut figure: a lower bound
