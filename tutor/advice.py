"""The hint as the player gets it: the engine's hint, and what solving every consistent deal settles.

:func:`tutor.hints.hint` scores the moves on sampled deals when too many
deals are consistent with what the player has seen to solve them all. When
every sample gives every move the same result (all won, or none won) and at
most :data:`tutor.grading.DECIDE_DEALS` deals are consistent, every one of
them is solved for the win (about 0.1 s for 720 deals): if each gives every
move that result, the game is settled whatever the player does, and the
hint says so instead of leaving a sampled "0% (95%: 0-6%)" as the last word.
A loss shown by the face-up reserve piles (:func:`tutor.grading.lost_by_reserves`)
is said too, for a forced move as well; so is a forced turn that lets the pass
end with no card played (:func:`tutor.grading.blocked_for_sure`: nothing played
since the redeal, and none of the cards still to turn, all known, can be
played), which blocks the game whatever the hidden cards are, or a forced turn on
the last pass of a game with limited passes after which none of the cards still to
turn can be played (the game ends when the stock runs out): no win and the
cards on the foundations now, both certain, not sampled.
The win figures become the solved ones (each candidate's interval the one
value, read as "in every consistent deal"), and the reason is written again from
them; the cards stay the sampled figures (they are not solved for). The
tutor's choice of move is unchanged, so the tutor policy never needs this.

Only cards the player has seen are used, as for every hint.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .estimate import Drop
from .grading import blocked_for_sure, lost_by_reserves, same_everywhere
from .hints import Hint, Why, hint
from .knowledge import Observation
from .narrate.tips import TipId
from .sampling import SolveCache
from .talon import last_pass


@dataclass(frozen=True)
class SettledHint(Hint):
    """A hint in a position settled whatever the move: ``won`` (every move wins in every one of the ``deals``
    consistent deals, all solved) or not (no move wins in any)."""

    won: bool = False
    deals: int = 0  # 0: lost for a reason seen on the table (``by``), proven without solving a deal
    # with deals 0: "reserves" (the face-up reserve piles), "no-progress" (the rule) or "passes" (the last
    # pass of a game with limited passes ends with no card left to play)
    by: str = "reserves"

    @property
    def cards_certain(self) -> bool:
        """The cards are fixed by the rules too (the no-progress rule, or the last pass running out, ends the
        game with these), not sampled."""
        return self.by in ("no-progress", "passes") and not self.deals

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        # deals 0: lost for a reason in plain view, proven without solving a deal
        out["settled"] = {"won": self.won, "deals": self.deals} if self.deals else {"won": False, "by": self.by}
        return out


def _every(deals: int) -> str:
    """``every one of the 6 deals``, or ``the one deal``."""
    return "the one deal" if deals == 1 else f"every one of the {deals} deals"


def settled_sentence(won: bool, deals: int) -> str:
    """The hint's last sentence in a settled position."""
    if won:  # this move cannot lose the win; a later one still can, so the game is not "won whatever you play"
        return (f"Solving {_every(deals)} consistent with what you have seen shows that every move "
                "here keeps the win in all of them: none of them can throw it away (a later move still can).")
    return (f"Solving {_every(deals)} consistent with what you have seen shows that no move wins "
            "in any of them: the game is lost whatever you play, and only the cards are left to play for.")


RESERVES_LOST = ("The reserve piles, every card of them known, leave no order of the rows still to open that can "
                 "be completed: the game is lost whatever you play.")
"""The hint's last sentence when the face-up reserve piles show the loss (a forced move says it too)."""


def ended_by(obs: Observation) -> str:
    """What ends the game in a position :func:`blocked_for_sure`: "passes" on the last pass of a game with
    limited passes (the stock runs out and no redeal follows), else "no-progress" (a pass with no play)."""
    return "passes" if last_pass(obs) and obs.stock else "no-progress"


def no_progress_reason(obs: Observation) -> str:
    """The hint's reason for a forced turn after which the game ends for certain (:func:`blocked_for_sure`):
    blocked by the no-progress rule, or on the last of a limited number of passes."""
    from .narrate.moves import move_phrase
    from .narrate.play import none_shown
    from .notation import TURN

    cards = f"{obs.cards} card{'s' if obs.cards != 1 else ''}"
    certain = (f"Win 0% and {cards} on the foundations, both certain: "
               + ("every card is known." if obs.complete else "the face-down cards cannot change it."))
    if ended_by(obs) == "passes":
        which = "the only one" if obs.rules.passes == 1 else f"the last of {obs.rules.passes}"
        none = _cap(none_shown(obs.rules.turn, known="you have seen them all", verb="can be played"))
        return (f"{move_phrase(obs, TURN)}: it is the only move, and the game ends with this pass, {which}. {none}, "
                f"and no redeal follows. {certain}")
    why = (f"After it, {none_shown(obs.rules.turn, 'none of the talon cards', 'you have seen them all', 'can be played')}"
           ", so the next pass ends with no card played" if not obs.stock else
           "No card has been played since the redeal, and "
           f"{none_shown(obs.rules.turn, known='you have seen them all', verb='can be played')}, so the pass ends with "
           "no card played")
    ends = "after the next pass" if not obs.stock else "with this pass"
    return (f"{move_phrase(obs, TURN)}: it is the only move, and the game ends {ends}. {why}, and a pass with no "
            f"play blocks the game. {certain}")


