"""Tags: the kind of error a move shows, found from the position and the scores (facts, no words).

Every tag is a fact of what the player had seen (the position's face-up
cards, the scores on deals consistent with it, the record), returned as one
of the small values of :mod:`tutor.review.facts`. The one hindsight fact
found here, the cycle of needs that opening a row created on the true deal,
is returned apart, marked as hindsight, and never becomes a tag.
"""

from __future__ import annotations

from ..constraints import Explanation
from ..estimate import Drop
from ..knowledge import observe
from ..notation import Move
from ..state import State
from ..talon import last_pass, turning_blocks
from .facts import (
    BlockingCycle,
    Candidate,
    EarlyStart,
    LateStart,
    NoProgress,
    ReserveDig,
    TagFact,
    TalonShift,
    TurnedPast,
    WrongRow,
)
from .full_knowledge import new_cycle
from .grades import Thresholds

__all__ = ["opens_row", "is_free", "placement_plies", "find_tags", "cycle_seen"]

WASTE, TURN = Move("w"), Move("d")


def opens_row(state: State, card: int | None) -> bool:
    """Whether ``card`` would open a new row (its suit has none yet, and it can be played)."""
    return card is not None and card // 13 not in state.rows and state.destination(card) >= 0


def is_free(state: State, move: Move) -> bool:
    """A play that can only add options: a reserve card (or, turning one card, a waste card) opening no row."""
    if move.kind == "d":
        return False
    if move.kind == "w" and state.rules.turn != 1:
        return False
    return not opens_row(state, state.card_of(move))


def placement_plies(states: list[State], moves: list[Move]) -> dict[int, int]:
    """card -> the 0-based ply at which it was placed."""
    placed = {}
    for i, move in enumerate(moves):
        card = states[i].card_of(move)
        if card is not None:
            placed[card] = i
    return placed


def _strongest(cands: list[Candidate], top: Candidate) -> Candidate | None:
    """The best move itself when it is one of ``cands``, so that a comment never names two different
    "better" moves (its figure may rest on more deals than theirs); else the best win chance, then cards."""
    if any(c.move == top.move for c in cands):
        return top
    return max(cands, key=lambda c: (c.win, c.cards), default=None)


def _cycle_cards(why: Explanation) -> set[int]:
    cards = set(why.cycle)
    for other in why.others:
        cards |= _cycle_cards(other)
    return cards


def cycle_seen(state: State, why: Explanation) -> bool:
    """Whether the player of ``state`` could see the cycles of ``why``: every card of them that lies in a
    reserve pile known at its place (face up, or turned up before). A pile edge ("JH lies above 8H") needs
    both cards known there; every other edge is a rule of the rows, true wherever the cards lie, so a card of
    the talon or one not seen yet in it changes nothing."""
    shown = observe(state).reserves
    for true_pile, seen_pile in zip(state.reserves, shown, strict=True):
        for card, known in zip(true_pile, seen_pile, strict=True):
            if card in _cycle_cards(why) and known != card:
                return False
    return True


def reserve_dig(state: State, move: Move, after: State) -> ReserveDig | None:
    """The reserve play ``move`` as a dig that could not be expected to help, judged on what the player saw.

    No card the player could see became playable by it (a reserve top, or a talon card seen before: one that can
    go to a foundation once it shows), and the card it uncovers was no better: known not
    playable (every reserve card face up, as in Peek), no card at all (the pile emptied), or face down and,
    of the unseen cards it could be, fewer than half playable after the move (``odds``: those playable, of
    how many). The card that really turned up is told, never judged on.
    """
    card = state.card_of(move)
    assert card is not None and move.pile is not None  # a reserve play
    pile = after.reserves[move.pile]
    under = pile[-1] if pile else None
    hidden = under is not None and not state.rules.open_reserve
    before_cards = {state.card_of(m) for m in state.legal_moves() if m.is_play} - {card}
    after_cards = {after.card_of(m) for m in after.legal_moves() if m.is_play} - ({under} if hidden else set())
    if after_cards - before_cards:
        return None
    seen = observe(state)  # the talon cards the player has seen: one it lets go to a foundation helps too
    talon = [c for c in (*seen.waste, *seen.stock) if c is not None and c != card]
    if any(state.destination(c) < 0 <= after.destination(c) for c in talon):
        return None
    if not hidden:
        return ReserveDig(card, move.pile, under) if under is None or after.destination(under) < 0 else None
    unseen = seen.unseen_cards()
    playable = sum(1 for c in unseen if after.destination(c) >= 0)
    return ReserveDig(card, move.pile, under, (playable, len(unseen))) if 2 * playable < len(unseen) else None


