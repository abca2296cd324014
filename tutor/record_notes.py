"""The notes a game record may carry beside its moves, and how they are kept when the game is saved again.

A record writes its moves as plain tokens, with a move's notes (a review's label, tags and comment, or a
player's own) in the parallel ``annotations`` list (spec section 3). Other tools, and hands, write a move as
an object instead, ``{"move": "d", "comment": "turn first"}``, and may give the deal a note of its own
(``{"number": 1, "source": "PySolFC game 715"}``). Both are read: a move object's other fields become that
move's annotation, and the deal's own fields are written back beside its number, so saving such a game again
loses none of them (they were silently dropped). A file laid out that way is still not one the tutor writes
over in place (its moves would come back as tokens): :func:`moves_as_objects` says so, for the callers that
keep such a file as it is.
"""

from __future__ import annotations

from typing import Any

from .errors import RecordError
from .inputs import MAX_DEPTH
from .textsafe import brief

Annotation = dict[str, Any]
"""A move's annotation as JSON: a review's ``label``, ``tags`` and ``comment`` (other keys are kept)."""

DEAL_FIELDS = frozenset({"format", "number", "reserves", "base", "talon"})
"""The fields of a record's ``deal`` the tutor reads; any other is the deal's own note, kept as it is."""


def check_annotation(value: object, where: str) -> Annotation | None:
    """``value`` as a move's annotation (an object or null), or :class:`RecordError` saying what would be right."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RecordError(f"{where}: expected an object like "
                        f'{{"label": "best", "tags": [], "comment": "..."}} or null, not {brief(value)}')
    if "tags" in value and not (isinstance(value["tags"], list) and all(isinstance(t, str) for t in value["tags"])):
        raise RecordError(f"{where}: 'tags' must be a list of words, not {brief(value['tags'])}")
    for key in ("label", "comment"):
        if key in value and value[key] is not None and not isinstance(value[key], str):
            raise RecordError(f"{where}: {key!r} must be text, not {brief(value[key])}")
    return value


def move_object_notes(moves: object) -> list[Annotation | None]:
    """For each entry of a record's ``moves``, the fields of a move object other than its ``move`` (None for a
    plain token, or an object with nothing else in it)."""
    if not isinstance(moves, list):
        return []
    return [{k: v for k, v in token.items() if k != "move"} or None
            if isinstance(token, dict) and "move" in token else None for token in moves]


def merged_notes(given: list[Annotation | None], from_moves: list[Annotation | None]) -> list[Annotation | None]:
    """The ``annotations`` list with each move object's fields folded in; where both name a key, the record's
    own ``annotations`` entry wins (it is the record's layout for them)."""
    out: list[Annotation | None] = []
    for i in range(max(len(given), len(from_moves))):
        mine = given[i] if i < len(given) else None
        other = from_moves[i] if i < len(from_moves) else None
        out.append({**other, **(mine or {})} if other else mine)
    while out and out[-1] is None:
        out.pop()
    return out


def usable_notes(notes: list[Annotation | None], source: str) -> tuple[list[Annotation | None], str | None]:
    """The notes with each field an annotation cannot hold taken out (a move object of another tool may give a
    label that is a number: its file loaded before, and is not to fail now), and the warning that says which;
    the record's own ``annotations`` were checked already (:func:`check_annotation`), so these came from move
    objects, whose file is never written over (:func:`moves_as_objects`)."""
    out: list[Annotation | None] = []
    dropped: list[str] = []
    for i, note in enumerate(notes, 1):
        bad = [] if note is None else [k for k in ("label", "comment", "tags") if k in note and _unusable(k, note[k])]
        dropped += [f"move {i}'s {k!r}" for k in bad]
        out.append({k: v for k, v in note.items() if k not in bad} or None if note is not None else None)
    if not dropped:
        return out, None
    return out, (f"{source}: {', '.join(dropped[:3])}{' and more' if len(dropped) > 3 else ''} in its move objects "
                 "cannot be an annotation (a label or comment is text, tags a list of words) and is not kept when "
                 "this game is saved again")


def _unusable(key: str, value: object) -> bool:
    if key == "tags":
        return not (isinstance(value, list) and all(isinstance(t, str) for t in value))
    return value is not None and not isinstance(value, str)


def deal_notes(value: object) -> dict[str, Any]:
    """The fields of a record's ``deal`` object that the tutor does not read (a source, a note)."""
    return {k: v for k, v in value.items() if k not in DEAL_FIELDS} if isinstance(value, dict) else {}


def moves_as_objects(data: object) -> int | None:
    """The first move (counted from 1) a record's JSON writes as an object with more than its move in it, or
    None: such a file is written by another tool (or is a review's report), and a save would write it anew."""
    moves = data.get("moves") if isinstance(data, dict) else None
    for i, note in enumerate(move_object_notes(moves), 1):
        if note:
            return i
    return None


HISTORY_DEPTH = MAX_DEPTH - 1
"""The deepest a record may nest in the history: an export line holds it one level down, and the tutor reads
JSON to :data:`~tutor.inputs.MAX_DEPTH` levels. The game file keeps every field; the history's copy leaves out
what would nest deeper (:func:`for_history`)."""


def for_history(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a record's JSON) without the fields of its own, of its deal or of an annotation that nest past
    :data:`HISTORY_DEPTH` (an export of the history holding them could not be read back); the rest as it is."""
    def fits(value: object, room: int) -> object:
        if not isinstance(value, (dict, list)):
            return value
        if room < 1:
            return _LEFT_OUT
        items = [(k, fits(v, room - 1)) for k, v in (value.items() if isinstance(value, dict) else enumerate(value))]
        if isinstance(value, list):
            return _LEFT_OUT if any(v is _LEFT_OUT for _, v in items) else [v for _, v in items]
        return {k: v for k, v in items if v is not _LEFT_OUT}
    out = fits(data, HISTORY_DEPTH)
    assert isinstance(out, dict)  # the tutor's own fields nest a few levels
    return out


_LEFT_OUT = object()


def too_deep(data: dict[str, Any]) -> list[str]:
    """The top-level fields of ``data`` that :func:`for_history` shortens (its deal, its annotations, or a
    field of its own)."""
    short = for_history(data)
    return [k for k in data if short.get(k) != data[k]]
