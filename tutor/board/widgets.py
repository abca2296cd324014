"""What the board draws: the table, the memory panel, the hint panel, the win-chance chart.

Each is a rich renderable that lays itself out for the width it is given
(every line is cut at a card or a word, never inside one), built from the
engine's values: a :class:`~tutor.state.State`, a :class:`~tutor.talon.Memory`,
a :class:`~tutor.hints.Hint`. Nothing here decides a rule.
"""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style
from rich.text import Text

from ..cards import RANKS
from ..narrate.moves import move_deed, move_fact
from ..render import (
    BACK,
    BACK_STYLE,
    DIM,
    LABEL,
    card_name,
    card_text,
    cards_interval_cell,
    describe_move,
    differs_blind,
    foundation_lines,
    passes_text,
    prose,
    suit_text,
)
from ..state import State
from ..survey import wilson
from ..table import pack
from ..talon import Memory

if TYPE_CHECKING:
    from ..review.values import Review

PLAYABLE_MARK = "*"

NARROWEST = 30
"""The fewest columns a panel's text needs: the foundation rows with one rank a card (a row's suit at its start)."""
MIN_COLUMNS = NARROWEST + 4
"""The narrowest terminal the board is drawn whole on: :data:`NARROWEST` and a panel's padding and scroll bar."""


def too_narrow(columns: int) -> str | None:
    """The line the board shows on a terminal narrower than :data:`MIN_COLUMNS`, else None."""
    if columns >= MIN_COLUMNS:
        return None
    return f"The terminal is too narrow: the board needs {MIN_COLUMNS} columns, it has {columns}."


SHORT_ROWS = 14
"""Below this many rows the key bar is left out (the status line still says ``? help``): at 20x8 its wrapped
keys filled the screen and pushed the status and the too-narrow line out of view."""


def no_colour() -> bool:
    """NO_COLOR is set and not empty (no-color.org's rule, and rich's in line mode). The boards then pass
    ``ansi_color=True`` to Textual, whose filter for that case drops the colours for the terminal's own; its
    other filter turns each colour to a grey of its brightness, and red cards became dark grey on black
    (contrast 1.6:1). Textual counts an empty NO_COLOR as set, so the board lost its colours where line mode
    kept them: called as a board starts, this drops an empty one from the environment first."""
    if os.environ.get("NO_COLOR") == "":
        del os.environ["NO_COLOR"]
    return bool(os.environ.get("NO_COLOR"))


def clickable(text: Text, action: str, underline: bool = True) -> Text:
    """``text`` that runs the board's ``action`` when clicked with the mouse, underlined as a link (its colour
    kept: :class:`~tutor.board.screens.CardPanel`); without the underline for a card that answers a click but
    is not to be played (in peek, one under a pile's top card)."""
    text.stylize(Style(underline=underline, meta={"@click": action}))
    return text


_MEASURE = Console(width=200, color_system=None, legacy_windows=False)


def wrap(text: Text, width: int, indent: str = "") -> list[Text]:
    """A sentence cut into lines at word boundaries; continuation lines start with ``indent``."""
    if not text.plain:
        return []
    lines = list(text.wrap(_MEASURE, max(10, width - len(indent)), overflow="fold"))
    for line in lines:
        line.rstrip()
    return lines[:1] + [Text(indent) + line for line in lines[1:]]


_KEY_COLUMN = re.compile(r"^(\S+(?: \S+){0,2}\s{2,})\S")  # "d space  turn", ": or /  type": the key and its gap


