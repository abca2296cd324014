"""Words and drawings for the history, the coach and the drills (rich renderables and sentences).

The library (:mod:`tutor.history`) returns values; this module alone turns
them into what the player reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from rich.console import Group, JustifyMethod
from rich.padding import Padding
from rich.text import Text

from ..cards import NAMES
from ..table import Table
from ..textsafe import clean, shell_word, shown_path

Columns = tuple[tuple[str, JustifyMethod], ...]  # a table's column titles and how each is aligned

BLOCKS = " ▁▂▃▄▅▆▇█"


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else f"{n} {word}s"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.0f}%"


def variant_label(variant: str) -> str:
    """A stored variant (a preset name, or options as JSON) in a few words."""
    if not variant.startswith("{"):
        return variant
    try:
        opts = json.loads(variant)
    except json.JSONDecodeError:
        return variant
    return options_label(opts.get("turn", 3), opts.get("passes") or 0, opts.get("reserve_piles", 4),
                         bool(opts.get("open_reserve")))


def options_label(turn: object, passes: object, piles: object, open_reserve: bool) -> str:
    """Rule options in a few words: ``turn 1, 3 passes, 4 piles``, ``turn 3, 1 pass, no reserve``."""
    count = f"{'unlimited' if not passes else passes} pass{'' if passes == 1 else 'es'}"
    reserve = ("no reserve" if piles == 0 else
               f"{piles} pile{'' if piles == 1 else 's'}{', open' if open_reserve else ''}")
    return f"turn {turn}, {count}, {reserve}"


def deal_label(deal: int | None) -> str:
    return str(deal) if deal is not None else "file"


def deal_column(width: int) -> dict[str, Any]:
    """A table column for deal numbers: never cut or broken over two lines (a 20-digit PySolFC number misread
    as another), at least ``width`` wide, so the other columns give way."""
    return {"no_wrap": True, "min_width": max(width, 4), "overflow": "fold"}


def rate_text(fig) -> str:
    """``2 of 5 won (40%; 95% interval 12-77%)``, of the finished games (an unfinished one can still be won)."""
    if not fig.games:
        return "no games"
    open_ = fig.games - fig.finished
    if fig.interval is None:
        return f"no finished game yet ({open_} unfinished)"
    lo, hi = fig.interval
    return (f"{fig.wins} of {fig.finished}{' finished' if open_ else ''} won ({_pct(fig.win_rate)}; 95% interval "
            f"{lo * 100:.0f}-{hi * 100:.0f}%){f', {open_} unfinished' if open_ else ''}")


def _over_all(fig) -> str:
    """Where the win rate is of the finished games only, the cards are of all of them: said, not left to guess."""
    return f" over all {fig.games}" if fig.games > fig.finished and fig.finished else ""


def figures_line(title: str, fig) -> Text:
    text = Text()
    text.append(f"{title}: ", style="bold")
    text.append(rate_text(fig))
    if fig.games:
        text.append(f", {fig.mean_cards:.1f} cards on average{_over_all(fig)}")
    if fig.rated:
        # rated: reviewed with a graded move (a review where every move was forced or decided rates nothing),
        # so the coach's count of reviewed games can be larger
        text.append(f", accuracy {fig.accuracy:.1f}{_ci(getattr(fig, 'accuracy_interval', None))} over "
                    f"{_plural(fig.rated, 'rated game')}")
    text.append(".")
    return text


def streak_text(streaks) -> str:
    if streaks.current == 0:
        return "Streaks: no finished game yet."
    now = (f"{streaks.current} win{'s' if streaks.current != 1 else ''} in a row" if streaks.current > 0
           else f"{-streaks.current} loss{'es' if streaks.current != -1 else ''} in a row")
    return (f"Streaks: now {now}; longest run of wins {streaks.longest_wins}, of losses {streaks.longest_losses} "
            "(finished games).")


def accuracy_chart(series, height: int = 5, width: int = 80) -> Text:
    """The accuracy of each reviewed game, oldest left, as columns of blocks (0-100)."""
    values = [a for _, _, a in series][-max(10, width - 8):]
    out = Text()
    for row in range(height, 0, -1):
        top = 100 * row / height
        step = 100 / height
        out.append(f"{top:>4.0f} ", style="dim")
        for v in values:
            filled = (v - (top - step)) / step
            level = max(0, min(len(BLOCKS) - 1, int(round(filled * (len(BLOCKS) - 1)))))
            out.append(BLOCKS[level], style="green" if v >= 80 else "yellow" if v >= 50 else "red")
        out.append("\n")
    out.append(f"     {'^' if values else ''} oldest of {_plural(len(values), 'rated game')}, newest right",
               style="dim")
    return out


def render_summary(s, width: int = 80, variant: str | None = None) -> Group:
    """``osmosis history``: figures overall, of the last N, per variant; streaks; accuracy; recent games."""
    parts: list = []
    if not s.all.games:
        if variant is not None:
            how = f"--variant {variant}" if not variant.startswith("{") else "those options"
            return Group(Text(f"No games of {variant_label(variant)} in your history yet: play one with osmosis "
                              f"play {how} (osmosis history without --variant shows the others)."))
        return Group(Text("No games in your history yet: play one with osmosis play "
                          "(or bring records in with osmosis import FILE)."))
    parts.append(figures_line("All games", s.all))
    if s.last.games < s.all.games:
        parts.append(figures_line(f"Last {s.last.games}", s.last))
    parts.append(Text(streak_text(s.streaks)))
    if s.variants:
        table = Table(box=None, pad_edge=False, header_style="bold", title_justify="left")
        columns: Columns = (("variant", "left"), ("games", "right"), ("won", "right"), ("of finished (95%)", "right"),
                            ("cards", "right"), ("accuracy", "right"))
        for col, just in columns:
            table.add_column(col, justify=just)
        for name, fig in s.variants.items():
            lo, hi = fig.interval or (0.0, 0.0)
            table.add_row(variant_label(name), str(fig.games), str(fig.wins),
                          f"{_pct(fig.win_rate)} ({lo * 100:.0f}-{hi * 100:.0f}%)" if fig.interval else "-",
                          f"{fig.mean_cards:.1f}",
                          f"{fig.accuracy:.1f} ({fig.rated})" if fig.accuracy is not None else "-")
        parts += [Text(""), table]
    parts.append(Text(""))
    if s.accuracy_series:
        parts.append(Text("Accuracy over time (each column a rated game: reviewed, with a graded move)", style="bold"))
        parts.append(accuracy_chart(s.accuracy_series, width=width))
    else:
        parts.append(Text("Accuracy over time: no rated game yet (a review rates a game once it grades a move; "
                          "osmosis coach reviews your games).", style="dim"))
    parts.append(Text(""))
    parts.append(Text("Recent games (newest first)", style="bold"))
    table = Table(box=None, pad_edge=False, header_style="bold")
    recent: Columns = (("id", "right"), ("played (UTC)", "left"), ("deal", "right"), ("variant", "left"),
                       ("moves", "right"), ("cards", "right"), ("result", "left"), ("accuracy", "right"))
    deal_width = max((len(deal_label(g.deal)) for g in s.recent), default=4)
    for col, just in recent:  # a deal number of 20 digits stays whole on one line: the other columns give way
        table.add_column(col, justify=just, **deal_column(deal_width) if col == "deal" else
                         {"no_wrap": True, "min_width": 16} if col.startswith("played") else {})
    for g in s.recent:
        result = Text("won", style="green") if g.won else Text("lost" if g.over else "unfinished",
                                                               style="" if g.over else "dim")
        table.add_row(str(g.id), g.played_at.replace("T", " ").rstrip("Z")[:16], deal_label(g.deal),
                      variant_label(g.variant), str(g.moves), str(g.cards), result,
                      _accuracy_cell(g.accuracy, g.accuracy_interval))
    parts.append(table)
    # a newcomer copied id 3 into `osmosis review 3` and got another game: the two numberings said apart
    parts.append(Text("id: the game's number in your history (coach and drill name games by it); osmosis review N "
                      "and replay N take the numbers of osmosis games instead.", style="dim"))
    return Group(*parts)


def _ci(interval: tuple[float, float] | None) -> str:
    """`` (95%: 74.1-78.3)``, or nothing when there is no interval or it has one value."""
    places = None if interval is None else _apart(*interval, 1)
    if interval is None or places is None:
        return ""
    return f" (95%: {interval[0]:.{places}f}-{interval[1]:.{places}f})"


def _apart(lo: float, hi: float, places: int) -> int | None:
    """Decimal places, ``places`` or more, that show two different ends apart (99.6-100.0 is not "100-100":
    an interval that rounds to one value would read as certain); None for ends equal to 3 places."""
    while round(lo, places) == round(hi, places):
        if places >= 3:
            return None
        places += 1
    return places


def _accuracy_cell(accuracy: float | None, interval: tuple[float, float] | None) -> str:
    """``52.1 (50-52)``: a game's accuracy with its 95% interval in whole points (``-`` when not rated)."""
    if accuracy is None:
        return "-"
    places = None if interval is None else _apart(*interval, 0)
    if interval is None or places is None:
        return f"{accuracy:.1f}"
    shown = round(accuracy, 1)
    if places == 0 and not round(interval[0]) <= shown <= round(interval[1]):
        places = 1  # 32.5 with an interval up to 32.5 read "(29-32)", the figure outside its own interval
    return f"{accuracy:.1f} ({interval[0]:.{places}f}-{interval[1]:.{places}f})"


