"""The player's figures: games, wins, win rate, mean cards, accuracy, streaks, per variant.

Values only; :mod:`tutor.cli.history_render` puts them in words. A game with
no move yet (a deal opened and left) is kept in the history but counted
nowhere. A win rate is a sample of the player's skill, so it carries its
count and a 95% Wilson interval.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from ..estimate import wilson
from .db import GameRow, History
from .reviews import StoredReview, reviews


@dataclass(frozen=True)
class Figures:
    """Games, wins and means over a set of games."""

    games: int
    wins: int
    finished: int
    mean_cards: float | None
    rated: int
    """Games reviewed with a graded move: the accuracy's games (a review of forced moves only rates nothing)."""
    accuracy: float | None
    reviewed: int = 0
    """Games with a current review, rated or not (the coach's count)."""
    accuracy_interval: tuple[float, float] | None = None
    """The mean accuracy's 95% interval from each game's own (their sampling only); None when a rated game
    has none kept (reviewed before stop 46)."""

    @property
    def win_rate(self) -> float | None:
        """Of the finished games: an unfinished one can still be won, so it is no lost trial."""
        return self.wins / self.finished if self.finished else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.wins, self.finished) if self.finished else None

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "wins": self.wins, "finished": self.finished,
                "win_rate": _r(self.win_rate, 4), "interval": [round(x, 4) for x in self.interval] if self.interval else None,
                "mean_cards": _r(self.mean_cards, 2), "reviewed": self.reviewed, "rated": self.rated,
                "accuracy": _r(self.accuracy, 1), **_interval_json(self.accuracy_interval)}


@dataclass(frozen=True)
class Streaks:
    """``current``: the run of the latest results (positive wins, negative losses); the longest of each."""

    current: int
    longest_wins: int
    longest_losses: int

    def to_json(self) -> dict[str, Any]:
        return {"current": self.current, "longest_wins": self.longest_wins, "longest_losses": self.longest_losses}


@dataclass(frozen=True)
class GameLine:
    """One game in the list of recent games."""

    id: int
    deal: int | None
    variant: str
    cards: int
    won: bool
    over: bool
    moves: int
    played_at: str
    accuracy: float | None
    accuracy_interval: tuple[float, float] | None = None
    """Its 95% interval, when the review kept one (reviews stored before stop 46 did not)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "deal": self.deal, "variant": variant_json(self.variant), "cards": self.cards, "won": self.won,
                "finished": self.over, "moves": self.moves, "played_at": self.played_at,
                "accuracy": _r(self.accuracy, 1),
                **({"accuracy_interval": list(self.accuracy_interval)}
                   if self.accuracy is not None and self.accuracy_interval is not None else {})}


@dataclass(frozen=True)
class Summary:
    """Everything ``osmosis history`` shows."""

    all: Figures
    last: Figures
    last_n: int
    variants: dict[str, Figures]
    streaks: Streaks
    recent: list[GameLine]
    accuracy_series: list[tuple[int, str, float]] = field(default_factory=list)  # (game id, played_at, accuracy)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"games": self.all.games, "wins": self.all.wins, "mean_cards": _r(self.all.mean_cards, 2),
                "accuracy": _r(self.all.accuracy, 1), "win_rate": _r(self.all.win_rate, 4),
                "interval": [round(x, 4) for x in self.all.interval] if self.all.interval else None,
                "finished": self.all.finished, "reviewed": self.all.reviewed, "rated": self.all.rated,
                **_interval_json(self.all.accuracy_interval),
                "recent": [g.to_json() for g in self.recent],
                "last": dict(self.last.to_json(), n=self.last_n),
                "variants": {k: v.to_json() for k, v in self.variants.items()},
                "streaks": self.streaks.to_json(),
                "accuracy_over_time": [{"id": i, "played_at": t, "accuracy": round(a, 1)}
                                       for i, t, a in self.accuracy_series]}
        return data


def variant_json(variant: str) -> str | dict[str, Any]:
    """The stored variant as the records and ``games --json`` give it: a preset's name, or the options
    as an object (stored as compact JSON text; only the keys of ``variants`` must stay text)."""
    return json.loads(variant) if variant.startswith("{") else variant


def _interval_json(interval: tuple[float, float] | None) -> dict[str, Any]:
    return {"accuracy_interval": [round(interval[0], 1), round(interval[1], 1)]} if interval is not None else {}


def mean_interval(rated: list[tuple[float, tuple[float, float]]]) -> tuple[float, float]:
    """A 95% interval of the mean of accuracies, each given with its own 95% interval: the mean, less and
    plus each side's distances to the ends added in squares, over their number (one game: its own interval).
    It says how sure the figure is from the deals sampled, not how much the player's games vary."""
    n = len(rated)
    mean = sum(a for a, _ in rated) / n
    below = math.sqrt(sum((a - lo) ** 2 for a, (lo, _) in rated)) / n
    above = math.sqrt(sum((hi - a) ** 2 for a, (_, hi) in rated)) / n
    return max(0.0, mean - below), min(100.0, mean + above)


