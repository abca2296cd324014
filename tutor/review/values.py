"""The review's results as values: one move's review, the hindsight facts, a critical moment, the game's review.

Each keeps its figures and the facts its words come from; the words
themselves (the comment of a move, the text of a moment, the hindsight
verdict) are built by :mod:`tutor.narrate.review`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cards import NAMES
from ..constraints import Explanation
from ..estimate import Drop
from ..notation import Move
from ..practical import METHOD, estimate_json
from ..record import Record
from ..state import State
from .facts import Candidate, Comment, MomentFact, MomentKind, Practical, Tag, _rounded
from .grades import DEFAULT_THRESHOLDS, Label, Thresholds

__all__ = ["MoveReview", "Hindsight", "Moment", "Review", "annotate_record"]


@dataclass(frozen=True, slots=True)
class MoveReview:
    """The review of one move.

    ``win_before`` is the best move's win chance, ``win_after`` the played
    move's, both from what the player knew before the move (0..1), on the
    same ``samples`` deals (``exact``: every consistent deal), with their 95%
    intervals: the shared deals, or more while the label was in doubt. ``paired``: the drop from the best move to the
    played one (possibly on more deals, while its label was in doubt), which
    decides the label; ``close``: labelled best or good, but the interval
    still reaches an error band. ``graded`` is False for forced moves and
    free plays, which keep the position's value (their own, on the same
    deals), and for moves in a position already lost (``decided``: no legal
    move wins in any consistent deal; one where every move keeps the win is graded). ``luck``: when the cards that turned up after this move
    (``seen``) moved the position's value clearly, on the same deals, that
    swing (-1..1); else None. ``facts``: what ``comment`` is built from.
    """

    ply: int
    move: Move
    best: Move
    win_before: float
    win_after: float
    label: Label
    tags: tuple[Tag, ...]
    comment: str
    graded: bool = True
    forced: bool = False
    decided: bool = False
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
    facts: Comment | None = None
    shared: int = 0  # the shared deals of this position, when the figures rest on more (0: on ``samples``)
    #: the deals ``luck``'s figures rest on, before and after the cards showed (``samples`` may be a label's more)
    luck_samples: tuple[int, int] = (0, 0)

    @property
    def drop(self) -> float:
        """Win-chance points lost against the best move (the paired estimate, 0 or more)."""
        if self.paired is not None:
            return max(0.0, self.paired.estimate * 100)
        return max(0.0, (self.win_before - self.win_after) * 100)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ply": self.ply, "move": str(self.move), "best": str(self.best),
            "win_before": round(self.win_before, 4), "win_after": round(self.win_after, 4),
            "label": str(self.label), "tags": [str(t) for t in self.tags], "comment": self.comment,
            "graded": self.graded, "forced": self.forced, "decided": self.decided,
            "card": NAMES[self.card] if self.card is not None else None,
            "drop": round(self.drop, 2),
            "samples": self.samples,
            "win_before_interval": _rounded(self.win_before_interval),
            "win_after_interval": _rounded(self.win_after_interval),
            # the spec's one sampled figure a reviewed move carries: the win chance after the move played
            "interval": _rounded(self.win_after_interval),
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
            before, after = self.luck_samples
            if before:
                data["luck_samples"] = before
            if after and after != before:  # one side exact (every consistent deal), the other sampled
                data["luck_samples_after"] = after
        return data

    def annotation(self) -> dict[str, Any]:
        """The record annotation of this move: label, tags and comment (and ``graded: false`` for a forced
        move, a free play or a decided position, whose label ``best`` only says it keeps the position's value)."""
        # the move it speaks of: a replay tells its own annotations from ones left on moves since changed
        note: dict[str, Any] = {"move": str(self.move), "label": str(self.label), "tags": [str(t) for t in self.tags],
                                "comment": self.comment}
        if not self.graded:
            note["graded"] = False
        return note


@dataclass(frozen=True, slots=True)
class Hindsight:
    """What the solver says with every card known (hindsight, not fair play).

    ``winnable``: the deal at the start (None: the solver's limit was hit).
    ``lost_at_ply``: the first move (1-based) after which the true position
    was no longer winnable while it was before; None if the game was won,
    never winnable, or still winnable when the record ends. ``better``: a move
    that would have kept the win at that point (``better_card``: the card it
    plays, None for a turn). ``explanation``: for a deal
    lost from the start, the cycle that explains it (``.cycle``, ``.text()``).
    ``seen``: that loss was in plain view from the first move (every reserve
    card face up, as in Peek, and no row order left that can be completed),
    so it is no hindsight.
    """

    winnable: bool | None
    lost_at_ply: int | None
    better: Move | None = None
    explanation: Explanation | None = None
    still_winnable: bool | None = None
    undecided: bool = False
    won: bool = False
    better_card: int | None = None  # the card ``better`` plays (None for a turn or a redeal)
    seen: bool = False

    @property
    def explanation_text(self) -> str | None:
        return self.explanation.text() if self.explanation is not None else None

    @property
    def cycle(self) -> list[int] | None:
        return list(self.explanation.cycle) or None if self.explanation is not None else None

    def verdict(self) -> str:
        """One sentence, starting with the hindsight caveat (:func:`tutor.narrate.review.verdict`)."""
        from ..narrate.review import verdict

        return verdict(self)

    def to_json(self) -> dict[str, Any]:
        return {"winnable": self.winnable, "lost_at_ply": self.lost_at_ply, "still_winnable": self.still_winnable,
                "better": str(self.better) if self.better is not None else None,
                "explanation": self.explanation_text,
                "cycle": [NAMES[c] for c in self.cycle] if self.cycle else None}


@dataclass(frozen=True, slots=True)
class Moment:
    """A critical moment: a big swing in the win chance, by the player (``error``) or the cards (``luck``).

    ``fact``: what ``text`` is built from. ``practical``: for an error, when
    the review was asked for it (``--practical N``), the tutor's blind play
    after the move played and after the best one; ``practical_text`` its
    sentence.
    """

    ply: int
    kind: MomentKind
    before: float
    after: float
    text: str
    fact: MomentFact | None = None
    practical: Practical | None = None
    practical_text: str = ""
    #: the deals each win chance rests on (0: not known), its 95% interval (None: not known) and whether it
    #: is exact (every consistent deal, or the game's result); the swing's own interval, on ``swing_samples``
    #: paired deals where it was measured on others (an error's drop, on the deals drawn for its label)
    samples: int = 0
    samples_after: int = 0
    swing_samples: int = 0
    before_interval: tuple[float, float] | None = None
    after_interval: tuple[float, float] | None = None
    swing_interval: tuple[float, float] | None = None
    exact_before: bool = False
    exact_after: bool = False

    @property
    def swing(self) -> float:
        return self.after - self.before

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ply": self.ply, "kind": str(self.kind), "before": round(self.before, 4),
                                "after": round(self.after, 4), "swing": round(self.swing, 4), "text": self.text}
        if self.samples:
            data["samples"] = self.samples
            if self.samples_after != self.samples:
                data["samples_after"] = self.samples_after
        if self.swing_samples and self.swing_samples != self.samples:
            data["swing_samples"] = self.swing_samples
        for name, span in (("before_interval", self.before_interval), ("after_interval", self.after_interval),
                           ("swing_interval", self.swing_interval)):
            if span is not None:
                data[name] = [round(span[0], 4), round(span[1], 4)]
        data["exact"] = self.exact_before and self.exact_after
        if self.practical is not None:
            p = self.practical
            data["practical"] = {"games": p.games, "played": {"move": str(p.move), **estimate_json(p.played)},
                                 "best": {"move": str(p.best), **estimate_json(p.top)}, "method": METHOD,
                                 "exact": p.exact, "text": self.practical_text}
        return data