class _Sized(ABC):
    """A renderable whose lines are built for the width it is drawn at."""

    @abstractmethod
    def lines(self, width: int) -> list[Text]:
        """The lines of this renderable at ``width`` columns."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(max(8, options.max_width)):
            line.no_wrap = True
            line.overflow = "crop"
            yield line


class TableView(_Sized):
    """The table: reserve piles (key, top card, face-down count), the four rows, the waste fan."""

    def __init__(self, state: State, symbols: bool, fan: int, playable: bool = True) -> None:
        self.state, self.symbols, self.fan = state, symbols, fan
        self.playable = playable  # the top cards play when clicked (not on the replay, which plays nothing)

    def _top(self, card: int, move: str) -> Text:
        text = card_text(card, self.symbols, "bold")
        return clickable(text, f"app.click('{move}')") if self.playable else text

    def _under(self, card: int) -> Text:
        """A face-up card under a pile's top (peek): a click says why it cannot be played, as its typed name does."""
        text = card_text(card, self.symbols, DIM)
        action = f"app.click('{card_name(card, symbols=False)}')"
        return clickable(text, action, underline=False) if self.playable else text

    def lines(self, width: int) -> list[Text]:
        state, symbols = self.state, self.symbols
        head = Text()
        head.append(f"Score {state.score}/52", style=LABEL)
        head.append(f"   {passes_text(state).capitalize()}   turn {state.rules.turn}")
        out = wrap(head, width)
        out += self._reserve(width)
        out += foundations(state, symbols, width)
        stock = Text(f"Stock {len(state.stock)}", style=LABEL)
        waste = self._waste()
        if len(waste.plain) <= width:
            return out + pack([waste, stock], width, sep="   ")
        lines = wrap(waste, width, indent=" " * 7)  # under the first card, past "Waste  "
        return out + lines[:-1] + pack([lines[-1], stock], width, sep="   ")

    def _waste(self) -> Text:
        """``Waste  16 more, then T♥ 8♥ (top)``: the cards of the last turn the player can see."""
        waste, symbols = self.state.waste, self.symbols
        line = Text("Waste  ", style=LABEL)
        if not waste:
            line.append("empty", style=DIM)
            return line
        shown = max(1, min(self.fan, len(waste)))
        if len(waste) > shown:
            line.append(f"{len(waste) - shown} more, then ", style=DIM)
        for card in waste[len(waste) - shown:-1]:
            line.append_text(card_text(card, symbols, DIM))
            line.append(" ")
        line.append_text(self._top(waste[-1], "w"))
        line.append(" (top)", style=DIM)
        return line

    def _reserve(self, width: int) -> list[Text]:
        state = self.state
        if not state.reserves:
            return wrap(Text("No reserve (Bridesmaids): the base card, then the talon.", style=DIM), width)
        cells = []
        for i, pile in enumerate(state.reserves):
            cell = Text()
            cell.append(f"{i + 1} ", style="bold reverse")
            cell.append(" ")
            if not pile:
                cell.append("empty", style=DIM)
            elif state.rules.open_reserve:  # every card face up; the top one plays when clicked, as face down
                cell.append_text(Text(" ").join([self._under(c) for c in pile[:-1]]
                                                + [self._top(pile[-1], f"r{i + 1}")]))
            else:
                cell.append_text(self._top(pile[-1], f"r{i + 1}"))
                down = len(pile) - 1
                cell.append(f" {BACK}{down}" if down else "   ", style=BACK_STYLE if down else "")
            cells.append(cell)
        title = Text("Reserve", style=LABEL)
        title.append("  key, top card, cards face down under it" if not state.rules.open_reserve
                     else "  key, then the pile bottom to top", style=DIM)
        return wrap(title, width) + pack(cells, width, sep="   ", indent="")


def foundations(state: State, symbols: bool, width: int) -> list[Text]:
    """The four rows as line mode draws them (whole card names) where they fit in ``width``, else one rank a card.

    The narrow rows keep every card: a row's suit stands at its start, each card is its rank under the rank
    header (in its suit's colour), ``·`` where the card is not there yet.
    """
    full = foundation_lines(state, symbols)
    if max(len(line.plain) for line in full) <= width:
        return full
    start = state.start_rank
    title = Text("Foundations", style=LABEL)
    title.append(f"  (starting rank {RANKS[start - 1]})")
    header = Text(" " * 5)
    header.append_text(Text(" ").join(Text(RANKS[r], style="bold underline" if r == start - 1 else DIM)
                                      for r in range(13)))
    out = wrap(title, width) + [header]
    free = [s for s in range(4) if s not in state.rows]
    for k in range(4):
        line = Text(f" {k + 1} ")
        if k < len(state.rows):
            suit = state.rows[k]
            line.append_text(suit_text(suit, symbols))
            line.append(" ")
            cells = [Text(RANKS[r], style=card_text(suit * 13 + r, symbols).style) if state.found[suit] >> r & 1
                     else Text("·", style=DIM) for r in range(13)]
            line.append_text(Text(" ").join(cells))
        elif k == len(state.rows):
            line.append("- opened by ", style=DIM)
            line.append_text(Text(" or ").join(card_text(s * 13 + start - 1, symbols) for s in free))
            out += wrap(line, width, indent=" " * 5)
            continue
        else:
            line.append("-", style=DIM)
        out.append(line)
    return out


