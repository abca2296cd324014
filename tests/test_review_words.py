"""The review's words come from its facts: enums for tags and moments, hindsight said where it is used,
and nothing the player never saw changes a tag, a moment or a comment (hindsight sentences aside)."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace

import pytest

from tutor.cards import NAMES
from tutor.deals import Deal, deal_for
from tutor.estimate import Drop
from tutor.knowledge import seen_cards
from tutor.narrate import TIPS
from tutor.narrate.review import (
    HINDSIGHT,
    TAGS,
    comment,
    cycle_sentence,
    grade_sentence,
    luck_sentence,
    moment_text,
    only_move_sentence,
    tag_sentence,
    threw_away_sentence,
)
from tutor.notation import Move, parse_moves
from tutor.record import Record
from tutor.review import Label, MomentKind, Review, Tag, review
from tutor.review.facts import (
    BlockingCycle,
    Candidate,
    Comment,
    EarlyStart,
    ErrorMoment,
    Grade,
    LateStart,
    Luck,
    LuckMoment,
    NoProgress,
    OnlyMove,
    ReserveDig,
    TalonShift,
    ThrewAwayWin,
    TurnedPast,
    WrongRow,
)
from tutor.rules import preset
from tutor.search import lost_from_start
from tutor.state import State


def test_tags_and_moment_kinds_are_the_json_strings():
    assert [t.value for t in Tag] == ["early-start", "late-start", "wrong-row", "turned-past", "reserve-dig",
                                      "talon-shift", "no-progress"]
    assert json.dumps([Tag.WRONG_ROW, MomentKind.LUCK]) == '["wrong-row", "luck"]'
    assert set(TAGS) == set(Tag) and all(str(tip) in TIPS for tip, _ in TAGS.values())
    import tutor.review

    assert tutor.review.TAGS is TAGS  # the old name still answers


def _figure(move: str = "d", win: float = 0.4) -> Candidate:
    return Candidate(Move.parse(move), win, 30.0, 16, (0.2, 0.6))


def test_each_tag_fact_has_its_sentence_naming_its_cards():
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    facts = [EarlyStart(25, 2, 2, _figure()), WrongRow(25, 2, _figure("r1"), 12), LateStart(_figure("r1"), 12),
             NoProgress(), TurnedPast(3, _figure("w"), False), ReserveDig(25, 1, 30, (6, 34)), ReserveDig(25, 1, None),
             TalonShift(25, _figure()), NoProgress(at_once=False), TurnedPast(3, _figure("w"), False, 40),
             NoProgress(first_pass=True)]
    words = [tag_sentence(state, f) for f in facts]
    assert len(set(words)) == len(words)
    assert "KH" in words[0] and "row 2 for hearts" in words[0] and "40% (95%: 20-60%)" in words[0]
    assert "KS" in words[1] and "KS" in words[2] and "4S" in words[4] and "5D" in words[5]
    assert "reserve pile 2" in words[6]
    assert "ended a pass" in words[3] and "all of them known" in words[8]
    assert "never played afterwards" in words[4] and "put it off until move 40" in words[9]
    assert "since the redeal" in words[3] and "no card played since the start" in words[10]
    assert all(not f.hindsight for f in facts) and not any(HINDSIGHT in w for w in words)


def test_every_hindsight_fact_says_so_in_its_own_sentence():
    state = State.initial(deal_for(7, preset("osmosis")), preset("osmosis"))
    why = lost_from_start(state)
    assert why is not None
    for fact, words in [(BlockingCycle(20, 2, why), cycle_sentence(BlockingCycle(20, 2, why))),
                        (ThrewAwayWin(Move.parse("d")), threw_away_sentence(ThrewAwayWin(Move.parse("d")))),
                        (OnlyMove(), only_move_sentence())]:
        assert fact.hindsight
        assert words.startswith(HINDSIGHT)
        assert len(re.split(r"(?<=\.) (?=[A-Z])", words)) == 1, words  # one sentence: the caveat covers it all
    assert not Luck((3,), 0.2, 0.5, (0.1, 0.5)).hindsight
    assert luck_sentence(Luck((3,), 0.2, 0.5, (0.1, 0.5))).startswith("Luck, not a choice")


def test_a_comment_with_a_thrown_win_and_a_blocking_row_gives_the_caveat_once():
    state = State.initial(deal_for(7, preset("osmosis")), preset("osmosis"))
    why = lost_from_start(state)
    assert why is not None
    best = Candidate(Move.parse("d"), 0.5, 30.0, 64, (0.4, 0.6))
    played = Candidate(Move.parse("r1"), 0.3, 25.0, 64, (0.2, 0.4))
    grade = Grade(Label.MISTAKE, Move.parse("r1"), Move.parse("d"), played, best, Drop(0.2, 0.12, 0.28, 64), False)
    text = comment(state, Comment(grade, cycle=BlockingCycle(20, 2, why), threw_away=ThrewAwayWin(Move.parse("d"))))
    assert text.count(HINDSIGHT) == 1
    tail = text[text.index(HINDSIGHT):]
    assert tail.startswith(f"{HINDSIGHT}, this move threw away a win, and d (turn) would have kept it; putting ")
    assert len(re.split(r"(?<=\.) (?=[A-Z])", tail)) == 1, tail  # one sentence under the caveat


def test_a_critical_moment_never_rounds_the_low_end_onto_a_label_it_is_below():
    """Greedy deal 30, move 3, an inaccuracy: its row in the critical moments read "lost 13 points (95%: 10-16,
    512 deals)", a mistake by the report's own rule (low end from 10), where its comment said 9.8; with
    --thresholds 5,8,15 a low end of 7.68 read "8" beside the inaccuracy label."""
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    r1, d = Move.parse("r1"), Move.parse("d")
    default = ErrorMoment(r1, d, 12.7, Drop(0.127, 0.0979, 0.1562, 512))
    assert "lost 13 points (95%: 9.8-16, 512 deals)" in moment_text(state, default)
    custom = ErrorMoment(r1, d, 10.4, Drop(0.104, 0.0768, 0.1299, 512), 0, (1.0, 5.0, 8.0, 15.0))
    assert "(95%: 7.7-13, 512 deals)" in moment_text(state, custom)
    on_eight = ErrorMoment(r1, d, 8.01, Drop(0.0801, 0.05, 0.11, 512), 0, (1.0, 5.0, 8.0, 15.0))
    assert "lost 8.01 points" in moment_text(state, on_eight)  # the drop itself, against those thresholds too


def test_a_one_point_drop_is_said_in_the_singular():
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    best = Candidate(Move.parse("d"), 0.5, 30.0, 64, (0.4, 0.6))
    played = Candidate(Move.parse("r1"), 0.49, 30.0, 64, (0.39, 0.59))
    grade = Grade(Label.GOOD, Move.parse("r1"), Move.parse("d"), played, best, Drop(0.012, 0.0, 0.03, 64), False)
    # graded good, so more than the best label's 1 point: the figure keeps its decimal (1.2, not "1 point")
    assert "1.2 points lower (95%: 0 to 3, 64 deals, paired)" in grade_sentence(state, grade)
    error = ErrorMoment(Move.parse("r1"), Move.parse("d"), 1.0, Drop(0.01, 0.0, 0.02, 64))
    assert moment_text(state, error).startswith("r1 (AD) lost 1 point (")
    assert moment_text(state, LuckMoment((0,), 0.01, None)) == "luck: AS turned up (+1 point)"


def test_moment_texts_from_their_facts():
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    error = ErrorMoment(Move.parse("r1"), Move.parse("d"), 20.0, Drop(0.2, 0.1, 0.3, 64))
    assert moment_text(state, error) == "r1 (AD) lost 20 points (95%: 10-30, 64 deals) against d (turn)"
    # the win chances beside the moment rest on fewer deals than the paired drop: both counts are named
    wider = ErrorMoment(Move.parse("r1"), Move.parse("d"), 9.0, Drop(0.09, 0.06, 0.11, 512), 64)
    assert moment_text(state, wider) == ("r1 (AD) lost 9 points (on 512 deals, paired, 95%: 6-11; "
                                         "the win chances on 64 deals) against d (turn)")
    same = ErrorMoment(Move.parse("r1"), Move.parse("d"), 20.0, Drop(0.2, 0.1, 0.3, 64), 64)
    assert moment_text(state, same) == moment_text(state, error)
    luck = LuckMoment((0, 1), -0.25, (-0.4, -0.1))
    assert moment_text(state, luck) == "luck: AS, 2S turned up (-25 points, 95%: -40 to -10)"


def test_a_luck_swing_reads_as_the_rounded_figures_beside_it():
    """30% -> 56% beside it: the swing is +26 points, though the unrounded 29.6% -> 56.2% is 26.6."""
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    luck = LuckMoment((0,), 0.266, (0.1, 0.4), 0.296)
    assert moment_text(state, luck) == "luck: AS turned up (+26 points, 95%: +10 to +40)"
    down = LuckMoment((0,), -0.266, (-0.4, -0.1), 0.562)
    assert moment_text(state, down) == "luck: AS turned up (-26 points, 95%: -40 to -10)"


# ---- the swap test: cards the player never saw ------------------------------------

def _twin(rules, deal: Deal, moves: list[Move]) -> Deal | None:
    """The same deal with two cards the player never saw in the game swapped (of one reserve pile, else of the talon)."""
    states = [State.initial(deal, rules)]
    for m in moves:
        states.append(states[-1].apply(m))
    seen = set().union(*(seen_cards(s) for s in states))
    for pile in (*deal.reserves, deal.talon):
        hidden = [c for c in pile if c not in seen]
        if len(hidden) >= 2:
            swap = {hidden[0]: hidden[1], hidden[1]: hidden[0]}
            return Deal(tuple(tuple(swap.get(c, c) for c in p) for p in deal.reserves), deal.base,
                        tuple(swap.get(c, c) for c in deal.talon))
    return None


def _without_hindsight(text: str) -> str:
    return " ".join(s for s in re.split(r"(?<=\.) ", text) if not s.startswith(HINDSIGHT))


def _fair(rev: Review) -> list[tuple[object, ...]]:
    """What a review says from what the player saw: tags, labels, comments and facts with hindsight taken out."""
    out: list[tuple[object, ...]] = []
    for m in rev.moves:
        assert m.facts is not None
        facts = replace(m.facts, cycle=None, threw_away=None, only_move=None)
        out.append((m.ply, m.tags, m.label, _without_hindsight(m.comment), facts))
    out += [(c.ply, c.kind, c.text, c.fact) for c in rev.critical]
    return out


BRIDESMAIDS_3 = " ".join(["d"] * 16 + ["w"])  # luck at move 16, three talon cards never seen


@pytest.mark.parametrize("variant, number, moves", [("osmosis", 54, "r3 r4 r4 r3 d d w"), ("osmosis", 75, "d d d r1 r1"),
                                                    ("osmosis", 5, None), ("bridesmaids", 3, BRIDESMAIDS_3)])
def test_tags_moments_and_comments_do_not_depend_on_unseen_cards(variant, number, moves):
    rules = preset(variant)
    deal = deal_for(number, rules)
    if moves is not None:
        played = parse_moves(moves)
    else:  # a random game of 14 moves
        rng, state, played = random.Random(number), State.initial(deal, rules), []
        while not state.over and len(played) < 14:
            played.append(rng.choice(state.legal_moves()))
            state = state.apply(played[-1])
    other = _twin(rules, deal, played)
    assert other is not None
    a = review(Record(rules, deal, played), samples=6, workers=1)
    b = review(Record(rules, other, played), samples=6, workers=1)
    assert a.states != b.states  # the true deals differ
    assert _fair(a) == _fair(b)
    assert any(m.tags for m in a.moves) or a.critical  # something to compare beyond the grades


def test_the_analysis_gives_facts_and_the_words_come_after():
    from tutor.narrate.review import tell
    from tutor.review import analyse

    rules = preset("osmosis")
    record = Record(rules, deal_for(54, rules), parse_moves("r3 r4 r4 r3 d d w"))
    facts = analyse(record, samples=6, workers=1)
    assert all(m.comment == "" and m.facts is not None for m in facts.moves)
    assert all(c.text == "" and c.fact is not None for c in facts.critical)
    seventh = facts.moves[6].facts
    assert seventh is not None and seventh.uses_hindsight and seventh.cycle is not None
    assert [type(t) for t in seventh.tags] == [EarlyStart] and NAMES[seventh.tags[0].card] == "7H"
    assert tell(facts).to_json() == review(record, samples=6, workers=1).to_json()


def test_at_one_move_the_error_comes_before_the_luck_it_then_turned_up():
    from tutor.review.moments import critical
    from tutor.review.values import MoveReview

    def move(ply: int, label: Label = Label.BEST, **kw) -> MoveReview:
        return MoveReview(ply, Move.parse("r1"), Move.parse("d"), 0.6, 0.3, label, (), "", **kw)

    # the luck swing is the larger, so it is found first; the game's order still puts the choice first
    same = move(4, label=Label.MISTAKE, paired=Drop(0.3, 0.2, 0.4, 64), luck=0.5, seen=(3,),
                luck_interval=(0.3, 0.7))
    kinds = [(c.ply, str(c.kind)) for c in critical([move(1), move(2, luck=-0.2, seen=(5,)), same])]
    assert kinds == [(2, "luck"), (4, "error"), (4, "luck")]


def test_a_best_move_beside_a_higher_figure_says_why_it_is_best_all_the_same():
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("d"), 0.41, 30.0, 16, (0.2, 0.6))
    played = Candidate(Move.parse("r1"), 0.40, 30.0, 16, (0.2, 0.6))
    grade = Grade(Label.BEST, Move.parse("r1"), Move.parse("r1"), played, top, Drop(0.0078, -0.01, 0.03, 16), False)
    assert grade_sentence(state, grade) == (
        "Best move: win 40% (95%: 20-60%, 16 deals). d (turning the talon) shows 41% (95%: 20-60%), but on the same "
        "deals it wins "
        "only 0.8 points more (paired), too little to call either move better.")
    alone = replace(grade, top=played, paired=Drop(0.0, 0.0, 0.0, 16))
    assert grade_sentence(state, alone) == "Best move: win 40% (95%: 20-60%, 16 deals)."
    # the label was in doubt, so the pair drew more deals: the paired gap is on those, and says so
    more = replace(grade, paired=Drop(0.0078, -0.01, 0.03, 48))
    assert grade_sentence(state, more) == (
        "Best move: win 40% (95%: 20-60%, 16 deals). d (turning the talon) shows 41% (95%: 20-60%), but on 48 deals, paired "
        "(32 more drawn to settle it), it wins only 0.8 points more, too little to call either move better.")


def test_a_redeal_is_named_as_one_not_as_a_turn():
    rules = preset("osmosis")
    state = State.initial(deal_for(1, rules), rules)
    d = Move.parse("d")
    while state.stock:
        state = state.apply(d)
    best = Candidate(d, 0.5, 30.0, 64, (0.4, 0.6))
    played = Candidate(Move.parse("w"), 0.3, 25.0, 64, (0.2, 0.4))
    grade = Grade(Label.MISTAKE, Move.parse("w"), d, played, best, Drop(0.2, 0.12, 0.28, 64), False)
    text = grade_sentence(state, grade)
    assert text.startswith("Mistake: d (turning the waste over for a new pass) was better")
    assert "turning the talon" not in text
    error = ErrorMoment(Move.parse("w"), d, 20.0, Drop(0.2, 0.1, 0.3, 64))
    assert moment_text(state, error).endswith("against d (redeal)")


def test_in_peek_a_reserve_dig_leaves_a_card_on_top_rather_than_uncovering_it():
    osmosis, peek = (State.initial(deal_for(1, preset(v)), preset(v)) for v in ("osmosis", "peek"))
    fact = ReserveDig(25, 1, 30, (6, 34))
    assert (f"only 6 of the 34 cards it could uncover would have been playable (it turned up {NAMES[30]})"
            in tag_sentence(osmosis, fact))
    text = tag_sentence(peek, replace(fact, odds=None))
    assert "uncovered" not in text
    assert text.startswith(f"Playing {NAMES[25]} left {NAMES[30]} on top of reserve pile 2, and it could not be played")


def test_a_good_move_too_close_to_call_shows_its_low_end_with_a_decimal():
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("d"), 0.16, 30.0, 64, (0.1, 0.25))
    played = Candidate(Move.parse("r1"), 0.09, 28.0, 64, (0.04, 0.18))
    grade = Grade(Label.GOOD, Move.parse("r1"), Move.parse("d"), played, top, Drop(0.07, 0.0476, 0.092, 64), True)
    text = grade_sentence(state, grade)
    # surely worse (the interval above zero), only not surely by an inaccuracy's 5 points; by 7 points, over
    # the threshold itself, not "a little" worse (that is for a figure under it: 50 points read "a little worse")
    # each win chance with its interval (a sampled figure), the deals they rest on named with the drop
    assert text.startswith("Good: worse than d, win 9% (95%: 4-18%) against 16% (95%: 10-25%); 7.0 points lower "
                           "(95%: 4.8 to 9.2, 64 deals, paired).")
    little = grade_sentence(state, replace(grade, paired=Drop(0.04, 0.01, 0.092, 64)))
    assert little.startswith("Good: a little worse than d,")
    unsure = replace(grade, paired=Drop(0.06, -0.017, 0.137, 64))
    assert grade_sentence(state, unsure).startswith("Good: not clearly worse than d, win 9% (95%: 4-18%) against 16% "
                                                    "(95%: 10-25%); 6.0 points "
                                                    "lower (95%: -1.7 to 13.7, 64 deals, paired).")
    assert "Too close to call an error" in text and ") (" not in text and "))" not in text
    calm = replace(grade, close=False, played=replace(played, win=0.14), paired=Drop(0.02, -0.004, 0.04, 64))
    assert grade_sentence(state, calm) == ("Good: nearly as strong as d, win 14% (95%: 4-18%) against 16% (95%: "
                                           "10-25%); 2 points lower "
                                           "(95%: 0 to 4, 64 deals, paired).")
    # not close (the high end 4.91 under the threshold's 5), yet whole numbers would show it as 5: a decimal
    near = replace(grade, close=False, paired=Drop(0.031, 0.013, 0.0491, 64))
    assert grade_sentence(state, near) == ("Good: nearly as strong as d, win 9% (95%: 4-18%) against 16% (95%: "
                                           "10-25%); 3.1 points lower "
                                           "(95%: 1.3 to 4.9, 64 deals, paired).")
    # a close move's figure has the decimal its ends have: 4.67 is not "5 points lower"
    under = replace(grade, paired=Drop(0.0467, 0.028, 0.065, 64))
    assert "; 4.7 points lower (95%: 2.8 to 6.5, 64 deals, paired)." in grade_sentence(state, under)


def test_a_best_move_in_a_lost_position_says_when_another_places_more_cards():
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("d"), 0.0, 34.2, 120, (0.0, 0.0), (34.2, 34.2), exact=True)
    played = Candidate(Move.parse("r1"), 0.0, 32.1, 120, (0.0, 0.0), (32.1, 32.1), exact=True)
    grade = Grade(Label.BEST, Move.parse("r1"), Move.parse("r1"), played, top, Drop(0.0, 0.0, 0.0, 120), False)
    assert grade_sentence(state, grade).endswith(
        "d (turning the talon) has the same win chance but places more cards (34 against 32 on average): both "
        "keep the best win chance, and the hint would choose d for the cards.")
    # a cut best score is a lower bound (up to 52): no claim that the other move places more
    cut = replace(played, cards_interval=(32.1, 52.0))
    assert "places more cards" not in grade_sentence(state, replace(grade, played=cut))


def test_a_luck_sentence_says_the_same_deals_only_when_they_are():
    paired = luck_sentence(Luck((3,), 0.67, 0.40, (-0.4, -0.1)))
    assert paired.endswith("(bad luck; the same deals before and after).")
    exact = luck_sentence(Luck((3,), 0.67, 0.40, (-0.4, -0.1), paired=False, exact_after=True))
    assert "the same deals before and after" not in exact
    assert exact.endswith("(bad luck; after them every consistent deal was solved, so the two figures are not on "
                          "the same deals).")


def test_a_luck_sentence_gives_each_figure_its_interval_and_deals():
    """"moved the win chance from 23% to 39% (good luck; the same deals before and after)": two sampled
    figures and a swing with no interval and no deal count, while the JSON kept the swing's interval."""
    paired = luck_sentence(Luck((3,), 0.234, 0.391, (0.052, 0.258), deals=64, deals_after=64,
                                before_interval=(0.15, 0.35), after_interval=(0.28, 0.51)))
    assert paired.endswith("moved the win chance from 23% (95%: 15-35%) to 39% (95%: 28-51%) on the same 64 "
                           "deals: +16 points (95%: +5 to +26), good luck."), paired
    apart = luck_sentence(Luck((3,), 0.31, 0.15, (-0.28, -0.06), paired=False, exact_after=True, deals=64,
                               deals_after=120, before_interval=(0.21, 0.43), after_interval=(0.15, 0.15)))
    assert apart.endswith("from 31% (95%: 21-43%, 64 deals) to 15% (exact, every one of the 120 consistent "
                          "deals): -16 points (95%: -28 to -6), bad luck; the two figures are not on the same "
                          "deals."), apart
    ended = luck_sentence(Luck((3,), 0.33, 1.0, (0.67, 0.67), paired=False, exact_after=True, deals=6,
                               deals_after=6, exact_before=True, ended="won"))
    assert ended.endswith("from 33% (exact, every one of the 6 consistent deals) to 100% (the game was won): "
                          "+67 points (exact), good luck; the two figures are not on the same deals."), ended


