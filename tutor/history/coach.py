"""The coach's analysis: the recurring kinds of error across the player's reviewed games.

Values only. Each review tag (``early-start``, ``turned-past`` and the rest,
:data:`tutor.review.TAGS`) is counted over the reviewed games: how often,
in how many games, what it cost on average in win-chance points, whether it
comes less often in the newer half of the games than in the older half, the
worst examples (game and move, for ``osmosis replay``) and the lesson that
teaches it. The biggest single losses are the graded moves the review counts
as losses (not graded best, another move better) sorted by their drop, as GTO
Wizard sorts a session's decisions by their loss.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import TutorError
from ..rules import Rules
from ..storage import games_dir
from .db import GameRow, History
from .names import path_of, storable
from .reviews import StoredMove, StoredReview, review_of, reviews

#: review tag -> the lesson (file name) that teaches it.
TAG_LESSONS = {
    "early-start": "waiting",
    "late-start": "waiting",
    "wrong-row": "starting-rank",
    "turned-past": "turning-three",
    "talon-shift": "turning-three",
    "reserve-dig": "reserve-traps",
    "no-progress": "turning-three",
}
ERROR_LABELS = ("inaccuracy", "mistake", "blunder")


def known_tags() -> list[str]:
    from ..review import TAGS

    return list(TAGS) + [t for t in TAG_LESSONS if t not in TAGS]


def check_tag(tag: str) -> str:
    tag = tag.strip().lower()
    known = known_tags()
    if tag not in known:
        raise TutorError(f"unknown tag {tag!r}: expected one of {', '.join(known)}")
    return tag


@dataclass(frozen=True)
class LessonRef:
    name: str
    level: int
    title: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "level": self.level, "title": self.title}


def lesson_for(tag: str, games: Iterable[GameRow] = ()) -> LessonRef | None:
    """The lesson that teaches a tag, if the lessons have one. A talon tag from ``games`` (the games that show
    it) none of which turned three cards with unlimited passes, the game the turning-three lesson plays, goes to
    the variants lesson instead, which plays single-card turns and limited passes."""
    name = TAG_LESSONS.get(tag)
    if name is None:
        return None
    games = list(games)
    if name == "turning-three" and games and not any(_turns_three_for_ever(g) for g in games):
        name = "variants"
    from ..lessons import LessonError, find_lesson

    try:
        lesson = find_lesson(name)
    except LessonError:
        return None
    return LessonRef(lesson.name, lesson.level, lesson.title)


def _turns_three_for_ever(game: GameRow) -> bool:
    """Whether a stored game turned three cards at a time with unlimited passes (a record whose variant cannot
    be read counts as the default game, which does)."""
    try:
        rules = Rules.from_json(game.record.get("variant", "osmosis"))
    except (TutorError, TypeError, ValueError):
        return True
    return rules.turn == 3 and rules.passes == 0


@dataclass(frozen=True)
class Example:
    """One reviewed move of one game: where it was, what was played, what was better, its cost."""

    game_id: int
    deal: int | None
    variant: str
    played_at: str
    source: str | None
    ply: int
    move: str
    best: str
    label: str
    tags: tuple[str, ...]
    drop: float
    card: int | None = None       # the card the move played (None: a turn or a redeal)
    best_card: int | None = None  # the card the better move plays
    drop_interval: tuple[float, float] | None = None  # its paired 95% interval, points (None: not stored)
    drop_samples: int | None = None  # the deals it rests on
    opening: str | None = None  # a late start whose better move opens no row: the row-opening move it names
    opening_card: int | None = None

    @property
    def path(self) -> str | None:
        """The game's file, to open (``source`` is the name as stored: see :func:`tutor.history.names.path_of`)."""
        return path_of(self.source) if self.source else None

    def to_json(self) -> dict[str, Any]:
        from ..cards import NAMES
        from .stats import variant_json  # a preset's name, or the options as an object, as history --json has it

        return {"game": self.game_id, "deal": self.deal, "variant": variant_json(self.variant),
                "played_at": self.played_at,
                "record": self.source, "ply": self.ply, "move": self.move, "best": self.best,
                "label": self.label, "tags": list(self.tags), "drop": round(self.drop, 1),
                "card": NAMES[self.card] if self.card is not None else None,
                "best_card": NAMES[self.best_card] if self.best_card is not None else None,
                "drop_interval": list(self.drop_interval) if self.drop_interval is not None else None,
                "drop_samples": self.drop_samples,
                **({"opening": self.opening, "opening_card": NAMES[self.opening_card]
                    if self.opening_card is not None else None} if self.opening else {})}


