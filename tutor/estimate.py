"""Sampled figures with their uncertainty: win rates, mean scores and paired drops.

Every win chance the tutor prints is a share of sampled deals, so it comes
with the number of samples and a 95% interval:

- a win rate: the Wilson score interval (good at 0 of n and n of n, where the
  plain normal interval collapses to a point);
- a mean score (cards): the mean with a Student-t interval;
- the drop between two moves scored on the *same* samples (a paired
  difference of two win rates): the Agresti-Min adjusted interval, which
  adds half a sample to each cell of the 2x2 table of outcomes, so that a
  handful of samples where the two moves differ never looks certain. A
  single sample in which one move wins and the other loses never puts the
  interval's lower end above zero, however many samples agree.

Exact figures (every consistent deal solved) have no sampling error: their
interval is the value itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


def t95(df: int) -> float:
    """The two-sided 95% Student-t quantile for ``df`` degrees of freedom (Cornish-Fisher expansion).

    Within 0.5% of the exact value from 3 degrees of freedom on; below that
    the small table of exact values is used.
    """
    table = {1: 12.706, 2: 4.303, 3: 3.182}
    if df in table:
        return table[df]
    z = Z95
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate of ``wins`` in ``n`` samples (0..1)."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Iterable[float], low: float = 0.0, high: float = 52.0) -> tuple[float, float]:
    """The mean of ``values`` with a 95% Student-t interval, clamped to ``low..high``."""
    xs = list(values)
    n = len(xs)
    if n == 0:
        return low, high
    mean = sum(xs) / n
    if n == 1:
        return (mean, mean) if low == high else (low, high)
    var = sum((v - mean) ** 2 for v in xs) / (n - 1)
    half = t95(n - 1) * math.sqrt(var / n)
    return max(low, mean - half), min(high, mean + half)


@dataclass(frozen=True, slots=True)
class Drop:
    """How much better move A did than move B on the same samples, in win chance (-1..1).

    ``estimate``: the share of samples A wins and B does not, minus the share
    where B wins and A does not. ``lo``/``hi``: its 95% interval (equal to
    the estimate when ``exact``). ``samples``: the paired samples.
    """

    estimate: float
    lo: float
    hi: float
    samples: int
    exact: bool = False

    def points(self) -> tuple[float, float, float]:
        """(estimate, lo, hi) in win-chance points (0..100 scale)."""
        return self.estimate * 100, self.lo * 100, self.hi * 100

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"drop": round(self.estimate, 4), "drop_interval": [round(self.lo, 4), round(self.hi, 4)],
               "drop_samples": self.samples}
        if self.exact:
            out["drop_exact"] = True
        return out


def paired_drop(a: Iterable[bool | None], b: Iterable[bool | None], exact: bool = False, z: float = Z95) -> Drop:
    """The paired drop from outcomes ``a`` to ``b`` (sequences of won/not won, one per sample)."""
    xs, ys = list(a), list(b)
    if len(xs) != len(ys):
        raise ValueError(f"paired outcomes of different lengths: {len(xs)} and {len(ys)}")
    n = len(xs)
    if n == 0:
        return Drop(0.0, -1.0, 1.0, 0)
    n12 = sum(1 for x, y in zip(xs, ys) if x and not y)
    n21 = sum(1 for x, y in zip(xs, ys) if y and not x)
    est = (n12 - n21) / n
    if exact:
        return Drop(est, est, est, n, True)
    m = n + 2
    p12, p21 = (n12 + 0.5) / m, (n21 + 0.5) / m
    d = p12 - p21
    half = z * math.sqrt(max(0.0, p12 + p21 - d * d) / m)
    return Drop(est, max(-1.0, d - half), min(1.0, d + half), n)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A sampled win rate and mean score, with their 95% intervals and sample count."""

    win: float
    win_lo: float
    win_hi: float
    cards: float
    cards_lo: float
    cards_hi: float
    samples: int
    exact: bool = False

    @classmethod
    def of(cls, outcomes: Iterable[tuple[bool | None, float]], exact: bool = False) -> Estimate:
        """From ``(won, cards)`` outcomes (``won`` True/False/None, None counted as not won)."""
        pairs = list(outcomes)
        n = len(pairs)
        if n == 0:
            return cls(0.0, 0.0, 1.0, 0.0, 0.0, 52.0, 0, exact)
        wins = sum(1 for w, _ in pairs if w)
        cards = [c for _, c in pairs]

        mean = sum(cards) / n
        win = wins / n
        if exact:
            return cls(win, win, win, mean, mean, mean, n, True)
        lo, hi = wilson(wins, n)
        clo, chi = mean_interval(cards, 0.0, 52.0)
        return cls(win, lo, hi, mean, clo, chi, n)


def interval_text(lo: float, hi: float, exact: bool = False) -> str:
    """"95%: 31-48%" for a win-rate interval, "exact" for an exact figure."""
    if exact:
        return "exact"
    return f"95%: {lo * 100:.0f}-{hi * 100:.0f}%"
