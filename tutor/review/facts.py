"""The facts a review comment and a critical moment are built from: enums and small frozen values.

The analysis (:mod:`tutor.review.tags`, :mod:`tutor.review.luck`, ...) returns
these; :mod:`tutor.narrate.review` alone turns them into sentences. Each fact
names the cards, rows and moves it is about, and says whether it uses
hindsight (``hindsight``: it rests on cards the player had not seen, so its
sentence must say so).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from ..constraints import Explanation
from ..estimate import Drop, Estimate
from ..notation import Move
from .grades import Label

__all__ = ["Tag", "MomentKind", "Candidate", "Ungraded", "Decided", "Grade", "EarlyStart", "WrongRow", "LateStart",
           "NoProgress", "TurnedPast", "ReserveDig", "TalonShift", "TagFact", "BlockingCycle", "ThrewAwayWin",
           "Luck", "OnlyMove", "Comment", "ErrorMoment", "LuckMoment", "MomentFact", "Practical", "DEFAULT_MARKS"]


class Tag(StrEnum):
    """The kind of error a move shows (the strings are the review JSON's ``tags``)."""

    EARLY_START = "early-start"
    LATE_START = "late-start"
    WRONG_ROW = "wrong-row"
    TURNED_PAST = "turned-past"
    RESERVE_DIG = "reserve-dig"
    TALON_SHIFT = "talon-shift"
    NO_PROGRESS = "no-progress"


class MomentKind(StrEnum):
    """Who made a critical moment: the player (``error``) or the cards (``luck``)."""

    ERROR = "error"
    LUCK = "luck"


def _rounded(pair: tuple[float, float]) -> list[float]:
    return [round(pair[0], 4), round(pair[1], 4)]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One legal move's score from the player's point of view, with its samples and 95% intervals.

    ``cards_samples``: the deals the cards rest on when fewer than the win's (the shared deals of a label
    that drew more for the win only); 0 when they are the same ``samples``.
    """

    move: Move
    win: float
    cards: float
    samples: int = 0
    interval: tuple[float, float] = (0.0, 1.0)
    cards_interval: tuple[float, float] = (0.0, 52.0)
    exact: bool = False
    cards_samples: int = 0
    blind: float | None = None
    """Where the search over what can still turn up ran (:mod:`tutor.infoset`): the move's win chance for a
    player who cannot see the face-down cards, on the same deals (``blind_win`` in the JSON, as the hint's)."""
    blind_deals: int = 0
    """The deals the search played for ``blind`` (``blind_deals`` in the JSON)."""
    blind_interval: tuple[float, float] = (0.0, 1.0)
    """``blind``'s 95% interval (:func:`tutor.estimate.blind_interval`; one value when exact)."""
    lost: bool = False
    """The move loses in every consistent deal, certain from what the player had seen (``lost`` in the JSON,
    as the hint's): its 0% is no sampled figure."""

    @property
    def cards_deals(self) -> int:
        """How many deals the cards figure rests on."""
        return self.cards_samples or self.samples

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "move": str(self.move), "win": round(self.win, 4), "cards": round(self.cards, 2),
            "samples": self.samples, "interval": _rounded(self.interval),
            "cards_interval": [round(x, 2) for x in self.cards_interval]}
        if self.cards_samples:
            out["cards_samples"] = self.cards_samples
        if self.exact:
            out["exact"] = True
        if self.blind is not None:
            out["blind_win"] = round(self.blind, 4)
            out["blind_deals"] = self.blind_deals
            out["blind_interval"] = _rounded(self.blind_interval)
        if self.lost:
            out["lost"] = True
        return out


# ---- the grade of a move ---------------------------------------------------

@dataclass(frozen=True, slots=True)
class Ungraded:
    """A forced move (``forced``) or a free play (``card`` opens no row), with the position's value.

    ``ended``: the game ended with this move, ``"won"`` or ``"blocked"`` (the value is the result, not an
    estimate). ``no_progress``: a forced turn in a pass with no card played since the redeal (or the last pass
    of a game with limited passes), none of the
    cards still to turn (all known) playable, so the game is blocked for certain whatever the hidden cards
    are (:func:`tutor.grading.blocked_for_sure`), with ``cards`` on the foundations. ``blocked``: lost in
    every consistent deal by the reserve piles' needs (every reserve card known, no row order left that can
    be completed).
    """

    hindsight: ClassVar[bool] = False
    forced: bool
    card: int | None
    win: float
    interval: tuple[float, float]
    samples: int
    exact: bool
    ended: str = ""
    no_progress: bool = False
    cards: int = 0
    blocked: bool = False


