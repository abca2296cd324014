"""The data folder and how files are written there.

One home for the paths the tutor keeps (games, lesson progress, the history
database, the survey store) and for writing a file safely: through a
temporary file and a rename, so a failure never truncates the old one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def data_dir() -> Path:
    """The tutor's data folder.

    ``$OSMOSIS_HOME``, else ``$XDG_DATA_HOME/osmosis-tutor``, else
    ``~/.local/share/osmosis-tutor``.
    """
    home = os.environ.get("OSMOSIS_HOME")
    if home:
        return Path(home)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "osmosis-tutor"


def games_dir() -> Path:
    """Where ``play`` keeps its autosaved records."""
    return data_dir() / "games"


def progress_path() -> Path:
    """The lesson progress file."""
    return data_dir() / "progress.json"


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write a file through a temporary file and a rename, so a failure never truncates it."""
    p = Path(path)
    directory = p.parent if str(p.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