#: Student's t, the 97.5% point, for 1 to 30 degrees of freedom (a 95% interval of a mean of few values).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t_quantile(df: int) -> float:
    """The 97.5% point of Student's t with ``df`` degrees of freedom (within 0.002 beyond the table)."""
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df


@dataclass(frozen=True)
class TagFigures:
    tag: str
    count: int
    games: int
    mean_drop: float
    total_drop: float
    older: tuple[int, int]  # (occurrences, games) in the older half of the reviewed games
    newer: tuple[int, int]
    lesson: LessonRef | None
    examples: list[Example]
    sd: float = 0.0  # the spread of the drops (sample standard deviation)
    older_moves: int | None = None  # graded moves in the older half: the chances to make the error there
    newer_moves: int | None = None
    shared: int = 0  # of the occurrences, moves that carry another tag too (their whole drop counts for each)
    #: every occurrence's own paired interval as its review kept it (None where it kept none), whatever
    #: ``examples`` shows: an interval never depends on how many examples are asked for
    kept: tuple[tuple[float, float] | None, ...] = ()

    @property
    def _exposure(self) -> tuple[int, int]:
        """What each half's count is a rate of: its graded moves (a game quit after one move gave one chance,
        not a whole game's; a half with none gave no chance, so no trend), or its games where not known."""
        if self.older_moves is not None and self.newer_moves is not None:
            return self.older_moves, self.newer_moves
        return self.older[1], self.newer[1]

    @property
    def interval(self) -> tuple[float, float] | None:
        """A 95% interval of the mean drop (Student's t over the occurrences, since they are few). For one
        occurrence, that move's own paired interval where its review kept one (one value where the drop is
        exact), else None. Drops all alike (the same move of the same game played twice) have no spread to
        measure, and a width of zero would claim certainty: there, the span of the moves' own intervals where
        every review kept one, else None."""
        kept = self.kept or tuple(e.drop_interval for e in self.examples[:self.count])
        if self.count == 1:
            one = kept[0] if kept else None
            return (one[0], one[1]) if one is not None else None  # as the losses table gives it
        if self.count < 2:
            return None
        if self.sd == 0:
            if len(kept) < self.count or any(k is None for k in kept):
                return None
            return (min(k[0] for k in kept if k is not None), max(k[1] for k in kept if k is not None))
        half = t_quantile(self.count - 1) * self.sd / math.sqrt(self.count)
        return (max(0.0, self.mean_drop - half), min(100.0, self.mean_drop + half))

    @property
    def trend(self) -> str | None:
        """``better`` when the tag comes less often per graded move in the newer half, ``worse`` more, else
        ``same``."""
        (a, _), (b, _) = self.older, self.newer
        n, m = self._exposure
        if n == 0 or m == 0:
            return None
        old, new = a / n, b / m
        return "better" if new < old else "worse" if new > old else "same"

    @property
    def trend_p(self) -> float | None:
        """How likely a split at least this uneven is by chance alone, if the rate never changed (one-sided).

        Given the ``k`` occurrences in all, each falls in the newer games with probability ``m / (n + m)``
        under an unchanged rate per graded move, ``n`` and ``m`` the halves' graded moves (the exact
        conditional test of two Poisson counts).
        """
        (a, _), (b, _) = self.older, self.newer
        n, m = self._exposure
        if n == 0 or m == 0 or self.trend in (None, "same"):
            return None
        k, q = a + b, m / (n + m)
        terms = [math.comb(k, i) * q ** i * (1 - q) ** (k - i) for i in range(k + 1)]
        return min(1.0, sum(terms[:b + 1]) if self.trend == "better" else sum(terms[b:]))

    @property
    def trend_clear(self) -> bool:
        """The trend is more than chance: the split would come by chance at most 2.5% of the time."""
        p = self.trend_p
        return p is not None and p <= 0.025

    def to_json(self) -> dict[str, Any]:
        return {"tag": self.tag, "count": self.count, "games": self.games, "mean_drop": round(self.mean_drop, 1),
                "interval": [round(x, 1) for x in self.interval] if self.interval else None,
                # a direction only where chance alone would rarely give the split; the raw one is "lean"
                "total_drop": round(self.total_drop, 1),
                "trend": self.trend if self.trend_clear or self.trend is None else "unclear",
                "lean": self.trend, "trend_clear": self.trend_clear,
                "shared": self.shared,
                "older": {"count": self.older[0], "games": self.older[1], "graded_moves": self.older_moves},
                "newer": {"count": self.newer[0], "games": self.newer[1], "graded_moves": self.newer_moves},
                "lesson": self.lesson.name if self.lesson else None,
                "lesson_level": self.lesson.level if self.lesson else None,
                "lesson_title": self.lesson.title if self.lesson else None,
                "examples": [e.to_json() for e in self.examples]}


