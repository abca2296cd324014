"""Grades: the labels, where they start (thresholds), and Lichess's accuracy figures.

A move is an inaccuracy, mistake or blunder only when the lower end of its
drop's 95% interval reaches the threshold (:meth:`Thresholds.grade`);
otherwise it is best or good, and ``close`` when the interval still reaches
an error band.

**Accuracy** is Lichess's: each graded move scores
``103.1668 * exp(-0.04354 * drop) - 3.1669 + 1`` clamped to 0..100 (100 for a
move that loses nothing), and the game's figure is the mean of a
volatility-weighted mean and the harmonic mean of those.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from enum import IntEnum

from ..errors import TutorError
from ..estimate import Drop

__all__ = ["Label", "Thresholds", "DEFAULT_THRESHOLDS", "move_accuracy", "game_accuracy", "accuracy_interval"]


class Label(IntEnum):
    """A move's grade, ordered from best to worst (``Label.BLUNDER > Label.MISTAKE``)."""

    BEST = 0
    GOOD = 1
    INACCURACY = 2
    MISTAKE = 3
    BLUNDER = 4

    def __str__(self) -> str:
        return self.name.lower()

    @property
    def glyph(self) -> str:
        """The annotation glyph chess and backgammon players know (NAG 6, 2, 4)."""
        return {Label.INACCURACY: "?!", Label.MISTAKE: "?", Label.BLUNDER: "??"}.get(self, "")

    @classmethod
    def parse(cls, text: str) -> Label:
        try:
            return cls[str(text).strip().upper()]
        except KeyError:
            raise TutorError(f"unknown label {text!r}: expected best, good, inaccuracy, mistake or blunder") from None


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Where the labels start, as drops in win-chance points (0..100).

    A move whose win chance is within ``best`` points of the best move's is
    ``best`` (the same value, up to sampling); below ``inaccuracy`` it is
    ``good``; from ``inaccuracy`` it is an ``inaccuracy``, from ``mistake`` a
    ``mistake``, from ``blunder`` a ``blunder``. The defaults 5/10/15 are
    Lichess's post-game thresholds (gnubg's 0.04/0.08/0.16 equity are of the
    same size). ``luck`` is the swing from cards turning up that the review
    calls out as luck.
    """

    inaccuracy: float = 5.0
    mistake: float = 10.0
    blunder: float = 15.0
    best: float = 1.0
    luck: float = 10.0

    def __post_init__(self) -> None:
        if not 0 <= self.best <= self.inaccuracy <= self.mistake <= self.blunder <= 100:
            raise TutorError(
                f"thresholds {self.inaccuracy:g},{self.mistake:g},{self.blunder:g} are not in order: expected "
                f"inaccuracy <= mistake <= blunder, from {self.best:g} (the band of a best move) to 100, e.g. 5,10,15")

    @classmethod
    def parse(cls, text: str) -> Thresholds:
        """``"5,10,15"``: the inaccuracy, mistake and blunder thresholds in win-chance points."""
        parts = [p for p in str(text).replace(" ", ",").split(",") if p]
        try:
            values = [float(p) for p in parts]
        except ValueError:
            values = []
        if len(values) != 3 or any(math.isnan(v) for v in values):
            raise TutorError(f"thresholds {text!r}: expected three numbers of win-chance points, "
                             "inaccuracy,mistake,blunder, like 5,10,15")
        for v in values:
            if not 0 < v <= 100:
                raise TutorError(f"threshold {v:g} is out of range: each is a number of win-chance points above 0 "
                                 "and at most 100, like 5,10,15")
        if not values[0] <= values[1] <= values[2]:
            raise TutorError(f"thresholds {text!r} are not in order: expected inaccuracy <= mistake <= blunder, "
                             "like 5,10,15")
        best = min(1.0, values[0])
        return cls(values[0], values[1], values[2], best=best)

    def label(self, drop: float) -> Label:
        """The label for a drop of ``drop`` win-chance points."""
        if drop >= self.blunder:
            return Label.BLUNDER
        if drop >= self.mistake:
            return Label.MISTAKE
        if drop >= self.inaccuracy:
            return Label.INACCURACY
        if drop > self.best:
            return Label.GOOD
        return Label.BEST

    def bands(self) -> tuple[float, float, float]:
        return self.inaccuracy, self.mistake, self.blunder

    def grade(self, drop: Drop) -> tuple[Label, bool]:
        """The label of a paired drop, and whether it is ``close`` (best/good, but could be an error).

        An error label needs confidence: the lower end of the drop's 95%
        interval must reach the threshold (an exact drop is taken as it is).
        Otherwise the move is ``best`` when the estimate is within ``best``
        points, else ``good``.
        """
        est, lo, hi = drop.points()
        if lo >= self.inaccuracy:
            return self.label(lo), False
        label = Label.BEST if est <= self.best else Label.GOOD
        return label, hi >= self.inaccuracy

    def to_json(self) -> dict[str, float]:
        return {"inaccuracy": self.inaccuracy, "mistake": self.mistake, "blunder": self.blunder,
                "best": self.best, "luck": self.luck}


DEFAULT_THRESHOLDS = Thresholds()


def move_accuracy(drop: float) -> float:
    """One move's accuracy, 0..100, from its drop in win-chance points (Lichess)."""
    if drop <= 0:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * drop) - 3.166924740191411 + 1
    return max(0.0, min(100.0, raw))


