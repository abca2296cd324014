"""The review's words: each move's comment (its tag and tip sentences from :mod:`.tags`), luck, critical moments, the verdict.

Built only from the facts of :mod:`tutor.review.facts` (and the position the
move was played in, for the one move describer :mod:`.moves`). A fact marked
``hindsight`` (it rests on cards the player had not seen) gives a sentence
that starts "With hindsight (all cards known)"; no other sentence names a
card the player had not seen.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..cards import SUIT_NAMES
from ..estimate import interval_text
from ..record import Record
from ..review.facts import (
    DEFAULT_MARKS,
    BlockingCycle,
    Candidate,
    Comment,
    Decided,
    ErrorMoment,
    Grade,
    LuckMoment,
    MomentFact,
    ThrewAwayWin,
    Ungraded,
    cards_choice,
    is_point,
)
from ..review.grades import Label
from ..review.values import Hindsight, Review
from ..state import State
from ..talon import last_pass
from .blind import blind_apart, blind_figure, searched_deals
from .figures import deals as _deals
from .figures import num as _num
from .figures import points as _points
from .hint import cards_span, pct
from .luck import luck_moment_text, luck_sentence
from .moves import card_word, move_short
from .moves import move_named as _better
from .play import none_shown, plural
from .practical import PRACTICAL_HEADING, practical_sentence
from .question import surely_fewer_cards
from .tags import TAGS, tag_sentence, tag_tip, tip_sentence, tip_topic

__all__ = ["TAGS", "HINDSIGHT", "tell", "comment", "grade_sentence", "tag_sentence", "tip_sentence", "tip_topic", "tag_tip",
           "cycle_sentence", "threw_away_sentence", "luck_sentence", "only_move_sentence", "moment_text",
           "verdict", "sampling_text", "practical_sentence", "PRACTICAL_HEADING"]

#: How every hindsight sentence starts: it uses cards the player had not seen.
HINDSIGHT = "With hindsight (all cards known)"

def _clear_of(points: float, marks: tuple[float, ...] = DEFAULT_MARKS) -> int:
    """Decimal places (0 to 3) for a drop of ``points`` so it never reads as sitting on a threshold of
    ``marks`` it is not on: 1.04 points for a move graded good is "1.04", not the best label's "1", and 9.6
    for an inaccuracy "9.6", not a mistake's "10"."""
    for places in (0, 1, 2):
        shown = round(points, places)
        if not any(shown == m != points for m in marks):
            return places
    return 3


def _won_none(n: int) -> str:
    return ("did not win the one deal either" if n == 1 else "won neither deal either" if n == 2
            else f"won none of the {n} deals either")


def _win(c: Candidate) -> str:
    """A move's win chance beside another's in a comment, with its 95% interval where it was sampled: "42%
    (95%: 30-55%)" (the deals it rests on are named beside the pair); "42%" where exact or certain."""
    shown = pct(c.win)
    if not c.exact and c.interval[0] != c.interval[1]:
        return f"{shown} ({interval_text(*c.interval)})"
    return shown


def decided_sentence(state: State, fact: Decided) -> str:
    """A move in a decided position: why it is not graded, and in a lost one the move that places more cards."""
    deals = ("the one deal" if fact.samples == 1 else f"each of the {fact.samples} deals")
    if fact.blocked:
        text = ("No choice here could save the game: the reserve piles, every card of them known, leave no order "
                "of the rows still to open that can be completed; not graded.")
    else:  # never won: a position every move keeps won is graded (a later move can still lose the win)
        text = (f"No choice here could save the game: no legal move wins in {deals.replace('each', 'any')} "
                f"consistent with what you had seen ({'solved' if fact.samples == 1 else 'all solved'}); "
                "not graded.")
    more = more_cards_sentence(state, fact)
    return text if more is None else f"{text} {more}"


