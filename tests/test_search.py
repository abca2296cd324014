"""The full-knowledge solver: verdicts, lines that replay, agreement with a plain search."""

from __future__ import annotations

import random
import sys

import pytest
from builders import make_deal, position
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor.cards import parse_cards
from tutor.deals import deal_for
from tutor.errors import TutorError
from tutor.graph import position_graph
from tutor.notation import Move
from tutor.rules import PRESETS, Rules, preset
from tutor.search import DEFAULT_LIMIT, OPTIONS, Limit, SolveResult, folded_moves, solve
from tutor.state import State

QUICK = Limit(nodes=20_000)


def exhaustive(state: State) -> tuple[bool, int]:
    """(winnable, best score) by a plain search over atomic moves, memoised on State.key().

    No folding, no safe moves, no dominance, no constraint cuts: the reference.
    """
    memo: dict[int, tuple[bool, int]] = {}

    def go(s: State) -> tuple[bool, int]:
        key = s.key()
        if key in memo:
            return memo[key]
        if s.won:
            result = (True, 52)
        else:
            win, best = False, s.cards
            for move in s.legal_moves():
                w, b = go(s.apply(move))
                win, best = win or w, max(best, b)
            result = (win, best)
        memo[key] = result
        return result

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        return go(state)
    finally:
        sys.setrecursionlimit(old)


def late_positions(rules: str | Rules, deals, count: int, seed: int, most_left: int = 14):
    """Late-game positions of real deals: a winning line cut near its end, then a few random moves."""
    rng = random.Random(seed)
    rules = preset(rules) if isinstance(rules, str) else rules
    out = []
    for n in deals:
        start = State.initial(deal_for(n, rules), rules)
        res = solve(start, QUICK, want="win")
        if not res.winnable:
            continue
        line = list(res.line)
        plays = [i for i, m in enumerate(line) if m.is_play]
        for _ in range(3):
            # Cut after the play that leaves between most_left and most_left + 6 cards.
            k = rng.randrange(max(0, len(plays) - most_left - 6), len(plays) - most_left + 1)
            s = start.play(line[: plays[k - 1] + 1] if k else [])
            for _ in range(rng.randrange(0, 12)):
                moves = s.legal_moves()
                if not moves:
                    break
                s = s.apply(rng.choice(moves))
            if 52 - s.cards <= most_left + 4:
                out.append(s)
        if len(out) >= count:
            break
    return out


def check_line(state: State, result: SolveResult) -> None:
    end = state.play(result.line)
    if result.winnable:
        assert end.won
    else:
        assert end.cards == result.best_cards


@pytest.mark.parametrize("name", sorted(PRESETS) + ["turn-1-three-passes"])
def test_solver_agrees_with_exhaustive_search_on_late_positions(name):
    rules = Rules(turn=1, passes=3) if name == "turn-1-three-passes" else preset(name)
    positions = late_positions(rules, range(1, 120), count=10, seed=len(name))
    assert len(positions) >= 5, "too few late positions found to compare"
    for s in positions:
        res = solve(s, Limit(nodes=None))
        assert res.complete
        assert (res.winnable, res.best_cards) == exhaustive(s)
        check_line(s, res)


def test_late_positions_cover_won_and_lost():
    outcomes = {solve(s, Limit(nodes=None)).winnable for s in late_positions("osmosis", range(1, 120), 12, 7)}
    assert outcomes == {True, False}


@settings(max_examples=25, deadline=None)
@given(number=st.integers(1, 31999), name=st.sampled_from(sorted(PRESETS)))
def test_every_winning_line_replays_to_a_win(number, name):
    rules = preset(name)
    start = State.initial(deal_for(number, rules), rules)
    res = solve(start, QUICK, want="win")
    if res.winnable:
        assert start.play(res.line).won
    else:
        assert start.play(res.line).cards == res.best_cards


@settings(max_examples=15, deadline=None)
@given(number=st.integers(1, 31999))
def test_best_score_line_reaches_the_best_score(number):
    start = position(number)
    res = solve(start, QUICK)
    check_line(start, res)
    assert 1 <= res.best_cards <= 52
    assert res.winnable is None or res.complete or res.winnable is False


def test_deal_known_to_be_won_is_won():
    # Deal 4 of Osmosis (PySolFC numbering) can be won; the line must say how.
    start = position(4)
    res = solve(start)
    assert res.winnable is True and res.best_cards == 52 and res.complete
    assert start.play(res.line).won
    assert res.explanation is None


