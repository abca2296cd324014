"""The report of ``osmosis review`` as rich renderables: result, accuracy, chart, moments, labelled moves.

The render layer's part of the review command, kept apart from the command
(it moves under render/ when render becomes a package; the board's replay
draws the same chart). The words of each comment and moment come from
:mod:`tutor.narrate.review`, already in the :class:`~tutor.review.Review`.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from ..narrate.play import plural
from ..narrate.review import UNSEEN_WARNING
from ..notation import Move
from ..render import card_text, prose
from ..review import Label, MomentKind, MoveReview, Review, move_accuracy
from ..review.facts import Decided, Grade
from ..review.values import Moment
from ..table import Table

__all__ = ["chart", "counts_line", "moves_table", "moments_table", "render_review", "result_line",
           "LABEL_STYLES", "MARKS", "LEGEND", "practical_block"]

WELL_PLAYED = 40  # the same mark as in play (tutor.narrate.play.WELL_PLAYED)
SPARKS = "▁▂▃▄▅▆▇█"
LABEL_STYLES = {Label.BEST: "green", Label.GOOD: "cyan", Label.INACCURACY: "yellow",
                Label.MISTAKE: "dark_orange", Label.BLUNDER: "bold red"}


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def chance_text(win: float, interval: tuple[float, float] | None, exact: bool) -> str:
    """A win chance with its 95% interval, as the review prints it (``30% (95%: 20-42%)``), alone where exact
    (the game's result, every consistent deal) or where its interval was not kept."""
    if exact or interval is None or interval[0] == interval[1]:
        return _pct(win)
    return f"{_pct(win)} (95%: {interval[0] * 100:.0f}-{interval[1] * 100:.0f}%)"


def _swing_cell(c: Moment) -> str:
    """``30% (95%: 20-42%)`` over ``-> 59% (95%: 47-71%)``; one line where neither figure has an interval."""
    before = chance_text(c.before, c.before_interval, c.exact_before)
    after = chance_text(c.after, c.after_interval, c.exact_after)
    return f"{before} -> {after}" if "(" not in before + after else f"{before}\n-> {after}"


def _move_cell(move: Move, card: int | None, symbols: bool) -> Text:
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
        text.append(f"{cards} card{'' if cards == 1 else 's'} on the foundations")
        over = rev.over
        text.append(", the game was blocked" if over else ", the game was not finished")
        text.append(f" (well played: {WELL_PLAYED} or more)." if over and cards >= WELL_PLAYED else ".")  # a lost game's mark
        if rev.reveals_unseen():
            text.append(f" {UNSEEN_WARNING}", style="yellow")
    return text


#: One cell per move in the chart's marker line: the chess glyphs ?! ? ?? as single characters.
MARKS = {Label.INACCURACY: "⁈", Label.MISTAKE: "?", Label.BLUNDER: "⁇"}
LEGEND = ("▁ 0%  █ 100%", "win chance", "after each move;", "⁈ inaccuracy (?!),", "? mistake,", "⁇ blunder (??),",
          "+/- luck")
#: The marks where the output cannot show ⁈ and ⁇ (ASCII): one cell each still, so every mark stays under
#: its move (their two-letter stand-ins ?! and ?? pushed every later mark a column to the right).
ASCII_MARKS = {Label.INACCURACY: "i", Label.MISTAKE: "?", Label.BLUNDER: "X"}
ASCII_LEGEND = ("1 0%  8 100%", "win chance", "after each move;", "i inaccuracy (?!),", "? mistake,",
                "X blunder (??),", "+/- luck")


def chart(rev: Review, width: int = 80, cursor: int | None = None, ascii_only: bool = False) -> Text:
    """The win chance after each move as a sparkline, rows of up to ``width - 8`` moves.

    Under each row a marker line: the chess glyph of each error (``⁈`` an
    inaccuracy, ``?`` a mistake, ``⁇`` a blunder: ?!, ?, ?? in one cell each),
    ``+``/``-`` luck from cards turning up. ``cursor`` (a move number, 0 for
    the start) puts a ``▲`` under that move, on a line of its own. ``ascii_only``: the output cannot show
    the glyphs, so the marks are :data:`ASCII_MARKS` (the sparkline's blocks become digits, one each).
    """
    marked, legend = (ASCII_MARKS, ASCII_LEGEND) if ascii_only else (MARKS, LEGEND)
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
            if m.label >= Label.INACCURACY:
                marks.append(marked[m.label], style=LABEL_STYLES[m.label])
            elif m.luck is not None and abs(m.luck) * 100 >= rev.thresholds.luck:
                marks.append("+" if m.luck > 0 else "-", style="dim")
            else:
                marks.append(" ")
        if marks.plain.strip():
            marks.rstrip()
            out.append_text(marks)
            out.append("\n")
        if cursor is not None and start < max(cursor, 1) <= start + len(chunk):
            at = 7 + max(cursor, 1) - 1 - start  # the marker's column
            label = f"move {cursor}" if cursor else "the start"
            if at + 2 + len(label) <= width:  # the label after the marker, or before it where it would be cut
                out.append(" " * at)
                out.append(f"▲ {label}", style="bold")
            else:
                out.append(" " * max(0, at - len(label) - 1))
                out.append(f"{label} ▲", style="bold")
            out.append("\n")
    line = ""
    for item in legend:  # each item whole on a line: a glyph never parts from its word
        if line and len(line) + 1 + len(item) > max(20, width - 7):
            out.append("       " + line + "\n", style="dim")
            line = ""
        line = f"{line} {item}" if line else item
    out.append("       " + line, style="dim")
    return out


#: Why a game can have no graded move, for the accuracy line that then rates nothing.
UNRATED = "each one was forced, a free play, or in a position already lost whatever the move"


def counts_line(rev: Review, width: int = 200) -> Text:
    """``82 moves: 34 graded (30 best, 0 good, 2 inaccuracies ?!, ...); 34 forced and 14 free moves not graded``.

    The label counts are of the graded moves only, so they add up to the
    graded count; forced moves, free plays and moves in a position already
    decided are counted apart. Lines break between the counts, never between
    a count and its glyph.
    """
    counts = rev.graded_counts
    forced, free = counts["forced"], counts["free"]
    items = [Text(f"{plural(len(rev.moves), 'move')}: {rev.graded} graded", style="bold")]
    for i, label in enumerate(Label):
        n = counts[str(label)]
        word = str(label) if n == 1 or label in (Label.BEST, Label.GOOD) else (
            "inaccuracies" if label == Label.INACCURACY else f"{label}s")
        item = Text("(" if i == 0 else "")
        item.append(f"{n} {word}" + (f" {label.glyph}" if label.glyph else ""), style=LABEL_STYLES[label])
        item.append(")" if label == Label.BLUNDER else ",")
        items.append(item)
    # the moves counted apart, each named only when there are some (a "0 free" says nothing)
    apart = [(n, word) for n, word in ((forced, "forced"), (free, "free"), (counts["decided"], "already decided")) if n]
    if apart:
        named = [f"{n} {word}" for n, word in apart]
        names = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        items[-1].append(";")
        items.append(Text(f"{names} move{'' if apart[-1][0] == 1 else 's'} not graded", style="dim"))
    out = Text()
    line = 0
    for item in items:
        if line and line + 1 + len(item.plain) > width:
            out.append("\n")
            line = 0
        elif line:
            out.append(" ")
            line += 1
        out.append_text(item)
        line += len(item.plain)
    return out


def moves_table(rev: Review, symbols: bool, width: int = 100) -> Table | Text | Group:
    """The labelled moves: inaccuracies and worse, and every tagged move.

    From 100 columns a table; narrower, one block a move (a heading line,
    then the why in full lines), so the why never shrinks to a sliver.
    """
    rows = [m for m in rev.moves if m.label >= Label.INACCURACY or m.tags]
    if not rows and not rev.graded:
        return Text("No move was graded (each was forced, a free play or already decided), so none is labelled.",
                    style="dim")
    if not rows:
        good = rev.graded_counts[str(Label.GOOD)]
        if not good:
            return Text("No inaccuracy, mistake or blunder: every graded move kept the best chance.",
                        style="green")
        return Text(f"No inaccuracy, mistake or blunder: {plural(good, 'graded move')} "
                    f"{'was' if good == 1 else 'were'} good (perhaps a little below the best, never surely "
                    f"{rev.thresholds.inaccuracy:g} points or more), and every other graded move kept the best "
                    "chance.", style="green")
    states = list(rev.states) or rev.record.states()

    def cells(m: MoveReview) -> tuple[Text, Text]:
        state = states[m.ply - 1]
        label = Text(str(m.label) + (f" {m.label.glyph}" if m.label.glyph else ""), style=LABEL_STYLES[m.label])
        better = (_move_cell(m.best, state.card_of(m.best), symbols) if m.best != m.move else Text("-"))
        return label, better

    if width < 100:
        blocks: list[RenderableType] = []
        for m in rows:
            label, better = cells(m)
            head = Text(f"Move {m.ply}  ", style="bold")
            head.append_text(_move_cell(m.move, m.card, symbols))
            head.append("  ")
            head.append_text(label)
            head.append(f"  win {_pct(m.win_after)} / {_pct(m.win_before)}")
            if m.best != m.move:
                head.append("  better ")
                head.append_text(better)
            if m.tags:
                head.append("  [" + ", ".join(m.tags) + "]", style="dim")
            if m.only_move:
                head.append("  only move (hindsight)", style="dim")
            blocks += [head, Padding(prose(m.comment, symbols), (0, 0, 0, 2))]
        return Group(*blocks)
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=False)
    table.add_column("move", justify="right")
    table.add_column("played")
    table.add_column("label")
    table.add_column("win", justify="right")
    table.add_column("better")
    table.add_column("why", ratio=1)
    for m in rows:
        label, better = cells(m)
        if m.tags:
            label.append("\n" + ", ".join(m.tags), style="dim")
        if m.only_move:
            label.append("\nonly move (hindsight)", style="dim")
        table.add_row(str(m.ply), _move_cell(m.move, m.card, symbols), label,
                      f"{_pct(m.win_after)} / {_pct(m.win_before)}", better, prose(m.comment, symbols))
    return table


