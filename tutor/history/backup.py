"""An export found where another file is to be written: what it holds, and what writing over it would lose.

An export is a backup of whole games (:mod:`tutor.history.transfer`): ``osmosis export FILE`` writes over an
earlier one only when the new export keeps every game in it (the same moves or more, the review, the drills
and their answers), and no other output (a graph, per-deal lines, an annotated record) writes over one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ExportFile", "Held", "MAX_LINE", "dropped_games", "export_in", "held_in"]


@dataclass(frozen=True)
class Held:
    """What an export line holds of one game, as far as writing over that export goes."""

    moves: list[Any]
    deal: str
    review: bool
    drills: int
    answers: int


@dataclass(frozen=True)
class ExportFile:
    """An export found where another is to be written: its games by ``key``, and the lines that are not export
    lines (a damaged or edited file: what they hold cannot be checked)."""

    games: dict[str, Held]
    unreadable: int
    laid_out: bool = False
    """Not one export line a line of text (laid out over several, or a note added on top): its games cannot
    be read line by line (``unreadable`` is then 1, for the file)."""


MAX_LINE = 1 << 24
"""The longest line read from an export found in the way (16 MB; a game with its review is far less)."""


def held_in(line: bytes | str) -> tuple[str, Held] | None:
    """The game of one export line (its key and what it holds), None for a line that is not one."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    record = data.get("record") if isinstance(data, dict) else None
    if not (isinstance(data, dict) and str(data.get("format", "")).startswith("osmosis-history/")
            and isinstance(data.get("key"), str) and isinstance(record, dict) and isinstance(record.get("moves"), list)):
        return None
    deal = record.get("deal")
    number = deal.get("number") if isinstance(deal, dict) else None
    found = data.get("drills")
    drills: list[Any] = found if isinstance(found, list) else []
    answers = 0
    for d in drills:
        if isinstance(d, dict) and isinstance(d.get("answers"), list):
            answers += len(d["answers"])
    return data["key"], Held(record["moves"], f"deal {number}" if isinstance(number, int) else "a deal given in full",
                             isinstance(data.get("review"), dict), len(drills), answers)


def export_in(path: str | Path) -> ExportFile | None:
    """The osmosis export at ``path``; None when there is no such file or its first line is not an export line
    (another output file, which may be written over). A line past :data:`MAX_LINE` counts as unreadable."""
    games: dict[str, Held] = {}
    unreadable, first = 0, True
    try:
        if not Path(path).is_file():
            return None
        with open(path, "rb") as fh:
            while raw := fh.readline(MAX_LINE):
                if len(raw) == MAX_LINE and not raw.endswith(b"\n"):
                    while (more := fh.readline(MAX_LINE)) and not more.endswith(b"\n"):
                        pass  # the rest of a line too long to be one
                    found = None
                elif not raw.strip():
                    continue
                else:
                    found = held_in(raw.removeprefix(b"\xef\xbb\xbf") if first else raw)  # a BOM, as import reads
                if first and found is None:
                    return _not_lines(path)
                first = False
                if found is None:
                    unreadable += 1
                else:
                    games[found[0]] = found[1]
    except OSError:
        return None
    return None if first else ExportFile(games, unreadable)


MARK = b'"osmosis-history/'
"""What every export line holds (its ``format``), however the JSON is laid out."""


def _not_lines(path: str | Path) -> ExportFile | None:
    """A file whose first line is no export line: one export line laid out over several lines (``osmosis
    import`` reads it: a pretty-printed backup), else, where the file holds an export's mark anywhere (a
    note added on top, several games indented), an export all the same that cannot be read as one; None for
    anything else (another output file)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(MAX_LINE + 1)
            if len(head) <= MAX_LINE:
                found = held_in(head.removeprefix(b"\xef\xbb\xbf"))
                if found is not None:
                    return ExportFile(dict([found]), 0)
            tail = b""
            while head:  # the mark, read in pieces (a piece's end may cut it: the last bytes go on with the next)
                if MARK in tail + head:
                    return ExportFile({}, 1, laid_out=True)
                tail = head[-len(MARK):]
                head = fh.read(1 << 20)
    except OSError:
        return None
    return None


def dropped_games(old: dict[str, Held], new: dict[str, Held]) -> list[str]:
    """What an export ``new`` written over ``old`` would lose, a phrase a game: a game it does not hold, or
    holds with other moves (not the same ones or more), without the review, or with fewer drills or answers."""
    out = []
    for key, was in old.items():
        now = new.get(key)
        if now is None or now.moves[:len(was.moves)] != was.moves:
            out.append(f"{was.deal}, {len(was.moves)} move{'s' if len(was.moves) != 1 else ''}")
        elif was.review and not now.review:
            out.append(f"the review of {was.deal}")
        elif now.drills < was.drills or now.answers < was.answers:
            out.append(f"the drills of {was.deal}")
    return out
