"""The reason behind a hint, and the tutor's warning during play.

:func:`reason_for` turns a scored position into a sentence or two tied to
concrete cards and rows, with the figures that back it: "Turn the talon: 7H
is playable but would open row 2 for hearts ... (win 41% if you wait, 18% if
you play it now)." Every sentence is built from the player's
:class:`~tutor.knowledge.Observation` only: a hint never uses hindsight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import NAMES, RANKS, SUIT_NAMES
from ..certainty import play_ends_game
from ..knowledge import Observation, observe
from ..notation import TURN
from ..talon import last_pass, turning_blocks
from .basis import Figured, basis, budget_sentence, undecided, win_solved
from .moves import destination_phrase, move_gerund, move_phrase
from .play import none_shown, plural
from .tips import TipId

if TYPE_CHECKING:  # the analysis imports this package lazily; the types only are needed here
    from ..hints import Candidate, ScoredPosition
    from ..notation import Move


def pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def win_figure(c: Figured) -> str:
    """A candidate's win chance with its 95% interval: "41% (95%: 33-50%)", "41% (exact)", or "0% (in every
    consistent deal)" where the win is known in all of them: a settled hint (:mod:`tutor.advice`) or a move
    the reserve piles show lost (``lost``), whatever the samples."""
    if c.exact:
        return f"{pct(c.win)} (exact)"
    if win_solved(c) or getattr(c, "lost", False):
        return f"{pct(c.win)} (in every consistent deal)"
    lo, hi = c.interval
    return f"{pct(c.win)} (95%: {lo * 100:.0f}-{hi * 100:.0f}%)"


def _runner_up(scored: ScoredPosition) -> Candidate | None:
    """The strongest move other than the best one (or None)."""
    others = [c for c in scored.candidates if c.move != scored.best]
    if not others:
        return None
    return max(others, key=lambda c: (c.win, c.cards))


def _win_sentence(top: Candidate, scored: ScoredPosition) -> str:
    """The best move's win chance and what it rests on, in one sentence with one pair of parentheses."""
    if scored.exact:
        return f"Win {pct(top.win)} ({basis(scored)})."
    if win_solved(top):  # the win known in every deal: the sampled figure is the cards'
        return f"Win {win_figure(top)}; {about_cards(top)} expected, {basis(scored)}."
    return f"Win {win_figure(top)}, {basis(scored)}."


def _versus(top: Candidate, other: Candidate, mine: str, theirs: str) -> str:
    """The figures behind a choice: "win 41% if you wait, 18% if you play it now"; "either way" only when the two
    figures read the same, interval and all (2% of 128 deals is 1-7% for 3 won, 0-6% for 2)."""
    if win_figure(top) != win_figure(other):
        return f"win {win_figure(top)} {mine}, {win_figure(other)} {theirs}"
    places = _pair_places(top, other)
    if _surely_more_cards(top, other):  # "but" only for more cards that are sure; else the figures side by side
        return (f"win {win_figure(top)} either way, but {about_cards(top, places)} {mine} "
                f"against {cards_figure(other, places)} {theirs}")
    if _cards_differ(top, other):  # fewer cards: the tie-break kept a row closed
        return (f"win {win_figure(top)} either way, {about_cards(top, places)} {mine} "
                f"against {cards_figure(other, places)} {theirs}")
    return f"win {win_figure(top)} either way, {about_cards(top)}"


def _surely_more_cards(top: Candidate, other: Candidate) -> bool:
    """``top`` places more cards than ``other`` for sure: exact, or their 95% intervals apart."""
    return _more_cards(top, other) and (top.exact or top.cards_interval[0] > other.cards_interval[1])


def _cards_differ(top: Candidate, other: Candidate) -> bool:
    """The two expected cards read differently: exact means as they are printed ("7.4" against "7.2", where
    "either way" beside them would contradict the table), sampled ones in whole cards."""
    if top.exact and other.exact:
        return exact_cards(top.cards) != exact_cards(other.cards)
    # 30.52 and 30.48 round a card apart but read 30.5 both (:func:`_pair_places`): the same
    return round(top.cards) != round(other.cards) and f"{top.cards:.1f}" != f"{other.cards:.1f}"


def _pair_places(top: Candidate, other: Candidate) -> int | None:
    """Decimals for two sampled figures said side by side that round a whole card apart though less than a card
    apart: one ("29.5 against 29.4", which rounded read "30 against 29", a card where the table shows a tenth);
    else None (as :func:`cards_figure` spells each)."""
    if (top.exact and other.exact) or not _cards_differ(top, other) or abs(top.cards - other.cards) >= 1:
        return None
    return 1


