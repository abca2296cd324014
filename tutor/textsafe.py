"""Text that came from outside (a file, an environment variable, a typed line) made safe to print.

A record or lesson shared by someone else may carry escape sequences that
clear the screen or retitle the terminal; a file name may hold a newline
that makes one error look like two, or bytes that are not UTF-8 (Python
keeps them as lone surrogates, which a strict UTF-8 stream cannot write).
Everything printed from such a source goes through :func:`clean` (free text)
or :func:`quoted` / :func:`shown_path` (names), so output stays one line per
message and free of control codes.
"""

from __future__ import annotations

import codecs
import datetime
import json
import os
import re
import shlex
import unicodedata

# Cc: control characters (ESC, BEL, NUL, CR, ...); Cf: format characters such as
# the bidirectional overrides that reorder what a line appears to say; Cs: lone
# surrogates (undecodable bytes); Co/Cn: private use and unassigned code points.
_UNSAFE = {"Cc", "Cf", "Cs", "Co", "Cn"}
_KEEP_FORMAT = {"\u200d"}  # the zero-width joiner that builds emoji sequences is harmless
REPLACEMENT = "\ufffd"
MAX_QUOTED = 120


def _safe_char(ch: str, newlines: bool) -> str:
    if ch == "\n":
        return "\n" if newlines else " "
    if ch == "\t":
        return " "
    if ch in _KEEP_FORMAT:
        return ch
    return REPLACEMENT if unicodedata.category(ch) in _UNSAFE else ch


def clean(text: object, newlines: bool = False) -> str:
    """``text`` with every control, format and undecodable character replaced (U+FFFD).

    Tabs become spaces; newlines too unless ``newlines`` (multi-line lesson text).
    """
    text = str(text)
    if text.isprintable() and "\t" not in text:
        return text  # the common case: nothing to do
    return "".join(_safe_char(ch, newlines) for ch in text)


MAX_WORD = 500


def tame(text: str, limit: int = MAX_WORD) -> str:
    """``text`` with every run of more than ``limit`` characters without a space cut to its first
    :data:`MAX_QUOTED` and a count: a one-line message stays readable whatever input it quotes."""
    if len(text) <= limit:
        return text
    return re.sub(rf"\S{{{limit + 1},}}",
                  lambda m: f"{m.group()[:MAX_QUOTED]}... ({len(m.group())} characters)"
                  + (m.group()[-1] if m.group()[-1] in ":,;." else ""), text)


def quoted(value: object, limit: int = MAX_QUOTED) -> str:
    """A name quoted as Python's ``repr`` does (escapes for anything unprintable), cut to ``limit`` characters.

    For file names and other input quoted in messages: a newline or an escape
    code shows as ``\\n`` or ``\\x1b``, never as itself.
    """
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, bytes):
        value = value.decode("utf-8", "surrogateescape")
    text = str(value)
    if len(text) > limit:
        keep = max(limit - 20, 10)
        return byte_escapes(repr(text[:keep])[:-1]) + f"...' ({len(text)} characters)"
    return byte_escapes(repr(text))


# an escape of a byte that was no UTF-8 (Python keeps it as a lone surrogate, U+DC80-U+DCFF), where the
# backslash before it is not itself escaped
_SURROGATE = re.compile(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])")


def byte_escapes(text: str) -> str:
    """``repr`` text with each byte that was no UTF-8 (a file name or argument in another encoding) written as
    the byte it was, ``\\xe9``, not as Python's stand-in for it, ``\\udce9``."""
    return _SURROGATE.sub(r"\1\\x\2", text) if "\\udc" in text else text


