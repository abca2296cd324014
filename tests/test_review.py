"""The post-game review: labels, tags, hindsight, accuracy and the JSON shape."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from tutor import search
from tutor.deals import deal_for
from tutor.errors import TutorError
from tutor.knowledge import observe, seen_cards
from tutor.notation import TURN, WASTE, Move, parse_moves
from tutor.record import Record
from tutor.review import Label, Thresholds, game_accuracy, hindsight, move_accuracy, review
from tutor.review.grades import accuracy_interval
from tutor.rules import preset
from tutor.state import State

SAMPLES = 4
LIMIT = search.Limit(nodes=200_000)


def _opens_row(state: State, move: Move) -> bool:
    card = state.card_of(move)
    return card is not None and card // 13 not in state.rows and state.destination(card) >= 0


def _wins(state: State, move: Move) -> bool | None:
    return search.solve(state.apply(move), LIMIT, want="win").winnable


def peek_blunder(pick) -> tuple[Record, int]:
    """A Peek game that follows the solver's winning line into pass 2 (the whole talon seen, so the
    player knows every card), then plays a move that loses for certain where another move wins.

    ``pick(state)`` names that losing move in a position, or None. Found with
    the solver, not written down: the first such position on the winning line
    of the first Peek deal that has one. Returns the record (one more move
    after the losing one) and the 1-based ply of the losing move.
    """
    rules = preset("peek")
    for number in range(1, 60):
        start = State.initial(deal_for(number, rules), rules)
        line = search.solve(start, LIMIT, want="win")
        if not line.winnable:
            continue
        state = start
        for k, move in enumerate(line.line):
            if state.pass_no >= 2 and len(state.legal_moves()) > 1:
                bad = pick(state)
                if bad is not None:
                    after = state.apply(bad)
                    tail = [after.legal_moves()[-1]] if after.legal_moves() else []
                    return Record(rules, deal_for(number, rules), list(line.line[:k]) + [bad] + tail), k + 1
            state = state.apply(move)
    raise AssertionError("no Peek deal in 1-59 has such a position")


def pick_early_start(state: State) -> Move | None:
    """A row opening that loses while turning the talon keeps the win."""
    if TURN not in state.legal_moves() or not _wins(state, TURN):
        return None
    return next((m for m in state.legal_moves() if _opens_row(state, m) and _wins(state, m) is False), None)


def _no_progress(state: State) -> bool:
    """Turning lets the pass end with no card played: the no-progress rule, its own tag, is the error then."""
    from tutor.knowledge import observe
    from tutor.talon import turning_blocks

    return not state.progress and turning_blocks(observe(state))


def pick_turned_past(state: State) -> Move | None:
    """Turning past a waste card (that opens no row) loses, while playing it keeps the win."""
    moves = state.legal_moves()
    if WASTE in moves and TURN in moves and not _opens_row(state, WASTE) and not _no_progress(state):
        if _wins(state, WASTE) and _wins(state, TURN) is False:
            return TURN
    return None


def pick_talon_shift(state: State) -> Move | None:
    """Taking a waste card (that opens no row) loses, while turning keeps the win."""
    moves = state.legal_moves()
    if WASTE in moves and TURN in moves and not _opens_row(state, WASTE):
        if _wins(state, TURN) and _wins(state, WASTE) is False:
            return WASTE
    return None


def pick_late_start(state: State) -> Move | None:
    """Turning loses, while opening a row now keeps the win."""
    moves = state.legal_moves()
    if TURN in moves and not _no_progress(state) and any(_opens_row(state, m) and _wins(state, m) for m in moves):
        if _wins(state, TURN) is False:
            return TURN
    return None


def pick_wrong_row(state: State) -> Move | None:
    """Opening the row with one suit loses, while opening it with another suit keeps the win."""
    openers = [m for m in state.legal_moves() if _opens_row(state, m)]
    if len(openers) < 2:
        return None
    verdicts = {m: _wins(state, m) for m in openers}
    if any(verdicts.values()):
        return next((m for m in openers if verdicts[m] is False), None)
    return None


def early_start_game() -> tuple[Record, int]:
    return peek_blunder(pick_early_start)


@pytest.fixture(scope="module")
def early_game():
    return early_start_game()


@pytest.fixture(scope="module")
def early_start(early_game):
    record, ply = early_game
    return record, ply, review(record, samples=SAMPLES, workers=1)


# ---- labels and thresholds -------------------------------------------------

def test_labels_are_ordered_from_best_to_blunder():
    assert Label.BEST < Label.GOOD < Label.INACCURACY < Label.MISTAKE < Label.BLUNDER
    assert [str(label) for label in Label] == ["best", "good", "inaccuracy", "mistake", "blunder"]


def test_default_thresholds_are_lichess_points():
    th = Thresholds()
    assert th.label(0) == Label.BEST
    assert th.label(0.5) == Label.BEST
    assert th.label(3) == Label.GOOD
    assert th.label(5) == Label.INACCURACY
    assert th.label(9.9) == Label.INACCURACY
    assert th.label(10) == Label.MISTAKE
    assert th.label(15) == Label.BLUNDER
    assert th.label(100) == Label.BLUNDER


def test_thresholds_parse_and_move_the_labels():
    th = Thresholds.parse("2,4,8")
    assert (th.inaccuracy, th.mistake, th.blunder) == (2, 4, 8)
    assert th.label(5) == Label.MISTAKE
    assert th.label(8) == Label.BLUNDER


@pytest.mark.parametrize("text", ["5,10", "a,b,c", "15,10,5", "5,10,200"])
def test_bad_thresholds_are_refused_with_the_expected_form(text):
    with pytest.raises(TutorError, match="5,10,15"):
        Thresholds.parse(text)


@pytest.mark.parametrize("text, said", [("-1,10,15", "threshold -1 is out of range"),
                                        ("5,10,101", "threshold 101 is out of range"),
                                        ("1e400,10,15", "threshold inf is out of range"),
                                        ("0,10,15", "threshold 0 is out of range"),
                                        ("15,10,5", "are not in order: expected inaccuracy <= mistake <= blunder")])
def test_a_bad_threshold_is_named_for_what_is_wrong_with_it(text, said):
    with pytest.raises(TutorError, match="5,10,15") as caught:
        Thresholds.parse(text)
    assert said in str(caught.value) and "the band of a best move" not in str(caught.value)


# ---- accuracy ----------------------------------------------------------------

def test_move_accuracy_is_100_for_no_drop_and_falls_with_the_drop():
    assert move_accuracy(0) == 100
    values = [move_accuracy(d) for d in (1, 5, 10, 20, 50)]
    assert values == sorted(values, reverse=True)
    assert 0 < values[-1] < 15
    assert move_accuracy(100) == 0


def test_one_big_error_pulls_the_game_accuracy_far_below_the_plain_mean():
    accs = [100.0] * 19 + [move_accuracy(60)]
    wins = [60.0] * 19 + [60.0, 0.0]
    acc = game_accuracy(wins, accs)
    assert acc < sum(accs) / len(accs) - 20
    assert game_accuracy([50.0] * 11, [100.0] * 10) == pytest.approx(100)
    assert game_accuracy([], []) == 100


def test_the_accuracy_interval_holds_the_figure_and_narrows_with_surer_drops():
    wins = [60.0] * 10 + [40.0]
    # nine moves as good as the best on 64 deals (no deal apart), one that lost 12 points (95%: 3 to 21)
    sampled = [(0.0, -5.7, 5.7)] * 9 + [(12.0, 3.0, 21.0)]
    point = game_accuracy(wins, [move_accuracy(max(0.0, e)) for e, _, _ in sampled])
    lo, hi = accuracy_interval(wins, sampled)
    assert lo < point < hi
    assert accuracy_interval(wins, sampled) == (lo, hi)  # seeded: the same review, the same interval
    # the same drops measured four times as surely: a narrower interval round the same figure
    surer = [(e, e - (e - a) / 2, e + (b - e) / 2) for e, a, b in sampled]
    lo2, hi2 = accuracy_interval(wins, surer)
    assert lo < lo2 <= point <= hi2 < hi
    # every drop exact (every consistent deal solved): one value
    exact = [(e, e, e) for e, _, _ in sampled]
    assert accuracy_interval(wins, exact) == (point, point)
    assert accuracy_interval([50.0], []) == (100.0, 100.0)


# ---- what the player saw -------------------------------------------------------

def test_seen_cards_grow_with_turns_and_cover_the_talon_from_pass_two():
    rules = preset("osmosis")
    start = State.initial(deal_for(5, rules), rules)
    seen0 = seen_cards(start)
    assert len(seen0) == 4 + 1  # four reserve tops and the base card
    after = start.apply(TURN)
    assert seen_cards(after) - seen0 == set(after.talon[:3])
    state = start
    while state.pass_no == 1:
        state = state.apply(state.legal_moves()[0])
    assert set(state.talon) <= seen_cards(state)


# ---- hindsight -----------------------------------------------------------------

def test_hindsight_finds_the_move_that_threw_the_win_away(early_game):
    record, ply = early_game
    facts = hindsight(record.states(), LIMIT)
    assert facts.winnable is True
    assert facts.lost_at_ply == ply
    assert facts.better == TURN or search.solve(record.states()[ply - 1].apply(facts.better), LIMIT).winnable
    assert facts.verdict().startswith("With hindsight (all cards known)")


def test_hindsight_of_a_lost_deal_names_the_cycle():
    rules = preset("osmosis")
    deal = deal_for(7, rules)
    state = State.initial(deal, rules)
    record = Record(rules, deal, [state.legal_moves()[-1]] * 3)
    facts = hindsight(record.states(), LIMIT)
    assert facts.winnable is False and facts.lost_at_ply is None
    assert "8H lies above 8S in pile 2" in facts.explanation_text
    assert set(facts.cycle) == {7, 20}  # 8S and 8H
    assert "could not be won from the start" in facts.verdict()


def test_hindsight_of_a_won_game_and_of_an_unfinished_winnable_one(early_game):
    record, ply = early_game
    line = search.solve(record.initial(), LIMIT).line
    won = Record(record.rules, record.deal, list(line))
    facts = hindsight(won.states(), LIMIT)
    assert (facts.winnable, facts.lost_at_ply, facts.won) == (True, None, True)
    assert facts.verdict().endswith("the game was won.")
    unfinished = Record(record.rules, record.deal, list(line[:10]))
    facts = hindsight(unfinished.states(), LIMIT)
    assert (facts.winnable, facts.lost_at_ply, facts.still_winnable) == (True, None, True)
    assert "could still be won when the record ends" in facts.verdict()


# ---- the review with the hint machinery ------------------------------------------

def test_early_start_that_throws_away_a_win_is_a_blunder_tagged_early_start(early_start):
    record, ply, rev = early_start
    move = rev.moves[ply - 1]
    assert move.move == record.moves[ply - 1]
    assert move.label >= Label.MISTAKE
    assert move.label == Label.BLUNDER
    assert "early-start" in move.tags
    assert move.win_before == pytest.approx(1.0) and move.win_after == pytest.approx(0.0)
    assert move.best != move.move and not _opens_row(record.states()[ply - 1], move.best)
    assert rev.hindsight.lost_at_ply == ply
    assert "starting rank" in move.comment and "Tip:" in move.comment
    if move.exact and move.samples == 1:  # the player had seen every card: no hindsight, the loss was in view
        assert "With hindsight" not in move.comment and "only one deal fitted what you had seen, so it was in view" in move.comment
    else:
        assert "With hindsight" in move.comment


@pytest.mark.parametrize("pick, tag", [(pick_turned_past, "turned-past"), (pick_talon_shift, "talon-shift"),
                                       (pick_late_start, "late-start"), (pick_wrong_row, "wrong-row")])
def test_each_kind_of_error_gets_its_tag_and_a_comment_with_a_tip(pick, tag):
    record, ply = peek_blunder(pick)
    rev = review(record, samples=SAMPLES, workers=1)
    move = rev.moves[ply - 1]
    assert move.label == Label.BLUNDER
    assert tag in move.tags
    assert "Tip:" in move.comment
    assert rev.hindsight.lost_at_ply == ply


def test_forced_moves_are_best_and_left_out_of_the_accuracy(early_start):
    _, _, rev = early_start
    forced = [m for m in rev.moves if m.forced]
    assert forced, "a Peek game of this length has forced turns"
    assert all(m.label == Label.BEST and not m.graded and m.accuracy is None for m in forced)
    assert 0 <= rev.accuracy < 100  # the blunder counts


def test_review_json_has_the_spec_fields(early_start):
    record, ply, rev = early_start
    data = rev.to_json()
    assert set(data) >= {"moves", "accuracy", "hindsight", "result"}
    assert [m["ply"] for m in data["moves"]] == list(range(1, len(record.moves) + 1))
    for m in data["moves"]:
        assert set(m) >= {"ply", "move", "best", "win_before", "win_after", "label", "tags", "comment"}
        assert m["label"] in {"best", "good", "inaccuracy", "mistake", "blunder"}
        assert 0 <= m["win_after"] <= m["win_before"] + 1e-9 <= 1 + 1e-9
        assert Move.parse(m["move"]) and Move.parse(m["best"])
        assert isinstance(m["tags"], list) and isinstance(m["comment"], str) and m["comment"]
    assert data["hindsight"] == {**data["hindsight"], "winnable": True, "lost_at_ply": ply}
    assert data["result"] == record.final_result()
    assert 0 <= data["accuracy"] <= 100
    assert data["counts"]["blunder"] >= 1
    # the report's counts: graded moves by label, forced, free and decided apart, adding up to every move
    graded = data["graded_counts"]
    assert sum(graded[str(label)] for label in Label) == data["graded"]
    assert data["graded"] + graded["forced"] + graded["free"] + graded["decided"] == len(data["moves"])
    assert graded["blunder"] == data["counts"]["blunder"]
    assert data["counts"]["best"] == graded["best"] + graded["forced"] + graded["free"] + graded["decided"]


@pytest.mark.parametrize("variant, number, length", [("peek", 3, 45), ("single", 6, 60), ("osmosis", 6, 20)])
def test_a_game_that_follows_the_tutors_hints_has_no_mistake_or_blunder(variant, number, length):
    from tutor.hints import hint
    from tutor.knowledge import observe

    rules = preset(variant)
    deal = deal_for(number, rules)
    state = State.initial(deal, rules)
    moves = []
    while not state.over and len(moves) < length:
        move = hint(observe(state), samples=SAMPLES).best
        moves.append(move)
        state = state.apply(move)
    rev = review(Record(rules, deal, moves), samples=SAMPLES, workers=1)
    assert rev.graded >= 4  # the rest: forced, free, or in a position already won for certain
    assert max(m.label for m in rev.moves) < Label.MISTAKE
    assert all(m.label == Label.BEST and m.best == m.move for m in rev.moves if m.graded)


def test_a_lost_from_start_review_says_so_and_names_the_cycle():
    rules = preset("osmosis")
    deal = deal_for(7, rules)
    state = State.initial(deal, rules)
    moves = []
    while not state.over and len(moves) < 20:
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    rev = review(Record(rules, deal, moves), samples=SAMPLES, workers=1)
    assert rev.hindsight.winnable is False and rev.hindsight.lost_at_ply is None
    data = rev.to_json()
    assert data["hindsight"]["winnable"] is False
    assert set(data["hindsight"]["cycle"]) == {"8S", "8H"}
    assert "8H lies above 8S in pile 2" in rev.hindsight.verdict()


def test_luck_is_reported_apart_from_the_players_errors(early_start):
    _, _, rev = early_start
    for m in rev.moves:
        if m.luck is not None and abs(m.luck) * 100 >= rev.thresholds.luck:
            assert "Luck, not a choice" in m.comment
    for c in rev.critical:
        assert c.kind in ("error", "luck")
        if c.kind == "error":
            assert rev.moves[c.ply - 1].label >= Label.INACCURACY


def test_annotated_record_replays_the_same_game(early_start):
    record, ply, rev = early_start
    annotated = rev.annotated()
    assert annotated.moves == record.moves
    assert annotated.replay() == record.replay()
    assert annotated.annotations[ply - 1]["label"] == "blunder"
    assert "early-start" in annotated.annotations[ply - 1]["tags"]
    assert Record.from_json(annotated.to_json()).annotations == annotated.annotations


def test_two_worker_processes_give_the_same_review(early_start):
    record, _, rev = early_start
    assert rev.graded >= 8
    assert review(record, samples=SAMPLES, workers=2).to_json() == rev.to_json()


def test_grades_do_not_depend_on_cards_the_player_never_saw():
    from tutor.deals import Deal

    rules = preset("osmosis")
    deal = deal_for(11, rules)
    state = State.initial(deal, rules)
    moves = []
    while len(moves) < 12:
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    unseen = sorted(set(range(52)) - seen_cards(state))
    a, b = unseen[0], unseen[-1]
    swap = {a: b, b: a}
    other = Deal(tuple(tuple(swap.get(c, c) for c in pile) for pile in deal.reserves), deal.base,
                 tuple(swap.get(c, c) for c in deal.talon))
    first = review(Record(rules, deal, moves), samples=SAMPLES, workers=1)
    second = review(Record(rules, other, moves), samples=SAMPLES, workers=1)
    assert first.graded >= 3

    def grades(rev):
        return [(m.best, m.win_before, m.win_after, m.label, m.luck) for m in rev.moves]

    assert grades(first) == grades(second)


def test_only_move_marks_the_moves_that_alone_kept_the_win_as_hindsight():
    from tutor.graph import winning_facts

    rules = preset("peek")
    for number in range(1, 30):
        start = State.initial(deal_for(number, rules), rules)
        line = search.solve(start, LIMIT, want="win")
        if line.winnable:
            break
    moves = list(line.line[:20])
    rev = review(Record(rules, deal_for(number, rules), moves), samples=2, workers=1)
    states = rev.record.states()
    for m in rev.moves:
        assert rev.to_json()["moves"][m.ply - 1]["only_move"] is m.only_move
        facts = winning_facts(states[m.ply - 1], LIMIT)
        assert m.only_move == (facts.only_move == m.move)
        assert ("only move that kept the win" in m.comment) == m.only_move
        if m.only_move and not (m.exact and m.samples == 1):  # one consistent deal: the player knew every card
            assert "With hindsight (all cards known), it was the only move" in m.comment


def _peek3_before_the_block() -> tuple[Record, State]:
    """Peek deal 3 after 24 greedy moves (pass 2, nothing played since the redeal): TD opens row 2, and
    turning on shows no card that can be played before the stock runs out."""
    rules = preset("peek")
    state, moves = State.initial(deal_for(3, rules), rules), []
    for _ in range(24):
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    return Record(rules, deal_for(3, rules), moves), state


def test_a_turn_that_lets_the_pass_end_with_no_play_is_tagged_no_progress_not_a_late_start():
    from tutor.knowledge import observe
    from tutor.talon import turning_blocks

    record, state = _peek3_before_the_block()
    assert not state.progress and state.stock and not state.apply(TURN).blocked  # not at once: later
    assert turning_blocks(observe(state))
    game = Record(record.rules, record.deal, [*record.moves, TURN])
    m = review(game, samples=6, workers=1).moves[-1]
    assert m.label == Label.BLUNDER and m.tags == ("no-progress",)
    # turning three at a time only each group's top shows: a playable card under it never comes to be played
    assert ("none of the cards still to turn (all of them known) that would show on top of the waste could be "
            "played (turning 3 at a time, the cards under each top wait for it to be played)") in m.comment
    assert "Play a card every pass" in m.comment


def test_the_no_progress_words_say_which_cards_show_for_the_turn():
    """Greedy deal 5 move 20 read "none of the talon's cards ... could be played" with 7H, 5S, KS, TC, 6C, JS
    and 9S in the stock, all playable by the rules: they were under the tops of their groups of three."""
    from tutor.narrate.play import none_shown

    assert none_shown(1) == "none of the cards still to turn (all of them known) could be played"
    three = none_shown(3, "none of the talon cards", "you had seen them all")
    assert three.startswith("none of the talon cards (you had seen them all) that would show on top of the waste")
    assert "turning 3 at a time" in three


def test_the_waiting_tip_speaks_of_what_the_variant_has():
    """Bridesmaids has no reserve, and turning one card at a time every talon card shows again each pass: the
    tip told a Bridesmaids player of reserve piles and a Single player that a waste card may not come back."""
    from tutor.narrate.tips import TipId, tip
    from tutor.rules import preset as _preset

    osmosis, single = tip(TipId.WAIT_TO_OPEN, rules=_preset("osmosis")), tip(TipId.WAIT_TO_OPEN, rules=_preset("single"))
    bridesmaids = tip(TipId.WAIT_TO_OPEN, rules=_preset("bridesmaids"))
    assert "reserve pile" in osmosis and "may not come back, as the groups of 3" in osmosis
    assert "reserve pile" in single and "come back" not in single
    assert "reserve" not in bridesmaids and "may not come back, as the groups of 3" in bridesmaids
    assert "(one on the waste may not come back);" in tip(TipId.WAIT_TO_OPEN)  # no variant given: as written
    # the turn-past tip spoke of groups of three to a player turning one card at a time
    turn_one = tip(TipId.TURN_PAST, rules=_preset("single"))
    assert "group of three" not in turn_one and "every card shows on top again in each pass" in turn_one
    assert "group of three" in tip(TipId.TURN_PAST, rules=_preset("limited")) == tip(TipId.TURN_PAST)


def test_the_coach_meanings_claim_no_outcome_the_tag_does_not_check_and_no_minus_zero():
    """The coach said a waste play "helped nothing" where it had made a card playable: the talon-shift tag
    never checks that, and a reserve dig is judged on the odds of the card below, not on what turned up."""
    from tutor.narrate.figures import signed as _signed
    from tutor.narrate.tags import TAGS

    assert not any("helped nothing" in meaning for _, meaning in TAGS.values())
    assert [_signed(x) for x in (-0.3, 0.2, -25.4, 12.6)] == ["0", "0", "-25", "+13"]


def test_the_hint_says_the_no_progress_rule_decides_not_a_bet_on_the_talon():
    from tutor.hints import hint
    from tutor.knowledge import observe

    _, state = _peek3_before_the_block()
    h = hint(observe(state))
    assert h.best == WASTE and "no-progress" in [str(t) for t in h.tips]
    assert "turning on would end the pass with no play and block the game" in h.reason
    assert "pays only if the talon brings" not in h.reason


def _greedy_record(variant: str, number: int) -> Record:
    rules = preset(variant)
    state, moves = State.initial(deal_for(number, rules), rules), []
    while state.legal_moves():
        moves.append(state.legal_moves()[0])
        state = state.apply(moves[-1])
    return Record(rules, deal_for(number, rules), moves)


def test_a_move_graded_best_names_itself_and_gives_its_own_chance_before():
    """Greedy deal 17, move 8: w graded best (d ahead by one deal of 64, within the noise) gave "best": "w" and
    win_before 48.4% (d's) beside win_after 46.9%, so win_before - win_after was no drop of the move named best."""
    r = _greedy_record("osmosis", 17)
    rev = review(Record(r.rules, r.deal, r.moves[:9]), samples=64, workers=1)
    move = rev.moves[7]
    assert move.graded and move.label == Label.BEST and str(move.move) == "w"
    others = [c for c in move.candidates if c.move != move.move]
    assert any(c.win > move.win_after for c in others)  # another move ahead on the samples: the case
    for m in rev.moves:
        if m.graded and m.label == Label.BEST:
            assert m.best == m.move and m.win_before == m.win_after
            assert m.win_before_interval == m.win_after_interval


def test_a_move_in_a_position_already_lost_for_certain_is_not_graded():
    """Peek deal 3, played greedily: from move 30 on no legal move wins in any consistent deal (all solved).

    Such a move chose nothing that mattered: it is left out of the accuracy like a forced move, its comment
    says why, and it names a move that places more cards when there is one."""
    from tutor.cli.review_report import counts_line

    rev = review(_greedy_record("peek", 3), samples=6, workers=1)
    states = list(rev.states)
    decided = [m for m in rev.moves if m.decided]
    assert len(decided) >= 10
    for m in decided:
        assert not m.graded and m.accuracy is None and m.label == Label.BEST and m.exact
        assert len(states[m.ply - 1].legal_moves()) > 1
        assert {c.win for c in m.candidates} == {0.0}  # decided means lost: a won position stays graded
        assert all(c.exact for c in m.candidates)
        # each 0% is certain, not a share of the samples: "lost" as in the hint (it read 64 samples, [0, 0])
        assert all(c.lost and c.to_json()["lost"] is True for c in m.candidates)
        assert m.to_json()["decided"] is True and m.to_json()["graded"] is False
        assert m.comment.startswith("No choice here could save the game: no legal move wins in")
    named = [m for m in decided if m.facts.grade.more is not None]
    assert named
    for m in named:
        more, played = m.facts.grade.more, m.facts.grade.played
        assert f"{more.move}" in m.comment and "places more cards" in m.comment
        assert more.cards > played.cards and more.cards == max(c.cards for c in m.candidates)
        # the JSON's best is the move the comment names (it said the played move beside "d places more cards")
        assert m.best == more.move and m.to_json()["best"] == str(more.move)
    assert all(m.best == m.move for m in decided if m.facts.grade.more is None)
    graded = [m for m in rev.moves if m.graded]
    assert rev.graded == len(graded) == len(rev.moves) - len(decided) - sum(not m.graded and not m.decided
                                                                            for m in rev.moves)
    wins = [m.win_before * 100 for m in graded] + [graded[-1].win_after * 100]
    assert rev.accuracy == game_accuracy(wins, [m.accuracy for m in graded])
    assert rev.accuracy_interval is not None
    assert rev.accuracy_interval[0] <= rev.accuracy <= rev.accuracy_interval[1]
    assert rev.to_json()["accuracy_interval"] == [round(x, 1) for x in rev.accuracy_interval]
    assert rev.graded_counts["decided"] == len(decided)
    assert f"{len(decided)} already decided moves not graded" in counts_line(rev).plain


@pytest.mark.parametrize("variant", ["osmosis", "peek"])
def test_a_tag_names_the_graded_better_move_when_the_two_tie(variant):
    """Greedy deal 3, move 27 (TH opens row 3): turning and w (6C) tie as the best wait. The grade says d was
    better, so the tag's "holding it back and ..." must say d too, not w with the same figure."""
    rev = review(_greedy_record(variant, 3), samples=6, workers=1)
    named = 0
    for m in rev.moves:
        grade = m.facts.grade if m.facts is not None else None
        for t in (m.facts.tags if m.facts is not None else ()):
            other = next((getattr(t, f) for f in ("wait", "other", "open", "play", "turn") if hasattr(t, f)), None)
            if other is not None and other.win == grade.top.win:
                named += 1
                assert other.move == grade.best, m.comment
    assert named  # the tie of move 27 is there, so the check above is tested
    m = rev.moves[26]
    # no reserve-dig: TH opens hearts' row, and 9H, a talon card seen in pass 1, can then go up
    assert m.tags == ("early-start",)
    assert "holding it back and turning the talon kept" in m.comment
    # with hindsight both d and w kept the win: the header names the same move as the grade, not the solver's w
    assert rev.hindsight.lost_at_ply == 27 and rev.hindsight.better == m.best == TURN
    assert "(d instead would have kept it)" in rev.hindsight.verdict()


def test_a_position_lost_in_every_consistent_deal_is_found_by_solving_them_all():
    """Osmosis deal 3, played greedily: from move 46 six cards are unseen (720 deals), more than the review
    solves for its figures, and every sampled deal is lost whatever the move. Solving all 720 for the win
    shows the game is lost: those moves are decided (12 of 25 graded moves scored 100 before), and a forced
    move among them says its chance is exact."""
    rev = review(_greedy_record("osmosis", 3), samples=6, workers=1)
    states = list(rev.states)
    decided = [m for m in rev.moves if m.decided]
    assert len(decided) >= 10 and all(m.ply >= 46 for m in decided)
    for m in decided:
        state = states[m.ply - 1]
        assert observe(state).consistent_deals() == m.samples == 720 and m.exact
        assert "no legal move wins in any of the 720 deals consistent with what you had seen (all solved)" in m.comment
        # the engine agrees: every legal move loses in every consistent deal
        for deal in observe(state).every_state()[::97]:
            for move in state.legal_moves():
                assert search.solve(deal.apply(move), search.Limit(nodes=200_000), want="win").winnable is False
    forced = [m for m in rev.moves if m.forced and m.ply > 46]
    # each says its chance is exact, or certain by the no-progress rule (no deal needs solving for that)
    assert forced and all("(exact, 720 deals)" in m.comment or m.facts.grade.no_progress for m in forced)
    assert any("(exact, 720 deals)" in m.comment for m in forced)


def test_a_peek_deal_whose_face_up_reserve_shows_the_loss_is_not_rated_and_no_hindsight():
    """Peek deal 31: two cycles of needs lie face up in the reserve from the first move. Every move is lost
    whatever the player does, so nothing is graded, the accuracy rates nothing, and the verdict is the
    player's own sight, not hindsight."""
    from tutor.cli.review_report import render_review

    rev = review(_greedy_record("peek", 31), samples=6, workers=1)
    assert rev.hindsight.winnable is False and rev.hindsight.seen and rev.graded == 0 and not rev.rated
    first = rev.moves[0]
    assert first.decided and first.facts.grade.blocked
    assert first.comment.startswith("No choice here could save the game: the reserve piles, every card of them "
                                    "known, leave no order")
    assert rev.hindsight.verdict().startswith("The deal could not be won from the start, as the reserve piles")
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(render_review(rev, False, width=100))
    text = " ".join(console.file.getvalue().split())
    assert "Accuracy: not rated: no move of this game was graded" in text and "100.0 / 100" not in text
    # a position where every move keeps the win is graded: only a lost one goes ungraded as decided
    assert "in a position already lost whatever the move" in text and "won or lost" not in text
    assert rev.to_json()["rated"] is False and review(_greedy_record("peek", 3), samples=6,
                                                       workers=1).to_json()["rated"] is True
    assert "With hindsight" not in text.split("Win chance")[0]
    # nothing graded: no claim about "every graded move"
    assert "No move was graded (each was forced, a free play or already decided), so none is labelled." in text
    assert "every graded move kept" not in text


def test_in_a_lost_position_a_sampled_cards_gap_is_named_only_when_it_is_sure():
    """Osmosis deal 3, played greedily: from move 46 the game is lost in every one of the 720 consistent
    deals, but the cards are scored on the sampled deals only. A move that places more cards is named with
    its paired gap over those deals, and the report lists it; the candidates' win chances are the decided
    ones (no sampling interval around a result known in every deal)."""
    from tutor.cli.review_report import fewer_cards_block

    rev = review(_greedy_record("osmosis", 3), samples=6, workers=1)
    decided = [m for m in rev.moves if m.decided]
    assert decided and all(c.interval == (0.0, 0.0) for m in decided for c in m.candidates)
    named = [m for m in decided if m.facts.grade.more is not None]
    assert named  # move 51: turning places 2 more cards than w (6D) in each sampled deal
    listed = "\n".join(t.plain for t in fewer_cards_block(rev)[2:])
    for m in named:
        fact = m.facts.grade
        lo, hi = fact.gap
        assert 0 < lo <= fact.more.cards - fact.played.cards <= hi
        if hi - lo < 0.05:
            assert f"more in each of the {fact.more.samples} sampled deals, the same for both moves" in m.comment
        else:
            assert f"on average over {fact.more.samples} sampled deals, the same for both moves" in m.comment
        assert f"Move {m.ply}, " in listed
    assert len(listed.split("\nMove ")) == len(named)


def test_a_cards_gap_is_paired_over_the_same_deals():
    from tutor.grading import _cards_gap
    from tutor.sampling import Outcomes

    a, b = TURN, WASTE
    scores = Outcomes([a, b])
    for cards_a, cards_b in [(30, 28), (31, 31), (29, 25), (33, 30)]:
        scores.add({a: (False, cards_a), b: (False, cards_b)})
    most, mean, lo, hi = _cards_gap(scores, b, exact=False)
    assert most == a and mean == 2.25 and lo < mean < hi
    assert lo < 0  # four deals, one tie: the gap is not sure, so the review names no better move
    assert _cards_gap(scores, a, exact=False) is None  # the played move places the most
    assert _cards_gap(scores, b, exact=True) == (a, 2.25, 2.25, 2.25)


def test_a_decided_move_names_no_better_one_when_the_cards_gap_may_be_none():
    from tutor.estimate import Estimate
    from tutor.grading import PlyScore
    from tutor.review.analysis import _decided
    from tutor.review.values import Hindsight

    rules = preset("osmosis")
    state = State.initial(deal_for(3, rules), rules)
    legal = state.legal_moves()
    assert len(legal) == 2
    est = {m: Estimate(0.0, 0.0, 0.06, c, c - 3, c + 3, 6) for m, c in zip(legal, (30.0, 28.0))}
    facts = Hindsight(False, None)
    for gap, named in [((legal[0], 2.0, -0.5, 4.5), False), ((legal[0], 2.0, 1.0, 3.0), True)]:
        ps = PlyScore(0, True, False, 6, legal[0], est, decided=True, decided_deals=720, cards_gap=gap)
        m = _decided(0, state, legal[1], ps, facts)
        assert (m.facts.grade.more is not None) == named


def test_a_best_move_that_surely_places_fewer_cards_where_no_move_wins_is_listed():
    """Osmosis deal 2, greedy, move 33: no move wins in any of the 64 sampled deals, so w (AD) keeps its grade,
    but turning places about 9 cards more, the intervals far apart: the report's list names it, as play's
    --tutor question does."""
    from tutor.cli.review_report import fewer_cards_block
    from tutor.review.facts import Grade

    rev = review(_greedy_record("osmosis", 2), workers=1)
    m = rev.moves[32]
    grade = m.facts.grade
    assert isinstance(grade, Grade) and m.label == Label.BEST and grade.top.move == TURN
    assert grade.top.win == grade.played.win == 0 and grade.played.cards_interval[1] < grade.top.cards_interval[0]
    listed = [t.plain for t in fewer_cards_block(rev)]
    assert listed[1].startswith("Fewer cards placed where no move won in any deal scored")
    assert any(line.startswith("Move 33, w AD: d (turning the talon) places more cards: about ") and
               "none won by any move" in line for line in listed)


# ---- the second advice audit ------------------------------------------------

def test_a_row_opened_into_a_trap_the_player_could_see_is_no_hindsight():
    """Peek deal 3, greedy move 27 (r3 TH): every card of the cycle it makes (JH above 8H above ... 8S) was face
    up, and the hint said the order could not be completed; the review says the player could see it, with the
    reserve tip, not the waiting bet, and not under the hindsight words."""
    from tutor.narrate.review import HINDSIGHT
    from tutor.narrate.tips import TipId, tip

    rev = review(_greedy_record("peek", 3), samples=6, workers=1)
    m = rev.moves[26]
    assert str(m.move) == "r3" and m.facts.cycle is not None and m.facts.cycle.seen
    assert not m.facts.uses_hindsight or m.facts.threw_away is not None
    assert HINDSIGHT not in m.comment, m.comment
    assert "as the reserve cards you could see before the move showed: JH lies above 8H in pile 2" in m.comment
    assert tip(TipId.READ_RESERVE) in m.comment and tip(TipId.WAIT_TO_OPEN) not in m.comment
    assert "every pass you wait is a bet" not in m.comment


def test_a_cycle_with_a_face_down_card_is_hindsight():
    """Osmosis deal 3, greedy move 27 (the same TH): the cycle's 8H and 8S lie face down in pile 2, so the
    player could not see it."""
    from tutor.review.full_knowledge import new_cycle
    from tutor.review.tags import cycle_seen

    record = _greedy_record("osmosis", 3)
    states = record.states()
    for variant, seen in (("osmosis", False), ("peek", True)):
        rec = _greedy_record(variant, 3)
        state = rec.states()[26]
        why = new_cycle(state, rec.moves[26])
        assert why is not None and cycle_seen(state, why) is seen
    assert states  # the record replays


def test_a_position_every_move_keeps_won_is_graded_not_decided():
    """Peek deal 17, greedy: every move of plies 24-55 kept the win in every consistent deal, and move 56 threw
    it away. Those moves are graded best (a later move could still lose), never "already decided"."""
    rev = review(_greedy_record("peek", 17), samples=6, workers=1)
    lost_at = rev.hindsight.lost_at_ply
    assert lost_at == 56
    assert not any(m.decided for m in rev.moves if m.ply < lost_at)
    for m in rev.moves:
        if m.decided:
            assert m.win_after == 0.0 and "could lose the win" not in m.comment
    kept = [m for m in rev.moves[23:55] if m.graded]
    assert kept and all(m.label == Label.BEST and m.drop == 0 for m in kept)


def test_the_last_forced_move_says_the_figure_its_json_gives():
    """Greedy deal 5 ends blocked at move 30: the text and the JSON say the same certain 0%, no sampled interval;
    so do the forced moves after the redeal, where nothing could be played in the pass (the no-progress rule)."""
    rev = review(_greedy_record("osmosis", 5), samples=6, workers=1)
    data = rev.to_json()["moves"]
    last = data[-1]
    assert last["win_before_interval"] == last["win_after_interval"] == last["interval"] == [0.0, 0.0]
    assert "95%" not in last["comment"] and "certain" in last["comment"]
    for m in data[19:]:  # the redeal (move 20) and every turn after it
        assert m["forced"] and m["interval"] == [0.0, 0.0] and "95%" not in m["comment"], m
        assert "win 0%, certain from what you had seen" in m["comment"]
        assert "8 cards on the foundations" in m["comment"]


def test_the_early_start_tag_stands_on_the_labels_paired_drop():
    """Greedy deal 5, move 4 (w 3H opens row 3): on the 64 shared deals turning wins only 4.7 points more, but the
    label stands on the paired drop over 512 deals (10 points): the tag must use that figure too."""
    from tutor.estimate import Drop
    from tutor.review.facts import Candidate, EarlyStart
    from tutor.review.tags import find_tags

    record = _greedy_record("osmosis", 5)
    state, move = record.states()[3], record.moves[3]
    assert move == WASTE and state.card_of(move) is not None
    played = Candidate(WASTE, 0.47, 20.0, 64, (0.35, 0.59))
    top = Candidate(TURN, 0.517, 21.0, 64, (0.40, 0.63))
    by_move = {c.move: c for c in (played, top)}
    by_move.update({m: Candidate(m, 0.4, 19.0, 64) for m in state.legal_moves() if m not in by_move})
    paired = Drop(0.10, 0.08, 0.13, 512)
    th = Thresholds()
    tags, _ = find_tags(state, move, by_move, played, top, th, {}, paired)
    assert any(isinstance(t, EarlyStart) and t.wait.move == TURN for t in tags)
    tags, _ = find_tags(state, move, by_move, played, top, th, {}, None)  # the unpaired gap alone: no tag
    assert not any(isinstance(t, EarlyStart) for t in tags)


def test_a_card_turned_past_at_a_cost_and_played_later_is_tagged_with_the_move_that_played_it():
    # deal 10: r2, then turns; at move 22 the turn passes 4C (row 1's suit, clubs), played only at move 36
    moves = "r2 " + "d " * 25 + "r4 " + "d " * 8 + "w"
    rules = preset("osmosis")
    record = Record(rules, deal_for(10, rules), parse_moves(moves))
    rev = review(record, samples=32, workers=1)
    move = rev.moves[21]
    assert str(move.move) == "d" and str(move.best) == "w" and move.label >= Label.MISTAKE
    assert "turned-past" in move.tags
    assert "Turning past 4C on the waste" in move.comment and "put it off until move 36" in move.comment


def test_a_tag_needs_an_inaccuracy_sized_drop_not_a_mistake_sized_one():
    """Deal 1 after ``d d d d d w d w d``: ``w`` opens row 2 with 2C, ``d`` waits. 7 points below the
    wait is an early start (an inaccuracy is enough: 5 points); 4 points is within the noise."""
    from tutor.review.facts import Candidate
    from tutor.review.grades import DEFAULT_THRESHOLDS
    from tutor.review.tags import find_tags

    rules = preset("osmosis")
    state = State.initial(deal_for(1, rules), rules).play(parse_moves("d d d d d w d w d"))
    w, d = Move.parse("w"), Move.parse("d")
    played = Candidate(w, 0.30, 30.0, 100)
    for wait, expected in ((0.37, ["EarlyStart"]), (0.34, [])):
        top = Candidate(d, wait, 31.0, 100)
        tags, _ = find_tags(state, w, {w: played, d: top}, played, top, DEFAULT_THRESHOLDS, {}, None)
        assert [type(t).__name__ for t in tags] == expected, wait


def test_luck_runs_from_the_move_played_to_the_best_move_of_the_next_position():
    """Peek deal 33: the luck after move 11 read '72% -> 100%' while move 12's best move had 88% on the same
    deals: the after side was each deal's best over all the moves (a win no one move gets, strategy fusion),
    not the figure the review gives the next position. Where both positions' figures rest on the shared deals,
    a luck is the next position's best figure less the move played's."""
    rules = preset("peek")
    moves = parse_moves("r2 d d d d d w w d d d w d")
    rev = review(Record(rules=rules, deal=deal_for(33, rules), moves=moves))
    compared = 0
    for here, nxt in zip(rev.moves, rev.moves[1:]):
        if here.luck is None or here.shared or nxt.shared or here.samples != nxt.samples:
            continue
        assert here.luck == pytest.approx(nxt.win_before - here.win_after, abs=1e-9), here.ply
        compared += 1
    assert compared >= 1


def test_a_move_lost_for_certain_is_said_to_be_certain_not_a_sampled_0_to_0():
    """Deal 5 played greedily, move 19 (7C from the waste, after which no card can be played): 'Best move: win
    0% (95%: 0-0%, 64 deals)', an interval no 64 samples give, with no flag; the hint marks that move lost."""
    rules = preset("osmosis")
    moves = parse_moves("r3 r4 d w d w d w d d d d d d d d d w w")
    rev = review(Record(rules=rules, deal=deal_for(5, rules), moves=moves))
    last = rev.moves[18]
    # beside d, which is not lost for certain, it is not the best move (the hint says d): at most level with it
    assert str(last.move) == "w" and last.label == Label.GOOD and str(last.best) == "d"
    played = next(c for c in last.candidates if c.move == last.move)
    assert played.lost and played.to_json()["lost"] is True
    assert last.comment.startswith("Good: d (turning the waste over for a new pass) was at least as strong: this "
                                   "move loses in every deal consistent with what you had seen (win 0%, certain)")
    assert "0-0%" not in last.comment and "while d won none of the" in last.comment
    # a move not lost for certain keeps its sampled interval and no flag
    other = next(c for c in last.candidates if c.move != last.move)
    assert not other.lost and "lost" not in other.to_json() and other.interval[1] > 0


def test_a_drill_gives_the_tip_the_review_gave_for_that_move():
    """Peek deal 3, move 27 (r3 TH opens row 3 into a trap of the face-up reserve): the review's tip is to read
    the reserve piles, "no waiting will help"; the drill of that move said waiting is a bet on the talon, to a
    player who had seen all 52 cards."""
    from tutor.cli.drill import tip_for
    from tutor.narrate.tips import TipId, tip

    record = _greedy_record("peek", 3)
    states = record.states()
    state, move = states[26], record.moves[26]
    assert str(move) == "r3"
    rev_tip = review(record, samples=6, workers=1).moves[26].comment
    assert "Tip: " + tip(TipId.READ_RESERVE) in rev_tip
    assert tip_for(("early-start",), state, move) == tip(TipId.READ_RESERVE)
    assert "bet" not in tip_for(("early-start",), state, move)
    # where the player knew every card the waiting tip has its words for that: no bet on the talon
    known = tip(TipId.WAIT_TO_OPEN, True, record.rules)
    assert known != tip(TipId.WAIT_TO_OPEN, False, record.rules) and "bet" not in known
    assert tip_for(("early-start",), state, TURN) == known  # a move that opens no row: no trap to read


def test_a_drill_reads_a_trap_as_seen_where_only_one_deal_fits(monkeypatch):
    """The review counts a cycle as seen when one consistent deal is left (a card deduced, not face up, is
    known too); the drill asked only whether each of its cards lay face up, so there it gave the waiting tip."""
    from tutor.cli.drill import tip_for
    from tutor.narrate.tips import TipId, tip
    from tutor.review import tags

    record = _greedy_record("peek", 3)
    state, move = record.states()[26], record.moves[26]
    assert observe(state).consistent_deals() == 1
    monkeypatch.setattr(tags, "cycle_seen", lambda *args: False)  # as where a card of the cycle was deduced
    assert tip_for(("early-start",), state, move) == tip(TipId.READ_RESERVE)


def test_luck_on_one_sampled_deal_is_not_called_out():
    """Single-card deal 22, move 84, --samples 1: "luck: 4D turned up (+40 points, 95%: 0 to +80)", the
    Wilson half-width of 0 of 1 deal (0-79%) put around the estimate, where the swing could be -39 to +40."""
    moves = ("r4 d d d d d d d d d d d d w d d d d d w w w r2 d w d d d d d d d d w d d d w d d d d d d d d d d d d d "
             "w d w d w d w d d d w d r4 d w r4 d d w w r3 d r3 d d d d d d d w w r1 d d").split()
    rules = preset("single")
    rev = review(Record(rules, deal_for(22, rules), moves), samples=1, workers=1)
    assert all(m.kind != "luck" for m in rev.critical), [m.text for m in rev.critical]


def test_a_moves_luck_carries_the_deals_it_rests_on_not_the_labels():
    """Osmosis deal 3 (the greedy line), move 27: a blunder whose label drew 320 deals, and cards turned up after
    it; its luck (+22 points, 95%: +10 to +34) rests on the 64 shared deals, as the critical moment said, but the
    move's JSON gave luck and its interval beside "samples": 320 alone."""
    from tutor.review.values import MoveReview

    move = MoveReview(27, WASTE, TURN, 0.5, 0.2, Label.BLUNDER, (), "", samples=320, luck=0.2188,
                      luck_interval=(0.1024, 0.3383), seen=(0,), luck_samples=(64, 64))
    data = move.to_json()
    assert (data["samples"], data["luck_samples"]) == (320, 64) and "luck_samples_after" not in data
    exact_after = MoveReview(17, WASTE, TURN, 0.5, 0.5, Label.BEST, (), "", samples=6, luck=0.67,
                             luck_interval=(0.67, 0.67), seen=(0,), luck_samples=(6, 1)).to_json()
    assert (exact_after["luck_samples"], exact_after["luck_samples_after"]) == (6, 1)
    assert "luck_samples" not in MoveReview(3, WASTE, TURN, 0.5, 0.5, Label.BEST, (), "").to_json()
