"""The state graph as networkx: GraphML export and the facts of the winning subgraph."""

from __future__ import annotations

import networkx as nx

from tutor.deals import deal_for
from tutor.graph import GRAPH_LIMIT, export_graph, position_graph, winning_facts, write_graphml
from tutor.notation import Move
from tutor.rules import preset
from tutor.search import Limit, solve
from tutor.state import State


def start(number: int, variant: str = "osmosis") -> State:
    rules = preset(variant)
    return State.initial(deal_for(number, rules), rules)


def late(number: int, plies_left: int) -> State:
    """A position on deal ``number``'s winning line, ``plies_left`` moves before the end."""
    s = start(number)
    line = solve(s).line
    return s.play(line[: len(line) - plies_left])


def test_graphml_round_trips_moves_and_verdicts(tmp_path):
    s = late(4, 30)
    g = position_graph(s, Limit(nodes=None))
    path = tmp_path / "g.graphml"
    write_graphml(g, path)
    back = nx.read_graphml(path)
    assert back.number_of_nodes() == g.number_of_nodes()
    assert back.number_of_edges() == g.number_of_edges()
    root = str(g.graph["root"])
    assert back.nodes[root]["root"] is True and back.nodes[root]["win"] == "true"
    for a, b, data in back.edges(data=True):
        # Each edge's moves, replayed from its source position, reach its target.
        source = g.nodes[int(a)]["state"]
        assert source.play(data["move"].split()).key() == int(b)
        assert data["card"] == data["card"].upper() and len(data["card"]) == 2


def test_export_says_unknown_where_the_limit_cut():
    g = export_graph(position_graph(start(1), Limit(nodes=3)))
    assert {d["win"] for _, d in g.nodes(data=True)} >= {"unknown"}
    assert g.graph["complete"] is False


def test_only_move_is_the_single_move_that_keeps_the_win():
    checked = 0
    for number in (3, 4):
        s = start(number)
        for move in solve(s).line:
            facts = winning_facts(s)
            if facts.only_move is not None:
                checked += 1
                assert facts.only_move in s.legal_moves()
                assert solve(s.apply(facts.only_move)).winnable is True
                others = [m for m in s.legal_moves() if m != facts.only_move]
                assert others and all(solve(s.apply(m)).winnable is False for m in others)
            s = s.apply(move)
    assert checked > 10


def test_no_only_move_where_two_moves_win():
    s = late(4, 30)
    facts = winning_facts(s)
    wins = [m for m in s.legal_moves() if solve(s.apply(m)).winnable]
    assert (facts.only_move is None) == (len(wins) != 1 or len(s.legal_moves()) == 1)


def test_lost_position_has_no_winning_facts():
    facts = winning_facts(start(7))  # lost from the start (a cycle in pile 2)
    assert facts.winnable is False and facts.keeping == () and facts.only_move is None


def test_dominator_plays_lie_on_every_winning_line():
    s = late(4, 26)
    facts = winning_facts(s, graph_limit=GRAPH_LIMIT)
    assert facts.graph_complete and facts.must_play
    g = position_graph(s, Limit(nodes=None))
    won = [n for n, d in g.nodes(data=True) if d["cards"] == 52]
    winning = g.subgraph(n for n, d in g.nodes(data=True) if d["win"])
    for target in won:
        for path in nx.all_simple_paths(winning, g.graph["root"], target):
            cards = [winning.edges[a, b]["card"] for a, b in zip(path, path[1:])]
            # The must-play cards appear on this line in the same order.
            it = iter(cards)
            assert all(any(c == m for c in it) for m in facts.must_play)
            break  # one path per won state keeps the test quick


def test_only_move_reports_a_move_object():
    facts = winning_facts(late(4, 12))
    assert all(isinstance(m, Move) for m in facts.keeping)