def shown_path(path: object) -> str:
    """A file name as it is when it is plain printable text, else quoted (see :func:`quoted`)."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    if text.isprintable() and len(text) <= 4 * MAX_QUOTED and not text.startswith(("'", '"')):
        return text
    return quoted(text, limit=4 * MAX_QUOTED)


def os_reason(exc: OSError) -> str:
    """The reason of an OS error without the file name Python appends (that is quoted by the caller)."""
    if exc.strerror:
        return exc.strerror
    return clean(exc) if exc.filename is None and str(exc) else exc.__class__.__name__


def brief(value: object, limit: int = MAX_QUOTED) -> str:
    """A value from a file quoted in a message, cut to ``limit`` characters.

    A string is quoted as Python quotes it (``'XX'``); any other value read from
    JSON is spelled as JSON spells it (``true``, ``null``, ``[1, 2]``), since that
    is what the file holds; anything else is its ``repr``.
    """
    text = byte_escapes(repr(value))
    if not isinstance(value, str):
        try:
            text = _spelled(value)
        except (TypeError, ValueError, RecursionError):
            pass
    return text if len(text) <= limit else text[: max(limit - 20, 10)] + f"... ({len(text)} characters)"


def _spelled(value: object) -> str:
    """``value`` as JSON spells it, with a date or time (from a TOML file) in ISO 8601, unquoted as TOML writes
    one (``1979-05-27``, ``07:32:00``; a time zone of UTC as +00:00, which TOML reads as well)."""
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(map(_spelled, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k if isinstance(k, str) else json.dumps(k), ensure_ascii=True)}: {_spelled(v)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=True)


# ---------------------------------------------------------------- output a terminal cannot encode

STAND_INS = {
    "▒": "#", "·": ".", "♠": "S", "♥": "H", "♦": "D", "♣": "C", "\ufe0f": "", "\ufe0e": "",
    "—": "-", "–": "-", "…": "...", "←": "<-", "→": "->", "↑": "^", "↓": "v", "▲": "^", "▼": "v",
    "⁈": "?!", "⁇": "??", "‘": "'", "’": "'", "“": "'", "”": "'", "×": "x", "≤": "<=", "≥": ">=",
    "±": "+/-", "•": "*", "━": "-", "─": "-", "│": "|", "✓": "+", "✗": "x", "\u00a0": " ", "\u2009": " ",
    **{block: str(level) for level, block in enumerate("▁▂▃▄▅▆▇█", start=1)},
}
"""ASCII for the few glyphs the tool prints (card backs, empty cells, suits, the sparkline, arrows,
dashes), where the output's encoding cannot show them (a ``C`` locale, ``PYTHONIOENCODING=ascii``)."""

ERRORS = "osmosis-stand-in"
"""The codec error handler that writes :data:`STAND_INS` (else a ``\\u`` escape) for a character the encoding
lacks."""


def _stand_in(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start:error.end]
    # another character (a name the player gave, say) as Python's own \\u escape: never a lookalike
    return "".join(STAND_INS[ch] if ch in STAND_INS else ch.encode("ascii", "backslashreplace").decode("ascii")
                   for ch in text), error.end


codecs.register_error(ERRORS, _stand_in)


def encodable_streams(*streams: object) -> None:
    """Let ``streams`` (stdout, stderr) write every character: where their encoding lacks one, its ASCII
    stand-in (``▒▒`` as ``##``, ``7♠`` as ``7S``), not a UnicodeEncodeError that would end the command."""
    for stream in streams:
        encoding = getattr(stream, "encoding", None)
        reconfigure = getattr(stream, "reconfigure", None)
        if not encoding or reconfigure is None:
            continue
        try:
            "▒·♠—⁈▁".encode(encoding)
        except UnicodeEncodeError:
            reconfigure(errors=ERRORS)
        except LookupError:
            pass


def shows(text: str, console: object) -> bool:
    """Whether the console's output can show ``text`` as it is (else its ASCII stand-ins are written)."""
    encoding = getattr(console, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    except LookupError:
        return True
    return True


def utf8_argument(arg: str) -> str:
    """A command-line word as the player typed it.

    Python decodes the command line with the locale's encoding: in a C locale without UTF-8 mode
    (``LC_ALL=C PYTHONUTF8=0``) the bytes of ``5\u2663`` stay surrogate escapes, in a Latin-1 locale they
    become three Latin-1 letters; either way no card name matches. Bytes that are UTF-8 are read as
    such; any others are left as they were (the error then names them). Not for file names, whose
    decoding is what opens the file.
    """
    import sys

    try:
        return arg.encode(sys.getfilesystemencoding(), "surrogateescape").decode("utf-8")
    except (UnicodeError, LookupError):
        return arg


def shell_word(path: str) -> str:
    """A file name as one word for the shell: as :func:`shlex.quote` gives it when it is printable text, else in
    bash's ``$'...'`` quotes, each byte that is not printable UTF-8 text written ``\\xNN``, so the command
    copied from the screen opens that very file (and no control code reaches the terminal)."""
    if path.isprintable():
        return shlex.quote(path)
    out = []
    for ch in path:
        if ch.isprintable() and ch not in "\\'":
            out.append(ch)
        elif ch in "\\'":
            out.append("\\" + ch)
        else:
            try:
                raw = os.fsencode(ch)  # a byte that is not UTF-8, held as a lone surrogate, is that byte again
            except UnicodeEncodeError:
                raw = ch.encode("utf-8", "surrogatepass")
            out.append("".join(f"\\x{b:02x}" for b in raw))
    return "$'" + "".join(out) + "'"