@dataclass(frozen=True)
class Coaching:
    games_reviewed: int
    moves_graded: int
    labels: dict[str, int]
    tags: list[TagFigures]
    losses: list[Example]
    tag_filter: str | None = None
    unreviewed: int = 0
    #: Of the unreviewed: games reviewed by older rules for the kinds of error (an older osmosis).
    outdated: int = 0
    #: The sample budgets the reviews were made with (each game is reviewed once and kept; None: exact).
    review_samples: tuple[int | None, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"games_reviewed": self.games_reviewed, "moves_graded": self.moves_graded, "labels": self.labels,
                "tags": [t.to_json() for t in self.tags], "losses": [e.to_json() for e in self.losses],
                "tag_filter": self.tag_filter, "unreviewed": self.unreviewed, "outdated": self.outdated,
                "review_samples": sorted(self.review_samples, key=lambda n: (n is None, n or 0))}


def _cards_at(game: GameRow, m: StoredMove) -> tuple[int | None, int | None, tuple[str, int] | None]:
    """The cards the move played and the better move play, from the stored game (None for a turn); for a late
    start whose better move opens no row, the row-opening move the tag speaks of and its card (the candidate
    of the most wins that opens a row), else None."""
    from ..notation import Move
    from ..record import Record

    try:
        record = Record.from_json(game.record)
        state = record.states()[m.ply - 1]
        card, best_card = state.card_of(Move.parse(m.move)), state.card_of(Move.parse(m.best))
        opening = None
        if "late-start" in m.tags and (best_card is None or not _opens(state, best_card)):
            opens = [(c.get("win", 0.0), c["move"], state.card_of(Move.parse(c["move"]))) for c in m.candidates]
            found = max(((w, mv, c) for w, mv, c in opens if c is not None and _opens(state, c)), default=None)
            opening = (found[1], found[2]) if found is not None else None
        return card, best_card, opening
    except (TutorError, IndexError, KeyError, TypeError, ValueError):  # a game that no longer replays: moves alone
        return None, None, None


def _opens(state: Any, card: int) -> bool:
    """Whether playing ``card`` opens a new row."""
    return bool(state.destination(card) >= len(state.rows))


def _example(game: GameRow, m: StoredMove) -> Example:
    card, best_card, opening = _cards_at(game, m)
    return Example(game.id, game.deal_number, game.variant, game.played_at, current_source(game), m.ply, m.move,
                   m.best, m.label, m.tags, m.drop, card, best_card, m.drop_interval, m.drop_samples,
                   *(opening or (None, None)))


def current_source(game: GameRow) -> str | None:
    """The game's file as it lies now: a game of the games folder is found in today's data folder (moved, or
    another machine's, the stored absolute name points at the old one), else the name as stored; but where the
    game went on in a copy (``s c.json``, then ``play --resume c.json``), that copy: the folder's file holds
    only its first moves, and ``replay FILE --at 8`` sent there said there was no move 8."""
    if game.key.startswith("games/"):
        here = games_dir() / path_of(game.key)[len("games/"):]
        try:
            if here.is_file() and not _in_its_copy(game, here):
                return storable(str(here))
        except OSError:
            pass
    return game.source


def _in_its_copy(game: GameRow, here: Path) -> bool:
    """Whether the game went on in another file than the folder's ``here`` that still holds it (a copy gone
    since, or holding another game now, is no file to send the player to)."""
    from ..record import content_of, load_record
    from .copies import follows_another_file, stored

    if game.source is None or not follows_another_file(game, here):
        return False
    kept = stored(game)
    try:
        return kept is not None and content_of(load_record(path_of(game.source))) == content_of(kept)
    except (TutorError, OSError, ValueError):
        return False


def is_loss(m: StoredMove) -> bool:
    """A graded move the review counts as a loss: not graded best, another move better, a drop above zero, and
    surely so where its interval was kept (a "good" move whose drop may be nothing is no loss)."""
    sure = m.drop_interval is None or m.drop_interval[0] > 0
    return m.graded and m.label != "best" and m.best != m.move and m.drop > 0 and sure


