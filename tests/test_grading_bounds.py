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
from tutor.notation import TURN, parse_moves
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
    """The cards are a lower bound reaching up to 52; the wins, decided in every deal, stay exact."""
    monkeypatch.setattr(grading, "EXACT_BEST_NODES", 2_500)
    ps = _score(_position())
    assert ps.every and ps.exact and ps.bounded
    assert all(e.cards_hi == 52.0 and e.cards_lo <= e.cards <= 50.0 for e in ps.estimates.values())
    assert all(e.win_lo == e.win == e.win_hi for e in ps.estimates.values())
    assert any(e.cards < 50.0 for e in ps.estimates.values())  # the cut figure: a lower bound


DEAL_51_AT_152 = (
    "r2 d d d d d d d d d d d d d d d w d d d d d d d d d d d d d d d w d d d d w w d d d d d d d d d d d d d w "
    "d d d d d d d d d d d w r3 r4 d d d d d d d d w d d d d d d d d d d w d d d d d d d d d d d d w d d d d d d "
    "d w r1 r3 d d d d d d d d d d d d d d d w w d d d d d d d d d d d d w d d d d d d d d w d d d")


def test_a_pimc_lead_that_the_search_shows_a_blind_player_cannot_cash_is_no_drop():
    """Osmosis deal 51 after 152 of the tutor's moves: on 128 deals PIMC puts w (KH) ahead of the turn the
    tutor played, but the search over what can still turn up gives the turn at least as much for a player who
    cannot see the face-down cards (strategy fusion). The turn is graded best, no drop, both figures kept."""
    from tutor.notation import TURN, WASTE
    from tutor.rules import preset

    rules = preset("osmosis")
    state = State.initial(deal_for(51, rules), rules)
    for m in parse_moves(DEAL_51_AT_152):
        state = state.apply(m)
    ps, _ = score_ply(152, state, TURN, True, SharedWorlds(state, 128), SolveCache(), 128, 1024)
    assert ps.fused == WASTE and ps.best == TURN and ps.drop is None
    assert ps.estimates[WASTE].win > ps.estimates[TURN].win  # PIMC's lead, still shown
    assert ps.blind[TURN] >= ps.blind[WASTE]
    # the same position graded for the leader itself: nothing to veto
    lead, _ = score_ply(152, state, WASTE, True, SharedWorlds(state, 128), SolveCache(), 128, 1024)
    assert lead.fused is None and lead.best == WASTE


def test_the_comment_says_why_a_higher_pimc_figure_is_no_better_move():
    from tutor.narrate.review import grade_sentence
    from tutor.notation import TURN, WASTE
    from tutor.review import Label
    from tutor.review.facts import Candidate, Grade
    from tutor.rules import preset

    rules = preset("osmosis")
    state = State.initial(deal_for(51, rules), rules)
    for m in parse_moves(DEAL_51_AT_152):
        state = state.apply(m)
    played = Candidate(TURN, 0.48, 48.0, 128, (0.40, 0.57), blind=0.516, blind_deals=32,
                       blind_interval=(0.40, 0.63))
    fused = Candidate(WASTE, 0.53, 48.0, 128, (0.44, 0.61), blind=0.492, blind_deals=32,
                      blind_interval=(0.37, 0.61))
    text = grade_sentence(state, Grade(Label.BEST, TURN, TURN, played, played, None, False, fused=fused))
    assert text.startswith("Best move: win 48%")
    assert "shows 53% on those deals solved with every card known" in text
    assert ("searched over the cards that can still turn up (the search's estimate on 32 of the 128 deals), a "
            "player who cannot see them wins no more with it: 49% (95%: 37-61%) against 52% (95%: 40-63%) with this "
            "move.") in text
    assert text.endswith("Its lead may need the face-down cards known.")  # 52% against 49%: within the noise
    exact = grade_sentence(state, Grade(Label.BEST, TURN, TURN, played, played, None, False, fused=fused,
                                        fused_exact=True))
    assert "(every consistent deal searched), a player who cannot see them wins no more with it: 49% against 52% with this move." in exact
    assert exact.endswith("Its lead needs the face-down cards known.")