def test_a_best_move_beside_a_higher_figure_but_no_paired_gap_says_no_more():
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("d"), 0.42, 30.0, 16, (0.2, 0.6))
    played = Candidate(Move.parse("r1"), 0.40, 30.0, 16, (0.2, 0.6))
    grade = Grade(Label.BEST, Move.parse("r1"), Move.parse("r1"), played, top, Drop(-0.004, -0.02, 0.01, 16), False)
    assert grade_sentence(state, grade).endswith("but on the same deals it wins no more (paired), too little to "
                                                 "call either move better.")


def test_the_only_move_with_one_consistent_deal_is_no_hindsight():
    """With one consistent deal the player knew every card: "it was the only move that kept the win" is theirs."""
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    played = Candidate(Move.parse("r1"), 1.0, 52.0, 1, (1.0, 1.0), (52.0, 52.0), True)
    other = Candidate(Move.parse("d"), 0.0, 40.0, 1, (0.0, 0.0), (40.0, 40.0), True)
    grade = Grade(Label.BEST, Move.parse("r1"), Move.parse("r1"), played, played, None, False)
    text = comment(state, Comment(grade, only_move=OnlyMove()))
    assert text.endswith("It was the only move that kept the win.") and HINDSIGHT not in text
    sampled = replace(grade, played=replace(played, samples=8), top=replace(other, samples=8, win=0.5))
    assert comment(state, Comment(sampled, only_move=OnlyMove())).endswith(only_move_sentence())


