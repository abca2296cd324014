"""Reviews kept for the next look, so a game reviewed once opens at once.

``osmosis replay`` reviews the game it shows, and ``review``, ``coach`` and
the end of ``play`` review games too: 4-12 s for an Osmosis game, minutes
for a limited one. The review is deterministic (every sample is seeded from
what the player saw), so the same game under the same settings and the same
code always gets the same review, and the second look can reuse the first.

An entry is keyed by the game itself (rules, deal and moves, wherever its
file lies), the review's settings (samples, thresholds, blind games at each
error) and a fingerprint of the tutor's own source and of the libraries the
deals come from, so a changed game, setting or engine is reviewed again.
Entries live in the data folder's ``cache/reviews``, the newest
:data:`KEEP`. The cache only ever changes speed: an entry that is damaged,
from another version or unreadable is reviewed again, and one that cannot be
written (a read-only or full disk) is simply not kept. Entries are pickles
in the player's own data folder, read by the player's own commands only.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import pickle
import sys
import tempfile
import time
from functools import cache
from pathlib import Path

from ..record import Record, content_of
from ..storage import STALE_SECONDS, data_dir, temp_prefix
from .grades import Thresholds
from .values import Review

__all__ = ["KEEP", "cache_dir", "load", "save", "key_of"]

#: How many reviews are kept (each 0.1-1 MB); the least recently used go first.
KEEP = 64
_FORMAT = 1


def cache_dir() -> Path:
    return data_dir() / "cache" / "reviews"


@cache
def _fingerprint() -> str:
    """The tutor's own source files and the versions of the libraries that shape a review."""
    h = hashlib.sha256(f"{_FORMAT} {sys.version_info[:2]}".encode())
    root = Path(__file__).resolve().parent.parent
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"?")
    for dist in ("pysol_cards", "networkx"):
        try:
            h.update(f"{dist} {importlib.metadata.version(dist)}".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(dist.encode())
    return h.hexdigest()


def key_of(record: Record, samples: int | None, thresholds: Thresholds, practical: int | None) -> str:
    parts = [_fingerprint(), content_of(record), repr(samples), repr(sorted(thresholds.to_json().items())),
             repr(practical)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:40]


def load(record: Record, samples: int | None, thresholds: Thresholds, practical: int | None) -> Review | None:
    """The kept review of this game under these settings, for this record; None when there is none."""
    path = cache_dir() / f"{key_of(record, samples, thresholds, practical)}.pickle"
    try:
        rev = pickle.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - damaged or from another version: review again
        _remove(path)
        return None
    if not isinstance(rev, Review) or len(rev.moves) != len(record.moves):
        _remove(path)
        return None
    try:
        os.utime(path)  # recently used: kept longest
    except OSError:
        pass
    rev.record = record  # the game is the same; its file's headers (player, date) are this one's
    return rev


def save(rev: Review, samples: int | None, thresholds: Thresholds, practical: int | None) -> None:
    """Keep a review for the next look; never raises (the review itself is done)."""
    try:
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{key_of(rev.record, samples, thresholds, practical)}.pickle"
        data = pickle.dumps(rev, protocol=pickle.HIGHEST_PROTOCOL)
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
        except BaseException:
            _remove(Path(tmp))
            raise
        _prune(folder)
    except Exception:  # noqa: BLE001 - a cache that cannot be written changes nothing but speed
        return


def _prune(folder: Path) -> None:
    now = time.time()
    for p in folder.glob(".*.tmp"):  # left by a save that was killed
        try:
            if now - p.stat().st_mtime > STALE_SECONDS:
                _remove(p)
        except OSError:
            continue
    entries = []
    for p in folder.glob("*.pickle"):
        try:
            entries.append((p.stat().st_mtime, p))
        except OSError:
            continue
    entries.sort(reverse=True)
    for _, p in entries[KEEP:]:
        _remove(p)


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
