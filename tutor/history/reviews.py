"""Reviews in the history: one per game, every move with its label, tags and drop.

A review is stored from :class:`tutor.review.Review` (the values, never the
report's words, except each move's own comment). A game that went on after
its review (a resumed game) counts as not reviewed until it is reviewed
again: ``moves_reviewed`` no longer matches its moves.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..notation import ALL_MOVES, expected
from .db import GameRow, History, iso

if TYPE_CHECKING:
    from ..review import Review


@dataclass(frozen=True)
class StoredMove:
    """One reviewed move as the history keeps it."""

    game_id: int
    ply: int
    move: str
    best: str
    label: str
    tags: tuple[str, ...]
    drop: float
    win_before: float
    win_after: float
    graded: bool
    comment: str
    candidates: tuple[dict[str, Any], ...]
    drop_interval: tuple[float, float] | None = None  # the paired 95% interval of ``drop`` (None: not stored)
    drop_samples: int | None = None  # the deals that interval rests on (None: not stored)

    def to_json(self) -> dict[str, Any]:
        data = {"ply": self.ply, "move": self.move, "best": self.best, "label": self.label,
                "tags": list(self.tags), "drop": self.drop, "win_before": self.win_before,
                "win_after": self.win_after, "graded": self.graded, "comment": self.comment,
                "candidates": list(self.candidates)}
        if self.drop_interval is not None:
            data["drop_interval"] = list(self.drop_interval)
        if self.drop_samples is not None:
            data["drop_samples"] = self.drop_samples
        return data

    def candidate(self, move: str) -> dict[str, Any] | None:
        """The stored scores of one move here (checked by :func:`candidate_problem`), or None."""
        return next((c for c in self.candidates if c.get("move") == move), None)


def moves_of(piles: int = 4) -> tuple[str, ...]:
    """The move tokens of a game with ``piles`` reserve piles (Bridesmaids: w and d only), as the notation
    writes its moves."""
    return tuple(str(m) for m in ALL_MOVES if m.kind != "r" or m.pile < piles)


#: A candidate's fields as the review writes them (:meth:`tutor.hints.Candidate.to_json`): field -> kind, range.
_NUMBER_FIELDS: dict[str, tuple[float, float]] = {"win": (0, 1), "cards": (0, 52), "blind_win": (0, 1),
                                                  "drop": (-1, 1)}
_COUNT_FIELDS = ("samples", "undecided", "drop_samples", "cards_samples")
_PAIR_FIELDS: dict[str, tuple[float, float]] = {"interval": (0, 1), "cards_interval": (0, 52),
                                                "drop_interval": (-1, 1)}
_FLAG_FIELDS = ("exact", "certain", "lost", "drop_exact")
MAX_SAMPLES = 10**6


def _is_number(value: object, lo: float, hi: float) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and lo <= value <= hi)


def candidate_problem(c: object, piles: int = 4) -> tuple[str, object, str] | None:
    """What is wrong with a stored candidate (one move's scores), as (field, value, what was expected); None
    when it has the shape the review writes: ``move`` and ``win`` always, the other fields when present.
    The field is "" when the candidate itself is no object."""
    if not isinstance(c, dict):
        return "", c, "an object with the move's scores"
    if c.get("move") not in moves_of(piles):
        return "move", c.get("move"), expected(piles).removeprefix("expected ")
    if "win" not in c:
        return "win", None, "a number from 0 to 1 (the move's win chance)"
    for key, (lo, hi) in _NUMBER_FIELDS.items():
        if (key in c or key == "win") and not _is_number(c.get(key), lo, hi):
            return key, c.get(key), f"a number from {lo:g} to {hi:g}"
    for key in _COUNT_FIELDS:
        value = c.get(key)
        if key in c and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SAMPLES):
            return key, value, f"a whole number from 0 to {MAX_SAMPLES}"
    for key, (lo, hi) in _PAIR_FIELDS.items():
        value = c.get(key)
        if key in c and not (isinstance(value, list) and len(value) == 2 and all(_is_number(x, lo, hi) for x in value)
                             and value[0] <= value[1]):
            return key, value, f"two numbers from {lo:g} to {hi:g}, the lower first"
    for key in _FLAG_FIELDS:
        if key in c and not isinstance(c[key], bool):
            return key, c[key], "true or false"
    for key in ("card", "method"):
        if c.get(key) is not None and not isinstance(c[key], str):
            return key, c[key], "text"
    row = c.get("opens_row")
    if row is not None and (isinstance(row, bool) or row not in (1, 2, 3, 4)):
        return "opens_row", row, "a row from 1 to 4, or null"
    return None


def readable_candidates(text: str) -> tuple[dict[str, Any], ...]:
    """The stored candidates of a move that have the review's shape; the others (an older import took any
    value) are left out, as if not stored, so no reader trips on them."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return ()
    if not isinstance(value, list):
        return ()
    return tuple(c for c in value if candidate_problem(c) is None)


