"""Post-game review: a grade for every move, tags that name the error, hindsight.

The review does for an Osmosis game what GNU Backgammon's analysis and
Lichess's game review do for theirs.

**Grades use only what the player knew.** Every position is scored on deals
consistent with what the player had seen there (:mod:`tutor.grading`: the
hint machinery, on sampled deals shared through the game and repaired only
where a card turned up), so a move is never blamed for a card the player
could not see. The *win chance* of a move is its estimated chance to win
after it, with its samples and 95% interval; the *drop* of a played move is
the best move's win chance minus the played move's, on the same deals.

**Labels only when they are real.** A move is an inaccuracy, mistake or
blunder only when the lower end of its drop's 95% interval reaches the
threshold (see :meth:`Thresholds.grade`); otherwise it is best or good, and
``close`` when the interval still reaches an error band. While a label is
in doubt, more deals are drawn for it (up to :data:`tutor.grading.LABEL_BUDGET`).

**Luck is not an error.** When a turn or a reserve card shows new cards, the
win chance moves with no choice made: that change (the position's value on
the same deals, before and after the cards showed) is the luck of the cards
that turned up, reported as such and never charged to the player.

**Hindsight is labelled as such.** With every card known (the true deal) the
solver says whether the deal was winnable at the start, at which move it
stopped being winnable (``lost_at_ply``) and, when it was lost from the
start, the cycle of needs that explains why.

**Accuracy** is Lichess's: each graded move scores
``103.1668 * exp(-0.04354 * drop) - 3.1669 + 1`` clamped to 0..100 (100 for a
move that loses nothing), and the game's figure is the mean of a
volatility-weighted mean and the harmonic mean of those. Forced moves (one
legal move) and free plays (a card that opens no row and can only add
options, spec section 5) are labelled ``best`` and left out, as gnubg and
Lichess leave out forced moves.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

from .cards import NAMES, RANKS, SUIT_NAMES
from .errors import TutorError
from .estimate import Drop, interval_text, paired_drop, wilson
from .grading import LABEL_BUDGET, REVIEW_SAMPLES, PlyScore, score_game
from .knowledge import seen_cards
from .narrate.tips import TipId, tip
from .notation import Move
from .record import Record
from .state import State

__all__ = [
    "Label", "Thresholds", "DEFAULT_THRESHOLDS", "DEFAULT_SAMPLES", "MoveReview", "Hindsight",
    "Moment", "Review", "review", "hindsight", "move_accuracy", "game_accuracy", "TAGS",
    "annotate_record", "tip",
]

#: Shared sampled deals per position (every move of a graded position is
#: scored on them; a label in doubt gets more, up to LABEL_BUDGET).
DEFAULT_SAMPLES = REVIEW_SAMPLES


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
                f"thresholds {self.inaccuracy:g},{self.mistake:g},{self.blunder:g} (best {self.best:g}) are not "
                "in order: expected 0 <= best <= inaccuracy <= mistake <= blunder <= 100, e.g. 5,10,15")

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

    def to_json(self) -> dict:
        return {"inaccuracy": self.inaccuracy, "mistake": self.mistake, "blunder": self.blunder,
                "best": self.best, "luck": self.luck}


DEFAULT_THRESHOLDS = Thresholds()


# ---- accuracy (Lichess's formulas) ---------------------------------------

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
    weighted = sum(a * w for a, w in zip(accuracies, weights)) / sum(weights)
    harmonic = n / sum(1 / max(1.0, a) for a in accuracies)  # Lichess counts a move below 1 as 1
    return (weighted + harmonic) / 2


# ---- tags and their tips ---------------------------------------------------

#: tag -> (the id of its tip in :data:`tutor.narrate.TIPS`, what the tag means). Every tag is a fact
#: of what the player had seen (the position's face-up cards, the scores on consistent deals, the record).
TAGS: dict[str, tuple[TipId, str]] = {
    "early-start": (TipId.WAIT_TO_OPEN, "opened a lower row with the starting rank while waiting was better"),
    "late-start": (TipId.WAIT_TO_OPEN, "waited while opening the row with the starting rank was better"),
    "wrong-row": (TipId.TRACK_RANKS, "opened a row in a suit while opening it in another suit was better"),
    "turned-past": (TipId.PLAN_PASSES, "turned the talon past a playable card that mattered, and never played it"),
    "reserve-dig": (TipId.DIG_RESERVE, "played a reserve card that helped nothing while another move mattered"),
    "talon-shift": (TipId.PLAN_PASSES,
                    "took a waste card that helped nothing and shifted the talon, while turning was better"),
    "no-progress": (TipId.NO_PROGRESS,
                    "ended a pass with no card played since the redeal, so the game was blocked"),
}

# ---- results -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Candidate:
    """One legal move's score from the player's point of view, with its samples and 95% intervals."""

    move: Move
    win: float
    cards: float
    samples: int = 0
    interval: tuple[float, float] = (0.0, 1.0)
    cards_interval: tuple[float, float] = (0.0, 52.0)
    exact: bool = False

    def to_json(self) -> dict:
        out = {"move": str(self.move), "win": round(self.win, 4), "cards": round(self.cards, 2),
               "samples": self.samples, "interval": _rounded(self.interval),
               "cards_interval": [round(x, 2) for x in self.cards_interval]}
        if self.exact:
            out["exact"] = True
        return out


def _rounded(pair) -> list[float]:
    return [round(pair[0], 4), round(pair[1], 4)]


@dataclass(frozen=True, slots=True)
class MoveReview:
    """The review of one move.

    ``win_before`` is the best move's win chance, ``win_after`` the played
    move's, both from what the player knew before the move (0..1), on the
    same ``samples`` shared deals (``exact``: every consistent deal), with
    their 95% intervals. ``paired``: the drop from the best move to the
    played one (possibly on more deals, while its label was in doubt), which
    decides the label; ``close``: labelled best or good, but the interval
    still reaches an error band. ``graded`` is False for forced moves and
    free plays, which keep the position's value (their own, on the same
    deals). ``luck``: when the cards that turned up after this move
    (``seen``) moved the position's value clearly, on the same deals, that
    swing (-1..1); else None.
    """

    ply: int
    move: Move
    best: Move
    win_before: float
    win_after: float
    label: Label
    tags: tuple[str, ...]
    comment: str
    graded: bool = True
    forced: bool = False
    card: int | None = None
    cards_after: float | None = None
    candidates: tuple[Candidate, ...] = ()
    accuracy: float | None = None
    luck: float | None = None
    seen: tuple[int, ...] = ()
    samples: int = 0
    exact: bool = False
    win_before_interval: tuple[float, float] = (0.0, 1.0)
    win_after_interval: tuple[float, float] = (0.0, 1.0)
    paired: Drop | None = None
    close: bool = False
    luck_interval: tuple[float, float] | None = None
    only_move: bool = False  # hindsight: the one legal move after which the win could still be had

    @property
    def drop(self) -> float:
        """Win-chance points lost against the best move (the paired estimate, 0 or more)."""
        if self.paired is not None:
            return max(0.0, self.paired.estimate * 100)
        return max(0.0, (self.win_before - self.win_after) * 100)

    def to_json(self) -> dict:
        data = {
            "ply": self.ply, "move": str(self.move), "best": str(self.best),
            "win_before": round(self.win_before, 4), "win_after": round(self.win_after, 4),
            "label": str(self.label), "tags": list(self.tags), "comment": self.comment,
            "graded": self.graded, "forced": self.forced,
            "card": NAMES[self.card] if self.card is not None else None,
            "drop": round(self.drop, 2),
            "samples": self.samples,
            "win_before_interval": _rounded(self.win_before_interval),
            "win_after_interval": _rounded(self.win_after_interval),
            "only_move": self.only_move,
        }
        if self.exact:
            data["exact"] = True
        if self.paired is not None:
            data["drop_interval"] = [round(self.paired.lo * 100, 2), round(self.paired.hi * 100, 2)]
            data["drop_samples"] = self.paired.samples
        if self.close:
            data["close"] = True
        if self.accuracy is not None:
            data["accuracy"] = round(self.accuracy, 1)
        if self.candidates:
            data["candidates"] = [c.to_json() for c in self.candidates]
        if self.luck is not None:
            data["luck"] = round(self.luck, 4)
            data["seen"] = [NAMES[c] for c in self.seen]
            if self.luck_interval is not None:
                data["luck_interval"] = _rounded(self.luck_interval)
        return data

    def annotation(self) -> dict:
        """The record annotation of this move: label, tags and comment."""
        return {"label": str(self.label), "tags": list(self.tags), "comment": self.comment}


@dataclass(frozen=True, slots=True)
class Hindsight:
    """What the solver says with every card known (hindsight, not fair play).

    ``winnable``: the deal at the start (None: the solver's limit was hit).
    ``lost_at_ply``: the first move (1-based) after which the true position
    was no longer winnable while it was before; None if the game was won,
    never winnable, or still winnable when the record ends. ``better``: a move
    that would have kept the win at that point. ``explanation``: for a deal
    lost from the start, the cycle that explains it (``.cycle``, ``.text()``).
    """

    winnable: bool | None
    lost_at_ply: int | None
    better: Move | None = None
    explanation: object | None = None
    still_winnable: bool | None = None
    undecided: bool = False
    won: bool = False

    @property
    def explanation_text(self) -> str | None:
        if self.explanation is None:
            return None
        text = getattr(self.explanation, "text", None)
        return text() if callable(text) else str(text if text is not None else self.explanation)

    @property
    def cycle(self) -> list[int] | None:
        return list(getattr(self.explanation, "cycle", []) or []) or None

    def verdict(self) -> str:
        """One sentence, starting with the hindsight caveat."""
        head = "With hindsight (all cards known): "
        if self.winnable is None:
            return head + "the solver could not decide whether the deal was winnable within its limit."
        if not self.winnable:
            why = self.explanation_text
            return head + "the deal could not be won from the start" + (f": {why}" if why else ".")
        if self.won:
            return head + "the deal was winnable, and the game was won."
        if self.lost_at_ply is not None:
            alt = f" ({self.better} instead would have kept it)" if self.better is not None else ""
            return head + f"the deal was winnable, and move {self.lost_at_ply} threw the win away{alt}."
        if self.undecided:
            return head + ("the deal was winnable and the win was lost, but the solver could not pin down "
                           "the move within its limit.")
        if self.still_winnable is None:
            return head + ("the deal was winnable; whether it still was when the record ends, the solver "
                           "could not decide within its limit.")
        return head + "the deal was winnable, and the game could still be won when the record ends."

    def to_json(self) -> dict:
        return {"winnable": self.winnable, "lost_at_ply": self.lost_at_ply, "still_winnable": self.still_winnable,
                "better": str(self.better) if self.better is not None else None,
                "explanation": self.explanation_text,
                "cycle": [NAMES[c] for c in self.cycle] if self.cycle else None}


@dataclass(frozen=True, slots=True)
class Moment:
    """A critical moment: a big swing in the win chance, by the player (``error``) or the cards (``luck``)."""

    ply: int
    kind: str
    before: float
    after: float
    text: str

    @property
    def swing(self) -> float:
        return self.after - self.before

    def to_json(self) -> dict:
        return {"ply": self.ply, "kind": self.kind, "before": round(self.before, 4),
                "after": round(self.after, 4), "swing": round(self.swing, 4), "text": self.text}


@dataclass(slots=True)
class Review:
    """The review of a whole game."""

    record: Record
    moves: list[MoveReview]
    accuracy: float
    hindsight: Hindsight
    result: dict
    thresholds: Thresholds = DEFAULT_THRESHOLDS
    samples: int | None = None
    critical: list[Moment] = field(default_factory=list)
    #: The replayed positions (``states[i]`` before move i+1), so that nothing replays the game again.
    states: tuple[State, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        """How many moves got each label (forced moves and free plays included as ``best``)."""
        counts = {str(label): 0 for label in Label}
        for m in self.moves:
            counts[str(m.label)] += 1
        return counts

    @property
    def graded(self) -> int:
        return sum(1 for m in self.moves if m.graded)

    def sampling(self) -> dict:
        """The real sample counts behind the figures: shared deals a move, exact moves, labels that drew more."""
        sampled = [m for m in self.moves if not m.exact]
        exact = [m for m in self.moves if m.exact]
        extra = [m.paired.samples for m in self.moves
                 if m.paired is not None and not m.paired.exact and m.paired.samples > m.samples]
        return {"samples": self.samples, "sampled_moves": len(sampled),
                "samples_a_move": sorted({m.samples for m in sampled}),
                "exact_moves": len(exact), "labels_with_more": len(extra),
                "most_label_samples": max(extra, default=None)}

    def sampling_text(self) -> str:
        """The header's sentence on the sample counts (what was really used)."""
        info = self.sampling()
        counts = info["samples_a_move"]
        parts = []
        if info["sampled_moves"]:
            each = (f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}")
            parts.append(f"{each} sampled deals a move for {info['sampled_moves']} moves, the same deals "
                         "through the game (redrawn only where a card that turned up contradicted them)")
        if info["exact_moves"]:
            parts.append(f"{info['exact_moves']} moves exact (every consistent deal solved)")
        if info["labels_with_more"]:
            parts.append(f"{info['labels_with_more']} labels in doubt drew more deals, up to "
                         f"{info['most_label_samples']}")
        return "; ".join(parts) + "; 95% intervals" if parts else "no move scored"

    def to_json(self) -> dict:
        """The spec's ``review --json`` object (section 4), plus extra fields."""
        return {
            "moves": [m.to_json() for m in self.moves],
            "accuracy": round(self.accuracy, 1),
            "hindsight": self.hindsight.to_json(),
            "result": dict(self.result),
            "counts": self.counts,
            "graded": self.graded,
            "critical": [c.to_json() for c in self.critical],
            "thresholds": self.thresholds.to_json(),
            "samples": self.samples,
            "sampling": self.sampling(),
            "variant": self.record.rules.to_json(),
            "deal": self.record.deal.record_ref(),
        }

    def annotated(self) -> Record:
        """The record with each move's label, tags and comment as its annotation."""
        return annotate_record(self.record, self)


def annotate_record(record: Record, rev: Review) -> Record:
    return Record(record.rules, record.deal, list(record.moves), [m.annotation() for m in rev.moves],
                  record.final_result())


# ---- what the player has seen ---------------------------------------------

def _opens_row(state: State, card: int | None) -> bool:
    return card is not None and card // 13 not in state.rows and state.destination(card) >= 0


def _is_free(state: State, move: Move) -> bool:
    """A play that can only add options: a reserve card (or, turning one card, a waste card) opening no row."""
    if move.kind == "d":
        return False
    if move.kind == "w" and state.rules.turn != 1:
        return False
    return not _opens_row(state, state.card_of(move))


# ---- scoring with the player's knowledge -----------------------------------

def score_position(state: State, samples: int | None = None) -> tuple[Move, list[Candidate]]:
    """The hint's best move and every legal move's win chance and expected cards, from what the player saw.

    This is the hint machinery: :func:`tutor.hints.score_moves` on
    :func:`tutor.knowledge.observe`; it never looks at a hidden card.
    """
    from .hints import score_moves
    from .knowledge import observe

    scored = score_moves(observe(state), samples=samples)
    return scored.best, [Candidate(c.move, float(c.win), float(c.cards), int(c.samples))
                         for c in scored.candidates]


# ---- hindsight -----------------------------------------------------------

def hindsight(states: list[State], limit=None) -> Hindsight:
    """Solve the true positions (every card known): winnable at the start, and where the win was lost.

    Winnability with full knowledge never comes back once lost, so
    ``lost_at_ply`` is found by bisection over the positions after each move.
    """
    from . import search

    lim = limit if limit is not None else search.DEFAULT_LIMIT
    cache: dict[int, object] = {}

    def solve(k: int):
        if k not in cache:
            cache[k] = search.solve(states[k], lim, want="win")
        return cache[k]

    first = solve(0)
    winnable = first.winnable
    if winnable is False:
        explanation = getattr(first, "explanation", None) or search.lost_from_start(states[0])
        return Hindsight(False, None, explanation=explanation)
    if winnable is None:
        return Hindsight(None, None)
    n = len(states) - 1
    final = states[-1]
    if final.won:
        return Hindsight(True, None, still_winnable=True, won=True)
    if not final.over:
        end = solve(n).winnable
        if end is True:
            return Hindsight(True, None, still_winnable=True)
        if end is None:
            return Hindsight(True, None, still_winnable=None)
    # states[lo] is winnable, states[hi] is not; find the first k with states[k] not winnable.
    lo, hi = 0, n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        verdict = solve(mid).winnable
        if verdict is None:
            # Undecided at the limit: try a few neighbours for a decided position.
            for probe in [p for d in range(1, 4) for p in (mid + d, mid - d) if lo < p < hi]:
                verdict = solve(probe).winnable
                if verdict is not None:
                    mid = probe
                    break
            else:
                return Hindsight(True, None, still_winnable=False, undecided=True)
        if verdict:
            lo = mid
        else:
            hi = mid
    line = getattr(solve(lo), "line", ()) or ()
    better = line[0] if line else None
    return Hindsight(True, hi, better=better, still_winnable=False)


# ---- the review ------------------------------------------------------------

def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _card_name(card: int | None) -> str:
    return NAMES[card] if card is not None else "?"


def review(record: Record, samples: int | None = DEFAULT_SAMPLES, thresholds: Thresholds = DEFAULT_THRESHOLDS,
           progress: Callable[[int, int], None] | None = None, workers: int | None = None,
           limit=None, label_budget: int | None = None) -> Review:
    """Review a game record: grade every move, tag the errors, add hindsight and accuracy.

    ``samples``: shared sampled deals per position (default
    :data:`DEFAULT_SAMPLES`; None also means the default). ``label_budget``:
    the most deals for a label in doubt (default: :data:`tutor.grading.LABEL_BUDGET`
    at the default ``samples``, in proportion otherwise: eight times). ``thresholds``: where
    the labels start. ``progress(done, total)`` is called as positions are
    scored. ``workers``: processes (default: up to 2, the CPUs, when the game
    is long enough). ``limit``: the solver limit for hindsight.
    """
    samples = DEFAULT_SAMPLES if samples is None else samples
    if samples < 1:
        raise TutorError(f"samples {samples!r} is not allowed: expected a positive number")
    budget = label_budget if label_budget is not None else max(samples, LABEL_BUDGET * samples // REVIEW_SAMPLES)
    states = record.states()
    moves = list(record.moves)
    n = len(moves)
    graded = {i for i in range(n) if len(states[i].legal_moves()) > 1 and not _is_free(states[i], moves[i])}
    total = n + 1
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if n >= 24 else 1
    scores = score_game(states, moves, graded, samples, budget, thresholds.bands(), workers, progress, total)
    facts = hindsight(states, limit)
    only = _only_moves(states, moves, facts, limit)
    if progress:
        progress(total, total)
    rev = _assemble(record, states, moves, scores, facts, thresholds, samples)
    rev.moves[:] = [_replace(m, only_move=True, comment=m.comment + " With hindsight (all cards known), it was "
                             "the only move that kept the win.") if m.ply - 1 in only else m for m in rev.moves]
    return rev


def _only_moves(states: list[State], moves: list[Move], facts: Hindsight, limit=None) -> set[int]:
    """Hindsight: the 0-based plies whose played move was the only one that kept a win.

    Computed (with :func:`tutor.graph.winning_facts`) only where the true position
    was winnable: before ``lost_at_ply``, or to the end when the win was kept.
    """
    from . import search
    from .graph import winning_facts

    if not facts.winnable:
        return set()
    end = len(moves) if facts.lost_at_ply is None else facts.lost_at_ply - 1
    if facts.lost_at_ply is None and not (facts.won or facts.still_winnable):
        return set()
    lim = limit if limit is not None else search.DEFAULT_LIMIT
    out = set()
    for i in range(end):
        if len(states[i].legal_moves()) > 1:
            only = winning_facts(states[i], lim).only_move
            if only is not None and only == moves[i]:
                out.add(i)
    return out


def _candidate(move: Move, est) -> Candidate:
    return Candidate(move, est.win, est.cards, est.samples, (est.win_lo, est.win_hi),
                     (est.cards_lo, est.cards_hi), est.exact)


def _assemble(record, states, moves, scores: dict[int, PlyScore], facts: Hindsight, th: Thresholds,
              samples) -> Review:
    n = len(moves)
    final = states[-1]
    later_placed = _placement_plies(states, moves)
    out: list[MoveReview] = []
    for i, move in enumerate(moves):
        state = states[i]
        card = state.card_of(move)
        legal = state.legal_moves()
        ps = scores[i]
        if not ps.graded:
            forced = len(legal) == 1
            est = ps.estimates[move]
            value, interval = est.win, (est.win_lo, est.win_hi)
            if i == n - 1 and final.over:
                value, interval = (1.0, (1.0, 1.0)) if final.won else (0.0, (0.0, 0.0))
            figure = f"win {_pct(value)} ({_interval(est)})"
            comment = (f"The only legal move ({figure})." if forced else
                       f"A free play: {_card_name(card)} opens no row, so playing it can only add options "
                       f"({figure}).")
            out.append(MoveReview(i + 1, move, move, value, value, Label.BEST, (), comment,
                                  graded=False, forced=forced, card=card, samples=ps.samples, exact=ps.exact,
                                  win_before_interval=interval, win_after_interval=interval))
            continue
        cands = [_candidate(m, e) for m, e in ps.estimates.items()]
        by_move = {c.move: c for c in cands}
        played = by_move.get(move)
        if played is None:
            raise TutorError(f"the hint machinery gave no score for move {i + 1} '{move}'")
        top = by_move[ps.best]
        paired = ps.drop
        if paired is None:  # the played move is the best one
            label, close = Label.BEST, False
        else:
            label, close = th.grade(paired)
        best = move if label == Label.BEST else top.move
        lead = max(cands, key=lambda c: c.win) if top.win < played.win else top
        win_before = max(lead.win, played.win)
        if label >= Label.INACCURACY:
            tags, notes = _tags(i, state, move, card, by_move, played, top, th, later_placed, facts)
        else:
            tags, notes = [], {}
        comment = _comment(i, state, move, card, label, best, by_move, played, top, tags, notes, facts, th,
                           paired, close)
        drop_pts = max(0.0, paired.estimate * 100) if paired is not None else 0.0
        out.append(MoveReview(i + 1, move, best, win_before, played.win, label, tuple(tags), comment,
                              card=card, cards_after=played.cards, candidates=tuple(sorted(
                                  cands, key=lambda c: (-c.win, -c.cards))),
                              accuracy=move_accuracy(drop_pts), samples=ps.samples, exact=ps.exact,
                              win_before_interval=(lead if lead.win >= played.win else played).interval,
                              win_after_interval=played.interval, paired=paired, close=close))
    out = _add_luck(out, states, scores, final, th)
    graded = [m for m in out if m.graded]
    wins = [m.win_before * 100 for m in graded] + ([graded[-1].win_after * 100] if graded else [])
    accuracy = game_accuracy(wins, [m.accuracy for m in graded])
    critical = _critical(out, states, th)
    return Review(record, out, accuracy, facts, {"cards": final.cards, "won": final.won}, th, samples, critical,
                  tuple(states))


def _fig(c: Candidate) -> str:
    """A candidate's win chance with its interval: "39% (95%: 28-51%)" or "39% (exact)"."""
    return f"{_pct(c.win)} ({_win_interval(c)})"


def _win_interval(c) -> str:
    return "exact" if c.exact else interval_text(*c.interval)


def _interval(est) -> str:
    """"95%: 31-48%, 64 deals" or "exact, 24 deals"."""
    if est.exact:
        return f"exact, {est.samples} deal{'s' if est.samples != 1 else ''}"
    return f"{interval_text(est.win_lo, est.win_hi)}, {est.samples} deals"


def _placement_plies(states, moves) -> dict[int, int]:
    """card -> the 0-based ply at which it was placed."""
    placed = {}
    for i, move in enumerate(moves):
        card = states[i].card_of(move)
        if card is not None:
            placed[card] = i
    return placed


def _tags(i, state: State, move: Move, card, by_move, played, top, th: Thresholds, placed_at, facts: Hindsight):
    """The kinds of error this move shows, from the position and the scores; and facts for the comment."""
    tags: list[str] = []
    notes: dict[str, object] = {}
    margin = th.inaccuracy / 100
    opens = _opens_row(state, card)
    waiting = [c for m, c in by_move.items() if not _opens_row(state, state.card_of(m))]
    openers = [c for m, c in by_move.items() if m != move and _opens_row(state, state.card_of(m))]
    if opens:
        row = len(state.rows) + 1
        best_wait = max(waiting, key=lambda c: c.win, default=None)
        if best_wait is not None and best_wait.win - played.win >= margin:
            tags.append("early-start")
            notes["wait"] = best_wait
        other = max(openers, key=lambda c: c.win, default=None)
        if other is not None and other.win - played.win >= margin:
            tags.append("wrong-row")
            notes["other"] = other
        elif top.win - played.win >= margin:
            # The cycle of needs is found on the true deal: a hindsight fact, not a tag.
            blocking = _new_cycle(state, move)
            if blocking is not None:
                notes["cycle"] = blocking
        notes["row"] = row
    else:
        best_open = max(openers, key=lambda c: c.win, default=None)
        if best_open is not None and best_open.win - played.win >= margin:
            tags.append("late-start")
            notes["open"] = best_open
    after_move = state.apply(move)
    if (move.kind == "d" and state.pos < len(state.talon) and not state.progress and after_move.blocked):
        # The no-progress rule: a pass ended with no card played since the redeal, and nothing is left.
        tags.append("no-progress")
    elif move.kind == "d" and state.pos and "w" in {str(m) for m in by_move}:
        top_card = state.waste_top
        w = by_move.get(Move("w"))
        if (w is not None and not _opens_row(state, top_card) and w.win - played.win >= margin
                and placed_at.get(top_card) is None):
            tags.append("turned-past")
            notes["past"] = (top_card, w)
    if move.kind == "r" and top.win - played.win >= margin:
        # Only a reserve card that opens a row is ever graded (any other one only adds options).
        after = state.apply(move)
        before_cards = {state.card_of(m) for m in state.legal_moves() if m.is_play} - {card}
        after_cards = {after.card_of(m) for m in after.legal_moves() if m.is_play}
        if not (after_cards - before_cards):
            tags.append("reserve-dig")
            pile = after.reserves[move.pile]
            notes["under"] = pile[-1] if pile else None
    if (move.kind == "w" and state.rules.turn != 1 and not opens and Move("d") in by_move
            and by_move[Move("d")].win - played.win >= margin):
        tags.append("talon-shift")
        notes["turn"] = by_move[Move("d")]
    return tags, notes


def _new_cycle(state: State, move: Move):
    """The constraint cycle that opening this row creates, and whether the player could see all its cards."""
    from . import search

    try:
        if search.lost_from_start(state) is not None:
            return None
        expl = search.lost_from_start(state.apply(move))
    except TutorError:
        return None
    if expl is None:
        return None
    return expl


def _comment(i, state, move, card, label, best, by_move, played, top, tags, notes, facts: Hindsight, th,
             paired: Drop | None = None, close: bool = False) -> str:
    parts: list[str] = []
    cname = _card_name(card)
    what = f"{move} ({cname})" if card is not None else f"{move} (turn)"
    basis = (f"exact, every one of the {played.samples} consistent deals" if played.exact
             else f"{played.samples} deals")
    if paired is not None and not paired.exact:
        est, lo, hi = paired.points()
        gap = f"{est:.0f} points lower (95%: {lo:.0f} to {hi:.0f}, {paired.samples} deals, paired)"
    elif paired is not None:
        gap = f"{paired.estimate * 100:.0f} points lower (exact)"
    else:
        gap = ""
    if label == Label.BEST:
        parts.append(f"Best move: win {_pct(played.win)} ({_win_interval(played)}, {basis}).")
    elif label == Label.GOOD:
        text = (f"Good: nearly as strong as {best} (win {_pct(played.win)} against {_pct(top.win)}, {gap})."
                if gap else f"Good: nearly as strong as {best} (win {_pct(played.win)} against {_pct(top.win)}).")
        if close:
            text += " Too close to call an error: the interval still reaches the inaccuracy threshold."
        parts.append(text)
    else:
        bc = state.card_of(best)
        bwhat = f"{best} ({_card_name(bc)})" if bc is not None else f"{best} (turning the talon)"
        parts.append(f"{str(label).capitalize()}: {bwhat} was better, win {_pct(top.win)} against "
                     f"{_pct(played.win)} after {what}: {gap}.")
    tips: list[str] = []
    for tag in tags:
        if tag == "early-start":
            wait = notes["wait"]
            wc = state.card_of(wait.move)
            how = (f"holding it back and playing {wait.move} ({_card_name(wc)})" if wc is not None
                   else "holding it back and turning the talon")
            parts.append(f"Playing {cname} opened row {notes['row']} for {SUIT_NAMES[card // 13]} with the "
                         f"starting rank {RANKS[state.start_rank - 1]}; {how} kept {_fig(wait)}.")
        elif tag == "wrong-row":
            if "other" in notes:
                other = notes["other"]
                oc = state.card_of(other.move)
                parts.append(f"Putting {SUIT_NAMES[card // 13]} in row {notes['row']} blocks the rows "
                             f"below; opening it with {_card_name(oc)} instead kept {_fig(other)}.")
            else:
                pass
        elif tag == "late-start":
            op = notes["open"]
            oc = state.card_of(op.move)
            parts.append(f"Opening the next row with {_card_name(oc)} now was better (win {_fig(op)}): "
                         "waiting lost more than it could gain.")
        elif tag == "no-progress":
            parts.append("This turn ended a pass with no card played since the redeal, and no card could "
                         "be played after it: the waste can never be turned over again, so the game was "
                         "blocked.")
        elif tag == "turned-past":
            pc, w = notes["past"]
            parts.append(f"Turning past {_card_name(pc)} on the waste (win {_fig(w)} if played) gave it "
                         "up: it was never played afterwards.")
        elif tag == "reserve-dig":
            under = notes["under"]
            if under is None:
                parts.append(f"Playing {cname} emptied reserve pile {move.pile + 1} and made no new card "
                             "playable: digging the reserve helped nothing here.")
            else:
                parts.append(f"Playing {cname} uncovered {NAMES[under]}, which could not be played: "
                             "digging the reserve helped nothing here.")
        elif tag == "talon-shift":
            t = notes["turn"]
            parts.append(f"Taking {cname} off the waste shifted the talon's threes; turning kept "
                         f"{_fig(t)}.")
        topic = TAGS[tag][0]
        if tag == "turned-past" and notes["past"][0] // 13 == state.rows[0]:
            topic = TipId.FIRST_ROW
        text = tip(topic)
        if text not in tips:
            tips.append(text)
    if tips:
        parts.append("Tip: " + tips[0])  # the first tag's tip: one piece of advice at a time
    if "cycle" in notes:
        expl = notes["cycle"]
        text = getattr(expl, "text", None)
        why = text() if callable(text) else str(expl)
        # One sentence, so that every clause that names a hidden card is under the hindsight words.
        why = re.sub(r"\. (\w)", lambda m: "; " + m.group(1).lower(), why.strip())
        parts.append(f"With hindsight (all cards known), putting {SUIT_NAMES[card // 13]} in row "
                     f"{notes['row']} blocked the rows below: {why}")
    if facts.lost_at_ply == i + 1:
        alt = f", and {facts.better} would have kept it" if facts.better is not None else ""
        parts.append(f"With hindsight (all cards known), this move threw away a win{alt}.")
    return " ".join(parts)


def _add_luck(out: list[MoveReview], states, scores: dict[int, PlyScore], final: State,
              th: Thresholds) -> list[MoveReview]:
    """Attach the luck of the cards that turned up after a move to that move.

    Luck is the change in the position's value between the played move (on
    the deals before the cards showed) and the next position (the same deals,
    repaired where the new cards contradicted them), deal by deal. It is
    called out when new cards were seen, it reaches ``th.luck`` points, and
    its paired 95% interval excludes zero. At an exact position the deals are
    all the consistent ones, not the shared ones, so the two sides are not
    paired: there the interval is the sampled side's.
    """
    result = list(out)
    n = len(out)
    for i in range(n):
        here = scores[i]
        nxt = scores.get(i + 1)
        later = states[i + 1]
        new = sorted(seen_cards(later) - seen_cards(states[i]))
        if not new:
            continue
        if nxt is None:
            if not final.over:
                continue
            value_next = (final.won,) * max(1, len(here.after))
            exact_next = True
        else:
            value_next, exact_next = nxt.value, nxt.exact
        before = sum(here.after) / max(1, len(here.after))
        after = sum(value_next) / max(1, len(value_next))
        swing = after - before
        if here.exact or exact_next or len(value_next) != len(here.after):
            # Not the same deals on both sides: the sampled sides' own uncertainty, unpaired.
            half = 0.0
            for won, exact in ((here.after, here.exact), (value_next, exact_next)):
                if not exact and won:
                    wlo, whi = wilson(sum(won), len(won))
                    half += ((whi - wlo) / 2) ** 2
            lo, hi = swing - math.sqrt(half), swing + math.sqrt(half)
        else:
            d = paired_drop(value_next, here.after)
            lo, hi = d.lo, d.hi
        if abs(swing) * 100 < th.luck or lo <= 0 <= hi:
            continue
        m = result[i]
        shown = ", ".join(NAMES[c] for c in new[:8]) + (", ..." if len(new) > 8 else "")
        word = "good luck" if swing > 0 else "bad luck"
        comment = (f"{m.comment} Luck, not a choice: the cards that turned up ({shown}) moved the win "
                   f"chance from {_pct(before)} to {_pct(after)} ({word}; the same deals before and after).")
        result[i] = _replace(m, luck=swing, seen=tuple(new), comment=comment, luck_interval=(lo, hi))
    return result


def _luck_range(m: MoveReview) -> str:
    if m.luck_interval is None:
        return ""
    lo, hi = m.luck_interval
    if abs(hi - lo) < 1e-9:
        return ", exact"
    return f", 95%: {lo * 100:+.0f} to {hi * 100:+.0f}"


def _replace(m: MoveReview, **changes) -> MoveReview:
    values = {f: getattr(m, f) for f in MoveReview.__slots__}
    values.update(changes)
    return MoveReview(**values)


def _critical(moves: list[MoveReview], states, th: Thresholds, count: int = 5) -> list[Moment]:
    """The largest swings in win chance: the player's drops and the cards' luck."""
    def what(state: State, move: Move) -> str:
        card = state.card_of(move)
        return f"{move} ({NAMES[card]})" if card is not None else f"{move} (turn)"

    moments = []
    for m in moves:
        if m.graded and m.label >= Label.INACCURACY:
            state = states[m.ply - 1]
            lo, hi = m.paired.lo * 100, m.paired.hi * 100
            how = ("exact" if m.paired.exact else f"95%: {lo:.0f}-{hi:.0f}, {m.paired.samples} deals")
            moments.append(Moment(m.ply, "error", m.win_before, m.win_after,
                                  f"{what(state, m.move)} lost {m.drop:.0f} points ({how}) against "
                                  f"{what(state, m.best)}"))
        if m.luck is not None:
            shown = ", ".join(NAMES[c] for c in m.seen[:6]) + (", ..." if len(m.seen) > 6 else "")
            moments.append(Moment(m.ply, "luck", m.win_after, m.win_after + m.luck,
                                  f"luck: {shown} turned up"
                                  f" ({'+' if m.luck > 0 else '-'}{abs(m.luck) * 100:.0f} points{_luck_range(m)})"))
    moments.sort(key=lambda x: (-abs(x.swing), x.ply))
    return sorted(moments[:count], key=lambda x: x.ply)