def _more_cards(top: Candidate, other: Candidate) -> bool:
    """``top`` expects more cards than ``other``, as :func:`_cards_differ` reads them."""
    return top.cards > other.cards and _cards_differ(top, other)


def _sure_lead(top: Candidate, other: Candidate) -> bool:
    """The best move's lead over ``other`` is beyond the noise: the paired drop in wins above zero, or on
    equal wins surely more cards. Else a reason must not call the choice "for the better"."""
    drop = other.drop
    if drop is not None and (drop.estimate > 0 if drop.exact else drop.lo > 0):
        return True
    return round(top.win * 100) == round(other.win * 100) and _surely_more_cards(top, other)


_NOISE = "; the figures lean to it, by less than their noise"


def _cap(text: str) -> str:
    """The first letter up, the rest as it is (``str.capitalize`` would lower card names like 7H)."""
    return text[:1].upper() + text[1:]


def _figs(figures: str, scored: ScoredPosition) -> str:
    """The figures behind a reason as a sentence of their own, so their intervals never nest in brackets.

    Exact figures say so once, in the basis ("exact: you have seen every card, ..."), not after each figure."""
    if scored.exact:
        figures = figures.replace(" (exact)", "")
    return f"{_cap(figures)}, {basis(scored)}."


def about_cards(c: Candidate, places: int | None = None) -> str:
    """``about 29 cards (95%: 27-31)`` for a sampled figure, ``49 cards (exact)`` for an exact one (nothing
    "about" it): the word "cards" before the figure's basis, never after it. ``places``: see :func:`cards_figure`."""
    number, _, basis = cards_figure(c, places).partition(" ")
    return f"{'' if c.exact or _same_cards(c) else 'about '}{number} cards {basis}"


def _same_cards(c: Candidate) -> bool:
    """Every sampled deal gave the same number of cards (a 95% interval of one value says nothing more)."""
    return c.samples > 1 and round(c.cards_interval[0], 6) == round(c.cards_interval[1], 6)


def cards_decimals(lo: float, hi: float) -> int:
    """The decimals that tell a cards interval's ends apart: 0, else 1, else 2 ("25.0-25.0" says nothing)."""
    return next((d for d in (0, 1) if f"{lo:.{d}f}" != f"{hi:.{d}f}"), 2)


def cards_ends(lo: float, hi: float) -> str:
    """The ends of a cards interval, "27-31"; with as many decimals as it takes to tell them apart
    ("27 (95%: 27-27)" says nothing): "27.2-27.6", "24.97-25.03". The one spelling for the hint, its table
    and the lessons."""
    d = cards_decimals(lo, hi)
    return f"{lo:.{d}f}-{hi:.{d}f}"


def cards_span(lo: float, hi: float, lead: bool = False) -> str:
    """The bracket after a sampled mean of cards in a sentence: "(95%: 27-31)" (``lead``: the first figure
    of a sentence) or "(27-31)", with :func:`cards_ends`' decimals; "(the same in every deal)" where every
    sampled deal gave that count (it read "16 (16-16)")."""
    if round(lo, 6) == round(hi, 6):
        return "(the same in every deal)"
    return f"({'95%: ' if lead else ''}{cards_ends(lo, hi)})"


def exact_cards(cards: float) -> str:
    """An exact mean of cards: "47", or "41.6" where the mean over every consistent deal is not whole (it
    read "42 (exact)")."""
    return f"{cards:.0f}" if abs(cards - round(cards)) < 0.05 else f"{cards:.1f}"


def cards_figure(c: Candidate, places: int | None = None) -> str:
    """A candidate's expected cards with its 95% interval: "29 (95%: 27-31)", or "29 (exact)". ``places``: at
    least that many decimals for a sampled figure (:func:`_pair_places`)."""
    if c.exact:
        return f"{exact_cards(c.cards)} (exact)"
    if _same_cards(c):
        return f"{c.cards:.0f} (in each of the {c.samples} deals)"
    lo, hi = c.cards_interval
    return f"{c.cards:.{max(places or 0, cards_decimals(lo, hi))}f} (95%: {cards_ends(lo, hi)})"


def _played(card: int | None) -> int:
    """The card of a move known to be a play (a candidate's ``card`` is None only for the turn)."""
    if card is None:
        raise ValueError("expected a play, not the turn")
    return card


def _missing_ranks(obs: Observation) -> str:
    first = obs.found[obs.rows[0]]
    missing = [RANKS[r] for r in range(13) if not first >> r & 1]
    return " ".join(missing)