def test_a_reserve_dig_is_judged_on_the_odds_never_on_the_card_that_turned_up():
    """Two deals alike in every card the player has seen, the face-down card under 4S (reserve pile 1 of deal
    17) swapped with an unseen talon card: the tag and its odds are the same; only the card told differs."""
    from tutor.review.tags import reserve_dig

    rules = preset("osmosis")
    deal = deal_for(17, rules)
    state = State.initial(deal, rules)
    move = Move.parse("r1")
    under = deal.reserves[0][-2]
    verdicts = []
    for swap in (None, deal.talon[-1]):
        d = deal
        if swap is not None:
            pile = tuple(swap if c == under else c for c in deal.reserves[0])
            d = Deal((pile,) + deal.reserves[1:], deal.base, tuple(under if c == swap else c for c in deal.talon))
        s = State.initial(d, rules)
        assert seen_cards(s) == seen_cards(state)
        dig = reserve_dig(s, move, s.apply(move))
        verdicts.append(dig)
    assert verdicts[0] is not None and verdicts[1] is not None
    assert verdicts[0].odds == verdicts[1].odds and 2 * verdicts[0].odds[0] < verdicts[0].odds[1]
    assert {verdicts[0].under, verdicts[1].under} == {under, deal.talon[-1]}


def test_a_reserve_play_that_lets_a_seen_talon_card_go_up_is_no_dig():
    """Greedy deal 3, move 27 (pass 2, the talon all seen): r3 plays TH, which opens the hearts row, and 9H,
    in the stock, can then go up; the tag said "Playing TH made no card you could see playable"."""
    import subprocess
    import sys

    from tutor.review.tags import reserve_dig

    rules = preset("osmosis")
    line = subprocess.run([sys.executable, "benchmarks/greedy_moves.py", "3"], capture_output=True, text=True,
                          check=True).stdout.split()
    state = State.initial(deal_for(3, rules), rules).play(parse_moves(" ".join(line[:26])))
    move = Move.parse("r3")
    assert line[26] == "r3" and NAMES[state.card_of(move)] == "TH"
    after = state.apply(move)
    nine = next(c for c in state.stock if NAMES[c] == "9H")
    assert state.destination(nine) < 0 <= after.destination(nine) and nine in seen_cards(state)
    assert reserve_dig(state, move, after) is None