def settle(obs: Observation, advice: Hint) -> Hint:
    """``advice`` as a :class:`SettledHint` when the position is settled whatever the move, else as it is."""
    if blocked_for_sure(obs):
        cards = float(obs.cards)
        candidates = [replace(c, win=0.0, interval=(0.0, 0.0), cards=cards, cards_interval=(cards, cards),
                              drop=_no_drop(c.drop)) for c in advice.candidates]
        fields = {f: getattr(advice, f) for f in Hint.__dataclass_fields__}
        by = ended_by(obs)
        tips = (TipId.NO_PROGRESS,) if by == "no-progress" else ()
        fields.update(candidates=candidates, reason=no_progress_reason(obs), tips=tips)
        return SettledHint(**fields, won=False, deals=0, by=by)
    if advice.exact or any(c.undecided for c in advice.candidates):
        return advice
    if lost_by_reserves(obs):  # the loss in plain view: said once (a compared reason says it already)
        solved = _solved(obs, advice)
        shown = "leave no order of the rows" in solved.reason
        return _settled(solved, "" if shown else RESERVES_LOST, won=False, deals=0)
    if len(advice.candidates) < 2:
        return advice
    wins = {c.win for c in advice.candidates}
    if wins not in ({0.0}, {1.0}):
        return advice
    won = wins == {1.0}
    deals = same_everywhere(obs, [c.move for c in advice.candidates], won, SolveCache())
    if not deals:
        return advice
    return _settled(_solved(obs, advice), settled_sentence(won, deals), won=won, deals=deals)


def _solved(obs: Observation, advice: Hint) -> Hint:
    """``advice`` with each move's win the solved value (its interval that one value) and the reason written
    again from it, so no sampled "0% (95%: 0-6%)" stands beside the sentence that says the game is settled."""
    # the search's blind figure too: "blind_interval": [0, 0.04] beside "lost in every consistent deal" was a doubt
    # the settled sentence denies (no player, blind or not, wins a deal that no order of moves wins)
    return _narrated(obs, replace(advice, candidates=[
        replace(c, interval=(c.win, c.win), drop=_no_drop(c.drop),
                blind=None if c.blind is None else c.win,
                blind_interval=None if c.blind_interval is None else (c.win, c.win))
        for c in advice.candidates]))


def _no_drop(drop: Drop | None) -> Drop | None:
    """A settled position's drop: every move wins (or loses) in every consistent deal, so none is lower than
    another, for certain (its sampled interval, -3.9 to +3.9 points, said otherwise in the JSON)."""
    return None if drop is None else Drop(0.0, 0.0, 0.0, drop.samples, True)


def _settled(advice: Hint, sentence: str, won: bool, deals: int) -> SettledHint:
    fields = {f: getattr(advice, f) for f in Hint.__dataclass_fields__}
    fields["reason"] = f"{advice.reason} {sentence}".strip()
    return SettledHint(**fields, won=won, deals=deals)


def advise(obs: Observation, samples: int | None = None) -> Hint:
    """The hint for the player of ``obs`` (:func:`tutor.hints.hint`), settled where it can be (:func:`settle`),
    and the last card played when it can be (:func:`last_card`)."""
    advice = hint(obs, samples=samples)
    if samples is not None and str(advice.method) == "infoset":
        # the hint's words assume the default budget where they say how many deals the search played
        advice = _narrated(obs, advice, samples)
    return last_card(obs, settle(obs, advice))


def _narrated(obs: Observation, advice: Hint, budget: int | None = None) -> Hint:
    """``advice`` with its reason written again from its candidates (``budget``: the samples the hint could
    draw, when not the default)."""
    from .hints import ScoredPosition
    from .narrate import reason_for

    scored = ScoredPosition(advice.best, advice.candidates, advice.why, advice.samples, advice.exact,
                            method=advice.method, budget_spent=advice.budget_spent)
    reason, tips = reason_for(obs, scored, budget)
    return replace(advice, reason=reason, tips=tuple(tips))


def last_card(obs: Observation, advice: Hint) -> Hint:
    """With 51 cards on the foundations and the last one playable, the hint plays it: the game is won now.

    Every move wins then (the sampler's tie-break chose a redeal at 51/52, which a player reads as a wrong
    hint); the other moves keep their figures, the winning play is certain, and the hint's ``why`` and tips are
    the play's (a safe play, no tip), not those of the move it replaces.
    """
    from .narrate.moves import move_phrase

    play = next((m for m in obs.legal_moves() if m.is_play), None) if obs.cards == 51 else None
    if play is None or advice.best == play:
        return advice
    from .estimate import Drop

    # the drops are against the new best move, which wins in every deal: what each other move does not win
    candidates = [replace(c, win=1.0, interval=(1.0, 1.0), cards=52.0, cards_interval=(52.0, 52.0), drop=None,
                          certain=True, lost=False)
                  if c.move == play else
                  replace(c, drop=Drop(1.0 - c.win, 1.0 - c.interval[1], 1.0 - c.interval[0], c.samples, c.exact))
                  for c in advice.candidates]
    return replace(advice, best=play, candidates=candidates, why=Why.SAFE, tips=(),
                   reason=f"{move_phrase(obs, play)}: it is the last card, and it wins the game now.")


__all__ = ["SettledHint", "advise", "ended_by", "last_card", "no_progress_reason", "settle", "settled_sentence"]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]