def reason_for(obs: Observation, scored: ScoredPosition, budget: int | None = None) -> tuple[str, list[TipId]]:
    """The reason for a scored position's best move, and the ids of the tips it draws on (``budget``: the
    samples the hint could draw, when not the default)."""
    best = scored.best
    cand = {c.move: c for c in scored.candidates}
    top = cand[best]
    other = _runner_up(scored)
    tips: list[TipId] = []
    parts: list[str] = []
    what = move_phrase(obs, best)

    if scored.why == "forced":
        parts.append(f"{what}: it is the only move.")
        if scored.exact:
            parts.append(f"From here: win {pct(top.win)}, {top.cards:.0f} cards expected ({basis(scored)}).")
        else:
            parts.append(f"From here: win {win_figure(top)}, {about_cards(top)} expected, "
                         f"{basis(scored)}.")
    elif scored.why == "safe":
        card = _played(obs.card_of(best))
        row = obs.destination(card)
        text = f"{what} {destination_phrase(obs, card)}: a card that goes to a row already open only adds options"
        if best.kind == "r" and len(obs.reserves[best.pile]) > 1:
            below = obs.reserves[best.pile][-2]
            text += (", and it turns up the card below it" if below is None
                     else f", and it frees {NAMES[below]} below it")
            tips.append(TipId.DIG_RESERVE)
        elif best.kind == "w" and obs.rules.turn == 1:
            text += " (turning one card at a time, taking it shifts no other card of the talon)"
        elif best.kind == "w":  # the last of limited passes (tutor.certainty.is_safe)
            text += ", and on the last pass taking it shifts no group of the talon (no pass follows)"
            if obs.stock:
                text += ", while a card you turn past now is buried under the next turn and may not come back"
            tips.append(TipId.LAST_PASS)
        parts.append(text + ".")
        if row == 0:
            parts.append("Every rank row 1 gets is one the rows below may take.")
            tips.append(TipId.FIRST_ROW)
        parts.append(_win_sentence(top, scored))
    elif scored.why == "turn":
        text = f"{what}: it loses nothing, since you can come back to this very point next pass"
        if obs.stock and obs.stock[0] is None:
            text += ", and it shows you cards you have not seen yet"
        parts.append(text + ".")
        tips.append(TipId.FREE_TURN)
        if other is not None and other.move.is_play and not other.lost:
            ocard = _played(other.card)
            if other.opens_row is not None:
                parts.append(f"{NAMES[ocard]} is playable but would open row {other.opens_row} for "
                             f"{SUIT_NAMES[ocard // 13]}. {_figs(_versus(top, other, 'if you wait', 'if you play it now'), scored)}")
                tips.append(TipId.WAIT_TO_OPEN)
            elif other.move.kind == "w" and obs.rules.turn > 1 and obs.stock:
                # Only cards still to turn after it can shift: the last talon card shifts nothing.
                parts.append(f"Playing {NAMES[ocard]} now would shift the groups of three for the rest of the "
                             f"talon. {_figs(_versus(top, other, 'if you turn', 'if you play it now'), scored)}")
                tips.append(TipId.PLAN_PASSES)
            else:
                parts.append(_figs(_versus(top, other, "if you turn", f"if you {move_phrase(obs, other.move, False)}"),
                                   scored))
        else:
            parts.append(_win_sentence(top, scored))
    else:
        parts.extend(_compared(obs, scored, top, other, tips, budget))

    from ..grading import lost_by_reserves

    # a position lost by its reserve piles says so once; a move's own "impossible order" would only repeat it
    lost = [] if lost_by_reserves(obs) else [c for c in scored.candidates if c.lost and c.move != best]
    for c in lost:
        if c.move == TURN:  # said already where the no-progress rule decided the best move
            if TipId.NO_PROGRESS not in tips:
                parts.append(_lost_turn(obs))
            continue
        lost_card = _played(c.card)
        if play_ends_game(obs, c.move):
            parts.append(_lost_play(obs, c.move, lost_card))
            continue
        # else the lost play opens a row in an impossible order
        parts.append(f"{NAMES[lost_card]} would open row {c.opens_row} for {SUIT_NAMES[lost_card // 13]}, an order "
                     "the reserve piles make impossible to complete.")
    parts.extend(budget_sentence(scored, " ".join(parts)))
    parts.extend(undecided(scored))
    return " ".join(parts), list(dict.fromkeys(tips))


def _lost_play(obs: Observation, move: Move, card: int) -> str:
    """Why a play that is not the best move ends the game for certain (:func:`tutor.certainty.play_ends_game`)."""
    after = observe(obs.fill(obs.unseen_cards()).apply(move))
    if TURN not in after.legal_moves():
        return f"If you play {NAMES[card]}, no move is left after it, and the game ends."
    turn = _lost_turn(after)  # the turn after the play, not the one this position offers: said so
    return f"If you play {NAMES[card]}, no card can be played after it. After it, {turn[0].lower()}{turn[1:]}"