def moments_table(rev: Review, symbols: bool = False) -> Table | Text | Group:
    if not rev.critical:
        return Text("No big swings in the win chance.", style="dim")
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("move", justify="right")
    table.add_column("kind")
    table.add_column("win chance")
    table.add_column("what")
    for c in rev.critical:
        table.add_row(str(c.ply), Text(str(c.kind), style="red" if c.kind is MomentKind.ERROR else "cyan"),
                      _swing_cell(c), prose(c.text, symbols))
    note = _moments_basis(rev)
    return table if note is None else Group(table, Text(note, style="dim"))


def _moments_basis(rev: Review) -> str | None:
    """Where an error's win chances rest on more deals (drawn while its label was in doubt) than the luck rows
    beside it (the deals every move of a position shares), why one position can read differently in two rows
    (the chance after move 3's cards read 52%, before move 4 on its 512 deals 46%)."""
    by_ply = {m.ply: m for m in rev.moves}
    # luck after move p - 1 ends at the position move p starts from, luck after move p starts from its after
    luck = {c.ply for c in rev.critical if c.kind is MomentKind.LUCK}
    wide = [(c.ply, by_ply[c.ply]) for c in rev.critical
            if c.kind is MomentKind.ERROR and c.ply in by_ply and by_ply[c.ply].shared and luck & {c.ply - 1, c.ply}]
    if not wide:
        return None
    drawn = "; ".join(f"{m.samples} at move {ply}" for ply, m in wide)
    shared = sorted({m.shared for _, m in wide})
    return (f"An error's win chances rest on the deals drawn to settle its label ({drawn}), the luck on the "
            f"{' or '.join(map(str, shared))} deals a position's moves share, so one position can read "
            "differently in two rows: two estimates of it, on different deals.")