def game_accuracy(wins: list[float], accuracies: list[float]) -> float:
    """A game's accuracy from the win chances (points) around the graded moves and their accuracies.

    ``wins`` holds ``len(accuracies) + 1`` values: the win chance before each
    graded move, then after the last. As Lichess does, each move is weighted
    by the volatility (standard deviation, clamped to 0.5..12) of the win
    chance in a window around it, and the result is the mean of that weighted
    mean and the harmonic mean, so a few big errors pull it down hard.
    """
    n = len(accuracies)
    if n == 0:
        return 100.0
    return _combine(accuracies, _weights(wins, n))


def _weights(wins: list[float], n: int) -> list[float]:
    """Each graded move's weight: the volatility of the win chance in a window around it (Lichess)."""
    if len(wins) != n + 1:
        raise ValueError(f"expected {n + 1} win chances for {n} moves, got {len(wins)}")
    size = max(2, min(8, n // 10))
    size = min(size, len(wins))
    windows = [wins[:size]] * (size - 2) + [wins[i:i + size] for i in range(len(wins) - size + 1)]
    weights = []
    for w in windows[:n]:
        mean = sum(w) / len(w)
        sd = math.sqrt(sum((x - mean) ** 2 for x in w) / len(w))
        weights.append(max(0.5, min(12.0, sd)))
    return weights


def _combine(accuracies: list[float], weights: list[float]) -> float:
    weighted = sum(a * w for a, w in zip(accuracies, weights)) / sum(weights)
    harmonic = len(accuracies) / sum(1 / max(1.0, a) for a in accuracies)  # Lichess counts a move below 1 as 1
    return (weighted + harmonic) / 2


#: Draws behind :func:`accuracy_interval`, and its seed (the same review always gives the same interval).
ACCURACY_DRAWS = 2000
ACCURACY_SEED = 20261206


def accuracy_interval(wins: list[float], drops: list[tuple[float, float, float]],
                      draws: int = ACCURACY_DRAWS) -> tuple[float, float]:
    """A 95% interval of the game's accuracy, from each graded move's drop and its 95% interval.

    ``drops`` holds each graded move's (estimate, low, high) in win-chance points (an exact or certain drop has
    all three equal). Each draw takes every move's drop from a split normal through its interval (the
    estimate, with the low and high ends 1.96 standard deviations below and above it), independently, and
    computes the game's accuracy with the same weights; the interval runs from the 2.5th to the 97.5th
    percentile of the draws, widened to hold the figure itself. The weights stay as they are: they come from
    the win chances around the moves, and move the figure far less than the drops do.
    """
    n = len(drops)
    if n == 0:
        return 100.0, 100.0
    weights = _weights(wins, n)
    point = _combine([move_accuracy(max(0.0, est)) for est, _, _ in drops], weights)
    if all(lo == est == hi for est, lo, hi in drops):
        return point, point
    rng = random.Random(ACCURACY_SEED)
    values = []
    for _ in range(draws):
        accs = []
        for est, lo, hi in drops:
            z = rng.gauss(0.0, 1.0)
            drop = est + z * ((hi - est) if z > 0 else (est - lo)) / 1.959963984540054
            accs.append(move_accuracy(drop))
        values.append(_combine(accs, weights))
    values.sort()
    low, high = values[int(0.025 * (draws - 1))], values[int(math.ceil(0.975 * (draws - 1)))]
    return min(low, point), max(high, point)
