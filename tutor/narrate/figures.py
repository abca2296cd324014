"""Figures in the review's words: deal counts, win-chance points with their sign, cards named in a row."""

from __future__ import annotations

from .moves import card_word


def deals(n: int) -> str:
    """``1 deal``, ``64 deals``."""
    return f"{n} deal{'s' if n != 1 else ''}"


def num(x: float, places: int = 0) -> str:
    """``x`` rounded for the text, never ``-0`` (a low end of -0.4 points is 0)."""
    return f"{round(x, places) + 0.0:.{places}f}"


def signed(x: float) -> str:
    """``+12``, ``-3``, ``0``: a whole number of points with its sign, never ``-0`` or ``+0``."""
    n = round(x) + 0
    return f"{n:+d}" if n else "0"


def points(x: float, places: int = 0) -> str:
    """``1 point``, ``12 points``, ``4.7 points``: win-chance points, its noun agreeing."""
    n = num(x, places)
    return f"{n} point{'' if n in ('1', '-1') else 's'}"


def cards_shown(cards: tuple[int, ...], most: int) -> str:
    """The first ``most`` cards named, ``, ...`` after them where there are more."""
    return ", ".join(card_word(c) for c in cards[:most]) + (", ..." if len(cards) > most else "")
