"""``osmosis review``: the post-game review of a game record, as a report or JSON.

The report: the result, the hindsight verdict (labelled as such), the
accuracy and the count of each label, a chart of the win chance move by
move, the critical moments (the player's errors and the cards' luck), and a
table of the labelled moves with what was better and why. ``--annotate``
writes the record with each move's label, tags and comment.
"""

from __future__ import annotations

import json

import click
from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ..record import Record, load_record, save_record
from ..render import card_text, use_symbols
from ..review import DEFAULT_SAMPLES, DEFAULT_THRESHOLDS, Label, Review, Thresholds, review
from . import console_of, main

WELL_PLAYED = 40
SPARKS = "▁▂▃▄▅▆▇█"
LABEL_STYLES = {Label.BEST: "green", Label.GOOD: "cyan", Label.INACCURACY: "yellow",
                Label.MISTAKE: "dark_orange", Label.BLUNDER: "bold red"}


class ThresholdsType(click.ParamType):
    """``5,10,15``: inaccuracy, mistake and blunder thresholds in win-chance points."""

    name = "a,b,c"

    def convert(self, value, param, ctx) -> Thresholds:
        if isinstance(value, Thresholds):
            return value
        return Thresholds.parse(value)  # a bad value is an input error (exit 1)


def compute_review(console: Console, record: Record, samples: int | None = DEFAULT_SAMPLES,
                   thresholds: Thresholds = DEFAULT_THRESHOLDS, workers: int | None = None,
                   quiet: bool = False) -> Review:
    """Run the review, with a progress bar on a terminal (quiet in pipes)."""
    if quiet or not console.is_terminal:
        return review(record, samples=samples, thresholds=thresholds, workers=workers)
    with Progress(TextColumn("Reviewing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("review", total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return review(record, samples=samples, thresholds=thresholds, workers=workers, progress=tick)


def run_review(ctx_or_console, record: Record, samples: int | None = DEFAULT_SAMPLES,
               thresholds: Thresholds = DEFAULT_THRESHOLDS) -> Review:
    """Review a record and print the report (for the end of ``osmosis play``)."""
    console = ctx_or_console if isinstance(ctx_or_console, Console) else console_of(ctx_or_console)
    rev = compute_review(console, record, samples, thresholds)
    console.print(render_review(rev, use_symbols(console), width=console.width))
    return rev


def review_after_play(ctx, record: Record) -> Review:
    """The review offered at the end of ``osmosis play``."""
    return run_review(ctx, record)


def annotate_for_replay(ctx_or_console, record: Record, samples: int | None = DEFAULT_SAMPLES) -> Record:
    """The record with the review's label, tags and comment on each move (for ``osmosis replay --review``).

    A record that already carries annotations keeps them; otherwise the review
    is computed (with a progress bar on a terminal) and its verdict printed.
    """
    if any(note is not None for note in record.annotations):
        return record
    console = ctx_or_console if isinstance(ctx_or_console, Console) else console_of(ctx_or_console)
    rev = compute_review(console, record, samples)
    console.print(rev.hindsight.verdict())
    console.print(f"Accuracy {rev.accuracy:.1f} / 100 over {rev.graded} graded moves.")
    return rev.annotated()


# ---- the report ------------------------------------------------------------

def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _move_cell(move, card, symbols: bool) -> Text:
    text = Text(str(move))
    if card is not None:
        text.append(" ")
        text.append_text(card_text(card, symbols))
    return text


def result_line(rev: Review) -> Text:
    cards, won = rev.result["cards"], rev.result["won"]
    text = Text()
    text.append("Result: ", style="bold")
    if won:
        text.append("won, all 52 cards on the foundations.", style="green")
    else:
        text.append(f"{cards} cards on the foundations")
        final = rev.record.replay()
        text.append(", the game was blocked" if final.over else ", the game was not finished")
        text.append(" (well played: 40 or more)." if cards >= WELL_PLAYED else ".")
    return text


def chart(rev: Review, width: int = 80) -> Text:
    """The win chance after each move as a sparkline, rows of up to ``width - 8`` moves.

    Under each row a marker line: ``?`` an error (inaccuracy or worse, ``!``
    for a blunder), ``+``/``-`` luck from cards turning up.
    """
    per_row = max(10, width - 8)
    out = Text()
    moves = rev.moves
    for start in range(0, len(moves), per_row):
        chunk = moves[start:start + per_row]
        out.append(f"{start + 1:>5}  ", style="dim")
        for m in chunk:
            level = min(len(SPARKS) - 1, int(m.win_after * (len(SPARKS) - 1) + 0.5))
            out.append(SPARKS[level], style=LABEL_STYLES[m.label] if m.label >= Label.INACCURACY else "green")
        out.append("\n")
        marks = Text("       ")
        for m in chunk:
            if m.label >= Label.BLUNDER:
                marks.append("!", style="bold red")
            elif m.label >= Label.INACCURACY:
                marks.append("?", style=LABEL_STYLES[m.label])
            elif m.luck is not None and abs(m.luck) * 100 >= rev.thresholds.luck:
                marks.append("+" if m.luck > 0 else "-", style="dim")
            else:
                marks.append(" ")
        if marks.plain.strip():
            marks.rstrip()
            out.append_text(marks)
        out.append("\n")
    out.append("       ▁ 0%  █ 100% win chance after each move; ? error, ! blunder, +/- luck", style="dim")
    return out


def counts_line(rev: Review) -> Text:
    counts = rev.counts
    text = Text()
    for i, label in enumerate(Label):
        if i:
            text.append(", ")
        text.append(f"{counts[str(label)]} {label}", style=LABEL_STYLES[label])
    forced = sum(1 for m in rev.moves if m.forced)
    free = sum(1 for m in rev.moves if not m.graded and not m.forced)
    text.append(f" ({rev.graded} graded; {forced} forced and {free} free plays not graded)", style="dim")
    return text


def moves_table(rev: Review, symbols: bool) -> Table | Text:
    """The labelled moves: inaccuracies and worse, and every tagged move."""
    rows = [m for m in rev.moves if m.label >= Label.INACCURACY or m.tags]
    if not rows:
        return Text("No inaccuracy, mistake or blunder: every graded move kept the best chance.",
                    style="green")
    states = rev.record.states()
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=False)
    table.add_column("ply", justify="right")
    table.add_column("played")
    table.add_column("label")
    table.add_column("win", justify="right")
    table.add_column("better")
    table.add_column("why", ratio=1, overflow="fold")
    for m in rows:
        state = states[m.ply - 1]
        label = Text(str(m.label) + (f" {m.label.glyph}" if m.label.glyph else ""), style=LABEL_STYLES[m.label])
        if m.tags:
            label.append("\n" + ", ".join(m.tags), style="dim")
        better = (_move_cell(m.best, state.card_of(m.best), symbols) if m.best != m.move
                  else Text("-"))
        table.add_row(str(m.ply), _move_cell(m.move, m.card, symbols), label,
                      f"{_pct(m.win_after)} / {_pct(m.win_before)}", better, m.comment)
    return table


def moments_table(rev: Review) -> Table | Text:
    if not rev.critical:
        return Text("No big swings in the win chance.", style="dim")
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("ply", justify="right")
    table.add_column("kind")
    table.add_column("win chance")
    table.add_column("what", overflow="fold")
    for c in rev.critical:
        table.add_row(str(c.ply), Text(c.kind, style="red" if c.kind == "error" else "cyan"),
                      f"{_pct(c.before)} -> {_pct(c.after)}", c.text)
    return table


def render_review(rev: Review, symbols: bool = True, width: int = 80) -> Group:
    """The whole report as one rich renderable."""
    record = rev.record
    where = f"deal {record.deal.number}" if record.deal.number is not None else "a deal given in full"
    head = Text()
    head.append(f"Review of {where}", style="bold")
    head.append(f", {record.rules.describe()}: {len(record.moves)} moves.")
    hind = Text()
    hind.append(rev.hindsight.verdict())
    acc = Text()
    acc.append("Accuracy: ", style="bold")
    acc.append(f"{rev.accuracy:.1f}", style="bold")
    acc.append(f" / 100 over {rev.graded} graded moves (win chances from what you could see: "
               f"{rev.sampling_text()}).")
    parts = [head, result_line(rev), hind, acc, counts_line(rev), Text(""),
             Text("Win chance, move by move", style="bold"), chart(rev, width), Text(""),
             Text("Critical moments", style="bold"), moments_table(rev), Text(""),
             Text("Labelled moves (win: played / best)", style="bold"), moves_table(rev, symbols)]
    return Group(*parts)


# ---- the command -----------------------------------------------------------

@main.command("review")
@click.argument("record_path", metavar="RECORD")
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON (spec section 4).")
@click.option("--annotate", "annotate_path", metavar="OUT", default=None,
              help="Write the record with each move's label, tags and comment to OUT.")
@click.option("--samples", type=click.IntRange(1, 1000), default=DEFAULT_SAMPLES, show_default=True,
              metavar="K", help="Sampled deals per move, shared through the game (a label in doubt draws "
              "up to eight times as many); more is slower and steadier.")
@click.option("--thresholds", type=ThresholdsType(), default="5,10,15", show_default=True,
              help="Inaccuracy, mistake and blunder thresholds in win-chance points.")
@click.option("--workers", type=click.IntRange(1, 64), default=None, metavar="N",
              help="Processes for grading (default: up to 2).")
@click.pass_context
def review_command(ctx: click.Context, record_path: str, as_json: bool, annotate_path: str | None,
                   samples: int, thresholds: Thresholds, workers: int | None) -> None:
    """Review a finished game: every move graded from what you could see, plus hindsight.

    Labels by the drop in win chance from the best move: best, good,
    inaccuracy, mistake, blunder. Hindsight (every card known) says whether
    the deal was winnable and at which move the win was lost.
    """
    record = load_record(record_path)
    console = console_of(ctx)
    rev = compute_review(console, record, samples, thresholds, workers, quiet=as_json)
    if annotate_path:
        annotated = rev.annotated()
        save_record(annotated, annotate_path)
    if as_json:
        click.echo(json.dumps(rev.to_json(), ensure_ascii=False))
        return
    console.print(render_review(rev, use_symbols(console), width=console.width))
    if annotate_path:
        console.print(f"Annotated record written to {annotate_path} (osmosis replay {annotate_path} shows it).")