def test_solving_after_some_moves_starts_from_that_position():
    start = position(4)
    line = solve(start).line
    middle = start.play(line[:10])
    res = solve(middle)
    assert res.winnable and middle.play(res.line).won


def test_deal_lost_from_start_names_the_cycle():
    # Deal 7: 8H lies above 8S in reserve pile 2 and spades are row 1.
    res = solve(position(7))
    assert res.winnable is False and res.complete
    assert sorted(res.explanation.cycle) == parse_cards("8S 8H")
    assert "8H lies above 8S in pile 2" in res.explanation.text()


def test_hand_built_deal_lost_from_start():
    # Base 2S: spades are row 1. 5H lies above 5S, so hearts need 5S first in any row order.
    deal = make_deal(["5S 5H KC QC", "JC TC 9C 8C", "7C 6C 4C 3C", "KD QD JD TD"], "2S")
    res = solve(State.initial(deal, preset("osmosis")))
    assert res.winnable is False
    assert sorted(res.explanation.cycle) == parse_cards("5S 5H")


def test_won_position_is_won_with_an_empty_line():
    start = position(4)
    end = start.play(solve(start).line)
    res = solve(end)
    assert res.winnable and res.line == () and res.best_cards == 52


def test_node_limit_gives_undecided_never_a_guess():
    start = position(3)  # won, but only after a real search
    res = solve(start, Limit(nodes=5))
    assert res.winnable is None and not res.complete
    assert solve(start, DEFAULT_LIMIT).winnable is True


def test_want_win_decides_without_the_best_score_search():
    start = position(1)
    quick = solve(start, want="win")
    full = solve(start, want="best")
    assert quick.winnable is False and full.winnable is False
    assert quick.best_cards <= full.best_cards
    assert full.nodes >= quick.nodes


def test_bad_limit_or_goal_is_an_error():
    with pytest.raises(TutorError):
        Limit(nodes=0)
    with pytest.raises(TutorError):
        solve(position(1), want="everything")


def test_result_json_has_the_spec_fields():
    data = solve(position(4)).to_json()
    assert {"winnable", "best_cards", "nodes", "seconds", "line"} <= set(data)
    assert data["winnable"] is True and all(isinstance(t, str) for t in data["line"])
    assert [Move.parse(t) for t in data["line"]]


def test_folded_moves_replay_to_the_card_they_name():
    s = position(1, "d d d d d w")
    for card, moves in folded_moves(s):
        t = s.play(moves[:-1])
        assert t.card_of(moves[-1]) == card
        assert t.apply(moves[-1]).is_placed(card)


def test_single_card_turns_solve_without_branching_on_plays():
    # With turn 1 every talon card shows each pass; the verdict must still replay.
    start = position(3, rules="single")
    res = solve(start)
    check_line(start, res)


def test_position_graph_agrees_with_solve():
    for s in late_positions("osmosis", range(1, 60), 4, seed=3, most_left=8):
        g = position_graph(s, Limit(nodes=None))
        root = g.nodes[g.graph["root"]]
        res = solve(s, Limit(nodes=None))
        assert root["win"] == res.winnable and root["best"] == res.best_cards
        for a, b, data in g.edges(data=True):
            assert g.nodes[a]["state"].play(data["moves"]).key() == b


def test_position_graph_marks_unexplored_nodes_undecided():
    g = position_graph(position(1), Limit(nodes=3))
    assert not g.graph["complete"]
    assert g.nodes[g.graph["root"]]["win"] is None


def test_limited_passes_count_redeals():
    # With one pass a redeal is never allowed: the solver's line must not need one.
    rules = preset("osmosis").with_options(passes=1)
    start = State.initial(deal_for(4, rules), rules)
    res = solve(start, QUICK)
    check_line(start, res)
    assert all(s.pass_no == 1 for s in [start.play(res.line)])



def test_first_talon_card_under_a_card_that_needs_it_is_stuck():
    # Talon 5S 5H ...: 5S shows only once 5H above it is played, and 5H needs 5S (spades are row 1).
    deal = make_deal(["KC QC JC TC", "9C 8C 7C 6C", "KD QD JD TD", "9D 8D 7D 6D"], "2S", "5S 5H")
    start = State.initial(deal, preset("osmosis"))
    res = solve(start)
    assert res.winnable is False and res.complete
    assert res.explanation is None  # no cycle in the reserve: the talon's order does it
    assert res.best_cards <= 48  # 5S, 5H and the fives below them never reach a row
    check_line(start, res)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_finished_game_solves_to_its_own_score(name):
    from tutor.survey import play_greedy

    rules = preset(name)
    for n in range(1, 8):
        end = play_greedy(State.initial(deal_for(n, rules), rules))
        res = solve(end)
        assert res.complete and res.line == ()
        assert res.winnable == end.won and res.best_cards == end.cards


