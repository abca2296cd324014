"""``osmosis drill``: learn from your mistakes. Positions of your own games asked again.

Each drill is a position before a move that your review called a mistake or
a blunder, shown as you saw it (face-down cards stay face down). Answer with
a move (r1-r4, w, d) or a card; the lessons' judge rates it from the cards
you had seen, and the tip for that kind of error follows the answer. A
right answer comes back later and later (1, 3, 7, 16, 35, 90 days), a wrong
one in ten minutes. Piped input works: one answer a line.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from ..errors import MoveError
from ..history import drill as drills
from ..history.copies import record_of
from ..history.db import History, HistoryError
from ..history.reviews import reviews
from ..knowledge import observe
from ..lessons import describe_move, judge_answer
from ..lessons.words import remembered_talon, win_text
from ..narrate.tags import tag_tip, topic_for
from ..notation import Move
from ..render import prose, render_state, use_symbols
from ..review import TAGS, tip
from ..state import State
from ..talon import last_pass, memory
from ..textsafe import clean, quoted
from . import drill_words
from . import history_render as words
from .app import console_of
from .history import opened
from .play import waste_fan
from .words import answer_forms, unreadable_word

QUIT = ("q", "quit", "exit")
HINT = ("h", "hint")
HELP = ("?", "help")
def drill_help(piles: int = 4) -> str:
    """How to answer a drill of a game with ``piles`` reserve piles (only the piles it has are offered)."""
    return f"Answer with a move: {answer_forms(piles)}. h gives a hint, q stops."


def drill_hint(state: State, d: drills.Drill, tip: str) -> str:
    """A nudge that keeps the answer to find: the tip for the error's kind, and the moves still to weigh."""
    played = Move.parse(d.played)
    others = [describe_move(state, m) for m in state.legal_moves() if m != played]
    # with one other move the intro has given it away already: naming it would add nothing
    weigh = ("Weigh the other moves: " + "; ".join(others) + ".") if len(others) > 1 else ""
    if not tip and not weigh:
        return f"Hint: besides {d.played}, the move the review faulted, there is only one legal move here."
    return " ".join(part for part in (f"Hint: {tip}" if tip else "Hint:", weigh) if part)


def tip_for(tags: Iterable[str], state: State | None = None, played: Move | None = None) -> str:
    """The tip the review gave for the move ``played`` in ``state`` (:func:`tutor.narrate.tags.tip_sentence`,
    from the tags the history keeps): reading the reserve where that row opened into a trap the player could
    see, row 1's own tip for a row-1 card turned past, the last pass's on it, and the words for a player who
    knew every card (no bet on the talon then); else the first known tag's."""
    from ..narrate.tips import TipId
    from ..review.full_knowledge import new_cycle
    from ..review.tags import cycle_seen, opens_row

    tags = tuple(tags)
    tag = next((t for t in tags if t in TAGS), None)
    if state is None or played is None:
        return tip(tag_tip(tag, state)) if tag is not None else ""
    # with one consistent deal the player knew every card, a trap in the reserve included (as the review reads it)
    known = observe(state).consistent_deals() == 1
    if opens_row(state, state.card_of(played)) and "wrong-row" not in tags:
        cycle = new_cycle(state, played)
        if cycle is not None and (known or cycle_seen(state, cycle)):
            return tip(TipId.READ_RESERVE)
    if tag is None:
        return ""
    top = state.waste_top  # a turn past the waste's top card: row 1's own tip where it is row 1's suit
    first_row = tag == "turned-past" and top is not None and top // 13 == state.rows[0]
    return tip(topic_for(tag, state, first_row), known, state.rules, last_pass(state))


def _read(prompt: str, echo: bool) -> str | None:
    """A line of input (None at its end); piped lines are echoed without control codes (with --json, as the
    rest of the questions, on stderr). A line that is not UTF-8 text is refused, as in play."""
    from .common import read_line

    return read_line(prompt, echo)


@click.command("drill")
@click.option("--count", type=click.IntRange(1, 100), default=5, show_default=True, metavar="N",
              help="How many due drills to ask this time.")