@dataclass(frozen=True)
class StoredReview:
    game_id: int
    moves_reviewed: int
    accuracy: float
    graded: int
    samples: int | None
    thresholds: dict[str, Any]
    hindsight: dict[str, Any]
    reviewed_at: str
    moves: tuple[StoredMove, ...]
    content: str | None = None
    tagging: int = 1
    """The rules its tags were found by (:data:`TAGGING`)."""
    accuracy_interval: tuple[float, float] | None = None
    """The accuracy's 95% interval; None for a review stored before it was worked out."""

    def to_json(self) -> dict[str, Any]:
        return {"moves_reviewed": self.moves_reviewed, "accuracy": self.accuracy, "graded": self.graded,
                "samples": self.samples, "thresholds": self.thresholds, "hindsight": self.hindsight,
                "reviewed_at": self.reviewed_at, "content": self.content, "tagging": self.tagging,
                **({"accuracy_interval": list(self.accuracy_interval)} if self.accuracy_interval else {}),
                "moves": [m.to_json() for m in self.moves]}


TAGGING = 5
"""The rules a review's tags are found by, as stored with it: 1, the first; 2 (stop 38), ``turned-past`` also
for a card turned past at a cost and played later; 3 (stop 41), labels (and so tags) by Newcombe's paired
interval of the drop (:func:`tutor.estimate.paired_drop`), whose ends moved (an inaccuracy became a mistake
in one golden review); 4 (stop 47), no ``reserve-dig`` for a reserve play that lets a talon card the player
has seen go to a foundation; 5 (stop 49), no ``no-progress`` for a turn on the last of limited passes (that
pass ends when the stock runs out, card played or not: ``turned-past`` where a card was given up). The coach counts kinds of error only over reviews tagged by the current rules
(:func:`reviews` with ``tags_current``), and reviews the older ones again."""


def review_data(rev: Review) -> dict[str, Any]:
    """A :class:`tutor.review.Review` as the plain data the history stores (and exports).

    Thresholds and hindsight may also come as plain mappings (a review read back from JSON).
    """
    moves = []
    for m in rev.moves:
        cands = [c.to_json() for c in getattr(m, "candidates", ()) or ()]
        move = {"ply": m.ply, "move": str(m.move), "best": str(m.best), "label": str(m.label),
                "tags": list(m.tags), "drop": round(float(m.drop), 3),
                "win_before": round(float(m.win_before), 4), "win_after": round(float(m.win_after), 4),
                "graded": bool(m.graded), "comment": m.comment, "candidates": cands}
        paired = getattr(m, "paired", None)
        if paired is not None:
            # four places: the coach and the drill round the ends again to one, as the review does from the exact
            # figure (kept to two, 7.8512 was stored 7.85 and shown 7.8 where the review said 7.9)
            move["drop_interval"] = [round(paired.lo * 100, 4), round(paired.hi * 100, 4)]
            move["drop_samples"] = int(paired.samples)
        moves.append(move)
    thresholds = dict(rev.thresholds) if isinstance(rev.thresholds, Mapping) else rev.thresholds.to_json()
    hindsight = dict(rev.hindsight) if isinstance(rev.hindsight, Mapping) else rev.hindsight.to_json()
    from ..record import content_of

    return {"moves_reviewed": len(rev.record.moves), "content": content_of(rev.record),
            # the figure the review prints and its JSON gives (one decimal), so the history shows the same one
            "accuracy": round(float(rev.accuracy), 1),
            **({"accuracy_interval": [round(float(x), 1) for x in ci]}
               if (ci := getattr(rev, "accuracy_interval", None)) is not None else {}),
            "graded": int(rev.graded), "samples": rev.samples, "thresholds": thresholds,
            "hindsight": hindsight, "tagging": TAGGING, "moves": moves}


