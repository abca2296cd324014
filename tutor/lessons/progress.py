"""The player's progress file: which lessons are done, checked field by field, a broken file set aside."""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import LessonError
from ..inputs import MAX_DIGITS, check_shape, loads_json, read_text
from ..storage import atomic_write_text, folder_lock, is_regular_file, progress_path
from ..textsafe import os_reason, quoted
from .format import NAME_PATTERN

PROGRESS_FORMAT = "osmosis-progress/1"

@dataclass
class Progress:
    """Which lessons the player finished, and how their last run went.

    ``warning`` is set when a broken progress file was found and set aside.
    """

    path: Path
    lessons: dict[str, dict[str, Any]] = field(default_factory=dict)
    warning: str | None = None
    changed: set[str] = field(default_factory=set)
    """The lessons this run recorded: :meth:`save` writes these into the file as it is then."""

    def done(self, name: str) -> bool:
        return bool(self.lessons.get(name, {}).get("done"))

    def record(self, name: str, right: int, asked: int, finished: bool) -> None:
        entry = dict(self.lessons.get(name, {}))
        entry["done"] = bool(entry.get("done")) or finished
        entry["last"] = {"right": right, "asked": asked, "finished": finished}
        if finished:
            best = entry.get("best_right", -1)
            entry["best_right"] = max(best, right)
        self.lessons[name] = entry
        self.changed.add(name)

    def save(self) -> str | None:
        """Write this run's lessons into the file as it is now, under the folder's lock: two lessons taken at
        once in two terminals each keep their own (the file was read at the start and written whole at the
        end, and the last one to end erased the other's lesson).

        A file that broke since it was read (cut short, edited, another run's entry that makes no sense) is
        renamed aside first, as :func:`load_progress` does, and its good entries kept: the save wrote this
        run's entries over it, and another run's were lost for good, with no word. Returns the warning line
        for that, or None. Raises OSError when the file cannot be written, or a broken one cannot be set
        aside (it is then left as it is, never written over)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with folder_lock(self.path):
            now, problem = _examine(self.path)
            moved = None
            if problem is not None:
                aside, moved = _move_aside(self.path)
                if aside is None:
                    raise OSError(f"{problem}; {moved}")
            # a broken file's entries that could not be read: this run's, as it read them, stand for them
            merged = dict(now) if problem is None else {**self.lessons, **now}
            for name in self.changed:
                merged[name] = _merged(now.get(name), self.lessons[name])
            self.lessons = merged
            data = {"format": PROGRESS_FORMAT, "lessons": self.lessons}
            atomic_write_text(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")
        return None if problem is None else f"{problem}; {moved}, {_keeping(len(merged))}"


def _merged(theirs: dict[str, Any] | None, mine: dict[str, Any]) -> dict[str, Any]:
    """One lesson's entry as another run left it, with this run's on top: done if either finished it, the best
    of both scores, this run's last try."""
    if not theirs:
        return mine
    entry = {**theirs, **mine, "done": bool(theirs.get("done")) or bool(mine.get("done"))}
    best = max(theirs.get("best_right", -1), mine.get("best_right", -1))
    if best >= 0:
        entry["best_right"] = best
    return entry


