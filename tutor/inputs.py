"""Reading the tutor's input files: once, within a size, and never past a clean error.

Deal files, records and the lesson progress file are JSON; lessons are TOML.
Whatever a file holds (nesting 100,000 deep, a number of 5,000 digits, bytes
that are not UTF-8, ``NaN``), the reader raises the caller's error class with
one line that names the file, or returns the data. Every file is read with a
single ``read`` so ``/dev/stdin`` and ``<(...)`` work too.
"""

from __future__ import annotations

import codecs
import json
import math
import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from .textsafe import os_reason, quoted

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64
MAX_DIGITS = 30  # a deal number has at most 21 (10**20); nothing in these formats needs more

# The caller's error class (a TutorError subclass), called with the one-line message.
ErrorFactory = Callable[[str], Exception]
# Parsed JSON or TOML is Any: the caller checks its shape field by field.
Data = Any


class _TooLarge(ValueError):
    pass


def read_text(path: str | os.PathLike[str], what: str, error: ErrorFactory, limit: int = MAX_FILE_BYTES) -> str:
    """The text of ``path`` (read once); ``error(message)`` names the file and the problem."""
    name = f"{what} {quoted(path)}"
    try:
        # a named pipe with no writer would block the open for ever: opened without waiting, and then read
        # as usual (with no writer the read ends at once; a pipe from the shell, <(...), is read whole)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with open(fd, "rb") as fh:
            own = _own_output(fd)
            data = b"" if own else read_at_most(fh, limit + 1)
    except FileNotFoundError:
        raise error(f"{name} does not exist") from None
    except IsADirectoryError:
        raise error(f"{name} is a directory, not a {what}") from None
    except OSError as exc:
        raise error(f"{name} cannot be read: {os_reason(exc)}") from None
    except ValueError:  # an embedded NUL character in the name
        raise error(f"{name} is not a usable file name (it holds a NUL character)") from None
    if own:
        raise error(f"{name} is this command's own output (a pipe it writes to, which it would wait on for ever): "
                    f"expected a {what} to read")
    if len(data) > limit:
        raise error(f"{name} is larger than {limit // (1024 * 1024)} MB: this is not a {what}")
    try:
        # a byte-order mark (as some editors write) is no part of the text
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise error(f"{name} is not UTF-8 text (byte {exc.start + 1} cannot be decoded)") from None


def _own_output(fd: int) -> bool:
    """``fd`` is the pipe this process writes its output or errors to (``/dev/stdout`` piped to a pager)."""
    import stat

    try:
        st = os.fstat(fd)
        if not stat.S_ISFIFO(st.st_mode):
            return False
        return any((o.st_dev, o.st_ino) == (st.st_dev, st.st_ino) for o in map(os.fstat, (1, 2)))
    except OSError:  # an output closed: not this file
        return False


def read_at_most(fh: BinaryIO, most: int, chunk: int = 1 << 16) -> bytes:
    """Up to ``most`` bytes of ``fh``, read a piece at a time: ``fh.read(most)`` sets aside all ``most`` bytes
    first, and a 1 KB record under a 250 MB memory limit failed with MemoryError (16 MB set aside a file)."""
    parts: list[bytes] = []
    size = 0
    while size < most:
        part = fh.read(min(chunk, most - size))
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def capped_int(digits: str, most: int) -> int:
    """A string of ASCII digits as a number, or ``most + 1`` when it has more digits than ``most`` (no huge
    int is made: int() refuses past 4,300 digits)."""
    text = digits.lstrip("0") or "0"
    return int(text) if len(text) <= len(str(most)) else most + 1


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _TooLarge(f"a number of {len(text.lstrip('-'))} digits is too large (at most {MAX_DIGITS})")
    return int(text)


def _parse_constant(text: str) -> NoReturn:
    raise _TooLarge(f"{text} is not a JSON number")


