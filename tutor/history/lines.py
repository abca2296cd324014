"""What an exported history line must hold: each field as ``osmosis export`` writes it, checked before
anything of the line is stored (:func:`tutor.history.transfer.import_line`). A field that is not so is a
:class:`Bad` naming it, what it is and what was expected."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from ..notation import expected
from .db import iso, parse_iso
from .reviews import MAX_SAMPLES, TAGGING, candidate_problem, moves_of

_LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")
MAX_PLY = 3_000
"""More moves than a game can have (52 plays, and at most 53 passes, a redeal needing a play since the last, of
at most 51 turns and a redeal each, 2,808): the bound of a reviewed move's number in an export line, whose game
may have been taken back since."""
class Bad(ValueError):
    """A field of an exported line that is not what export writes (the message names it)."""


def int_field(value: object, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise Bad(f"{what} is {shown(value)}: expected a whole number from {lo} to {hi}")
    return value


def _number(value: object, what: str, lo: float, hi: float) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or not lo <= value <= hi):
        raise Bad(f"{what} is {shown(value)}: expected a number from {lo:g} to {hi:g}")
    return float(value)


def text_field(value: object, what: str, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise Bad(f"{what} is {shown(value)}: expected text")
    return value


def time_field(value: object, what: str, optional: bool = False) -> str | None:
    text = text_field(value, what, optional)
    if text is None:
        return None
    try:  # written as the history writes it, to the digit: "2026-12-1T8:48:44Z" parsed, then read as damage
        exact = iso(parse_iso(text)) == text
    except (ValueError, OverflowError):
        exact = False
    if not exact:
        raise Bad(f"{what} is {shown(text)}: expected a UTC time like 2026-12-01T08:48:44Z")
    return text


def _label(value: object, what: str) -> str:
    if value not in _LABELS:
        raise Bad(f"{what} is {shown(value)}: expected one of {', '.join(_LABELS)}")
    return str(value)


def _tags(value: object, what: str) -> None:
    from .coach import known_tags

    known = [str(t) for t in known_tags()]
    if value is not None and not (isinstance(value, list) and all(isinstance(t, str) for t in value)):
        raise Bad(f"{what} is {shown(value)}: expected a list of tag names ({', '.join(known)})")
    for i, tag in enumerate(value or []):
        if tag not in known:
            raise Bad(f"{what}[{i}] is {shown(tag)}: expected a tag name ({', '.join(known)})")


def _move(value: object, what: str, piles: int = 4) -> None:
    """A move of a game with ``piles`` reserve piles (no r1 in Bridesmaids)."""
    if value not in moves_of(piles):
        raise Bad(f"{what} is {shown(value)}: {expected(piles)}")


def _candidates(value: object, what: str, piles: int = 4) -> None:
    """A reviewed move's candidates, each with the shape the review writes (a move and its win chance, and
    the other figures of :meth:`tutor.hints.Candidate.to_json` where present)."""
    if value is None:
        return
    if not isinstance(value, list):
        raise Bad(f"{what} is {shown(value)}: expected a list of the moves' scores")
    for i, c in enumerate(value):
        problem = candidate_problem(c, piles)
        if problem is not None:
            key, bad, expected = problem
            if not key:
                raise Bad(f"{what}[{i}] is {shown(bad)}: expected {expected}")
            said = "is missing" if isinstance(c, dict) and key not in c else f"is {shown(bad)}"
            raise Bad(f"{what}[{i}].{key} {said}: expected {expected}")


def shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, float) or math.isfinite(value) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_review(rev: dict[str, Any], piles: int = 4) -> None:
    """Every field of an exported review that the history stores, as export writes it, for a game of ``piles``
    reserve piles (the review may be of more moves than the game holds now: it was taken back since)."""
    int_field(rev.get("moves_reviewed"), "review.moves_reviewed", 0, MAX_PLY)
    _number(rev.get("accuracy"), "review.accuracy", 0, 100)
    interval = rev.get("accuracy_interval")  # an older export has none
    if interval is not None and not (isinstance(interval, list) and len(interval) == 2):
        raise Bad(f"review.accuracy_interval is {shown(interval)}: expected two numbers from 0 to 100")
    for k, x in enumerate(interval or []):
        _number(x, f"review.accuracy_interval[{k}]", 0, 100)
    if interval and interval[0] > interval[1]:
        raise Bad(f"review.accuracy_interval is {shown(interval)}: expected its low end first")
    int_field(rev.get("graded"), "review.graded", 0, MAX_PLY)
    if rev.get("samples") is not None:
        int_field(rev.get("samples"), "review.samples", 0, 10**6)
    time_field(rev.get("reviewed_at"), "review.reviewed_at", optional=True)
    if rev.get("tagging") is not None:  # an older export has none: its tags are the first rules'
        int_field(rev.get("tagging"), "review.tagging", 1, TAGGING)
    for key in ("thresholds", "hindsight"):
        if rev.get(key) is not None and not isinstance(rev[key], dict):
            raise Bad(f"review.{key} is {shown(rev[key])}: expected an object")
    plies: dict[int, str] = {}
    for at, m in _objects(rev.get("moves"), "review.moves"):
        _move_fields(m, at, piles, "move")
        if m["ply"] in plies:  # one review row a move: a second one would fail half-way through the line
            raise Bad(f"{at}.ply is {m['ply']}, as in {plies[m['ply']]}: expected each move reviewed once")
        plies[m["ply"]] = at
        _number(m.get("drop", 0.0), f"{at}.drop", -100, 100)
        _number(m.get("win_before"), f"{at}.win_before", 0, 1)
        _number(m.get("win_after"), f"{at}.win_after", 0, 1)
        text_field(m.get("comment"), f"{at}.comment", optional=True)
        _candidates(m.get("candidates"), f"{at}.candidates", piles)
        interval = m.get("drop_interval")
        if interval is not None and not (isinstance(interval, list) and len(interval) == 2):
            raise Bad(f"{at}.drop_interval is {shown(interval)}: expected two numbers from -100 to 100")
        for k, x in enumerate(interval or []):
            _number(x, f"{at}.drop_interval[{k}]", -100, 100)
        if m.get("drop_samples") is not None:
            int_field(m.get("drop_samples"), f"{at}.drop_samples", 1, MAX_SAMPLES)


def _objects(items: object, what: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The objects of a list field, each with its place for the message (``drills[0]``)."""
    if not isinstance(items, list):
        raise Bad(f"{what} is {shown(items)}: expected a list")
    for i, item in enumerate(items):
        at = f"{what}[{i}]"
        if not isinstance(item, dict):
            raise Bad(f"{at} is {shown(item)}: expected an object")
        yield at, item