def _lost_turn(obs: Observation) -> str:
    """Why a turn that is not the best move ends the game for certain (:func:`tutor.talon.turn_ends_game`)."""
    if not obs.stock:
        return ("A redeal would block the game: "
                f"{none_shown(obs.rules.turn, 'none of the talon cards', 'you saw them all this pass', 'can be played')}"
                ", so the next pass would end with no card played.")
    shown = none_shown(obs.rules.turn, known="you have seen them all", verb="can be played")
    if last_pass(obs):
        which = "the only pass" if obs.rules.passes == 1 else f"the last of {obs.rules.passes} passes"
        return f"Turning on would end the game: this is {which}, and {shown}."
    return f"Turning on would end the pass with no card played since the redeal, which blocks the game: {shown}."


def _compared(obs: Observation, scored: ScoredPosition, top: Candidate, other: Candidate | None,
              tips: list[TipId], budget: int | None = None) -> list[str]:
    """The reason when the best move was found by comparing samples."""
    from .blind import fusion_reason

    fused = fusion_reason(obs, scored, top, move_phrase(obs, scored.best), budget)
    out = [fused] if fused is not None else _compared_reason(obs, scored, top, other, tips)
    if (scored.method != "infoset" and other is not None and other.opens_row is not None
            and top.opens_row is None and not other.lost
            and round(top.win * 100) == round(other.win * 100) and _more_cards(other, top)):
        # tutor.hints.leader: a row opening loses a tie in deals won, whatever its expected cards.
        ocard = _played(other.card)
        out.append(f"{NAMES[ocard]} would open row {other.opens_row}: it places a few more cards on average "
                   "but wins no more deals, and a row is best opened late, so it stays closed while waiting "
                   "costs no win.")
        tips.append(TipId.WAIT_TO_OPEN)
    return out


