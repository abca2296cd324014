"""File names as the history stores them: UTF-8 text, or bytes that are not UTF-8 kept escaped."""

from __future__ import annotations

import re

__all__ = ["BYTES_MARK", "storable", "path_of"]

#: The mark of a stored name that held bytes that are not UTF-8 (see :func:`storable`).
BYTES_MARK = "bytes:"
_ESCAPED = re.compile(rb"\\\\|\\x([0-9a-f]{2})")


def storable(text: str) -> str:
    """A file name (or a key made from one) as the history stores it: itself when it is UTF-8 text, as nearly
    every name is. A name with bytes that are not UTF-8 (Python holds them as lone surrogates, which SQLite
    cannot take) is stored as ``bytes:`` and the name with each such byte written ``\\xNN`` and each backslash
    doubled, so :func:`path_of` gets the name back and the file can still be opened."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name holds (a JSON escape): kept distinct all the same
        raw = text.encode("utf-8", "surrogatepass")
    return BYTES_MARK + raw.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def path_of(stored: str) -> str:
    """The file name a stored one stands for (:func:`storable` undone): bytes that are not UTF-8 come back as
    the lone surrogates Python uses for them, so ``open`` finds the file."""
    if not stored.startswith(BYTES_MARK):
        return stored
    body = stored[len(BYTES_MARK):].encode("utf-8")
    raw = _ESCAPED.sub(lambda m: bytes([int(m.group(1), 16)]) if m.group(1) else b"\\", body)
    return raw.decode("utf-8", "surrogateescape")