class MemoryView(_Sized):
    """Every talon card the player has seen, in turning order, grouped as this pass's turns show them."""

    def __init__(self, mem: Memory, symbols: bool) -> None:
        self.mem, self.symbols = mem, symbols

    def _card(self, seen) -> Text:
        if seen.card is None:
            return Text("??", style=DIM)
        style = "bold" if seen.shows else ""
        text = card_text(seen.card, self.symbols, style)
        if seen.playable:
            text.stylize("green")
            text.append(PLAYABLE_MARK, style="bold green")
        return text

    def lines(self, width: int) -> list[Text]:
        mem = self.mem
        title = Text("Memory", style=LABEL)
        # the cards still in the talon (not those played off it), known or not
        title.append(f"  pass {mem.pass_no}: {mem.seen} talon card{'' if mem.seen == 1 else 's'} known, "
                     f"{mem.unseen} not seen yet")
        out = wrap(title, width)
        waste = Text("waste ", style=LABEL)
        if mem.waste:
            waste.append_text(Text(" ").join(self._card(s) for s in mem.waste))
            waste.append(" (top)", style=DIM)
        else:
            waste.append("empty", style=DIM)
        out += wrap(waste, width, indent="      ")
        if mem.turns:
            groups = [Text(" ").join(self._card(s) for s in g) for g in mem.turns]
            groups[0] = Text("next  ", style=LABEL) + groups[0]
            out += pack(groups, width, sep="  ", indent="      ")
        else:
            out += wrap(Text("next  the stock is empty: " + ("d redeals the waste" if mem.can_redeal else
                                                              "no redeal is allowed"), style=DIM), width, "      ")
        order = (f"in groups of {mem.turn} as the turns show them, the last of each on top" if mem.turn > 1
                 else "one card a turn, in the order the turns show them")
        # "could go to a foundation now" read as "can be played now" for a card buried in the waste
        legend = Text(f"{order}; {PLAYABLE_MARK} fits a foundation now (played once it is on top); ?? not seen yet",
                      style=DIM)
        out += wrap(legend, width)
        return out


def _interval(cand) -> tuple[float, float] | None:
    """The candidate's own 95% interval, else Wilson's from its samples; None for no samples."""
    own = getattr(cand, "interval", None)
    if own is not None:
        return tuple(own)
    n = getattr(cand, "samples", 0)
    if not n:
        return None
    return wilson(round(cand.win * n), n)


class HintView(_Sized):
    """The hint: every legal move with its win chance, samples and 95% interval, then the reason.

    A table where its rows fit the width; where they do not, each move's figures named and laid out in
    lines of that width (the table's last columns were cut on a narrow panel).
    """

    def __init__(self, hint, state: State, symbols: bool) -> None:
        self.hint, self.state, self.symbols = hint, state, symbols
        self.blind = differs_blind(hint.ranked())

    def lines(self, width: int) -> list[Text]:
        hint, state = self.hint, self.state
        # the heading and the columns as osmosis hint and line mode give them: "Hint: r4 (4♠)"
        title = Text("Hint: ", style=LABEL)
        fact = move_fact(state, hint.best)
        title.append(fact.notation, style=LABEL)
        if fact.card is not None:
            title.append(" (")
            title.append_text(card_text(fact.card, self.symbols))
            title.append(")")
        else:
            title = Text("Hint: ", style=LABEL)
            title.append(describe_move(state, hint.best, self.symbols), style=LABEL)
        ruled = getattr(hint, "cards_certain", False)  # cards fixed by the rule (tutor.advice.SettledHint)
        blind = self.blind  # the search's figures, where they differ from the samples'
        table = [Text("move  card   win   95% interval  cards        95%  samples" + ("  blind" if blind else ""),
                      style=DIM)]
        table += [self._row(cand, ruled) for cand in hint.ranked()]
        out = wrap(title, width)
        if max(len(row.plain) for row in table) <= width:
            out += table
        else:
            for cand in hint.ranked():
                out += pack(self._figures(cand, ruled), width, sep="  ", indent=" " * 9)
        out += wrap(prose(hint.reason or "", self.symbols), width)
        out += wrap(Text("cards: how many cards the move leaves on the foundations at the end, on average "
                         "over the deals, with its 95% interval ('same': every sampled deal gives that count)"
                         + ("; blind: the win chance of a player who sees only the table" if blind else ""), style=DIM),
                    width)
        return out

    def _move(self, cand, column: int = 6) -> Text:
        """``r2    Q♠``: the move as typed (in a column this wide), then its card or what it does."""
        row = Text()
        row.append(f"{str(cand.move):<{column}}", style=LABEL if cand.move == self.hint.best else "")
        fact = move_fact(self.state, cand.move)
        row.append_text(card_text(fact.card, self.symbols) if fact.card is not None else Text(move_deed(fact)))
        return row

    def _win_interval(self, cand) -> str | None:
        """"exact", "certain", the 95% interval's ends in percent, or None where there is none."""
        iv = _interval(cand)
        if self.hint.exact or getattr(cand, "exact", False):
            return "exact"
        if iv is not None and iv[0] == iv[1]:  # a settled hint: the win solved in every consistent deal
            return "certain"
        return None if iv is None else f"{iv[0] * 100:3.0f}%-{iv[1] * 100:3.0f}%"

    def _row(self, cand, ruled: bool) -> Text:
        row = self._move(cand)
        row.append(" " * max(1, 12 - len(row.plain)))
        row.append(f"{cand.win * 100:4.0f}%  ")
        interval = self._win_interval(cand) or "-"
        row.append(f"{interval}     " if "%" in interval else f"{interval:<13}")
        row.append(f"{cand.cards:5.1f}  {cards_interval_cell(cand, ruled):>9}  {cand.samples:>7}")
        if (blind := _blind_text(cand)) is not None and self.blind:
            row.append(f"  {blind}")
        return row

    def _figures(self, cand, ruled: bool) -> list[Text]:
        """The row's figures, each named: ``r2 Q♠    win 23% (15-35%)``, ``64 samples``, ``cards 34.3 (31-38)``."""
        head = self._move(cand, column=3)
        head.append(" " * max(2, 9 - len(head.plain)))
        interval = self._win_interval(cand)
        head.append(f"win {cand.win * 100:.0f}%")
        if interval is not None:
            head.append(f" ({interval.replace(' ', '').replace('%-', '-')})")
        cards = f"cards {cand.cards:.1f}"
        cell = cards_interval_cell(cand, ruled)
        if cell != "-":
            cards += f" ({cell})"
        blind = _blind_text(cand) if self.blind else None
        return [head, Text(f"{cand.samples} sample{'' if cand.samples == 1 else 's'}"), Text(cards)] + ([Text(f"blind {blind}")] if blind else [])


