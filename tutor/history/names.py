"""File names as the history stores them: UTF-8 text, or bytes that are not UTF-8 kept escaped."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ..record import Record
from ..rules import Rules
from ..storage import games_dir

__all__ = ["BYTES_MARK", "storable", "path_of", "key_for_path", "source_of", "variant_name", "rules_name",
           "autosave_stamp"]

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


def variant_name(record: Record) -> str:
    """The variant as stored: a preset name, or the options as compact JSON."""
    return rules_name(record.rules)


def rules_name(rules: Rules) -> str:
    """Rules as the history stores a game's variant (:func:`variant_name`)."""
    value = rules.to_json()
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))


def key_for_path(path: str | Path) -> str:
    p = Path(path).expanduser().resolve()
    try:
        return "games/" + p.relative_to(games_dir().expanduser().resolve()).as_posix()
    except ValueError:
        return "file:" + str(p)


def file_of_key(key: str) -> str | None:
    """The file a file's key (:func:`key_for_path`, a ``#2`` left out) names; None for another key."""
    key = re.sub(r"#\d+$", "", key)
    if key.startswith("games/"):
        return str(games_dir() / key[len("games/"):])
    return key[len("file:"):] if key.startswith("file:") else None


def source_of(path: str | Path) -> str:
    """Where a game's file lies, as an absolute path: a command run from another folder finds it too."""
    return os.path.abspath(os.path.expanduser(os.fspath(path)))


#: The names play gives the files it saves as you play (tutor.cli.saves.autosave_stem, then -2, -3... where
#: the name is taken): ``deal-7-20261206-101500.json``, ``deal-file-20261206-101500-2.json``.
_AUTOSAVE = re.compile(r"deal-(?:\d+|file)-(\d{8}-\d{6})(?:-\d+)?\.json")


def autosave_stamp(name: str) -> str | None:
    """The stamp (``20261206-101500``, when its game began) of a file named as play names a game's own file,
    from its name or a history key ending in it (``games/deal-7-20261206-101500.json#2``); None for any
    other name."""
    base = re.sub(r"#\d+$", "", name).replace("\\", "/").rsplit("/", 1)[-1]  # a key's #2: a copy played on
    match = _AUTOSAVE.fullmatch(base)
    return match.group(1) if match else None
