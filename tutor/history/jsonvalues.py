"""The JSON values of an export as ``osmosis import`` reads them, and as ``osmosis export FILE`` reads one it
would write over.

An export is JSON lines as export writes it, or each line laid out over several (``python3 -m json.tool
--json-lines``, ``jq .``), or a mix of the two where a game was pasted in from elsewhere: so the file is read
as JSON values one after another, never line by line (a laid-out game read so was fragments, and one that
happened to be JSON, ``"d"``, hid that the file as a whole was). A value that cannot be read is said once,
from the line it begins on, and the reading goes on at the next line that begins an object as far in as that
one did: one cut line or damaged game does not take the games after it along, nor make a dozen errors.
Lines are counted one way everywhere, as JSON and export count them (LF, CRLF or a lone CR ends a line): a
U+2028 inside a string, as ``jq -c`` writes it, is text, not a line break.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..inputs import MAX_DEPTH

MAX_EXPORT_BYTES = 256 * 1024 * 1024
"""The largest file import reads: an export keeps about 24 kB a reviewed game, so 1,000 of them are already
past the 16 MB that bounds a record or a deal file."""


@dataclass(frozen=True)
class Damaged:
    """A value that cannot be read: the line it begins on, the last line left out with it, and why."""

    line: int
    last: int
    reason: str
    #: Nothing after it could be read again: the rest of the file is left out with it.
    to_end: bool
    #: Not JSON as written (else JSON nested past what can be read at all).
    syntax: bool = True


#: Only structure is read here: numbers and NaN are left as text, for tutor.inputs.loads_json to bound and
#: refuse one value at a time (read here, a 5,000-digit number stopped the whole file).
_DECODER = json.JSONDecoder(parse_int=str, parse_float=str, parse_constant=str)
_BLANK = re.compile(r"[ \t\n\r]*")
_BREAK = re.compile(r"\r\n|\r|\n")
_OBJECT_LINE = re.compile(r"(?:\r\n|\r|\n)([ \t]*)\{")


def json_values(text: str) -> tuple[list[tuple[int, str]], list[Damaged]]:
    """The JSON values ``text`` holds one after another, each as its own text with the line it begins on, in
    the order of the file, and the values that could not be read."""
    values: list[tuple[int, str]] = []
    damaged: list[Damaged] = []
    pos, line = 0, 1
    end = _skip_blank(text, 0)
    while end < len(text):
        line += breaks(text, pos, end)
        pos = end
        try:
            end = _DECODER.raw_decode(text, pos)[1]
        except json.JSONDecodeError as exc:
            damaged.append(_left_out(text, pos, line, exc.pos, exc.msg.removesuffix(" at")))
        except RecursionError:  # nesting past the stack (much deeper than any record)
            damaged.append(_left_out(text, pos, line, None, f"it is nested too deep (at most {MAX_DEPTH} levels)"))
        except ValueError as exc:  # none is known with numbers left as text: still one problem, not a crash
            damaged.append(_left_out(text, pos, line, None, f"it cannot be read ({exc})"))
        else:
            values.append((line, text[pos:end]))
            end = _skip_blank(text, end)
            continue
        end = _next_object(text, pos)
    return values, damaged


def _left_out(text: str, pos: int, line: int, error: int | None, reason: str) -> Damaged:
    """The value begun at ``pos`` (on ``line``) that cannot be read, found wrong at ``error`` (None: not JSON
    as written is what is wrong, but its depth), with the lines left out with it."""
    again = stop = _next_object(text, pos)
    while stop > pos and text[stop - 1] in " \t\r\n":  # the blank lines before the next object are not said
        stop -= 1
    last = line + breaks(text, pos, stop)
    if error is not None and error >= stop:  # what comes after it told the decoder: it is incomplete
        reason = f"it breaks off at the end of line {last}: {reason[:1].lower()}{reason[1:]}"
    elif error is not None:
        column = error - max(text.rfind("\n", 0, error), text.rfind("\r", 0, error))
        reason = f"{reason} at line {line + breaks(text, pos, error)} column {column}"
    return Damaged(line, last, reason, again == len(text), error is not None)


def laid_out(value: str) -> bool:
    """Whether a value read by :func:`json_values` runs over several lines of text."""
    return _BREAK.search(value) is not None


def breaks(text: str, start: int, end: int) -> int:
    """The line breaks between two places of ``text`` (LF, CRLF, or a lone CR)."""
    return text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)


def _skip_blank(text: str, pos: int) -> int:
    """Where the next JSON value may begin: past the whitespace JSON allows between values."""
    blank = _BLANK.match(text, pos)
    return blank.end() if blank is not None else pos


def _next_object(text: str, pos: int) -> int:
    """Where reading goes on past a value begun at ``pos`` that cannot be read: the next line that begins an
    object no further in than the line of that value (a game of its own, not one of the damaged game's
    nested objects, which a laid-out file indents); where none is, the first of those least indented (the
    games after a cut line at the margin may all be indented); else the end of the text."""
    start = max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1
    indent = len(text[start:pos]) - len(text[start:pos].lstrip(" \t"))
    least: tuple[int, int] | None = None  # (indent, where) of the first least indented object line
    for found in _OBJECT_LINE.finditer(text, pos):
        width = len(found.group(1))
        if width <= indent:
            return found.end(1)  # at its brace: the reading goes on there
        if least is None or width < least[0]:
            least = (width, found.end(1))
    return least[1] if least is not None else len(text)