@pytest.mark.parametrize("number", [65, 84, 227, 318, 385, 2001])
def test_bridesmaids_deals_the_talon_order_loses_are_decided(number):
    # Without a reserve the talon is all there is; these deals were undecided at the default limit
    # before the search bounded what each talon card needs played before it.
    rules = preset("bridesmaids")
    start = State.initial(deal_for(number, rules), rules)
    res = solve(start)
    assert res.winnable is False
    check_line(start, res)


def test_opener_buried_under_its_own_suit_loses_without_a_reserve():
    # 2H lies 4th, under three hearts and before two more: no turn of three shows it before one of
    # them is played, and every heart needs 2H to open its row.
    start = State.initial(make_deal([], "2S", "3H 4H 5H 2H 6H 7H"), preset("bridesmaids"))
    res = solve(start)
    assert res.winnable is False and res.complete
    assert res.best_cards <= 39
    check_line(start, res)


def shortened_talon(rules: Rules, number: int, left: int, seed: int) -> State:
    """A position of a deal with ``left`` talon cards left: random playable talon cards placed
    (wherever they lie), then a random waste position, pass and progress."""
    rng = random.Random(seed)
    s = State.initial(deal_for(number, rules), rules)
    while len(s.talon) > left:
        options = [i for i, c in enumerate(s.talon) if s.destination(c) >= 0]
        if not options:
            break
        i = rng.choice(options)
        s = s._place(s.talon[i], s.destination(s.talon[i]), s.reserves, s.talon[:i] + s.talon[i + 1:], 0)
    passes = rules.passes
    return s._replace(pos=rng.randint(0, len(s.talon)), pass_no=rng.randint(1, passes) if passes else 2,
                      progress=rng.random() < 0.8)


@pytest.mark.parametrize("passes", [0, 2, 3])
def test_no_reserve_talons_agree_with_exhaustive_search(passes):
    # The talon-only rules (the last-card rule, the spacer key, the talon-order bound) against
    # the plain search, with unlimited and limited passes.
    rules = Rules(reserve_piles=0, passes=passes)
    checked = 0
    for seed in range(40):
        s = shortened_talon(rules, 1 + seed, left=13, seed=seed)
        if s.won or s.reserves and any(s.reserves):
            continue
        res = solve(s, Limit(nodes=None))
        assert res.complete
        assert (res.winnable, res.best_cards) == exhaustive(s), (passes, seed)
        check_line(s, res)
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize("passes", [0, 1, 2])
def test_the_front_game_at_every_position_keeps_the_answers(passes, monkeypatch):
    # The front game cuts positions only in the win search's later rounds; with a first round of
    # one position it runs nearly everywhere. Every position it cuts must be lost under its row
    # order (checked by the plain search, in pass 1 with progress made: the most a player could
    # have there), and the answers must still be the plain search's.
    from test_search_proof import winnable_under

    import tutor.search as search_module
    import tutor.search_dfs as dfs_module

    monkeypatch.setattr(search_module, "FIRST_BUDGET", 1)
    calls = {"lost": 0, "all": 0}
    plain = dfs_module.front_lost
    root: list[State] = []

    def checked_cut(needs, order, mask, talon, pos, turn, size, budget):
        out = plain(needs, order, mask, talon, pos, turn, size, budget)
        calls["all"] += 1
        if out[0] is True:
            calls["lost"] += 1
            start = root[0].base % 13
            rows = (order[0],) + tuple(order[k] for k in range(1, 4) if mask >> (order[k] * 13 + start) & 1)
            found = tuple((mask >> (13 * suit)) & 8191 for suit in range(4))
            cut = root[0]._replace(rows=rows, found=found, talon=tuple(talon), pos=pos, pass_no=1, progress=True,
                                   cards=mask.bit_count())
            assert not winnable_under(cut, order), (order, talon, pos, size)
        return out

    monkeypatch.setattr(dfs_module, "front_lost", checked_cut)
    rules = Rules(reserve_piles=0, passes=passes, turn=3)
    checked = 0
    for seed in range(90):
        s = shortened_talon(rules, 100 + seed, left=15, seed=seed)
        if s.won:
            continue
        root[:] = [s]
        res = solve(s, Limit(nodes=None), want="win")
        assert res.complete
        assert res.winnable == exhaustive(s)[0], (passes, seed)
        check_line(s, res)
        checked += 1
    assert checked >= 60
    # With a single pass the last-pass rule already cuts most of what the front game would.
    assert calls["lost"] >= (5 if passes != 1 else 1) and calls["all"] > calls["lost"], calls