def _compared_reason(obs: Observation, scored: ScoredPosition, top: Candidate, other: Candidate | None,
                     tips: list[TipId]) -> list[str]:
    """The reason proper, for :func:`_compared`."""
    best = scored.best
    what = move_phrase(obs, best)
    if other is None:  # pragma: no cover - a sampled choice has at least two moves
        return [f"{what}. {_win_sentence(top, scored)}"]
    if top.win == 0 and other.win == 0:
        if scored.exact:
            deals = ("the one consistent deal was solved" if scored.samples == 1
                     else f"every one of the {scored.samples} consistent deals was solved")
            head = f"This position cannot be won any more whatever you do (exact: {deals})"
        else:
            from ..grading import lost_by_reserves

            every = "solved" if scored.samples == 1 else "every one solved"  # a best score cut: not exact
            which = (f"consistent with what you have seen ({every})" if obs.consistent_deals() == scored.samples
                     else "sampled from what you have seen")
            head = ((f"None of the {scored.samples} deals {which} can be won from here"
                     if scored.samples != 1 else f"The one deal {which} cannot be won from here")
                    if not lost_by_reserves(obs) else
                    "This position cannot be won any more whatever you do: the reserve piles, every card of them "
                    f"known, leave no order of the rows still to open that can be completed "
                    f"({plural(scored.samples, 'deal')} sampled, none won)")
        places = _pair_places(top, other)
        if _more_cards(top, other) and _sure_lead(top, other):
            out = [f"{head}; {move_gerund(obs, best)} places the most cards: {about_cards(top, places)} "
                   f"against {cards_figure(other, places)} if you {move_phrase(obs, other.move, False)}."]
        elif _more_cards(top, other):  # more cards, but within the intervals: no "most"
            out = [f"{head}; you can expect {about_cards(top, places)} if you {move_phrase(obs, best, False)} and "
                   f"{cards_figure(other, places)} if you {move_phrase(obs, other.move, False)}, a gap within the "
                   "noise."]
        else:  # no difference to claim
            out = [f"{head}; {move_gerund(obs, best)} or {move_gerund(obs, other.move)}, you can expect "
                   f"{about_cards(top)} either way."]
        tips.append(TipId.WELL_PLAYED)
        return out
    figures = _versus(top, other, "this way", f"if you {move_phrase(obs, other.move, False)}")
    if round(top.win * 100) == round(other.win * 100) and not _cards_differ(top, other):
        same = "the same" if win_figure(top) == win_figure(other) else "about the same"
        text = (f"{what}, or {move_phrase(obs, other.move, False)}: they score {same}"
                f". {_figs(figures, scored)}")
        if best.kind == "d" and obs.stock and obs.stock[0] is None:
            text += " Turning first shows you more cards before you commit to anything."
        elif best.kind == "r" and len(obs.reserves[best.pile]) > 1 and obs.reserves[best.pile][-2] is None:
            text += " The reserve play also turns up a face-down card, and knowing more is worth something."
        return [text]
    if best.kind == "d":
        ocard = _played(other.card)  # the turn is the best move, so the runner-up is a play
        if other.opens_row is not None and not other.lost:
            tips.append(TipId.WAIT_TO_OPEN)
            return [f"{what}: {NAMES[ocard]} is playable but would open row {other.opens_row} for "
                    f"{SUIT_NAMES[ocard // 13]}, and a new row takes only ranks the rows above hold"
                    f". {_figs(_versus(top, other, 'if you wait', 'if you play it now'), scored)}"]
        if other.move.kind == "w" and obs.rules.turn > 1 and obs.stock and not other.lost and not last_pass(obs):
            # a waste play shifts only the next pass's groups (the stock stays as it is): none on the last pass
            tips.append(TipId.PLAN_PASSES)
            return [f"{what} rather than play {NAMES[ocard]}: taking it off the waste now shifts the groups "
                    f"of three and changes what the next pass shows{'' if _sure_lead(top, other) else _NOISE}. "
                    f"{_figs(figures, scored)}"]
        return [f"{what}. {_figs(figures, scored)}"]
    card = _played(top.card)  # the best move is a play from here on
    turn = next((c for c in scored.candidates if c.move == TURN), None)
    if turn is not None and round(turn.win * 100) < round(top.win * 100) and turning_blocks(obs):
        # the no-progress rule decides it: say so, not "waiting is a bet"
        tips.append(TipId.NO_PROGRESS)
        tfig = _versus(top, turn, "this way", "if you turn")
        return [f"{what} {destination_phrase(obs, card)}: no card has been played since the redeal, and none of "
                "the cards still to turn (you know them all) can be played before the stock runs out, so turning "
                f"on would end the pass with no play and block the game. {_figs(tfig, scored)}"]
    if top.opens_row is not None:
        # Waiting is every move that opens no row: quote the best of those, not another opening.
        waits = [c for c in scored.candidates if c.opens_row is None and c.move != best]
        wait = max(waits, key=lambda c: (c.win, c.cards), default=None)
        if wait is not None and (round(top.win * 100) != round(wait.win * 100)
                                 or _cards_differ(top, wait)):
            tips.append(TipId.WAIT_TO_OPEN)
            wfig = _versus(top, wait, "this way", f"if you wait and {move_phrase(obs, wait.move, False)}")
            if not _sure_lead(top, wait):  # "does not pay" is a claim: only on a lead beyond the noise
                return [f"{what} {destination_phrase(obs, card)} now: waiting scores about the same here, the gap "
                        f"within the noise. {_figs(wfig, scored)}"]
            if not obs.unseen_cards():
                bet = "with every card known, waiting does not pay here"
            elif None not in obs.stock:
                bet = "you know the cards the talon still holds, and waiting for them does not pay here"
            else:
                bet = "waiting pays only if the talon brings what you need in time, and here it does not"
            return [f"{what} {destination_phrase(obs, card)} now: {bet}. {_figs(wfig, scored)}"]
        return [f"{what} {destination_phrase(obs, card)}. {_figs(figures, scored)}"]
    row = obs.destination(card)
    if row == 0:
        tips.append(TipId.FIRST_ROW)
        return [f"{what} to row 1: every rank row 1 gets is one the rows below may take"
                f". {_figs(figures, scored)}"]
    if best.kind == "w" and obs.stock and last_pass(obs):
        tips.append(TipId.LAST_PASS)
        return [f"{what} {destination_phrase(obs, card)}: this is the last pass, so a card you turn past now is "
                "buried under the next turn and may not come back, and taking it shifts nothing, since no pass "
                f"follows. {_figs(figures, scored)}"]
    if best.kind == "w" and obs.rules.turn > 1 and obs.stock:
        tips.append(TipId.PLAN_PASSES)
        better = ", for the better here" if _sure_lead(top, other) else _NOISE
        return [f"{what} {destination_phrase(obs, card)}: taking it now changes which cards the next pass "
                f"shows{better}. {_figs(figures, scored)}"]
    tips.append(TipId.TRACK_RANKS)
    return [f"{what} {destination_phrase(obs, card)}, now that its rank is in the row above"
            f". {_figs(figures, scored)} Row 1 still lacks {_missing_ranks(obs) or 'nothing'}."]
