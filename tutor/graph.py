"""The state graph of a position as a networkx DAG: explored, exported, and read for facts.

The solver (:mod:`tutor.search`) works on plain ints for speed; this module
builds the same folded graph as a :class:`networkx.DiGraph` where a player
(or a script) can look at it: ``osmosis solve --graph FILE`` writes it as
GraphML, and the review asks it which moves were the only way to keep a win.

Nodes are :meth:`State.key` values; every edge is one folded play ("turn
until X shows, then play X"), so the graph is acyclic and at most 51 plays
deep. The winning subgraph (the nodes from which a win is reachable) is what
the facts below are read from: the plays every winning line makes, found as
the dominators of the won states, and the first moves that keep a win.
"""

from __future__ import annotations

import io
import os
import time
from dataclasses import dataclass
from typing import TypeAlias

import networkx as nx

from .cards import NAMES
from .notation import Move
from .search import DEFAULT_LIMIT, Limit, folded_moves, solve
from .state import State

__all__ = ["position_graph", "export_graph", "write_graphml", "WinningFacts", "winning_facts"]

# The sink every won position points to, in the winning subgraph (position keys are never negative).
_WON = -1

PositionGraph: TypeAlias = "nx.DiGraph[int]"
"""The explored graph: nodes are :meth:`State.key` values (see :func:`position_graph`)."""


def position_graph(state: State, limit: Limit = DEFAULT_LIMIT) -> PositionGraph:
    """The explored DAG of folded positions from ``state``.

    Nodes are :meth:`State.key` values with attributes ``state`` (the
    :class:`~tutor.state.State`), ``cards``, ``win`` (True, False, or None when
    the limit cut the exploration below it) and ``best`` (the best score
    reachable, exact when ``win`` is not None). Edges carry ``card`` (the card
    played) and ``moves`` (the atomic moves, turns included). Every play is an
    edge here (nothing is collapsed), so each legal first play from the root
    has its own child. ``graph.graph['root']`` is the root's key and
    ``graph.graph['complete']`` whether the limit was never hit.
    """
    g: PositionGraph = nx.DiGraph()
    root = state.key()
    g.graph["root"] = root
    max_nodes = limit.nodes if limit.nodes is not None else float("inf")
    deadline = None if limit.seconds is None else time.perf_counter() + limit.seconds
    count = [0]
    stopped = [False]

    def visit(st: State) -> None:
        key = st.key()
        if key in g and "win" in g.nodes[key]:
            return
        g.add_node(key, state=st, cards=st.cards)
        count[0] += 1
        if count[0] > max_nodes or (deadline is not None and time.perf_counter() > deadline):
            stopped[0] = True
            g.nodes[key].update(win=None, best=st.cards)
            return
        if st.won:
            g.nodes[key].update(win=True, best=52)
            return
        win: bool | None = False
        best = st.cards
        for card, moves in folded_moves(st):
            child = st.play(moves)
            ckey = child.key()
            if ckey not in g or "win" not in g.nodes[ckey]:
                visit(child)
            g.add_edge(key, ckey, card=card, moves=moves)
            cw, cb = g.nodes[ckey]["win"], g.nodes[ckey]["best"]
            best = max(best, cb)
            if cw:
                win = True
            elif cw is None and win is False:
                win = None
        g.nodes[key].update(win=win, best=best)

    visit(state)
    g.graph["complete"] = not stopped[0]
    return g


def _win_word(win: bool | None) -> str:
    return "unknown" if win is None else ("true" if win else "false")


def export_graph(g: PositionGraph) -> nx.DiGraph[str]:
    """A copy of ``g`` with plain attributes only, as GraphML and other formats need.

    Node ids are the position keys as text; nodes keep ``cards``, ``best``,
    ``win`` ("true", "false" or "unknown") and ``root``; edges get ``move``
    (the atomic moves, space-separated, as ``--moves`` takes them) and
    ``card`` (the card played, two-letter form).
    """
    out: nx.DiGraph[str] = nx.DiGraph(complete=bool(g.graph.get("complete", True)), root=str(g.graph["root"]))
    for key, data in g.nodes(data=True):
        out.add_node(str(key), cards=int(data.get("cards", 0)), best=int(data.get("best", data.get("cards", 0))),
                     win=_win_word(data.get("win")), root=key == g.graph["root"])
    for a, b, data in g.edges(data=True):
        out.add_edge(str(a), str(b), move=" ".join(str(m) for m in data["moves"]), card=NAMES[data["card"]])
    return out