class _OddNumber:
    """A number JSON can hold but no count is (``1e999``, ``NaN``, 34 digits), kept in its place as written,
    so only the entry that holds it is dropped: refused by the reader, it threw away every lesson's progress
    (a ``-1`` there dropped its entry alone)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _int(text: str) -> int | _OddNumber:
    return _OddNumber(text) if len(text.lstrip("-")) > MAX_DIGITS else int(text)


def _float(text: str) -> float | _OddNumber:
    value = float(text)
    return value if math.isfinite(value) else _OddNumber(text)


def _read(path: Path) -> object:
    """The progress file's JSON, read once and within the limits of any file the tutor reads; a number past
    them (:class:`_OddNumber`), text that is not valid Unicode or nesting too deep are left for the entry that
    holds them to be dropped (:func:`_entry_problem`). LessonError for a file that is not JSON at all."""
    text = read_text(path, "progress file", LessonError)
    try:
        return loads_json(text, f"progress file {quoted(path)}", LessonError)
    except LessonError as exc:
        try:
            data = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_OddNumber)
        except (ValueError, RecursionError):
            raise exc from None
        if not isinstance(data, dict) or data.get("format") != PROGRESS_FORMAT:
            raise exc from None  # no progress file: said in the reader's words
        return data


def _examine(path: Path) -> tuple[dict[str, dict[str, Any]], str | None]:
    """The usable entries of the progress file at ``path`` as it is now, and what is wrong with it: None when
    nothing is (no file is nothing wrong)."""
    if not os.path.exists(path):  # a link to nothing too: the write makes the file it names
        return {}, None
    if not is_regular_file(path):  # a pipe would block the read, a folder cannot be one
        return {}, f"progress file {quoted(path)} is not a regular file"
    try:
        data = _read(path)
    except LessonError as exc:
        return {}, str(exc)
    found = _entries(data)
    if found is None:
        return {}, f"progress file {quoted(path)} is not an {PROGRESS_FORMAT} file"
    lessons, problems = found
    if problems:
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        return lessons, f"progress file {quoted(path)} has entries that are not usable ({problems[0]}{more})"
    return lessons, None


def _entries(data: object) -> tuple[dict[str, dict[str, Any]], list[str]] | None:
    """A progress file's JSON as (its usable entries, what is wrong with each other one), or None when it is no
    progress file at all."""
    if not isinstance(data, dict) or data.get("format") != PROGRESS_FORMAT or not isinstance(data.get("lessons"), dict):
        return None
    lessons, problems = {}, []
    for name, entry in data["lessons"].items():
        problem = _entry_problem(name, entry)
        if problem:
            problems.append(f"{quoted(name, limit=40)}: {problem}")
        else:
            lessons[name] = entry
    for key, value in data.items():  # a field of a later osmosis is not written back: one that is odd is said
        problem = None if key in ("format", "lessons") else _shape_problem({key: value})
        if problem:
            problems.append(f"field {quoted(key, limit=40)}: {problem}")
    return lessons, problems


def load_progress(path: Path | None = None) -> Progress:
    """The saved progress; a broken file is renamed aside and reported in ``warning``, never raised.

    Every field is checked; entries that are not usable are dropped (the
    file is set aside first, so nothing is lost) and the good ones kept.
    """
    path = path or progress_path()
    try:
        os.stat(path)
    except FileNotFoundError:
        return Progress(path)
    except (OSError, ValueError) as exc:
        reason = os_reason(exc) if isinstance(exc, OSError) else "not a usable file name"
        return Progress(path, {}, warning=f"progress file {quoted(path)} cannot be used ({reason}); "
                                          "progress is not kept this time")
    lessons, problem = _examine(path)
    if problem is not None:
        return _set_aside(path, problem, lessons)
    return Progress(path, lessons)


_MAX_COUNT = 10_000


def _count_ok(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_COUNT


def _entry_problem(name: object, entry: object) -> str | None:
    """What is wrong with one lesson's progress entry, or None; unknown fields are kept as they are."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name) or len(name) > 100:
        return "not a lesson name"
    if not isinstance(entry, dict):
        return "expected an object with done, last and best_right"
    if "done" in entry and not isinstance(entry["done"], bool):
        return "'done' is not true or false"
    if "best_right" in entry and not _count_ok(entry["best_right"]):
        return "'best_right' is not a count"
    last = entry.get("last")
    if last is not None:
        if not isinstance(last, dict):
            return "'last' is not an object with right, asked and finished"
        for key in ("right", "asked"):
            if not _count_ok(last.get(key)):
                return f"'last.{key}' is not a count"
        if not isinstance(last.get("finished"), bool):
            return "'last.finished' is not true or false"
        if last["right"] > last["asked"]:
            return "'last.right' is more than 'last.asked'"
    return _shape_problem(entry)


def _shape_problem(entry: dict[str, Any]) -> str | None:
    """What in an entry's other fields (kept as they are) could not be written back: a number past what a
    count can be, text that is not valid Unicode, nesting too deep."""
    stack: list[object] = [entry]
    while stack:
        value = stack.pop()
        if isinstance(value, _OddNumber):
            return f"it holds {value.text[:40]}, not a usable number"
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    try:
        check_shape(entry, "it", LessonError)
    except LessonError as exc:
        return str(exc).removeprefix("it is not usable: ")
    return None


def _move_aside(path: Path) -> tuple[Path | None, str]:
    """Rename a broken progress file aside, never deleted and never over an earlier one: where it went (None:
    it could not be moved) and the words for it."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        aside = path.with_name(f"{path.name}.broken-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            os.link(path, aside)  # never replaces an earlier broken file
        except FileExistsError:
            continue
        except OSError:
            try:
                if aside.exists():
                    continue
                os.replace(path, aside)
            except OSError as exc:
                return None, f"and could not be set aside ({os_reason(exc)})"
        else:
            try:
                os.unlink(path)
            except OSError:
                pass
        return aside, f"set aside as {quoted(aside)}"
    return None, "and could not be set aside (no free name)"


def _keeping(kept: int) -> str:
    if not kept:
        return "starting afresh"
    return f"keeping the {kept} good entr{'y' if kept == 1 else 'ies'}"


def _set_aside(path: Path, problem: str, kept: dict[str, dict[str, Any]]) -> Progress:
    """Rename a broken progress file aside (never deleted) and go on with the entries that were good."""
    aside, moved = _move_aside(path)
    progress = Progress(path, dict(kept), changed=set(kept))  # written back whole: the file is set aside
    start = _keeping(len(kept))
    if kept and aside is None:
        start += " for this run"  # written back, they would take the place of the broken file
    elif kept:
        try:
            progress.save()  # the good entries stay in use from the next run on
        except OSError as exc:
            start += f" for this run (they cannot be written back: {os_reason(exc)})"
    progress.warning = f"{problem}; {moved}, {start}"
    return progress