def test_the_wait_to_open_tip_speaks_of_no_bet_where_every_card_was_seen():
    from tutor.narrate.tips import TipId, tip

    assert "bet" in tip(TipId.WAIT_TO_OPEN) and "bet" not in tip(TipId.WAIT_TO_OPEN, known=True)
    assert tip(TipId.NO_PROGRESS, known=True) == tip(TipId.NO_PROGRESS)


def test_moments_say_why_one_position_reads_two_ways_when_an_error_drew_more_deals():
    # greedy deal 5: "3 luck 28% -> 52%" then "4 error 46% -> 36% (512 deals)": one position, 52% and 46%,
    # with nothing to say that the error's figures rest on 512 deals and the luck's on the shared 64
    from types import SimpleNamespace

    from tutor.cli.review_report import _moments_basis
    from tutor.review import MomentKind

    luck = SimpleNamespace(ply=3, kind=MomentKind.LUCK)
    error = SimpleNamespace(ply=4, kind=MomentKind.ERROR)
    moves = [SimpleNamespace(ply=3, samples=64, shared=0), SimpleNamespace(ply=4, samples=512, shared=64)]
    note = _moments_basis(SimpleNamespace(moves=moves, critical=[luck, error]))
    assert note is not None and "(512 at move 4), the luck on the 64 deals" in note
    assert _moments_basis(SimpleNamespace(moves=moves, critical=[error])) is None  # no luck row beside it
    far = SimpleNamespace(ply=20, kind=MomentKind.LUCK)  # luck far from the error: no position in both rows
    assert _moments_basis(SimpleNamespace(moves=moves, critical=[error, far])) is None
    same = SimpleNamespace(ply=4, kind=MomentKind.LUCK)  # the cards after the error's own move
    assert _moments_basis(SimpleNamespace(moves=moves, critical=[error, same])) is not None
    moves[1] = SimpleNamespace(ply=4, samples=64, shared=0)  # the error on the shared deals: one basis
    assert _moments_basis(SimpleNamespace(moves=moves, critical=[luck, error])) is None


