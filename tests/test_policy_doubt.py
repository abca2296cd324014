"""The tutor as a player draws more samples while its best move is in doubt (issue 14's loss triage)."""

from __future__ import annotations

from tutor.certainty import opens_row
from tutor.deals import deal_for
from tutor.hints import FIRST_BATCH, POLICY_SAMPLES, best_in_doubt, choose, leader, score_moves
from tutor.knowledge import observe
from tutor.notation import TURN, WASTE, parse_moves
from tutor.rules import PRESETS
from tutor.sampling import Outcomes
from tutor.state import State

OSMOSIS = PRESETS["osmosis"]
GROWN = 256
"""The larger budget measured in the strength runs (the policy keeps :data:`POLICY_SAMPLES`)."""


def position(deal: int, moves: str) -> State:
    state = State.initial(deal_for(deal, OSMOSIS), OSMOSIS)
    for m in parse_moves(moves):
        state = state.apply(m)
    return state


def outcomes(a: list[bool], b: list[bool]) -> Outcomes:
    scores = Outcomes([WASTE, TURN])
    for x, y in zip(a, b):
        scores.add({WASTE: (x, 52 if x else 40), TURN: (y, 52 if y else 40)})
    return scores


def scored32(w_won: int, d_won: int, w_cards: int, d_cards: int) -> Outcomes:
    """32 samples: the first ``w_won`` won by the waste play, the first ``d_won`` by the turn; else these cards."""
    scores = Outcomes([WASTE, TURN])
    for i in range(32):
        scores.add({WASTE: (i < w_won, 52 if i < w_won else w_cards),
                    TURN: (i < d_won, 52 if i < d_won else d_cards)})
    return scores


def test_the_best_move_is_in_doubt_while_another_could_gain_a_band():
    # 64 samples: w wins 40, d 12 of them, always where w does too: d cannot gain 5 points on w.
    clear = outcomes([True] * 40 + [False] * 24, [True] * 12 + [False] * 52)
    assert not best_in_doubt(clear, WASTE)
    assert best_in_doubt(clear, TURN)  # the wrong leader is in doubt
    # 32 samples, 9 discordant each way but one: d might be 5 points better than w.
    close = outcomes([True] * 9 + [False] * 8 + [True] * 10 + [False] * 5,
                     [False] * 9 + [True] * 8 + [True] * 10 + [False] * 5)
    assert best_in_doubt(close, WASTE) and best_in_doubt(close, TURN)


def test_the_policy_grows_its_samples_on_a_close_call_and_stops_on_a_clear_one():
    assert POLICY_SAMPLES == FIRST_BATCH  # the policy's own budget never grows (256 measured no stronger)
    # Deal 62, move 3 (pass 1, 41 unseen cards): 32 samples put r1 and d within a few samples.
    close = observe(position(62, "d d"))
    scored = score_moves(close, GROWN, best_nodes=600, best_only=True)
    assert scored.samples > FIRST_BATCH
    # Deal 40, move 59: w leads d by 6 samples of 32, never behind: the first batch settles it.
    clear = observe(position(40, "d d d d w w d d d d d d d d d d d d d d d d w d d d d d d d d d d d d d d d w "
                                 "d d d d w w w d d d d d d d d d d d d"))
    assert score_moves(clear, GROWN, best_nodes=600, best_only=True).samples == FIRST_BATCH


def test_deal_62_lost_to_noise_the_grown_sample_plays_the_winning_side():
    # The old policy (32 samples) opened row 2 with r1 at move 3; the real deal is lost after it.
    # 512 fresh samples (benchmarks/strength.py triage) put d 4.1 points ahead (2.3-5.8), and d
    # keeps the real deal winnable: the grown budget's 64 samples see it. The policy's 32 samples
    # have r1 and d win 9 each, r1 ahead by a few cards: the row opening now loses the tie.
    obs = observe(position(62, "d d"))
    scores = score_moves(obs, POLICY_SAMPLES, best_only=True).outcomes
    assert scores is not None and sum(scores.won(parse_moves("r1")[0])) == sum(scores.won(TURN))
    assert scores.mean(parse_moves("r1")[0]) > scores.mean(TURN)
    assert choose(obs) == TURN
    assert choose(obs, samples=GROWN) == TURN


def test_deal_70063_the_policy_keeps_drawing_until_the_row_opening_is_settled():
    # Move 13 (pass 1, talon seen, 12 face-down reserve cards): r4 and w both open row 2. The
    # policy's first 128 samples put r4 ahead 54.7% to 53.9%; three sets of 512 fresh samples put
    # w 4.5, 8.0 and 10.7 points ahead, and only w keeps the real deal winnable. The doubt rule
    # goes on past 128 and settles on w.
    obs = observe(position(70063, "d d d d d d d d d d d d"))
    assert score_moves(obs, 128, best_nodes=600, best_only=True).best == parse_moves("r4")[0]
    scored = score_moves(obs, GROWN, best_nodes=600, best_only=True)
    assert scored.samples > 128 and scored.best == WASTE
    assert choose(obs, samples=GROWN) == WASTE


def _triage():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import triage

    return triage