def _blind_text(cand) -> str | None:
    """The win chance of a player who sees only the table, where the search over the cards still to turn up ran:
    ``82% (65-91)``; None elsewhere."""
    blind, ends = getattr(cand, "blind", None), getattr(cand, "blind_interval", None)
    if blind is None:
        return None
    if ends is None or ends[0] == ends[1]:
        return f"{blind * 100:.0f}%"
    return f"{blind * 100:.0f}% ({ends[0] * 100:.0f}-{ends[1] * 100:.0f})"


class Keys(_Sized):
    """The keys, ``d turn  t turn to a play ...``, each kept whole on a line."""

    def __init__(self, items) -> None:
        self.items = items

    def lines(self, width: int) -> list[Text]:
        cells = []
        for item in self.items:
            key, _, what = item.partition(" ")
            cell = Text(key, style="bold")
            cell.append(" " + what)
            cells.append(cell)
        return pack(cells, width, sep="  ")


class Status(_Sized):
    """The status line, ``Move 5   Stock 20   Pass 1   Score 3/52``: on a narrow terminal cut between its items."""

    def __init__(self, items: list[str]) -> None:
        self.items = items

    def lines(self, width: int) -> list[Text]:
        # an item wider than the line wraps between its words ("Stock" over "26"), never cut to "Stock 2"; on a
        # tiny terminal two spaces apart, so two items still share a line ("Move 0  Stock 35" in 16 columns)
        return pack([Text(item) for item in self.items], width, sep="   " if width >= 24 else "  ",
                    console=_MEASURE)


KEYS_APART = "\x1f"
"""Between the answers of a question (``v  review this game``): :class:`Lines` breaks a line only there, so no
key is parted from its words (at 80 columns ":  type s FILE to" ended one line and "save" began the next)."""


class Lines(_Sized):
    """Plain sentences wrapped at word boundaries for the width they are drawn at."""

    def __init__(self, *texts: Text | str, symbols: bool = True, hanging: bool = False) -> None:
        self.texts = [prose(t, symbols) if isinstance(t, str) else t for t in texts]
        self.hanging = hanging  # a table of keys: a wrapped line goes on under the text, not under the key

    def lines(self, width: int) -> list[Text]:
        out: list[Text] = []
        for text in self.texts:
            for para in text.split("\n", allow_blank=True):
                if KEYS_APART in para.plain:
                    out += pack(list(para.split(KEYS_APART)), width, sep="    ", console=_MEASURE)
                    continue
                found = _KEY_COLUMN.match(para.plain) if self.hanging else None
                indent = " " * len(found.group(1)) if found else ""
                if indent and len(indent) < width // 2:
                    head = para[:len(indent)]
                    out += [head + line if i == 0 else line
                            for i, line in enumerate(wrap(para[len(indent):], width, indent))] \
                        or [Text("")]
                else:
                    out += wrap(para, width) or [Text("")]
        return out


class ChartView(_Sized):
    """The review's win-chance chart, its rows as long as the width it is drawn at allows."""

    def __init__(self, rev: Review, cursor: int | None) -> None:
        self.rev, self.cursor = rev, cursor

    def lines(self, width: int) -> list[Text]:
        from ..cli.review_report import chart  # the same chart ``osmosis review`` prints

        drawn = chart(self.rev, max(30, width), cursor=self.cursor)
        drawn.rstrip()
        return list(drawn.split("\n"))