@pytest.mark.parametrize("number", [3, 4, 5])
def test_turn_one_with_unlimited_passes_is_a_single_sweep(number):
    """The module's claim: with turn 1 and unlimited passes every talon card shows each pass, so one sweep
    decides the deal. A sweep that started one card early still answered right, at twice the nodes."""
    rules = preset("single")
    assert solve(State.initial(deal_for(number, rules), rules)).nodes == 1


@pytest.mark.parametrize("passes", [1, 2, 3])
def test_turn_one_with_limited_passes_agrees_with_exhaustive_search(passes):
    """With turn 1 and limited passes the solver plays one line per row order (every play as soon as its
    card shows): on short talons, with and without a reserve, it agrees with the plain search over
    atomic moves, verdict and best score, and its line replays to them."""
    no_reserve = Rules(turn=1, passes=passes, reserve_piles=0)
    positions = [shortened_talon(no_reserve, 1 + seed, left=13, seed=seed) for seed in range(16)]
    positions += late_positions(Rules(turn=1, passes=passes), range(1, 120), count=6, seed=passes)
    rules = Rules(turn=1, passes=passes)
    for seed in range(30):
        # Random playable cards placed from the talon and the reserve tops alike, until 16 are left.
        rng = random.Random(seed)
        s = State.initial(deal_for(100 + seed, rules), rules)
        while 52 - s.cards > 16:
            tops = [(c, i) for i, p in enumerate(s.reserves) if p and s.destination(c := p[-1]) >= 0]
            talon = [(c, -1) for c in s.talon if s.destination(c) >= 0]
            if not tops + talon:
                break
            c, i = rng.choice(tops + talon)
            reserves = tuple(p[:-1] if j == i else p for j, p in enumerate(s.reserves))
            rest = tuple(t for t in s.talon if t != c)
            s = s._place(c, s.destination(c), reserves, rest, 0)
        s = s._replace(pos=rng.randint(0, len(s.talon)), pass_no=rng.randint(1, passes), progress=rng.random() < 0.8)
        if 52 - s.cards <= 16 and len(positions) < 36:
            positions.append(s)
    assert len(positions) >= 24
    for s in positions:
        res = solve(s, Limit(nodes=None))
        assert res.complete
        assert (res.winnable, res.best_cards) == exhaustive(s), (passes, s.rules)
        check_line(s, res)
    assert {solve(s).winnable for s in positions} == {True, False}


@pytest.mark.parametrize("passes", [1, 2, 3])
def test_turn_one_with_limited_passes_sweep_agrees_with_the_branching_search(passes, monkeypatch):
    """The sweep against the search that branches on which talon card to play when (the sweep switched
    off), from the start of whole deals and after random moves, wherever that search finishes."""
    rng = random.Random(passes)
    checked = 0
    for number in range(1, 81):
        rules = Rules(turn=1, passes=passes)
        s = State.initial(deal_for(number, rules), rules)
        for _ in range(rng.randrange(0, 40)):
            if not s.legal_moves():
                break
            s = s.apply(rng.choice(s.legal_moves()))
        swept = solve(s, QUICK)
        assert swept.complete and swept.nodes <= 24 * 53
        check_line(s, swept)
        monkeypatch.setitem(OPTIONS, "sweep", False)
        branching = solve(s, Limit(nodes=5_000))
        monkeypatch.setitem(OPTIONS, "sweep", True)
        if branching.complete:
            assert (swept.winnable, swept.best_cards) == (branching.winnable, branching.best_cards), number
            checked += 1
    assert checked >= 35


def test_turn_one_with_limited_passes_decides_what_the_branching_search_could_not():
    """Deal 61 with turn 1 and 3 passes: the branching search left its best score open at 1,000,000
    positions (46 cards found); the sweep settles it exactly in a few hundred."""
    rules = Rules(turn=1, passes=3)
    start = State.initial(deal_for(61, rules), rules)
    res = solve(start, Limit(nodes=1_000))
    assert res.complete and res.winnable is False and res.best_cards >= 46
    check_line(start, res)