def _reviewed(history: History, last: int | None = None) -> list[tuple[GameRow, StoredReview]]:
    """The reviewed games and their reviews, oldest first (only the ``last`` ones, their moves read alone).

    Only reviews tagged by the current rules: a kind of error counted by older, narrower rules in the older
    games would look rarer there and make a trend that is not the player's (coach reviews those again).
    """
    if last is None:
        done = reviews(history, tags_current=True)
        return [(g, done[g.id]) for g in history.games(played_only=True) if g.id in done]
    current = reviews(history, with_moves=False, tags_current=True)
    games = [g for g in history.games(played_only=True) if g.id in current][-last:]
    return [(g, full) for g in games if (full := review_of(history, g.id)) is not None]


def coach(history: History, tag: str | None = None, examples: int = 3, losses: int = 10,
          unreviewed: int = 0, outdated: int = 0) -> Coaching:
    """The coach's figures over every reviewed game, oldest first (``tag`` keeps one kind of error)."""
    if tag is not None:
        tag = check_tag(tag)
    pairs = _reviewed(history)
    half = len(pairs) // 2
    older_ids = {g.id for g, _ in pairs[:half]}
    n_old, n_new = half, len(pairs) - half
    by_tag: dict[str, list[tuple[GameRow, StoredMove]]] = {}
    labels = {label: 0 for label in ERROR_LABELS}
    graded: list[tuple[GameRow, StoredMove]] = []
    moves_old = 0
    for game, rev in pairs:
        for m in rev.moves:
            if not m.graded:
                continue
            graded.append((game, m))
            moves_old += game.id in older_ids
            if m.label in labels:
                labels[m.label] += 1
            for t in m.tags:
                by_tag.setdefault(t, []).append((game, m))
    figures = []
    for t, hits in by_tag.items():
        if tag is not None and t != tag:
            continue
        drops = [m.drop for _, m in hits]
        old = sum(1 for g, _ in hits if g.id in older_ids)
        worst = sorted(hits, key=lambda gm: (-gm[1].drop, gm[0].id, gm[1].ply))[:examples]
        mean = sum(drops) / len(drops)
        sd = math.sqrt(sum((d - mean) ** 2 for d in drops) / (len(drops) - 1)) if len(drops) > 1 else 0.0
        figures.append(TagFigures(t, len(hits), len({g.id for g, _ in hits}), mean, sum(drops),
                                  (old, n_old), (len(hits) - old, n_new), lesson_for(t, (g for g, _ in hits)),
                                  [_example(g, m) for g, m in worst], sd, moves_old, len(graded) - moves_old,
                                  sum(1 for _, m in hits if len(m.tags) > 1),
                                  tuple(m.drop_interval for _, m in hits)))
    figures.sort(key=lambda f: (-f.total_drop, -f.count, f.tag))
    # a loss by the review's own grading: a move graded best lost nothing (its drop within the noise), and a
    # move whose better move is the move itself names no better move
    pool = [(g, m) for g, m in graded if is_loss(m) and (tag is None or tag in m.tags)]
    pool.sort(key=lambda gm: (-gm[1].drop, gm[0].id, gm[1].ply))
    return Coaching(len(pairs), len(graded), labels, figures, [_example(g, m) for g, m in pool[:losses]], tag,
                    unreviewed, outdated, tuple({rev.samples for _, rev in pairs}))


@dataclass(frozen=True)
class Recurring:
    """A kind of error that keeps coming back in the latest reviewed games."""

    tag: str
    games: int        # how many of the window's games show it
    window: int       # how many reviewed games were looked at
    lesson: LessonRef | None
    in_this_game: bool = False


def recurring(history: History, window: int = 5, game_id: int | None = None) -> Recurring | None:
    """The tag seen in the most of the last ``window`` reviewed games (at least two of them, of at least
    three looked at: two games alike out of two say little).

    With ``game_id`` (just reviewed), only the tags of that game's review count.
    """
    pairs = _reviewed(history, window)
    if len(pairs) < 3:
        return None
    seen: dict[str, set[int]] = {}
    cost: dict[str, float] = {}
    mine: set[str] = set()
    for game, rev in pairs:
        for m in rev.moves:
            for t in m.tags:
                seen.setdefault(t, set()).add(game.id)
                cost[t] = cost.get(t, 0.0) + m.drop
                if game.id == game_id:
                    mine.add(t)
    candidates = [t for t in seen if len(seen[t]) >= 2 and (game_id is None or t in mine)]
    if not candidates:
        return None
    order = known_tags()
    best = max(candidates, key=lambda t: (len(seen[t]), cost[t], -order.index(t) if t in order else -len(order)))
    return Recurring(best, len(seen[best]), len(pairs), lesson_for(best, (g for g, _ in pairs if g.id in seen[best])),
                     best in mine)
