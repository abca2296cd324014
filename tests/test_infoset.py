"""The information-set search: exact on tiny late positions, observation-only, seeded."""

from __future__ import annotations

import random
from functools import cache

from tutor.hints import score_moves
from tutor.infoset import Search, exact_values, legal_moves, reveal, step
from tutor.knowledge import Observation, observe
from tutor.rules import PRESETS
from tutor.search import solve
from tutor.state import State

RULES = PRESETS["osmosis"]


def tiny(seed: int, left: int = 6, piles: int = 3) -> State | None:
    """A random late position: ``left`` cards off the foundations (reserve and a known talon), pass 2."""
    rng = random.Random(seed)
    rows = tuple(rng.sample(range(4), 4))
    out: set[int] = set()
    while len(out) < left:  # a rank missing from a row is missing from every row below (the osmosis filter)
        rank, row = rng.randint(1, 12), rng.randrange(4)
        out.update(rows[k] * 13 + rank for k in range(row, 4))
    if len(out) != left:
        return None
    cards = sorted(out)
    rng.shuffle(cards)
    cut = rng.randint(left // 2, left - 1)
    reserve, talon = cards[:cut], cards[cut:]
    sizes = [0] * piles
    for _ in range(len(reserve)):
        sizes[rng.randrange(piles)] += 1
    res, at = [], 0
    for n in sizes:
        res.append(tuple(reserve[at:at + n]))
        at += n
    found = [0, 0, 0, 0]
    for c in range(52):
        if c not in out:
            found[c // 13] |= 1 << (c % 13)
    base = rows[0] * 13
    return State(RULES, tuple(res) + ((),) * (4 - piles), base, rows, tuple(found), tuple(talon), 0, 2, True,
                 52 - left)


def expectimax(obs: Observation) -> float:
    """The reference: expectimax over the observation itself, each reveal 1/k per unseen card."""
    @cache
    def value(o: Observation) -> float:
        if o.won:
            return 1.0
        moves = legal_moves(o)
        return max((after(o, m) for m in moves), default=0.0)

    def after(o: Observation, m) -> float:
        nxt, places = step(o, m)
        if not places:
            return value(nxt)
        cards = nxt.unseen_cards()
        return sum(value(reveal(nxt, places[0], c)) for c in cards) / len(cards)

    return value(obs)


def cases(count: int, hidden_at_least: int = 2):
    found = []
    for seed in range(2000):
        st = tiny(seed)
        if st is None or st.over:
            continue
        obs = observe(st)
        if len(obs.unseen_cards()) >= hidden_at_least and len(obs.legal_moves()) > 1:
            found.append(st)
            if len(found) == count:
                break
    return found


def test_exact_search_matches_brute_force_and_lies_between_pimc_and_clairvoyance():
    for st in cases(6):
        obs = observe(st)
        values = exact_values(obs)
        worlds = obs.every_state()
        # brute force over the consistent deals: the best blind player's expected win rate
        assert abs(max(values.values()) - expectimax(obs)) < 1e-9
        clairvoyant = sum(1 for w in worlds if solve(w).winnable) / len(worlds)
        pimc = score_moves(obs, infoset=False)
        assert values[pimc.best] <= max(values.values()) + 1e-9 <= clairvoyant + 1e-9


def test_answer_depends_only_on_the_observation():
    for st in cases(3, hidden_at_least=3):
        obs = observe(st)
        worlds = obs.every_state()
        other = worlds[-1]
        assert observe(other) == obs
        a = Search(budget=50_000).move_values(observe(st))
        b = Search(budget=50_000).move_values(observe(other))
        assert a == b
        assert score_moves(observe(st)).best == score_moves(observe(other)).best
        assert [c.to_json() for c in score_moves(obs).candidates] == \
            [c.to_json() for c in score_moves(observe(other)).candidates]


def test_seeded_and_method_named():
    st = cases(1, hidden_at_least=3)[0]
    obs = observe(st)
    assert Search(budget=50_000).move_values(obs) == Search(budget=50_000).move_values(obs)
    a, b = score_moves(obs), score_moves(obs)
    assert [c.to_json() for c in a.candidates] == [c.to_json() for c in b.candidates]
    assert all(c.to_json()["method"] in ("pimc", "infoset", "exact") for c in a.candidates)
    assert score_moves(obs, infoset=False).method in ("pimc", "exact")


# Deal 40 (osmosis) after 58 of the tutor's moves: pass 5, the talon known, 12 face-down reserve cards,
# the waste's 9H would open row 2. The first 32 of the hint's samples favour w (24 of 32 against 18),
# all 128 of them d, and the real deal is won only by d.
DEAL_40_AT_58 = ("d d d d w w d d d d d d d d d d d d d d d d w d d d d d d d d d d d d d d d w d d d d w w w "
                 "d d d d d d d d d d d d")


def test_a_search_on_fewer_deals_corrects_the_samplers_figure_instead_of_replacing_it():
    from tutor.deals import deal_for
    from tutor.hints import INFOSET_NODES
    from tutor.infoset import WORLDS
    from tutor.notation import TURN, WASTE

    state = State.initial(deal_for(40, RULES), RULES).play(DEAL_40_AT_58.split())
    obs = observe(state)
    scored = score_moves(obs)
    assert scored.method == "infoset" and scored.samples > WORLDS
    worlds = obs.samples(scored.samples)[:WORLDS]
    search = Search(budget=INFOSET_NODES)
    own = search.move_values(obs, worlds)
    assert own[WASTE] > own[TURN]  # on its 32 deals alone the search (like PIMC there) would play w
    for c in scored.candidates:
        won = scored.outcomes.won(c.move)
        fusion = search.pimc(worlds, c.move) - own[c.move]
        assert abs(c.blind - (sum(won) / len(won) - fusion)) < 1e-9
    assert scored.best == TURN  # all 128 deals decide; the search only takes off what fusion costs


# Deal 70043 (osmosis) after 82 of the tutor's moves, found by playing PIMC alone and the tutor side by
# side on the untuned deals and stopping where they first disagree (PIMC lost the deal, the tutor won it):
# pass 6, the talon known, 6 face-down reserve cards (720 consistent deals), 3D on r1 would open row 3.
DEAL_70043_AT_82 = ("r3 r4 d d d d d d d d d d d d d d d d d d d d w d d d d d d d d d d d d d d d d w r2 r2 r2 "
                    "r2 r3 d d d d d d d d d d w d d d d d d d d d d d d d d d w d d d d d d d d d d")


def test_strategy_fusion_pimc_ties_a_turn_that_the_search_shows_a_blind_player_cannot_cash():
    from tutor.deals import deal_for
    from tutor.notation import TURN, WASTE

    state = State.initial(deal_for(70043, RULES), RULES).play(DEAL_70043_AT_82.split())
    obs = observe(state)
    every = obs.every_state()
    assert len(every) == 720
    # PIMC on every consistent deal: the turn wins as often as the waste play (696 of 720 each, each deal
    # solved with its own face-down cards known), and on a tie the sampler's preference turns.
    pimc = Search(reveals=0, plies=0, budget=10).move_values(obs, every)
    assert pimc[TURN] == pimc[WASTE] == 696 / 720
    assert score_moves(obs, infoset=False).best == TURN
    # The search over what the player sees, on the same 720 deals: after the turn the player must choose
    # before the face-down cards show, and no blind choice wins more than 528 of them (its leaves count
    # clairvoyant wins, so this bounds the turn's blind value from above); the waste play loses nothing.
    search = Search(reveals=1, plies=2, budget=50_000).move_values(obs, every)
    assert search[TURN] == 528 / 720 < search[WASTE] == pimc[WASTE]
    assert score_moves(obs).best == WASTE


def test_the_hint_says_why_the_search_overturned_a_tie_in_the_samples_figures():
    """The hint played ``w`` on the search's word but said "they score the same" beside the samples' tie
    (98% each), a reason that contradicted its own choice and its JSON's ``blind_win`` (98% against 83%)."""
    from tutor.deals import deal_for
    from tutor.hints import hint

    state = State.initial(deal_for(70043, RULES), RULES).play(DEAL_70043_AT_82.split())
    h = hint(observe(state))
    by_move = {str(c.move): c for c in h.candidates}
    assert str(h.best) == "w" and round(by_move["w"].win, 2) == round(by_move["d"].win, 2)
    assert by_move["d"].blind is not None and by_move["d"].blind < by_move["w"].blind - 0.05
    assert "score the same" not in h.reason
    assert ("a player who sees only the table cannot cash that: searched over the cards that can still turn "
            "up (the search's estimate on 32 of the 96 deals), such a player wins about "
            f"{by_move['w'].blind * 100:.0f}% (95%: 86-99%) this way and {by_move['d'].blind * 100:.0f}% (95%: 65-91%) "
            "if you turn the talon.") in " ".join(h.reason.split())


def test_the_hint_json_says_how_many_deals_the_search_played(home):
    import json

    from builders import osmosis

    for samples, deals in (("128", 32), ("64", 64)):
        data = json.loads(osmosis(["hint", "70043", "--moves", DEAL_70043_AT_82, "--samples", samples, "--json"],
                                  home).stdout)
        assert data["method"] == "infoset" and data["blind_deals"] == deals, samples
        for c in data["candidates"]:  # every blind figure has its interval, around it, and its deals
            assert ("blind_interval" in c) == ("blind_win" in c) == ("blind_deals" in c)
            assert c.get("blind_deals", deals) == deals
            if "blind_win" in c:
                lo, hi = c["blind_interval"]
                assert lo <= c["blind_win"] <= hi and lo < hi, (samples, c)
        scored = data["samples"]  # the deals scored: the hint stops drawing once its answer is settled
        assert f"on {f'32 of the {scored}' if deals == 32 else 'the 64'} deals" in " ".join(data["reason"].split())


def test_a_blind_figure_has_the_interval_of_the_deals_it_rests_on():
    """The search's blind win chance was printed with a deal count and no interval. Searched on every deal
    drawn it is a share of them (Wilson); searched on 32 of 128 it is the sampler's share less the fusion
    found on the 32, each with its Wilson interval, added in squares; an exact one has none. No fusion found
    on 32 deals still leaves room for up to 11 points of it (the diff review: a normal interval collapsed)."""
    import math

    from tutor.estimate import wilson
    from tutor.narrate.blind import blind_figure, blind_interval

    assert blind_interval(0.75, 0.8, 32, 32, False) == wilson(24, 32)
    assert blind_interval(0.75, 0.8, 32, 32, True) == (0.75, 0.75)
    lo, hi = blind_interval(0.83, 0.98, 128, 32, False)
    (lp, up), (lq, uq) = wilson(125, 128), wilson(5, 32)  # 98% of 128; 15% of 32 lost to fusion
    assert (lo, hi) == (0.83 - math.hypot(0.98 - lp, uq - 0.15), 0.83 + math.hypot(up - 0.98, 0.15 - lq))
    lo, hi = blind_interval(0.98, 0.98, 128, 32, False)
    assert lo < 0.98 - (wilson(0, 32)[1] - 0.01) and hi == up  # none found on 32: up to 10.7 points may be there
    assert blind_figure(0.83, (0.705, 0.955), True) == "83%"
    assert blind_figure(0.83, (0.705, 0.955), False) == "83% (95%: 70-96%)"


def test_the_search_reason_claims_only_what_its_figures_support():
    """The hint said the deals solved with every card known "win more often (63% against 62%)" on a paired drop
    of -4.3 to +1.1 points, and that a blind player "cannot cash that" on blind figures whose intervals
    overlapped widely. Both claims now need their figures: else "about as often" and "may not"."""
    from tutor.deals import deal_for
    from tutor.estimate import Drop
    from tutor.hints import Candidate, Method, ScoredPosition, Why
    from tutor.narrate.blind import fusion_reason
    from tutor.notation import TURN, WASTE

    state = State.initial(deal_for(70043, RULES), RULES).play(DEAL_70043_AT_82.split())
    obs = observe(state)

    def reason(rival_drop, blind_top, blind_rival):
        top = Candidate(WASTE, 0.62, 48.0, samples=128, interval=(0.53, 0.71), blind=blind_top)
        rival = Candidate(TURN, 0.63, 48.0, samples=128, interval=(0.55, 0.71), blind=blind_rival, drop=rival_drop)
        scored = ScoredPosition(WASTE, [top, rival], Why.SAMPLED, 128, False, method=Method.INFOSET)
        return " ".join((fusion_reason(obs, scored, top, "Play 4C from the waste", 128) or "").split())

    unsure = reason(Drop(-0.01, -0.043, 0.011, 128), 0.60, 0.55)
    assert "win about as often (63% against 62%)" in unsure and "may not cash that" in unsure
    assert unsure.endswith("a lead within the noise of the search.")
    sure = reason(Drop(-0.05, -0.08, -0.02, 128), 0.60, 0.30)
    assert "win more often (63% against 62%)" in sure and "cannot cash that" in sure
    assert "noise" not in sure


def test_a_corrected_blind_figure_never_tops_the_clairvoyant_one():
    """Searched on 32 of 64 deals, the blind figure is the samples' share less the fusion found on the 32. Where
    the search's leaves decided a win the node limit left undecided at the root, that fusion came out negative
    and the blind player "won" more than one who sees every card (80% against 73%, deal 87)."""
    from tutor.infoset import corrected
    from tutor.notation import TURN, WASTE
    from tutor.sampling import Outcomes

    class Leaves:
        def pimc(self, worlds, move):
            return 0.50  # PIMC on the 32 searched deals

    scores = Outcomes([WASTE, TURN])
    for i in range(64):
        scores.add({WASTE: (i % 4 != 0, 40), TURN: (i % 4 != 0, 40)})  # 75% for both on all 64
    out = corrected(Leaves(), [None] * 32, {WASTE: 0.60, TURN: 0.40}, scores, [WASTE, TURN])
    assert out[WASTE] == 0.75  # the search above PIMC: no fusion, not 0.85
    assert abs(out[TURN] - 0.65) < 1e-9  # 10 points of fusion found: taken off


def test_a_hint_blind_chance_clamped_at_zero_keeps_the_interval_of_the_fusion_found():
    """2 of 64 deals won (3.1%) and 10 points of fusion found on the 32 searched: the blind chance is -6.9%
    before its clamp, shown as 0. The hint worked its interval out from the 0 shown, as if only the 3.1 points
    it could take off had been found (up to 11.3% against 6.8% in the worked case of stop 42)."""
    from tutor.estimate import Estimate
    from tutor.hints import _blind_interval
    from tutor.infoset import BlindValues, corrected
    from tutor.narrate.blind import blind_interval
    from tutor.notation import TURN, WASTE
    from tutor.sampling import Outcomes

    class Leaves:
        def pimc(self, worlds, move):
            return 0.50

    scores = Outcomes([WASTE, TURN])
    for i in range(64):
        scores.add({WASTE: (i < 2, 40), TURN: (i < 2, 40)})
    raw = corrected(Leaves(), [None] * 32, {WASTE: 0.40, TURN: 0.50}, scores, [WASTE, TURN])
    assert abs(raw[WASTE] - (2 / 64 - 0.10)) < 1e-9 and raw[TURN] == 2 / 64  # not clamped: the caller does
    blind = BlindValues({m: min(1.0, max(0.0, v)) for m, v in raw.items()}, False, raw, 32)  # 32 searched
    est = Estimate.of(scores.results[WASTE])
    lo, hi = _blind_interval(blind, WASTE, est)
    assert (lo, hi) == blind_interval(raw[WASTE], 2 / 64, 64, 32, False)
    assert lo == 0.0 and 0.0 < hi < blind_interval(0.0, 2 / 64, 64, 32, False)[1]
    assert _blind_interval(blind, 99, est) == (0.0, 0.0)  # a move lost in every deal: not searched, 0


def test_a_blind_interval_always_holds_the_figure_shown():
    """Centred on a value far below 0 (4 of 128 won, 4 of 32 searched lost to fusion: -9.4%), the interval's
    high end went below 0 while its low end was clamped to it: (0.0, -0.0053), "0% (95%: 0--1%)"."""
    from tutor.narrate.blind import blind_interval

    lo, hi = blind_interval(4 / 128 - 4 / 32, 4 / 128, 128, 32, False)
    assert lo == 0.0 and hi >= 0.0
    lo, hi = blind_interval(1.2, 0.99, 128, 32, False)  # and never above 1, holding the 100% shown
    assert lo <= 1.0 == hi
    assert blind_interval(-0.05, 0.0, 32, 32, True) == (0.0, 0.0)


def test_the_hint_table_shows_the_blind_win_chance_beside_the_clairvoyant_one(home):
    # the table read "w 98%" and "d 98%", and the words then said a blind player wins 98% against 82%: the
    # choice the search made had no figure in the table
    from builders import osmosis

    out = osmosis(["hint", "70043", "--moves", DEAL_70043_AT_82], home).stdout
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()[:1] in (["w"], ["d"])}
    assert "blind" in out.split("Hint:", 1)[1].splitlines()[1]  # the table's heading
    assert rows["w"][-2:] == ["98%", "86-99"] and rows["d"][-2:] == ["82%", "65-91"]
    assert "blind: the win chance of a player who sees only the table" in " ".join(out.split())
    plain = osmosis(["hint", "5"], home).stdout  # no search: no such column
    assert "blind" not in plain


def test_the_boards_hint_shows_the_blind_win_chance_too():
    from tutor.board.widgets import HintView
    from tutor.deals import deal_for
    from tutor.hints import hint

    rules = PRESETS["osmosis"]
    state = State.initial(deal_for(70043, rules), rules).play(DEAL_70043_AT_82.split())
    h = hint(observe(state))
    wide = [line.plain for line in HintView(h, state, symbols=False).lines(100)]
    assert wide[1].endswith("samples  blind")
    assert any(line.startswith("d ") and line.endswith("82% (65-91)") for line in wide)
    narrow = [line.plain.strip() for line in HintView(h, state, symbols=False).lines(40)]
    assert "blind 82% (65-91)" in narrow and "blind 98% (86-99)" in narrow


def test_the_review_grades_good_not_best_a_tied_lead_the_search_finds_behind_for_a_blind_player():
    """At deal 70043 after 82 moves the turn and the waste play win as many of the review's deals, PIMC leads
    with the turn, and the hint (its search) says a blind player cannot cash the turn's share: the review called
    the turn "Best move". It now grades it good, names w best, and says why in the search's words."""
    from tutor.deals import deal_for
    from tutor.grading import score_ply
    from tutor.knowledge import SharedWorlds
    from tutor.notation import Move
    from tutor.record import Record
    from tutor.review import Label, review
    from tutor.sampling import SolveCache

    moves = DEAL_70043_AT_82.split()
    state = State.initial(deal_for(70043, RULES), RULES).play(moves)
    turn = Move.parse("d")
    ps, _ = score_ply(83, state, turn, True, SharedWorlds(state, 64), SolveCache(), 64, 512)
    assert ps.blind_better == Move.parse("w") and ps.blind[ps.blind_better] > ps.blind[turn]
    assert ps.estimates[turn].win == ps.estimates[Move.parse("w")].win  # level with every card known
    rev = review(Record(RULES, deal_for(70043, RULES), [*(Move.parse(m) for m in moves), turn]), workers=1)
    last = rev.moves[-1]
    assert last.label == Label.GOOD and str(last.best) == "w"
    assert "a player who cannot see them wins" in last.comment
    assert last.comment.endswith("with this move: this move's share needs the face-down cards known.")
    assert all(c.blind is not None for c in last.candidates if not c.lost)


def test_a_tied_lead_is_graded_down_only_where_the_blind_gap_is_beyond_the_search_s_noise():
    """Deal 51 move 129 of the tutor's lost game: w 61% (49-72%) against the turn's 59% (47-71%) for a blind
    player, both 59% with every card known, and the review graded the turn good with "w was likely better ...
    this move's share needs the face-down cards known", where the hint called the gap noise."""
    from tutor.notation import Move
    from tutor.review.analysis import _blind_ahead
    from tutor.review.facts import Candidate

    def cand(move: str, blind: float, lo: float, hi: float) -> Candidate:
        return Candidate(Move.parse(move), 0.5938, 30.0, 64, (0.47, 0.71), blind=blind, blind_deals=64,
                         blind_interval=(lo, hi))

    turn = cand("d", 0.5938, 0.47, 0.71)
    assert not _blind_ahead(cand("w", 0.6094, 0.49, 0.72), turn, exact=False)  # within the noise: still best
    assert _blind_ahead(cand("w", 0.6094, 0.6094, 0.6094), cand("d", 0.5938, 0.5938, 0.5938), exact=True)
    assert _blind_ahead(cand("w", 0.9375, 0.85, 0.98), cand("d", 0.7344, 0.62, 0.83), exact=False)
    assert not _blind_ahead(cand("w", 0.50, 0.40, 0.60), turn, exact=True)  # behind is never ahead
