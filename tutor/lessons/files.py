"""Finding the lesson files: shipped in the package (``tutor/lessons/data``) or in a source checkout."""

from __future__ import annotations

import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from ..errors import LessonError
from ..inputs import read_text
from ..textsafe import clean, quoted
from .format import MAX_LEVEL, Lesson, parse_lesson

#: The lesson files' folder inside the installed package.
DATA = "data"

def lesson_files() -> list[tuple[str, Traversable]]:
    """``(name, resource)`` for every lesson file, from the installed package or the source tree.

    A wheel carries the lessons as ``tutor/lessons/data`` (pyproject.toml
    force-includes the repository's ``lessons/`` folder there); a source
    checkout or an editable install keeps them in the repository's
    ``lessons/`` folder, two levels above this package.
    """
    packaged = resources.files("tutor.lessons").joinpath(DATA)
    if packaged.is_dir():
        root = packaged
    else:
        root = Path(__file__).resolve().parent.parent.parent / "lessons"
        if not root.is_dir():
            raise LessonError(f"no lessons folder found (looked in the package and in {quoted(root)})")
    found = [(entry.name[: -len(".toml")], entry) for entry in root.iterdir()
             if entry.name.endswith(".toml") and entry.is_file()]
    return sorted(found, key=lambda item: item[0])


def load_lesson_file(path: str | os.PathLike[str] | Traversable) -> Lesson:
    """Read one lesson file (a path or an importlib resource)."""
    name = Path(str(path)).name
    stem = name[: -len(".toml")] if name.endswith(".toml") else name
    if isinstance(path, (str, os.PathLike)):
        text = read_text(path, "lesson file", LessonError)  # once, bounded, with a clean error
    else:
        try:
            text = path.read_text(encoding="utf-8")  # a resource shipped in the package
        except (OSError, UnicodeDecodeError) as exc:
            raise LessonError(f"lesson file {quoted(str(path))} cannot be read: {clean(exc)}") from None
    return parse_lesson(text, source=_display(path), name=stem)


def _display(path: str | os.PathLike[str] | Traversable) -> str:

    """A short name for messages: lessons/NAME.toml for shipped lessons."""
    p = Path(str(path))
    if p.parent.name == "lessons" or p.parent.name == DATA and p.parent.parent.name == "lessons":
        return f"lessons/{p.name}"
    return str(path)


def all_lessons() -> list[Lesson]:
    """Every shipped lesson, in teaching order (level, then name)."""
    lessons = [load_lesson_file(res) for _, res in lesson_files()]
    return sorted(lessons, key=lambda lesson: (lesson.level, lesson.name))


def find_lesson(name: str) -> Lesson:
    """The shipped lesson called ``name`` (or its level number), or a lesson file path."""
    if name.endswith(".toml"):
        return load_lesson_file(Path(name))
    files = dict(lesson_files())
    key = name.strip().lower()  # names are lower case; "Layout" and " layout" mean the same lesson
    if key in files:
        return load_lesson_file(files[key])
    if key.isascii() and key.isdigit() and len(key) <= len(str(MAX_LEVEL)):
        for lesson in all_lessons():
            if lesson.level == int(key):
                return lesson
    ordered = all_lessons()  # listed in teaching order, as osmosis lesson lists them
    known = ", ".join(lesson.name for lesson in ordered if lesson.name in files) or "none"
    levels = sorted(lesson.level for lesson in ordered)
    span = f"{levels[0]}-{levels[-1]}" if levels else "none"
    raise LessonError(f"no lesson called {quoted(name, limit=60)}: expected one of {known} "
                      f"(or a level number, {span}, or a file NAME.toml)")