@click.option("--tag", default=None, metavar="TAG", help="Only drills of one kind of error.")
@click.option("--list", "list_only", is_flag=True, help="List the drills and when each is due; ask nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the answers (or with --list the drills) as JSON.")
@click.pass_context
def drill_command(ctx: click.Context, count: int, tag: str | None, list_only: bool, as_json: bool) -> None:
    """Your own mistakes asked again, with spaced repetition.

    The positions come from your reviewed games, where the review found a
    mistake or a blunder and a clearly better move.

    Answer with a move or a card; h gives a hint, ? help, q stops. Right
    answers come back later and later, wrong ones soon. Review games first (osmosis review or osmosis
    coach) so that there are mistakes to drill.
    """
    from ..history.coach import check_tag

    if tag is not None:
        tag = check_tag(tag)
    from ..history.games import open_history

    console = console_of(ctx)
    symbols = use_symbols(console)
    history = open_history()
    # a history that cannot be written (a read-only file or data folder) still lists the drills it holds, but
    # cannot keep an answer: said before any drill is shown, in one line (its read-only warning said by it)
    problem = history.write_refused()
    if problem is not None and not list_only:
        history.close()
        if "locked" in problem or "busy" in problem:  # another osmosis holds it: no folder to change
            raise HistoryError(f"your history {quoted(history.path)} is being written by another osmosis "
                               f"({problem}), so a drill's answer could not be kept now: run osmosis drill again "
                               "when that one is done (osmosis drill --list shows your drills meanwhile)")
        raise HistoryError(f"your history {quoted(history.path)} cannot be written here ({problem}), so a drill's "
                           "answer could not be kept and none is asked: osmosis drill --list shows your drills "
                           "without writing (to answer them, set OSMOSIS_HOME to a folder you can write to)")
    with opened(history) as history:
        added = 0 if problem is not None else drills.sync_drills(history)
        if list_only:
            return _list(console, history, as_json, tag)
        todo = drills.due(history, count, tag)
        # wrapped at word boundaries for the terminal, with the board's card names (T♦, not TD); with --json
        # the questions go to stderr (as a lesson's do), so the player sees them and stdout holds only the JSON
        say: Callable[[str], None] = lambda text: console.print(prose(text, symbols))  # noqa: E731
        if added and not as_json:
            say(f"{added} new drill{'s' if added != 1 else ''} from your reviewed games.")
        if not todo:
            nxt = drills.next_due(history, tag)
            if as_json:
                click.echo(json.dumps({"asked": 0, "right": 0, "answers": [], "next_due": nxt}))
            elif nxt is None and tag is not None and drills.next_due(history) is not None:
                say(f"No drill of {tag} yet: they come from the mistakes and blunders of your reviewed games "
                    "that carry that tag (osmosis drill without --tag asks the others).")
            elif nxt is None:
                say("No drills yet: they come from the mistakes and blunders of your reviewed games "
                    "(osmosis review RECORD, or osmosis coach).")
            else:
                say(f"No drill is due now; the next one is due {drill_words.when_text(drills.seconds_until(history, nxt))} "
                    f"({nxt}).")
            return
        echo = not sys.stdin.isatty()
        results: list[dict[str, Any]] = []
        with contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext():
            for index, d in enumerate(todo, 1):
                outcome = _ask(console, history, d, index, len(todo), symbols, echo, say)
                if outcome is None:
                    break
                if outcome:
                    results.append(outcome)
        right = sum(r["right"] for r in results)
        nxt = drills.next_due(history, tag)  # of the kind asked for, as the run with nothing due says it
        if as_json:
            click.echo(json.dumps({"asked": len(results), "right": right, "answers": results, "next_due": nxt}))
            return
        say("")
        say(f"{right} of {len(results)} right." + (f" Next drill due {drill_words.when_text(drills.seconds_until(history, nxt))}."
                                                     if nxt else ""))