def _indent(renderable, by: int = 2) -> Padding:
    return Padding(renderable, (0, 0, 0, by), expand=False)


def _lost(e) -> str:
    """A loss's win points with their paired 95% interval where it was kept: ``30 (15-44)``."""
    return lost_cell(e.drop, e.drop_interval)


def lesson_text(ref) -> str:
    return f"lesson {ref.level} ({ref.name})" if ref is not None else "no lesson yet"


def trend_text(t) -> str:
    (a, n), (b, m) = t.older, t.newer
    if t.trend is None and n and m:  # games in both halves, but one half had no graded move: no chance there
        return "Trend: needs graded moves in both your older and your newer games."
    if t.trend is None:
        return "Trend: needs two reviewed games."
    x, y = t.older_moves, t.newer_moves
    # the rate is per graded move where they are known: a game quit after one move gave one chance, not a game's
    counts = (f"{_plural(a, 'time')} in your {_plural(n, 'older game')} ({_plural(x, 'graded move')}), {b} in "
              f"your {m} newer ({y})" if x is not None and y is not None else
              f"{_plural(a, 'time')} in your {_plural(n, 'older game')}, {b} in your {m} newer")
    if t.trend == "same":
        return f"No change: {counts}."
    if not t.trend_clear:  # a split that chance alone gives often: no word for a direction
        return f"No clear trend yet: {counts}, a split that chance alone often gives."
    word = {"better": "Getting better", "worse": "Getting worse"}[t.trend]
    rates = (f"{100 * a / x:.1f} per 100 graded moves against {100 * b / y:.1f}" if x and y
             else f"{a / n:.2f} a game against {b / m:.2f}")  # a trend needs chances in both halves
    return f"{word}: {counts} ({rates}; chance alone gives it {t.trend_p:.1%})."