def store_review(history: History, game_id: int, data: Mapping[str, Any], reviewed_at: str | None = None) -> None:
    """Store (or replace) the review of a game, from :func:`review_data`. Opens its own transaction."""
    when = reviewed_at or data.get("reviewed_at") or iso(history.now())
    with history.write() as conn:
        conn.execute("DELETE FROM reviews WHERE game_id = ?", (game_id,))
        cur = conn.execute(
            "INSERT INTO reviews (game_id, moves_reviewed, accuracy, graded, samples, thresholds, hindsight, "
            "reviewed_at, content, tagging, accuracy_interval) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, int(data["moves_reviewed"]), float(data["accuracy"]), int(data["graded"]), data.get("samples"),
             json.dumps(data.get("thresholds") or {}), json.dumps(data.get("hindsight") or {}), when,
             data.get("content"), _tagging(data.get("tagging")), _interval_json(data.get("accuracy_interval"))))
        review_id = cur.lastrowid
        conn.executemany(
            "INSERT INTO review_moves (review_id, ply, move, best, label, tags, drop_points, win_before, win_after, "
            "graded, comment, candidates, drop_interval, drop_samples) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(review_id, int(m["ply"]), m["move"], m["best"], m["label"], json.dumps(list(m.get("tags") or [])),
              float(m.get("drop", 0.0)), float(m["win_before"]), float(m["win_after"]), int(bool(m.get("graded"))),
              m.get("comment") or "", json.dumps(m.get("candidates") or []), _interval_json(m.get("drop_interval")),
              _count(m.get("drop_samples")))
             for m in data["moves"]])


def _tagging(value: Any) -> int | None:
    """A review's tagging rules as stored: a whole number from 1 to :data:`TAGGING`, else NULL (the first)."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= TAGGING
    return value if ok else None


def _interval_json(value: Any) -> str | None:
    """A stored drop interval: two numbers as JSON, or NULL for anything else (an older export has none)."""
    if (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)):
        return json.dumps([float(value[0]), float(value[1])])
    return None


def _count(value: Any) -> int | None:
    """A stored sample count: a whole number from 1 up, or NULL for anything else (an older export has none)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_SAMPLES else None


def _tags_of(text: str) -> tuple[str, ...]:
    value = json.loads(text)
    return tuple(t for t in value if isinstance(t, str)) if isinstance(value, list) else ()


def _moves_of(history: History, review_id: int, game_id: int) -> tuple[StoredMove, ...]:
    rows = history.query("SELECT * FROM review_moves WHERE review_id = ? ORDER BY ply", (review_id,))
    return tuple(StoredMove(game_id, r["ply"], r["move"], r["best"], r["label"], _tags_of(r["tags"]),
                            r["drop_points"], r["win_before"], r["win_after"], bool(r["graded"]), r["comment"],
                            readable_candidates(r["candidates"]),
                            tuple(json.loads(r["drop_interval"])) if r["drop_interval"] else None,
                            r["drop_samples"])
                 for r in rows)