def _ask(console: Console, history: History, d: drills.Drill, index: int, total: int, symbols: bool, echo: bool,
         say: Callable[[str], None]) -> dict[str, Any] | None:
    """Ask one drill. A dict of the answer; {} if it was retired; None if the player stopped."""
    game = history.game(d.game_id)
    # a retirement is said, as the engine's below is (a drill the list showed as due went without a word)
    if game is None:  # drills belong to their game's row; a history edited by hand may lack it
        drills.retire(history, d, "the game this drill came from is no longer in the history")
        say(f"(Drill {index}: the game it came from is no longer in your history; it is retired.)")
        return {}
    record = record_of(game)

    found = drills.position(record, d)
    rev = drills.drill_review(history, d, record)
    if found is None or rev is None:
        drills.retire(history, d, "the game changed after the review this drill came from")
        say(f"(Drill {index}: move {d.ply} of game {d.game_id} is no longer the one reviewed (moves were taken "
            "back or played another way since); it is retired.)")
        return {}
    reviewed = next((m for m in rev.moves if m.ply == d.ply), None)
    states, moves = found
    state = states[-1]
    tip_text = tip_for(d.tags, state, Move.parse(d.played))
    step = drills.step_for(record, d, tip=tip_text)
    # asked afresh with up to 512 deals where a label is in doubt: seconds, more early in a limited game
    with console.status("Thinking...") if console.is_terminal else contextlib.nullcontext():
        step, verdict = drills.verdict_for_drill(step)
    played = Move.parse(d.played)
    if played in verdict.right or not verdict.scores:
        drills.retire(history, d, f"the {verdict.judge} judge rates {d.played} within its margin of the best")
        say(f"(Drill {index}: the engine, asked again, no longer calls {d.played} a mistake there; it is retired.)")
        return {}
    best = verdict.scores[0]
    # every move the judge accepts is named, so "Right" never comes with another move as the answer
    named = [s for s in verdict.scores if s.move in verdict.right] or [best]
    names = [describe_move(state, s.move) for s in named]
    said = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    # sampled figures, each with its interval and deals, as the hint and the review give them
    shown = [win_text(s).removeprefix("win ") for s in named]
    wins = ", ".join(shown[:-1]) + (" and " if len(shown) > 1 else "") + shown[-1]
    teaches = (f"{said} {'was the move' if len(named) == 1 else 'was right'} here"
               + (f": win {wins}." if verdict.judge == "hint" else
                  f" (with every card seen, the solver's best{'' if len(named) == 1 else ' moves'})."))
    step = replace(step, teaches=teaches)
    say("")
    console.print(drill_words.drill_head(d, game, total, index))
    fan = waste_fan(states, moves)
    console.print(render_state(state, symbols=symbols, fan=fan, moves=False))
    obs = observe(state)
    seen = remembered_talon(memory(obs), fan)  # the talon cards the player had seen, in order, as a lesson shows
    if seen:
        say(seen)
    say(drill_words.drill_intro(d, 52 - len(obs.unseen_cards()), len(obs.unseen_cards()), drills.drop_figure(reviewed)))
    hinted = False
    while True:
        console.print(Text("Find a better move.", style="bold"))
        line = _read("answer (h hint, ? help, q stops)> ", echo)
        if line is None or line.strip().lower() in QUIT:
            return None
        if not line.strip():
            continue
        if line.strip().lower() in HELP:
            say(drill_help(state.rules.reserve_piles))
            continue
        if line.strip().lower() in HINT:
            hinted = True
            say(drill_hint(state, d, tip_text))
            continue
        bad = unreadable_word(line.split(), state.rules.reserve_piles)
        if bad is not None:
            say(clean(bad))
            continue
        try:
            fb = judge_answer(step, line, verdict)
        except MoveError as exc:
            say(clean(str(exc)))
            continue
        if fb.move is None and fb.refusal:  # no move here at all (r3 with no pile 3): asked again, not judged
            say(clean(f"{fb.refusal} Answer with a move this position allows."))
            continue
        break
    after = drills.answer(history, d, line.strip(), fb.right)
    first, *rest = fb.lines
    console.print(prose(first, symbols, style="bold green" if fb.right else "bold red"))
    for text in rest:
        console.print(prose(text, symbols))
    console.print(f"Back {drill_words.when_text(drills.seconds_until(history, after.due_at))} (box {after.box}).",
                  markup=False, style="dim")
    return {"drill": d.id, "game": d.game_id, "ply": d.ply, "answer": line.strip(), "right": fb.right,
            "best": str(verdict.best), "judge": verdict.judge, "box": after.box, "due_at": after.due_at,
            "hinted": hinted, "feedback": list(fb.lines)}