def sure_cards_sentence(state: State, fact: Grade) -> str | None:
    """A move graded best where no move won in any sampled deal, and the hint's move surely places more cards
    (:func:`tutor.narrate.question.surely_fewer_cards`): the sentence, else None."""
    played, top = fact.played, fact.top
    if fact.label != Label.BEST or top.move == played.move or top.win > 0 or played.win > 0:
        return None
    exact = played.exact and is_point(played.cards_interval) and is_point(top.cards_interval)  # not a cut bound
    if not surely_fewer_cards(top, played, exact):
        return None
    if exact:
        return f"{_better(state, top.move)} places more cards ({top.cards:.0f} against {played.cards:.0f}, exact)."
    return (f"{_better(state, top.move)} places more cards: about {top.cards:.0f} {cards_span(*top.cards_interval, True)} "
            f"against {played.cards:.0f} {cards_span(*played.cards_interval)}, on "
            f"{plural(played.cards_deals, 'sampled deal')}, none won by any move.")



def more_cards_sentence(state: State, fact: Decided) -> str | None:
    """In a lost decided position, the move that places more cards than the one played, or None."""
    if fact.more is None:
        return None
    text = f"{_better(state, fact.more.move)} places more cards"
    if fact.gap is None:
        return text + f" ({fact.more.cards:.0f} against {fact.played.cards:.0f}{'' if fact.samples == 1 else ' on average'})."
    lo, hi = fact.gap
    n = fact.more.samples
    if hi - lo < 0.05:  # the same gap in every sampled deal: no average, no "about"
        return text + (f": {lo:.0f} more in {'the one sampled deal' if n == 1 else f'each of the {n} sampled deals'}, the same for both moves "
                       f"({fact.more.cards:.0f} against {fact.played.cards:.0f}).")
    gap = fact.more.cards - fact.played.cards  # printed itself: the rounded figures may differ by one from it
    return (text + f": about {fact.more.cards:.0f} against {fact.played.cards:.0f} on average over {n} sampled "
            f"deals, the same for both moves (a gap of {gap:.1f} cards, 95%: {lo:.1f} to {hi:.1f}).")