def _r(x: float | None, digits: int) -> float | None:
    return None if x is None else round(x, digits)


def rated(done: dict[int, StoredReview], game_id: int) -> float | None:
    """The accuracy of a reviewed game, None when it is not reviewed or had no graded move (nothing to rate)."""
    rev = done.get(game_id)
    return rev.accuracy if rev is not None and rev.graded > 0 else None


def figures(games: list[GameRow], done: dict[int, StoredReview]) -> Figures:
    played = [g for g in games if g.moves > 0]
    accs = [a for g in played if (a := rated(done, g.id)) is not None]
    mean = sum(accs) / len(accs) if accs else None
    pairs = [(a, done[g.id].accuracy_interval) for g in played if (a := rated(done, g.id)) is not None]
    known = [(a, i) for a, i in pairs if i is not None]
    return Figures(len(played), sum(g.won for g in played), sum(g.over for g in played),
                   sum(g.cards for g in played) / len(played) if played else None,
                   len(accs), mean, sum(1 for g in played if g.id in done),
                   mean_interval(known) if known and len(known) == len(pairs) else None)


def streaks(games: list[GameRow]) -> Streaks:
    """Runs of wins and losses over the finished games, oldest first (an unfinished game breaks no run)."""
    results = [g.won for g in games if g.moves > 0 and g.over]
    longest = {True: 0, False: 0}
    run, last = 0, None
    for won in results:
        run = run + 1 if won == last else 1
        last = won
        longest[won] = max(longest[won], run)
    current = 0 if last is None else (run if last else -run)
    return Streaks(current, longest[True], longest[False])


def summary(history: History, last_n: int = 10, variant: str | None = None) -> Summary:
    """The figures of the whole history (or of one variant) and of its last ``last_n`` games."""
    games = [g for g in history.games(played_only=True) if variant is None or g.variant == variant]
    done = reviews(history, with_moves=False)  # the accuracy of each: its moves are not needed
    recent = games[-last_n:] if last_n > 0 else []
    by_variant: dict[str, list[GameRow]] = {}
    for g in games:
        by_variant.setdefault(g.variant, []).append(g)
    lines = [GameLine(g.id, g.deal_number, g.variant, g.cards, g.won, g.over, g.moves, g.played_at,
                      rated(done, g.id), done[g.id].accuracy_interval if g.id in done else None)
             for g in reversed(recent)]
    series = [(g.id, g.played_at, a) for g in games if (a := rated(done, g.id)) is not None]
    return Summary(figures(games, done), figures(recent, done), last_n,
                   {k: figures(v, done) for k, v in sorted(by_variant.items(), key=lambda kv: -len(kv[1]))},
                   streaks(games), lines, series)