def _drop_figures(history: History, items: list[drills.Drill]) -> dict[int, drills.DropFigure]:
    """Each drill's drop basis (its paired interval and deals) from its game's current review (the one the
    drills are synced from), where it kept one and still has the drill's move at that ply; else nothing."""
    current = reviews(history) if items else {}
    out: dict[int, drills.DropFigure] = {}
    for d in items:
        rev = current.get(d.game_id)
        if rev is None and (game := history.game(d.game_id)) is not None:  # a game played on after its review
            rev = drills.drill_review(history, d, record_of(game), current)
        m = next((m for m in rev.moves if m.ply == d.ply), None) if rev is not None else None
        out[d.id] = drills.drop_figure(m if m is not None and m.move == d.played else None)
    return out


def _lost_cell(d: drills.Drill, fig: drills.DropFigure | None) -> str:
    return words.lost_cell(d.drop, fig.interval if fig is not None else None, fig is not None and fig.exact)


def _figure_json(d: drills.Drill, fig: drills.DropFigure | None) -> dict[str, Any]:
    """The drill list's JSON beside ``drop``: its 95% interval in points (one value when exact) and its deals,
    None where the review did not keep them."""
    if fig is None:
        return {"drop_interval": None, "drop_samples": None, "drop_exact": False}
    interval = fig.interval if fig.interval is not None else (d.drop, d.drop) if fig.exact else None
    return {"drop_interval": [round(x, 1) for x in interval] if interval is not None else None,
            "drop_samples": fig.samples, "drop_exact": fig.exact}


def _list(console: Console, history: History, as_json: bool, tag: str | None = None) -> None:
    """Every drill (``tag``: of that kind only), as a table or JSON."""
    items = [d for d in drills.all_drills(history) if tag is None or tag in d.tags]
    figures = _drop_figures(history, items)
    if as_json:
        click.echo(json.dumps([d.to_json() | _figure_json(d, figures.get(d.id)) for d in items]))
        return
    if not items:
        if tag is not None and drills.all_drills(history):  # as a --tag run with none of that kind says it
            console.print(f"No drill of {tag} yet: they come from the mistakes and blunders of your reviewed games "
                          "that carry that tag (osmosis drill --list without --tag lists the others).",
                          soft_wrap=True)
        else:
            console.print("No drills yet.", soft_wrap=True)
        return
    from ..table import Table

    # one space between columns: the ten fit 80 columns; no cell or heading is broken inside (several tags
    # go one a line), and a narrower terminal gets each drill as a record of its own (tutor.table.Table)
    table = Table(box=None, pad_edge=False, header_style="bold", collapse_padding=True)
    for col in ("drill", "game id", "move", "played", "best", "lost", "tags", "box", "answers", "due"):
        table.add_column(col, no_wrap=True)
    for d in items:
        # stored text shown without control codes, and never read as markup (an older import checked less)
        table.add_row(str(d.id), str(d.game_id), str(d.ply), Text(clean(d.played)), Text(clean(d.best)),
                      _lost_cell(d, figures.get(d.id)), Text("\n".join(clean(t) for t in d.tags) or words.tags_text(d.tags)), str(d.box), f"{d.right}/{d.answers}",
                      drill_words.when_text(drills.seconds_until(history, d.due_at)))
    console.print(table)
    note = words.deals_note([f.samples for f in (figures.get(d.id) for d in items)
                             if f is not None and not f.exact and f.interval is not None])
    if note:
        console.print(Text(note, style="dim"))