def grade_sentence(state: State, fact: Grade | Ungraded | Decided) -> str:
    """The first sentence of a comment: the label and the figures behind it."""
    if isinstance(fact, Decided):
        return decided_sentence(state, fact)
    if isinstance(fact, Ungraded):
        basis = (f"exact, {_deals(fact.samples)}" if fact.exact
                 else f"{interval_text(*fact.interval)}, {_deals(fact.samples)}")
        figure = f"win {pct(fact.win)} ({basis})"
        if fact.no_progress and not state.stock:  # the redeal itself: certain from what the player saw
            figure = ("win 0%, certain from what you had seen: after this redeal "
                      f"{none_shown(state.rules.turn, 'none of the talon cards', 'you had seen them all')}, so the next "
                      "pass could only end with no card played, which blocks the game with "
                      f"{plural(fact.cards, 'card')} on the foundations")
        elif fact.no_progress:  # certain from what the player saw: no sampled interval
            why, end = (("this was the last pass", "the game could only end when the stock ran out,")
                        if last_pass(state) else
                        ("no card had been played since the redeal", "the pass could only end with no card "
                         "played, which blocks the game"))
            figure = (f"win 0%, certain from what you had seen: {why}, and "
                      f"{none_shown(state.rules.turn, known='you had seen them all')}, so {end} with "
                      f"{plural(fact.cards, 'card')} on the foundations")
        elif fact.blocked:  # certain from the face-up reserve piles: no sampled interval
            figure = ("win 0%, certain from what you had seen: the reserve piles, every card of them known, leave "
                      "no order of the rows still to open that can be completed")
        elif fact.ended:  # the last move of a finished game: its result
            figure = (f"win {pct(fact.win)} (the game was "
                      f"{'won with it' if fact.ended == 'won' else 'blocked after it'})")
        if fact.forced:
            return f"The only legal move: {figure}."
        return f"A free play: {card_word(fact.card)} opens no row, so playing it can only add options; {figure}."
    played, top, paired = fact.played, fact.top, fact.paired
    if fact.label == Label.BEST:
        if played.lost:  # certain, not sampled: a 0% whose interval would read "0-0%, 64 deals"
            text = ("Best move: win 0%, certain from what you had seen (it loses in every deal consistent with "
                    "it).")
            if top.move != played.move and not top.lost:
                return f"{text} {_better(state, top.move)} {_won_none(top.samples)}, but is not lost for certain."
            return text
        if played.exact:
            deals = ("the one consistent deal" if played.samples == 1
                     else f"every one of the {played.samples} consistent deals")
            text = f"Best move: win {pct(played.win)} (exact, {deals})."
        else:
            text = f"Best move: win {pct(played.win)} ({interval_text(*played.interval)}, {_deals(played.samples)})."
        fused = fact.fused
        if fused is not None and fused.blind is not None and played.blind is not None:  # strategy fusion
            exact = fact.fused_exact
            sure = exact or blind_apart(played.blind, played.blind_interval, fused.blind, fused.blind_interval)
            how = ("every consistent deal searched" if fact.fused_exact
                   else f"the search's estimate on {searched_deals(played.samples, played.samples)}")
            return (f"{text} {_better(state, fused.move)} shows {pct(fused.win)} on those deals solved with every "
                    f"card known, but searched over the cards that can still turn up ({how}), a player who cannot "
                    f"see them wins no more with it: {blind_figure(fused.blind, fused.blind_interval, exact)} "
                    f"against {blind_figure(played.blind, played.blind_interval, exact)} with this move. Its lead "
                    f"{'needs' if sure else 'may need'} the face-down cards known.")
        higher = round(top.win * 100) > round(played.win * 100)
        if top.move != played.move and paired is not None and (higher or paired.estimate * 100 >= 0.05):
            # another move shows a higher figure, or the same one and wins a little more paired (the move the
            # hint leans to): say why this one is best all the same
            more = (f"only {_num(paired.estimate * 100, max(1, _clear_of(paired.estimate * 100, fact.marks)))} "
                    "points more" if paired.estimate * 100 >= 0.05 else "no more")
            # more deals drawn while the label was in doubt: the paired figure is on those, so say how many
            deals = (f"on {paired.samples} deals, paired ({paired.samples - played.samples} more drawn to settle it),"
                     if paired.samples > played.samples
                     else "on the same deals")
            shows = f"shows {_win(top)}" if higher else f"shows {pct(top.win)} as well"
            text += (f" {_better(state, top.move)} {shows}, but {deals} it wins {more}"
                     f"{'' if paired.exact or paired.samples > played.samples else ' (paired)'}, too little to call "
                     "either move better.")
        elif cards_choice(played, top, paired):
            # the same chance, but the hint's tie-break (the cards placed) prefers another move: said when the
            # cards are surely more (their intervals apart), not on 42 against 41 with overlapping ones
            # the label is the win chance's (both moves keep it), the hint's choice the cards': say both
            if played.exact:
                cards = f"{top.cards:.0f} against {played.cards:.0f} on average"
            else:
                cards = (f"about {top.cards:.0f} {cards_span(*top.cards_interval, True)} against "
                         f"{played.cards:.0f} {cards_span(*played.cards_interval)} on {plural(played.cards_deals, 'deal')}")
            text += (f" {_better(state, top.move)} has the same win chance but places more cards "
                     f"({cards}): both keep the best win chance, and the hint would choose {top.move} for the "
                     "cards.")
        if fact.close and paired is not None and top.move != played.move:
            # best on the figure, but the drop's interval still reaches an error (few deals: --samples 8): said,
            # as a good move's is, with the deals it rests on ("close" in the JSON had no word in the text)
            est, lo, hi = paired.points()
            text += (f" Too close to call against {top.move}: on {_deals(paired.samples)}, paired, it wins "
                     f"{_points(est, 1)} less (95%: {_num(lo, 1)} to {_num(hi, 1)}); the interval's high end "
                     "reaches the inaccuracy threshold.")
        return text
    basis = ""
    # the two win chances beside the drop, as they read: where they rest on the drop's own deals and their
    # rounded difference is not the rounded drop ("25% against 6%: 20 points lower"), the drop gets a decimal
    shown = int(pct(top.win)[:-1]) - int(pct(played.win)[:-1])
    if paired is not None and not paired.exact:
        est, lo, hi = paired.points()
        # a move too close to call gets a decimal, so a low end of 4.8 never shows as the threshold's 5; and
        # so does a good move whose figures would round up to the threshold (a high end of 4.9 is not 5)
        rounds_up = fact.label <= Label.GOOD and max(est, hi) >= fact.inaccuracy - 0.5
        apart = paired.samples == played.samples and int(_num(est)) != shown
        places = 1 if fact.close or rounds_up or apart else 0
        # the low end, which the label goes by, never reads as a threshold it is below (9.81 for an
        # inaccuracy is "9.8", not a mistake's "10")
        ends = f"{_num(lo, max(places, _clear_of(lo, fact.marks)))} to {_num(hi, places)}"
        figure = _points(est, max(places, _clear_of(est, fact.marks)))
        gap = f"{figure} lower (95%: {ends}, {_deals(paired.samples)}, paired)"
        if paired.samples > played.samples:  # more deals drawn while the label was in doubt: say which is which
            basis = f" on {_deals(played.samples)}"
            gap = f"on {paired.samples} deals, paired, {figure} lower (95%: {ends})"
    elif paired is not None:
        exact_pts = paired.estimate * 100
        gap = (f"{_points(exact_pts, max(0 if int(_num(exact_pts)) == shown else 1, _clear_of(exact_pts, fact.marks)))}"
               " lower (exact)")
    else:
        gap = ""
    if fact.label == Label.GOOD and played.lost and not top.lost:
        # surely stronger where it surely wins somewhere (its own interval above 0, the drop being its win)
        stronger = "stronger" if top.interval[0] > 0 or (paired is not None and paired.points()[1] > 0) else (
            "at least as strong")
        text = (f"Good: {_better(state, top.move)} was {stronger}: this move loses in every deal "
                f"consistent with what you had seen (win 0%, certain), while {top.move} "
                f"{_won_none(top.samples) if top.win == 0 else f'won {pct(top.win)} ({interval_text(*top.interval)}, {_deals(top.samples)})'} but "
                "is not lost for certain.")
        exact = played.exact and is_point(played.cards_interval) and is_point(top.cards_interval)
        if surely_fewer_cards(top, played, exact):  # the cards it gave away, as the --tutor question counts them
            text += (f" It also places more cards: {top.cards:.0f} against {played.cards:.0f}, exact." if exact else
                     f" It also places more cards: about {top.cards:.0f} {cards_span(*top.cards_interval, True)} "
                     f"against {played.cards:.0f} {cards_span(*played.cards_interval)}.")
        if fact.close:
            text += (" Too close to call an error: the interval's low end is under the inaccuracy threshold, "
                     "its high end reaches it.")
        return text
    if fact.label == Label.GOOD and fact.blind_better and top.blind is not None and played.blind is not None:
        # level with every card known, behind for a blind player: the hint's choice, said as the fusion is
        exact = fact.fused_exact  # graded so only where the gap is beyond the search's noise (or exact)
        how = ("every consistent deal searched" if exact
               else f"the search's estimate on {searched_deals(played.samples, played.samples)}")
        # the played move's share needs the cards known only where its blind figure falls short of it
        short = round(played.blind * 100) < round(played.win * 100)
        return (f"Good: {_better(state, top.move)} was better. On the deals solved with every card known both win "
                f"{pct(played.win)} ({interval_text(*played.interval)}, {_deals(played.samples)}), but searched "
                f"over the cards that can still turn up ({how}), a player who cannot see them wins "
                f"{blind_figure(top.blind, top.blind_interval, exact)} with it against "
                f"{blind_figure(played.blind, played.blind_interval, exact)} with this move"
                + (": this move's share needs the face-down cards known." if short else "."))
    if fact.label == Label.GOOD:
        against = f"win {_win(played)} against {_win(top)}{basis}"
        # too close to call: surely worse (the interval above zero) but not surely by an inaccuracy, or not
        surely = paired is not None and not paired.exact and paired.points()[1] > 0
        # "a little" only where the figure itself is under the threshold (a wide interval may hold 50 points)
        worse = "a little worse than" if paired is None or paired.points()[0] < fact.inaccuracy else "worse than"
        lead = (worse if surely else "not clearly worse than") if fact.close else "nearly as strong as"
        text = f"Good: {lead} {fact.best}, {against}{'; ' + gap if gap else ''}."
        if fact.close:
            text += (" Too close to call an error: the interval's low end is under the inaccuracy threshold, "
                     "its high end reaches it.")
        return text
    return (f"{str(fact.label).capitalize()}: {_better(state, fact.best)} was better, win {_win(top)} against "
            f"{_win(played)} after {move_short(state, fact.move)}{basis}{';' if basis else ':'} {gap}.")


