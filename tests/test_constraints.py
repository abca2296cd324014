"""The "must come before" constraint graph and deals lost from the start."""

from __future__ import annotations

import random

import networkx as nx
from builders import make_deal, position
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor.cards import parse_card, parse_cards
from tutor.constraints import FULL, Needs, constraint_graph, lost_from_start, row_orders
from tutor.deals import Deal, deal_for
from tutor.rules import Rules, preset
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
    assert "5H lies above 5S in pile 1" in text and "in every row order still possible" in text


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


BRIDESMAIDS = preset("bridesmaids")


def test_talon_order_keeps_a_buried_opener_and_its_suit_out():
    # No reserve, spades are row 1 (base 2S). 2H lies 4th in the talon: a turn of three never stops
    # right after it until a card before it is played, else 6H and 7H above it must go first; but
    # every one of those cards is a heart, and hearts need 2H to open their row.
    s = State.initial(make_deal([], "2S", "3H 4H 5H 2H 6H 7H"), BRIDESMAIDS)
    needs = Needs(s.reserves, s.base % 13)
    hearts = sum(1 << c for c in parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"))
    for order in row_orders(s.rows):
        assert needs.reachable(s.mask(), order) == FULL
        placeable = needs.talon_reachable(s.mask(), order, s.talon, s.pos, 3)
        assert placeable & hearts == 0


def test_talon_order_frees_a_card_a_turn_stops_at():
    # The same talon with 2H third: the first turn shows it, so nothing is held back.
    s = State.initial(make_deal([], "2S", "3H 4H 2H 5H 6H 7H"), BRIDESMAIDS)
    needs = Needs(s.reserves, s.base % 13)
    assert all(needs.talon_reachable(s.mask(), o, s.talon, s.pos, 3) == FULL for o in row_orders(s.rows))


def placed_on_some_line(state: State) -> int:
    """Every card that some line of play from ``state`` places (plain search over atomic moves)."""
    seen: set[int] = set()
    union = state.mask()
    todo = [state]
    while todo:
        s = todo.pop()
        for move in s.legal_moves():
            t = s.apply(move)
            if t.key() not in seen:
                seen.add(t.key())
                union |= t.mask()
                todo.append(t)
    return union


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), left=st.integers(6, 11),
       passes=st.sampled_from([0, 2]), pos_pick=st.integers(0, 2), reserve=st.booleans())
def test_talon_order_never_keeps_out_a_card_some_line_places(seed, left, passes, pos_pick, reserve):
    # Late positions built by placing random playable cards, then any waste position: every card
    # that some line places is in the talon-order bound of the row order that line follows.
    rng = random.Random(seed)
    turn = 3
    rules = Rules(turn=turn, passes=passes, reserve_piles=1 if reserve else 0)
    cards = list(range(52))
    rng.shuffle(cards)
    n = 4 if reserve else 0
    s = State.initial(Deal((tuple(cards[:n]),) if reserve else (), cards[n], tuple(cards[n + 1:])), rules)
    while 52 - s.cards > left:
        options = [(c, s.reserves, s.talon[:i] + s.talon[i + 1:]) for i, c in enumerate(s.talon)
                   if s.destination(c) >= 0]
        if s.reserves and s.reserves[0] and s.destination(s.reserves[0][-1]) >= 0:
            options.append((s.reserves[0][-1], (s.reserves[0][:-1],), s.talon))
        if not options:
            break
        card, reserves, talon = rng.choice(options)
        s = s._place(card, s.destination(card), reserves, talon, 0)
    length = len(s.talon)
    pos = [0, length, rng.randint(0, length)][pos_pick]
    s = s._replace(pos=pos, pass_no=1, progress=True)
    needs = Needs(s.reserves, s.base % 13)
    bounds = [needs.talon_reachable(s.mask(), o, s.talon, s.pos, turn) for o in row_orders(s.rows)]
    for b, o in zip(bounds, row_orders(s.rows)):
        assert b & ~needs.reachable(s.mask(), o) == 0  # never looser than the plain needs
    union_of_bounds = 0
    for b in bounds:
        union_of_bounds |= b
    assert placed_on_some_line(s) & ~union_of_bounds == 0
    if len(s.rows) == 4:
        assert placed_on_some_line(s) & ~bounds[0] == 0


def _random_positions(count: int, seed: int):
    rng = random.Random(seed)
    rules = preset("osmosis")
    for n in range(1, count + 1):
        s = State.initial(deal_for(n, rules), rules)
        for _ in range(30):
            moves = s.legal_moves()
            if not moves:
                break
            plays = [m for m in moves if m.is_play]
            s = s.apply(rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(moves))
            if lost_from_start(s):
                yield s
                break


def test_lost_order_explanation_never_contradicts_its_scope():
    checked = 0
    for s in _random_positions(200, seed=1):
        expl = lost_from_start(s)
        for part in [expl, *expl.others]:
            for order in part.orders:
                g = constraint_graph(s, order)
                cyc = part.cycle
                assert all(g.has_edge(cyc[i], cyc[(i + 1) % len(cyc)]) for i in range(len(cyc)))
            if part.every_order and len(part.orders) > 1:
                checked += 1
                # A reason that depends on the row order cannot stand beside "whatever the order".
                assert not any("in a row above" in step or step.startswith("with ") for step in part.steps)
    assert checked >= 5