def write_graphml(g: PositionGraph, path: str | os.PathLike[str]) -> None:
    """Write the explored graph as GraphML (see :func:`export_graph` for the attributes).

    Atomically, as every file the tutor writes: a failed write leaves the old
    file as it was (``osmosis solve --graph`` also keeps a finished game's file).
    """
    from .storage import atomic_write_text

    buffer = io.BytesIO()
    nx.write_graphml(export_graph(g), buffer)
    atomic_write_text(path, buffer.getvalue().decode("utf-8"))


GRAPH_LIMIT = Limit(nodes=3_000)
"""How much of the graph :func:`winning_facts` explores for the dominators."""


@dataclass(frozen=True, slots=True)
class WinningFacts:
    """What a position's winning lines have in common, with every card known (hindsight).

    ``winnable`` is None when a search hit its limit. ``keeping`` are atomic
    moves after which the position can still be won, in legal-move order
    (decided by the solver, one search per move); the search stops at the
    second one, which is enough to tell whether a move was the only one.
    ``only_move`` is that one move when it is alone and the position had
    another legal move. ``must_play`` are plays that every winning line makes
    at the same point, in order, read off the dominators of the won states in
    the winning subgraph (where one dominator lies a single play below the one
    before it); it is only computed when asked for, and is empty when the
    graph was too big to explore whole (``graph_complete`` False).
    """

    winnable: bool | None
    keeping: tuple[Move, ...]
    legal: int
    must_play: tuple[int, ...] = ()
    graph_complete: bool = False

    @property
    def only_move(self) -> Move | None:
        return self.keeping[0] if self.winnable and len(self.keeping) == 1 and self.legal > 1 else None


def winning_facts(state: State, limit: Limit = DEFAULT_LIMIT, graph_limit: Limit | None = None) -> WinningFacts:
    """The :class:`WinningFacts` of ``state``: the solver for each move, networkx for the dominators.

    ``graph_limit`` asks for the dominators too, exploring at most that much
    of the graph (:data:`GRAPH_LIMIT` is a fair size).
    """
    legal = state.legal_moves()
    if state.won:
        return WinningFacts(True, (), 0, (), True)
    keeping: list[Move] = []
    unknown = False
    for move in legal:
        win = solve(state.apply(move), limit, want="win").winnable
        if win:
            keeping.append(move)
            if len(keeping) == 2:
                break
        elif win is None:
            unknown = True
    if keeping:
        winnable: bool | None = True
    else:
        winnable = None if unknown else False
    if unknown and len(keeping) == 1:
        keeping = []  # a move not decided might keep the win too: no "only move" claim
    if not winnable or graph_limit is None:
        return WinningFacts(winnable, tuple(keeping), len(legal))
    g = position_graph(state, graph_limit)
    if not g.graph["complete"]:
        return WinningFacts(True, tuple(keeping), len(legal), (), False)
    return WinningFacts(True, tuple(keeping), len(legal), _dominator_plays(g), True)


def _dominator_plays(g: PositionGraph) -> tuple[int, ...]:
    root = g.graph["root"]
    winning = g.subgraph(n for n, d in g.nodes(data=True) if d["win"]).copy()
    winning.add_edges_from((n, _WON) for n, d in g.nodes(data=True) if d["win"] and d["cards"] == 52)
    if _WON not in winning:
        return ()
    idom = nx.immediate_dominators(winning, root)
    chain = []
    node = idom[_WON]
    while node != root:
        chain.append(node)
        node = idom[node]
    chain.reverse()
    must_play = []
    prev = root
    for node in chain:
        # Every edge places one card, so a dominator one card below the last
        # one is reached by the same play on every winning line.
        if winning.has_edge(prev, node):
            must_play.append(winning.edges[prev, node]["card"])
        prev = node
    return tuple(must_play)