@dataclass(frozen=True, slots=True)
class Decided:
    """A move in a position already lost from what the player had seen: no legal move wins in any
    consistent deal, all of them solved (``samples``: how many; the figures of ``played`` may rest on
    fewer, sampled). It is never won: a position where every move keeps the win is not decided, since a
    later move can still throw the win away (:mod:`tutor.grading`).

    No choice there could save the game, so the move is not graded. ``more``: in a lost position, a
    move that places more cards than the one played (the most, on average over the same deals), else None;
    ``gap``: the 95% interval of its paired gap in cards when the cards were sampled (``more.samples``
    deals), None when every consistent deal was scored.
    ``blocked``: lost by the reserve piles' needs, proven without solving every deal (``samples`` sampled).
    """

    hindsight: ClassVar[bool] = False
    played: Candidate
    samples: int
    more: Candidate | None = None
    #: lost by the reserve piles' needs (every reserve card known, no row order left that can be completed),
    #: proven without solving every deal
    blocked: bool = False
    gap: tuple[float, float] | None = None


def is_point(interval: tuple[float, float]) -> bool:
    """A figure known exactly: its interval is the figure itself (a cut best score reaches up to 52)."""
    return interval[0] == interval[1]


def cards_choice(played: Candidate, top: Candidate, paired: Drop | None) -> bool:
    """A move graded best on the win chance beside ``top``, which shows the same chance and surely places more
    cards (their intervals apart, or both exact): the hint's tie-break, the cards placed, chooses ``top``.
    Not where another move shows a higher figure or wins a little more paired (the grade's own words then)."""
    if top.move == played.move or played.lost or round(top.cards) <= round(played.cards):
        return False
    if paired is not None and (round(top.win * 100) > round(played.win * 100) or paired.estimate * 100 >= 0.05):
        return False
    return ((played.exact and is_point(played.cards_interval) and is_point(top.cards_interval))
            or top.cards_interval[0] > played.cards_interval[1])


#: The thresholds' defaults in points: best, inaccuracy, mistake, blunder.
DEFAULT_MARKS: tuple[float, ...] = (1.0, 5.0, 10.0, 15.0)


@dataclass(frozen=True, slots=True)
class Grade:
    """A graded move's label against the best move: the played and the best move's scores, the paired drop;
    ``inaccuracy``: the threshold of an inaccuracy (points), so the words never round a figure up to it."""

    hindsight: ClassVar[bool] = False
    label: Label
    move: Move
    best: Move
    played: Candidate
    top: Candidate
    paired: Drop | None
    close: bool
    inaccuracy: float = 5.0
    fused: Candidate | None = None
    """The move PIMC put first, whose lead the search over what can still turn up showed a blind player
    cannot cash (strategy fusion): the played move is graded best instead."""
    fused_exact: bool = False
    """The search's values behind ``fused`` are exact (every consistent deal, searched to the end), not
    estimates."""
    marks: tuple[float, ...] = DEFAULT_MARKS
    """The thresholds in points (``best``'s, then the labels'), so a drop rounded for the words never reads
    as sitting on one it is not on (1.04 points for a move graded good, not "1")."""
    blind_better: bool = False
    """``best`` tied with the played move on the deals solved with every card known and the search over what
    can still turn up found it better for a blind player: the move is graded good, not best."""


# ---- the tags (each a fact of what the player had seen) ---------------------

@dataclass(frozen=True, slots=True)
class EarlyStart:
    """``card`` opened row ``row`` (1-based) with the starting rank; waiting with ``wait`` was better."""

    tag: ClassVar[Tag] = Tag.EARLY_START
    hindsight: ClassVar[bool] = False
    card: int
    row: int
    start_rank: int
    wait: Candidate


@dataclass(frozen=True, slots=True)
class WrongRow:
    """``card`` put its suit in row ``row``; opening the row with ``other`` (``other_card``) was better."""

    tag: ClassVar[Tag] = Tag.WRONG_ROW
    hindsight: ClassVar[bool] = False
    card: int
    row: int
    other: Candidate
    other_card: int | None


@dataclass(frozen=True, slots=True)
class LateStart:
    """Waiting lost: opening the next row with ``open_card`` (move ``open``) was better."""

    tag: ClassVar[Tag] = Tag.LATE_START
    hindsight: ClassVar[bool] = False
    open: Candidate
    open_card: int | None


@dataclass(frozen=True, slots=True)
class NoProgress:
    """The turn let a pass end with no card played since the redeal, and nothing could be played after it.

    ``at_once``: this turn ended the pass; else the rest of the stock, every card of it known, showed no card
    that could be played before the pass ended.
    """

    tag: ClassVar[Tag] = Tag.NO_PROGRESS
    hindsight: ClassVar[bool] = False
    at_once: bool = True
    first_pass: bool = False
    """The pass is the first one: no card played since the start (there was no redeal yet)."""


@dataclass(frozen=True, slots=True)
class TurnedPast:
    """Turning past ``card`` on the waste (``play`` its score) gave it up; ``first_row``: it is row 1's suit.

    ``later``: the move (1-based) that played the card after all, when the game did; None: not played in the
    record. ``ended``: the record's game is over (else the card may still come: not "given up").
    """

    tag: ClassVar[Tag] = Tag.TURNED_PAST
    hindsight: ClassVar[bool] = False
    card: int
    play: Candidate
    first_row: bool
    later: int | None = None
    ended: bool = True


