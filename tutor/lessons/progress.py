"""The player's progress file: which lessons are done, checked field by field, a broken file set aside."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import LessonError
from ..inputs import load_json
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

    def save(self) -> None:
        """Write this run's lessons into the file as it is now, under the folder's lock: two lessons taken at
        once in two terminals each keep their own (the file was read at the start and written whole at the
        end, and the last one to end erased the other's lesson)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with folder_lock(self.path):
            now = _good_entries(self.path)
            if now is not None:
                merged = dict(now)
                for name in self.changed:
                    merged[name] = _merged(now.get(name), self.lessons[name])
                self.lessons = merged
            data = {"format": PROGRESS_FORMAT, "lessons": self.lessons}
            atomic_write_text(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")


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


def _good_entries(path: Path) -> dict[str, dict[str, Any]] | None:
    """The usable entries of the progress file at ``path`` as it is now: {} for no file, None for one that
    cannot be read as a progress file (this run's entries are written as they are, as before)."""
    try:
        if not path.exists():
            return {}
        if not is_regular_file(path):
            return None
        data = load_json(path, "progress file", LessonError)
    except (OSError, LessonError):
        return None
    found = _entries(data)
    return None if found is None else found[0]


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
    if not is_regular_file(path):  # a pipe would block the read, a folder cannot be one
        return _set_aside(path, f"progress file {quoted(path)} is not a regular file", {})
    try:
        data = load_json(path, "progress file", LessonError)
    except LessonError as exc:
        return _set_aside(path, str(exc), {})
    found = _entries(data)
    if found is None:
        return _set_aside(path, f"progress file {quoted(path)} is not an {PROGRESS_FORMAT} file", {})
    lessons, problems = found
    if problems:
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        return _set_aside(path, f"progress file {quoted(path)} has entries that are not usable "
                                f"({problems[0]}{more})", lessons)
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
    return None


def _set_aside(path: Path, problem: str, kept: dict[str, dict[str, Any]]) -> Progress:

    """Rename a broken progress file aside (never deleted) and go on with the entries that were good."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    moved = None
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
                moved = f"and could not be set aside ({os_reason(exc)})"
                break
        else:
            try:
                os.unlink(path)
            except OSError:
                pass
        moved = f"set aside as {quoted(aside)}"
        break
    moved = moved or "and could not be set aside (no free name)"
    progress = Progress(path, dict(kept), changed=set(kept))  # written back whole: the file is set aside
    start = "starting afresh"
    if kept:
        start = f"keeping the {len(kept)} good entr{'y' if len(kept) == 1 else 'ies'}"
        try:
            progress.save()  # the good entries stay in use from the next run on
        except OSError as exc:
            start += f" for this run (they cannot be written back: {os_reason(exc)})"
    progress.warning = f"{problem}; {moved}, {start}"
    return progress