def find_tags(state: State, move: Move, by_move: dict[Move, Candidate], played: Candidate, top: Candidate,
              th: Thresholds, placed_at: dict[int, int], paired: Drop | None = None,
              ended: bool = True) -> tuple[tuple[TagFact, ...], BlockingCycle | None]:
    """The kinds of error ``move`` shows in ``state``, in the order the comment tells them; and the hindsight cycle.

    ``by_move``: every legal move's score; ``played``/``top``: the played and
    the best move's; ``placed_at``: when each card of the game was placed;
    ``paired``: the paired drop from the best move to the played one, the
    figure the label stands on. A tag compares the played move with another
    one by that same drop when the other is the best move (the label's figure:
    on more deals while the label was in doubt), else by their win chances
    (on the shared deals, or on all the label's deals when it drew more).
    """
    card = state.card_of(move)
    tags: list[TagFact] = []
    cycle = None
    margin = th.inaccuracy / 100

    def gap(other: Candidate) -> float:
        """How much ``other`` wins more than the played move: the label's paired drop for the best move."""
        if other.move == top.move and paired is not None:
            return paired.estimate
        return other.win - played.win

    opens = opens_row(state, card)
    after = state.apply(move)
    # The no-progress rule: a pass ended with no card played since the redeal and nothing is left, or the
    # turn lets it end so, with every card still to turn known (the late opening was not the error then).
    # Not on the last of limited passes: there the game ends when the stock runs out, card played or not.
    at_once = (move.kind == "d" and not state.progress and state.pos < len(state.talon) and after.blocked
               and not last_pass(state))
    no_progress = at_once or (move.kind == "d" and not state.progress and not last_pass(state)
                              and turning_blocks(observe(state)))
    waiting = [c for m, c in by_move.items() if not opens_row(state, state.card_of(m))]
    openers = [c for m, c in by_move.items() if m != move and opens_row(state, state.card_of(m))]
    if opens and card is not None:
        row = len(state.rows) + 1
        best_wait = _strongest(waiting, top)
        if best_wait is not None and gap(best_wait) >= margin:
            tags.append(EarlyStart(card, row, state.start_rank, best_wait))
        other = _strongest(openers, top)
        if other is not None and gap(other) >= margin:
            tags.append(WrongRow(card, row, other, state.card_of(other.move)))
        elif gap(top) >= margin:
            # The cycle of needs is found on the true deal: a hindsight fact, not a tag.
            blocking = new_cycle(state, move)
            if blocking is not None:
                cycle = BlockingCycle(card, row, blocking, seen=cycle_seen(state, blocking))
    else:
        best_open = _strongest(openers, top)
        if best_open is not None and gap(best_open) >= margin and not no_progress:
            tags.append(LateStart(best_open, state.card_of(best_open.move)))
    if no_progress:
        tags.append(NoProgress(at_once, state.pass_no == 1))
    elif move.kind == "d" and state.pos and WASTE in by_move:
        top_card = state.waste_top
        w = by_move[WASTE]
        if top_card is not None and not opens_row(state, top_card) and gap(w) >= margin:
            # the card played later after all still cost the drop: the turn put it off (the words say so)
            later = placed_at.get(top_card)
            tags.append(TurnedPast(top_card, w, top_card // 13 == state.rows[0],
                                   None if later is None else later + 1, ended))
    if move.kind == "r" and card is not None and gap(top) >= margin:
        # Only a reserve card that opens a row is ever graded (any other one only adds options).
        dig = reserve_dig(state, move, after)
        if dig is not None:
            tags.append(dig)
    if (move.kind == "w" and card is not None and state.rules.turn != 1 and not opens and TURN in by_move
            and gap(by_move[TURN]) >= margin):
        tags.append(TalonShift(card, by_move[TURN]))
    return tuple(tags), cycle