@dataclass(slots=True)
class Review:
    """The review of a whole game."""

    record: Record
    moves: list[MoveReview]
    accuracy: float
    hindsight: Hindsight
    result: dict[str, Any]
    thresholds: Thresholds = DEFAULT_THRESHOLDS
    samples: int | None = None
    critical: list[Moment] = field(default_factory=list)
    #: The replayed positions (``states[i]`` before move i+1), so that nothing replays the game again.
    states: tuple[State, ...] = ()
    #: Blind games asked for each error moment's practical win chance (``--practical N``); None: not asked.
    practical: int | None = None
    #: The accuracy's 95% interval (:func:`tutor.review.grades.accuracy_interval`): the graded moves' drops are
    #: sampled, so the figure is too. None only for a review made without it.
    accuracy_interval: tuple[float, float] | None = None

    @property
    def counts(self) -> dict[str, int]:
        """How many moves got each label (forced moves, free plays and decided positions included as ``best``)."""
        counts = {str(label): 0 for label in Label}
        for m in self.moves:
            counts[str(m.label)] += 1
        return counts

    @property
    def graded_counts(self) -> dict[str, int]:
        """The report's counts: the graded moves by label, then the forced moves, free plays and moves in a
        position already decided apart."""
        counts = {str(label): 0 for label in Label}
        for m in self.moves:
            if m.graded:
                counts[str(m.label)] += 1
        counts["forced"] = sum(1 for m in self.moves if not m.graded and m.forced)
        counts["free"] = sum(1 for m in self.moves if not m.graded and not m.forced and not m.decided)
        counts["decided"] = sum(1 for m in self.moves if m.decided)
        return counts

    @property
    def graded(self) -> int:
        return sum(1 for m in self.moves if m.graded)

    @property
    def rated(self) -> bool:
        """Whether the accuracy rates anything: a game with no graded move has none to speak of (its 100 is
        only the empty average)."""
        return self.graded > 0

    @property
    def over(self) -> bool:
        """The game ended (won or blocked), not only the record."""
        return (self.states[-1] if self.states else self.record.replay()).over

    def reveals_unseen(self) -> bool:
        """An unfinished game, with cards it has not shown yet, whose review uses them: the verdict (unless the loss
        was in view from the first move, as in Peek), a move's comment or a critical moment. Reading it before
        going on with the game plays on with those cards known."""
        from ..knowledge import has_seen_everything
        from ..narrate.review import HINDSIGHT

        if self.over or has_seen_everything(self.states[-1] if self.states else self.record.replay()):
            return False  # every card shown (the talon's last pass, Peek's reserve): hindsight tells nothing new
        return (not self.hindsight.seen or any(HINDSIGHT in m.comment for m in self.moves)
                or any(HINDSIGHT in m.text for m in self.critical))

    def accuracy_text(self) -> str:
        """The accuracy with its interval: ``87.3 / 100 (95%: 81.0-91.2)``."""
        return f"{self.accuracy:.1f} / 100{self.accuracy_ci_text()}"

    def accuracy_ci_text(self) -> str:
        """`` (95%: 81.0-91.2)``, the accuracy's interval; empty when it has one value (every drop exact)."""
        ci = self.accuracy_interval
        if ci is None or round(ci[0], 1) == round(ci[1], 1):
            return ""
        return f" (95%: {ci[0]:.1f}-{ci[1]:.1f})"

    def sampling(self) -> dict[str, Any]:
        """The real sample counts behind the figures: shared deals a move, exact moves, labels that drew more."""
        sampled = [m for m in self.moves if not m.exact]
        exact = [m for m in self.moves if m.exact]
        extra = [m.paired.samples for m in self.moves
                 if m.paired is not None and not m.paired.exact and m.paired.samples > (m.shared or m.samples)]
        return {"samples": self.samples, "sampled_moves": len(sampled),
                "samples_a_move": sorted({m.shared or m.samples for m in sampled}),
                "exact_moves": len(exact), "labels_with_more": len(extra),
                "most_label_samples": max(extra, default=None)}

    def sampling_text(self) -> str:
        """The sentence on the sample counts, in the report's closing paragraph on how its figures are made
        (:func:`tutor.narrate.review.sampling_text`)."""
        from ..narrate.review import sampling_text

        return sampling_text(self.sampling())

    def to_json(self) -> dict[str, Any]:
        """The spec's ``review --json`` object (section 4), plus extra fields."""
        return {
            "moves": [m.to_json() for m in self.moves],
            "accuracy": round(self.accuracy, 1),
            # its 95% interval from the graded moves' sampled drops (equal ends when every drop is exact)
            **({"accuracy_interval": [round(self.accuracy_interval[0], 1), round(self.accuracy_interval[1], 1)]}
               if self.accuracy_interval is not None else {}),
            # false when no move was graded: then ``accuracy`` (the spec's 0-100 number) rates nothing
            "rated": self.rated,
            "hindsight": self.hindsight.to_json(),
            "result": dict(self.result),
            # the game ended (won or blocked); false for a record that stops before the end ("not finished")
            "over": self.over,
            # an unfinished game whose hindsight knows cards it has not shown: the text's warning, as in the report
            "reveals_unseen": self.reveals_unseen(),
            "counts": self.counts,
            "graded_counts": self.graded_counts,
            "graded": self.graded,
            "critical": [c.to_json() for c in self.critical],
            "thresholds": self.thresholds.to_json(),
            "samples": self.samples,
            "sampling": self.sampling(),
            "variant": self.record.rules.to_json(),
            "deal": self.record.deal.record_ref(),
            **({"practical": {"games": self.practical, "method": METHOD,
                              "moments": sum(1 for c in self.critical if c.practical is not None)}}
               if self.practical is not None else {}),
        }

    def annotated(self) -> Record:
        """The record with each move's label, tags and comment as its annotation."""
        return annotate_record(self.record, self)


def annotate_record(record: Record, rev: Review) -> Record:
    return Record(record.rules, record.deal, list(record.moves), [m.annotation() for m in rev.moves],
                  record.final_result(), extra=dict(record.extra), deal_extra=dict(record.deal_extra))