def tags_text(tags) -> str:
    """Stored tag names, for a table cell: a tag an older import let in is shown without its control codes."""
    return ", ".join(clean(t) for t in tags)


def example_text(e) -> str:
    # "game id": the history's number, not the newest-first number osmosis games, review N and replay N take
    played = f"{clean(e.move)} ({NAMES[e.card]})" if e.card is not None else clean(e.move)
    better = f"{clean(e.best)} ({NAMES[e.best_card]})" if e.best_card is not None else clean(e.best)
    # a late start whose best move waits too: the row-opening move the heading speaks of is named beside it
    opening = getattr(e, "opening", None)
    also = (f" (opening the next row with {clean(opening)} ({NAMES[e.opening_card]}) was better than {clean(e.move)} "
            "too)" if opening and e.opening_card is not None else "")
    return (f"deal {deal_label(e.deal)} (game id {e.game_id}), move {e.ply}: {played} instead of {better}, "
            f"{e.drop:.0f} points lost{_basis(e.drop_interval, e.drop_samples)}{also}")


def _basis(interval: tuple[float, float] | None, samples: int | None) -> str:
    """What a stored drop rests on, after the figure: `` (95%: 11-17, 512 deals)``, `` (exact)``, or nothing
    where the review kept neither (an older one)."""
    if interval is not None and interval[0] == interval[1]:
        return " (exact)"
    deals = f", {_plural(samples, 'deal')}" if samples is not None else ""
    return f" (95%: {_ends(*interval)}{deals})" if interval is not None else ""


def deals_note(counts: list[int | None]) -> str:
    """Under a table of drops: the deals their intervals rest on (``each on 512 deals``, ``on 64 to 512 deals``);
    empty when none was kept."""
    kept = sorted({n for n in counts if n is not None})
    if not kept:
        return ""
    on = f"{kept[0]} deals" if len(kept) == 1 else f"{kept[0]} to {kept[-1]} deals"
    return f"lost: win points against the better move, with the paired 95% interval of the review, on {on}."