def test_a_drop_reads_as_the_difference_of_the_two_chances_beside_it():
    # greedy deal 3 move 27: "win 25% against 6% after r3 (TH): 20 points lower" (the drop 19.69 rounded, while
    # the two figures beside it differ by 19): where they rest on the drop's own deals it gets a decimal
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("d"), 0.2531, 30.0, 320, (0.21, 0.30))
    played = Candidate(Move.parse("r1"), 0.0562, 28.0, 320, (0.03, 0.09))
    grade = Grade(Label.BLUNDER, Move.parse("r1"), Move.parse("d"), played, top, Drop(0.1969, 0.1541, 0.243, 320),
                  False)
    assert ": 19.7 points lower (95%: 15.4 to 24.3, 320 deals, paired)." in grade_sentence(state, grade)
    level = replace(grade, played=replace(played, win=0.0531), paired=Drop(0.20, 0.157, 0.245, 320))
    assert ": 20 points lower (95%: 16 to 24, 320 deals, paired)." in grade_sentence(state, level)  # 25 - 5
    exact = replace(grade, paired=Drop(0.1969, 0.1969, 0.1969, 320, exact=True))
    assert ": 19.7 points lower (exact)." in grade_sentence(state, exact)



def test_a_best_move_the_other_one_leads_by_a_little_says_so_when_the_figures_round_alike():
    # the review's w "best" beside d, which won 0.78 points more on 256 deals, paired: the hint chose d, and the
    # comment said nothing of it (both showed 42%)
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("d"), 0.422, 30.0, 64, (0.31, 0.54))
    played = Candidate(Move.parse("r1"), 0.418, 30.0, 64, (0.31, 0.54))
    grade = Grade(Label.BEST, Move.parse("r1"), Move.parse("r1"), played, top, Drop(0.0078, -0.0235, 0.0391, 256),
                  False)
    assert grade_sentence(state, grade) == (
        "Best move: win 42% (95%: 31-54%, 64 deals). d (turning the talon) shows 42% as well, but on 256 deals, "
        "paired (192 more drawn to settle it), it wins only 0.8 points more, too little to call either move better.")
    # no lead at all: nothing to say
    even = replace(grade, paired=Drop(0.0, -0.02, 0.02, 64))
    assert grade_sentence(state, even) == "Best move: win 42% (95%: 31-54%, 64 deals)."