def test_the_triage_finds_the_last_winnable_position_and_names_the_verdict(monkeypatch):
    triage = _triage()
    monkeypatch.setattr(triage, "winnable", lambda s: s <= 7)  # winnability only shrinks along a game
    assert triage.fatal_index(list(range(20))) == 7

    def row(move, played, real, gain, lo, hi):
        return {"move": move, "played": played, "real": real, "gain": gain, "gain_interval": [lo, hi]}

    played = row("w", True, False, 0.0, 0.0, 0.0)
    assert triage.verdict([played, row("d", False, True, 0.04, 0.02, 0.06)]) == "fixable"
    assert triage.verdict([played, row("d", False, True, 0.01, -0.01, 0.03)]) == "coin flip"
    assert triage.verdict([played, row("d", False, True, -0.02, -0.05, 0.01)]) == "coin flip"
    assert triage.verdict([played, row("d", False, True, -0.3, -0.35, -0.25),
                           row("r1", False, False, 0.1, 0.05, 0.15)]) == "the deal was the exception"


def test_a_row_opening_loses_a_tie_in_samples_won_but_not_a_win_more():
    # Deal 1 after seven turns: w opens the second row, d waits.
    obs = observe(position(1, "d d d d d d d"))
    assert opens_row(obs, WASTE) is not None and opens_row(obs, TURN) is None

    # The same samples won, more cards for the opening: wait (the mean alone would open).
    tie = scored32(10, 10, 45, 30)
    assert tie.mean(WASTE) > tie.mean(TURN)
    assert leader(obs, tie, []) == TURN
    # One sample more for the opening: it leads.
    assert leader(obs, scored32(11, 10, 30, 45), []) == WASTE
    # No sample won: the expected cards decide, as before.
    assert leader(obs, scored32(0, 0, 45, 30), []) == WASTE
    assert leader(obs, scored32(0, 0, 30, 45), []) == TURN


def test_the_guarded_wide_tie_break_turns_on_a_tie_only_once_a_card_was_played_this_pass():
    # benchmarks/strength.py --method tutorwide (measured, not kept): on equal wins the whole
    # order of tutor.certainty.preference (a turn before a waste play), but only with progress,
    # so it cannot turn through a pass on ties and block the game (deal 70041, 1 card).
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from strength import wide_leader

    with_play = observe(position(1, "d d d d d w d"))
    no_play = observe(position(1, "d d d d d"))
    for obs in (with_play, no_play):
        assert opens_row(obs, WASTE) is None and {WASTE, TURN} <= set(obs.legal_moves())

    tie = scored32(10, 10, 45, 30)  # the same samples won, more cards for the waste play
    assert leader(with_play, tie, []) == WASTE and leader(no_play, tie, []) == WASTE
    assert wide_leader(with_play, tie, []) == TURN
    assert wide_leader(no_play, tie, []) == WASTE
    assert wide_leader(with_play, scored32(0, 0, 45, 30), []) == WASTE  # no sample won: the cards decide
    assert wide_leader(with_play, scored32(10, 11, 45, 30), []) == TURN
    assert wide_leader(with_play, scored32(11, 10, 30, 45), []) == WASTE  # more wins beat the order


def test_the_committed_row_suit_ties_waiting_with_opening_now_where_pimc_waits():
    # benchmarks/strength.py --method tutorcommit (measured, not kept): deal 10 after r2, JD on
    # pile 4 would open row 2. PIMC's 32 samples put waiting 12.5 points ahead (each sample opens
    # row 2 later with its own best suit); with row 2's suit chosen now, the same in every sample,
    # waiting and opening tie, and tutorcommit opens with JD (it shows the card beneath).
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import strength

    import tutor.hints

    obs = observe(position(10, "r2"))
    r4 = parse_moves("r4")[0]
    assert opens_row(obs, r4) == 2 and set(obs.legal_moves()) == {r4, TURN}
    committed, pimc = strength.committed_values(obs, obs.legal_moves(), obs.samples(POLICY_SAMPLES))
    assert pimc == {r4: 9 / 32, TURN: 13 / 32}
    assert committed == {r4: 9 / 32, TURN: 9 / 32}
    assert choose(obs) == TURN  # the policy: a turn in step with the talon keeps every option
    original = tutor.hints.choose
    try:
        strength.patch("tutorcommit")
        assert tutor.hints.choose(obs) == r4
    finally:
        tutor.hints.choose = original


def test_the_first_pass_tie_break_plays_where_the_policy_turns_and_carry_finds_only_those_games():
    # benchmarks/strength.py --method tutorfirst (measured, not kept): before any card is played in the
    # first pass, a play beats the turn on a tie in samples won. Osmosis deal 70480 after 10 turns: the
    # policy's 32 samples win 3 each for w (9C, opening row 2) and d, and the row tie-break turns, into a
    # first pass with no play (lost with 1 card); tutorfirst plays 9C.
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import carry
    from strength import first_pass_leader

    state = position(70480, " ".join(["d"] * 10))
    obs = observe(state)
    assert set(obs.legal_moves()) == {WASTE, TURN} and opens_row(obs, WASTE) == 2 and not obs.progress
    tie = scored32(3, 3, 40, 17)
    assert leader(obs, tie, []) == TURN and first_pass_leader(obs, tie, []) == WASTE
    assert first_pass_leader(obs, scored32(3, 4, 40, 17), []) == TURN  # more wins still decide
    assert first_pass_leader(obs, scored32(0, 0, 17, 40), []) == TURN  # no sample won: the cards decide
    played = observe(position(1, "d d d d d w d"))  # a card played in this pass: the policy's order
    assert first_pass_leader(played, scored32(10, 10, 45, 30), []) == leader(played, scored32(10, 10, 45, 30), [])
    # carry.py replays a game only when tutorfirst changes a decision of its opening
    assert carry.opening_changed(position(70480, ""), infoset=True)
    assert not carry.opening_changed(position(3, ""), infoset=True)  # carried in the Osmosis 1-300 run
    assert choose(obs) == TURN  # the policy itself is unchanged (the patch was undone)