class Unwrapped(NamedTuple):
    """A line printed whole, never wrapped or cut: a command to copy, however long its path."""

    text: Text


def print_parts(console, parts: list) -> None:
    """Print ``render_coaching``'s parts; the commands in them go out whole (``soft_wrap``)."""
    for part in parts:
        if isinstance(part, Unwrapped):
            console.print(part.text, soft_wrap=True)
        else:
            console.print(part)


def render_coaching(c, meanings: dict[str, str]) -> list:
    """``osmosis coach``: each recurring kind of error, then the biggest single losses."""
    if not c.games_reviewed:
        if not c.unreviewed:
            return [Text("No reviewed game yet: play a game (osmosis play), and osmosis coach reviews it on the way.")]
        if c.outdated:
            fresh = c.unreviewed - c.outdated
            also = f", and {_plural(fresh, 'game')} not reviewed yet" if fresh else ""
            return [Text(f"No game reviewed by the current rules for the kinds of error yet: "
                         f"{_plural(c.outdated, 'game')} reviewed by an older osmosis{also}. osmosis coach --review "
                         f"reviews {'it' if c.unreviewed == 1 else 'them'}{'' if fresh else ' again'}.")]
        return [Text(f"No reviewed game yet: osmosis coach --review reviews your {_plural(c.unreviewed, 'game')}.")]
    head = Text()
    head.append(f"{c.games_reviewed} reviewed game{'s' if c.games_reviewed != 1 else ''}", style="bold")
    head.append(f", {_plural(c.moves_graded, 'graded move')}: " +
                ", ".join(_plural(n, label) for label, n in c.labels.items()) + ".")
    parts: list = [head]
    if c.unreviewed:
        parts.append(Text(f"{_plural(c.unreviewed, 'game')} not reviewed yet, or reviewed by older rules for "
                          f"the kinds of error (osmosis coach --review reviews {'it' if c.unreviewed == 1 else 'them'})"
                          ".", style="dim"))
    if not c.tags:
        what = f"no {c.tag_filter}" if c.tag_filter else "no tagged error"
        parts.append(Text(f"In your reviewed games: {what}. Keep playing, and check again."))
    for t in c.tags:
        parts.append(Text(""))
        line = Text()
        line.append(clean(t.tag), style="bold")
        line.append(f"  {t.count} time{'s' if t.count != 1 else ''} in {t.games} game{'s' if t.games != 1 else ''}")
        parts.append(line)
        if t.count == 1:  # one time: a figure, not an average, with the move's own interval where it was kept
            one = t.interval  # that move's own paired interval, as the losses table gives it
            sure = "" if one is None else " (exact)" if one[0] == one[1] else f" (95% interval {_ends(*one)})"
            cost = f"Cost: {t.mean_drop:.0f} win points{sure}, the one time."
        elif t.interval is None:  # every drop alike: their spread gives no interval, so none is claimed
            cost = (f"Cost: {t.mean_drop:.1f} win points a time on average ({t.count} times, each the same: no "
                    "spread to give an interval from).")
        elif t.sd == 0:  # every drop alike: the moves' own intervals, not their spread's
            own = ("exact" if t.interval[0] == t.interval[1]
                   else f"95% interval {_ends(*t.interval)} from their reviews")
            cost = f"Cost: {t.mean_drop:.1f} win points a time on average ({t.count} times, each the same; {own})."
        else:
            cost = (f"Cost: {t.mean_drop:.1f} win points a time on average (95% interval "
                    f"{t.interval[0]:.1f}-{t.interval[1]:.1f}).")
        if t.shared:  # a move's drop is not split between its tags: say so where it is counted twice
            who = ("That move carries" if t.count == 1 else
                   f"{t.shared} of those moves {'carries' if t.shared == 1 else 'carry'}")
            cost += f" {who} another tag too, and the move's whole drop counts for each."
        if t.tag in meanings:
            parts.append(_indent(Text(f"You {meanings[t.tag]}.", style="dim")))
        parts.append(_indent(Text(cost)))
        parts.append(_indent(Text(trend_text(t))))
        if t.lesson:
            parts.append(_indent(Text(f"Lesson {t.lesson.level} teaches it: osmosis lesson {t.lesson.name}")))
        if 0 < len(t.examples) < t.count:  # not every time is listed: say which are
            parts.append(_indent(Text(f"The {len(t.examples)} costliest of the {t.count} times:", style="dim")))
        for e in t.examples:
            item = Table.grid(padding=(0, 1, 0, 0))  # a long line wraps under its text, not under the dash
            item.add_row("-", Text(example_text(e)))
            parts.append(_indent(item))
            if e.path and Path(e.path).is_file():
                parts.append(Unwrapped(Text(f"    osmosis replay {shell_word(e.path)} --at {e.ply}", style="dim")))
            elif e.path:  # an imported history, or a file moved away: no command that would fail
                parts.append(_indent(Text(f"(no game file at {shown_path(e.path)} to replay: it was moved or is "
                                          "another machine's; your history keeps the moves, and osmosis export "
                                          "writes them out)", style="dim"), by=4))
    if c.losses:
        parts.append(Text(""))
        title = "Biggest single losses" + (f" ({c.tag_filter})" if c.tag_filter else "")
        parts.append(Text(title, style="bold"))
        table = Table(box=None, pad_edge=False, header_style="bold")
        losses: Columns = (("id", "right"), ("deal", "right"), ("move", "right"), ("played", "left"),
                           ("better", "left"), ("lost (95%)", "right"), ("label", "left"), ("tags", "left"))
        deal_width = max((len(deal_label(e.deal)) for e in c.losses), default=4)
        for col, just in losses:
            table.add_column(col, justify=just, **deal_column(deal_width) if col == "deal" else {})
        for e in c.losses:
            table.add_row(str(e.game_id), deal_label(e.deal), str(e.ply), Text(clean(e.move)), Text(clean(e.best)),
                          _lost(e), Text(clean(e.label)), Text(tags_text(e.tags)))
        parts.append(table)
        note = deals_note([e.drop_samples for e in c.losses if e.drop_interval and e.drop_interval[0] < e.drop_interval[1]])
        if note:
            parts.append(Text(note, style="dim"))
    return parts