def test_a_sampled_card_count_in_a_comment_has_its_interval():
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("d"), 0.0, 33.2, 64, (0.0, 0.06), (32.1, 34.3))
    played = Candidate(Move.parse("r1"), 0.0, 24.0, 64, (0.0, 0.06), (23.1, 24.9))
    grade = Grade(Label.BEST, Move.parse("r1"), Move.parse("r1"), played, top, Drop(0.0, 0.0, 0.0, 64), False)
    assert grade_sentence(state, grade).endswith(
        "d (turning the talon) has the same win chance but places more cards (about 33 (95%: 32-34) against 24 "
        "(23-25) on 64 deals): both keep the best win chance, and the hint would choose d for the cards.")
    # every sampled deal gave the played move 16 cards: no "16 (16-16)"
    same = replace(played, cards=16.0, cards_interval=(16.0, 16.0))
    assert "against 16 (the same in every deal) on 64 deals" in grade_sentence(state, replace(grade, played=same))


def test_a_rounded_drop_never_reads_as_sitting_on_a_threshold_it_is_not_on():
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("d"), 0.5, 30.0, 64, (0.4, 0.6))
    played = Candidate(Move.parse("r1"), 0.49, 30.0, 64, (0.39, 0.59))
    # graded good (more than the best label's 1 point): "1 point lower" read as within it
    good = Grade(Label.GOOD, Move.parse("r1"), Move.parse("d"), played, top, Drop(0.0104, -0.01, 0.04, 64), False)
    assert "; 1.04 points lower (95%: -1 to 4, 64 deals, paired)." in grade_sentence(state, good)
    # an inaccuracy of 9.6 is not shown as a mistake's 10; a drop on no threshold keeps whole points
    error = ErrorMoment(Move.parse("r1"), Move.parse("d"), 9.6, Drop(0.096, 0.077, 0.13, 512))
    assert moment_text(state, error).startswith("r1 (AD) lost 9.6 points (95%: 8-13, 512 deals)")
    assert moment_text(state, replace(error, drop=12.3)).startswith("r1 (AD) lost 12 points (")
    # custom thresholds: 4 points is on one of them
    custom = replace(good, label=Label.INACCURACY, paired=Drop(0.0404, 0.041, 0.06, 64), marks=(1.0, 4.0, 8.0, 12.0))
    assert "4.04 points" in grade_sentence(state, custom)