def _stored(history: History, r: sqlite3.Row, with_moves: bool = True) -> StoredReview:
    return StoredReview(r["game_id"], r["moves_reviewed"], r["accuracy"], r["graded"], r["samples"],
                        json.loads(r["thresholds"]), json.loads(r["hindsight"]), r["reviewed_at"],
                        _moves_of(history, r["id"], r["game_id"]) if with_moves else (), r["content"],
                        r["tagging"] or 1,
                        tuple(json.loads(r["accuracy_interval"])) if r["accuracy_interval"] else None)


def review_of(history: History, game_id: int) -> StoredReview | None:
    """The game's review, current or not."""
    rows = history.query("SELECT * FROM reviews WHERE game_id = ?", (game_id,))
    return _stored(history, rows[0]) if rows else None


def reviews(history: History, with_moves: bool = True, tags_current: bool = False) -> dict[int, StoredReview]:
    """Every current review (of the game's moves as they stand), by game id; without ``with_moves`` only the
    figures of each (accuracy, graded moves), not its moves: quick with thousands of reviewed games.
    ``tags_current``: only reviews whose tags the current rules found (:data:`TAGGING`), for counting tags."""
    out: dict[int, StoredReview] = {}
    for r in history.query("SELECT reviews.*, games.moves AS game_moves, games.content AS game_content "
                           "FROM reviews JOIN games ON games.id = reviews.game_id"):
        if tags_current and (r["tagging"] or 1) < TAGGING:
            continue  # tagged by older rules: the coach reviews it again
        if r["moves_reviewed"] != r["game_moves"]:
            continue  # the game went on (or was taken back) after this review
        if r["content"] is not None and r["content"] != r["game_content"]:
            continue  # the same number of moves, but other ones
        out[r["game_id"]] = _stored(history, r, with_moves)
    return out


def outdated(history: History) -> set[int]:
    """The games whose current review was tagged by older rules (:data:`TAGGING`): the coach reviews them
    again, and says so, rather than calling them not reviewed."""
    return set(reviews(history, with_moves=False)) - set(reviews(history, with_moves=False, tags_current=True))


def went_on(history: History) -> set[int]:
    """The games with a review that no longer fits them: they went on (a resumed game), or moves were taken
    back, after it was made. The coach reviews them again and says why, not "not reviewed before"."""
    # every stored review is current (:func:`reviews`) unless its game's moves changed after it
    reviewed = {r["game_id"] for r in history.query("SELECT DISTINCT game_id FROM reviews")}
    return reviewed - set(reviews(history, with_moves=False))


def unreviewed(history: History) -> list[GameRow]:

    """The finished or abandoned games (one move or more) with no current review, or one tagged by older
    rules (:data:`TAGGING`), oldest first."""
    done = reviews(history, with_moves=False, tags_current=True)
    return [g for g in history.games(played_only=True) if g.id not in done]


def not_kept(history: History, game_id: int, thresholds: Any, samples: int | None) -> str | None:
    """Why the history keeps its own review of the game instead of one on ``thresholds`` and ``samples``, or
    None to store that one (the review command's rule, and an import's).

    The coach and the drills count labels by one set of thresholds, so a review with others is a one-off
    look; and a review on fewer samples than the one kept is a rougher one: neither replaces it.
    """
    from ..review import DEFAULT_THRESHOLDS

    if thresholds != DEFAULT_THRESHOLDS:
        d = DEFAULT_THRESHOLDS
        return (f"Not kept in your history: the coach and drills count labels by the thresholds "
                f"{d.inaccuracy:g},{d.mistake:g},{d.blunder:g}, and this review used others.")
    kept = reviews(history, with_moves=False, tags_current=True).get(game_id)
    if kept is not None and samples is not None and (kept.samples is None or samples < kept.samples):
        budget = "every consistent deal" if kept.samples is None else f"{kept.samples} samples a move"
        return (f"Not kept in your history: it keeps its review of this game made with {budget}, and this one "
                f"used {samples}.")
    return None
