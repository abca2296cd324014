"""The review's words for its tags: what each kind of error means, the sentence of one tag, and the tip
that goes with it (the tip fits the position: the last of limited passes and turn 1 have their own).

Built only from the facts of :mod:`tutor.review.facts` and the position the move was played in; every tag
is a fact of what the player had seen.
"""

from __future__ import annotations

from ..cards import RANKS, SUIT_NAMES
from ..review.facts import (
    BlockingCycle,
    EarlyStart,
    LateStart,
    NoProgress,
    ReserveDig,
    Tag,
    TagFact,
    TurnedPast,
    WrongRow,
)
from ..state import State
from ..talon import last_pass
from .hint import win_figure
from .moves import card_word, move_gerund, move_short
from .play import none_shown
from .tips import TipId, tip

__all__ = ["TAGS", "tag_sentence", "tip_sentence", "tip_topic", "tag_tip", "topic_for"]

#: tag -> (the id of its tip in :data:`tutor.narrate.TIPS`, what the tag means). Every tag is a fact
#: of what the player had seen (the position's face-up cards, the scores on consistent deals, the record).
TAGS: dict[str, tuple[TipId, str]] = {
    Tag.EARLY_START: (TipId.WAIT_TO_OPEN, "opened a lower row with the starting rank while waiting was better"),
    Tag.LATE_START: (TipId.WAIT_TO_OPEN, "waited while opening the row with the starting rank was better"),
    Tag.WRONG_ROW: (TipId.ROW_SUIT, "opened a row in a suit while opening it in another suit was better"),
    Tag.TURNED_PAST: (TipId.TURN_PAST,
                      "turned the talon past a playable card that mattered (given up, or put off at a cost)"),
    Tag.RESERVE_DIG: (TipId.DIG_RESERVE, "played a reserve card that could not be expected to help (no card in "
                      "view became playable, and the card below was a long shot) while another move mattered"),
    Tag.TALON_SHIFT: (TipId.PLAN_PASSES,
                      "took a waste card that opened no row and shifted the talon's groups, while turning was better"),
    Tag.NO_PROGRESS: (TipId.NO_PROGRESS,
                      "ended a pass with no card played since the redeal (or the start), so the game was blocked"),
}




def tag_sentence(state: State, fact: TagFact) -> str:
    """The sentence of one tag: what the move did, and what was better, with its figure."""
    if isinstance(fact, EarlyStart):
        wait = fact.wait
        how = (f"holding it back and playing {move_short(state, wait.move)}"
               if state.card_of(wait.move) is not None else f"holding it back and {move_gerund(state, wait.move)}")
        return (f"Playing {card_word(fact.card)} opened row {fact.row} for {SUIT_NAMES[fact.card // 13]} with the "
                f"starting rank {RANKS[fact.start_rank - 1]}; {how} kept {win_figure(wait)}.")
    if isinstance(fact, WrongRow):
        return (f"{SUIT_NAMES[fact.card // 13].capitalize()} was the weaker suit for row {fact.row}: opening it "
                f"with {card_word(fact.other_card)} instead kept {win_figure(fact.other)}.")
    if isinstance(fact, LateStart):
        return (f"Opening the next row with {card_word(fact.open_card)} now was better than this move too (win "
                f"{win_figure(fact.open)}): this wait lost more than it could gain.")
    if isinstance(fact, NoProgress):
        since = "since the start" if fact.first_pass else "since the redeal"
        if fact.at_once:
            return (f"This turn ended a pass with no card played {since}, and no card could be played "
                    "after it: the waste can never be turned over again, so the game was blocked.")
        return (f"No card had been played {since}, and after this turn {none_shown(state.rules.turn)}: from then "
                "on the pass could only end with no play, after which the waste can never be turned over again, so "
                "the game was blocked.")
    if isinstance(fact, TurnedPast):
        if fact.later is not None:
            return (f"Turning past {card_word(fact.card)} on the waste (win {win_figure(fact.play)} if played) put "
                    f"it off until move {fact.later}, and the wait cost more than the turn gained.")
        if not fact.ended:  # the record stops before the game's end: the card may still come
            return (f"Turning past {card_word(fact.card)} on the waste (win {win_figure(fact.play)} if played) put it "
                    "off: it was not played again before the record ends.")
        return (f"Turning past {card_word(fact.card)} on the waste (win {win_figure(fact.play)} if played) gave it "
                "up: it was never played afterwards.")
    if isinstance(fact, ReserveDig):
        if fact.under is None:
            return (f"Playing {card_word(fact.card)} emptied reserve pile {fact.pile + 1} and made no new card "
                    "playable: digging the reserve helped nothing here.")
        if state.rules.open_reserve:  # every reserve card is face up: nothing is uncovered, only left on top
            return (f"Playing {card_word(fact.card)} left {card_word(fact.under)} on top of reserve pile "
                    f"{fact.pile + 1}, and it could not be played: digging the reserve helped nothing here.")
        n, of = fact.odds or (0, 0)  # the card below was face down: the tag stands on the odds, the card is told
        odds = ("the one card it could uncover could not be played" if of == 1 else
                f"{'none' if n == 0 else f'only {n}'} of the {of} cards it could uncover would have been playable")
        return (f"Playing {card_word(fact.card)} made no card you could see playable, and {odds} (it turned up "
                f"{card_word(fact.under)}): digging the reserve was a long shot here.")
    return f"Taking {card_word(fact.card)} off the waste shifted the talon's threes; turning kept {win_figure(fact.turn)}."


def tip_sentence(tags: tuple[TagFact, ...], cycle: BlockingCycle | None = None, known: bool = False,
                 state: State | None = None) -> str | None:
    """One piece of advice at a time: the first tag's tip (row 1's own tip for a row-1 card turned past); for a
    row opened into a trap of the reserve piles the player could see (``cycle.seen``), reading the reserve,
    not the waiting bet of an early start: the loss was certain, no bet on the talon. ``known``: the player
    had seen every card, so the tip's words for that (no bet on the talon either)."""
    if cycle is not None and cycle.seen:
        return "Tip: " + tip(TipId.READ_RESERVE)
    if not tags:
        return None
    rules = state.rules if state is not None else None
    return "Tip: " + tip(tip_topic(tags[0], state), known, rules, state is not None and last_pass(state))


def tip_topic(fact: TagFact, state: State | None = None) -> TipId:
    """The tip for one tag in ``state`` (the position before the move): :func:`topic_for`."""
    return topic_for(fact.tag, state, isinstance(fact, TurnedPast) and fact.first_row)


def topic_for(tag: str, state: State | None = None, first_row: bool = False) -> TipId:
    """The tip for a tag (by its name) in ``state``: on the last of limited passes, the last pass's own (no
    pass follows to plan for, or to keep allowed); a row-1 card turned past (``first_row``), row 1's; else the
    tag's."""
    topic = tag_tip(tag, state)
    return TipId.FIRST_ROW if first_row and topic != TipId.LAST_PASS else topic


def tag_tip(tag: str, state: State | None = None) -> TipId:
    """The tip for a kind of error (by its name, as the history keeps it), in ``state`` if known."""
    if state is not None and tag in (Tag.TURNED_PAST, Tag.NO_PROGRESS) and last_pass(state):
        return TipId.LAST_PASS
    return TAGS[tag][0]
