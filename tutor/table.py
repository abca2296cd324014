"""A rich Table for narrow terminals: cells wrap between words, never inside one (with :mod:`tutor.render`,
the only modules outside the CLI that know rich)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import table as rich_table
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

__all__ = ["Table", "pack"]


class Table(rich_table.Table):
    """A rich Table whose cells wrap between words where the terminal is too narrow, never cut short with
    an ellipsis; where even its widest words cannot stand side by side, each row is printed as a record of
    its own ("heading value" pairs, wrapped between pairs), so a figure, an interval or a name you must type
    is never broken inside (at 60 columns `osmosis history` had printed "varia" over "nt")."""

    def add_column(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("overflow", "fold")
        super().add_column(*args, **kwargs)

    def _quick_widths(self) -> list[tuple[int, int]] | None:
        """Each column's (narrowest, widest) width with its padding, from its text alone: the widest word (or
        line, in a column that does not wrap) and the widest line. None where a cell is not text. Quick next
        to rich's measure, which renders every cell (a table of 4,000 drills took twice as long with both)."""
        out = []
        try:
            for column in self.columns:
                low = high = column.min_width or 0
                for cell in [column.header if self.show_header else "", *column.cells]:
                    if not isinstance(cell, (str, Text)):
                        return None
                    lines = (cell.plain if isinstance(cell, Text) else cell).split("\n")
                    words = lines if column.no_wrap else [w for line in lines for w in line.split()]
                    low = max([low, *(cell_len(w) for w in words)])
                    high = max([high, *(cell_len(line) for line in lines)])
                pad = self._get_padding_width(column._index)
                out.append((low + pad, high + pad))
        except AttributeError:  # a rich without these internals: its own layout
            return None
        return out

    def _calculate_column_widths(self, console: Console, options: ConsoleOptions) -> list[int]:
        """Rich's widths where the columns fit whole; where they do not but their widest words do, the widest
        columns are narrowed first, as rich does, but none below its widest word (rich then narrows every
        column evenly, past its words: "treasure-tro" over "ve" at 70 columns)."""
        room = options.max_width
        quick = self._quick_widths()
        if quick is None or sum(high for _, high in quick) <= room:
            return super()._calculate_column_widths(console, options)
        measured = [self._measure_column(console, options, column) for column in self.columns]
        # a column that does not wrap needs its widest line (rich's minimum is its widest word)
        lows = [max(r.minimum, low) if column.no_wrap else r.minimum
                for r, (low, _), column in zip(measured, quick, self.columns)]
        highs = [max(r.maximum, low) for r, low in zip(measured, lows)]
        if sum(highs) <= room or sum(lows) > room:
            return super()._calculate_column_widths(console, options)
        level = max(highs)
        while sum(max(low, min(high, level)) for low, high in zip(lows, highs)) > room:
            level -= 1
        widths = [max(low, min(high, level)) for low, high in zip(lows, highs)]
        for i, high in enumerate(highs):  # the width left over: one more column each to those cut at the level
            if sum(widths) < room and widths[i] == level < high:
                widths[i] += 1
        return widths

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        quick = self._quick_widths() if self.row_count else None
        if quick is not None and sum(low for low, _ in quick) + self._extra_width > options.max_width:
            records = self._records(console, options.max_width)
            if records is not None:
                yield from records
                return
        yield from super().__rich_console__(console, options)

    def _records(self, console: Console, width: int) -> list[Text] | None:
        """One record a row, or None where a cell is not text (then the table draws as it can)."""
        columns = [[self._text(console, c) for c in col.cells] for col in self.columns]
        if any(c is None for col in columns for c in col):
            return None
        lines: list[Text] = []
        if self.title is not None:
            lines.extend(Text(str(self.title), style="bold").wrap(console, width))
        headings = [str(col.header).strip() if self.show_header else "" for col in self.columns]
        # a heading two columns share ("95%" after win and after cards) says what it is only beside the column
        # before it: its value goes in brackets after that column's, "win 58% (95% 49-66)"
        shared = {h for h in headings if h and headings.count(h) > 1}
        for row in range(self.row_count):
            pairs: list[Text] = []
            for heading, cells in zip(headings, columns):
                cell = cells[row]
                assert cell is not None  # checked above
                if not cell.plain.strip():
                    continue
                pair = Text()
                if heading in shared and pairs:
                    pair = pairs.pop()
                    pair.append(" (")
                    pair.append(heading, style=self.header_style or "")
                    pair.append(" ")
                    pair.append_text(cell)
                    pair.append(")")
                    pairs.append(pair)
                    continue
                if heading:
                    pair.append(heading, style=self.header_style or "")
                    pair.append(" ")
                pair.append_text(cell)
                pairs.append(pair)
            lines.extend(pack(pairs, width, indent="  ", console=console))
        return lines

    @staticmethod
    def _text(console: Console, cell: Any) -> Text | None:
        if isinstance(cell, Text):
            text = cell.copy()
        elif isinstance(cell, str):
            text = console.render_str(cell)
        else:
            return None
        text.plain = " ".join(text.plain.split("\n")) if "\n" in text.plain else text.plain
        return text


def pack(items: Sequence[Text], width: int, sep: str = "  ", indent: str = "",
         console: Console | None = None) -> list[Text]:
    """Lay ``items`` out in lines of at most ``width`` cells, a break only between items; lines after the first
    start with ``indent``. An item wider than a line stays whole, or with ``console`` wraps between its own
    words (the board's panels and a table's records share this)."""
    lines: list[Text] = []
    line: Text | None = None
    for item in items:
        if line is not None and line.cell_len + len(sep) + item.cell_len <= width:
            line.append(sep)
            line.append_text(item)
            continue
        lead = indent if lines else ""
        if console is not None and len(lead) + item.cell_len > width:
            for part in item.wrap(console, max(1, width - len(lead))):
                lines.append(Text(lead).append_text(part))
                lead = indent
            line = None
            continue
        line = Text(lead).append_text(item)
        lines.append(line)
    return lines