def _move_fields(m: dict[str, Any], at: str, piles: int, played: str) -> None:
    """The fields a reviewed move and a drill share: its number, the move played and the better one (moves of
    a game with ``piles`` reserve piles), label, tags. The number is not held to the game's length, nor the move
    to the game's: a review (or a retired drill) of a game taken back and played on another way since is
    exported as the history keeps it, and is read back so."""
    int_field(m.get("ply"), f"{at}.ply", 1, MAX_PLY)
    _move(m.get(played), f"{at}.{played}", piles)
    _move(m.get("best"), f"{at}.best", piles)
    _label(m.get("label"), f"{at}.label")
    _tags(m.get("tags"), f"{at}.tags")


def check_drills(drills: object, piles: int = 4) -> None:
    from .drill import DRILL_LABELS, INTERVALS  # the labels a drill comes from, and its boxes

    if drills is None:
        return
    boxes = len(INTERVALS) - 1
    plies: dict[int, str] = {}
    for at, d in _objects(drills, "drills"):
        _move_fields(d, at, piles, "played")
        if d["ply"] in plies:
            raise Bad(f"{at}.ply is {d['ply']}, as in {plies[d['ply']]}: expected one drill a move")
        plies[d["ply"]] = at
        if d.get("label") not in DRILL_LABELS:
            raise Bad(f"{at}.label is {shown(d.get('label'))}: expected {' or '.join(DRILL_LABELS)}")
        _number(d.get("drop"), f"{at}.drop", 0, 100)
        int_field(d.get("box"), f"{at}.box", 0, boxes)
        time_field(d.get("due_at"), f"{at}.due_at")
        time_field(d.get("created_at"), f"{at}.created_at")
        text_field(d.get("retired"), f"{at}.retired", optional=True)
        for where, a in _objects(d.get("answers") or [], f"{at}.answers"):
            time_field(a.get("at"), f"{where}.at")
            text_field(a.get("answer"), f"{where}.answer")
            if not isinstance(a.get("right"), bool):
                raise Bad(f"{where}.right is {shown(a.get('right'))}: expected true or false")
            int_field(a.get("box"), f"{where}.box", 0, boxes)
