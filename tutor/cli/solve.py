"""``osmosis solve``: full-knowledge solve of a position."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

import click
from rich.text import Text

from ..cards import SUIT_NAMES
from ..constraints import lost_from_start
from ..cycles import Explanation
from ..errors import TutorError
from ..notation import Move
from ..render import card_text, prose, use_symbols
from ..search import Limit
from ..search import solve as run_solve
from ..state import State
from ..textsafe import shown_path
from .app import console_of
from .common import (
    DEAL_NUMBER,
    FILE,
    MAX_SECONDS,
    SECONDS,
    DealCommand,
    live_display,
    resolve_deal,
    rules_from_kwargs,
    stopped_like_ctrl_c,
    variant_options,
)
from .words import MOVES, follow

MAX_NODES = 10**10
GRAPH_NODES = 20_000


def write_graph(state: State, path: str, nodes: int) -> dict[str, Any]:
    """Explore the state graph of ``state`` (at most ``nodes`` positions) and write it as GraphML."""
    from ..graph import position_graph, write_graphml
    from ..storage import folder_lock
    from .keep import graph_file, keep_game_file

    keep_game_file(path, "the graph", example="graph.graphml", same_kind=graph_file)  # before the search: at once
    g = None
    try:
        g = position_graph(state, Limit(nodes=nodes))
        with folder_lock(path):  # and again with the write: a game may have been saved there meanwhile
            keep_game_file(path, "the graph", example="graph.graphml", same_kind=graph_file)
            write_graphml(g, path)
    except OSError as err:
        reason = err.strerror or str(err)
        hint = "" if "give a file name" in reason else "; expected a file path in a folder you can write to"
        raise TutorError(f"cannot write the graph to {shown_path(path)}: {reason}{hint}") from None
    except MemoryError:  # said once the graph is let go (kept, the one-line message itself ran out: 7 tracebacks)
        g = None
    if g is None:
        raise TutorError(f"the graph of {nodes} positions did not fit in the memory this command may use: give a "
                         "smaller --graph-nodes, or raise the memory limit (ulimit -v)")
    won = sum(1 for _, d in g.nodes(data=True) if d.get("win"))
    # reached but never explored: the limit cut the search there (an explored position has its moves as edges)
    unexplored = sum(1 for key, d in g.nodes(data=True) if d.get("win") is None and g.out_degree(key) == 0)
    return {"file": path, "nodes": g.number_of_nodes(), "edges": g.number_of_edges(),
            "winning_nodes": won, "complete": bool(g.graph.get("complete", True)), "node_limit": nodes,
            "unexplored": unexplored}


def graph_sentence(facts: dict[str, Any]) -> str:
    cut = facts["unexplored"]
    whole = ("the whole graph from this position" if facts["complete"]
             else f"not complete: the exploration stopped at its limit of {facts['node_limit']} positions "
                  f"explored, and {cut} more {'was' if cut == 1 else 'were'} reached but not explored "
                  "(raise --graph-nodes)")
    return (f"Wrote the state graph to {shown_path(facts['file'])}: {facts['nodes']} positions "
            f"({facts['winning_nodes']} known to lead to a win), {facts['edges']} moves; {whole}.")


SOLVE_NODES = 1_000_000
"""``osmosis solve``'s node limit: five times the library's (:data:`tutor.search.DEFAULT_LIMIT`, which the
surveys and the hints keep). At 200,000 positions the best score of 3 of Osmosis deals 1-150 was only a lower
bound (deal 2: 42 where 44 is exact); each was exact within 275,000 (1.3 s), and Bridesmaids deal 1254 within
227,000 (47 where 43 was found by 200,000)."""


def limit_from(nodes: int | None, seconds: float | None) -> Limit:
    """The search limit from --nodes/--seconds; a time limit alone lifts the node limit."""
    if nodes is None and seconds is None:
        return Limit(nodes=SOLVE_NODES)
    if nodes is None:
        return Limit(nodes=None, seconds=seconds)
    return Limit(nodes=nodes, seconds=seconds)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def lost_words(initial: State, state: State, moves: int, explanation: Explanation) -> tuple[str, str]:
    """The heading and the text of why ``state`` (``moves`` moves after ``initial``) is lost.

    "Lost from the start" only when the initial deal is itself lost by a cycle
    of needs (then that cycle is the one shown); when the initial deal had a row
    order that could be completed and this position has none, the rows opened
    by the moves chose the order that lost it (plays only remove needs, so
    nothing else can have closed the last order).
    """
    if moves == 0:
        return "Lost from the start: ", explanation.text()
    first = lost_from_start(initial)
    if first is not None:
        return "Lost from the start: ", first.text()
    if len(state.rows) == len(initial.rows):  # not expected: plays only remove needs
        return f"Lost now, after {_count(moves, 'move')}: ", explanation.text()
    opened = ", ".join(SUIT_NAMES[s] for s in state.rows)
    return (f"Lost now, after {_count(moves, 'move')}, by the row order chosen: ",
            f"the rows opened so far ({opened}) leave no row order that can be completed, though the deal "
            f"had one. {explanation.text()}")


def line_text(state: State, line: Iterable[Move], symbols: bool) -> Text:
    """The line as tokens, each play followed by its card: ``d d w 7♠ r2 Q♣``."""
    out = Text()
    for move in line:
        if out:
            out.append(" ")
        card = state.card_of(move)
        out.append(str(move), style="bold" if card is not None else "dim")
        if card is not None:
            out.append(" ")
            out.append_text(card_text(card, symbols))
        state = state.apply(move)
    return out


MAX_GRAPH_NODES = 200_000
"""The most positions a graph may hold: networkx keeps about 13 kB a position (1.35 GB at 100,000, 4 GB at
300,000, measured on deal 3578), so a million would need some 13 GB."""


@click.command("solve", cls=DealCommand)
@click.argument("number", type=DEAL_NUMBER, required=False)
@click.option("--deal-file", type=FILE, default=None, help="A deal file (JSON) instead of a number.")
@variant_options
@click.option("--moves", "tokens", type=MOVES, default=None,
              help='Solve the position after these moves, e.g. "d w r2" (card names too, as in play; a line '
                   'printed by solve pastes as it is).')
@click.option("--nodes", type=click.IntRange(1, MAX_NODES), default=None,
              help=f"Node limit of the search (default {SOLVE_NODES}, at most {MAX_NODES}).")
@click.option("--seconds", type=SECONDS, default=None, metavar="S",
              help=f"Time limit of the search, in seconds (at most {MAX_SECONDS}).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--graph", "graph_file", type=FILE, default=None, metavar="FILE",
              help="Also write the explored state graph as GraphML (nodes: win, best, cards; edges: the move).")
@click.option("--graph-nodes", type=click.IntRange(1, MAX_GRAPH_NODES), default=GRAPH_NODES, show_default=True,
              help=f"The most positions --graph explores (at most {MAX_GRAPH_NODES:,}: each costs about 13 kB).")
@click.pass_context
def solve_command(ctx: click.Context, number: int | None, deal_file: str | None, tokens: list[str] | None,
                  nodes: int | None, seconds: float | None, as_json: bool, graph_file: str | None = None,
                  graph_nodes: int = GRAPH_NODES, **kwargs: Any) -> None:
    """Solve a deal (or the position after some moves) with every card known.

    Says whether it can be won, the best score, and a line of moves that wins
    (or reaches that score). This is hindsight: it sees the face-down cards.
    """
    rules = rules_from_kwargs(kwargs, deal_file=deal_file)
    deal = resolve_deal(number, deal_file, rules)
    states, moves = follow(State.initial(deal, rules), tokens)
    state = states[-1]
    limit = limit_from(nodes, seconds)
    console = console_of(ctx)
    if not as_json and live_display(console):  # a hard deal searches for seconds: a spinner says it works
        with stopped_like_ctrl_c(), console.status("Solving, with every card known..."):  # a kill puts the
            result = run_solve(state, limit)  # cursor back as Ctrl-C does
    else:
        result = run_solve(state, limit)
    if limit.nodes is not None and result.nodes > limit.nodes:
        # the search counts the position past its limit as it stops there, unsearched: --nodes 5 said 6
        result = dataclasses.replace(result, nodes=limit.nodes)
    # the limit that stopped the search: the time where one was given and the nodes did not run out
    larger = "--seconds" if seconds is not None and (limit.nodes is None or result.nodes < limit.nodes) else "--nodes"
    graph_facts = write_graph(state, graph_file, graph_nodes) if graph_file is not None else None
    if as_json:
        out: dict[str, Any] = dict(result.to_json())
        if result.explanation is not None:  # the text's words: after moves, the deal's own cycle where it had one
            label, text = lost_words(State.initial(deal, rules), state, len(moves or ()), result.explanation)
            out["lost_words"] = {"from_start": label.startswith("Lost from the start"), "text": label + text}
        if graph_facts is not None:
            out["graph"] = graph_facts
        if rules.warning():  # the spec: the tutor says so when asked
            out["note"] = f"{rules.warning()}."
        click.echo(json.dumps(out))
        return
    symbols = use_symbols(console)
    what = f"deal {deal.number}" if deal.number is not None else f"the deal in {shown_path(deal_file)}"
    if moves:
        what += f" after {len(moves)} move" + ("s" if len(moves) != 1 else "")
    # the solver sees every card: its verdict says so in the same sentence (a player's chances are the hint's)
    head = Text(f"{what[0].upper()}{what[1:]} ({rules.describe()})" + (": " if state.over else ", with every card known: "))
    if state.won:
        head.append("won", style="bold green")
        head.append(": all 52 cards are on the foundations, so there is nothing left to play.")
    elif state.over:  # blocked: no move is left, so no search is needed and "whatever the player does" is moot
        head.append("blocked", style="bold red")
        head.append(f": the game is over with {_count(state.cards, 'card')} on the foundations, so there is nothing "
                    "left to play.")
    elif result.winnable is True:
        head.append("winnable", style="bold green")
        plays = sum(m.is_play for m in result.line)
        head.append(f". A winning line of {_count(len(result.line), 'move')} ({_count(plays, 'play')}) follows.")
    elif result.winnable is False:
        head.append("lost", style="bold red")
        if result.complete:
            head.append(f" whatever the player does; at best {_count(result.best_cards, 'card')} "
                        f"{'reaches' if result.best_cards == 1 else 'reach'} the foundations.")
        else:
            head.append(f" whatever the player does; the best line found before the limit places "
                        f"{_count(result.best_cards, 'card')}, and more may be possible (a larger {larger} searches further).")
    else:
        head.append("undecided", style="bold yellow")
        head.append(f": the search stopped at its limit; the best line found places "
                    f"{_count(result.best_cards, 'card')}.")
    console.print(head)
    if state.rules.warning():
        console.print(f"Note: {state.rules.warning()}.")
    if result.explanation is not None:
        label, text = lost_words(State.initial(deal, rules), state, len(moves or ()), result.explanation)
        console.print(Text(label, style="bold") + prose(text, symbols))
    console.print(Text(f"{_count(result.nodes, 'position')} searched in {result.seconds:.2f} s.", style="dim"))
    if result.line:
        console.print(Text("Line: ", style="bold") + line_text(state, result.line, symbols))
    if graph_facts is not None:
        console.print(graph_sentence(graph_facts), markup=False)