def recurring_line(r) -> str:
    """``History: early-start in 3 of your last 5 reviewed games: see lesson 5 (osmosis lesson waiting).``"""
    see = f": see lesson {r.lesson.level} (osmosis lesson {r.lesson.name})" if r.lesson else ""
    return f"History: {clean(r.tag)} in {r.games} of your last {r.window} reviewed games{see}."


def results_line(fig, variant: str) -> str:
    return (f"History: {_plural(fig.games, 'game')} of {variant_label(variant)}, {rate_text(fig)}, "
            f"{fig.mean_cards:.1f} cards on average{_over_all(fig)} (osmosis history shows more).")


def accuracy_line(this: float, fig, variant: str, graded: int | None = None, ci: str = "") -> str:
    """This game's accuracy against the player's others of the variant; ``graded``: the moves it rests on (a
    100.0 from 2 graded moves said as much as one from 40); ``ci``: its interval, `` (95%: 81.0-91.2)``."""
    inside = [ci.strip()[1:-1]] if ci.strip() else []
    inside += [_plural(graded, "graded move")] if graded is not None else []
    here = f"here ({', '.join(inside)})" if inside else "here"
    theirs = f"{fig.accuracy:.1f}{_ci(getattr(fig, 'accuracy_interval', None))}"
    if fig.rated == 1:
        return (f"History: accuracy {this:.1f} {here} against {theirs} in your one other rated game "
                f"of {variant_label(variant)}.")
    return (f"History: accuracy {this:.1f} {here} against {theirs} on average over your "
            f"{fig.rated} other rated games of {variant_label(variant)}.")


def _ends(lo: float, hi: float) -> str:
    """An interval in whole points, or with a decimal where its low end would round up: the low end is what a
    label goes by, and 4.78 shown as 5 sat beside "good" under the threshold of 5 (4.8, as the review says)."""
    places = 1 if round(lo) > lo + 1e-9 else 0
    a, b = f"{round(lo, places) + 0.0:.{places}f}", f"{round(hi, places) + 0.0:.{places}f}"
    return f"{a} to {b}" if a.startswith("-") else f"{a}-{b}"


def lost_cell(drop: float, interval: tuple[float, float] | None, exact: bool = False) -> str:
    """A loss in win points for a table cell, with what it rests on: its paired 95% interval ``18 (14-21)`` (``7 (4.8-9.3)`` where the low end would round up),
    ``75 (exact)`` (every consistent deal solved: an interval of one value), or ``18`` where none was kept."""
    if exact or (interval is not None and interval[0] == interval[1]):
        return f"{drop:.0f} (exact)"
    if interval is None:
        return f"{drop:.0f}"
    return f"{drop:.0f} ({_ends(*interval)})"