def test_a_sampled_win_chance_of_0_or_100_percent_beside_a_drop_has_its_interval():
    # "win 94% against 100% on 64 deals" read as if d won every consistent deal; it won the 64 drawn
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("d"), 1.0, 30.0, 64, (0.9434, 1.0))
    played = Candidate(Move.parse("r1"), 0.9375, 30.0, 64, (0.85, 0.975))
    good = Grade(Label.GOOD, Move.parse("r1"), Move.parse("d"), played, top, Drop(0.0625, 0.01, 0.13, 64), True)
    assert grade_sentence(state, good).startswith("Good: worse than d, win 94% (95%: 85-98%) against 100% "
                                                  "(95%: 94-100%);")
    lost = replace(played, win=0.0, interval=(0.0, 0.057))
    error = replace(good, label=Label.BLUNDER, played=lost, paired=Drop(1.0, 0.94, 1.0, 64), close=False)
    assert "win 100% (95%: 94-100%) against 0% (95%: 0-6%) after r1 (AD)" in grade_sentence(state, error)
    # exact figures are what they say
    sure = replace(error, top=replace(top, exact=True, interval=(1.0, 1.0)), played=replace(lost, exact=True,
                   interval=(0.0, 0.0)), paired=Drop(1.0, 1.0, 1.0, 120, exact=True))
    assert "win 100% against 0% after r1 (AD)" in grade_sentence(state, sure)


def test_a_drop_just_below_a_threshold_never_reads_as_the_threshold():
    """A low end of 9.996 points shown with two decimals read "10.00", a mistake's threshold, beside an
    inaccuracy: enough places are given to stay off it."""
    from tutor.narrate.review import _clear_of, _num

    assert [_num(x, _clear_of(x)) for x in (9.81, 9.996, 4.996, 12.3)] == ["9.8", "9.996", "4.996", "12"]



def test_words_for_a_game_that_is_not_over_or_on_its_last_pass():
    """A record that stops before the game's end: a card turned past and not played again was "given up: it
    was never played afterwards" (it was played 20 moves later, past the record's end). On the last of limited
    passes the waiting tip spoke of "every pass you wait", and of a waste card coming back when turning one."""
    from tutor.narrate.tags import tag_sentence
    from tutor.narrate.tips import TipId, tip

    rules = preset("osmosis")
    state = State.initial(deal_for(1, rules), rules)
    play = Candidate(Move.parse("w"), 0.41, 30.0, 64, (0.33, 0.49))
    cut = tag_sentence(state, TurnedPast(0, play, False, None, ended=False))
    assert "put it off: it was not played again before the record ends." in cut and "never" not in cut
    assert "gave it up: it was never played afterwards." in tag_sentence(state, TurnedPast(0, play, False, None))
    last = tip(TipId.WAIT_TO_OPEN, False, rules.with_options(passes=2, turn=1), last=True)
    assert "every pass you wait" not in last and "this is the last pass" in last and "as no pass follows" in last