def cycle_sentence(fact: BlockingCycle) -> str:
    """Hindsight, in one sentence, so that every clause that names a hidden card is under the hindsight words;
    a cycle the player could see (``fact.seen``) says so instead, with no hindsight words."""
    why = re.sub(r"\. (\w)", lambda m: "; " + m.group(1).lower(), fact.why.text().strip())
    if fact.seen:
        return (f"Putting {SUIT_NAMES[fact.card // 13]} in row {fact.row} blocked the rows below, as the reserve "
                f"cards you could see before the move showed: {why}")
    return (f"{HINDSIGHT}, putting {SUIT_NAMES[fact.card // 13]} in row {fact.row} blocked the rows below: "
            f"{why}")


def threw_away_sentence(fact: ThrewAwayWin, state: State | None = None, known: bool = False) -> str:
    """``state``: the position before the move, so the better move is named with its card (``w (6C)``);
    ``known``: the player had seen every card (one consistent deal), so it is no hindsight."""
    better = fact.better
    named = (move_short(state, better) if state is not None and better is not None else str(better))
    alt = f", and {named} would have kept it" if better is not None else ""
    if known:
        return f"This move threw away a win{alt}: only one deal fitted what you had seen, so it was in view."
    return f"{HINDSIGHT}, this move threw away a win{alt}."


