"""The "must come before" constraint graph and deals lost from the start."""

from __future__ import annotations

import networkx as nx
from conftest import make_deal, position
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor.cards import parse_card, parse_cards
from tutor.constraints import FULL, Needs, constraint_graph, lost_from_start, row_orders
from tutor.deals import deal_for
from tutor.rules import preset
from tutor.state import State

OSMOSIS = preset("osmosis")


def hand_position(piles: list[str], base: str) -> State:
    return State.initial(make_deal(piles, base), OSMOSIS)


def test_row_orders_keep_the_rows_already_opened():
    assert row_orders((0,)) == [(0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 1, 3), (0, 2, 3, 1), (0, 3, 1, 2), (0, 3, 2, 1)]
    assert row_orders((2, 0, 3)) == [(2, 0, 3, 1)]


def test_same_rank_above_in_a_pile_is_a_cycle_for_every_row_order():
    # Spades are row 1 (base 2S); 5H lies above 5S, and hearts need 5S in a row above.
    s = hand_position(["5S 5H KC QC", "JC TC 9C 8C", "7C 6C 4C 3C", "KD QD JD TD"], "2S")
    expl = lost_from_start(s)
    assert expl is not None and sorted(expl.cycle) == parse_cards("5S 5H")
    assert len(expl.orders) == 6 and not expl.others
    text = expl.text()
    assert "5H lies above 5S in pile 1" in text and "whatever the order of the rows" in text


def test_cycle_that_one_row_order_avoids_does_not_lose_the_deal():
    # 5D above 5H: a cycle only if hearts get a row above diamonds.
    s = hand_position(["5H 5D KC QC", "JC TC 9C 8C", "7C 6C 4C 3C", "KS QS JS TS"], "2S")
    assert lost_from_start(s) is None
    spades, hearts, diamonds, clubs = 0, 1, 2, 3
    assert not nx.is_directed_acyclic_graph(constraint_graph(s, (spades, hearts, diamonds, clubs)))
    assert nx.is_directed_acyclic_graph(constraint_graph(s, (spades, diamonds, hearts, clubs)))


def test_card_above_its_rows_opener_is_a_cycle():
    # Starting rank 2 (base 2S): 7H lies above 2H, which must open the hearts row before any heart.
    s = hand_position(["2H 7H KC QC", "JC TC 9C 8C", "7C 6C 4C 3C", "KD QD JD TD"], "2S")
    expl = lost_from_start(s)
    assert expl is not None and sorted(expl.cycle) == parse_cards("2H 7H")
    assert "opens the hearts row" in expl.text()


def test_opened_rows_narrow_the_orders():
    # Deal 16 is lost from the start in two ways; with the rows fixed only the fitting cycle is named.
    s = position(16)
    expl = lost_from_start(s)
    assert expl is not None
    names = {parse_card(n) for n in ("5D", "5H", "AH", "AD")}
    assert set(expl.cycle) <= names
    covered = set(expl.orders) | {o for other in expl.others for o in other.orders}
    assert covered == set(row_orders(s.rows))


def test_constraint_graph_edges_say_why():
    s = hand_position(["5S 5H KC QC", "JC TC 9C 8C", "7C 6C 4C 3C", "KD QD JD TD"], "2S")
    g = constraint_graph(s, (0, 1, 2, 3))
    five_h, five_s = parse_card("5H"), parse_card("5S")
    assert g.edges[five_h, five_s]["why"] == "pile" and g.edges[five_h, five_s]["pile"] == 1
    assert g.edges[five_s, five_h]["why"] == "row"
    assert g.edges[parse_card("2H"), five_h]["why"] == "start"
    assert parse_card("2S") not in g  # placed cards have no constraints left


@settings(max_examples=30, deadline=None)
@given(number=st.integers(1, 31999), moves=st.integers(0, 40))
def test_bit_mask_check_agrees_with_the_graph(number, moves):
    state = State.initial(deal_for(number, OSMOSIS), OSMOSIS)
    for _ in range(moves):
        legal = state.legal_moves()
        if not legal:
            break
        state = state.apply(legal[(number + _) % len(legal)])
    needs = Needs(state.reserves, state.base % 13)
    for order in row_orders(state.rows):
        acyclic = nx.is_directed_acyclic_graph(constraint_graph(state, order))
        assert (needs.reachable(state.mask(), order) == FULL) == acyclic
    lost = lost_from_start(state)
    assert (lost is None) == needs.can_win(state.mask(), state.rows)


def test_upper_bound_counts_cards_outside_any_cycle():
    s = hand_position(["5S 5H KC QC", "JC TC 9C 8C", "7C 6C 4C 3C", "KD QD JD TD"], "2S")
    needs = Needs(s.reserves, s.base % 13)
    # 5S never comes free, and no five can go below it: the four fives stay out, nothing else.
    assert needs.upper_bound(s.mask(), s.rows) == 48