def test_an_unfinished_game_is_not_well_played_and_one_point_is_singular(tmp_path):
    """Bridesmaids deal 1 cut at move 110 with 47 cards: "the game was not finished (well played: 40 or more)",
    a lost game's mark, beside "the game could still be won"; --thresholds 0.5,1,2: "at least 1 points"."""
    from builders import osmosis

    rules = preset("bridesmaids")
    state, moves = State.initial(deal_for(1, rules), rules), []
    while len(moves) < 110:
        legal = state.legal_moves()
        move = next((m for m in legal if m.is_play), legal[0])
        moves.append(str(move))
        state = state.apply(move)
    assert not state.over and state.cards >= 40
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps({"format": "osmosis-record/1", "variant": "bridesmaids", "deal": {"number": 1},
                               "moves": moves}))
    said = " ".join(osmosis(["review", str(cut), "--samples", "2", "--workers", "1"], tmp_path / "h").stdout.split())
    assert f"Result: {state.cards} cards on the foundations, the game was not finished." in said
    assert "well played" not in said
    greedy = tmp_path / "g30.json"
    rules = preset("osmosis")
    state, moves = State.initial(deal_for(30, rules), rules), []
    while state.legal_moves():
        legal = state.legal_moves()
        move = next((m for m in legal if m.is_play), legal[0])
        moves.append(str(move))
        state = state.apply(move)
    greedy.write_text(json.dumps({"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 30},
                                  "moves": moves}))
    text = " ".join(osmosis(["review", str(greedy), "--thresholds", "0.5,1,2", "--samples", "8", "--workers", "1"],
                            tmp_path / "h").stdout.split())
    assert "so a move called a mistake lost at least 1 point with 95% confidence." in text


def test_a_move_lost_for_certain_is_never_best_beside_one_that_is_not(run, tmp_path):
    """Deal 51 move 72: w (2C) ends the game in every consistent deal, the redeal d does not; both won none of
    the deals drawn. The review said "Best move" with best "w" while the hint at the same position says d."""
    moves = ("r2 d d d d w d d d d w d d d d d d w d d d w d d d d d d d d d d d d d d d w d w w d d w d w w d "
             "d w w w d d d d d d d w w d d d d d d d d d w w")
    path = tmp_path / "g51.json"
    path.write_text(json.dumps({"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 51},
                                "moves": moves.split()}))
    move = json.loads(run(["review", str(path), "--json"]).stdout)["moves"][71]
    hint = json.loads(run(["hint", "51", "--moves", moves.rsplit(" ", 1)[0], "--json"]).stdout)
    assert move["move"] == "w" and hint["best"] == move["best"] == "d"
    assert move["label"] == "good" and "Best move" not in move["comment"]
    assert move["comment"].startswith("Good: d (turning the waste over for a new pass) was at least as strong")


def test_a_turn_on_the_last_of_limited_passes_is_no_no_progress_block(run, tmp_path):
    """Turn 1, 3 passes, deal 45 move 107 (pass 3 of 3, 8C playable on the waste): tagged no-progress and blamed
    on the rule for a pass with no card played, where the last pass ends when the stock runs out anyway."""
    moves = ("r4 d w d d d d d d w d d d d d w d w d w d w w d w d d d d d d d d d d d d w r2 r2 r2 r2 d d w d w d "
             "d w d d w d d w d w d d d d w w d d w w d d d w d d d w d w d w r3 r3 r1 r1 r1 r1 r3 w r3 d w d w d "
             "d w d w d w w d d d d d d")
    path = tmp_path / "np45.json"
    path.write_text(json.dumps({"format": "osmosis-record/1", "variant": {"turn": 1, "passes": 3},
                                "deal": {"number": 45}, "moves": moves.split()}))
    move = json.loads(run(["review", str(path), "--json"]).stdout)["moves"][106]
    assert move["move"] == "d" and "no-progress" not in move["tags"] and "turned-past" in move["tags"]
    assert "no card played since the redeal" not in move["comment"]
    assert "Tip: Take what you need on the last pass." in move["comment"]


def test_a_move_lost_for_certain_beside_one_that_surely_wins_somewhere_says_stronger_and_the_cards_given():
    """Deal 59 move 30: a turn that blocks the game at once (7 cards) beside 5S, which won 6% and placed about
    20 cards. The comment said 5S "was at least as strong" (its win interval above 0), never named the 13
    cards given away, and dropped the too-close sentence its "close" flag asks for."""
    state = State.initial(deal_for(1, preset("osmosis")), preset("osmosis"))
    top = Candidate(Move.parse("w"), 0.0625, 20.2, 64, (0.0245, 0.15), cards_interval=(18.0, 23.0))
    played = Candidate(Move.parse("d"), 0.0, 7.0, 64, (0.0, 0.0), cards_interval=(7.0, 7.0), lost=True)
    grade = Grade(Label.GOOD, Move.parse("d"), Move.parse("w"), played, top, Drop(0.043, 0.0267, 0.0642, 512), True)
    text = grade_sentence(state, grade)
    assert text.startswith("Good: w") and " was stronger: this move loses in every deal consistent with" in text
    assert text.endswith("It also places more cards: about 20 (95%: 18-23) against 7 (the same in every deal). Too "
                         "close to call an error: the interval's low end is under the inaccuracy threshold, its high "
                         "end reaches it.")
    level = replace(grade, top=replace(top, win=0.0, interval=(0.0, 0.057), cards=8.0, cards_interval=(7.0, 9.0)),
                    paired=Drop(0.0, 0.0, 0.057, 64), close=False)
    assert " was at least as strong: " in grade_sentence(state, level)
    assert "places more cards" not in grade_sentence(state, level)