def practical_block(rev: Review, symbols: bool = False) -> list[RenderableType]:
    """The practical win chances at the error moments (``--practical N``): a heading and a line each."""
    from ..narrate.review import PRACTICAL_HEADING

    out: list[RenderableType] = [Text(PRACTICAL_HEADING, style="bold")]
    shown = [c for c in rev.critical if c.practical is not None]
    if not shown:
        out.append(Text("No error among the critical moments, so nothing was played out.", style="dim"))
    for c in shown:
        line = Text(f"Move {c.ply}: ", style="bold")
        line.append_text(prose(c.practical_text, symbols))
        out.append(line)
    return out


def render_review(rev: Review, symbols: bool = True, width: int = 80, ascii_only: bool = False) -> Group:
    """The whole report as one rich renderable."""
    record = rev.record
    where = f"deal {record.deal.number}" if record.deal.number is not None else "a deal given in full"
    head = Text()
    head.append(f"Review of {where}", style="bold")
    n = len(record.moves)
    head.append(f", {record.rules.describe()}: {n} move{'' if n == 1 else 's'}.")
    hind = prose(rev.hindsight.verdict(), symbols)
    acc = Text()
    acc.append("Accuracy: ", style="bold")
    if not n:  # a record with no move: nothing to grade, chart or label
        return Group(head, result_line(rev), hind, acc.append("not rated", style="bold").append(": no move was played."))
    if not rev.rated:
        acc.append("not rated", style="bold")
        acc.append(f": no move of this game was graded ({UNRATED}; win chances from what you could see: "
                   f"{rev.sampling_text()}).")
    else:
        acc.append(f"{rev.accuracy:.1f}", style="bold")
        acc.append(f" / 100{rev.accuracy_ci_text()} over {plural(rev.graded, 'graded move')} "
                   "(how the figures are made: at the end).")
    parts: list[RenderableType] = [head, result_line(rev), hind, acc, counts_line(rev, width), Text(""),
             Text("Win chance, move by move", style="bold"), chart(rev, width, ascii_only=ascii_only), Text(""),
             Text("Critical moments", style="bold"), moments_table(rev, symbols), Text("")]
    if rev.practical is not None:
        parts += practical_block(rev, symbols) + [Text("")]
    t = rev.thresholds
    parts.append(Text("Labelled moves (win: played / best)", style="bold"))
    if any(m.label >= Label.INACCURACY for m in rev.moves):
        parts.append(Text(f"A label goes by the low end of the drop's 95% interval (inaccuracy from {t.inaccuracy:g} "
                   f"point{'' if t.inaccuracy == 1 else 's'}, mistake from {t.mistake:g}, blunder from {t.blunder:g}), "
                   f"so a move called a mistake lost at least {t.mistake:g} point{'' if t.mistake == 1 else 's'} "
                   "with 95% confidence.", style="dim"))
    parts.append(moves_table(rev, symbols, width))
    parts += fewer_cards_block(rev, symbols)
    if rev.rated:
        parts += [Text(""), Text("How the figures are made", style="bold"), Text(
            f"Accuracy follows Lichess's formula: a move that loses no points against the best scores 100, one that "
            f"loses 1 point {move_accuracy(1):.0f} and one that loses 10 points {move_accuracy(10):.0f}, so one big "
            f"error pulls a game down hard; its interval comes from each move's drop interval. Win chances come from "
            f"what you could see: {rev.sampling_text()}.", style="dim")]
    return Group(*parts)


def fewer_cards_block(rev: Review, symbols: bool = False) -> list[RenderableType]:
    """The moves where no move won and another one places more cards: in a lost decided position (not
    graded), or graded best where no sampled deal was won by any move and the two moves' 95% intervals for
    the cards lie apart (the ``--tutor`` question's rule). A heading and a line each; none when there is none."""
    from ..narrate.review import more_cards_sentence, sure_cards_sentence

    states = list(rev.states) or rev.record.states()
    lines: list[RenderableType] = []
    for m in rev.moves:
        fact = m.facts.grade if m.facts is not None else None
        state = states[m.ply - 1]
        said = (more_cards_sentence(state, fact) if isinstance(fact, Decided)
                else sure_cards_sentence(state, fact) if isinstance(fact, Grade) else None)
        if said is not None:
            line = Text(f"Move {m.ply}, ", style="bold")
            line.append_text(_move_cell(m.move, m.card, symbols))
            line.append(": ")
            line.append_text(prose(said, symbols))
            lines.append(line)
    if not lines:
        return []
    return [Text(""), Text("Fewer cards placed where no move won in any deal scored (the result is the same, so these moves "
                           "lose no grade; the cards are the score of a lost game)", style="bold"), *lines]