def unseen_warning(where: str = "below") -> str:
    """Said with a review of an unfinished game whose hindsight knows cards it has not shown
    (``Review.reveals_unseen``): ``where`` the hindsight stands (below the warning, or here on the screen)."""
    return (f"The hindsight {where} knows the cards this game has not shown yet: go on with it after reading them "
            "and you play with those cards known.")


UNSEEN_WARNING = unseen_warning()


def notes_reveal_unseen(record: Record) -> bool:
    """Whether a record's own annotations (a review written with ``--annotate``, read back by replay) use cards
    its game has not shown yet: unfinished, a card still hidden, and a comment in hindsight. Replay then warns
    as the review did when it wrote them (:meth:`tutor.review.Review.reveals_unseen`)."""
    from ..knowledge import has_seen_everything

    end = record.replay()
    return (not end.over and not has_seen_everything(end)
            and any(HINDSIGHT in str((note or {}).get("comment") or "") for note in record.annotations))


def only_move_sentence() -> str:
    return f"{HINDSIGHT}, it was the only move that kept the win."


def comment(state: State, facts: Comment) -> str:
    """A move's whole comment from its facts, in ``state`` (the position before the move)."""
    grade = facts.grade
    # with one consistent deal the player knew every card: a fact of the true deal is theirs, not hindsight
    known = (isinstance(grade, Grade) and grade.played.exact and grade.played.samples == 1) or (
        isinstance(grade, Ungraded) and grade.exact and grade.samples == 1)
    cycle = facts.cycle
    if cycle is not None and known and not cycle.seen:
        cycle = replace(cycle, seen=True)
    parts = [grade_sentence(state, grade)]
    parts += [tag_sentence(state, t) for t in facts.tags]
    if cycle is not None and cycle.seen:  # in view before the move: the error's reason, before the tip
        parts.append(cycle_sentence(cycle))
    advice = tip_sentence(facts.tags, cycle, known, state)
    if advice is not None:
        parts.append(advice)
    if cycle is not None and not cycle.seen and facts.threw_away is not None:
        # one hindsight caveat for both: the win thrown away, then how the row blocked
        parts.append(threw_away_sentence(facts.threw_away, state)[:-1] + "; "
                     + cycle_sentence(cycle).removeprefix(HINDSIGHT + ", "))
    else:
        if facts.threw_away is not None:
            parts.append(threw_away_sentence(facts.threw_away, state, known))
        if cycle is not None and not cycle.seen:
            parts.append(cycle_sentence(cycle))
    if facts.luck is not None:
        parts.append(luck_sentence(facts.luck))
    if facts.only_move is not None:
        parts.append("It was the only move that kept the win." if known else only_move_sentence())
    return " ".join(parts)