def sniff(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> tuple[str, bool]:
    """What a regular file at ``path`` says it is, for a check before writing over it: its first ``limit``
    bytes as text (UTF-8, or UTF-16/32 where it starts with their byte-order mark, as an editor may save it;
    bytes that do not decode are replaced) and whether that is the whole file. ``("", True)`` for no regular
    file or one that cannot be read: the write itself says what is wrong."""
    try:
        p = Path(path)
        if not p.is_file():
            return "", True
        with p.open("rb") as fh:
            data = read_at_most(fh, limit + 1)
    except (OSError, ValueError, MemoryError):
        return "", True
    whole, data = len(data) <= limit, data[:limit]
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                       (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(codec, errors="replace"), whole
    return data.decode("utf-8-sig", errors="replace"), whole


def sniff_json(path: str | os.PathLike[str]) -> tuple[object, str]:
    """The JSON value in the file at ``path`` (see :func:`sniff`), or ``None`` where it holds none (cut short,
    hand-edited, larger than a file the tutor reads), with the text read, for its markers."""
    text, whole = sniff(path)
    if whole and text.strip():
        try:
            return json.loads(text), text
        except (ValueError, RecursionError):
            pass
    return None, text


def loads_json(text: str, name: str, error: ErrorFactory) -> Data:
    """JSON data from ``text``; ``error(message)`` for anything that is not plain, bounded JSON."""
    # what would be right: the kind of file the error's class is for (DealError: a deal file), if it says
    holds = getattr(error, "holds", "")
    expected = f": expected {holds}" if holds else ""
    if not text.strip():
        raise error(f"{name} is empty{expected}")
    try:
        data = json.loads(text, parse_int=_parse_int, parse_constant=_parse_constant)
    except json.JSONDecodeError as exc:
        raise error(f"{name} is not valid JSON ({exc.msg.removesuffix(' at')} at line {exc.lineno} column "
                    f"{exc.colno}){expected}") from None
    except _TooLarge as exc:
        raise error(f"{name} is not usable: {exc}") from None
    except RecursionError:
        raise error(f"{name} is not usable: it is nested too deep (at most {MAX_DEPTH} levels)") from None
    check_shape(data, name, error)
    return data


def load_json(path: str | os.PathLike[str], what: str, error: ErrorFactory) -> Data:
    """Read and parse a JSON file once (see :func:`read_text` and :func:`loads_json`)."""
    return loads_json(read_text(path, what, error), f"{what} {quoted(path)}", error)


def loads_toml(text: str, name: str, error: ErrorFactory) -> dict[str, Data]:
    """TOML data from ``text``, bounded like :func:`loads_json`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{name}: not valid TOML: {exc}") from None
    except RecursionError:
        raise error(f"{name}: not usable: it is nested too deep (at most {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # an integer beyond Python's conversion limit
        raise error(f"{name}: not usable: {str(exc).split(':')[0]}") from None
    check_shape(data, name, error)
    return data


def check_shape(data: object, name: str, error: ErrorFactory) -> None:
    """Refuse data nested deeper than :data:`MAX_DEPTH`, holding a number beyond :data:`MAX_DIGITS` digits,
    or text that cannot be written back as UTF-8.

    Walked without recursion, so the check itself cannot overflow the stack.
    """
    limit = 10 ** MAX_DIGITS
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise error(f"{name} is not usable: it is nested too deep (at most {MAX_DEPTH} levels)")
            if isinstance(value, dict):
                stack.extend((k, depth) for k in value)
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items)
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise error(f"{name} is not usable: it holds text that is not valid Unicode "
                            "(an escaped lone surrogate like \\ud800)") from None
        elif isinstance(value, int) and not isinstance(value, bool) and not -limit < value < limit:
            raise error(f"{name} is not usable: a number is too large (at most {MAX_DIGITS} digits)")
        elif isinstance(value, float) and not math.isfinite(value):
            raise error(f"{name} is not usable: {value} is not a finite number")