@dataclass(frozen=True, slots=True)
class ReserveDig:
    """``card`` from reserve pile ``pile`` (0-based) freed nothing playable; ``under``: the card it uncovered.

    ``odds``: when ``under`` was face down, how many of the unseen cards it could have been would have been
    playable, of how many (fewer than half: the tag stands on those odds, not on the card that turned up).
    """

    tag: ClassVar[Tag] = Tag.RESERVE_DIG
    hindsight: ClassVar[bool] = False
    card: int
    pile: int
    under: int | None
    odds: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class TalonShift:
    """Taking ``card`` off the waste shifted the talon's threes; turning (``turn``) was better."""

    tag: ClassVar[Tag] = Tag.TALON_SHIFT
    hindsight: ClassVar[bool] = False
    card: int
    turn: Candidate


TagFact = EarlyStart | WrongRow | LateStart | NoProgress | TurnedPast | ReserveDig | TalonShift


# ---- hindsight and luck ------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BlockingCycle:
    """Putting ``card``'s suit in row ``row`` made the true deal lost, for ``why``: hindsight, unless ``seen``.

    ``seen``: every card of the cycle (of each cycle, when the row orders need more than one) that lies in a
    reserve pile was known to the player before the move, at its place: the needs that make the cycle are
    then plain to see (a pile's order, and the rules' row needs, which hold wherever the other cards lie), so
    the loss was in view in every consistent deal and is no hindsight.
    """

    card: int
    row: int
    why: Explanation
    seen: bool = False

    @property
    def hindsight(self) -> bool:
        return not self.seen


@dataclass(frozen=True, slots=True)
class ThrewAwayWin:
    """Hindsight: the true position was winnable before this move and not after; ``better`` kept it."""

    hindsight: ClassVar[bool] = True
    better: Move | None


@dataclass(frozen=True, slots=True)
class Luck:
    """The cards that turned up (``seen``) moved the win chance from ``before`` to ``after`` (0..1).

    ``paired``: both figures are on the same deals (else one side is exact,
    every consistent deal solved, or the deal counts differ); ``exact_after``:
    the ``after`` figure is exact.
    """

    hindsight: ClassVar[bool] = False
    seen: tuple[int, ...]
    before: float
    after: float
    interval: tuple[float, float]
    paired: bool = True
    exact_after: bool = False
    #: the deals each figure rests on (0: not known), and each figure's own 95% interval (None: not known)
    deals: int = 0
    deals_after: int = 0
    before_interval: tuple[float, float] | None = None
    after_interval: tuple[float, float] | None = None
    exact_before: bool = False
    #: "won" or "blocked": ``after`` is the game's result, not an estimate
    ended: str | None = None

    @property
    def swing(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class OnlyMove:
    """Hindsight: the played move was the only legal move after which the win could still be had."""

    hindsight: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Comment:
    """Every fact one move's comment is built from, in the order the comment tells them."""

    grade: Grade | Ungraded | Decided
    tags: tuple[TagFact, ...] = ()
    cycle: BlockingCycle | None = None
    threw_away: ThrewAwayWin | None = None
    luck: Luck | None = None
    only_move: OnlyMove | None = None

    @property
    def uses_hindsight(self) -> bool:
        return any(f is not None and f.hindsight for f in (self.cycle, self.threw_away, self.only_move))


# ---- critical moments -------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ErrorMoment:
    """The player's error: ``move`` lost ``drop`` points (``paired``) against ``best``.

    ``win_samples``: the deals behind the moment's win chances (before and
    after), which may be fewer than the paired drop's.
    """

    hindsight: ClassVar[bool] = False
    kind: ClassVar[MomentKind] = MomentKind.ERROR
    move: Move
    best: Move
    drop: float
    paired: Drop
    win_samples: int = 0
    marks: tuple[float, ...] = DEFAULT_MARKS
    """The review's thresholds (as :attr:`Grade.marks`): the figures are never rounded onto one."""


@dataclass(frozen=True, slots=True)
class LuckMoment:
    """The cards' luck: ``seen`` turned up and moved the win chance by ``luck`` (-1..1), in ``interval``,
    from ``before`` (the win chance after the move, before the cards showed)."""

    hindsight: ClassVar[bool] = False
    kind: ClassVar[MomentKind] = MomentKind.LUCK
    seen: tuple[int, ...]
    luck: float
    interval: tuple[float, float] | None
    before: float = 0.0
    #: the move's luck fact, for the deals the figures rest on (None: not kept)
    basis: Luck | None = None


MomentFact = ErrorMoment | LuckMoment


@dataclass(frozen=True, slots=True)
class Practical:
    """The practical win chance at an error: the tutor's own blind play after ``move`` and after ``best``.

    Both played out from the position as the player saw it (not hindsight),
    on the same ``games`` deals consistent with what the player had seen
    (:mod:`tutor.practical`); ``exact``: every consistent deal was played.
    """

    hindsight: ClassVar[bool] = False
    move: Move
    best: Move
    played: Estimate
    top: Estimate
    games: int
    exact: bool