def test_an_error_figured_on_more_deals_never_shows_a_blind_chance_above_its_win():
    # review JSON: an error's figures are on the deals drawn for its label (512 here), the search's blind value on
    # the shared 128 (32 searched). It showed blind_win 0.50 beside win 0.45; now the wide share less the fusion
    from types import SimpleNamespace

    from tutor.estimate import Estimate
    from tutor.review.analysis import _candidate

    shared = Estimate.of([(True, 52)] * 77 + [(False, 30)] * 51)  # 60% of 128
    ps = SimpleNamespace(blind={TURN: 0.5}, blind_raw={TURN: 0.5}, samples=128, blind_exact=False, lost=frozenset(),
                         estimates={TURN: shared})
    same = _candidate(TURN, shared, ps)
    assert same.blind == 0.5 and same.blind_deals == 32
    wide = Estimate.of([(True, 52)] * 230 + [(False, 30)] * 282)  # 45% of 512
    c = _candidate(TURN, wide, ps)
    assert c.win == wide.win and c.blind == pytest.approx(wide.win - (shared.win - 0.5))
    assert c.blind <= c.win and c.blind_interval[0] <= c.blind <= c.blind_interval[1] and c.blind_deals == 32
    assert c.to_json()["blind_win"] <= c.to_json()["win"]


def test_a_blind_chance_clamped_at_zero_keeps_the_interval_of_the_fusion_found():
    # shared 40 of 128 won, blind 5% (26 points of fusion on the 32 searched); on the 512 wide deals 19.5%:
    # the wide share less that fusion is below 0, shown as 0, and its interval must come from the 26 points
    # found, not from the 19.5 that the clamped figure would imply
    from types import SimpleNamespace

    from tutor.estimate import Estimate
    from tutor.narrate.blind import blind_interval
    from tutor.review.analysis import _candidate

    shared = Estimate.of([(True, 52)] * 40 + [(False, 30)] * 88)
    ps = SimpleNamespace(blind={TURN: 0.05}, blind_raw={TURN: 0.05}, samples=128, blind_exact=False, lost=frozenset(),
                         estimates={TURN: shared})
    wide = Estimate.of([(True, 52)] * 100 + [(False, 30)] * 412)
    c = _candidate(TURN, wide, ps)
    raw = wide.win - (shared.win - 0.05)
    assert raw < 0 and c.blind == 0.0
    assert c.blind_interval == pytest.approx(blind_interval(raw, wide.win, 512, 32, False))
    assert c.blind_interval[1] < blind_interval(0.0, wide.win, 512, 32, False)[1]


def test_a_blind_chance_clamped_at_zero_on_the_shared_deals_keeps_the_interval_of_the_fusion_found():
    # 4 of 128 shared deals won (3.1%), and the search found 10 points of fusion on its 32: the blind chance is
    # -6.9%, shown as 0. Its interval was worked out from the 0 shown (as if 3.1 points of fusion were found)
    from types import SimpleNamespace

    from tutor.estimate import Estimate
    from tutor.narrate.blind import blind_interval
    from tutor.review.analysis import _candidate

    shared = Estimate.of([(True, 52)] * 4 + [(False, 30)] * 124)
    raw = shared.win - 0.10
    ps = SimpleNamespace(blind={TURN: 0.0}, blind_raw={TURN: raw}, samples=128, blind_exact=False, lost=frozenset(),
                         estimates={TURN: shared})
    c = _candidate(TURN, shared, ps)
    assert c.blind == 0.0 and c.blind_deals == 32
    assert c.blind_interval == pytest.approx(blind_interval(raw, shared.win, 128, 32, False))
    assert c.blind_interval[1] < blind_interval(0.0, shared.win, 128, 32, False)[1]  # tighter: it keeps the 10
    assert c.blind_interval[0] == 0.0