def moment_text(state: State, fact: MomentFact) -> str:
    """A critical moment in a line: the error with its drop, or the cards that turned up with their luck."""
    if isinstance(fact, ErrorMoment):
        paired, marks = fact.paired, fact.marks
        # the low end decides the label: never rounded onto a threshold it is below (9.79 is "9.8", not "10")
        ends = f"{_num(paired.lo * 100, _clear_of(paired.lo * 100, marks))}-{_num(paired.hi * 100)}"
        how = "exact" if paired.exact else f"95%: {ends}, {_deals(paired.samples)}"
        if not paired.exact and 0 < fact.win_samples < paired.samples:
            # the win chances beside it rest on fewer deals: say which figure rests on which
            how = f"on {paired.samples} deals, paired, 95%: {ends}; the win chances on {_deals(fact.win_samples)}"
        return (f"{move_short(state, fact.move)} lost {_points(fact.drop, _clear_of(fact.drop, marks))} ({how}) "
                f"against {move_short(state, fact.best)}")
    assert isinstance(fact, LuckMoment)
    return luck_moment_text(fact)


def tell(rev: Review) -> Review:
    """``rev`` with its words: every move's comment and every critical moment's text, from their facts."""
    states = list(rev.states) or rev.record.states()
    rev.moves[:] = [replace(m, comment=comment(states[m.ply - 1], m.facts)) if m.facts is not None else m
                    for m in rev.moves]
    rev.critical[:] = [replace(c, text=moment_text(states[c.ply - 1], c.fact)) if c.fact is not None else c
                       for c in rev.critical]
    rev.critical[:] = [replace(c, practical_text=practical_sentence(states[c.ply - 1], c.practical))
                       if c.practical is not None else c for c in rev.critical]
    return rev


def verdict(h: Hindsight) -> str:
    """The hindsight verdict in one sentence, starting with the hindsight caveat (none for a loss the
    player could see from the first move)."""
    head = f"{HINDSIGHT}: "
    if h.winnable is None:
        return head + "the solver could not decide whether the deal was winnable within its limit."
    if not h.winnable:
        why = h.explanation_text
        if h.seen:  # every card of the cycle was face up from the first move: the player could see it
            return ("The deal could not be won from the start, as the reserve piles, face up from the first "
                    "move, showed" + (f": {why}" if why else "."))
        return head + "the deal could not be won from the start" + (f": {why}" if why else ".")
    if h.won:
        return head + "the deal was winnable, and the game was won."
    if h.lost_at_ply is not None:
        named = f"{h.better} ({card_word(h.better_card)})" if h.better_card is not None else str(h.better)
        alt = f" ({named} instead would have kept it)" if h.better is not None else ""
        return head + f"the deal was winnable, and move {h.lost_at_ply} threw the win away{alt}."
    if h.undecided:
        return head + ("the deal was winnable and the win was lost, but the solver could not pin down "
                       "the move within its limit.")
    if h.still_winnable is None:
        return head + ("the deal was winnable; whether it still was when the record ends, the solver "
                       "could not decide within its limit.")
    return head + "the deal was winnable, and the game could still be won when the record ends."


def sampling_text(info: dict[str, Any]) -> str:
    """The review header's sentence on the sample counts (what was really used), from ``Review.sampling()``."""
    counts = info["samples_a_move"]
    parts = []
    if info["sampled_moves"]:
        each = (f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}")
        parts.append(f"{each} sampled deal{'' if each == '1' else 's'} a move for {plural(info['sampled_moves'], 'move')}, the same deals "
                     "through the game (redrawn only where a card that turned up contradicted them)")
    if info["exact_moves"]:
        parts.append(f"{plural(info['exact_moves'], 'move')} exact (every consistent deal solved)")
    if info["labels_with_more"]:
        n = info["labels_with_more"]
        parts.append(f"{plural(n, 'label')} in doubt drew more deals, up to "
                     f"{info['most_label_samples']}")
    return "; ".join(parts) + "; 95% intervals" if parts else "no move scored"
