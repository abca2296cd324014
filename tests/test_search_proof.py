"""The front game (tutor.search_proof): every loss it proves is a loss, order by order, against a plain search."""

from __future__ import annotations

import random
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tutor.constraints import Needs, row_needs, row_orders
from tutor.deals import deal_for
from tutor.rules import Rules, preset
from tutor.search import OPTIONS, Limit, solve
from tutor.search_proof import front_lost, talon_front_lost
from tutor.state import State

RULES = {
    "bridesmaids": preset("bridesmaids"),
    "osmosis": preset("osmosis"),
    "limited": preset("limited"),
    "single": preset("single"),
    "no-reserve-two-passes": Rules(reserve_piles=0, passes=2),
}


def winnable_under(state: State, order: tuple[int, ...]) -> bool:
    """Whether some line of atomic moves wins with the rows in ``order``: the plain reference.

    Every legal move is tried, but a play that opens a row must open ``order``'s next one;
    memoised on State.key(). No folding, no cuts, no dominance.
    """
    memo: dict[int, bool] = {}

    def go(s: State) -> bool:
        key = s.key()
        if key in memo:
            return memo[key]
        memo[key] = False
        if s.won:
            memo[key] = True
            return True
        for move in s.legal_moves():
            card = s.card_of(move)
            if card is not None and s.destination(card) == len(s.rows) and card // 13 != order[len(s.rows)]:
                continue
            if go(s.apply(move)):
                memo[key] = True
                return True
        return False

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        return go(state)
    finally:
        sys.setrecursionlimit(old)


def small_position(rules: Rules, number: int, left: int, seed: int) -> State:
    """A position of a real deal with about ``left`` cards still to place: random playable cards
    (a reserve top, or a talon card wherever it lies) placed, then a random waste position, pass
    and progress."""
    rng = random.Random(seed)
    s = State.initial(deal_for(number, rules), rules)
    while 52 - s.cards > left:
        options = [("t", i) for i, c in enumerate(s.talon) if s.destination(c) >= 0]
        options += [("r", i) for i, p in enumerate(s.reserves) if p and s.destination(p[-1]) >= 0]
        if not options:
            break
        kind, i = rng.choice(options)
        if kind == "t":
            card = s.talon[i]
            s = s._place(card, s.destination(card), s.reserves, s.talon[:i] + s.talon[i + 1:], 0)
        else:
            pile = s.reserves[i]
            reserves = s.reserves[:i] + (pile[:-1],) + s.reserves[i + 1:]
            s = s._place(pile[-1], s.destination(pile[-1]), reserves, s.talon, 0)
    passes = rules.passes
    return s._replace(pos=rng.randint(0, len(s.talon)), pass_no=rng.randint(1, passes) if passes else 2,
                      progress=rng.random() < 0.8)


def proofs(s: State) -> list[tuple[tuple[int, ...], int]]:
    """Every (row order, front size) for which the front game proves ``s`` lost."""
    needs = Needs(s.reserves, s.base % 13)
    out = []
    for order in row_orders(tuple(s.rows)):
        for size in range(1, len(s.talon) + 1):
            lost, _ = front_lost(needs, order, s.mask(), tuple(s.talon), s.pos, s.rules.turn, size, 10**6)
            if lost:
                out.append((order, size))
    return out


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(RULES)), number=st.integers(1, 31999), left=st.integers(6, 13),
       seed=st.integers(0, 10**6))
def test_a_front_the_game_proves_lost_is_lost(name, number, left, seed):
    s = small_position(RULES[name], number, left, seed)
    for order in {o for o, _size in proofs(s)}:
        assert not winnable_under(s, order), (name, number, left, seed, order)


def test_the_front_game_proves_losses_in_every_kind_of_deal():
    # Not vacuous: on a fixed sample the front game proves losses, of orders that a plain search
    # confirms lost, with and without a reserve, with turn 3 and unlimited or limited passes.
    found: dict[str, int] = {}
    for name in ("bridesmaids", "osmosis", "limited", "no-reserve-two-passes"):
        for seed in range(30):
            s = small_position(RULES[name], 1 + seed, 11, seed)
            orders = {o for o, _size in proofs(s)}
            for order in orders:
                assert not winnable_under(s, order), (name, seed, order)
            found[name] = found.get(name, 0) + len(orders)
    assert all(found[name] >= 3 for name in found), found


def test_the_front_of_deal_483_is_a_knot_of_nine_cards():
    # Bridesmaids 483, rows S H D C: 7S KD 3C 7H 4H KH 8H AC 7C. 7S shows only once KD and 3C are
    # played, KD needs KH; 7H needs 7S, and then nothing is left before 7H to bring it to a stop,
    # so it waits for the cards after it, down to 7C, which needs 7D, which needs 7H.
    rules = preset("bridesmaids")
    s = State.initial(deal_for(483, rules), rules)
    needs = Needs(s.reserves, s.base % 13)
    lost, visited = front_lost(needs, (0, 1, 2, 3), s.mask(), tuple(s.talon), 0, 3, 9, 10**6)
    assert lost is True and visited > 0
    # A front of 8 cards is not enough for this deal: nothing is proved, and nothing is claimed.
    assert front_lost(needs, (0, 1, 2, 3), s.mask(), tuple(s.talon), 0, 3, 8, 10**6)[0] is False
    assert front_lost(needs, (0, 1, 2, 3), s.mask(), tuple(s.talon), 0, 3, 9, 5)[0] is None


def test_the_hard_bridesmaids_deals_are_decided_at_the_default_limit():
    # 483 and 1286 stayed undecided at 4,000,000 positions of the depth-first search alone.
    rules = preset("bridesmaids")
    for number in (483, 1286):
        start = State.initial(deal_for(number, rules), rules)
        res = solve(start, want="win")
        assert res.winnable is False and res.complete
        assert res.nodes < 20_000
        assert start.play(res.line).cards == res.best_cards


def test_without_the_front_game_the_search_leaves_them_undecided():
    rules = preset("bridesmaids")
    start = State.initial(deal_for(483, rules), rules)
    saved = OPTIONS["front"], OPTIONS["deep_front"]
    OPTIONS["front"] = OPTIONS["deep_front"] = False
    try:
        assert solve(start, Limit(nodes=20_000), want="win").winnable is None
    finally:
        OPTIONS["front"], OPTIONS["deep_front"] = saved
    assert solve(start, Limit(nodes=20_000), want="win").winnable is False


@settings(max_examples=20, deadline=None)
@given(number=st.integers(1, 31999))
@example(number=7381)
def test_wins_next_to_orders_the_front_game_drops_replay_to_a_win(number):
    # The front game only removes row orders; a win found under another order must still replay.
    # Deal 7381 is undecided at 20,000 positions (lost, proved at 307,825): the best line found so far ends
    # under an order the front game rightly calls lost, so only a found win is checked against it.
    rules = preset("bridesmaids")
    start = State.initial(deal_for(number, rules), rules)
    res = solve(start, Limit(nodes=20_000), want="win")
    if res.winnable:
        assert start.play(res.line).won
    else:
        assert start.play(res.line).cards == res.best_cards
    needs = Needs(start.reserves, start.base % 13)
    if not res.winnable:
        return
    # A won deal: no order that the front game proves lost may be the order of the winning line.
    end = start.play(res.line)
    assert not talon_front_lost(start, needs, tuple(end.rows))


def test_a_talon_card_after_the_front_waits_for_the_pointer_to_leave_it():
    # Bridesmaids 19602, rows H C S D: 6H 3S 3H 6S lead the talon. Playing 3H brings 3S to the
    # top, but 3S needs 3C, far down the talon: reaching it takes the pointer off the front, and
    # 3S then shows again only once 6S is played, which needs 6C, which needs 6H, under 3S.
    rules = preset("bridesmaids")
    s = State.initial(deal_for(19602, rules), rules)
    needs = Needs(s.reserves, s.base % 13)
    order = (1, 3, 0, 2)
    lost, visited = front_lost(needs, order, s.mask(), tuple(s.talon), 0, 3, 6, 10**6)
    assert lost is True and visited < 100
    assert winnable_under_front_counting_outside_cards_at_once(s, order, 6)
    assert talon_front_lost(s, needs, order)


def winnable_under_front_counting_outside_cards_at_once(s: State, order: tuple[int, ...], size: int) -> bool:
    """The front game as it was before: an outside card counted placed as soon as the front cards
    it needs were. It places all six front cards of 19602 under H C S D (3S right after 3H), so
    what proves the loss is the wait for the pointer."""
    needs = Needs(s.reserves, s.base % 13)
    anc = needs.ancestors(order)
    front = tuple(s.talon[:size])
    inside = sum(1 << c for c in front)
    direct = row_needs(order, needs.start)
    need = {}
    for c in front:
        want = direct[c] | needs.pile_need[c]
        acc = want & inside
        rest = want & ~inside & ~s.mask()
        while rest:
            low = rest & -rest
            acc |= anc[low.bit_length() - 1] & inside
            rest ^= low
        need[c] = acc
    seen = set()
    stack = [(front, 0)]
    while stack:
        rest, p = stack.pop()
        if not rest:
            return True
        if (rest, p) in seen:
            continue
        seen.add((rest, p))
        left = sum(1 << c for c in rest)
        stack += [(rest, 0), (rest, len(rest))] + ([(rest, p + 3)] if p + 3 <= len(rest) else [])
        if p and not need[rest[p - 1]] & left:
            stack.append((rest[:p - 1] + rest[p:], p - 1))
    return False


UNDECIDED_BEFORE = (14405, 19602, 31430, 35624, 41537, 41804, 44704, 47920, 58328, 59858, 87722)
"""The Bridesmaids deals of 1-100,000 that the search left undecided before the front game
waited for the pointer and ran at every new position (at 200,000 and then 2,000,000 positions)."""


@pytest.mark.parametrize("number", UNDECIDED_BEFORE)
def test_the_last_undecided_bridesmaids_deals_are_decided(number):
    rules = preset("bridesmaids")
    start = State.initial(deal_for(number, rules), rules)
    res = solve(start, want="win")
    assert res.complete and res.winnable is (number == 41804)
    assert res.nodes < 20_000
    end = start.play(res.line)
    assert end.cards == res.best_cards and end.won is bool(res.winnable)


def test_the_front_game_at_every_position_finds_the_win_of_41804():
    # 41804 can be won under rows H S D C, and under H D C S; the search alone spends 2,000,000
    # positions in a doomed subtree first. The front game cuts it at once.
    rules = preset("bridesmaids")
    start = State.initial(deal_for(41804, rules), rules)
    saved = OPTIONS["deep_front"]
    OPTIONS["deep_front"] = False
    try:
        assert solve(start, Limit(nodes=50_000), want="win").winnable is None
    finally:
        OPTIONS["deep_front"] = saved
    res = solve(start, Limit(nodes=50_000), want="win")
    assert res.winnable is True and start.play(res.line).won


class _AnyNeeds:
    """Stands in for :class:`Needs` with no row structure: only the reserve piles' order."""

    def __init__(self, pile_need: list[int]) -> None:
        self.pile_need = pile_need
        self.start = 0


def _winnable_with_any_needs(need: list[int], talon: tuple[int, ...], pos: int, piles: tuple[tuple[int, ...], ...],
                             placed: int, turn: int) -> bool:
    """A game looser than the real one: turn ``turn`` cards, redeal at the end with no limit and no
    progress needed, play the waste top or a reserve top whose needs are placed."""
    memo: dict[tuple, bool] = {}

    def go(placed: int, talon: tuple[int, ...], pos: int, piles: tuple[tuple[int, ...], ...]) -> bool:
        if not talon and not any(piles):
            return True
        key = (placed, talon, pos, piles)
        if key in memo:
            return memo[key]
        memo[key] = False
        options = []
        if talon:
            options.append((placed, talon, min(pos + turn, len(talon)) if pos < len(talon) else 0, piles))
        if pos and not need[talon[pos - 1]] & ~placed:
            options.append((placed | 1 << talon[pos - 1], talon[:pos - 1] + talon[pos:], pos - 1, piles))
        for i, p in enumerate(piles):
            if p and not need[p[-1]] & ~placed:
                options.append((placed | 1 << p[-1], talon, pos, piles[:i] + (p[:-1],) + piles[i + 1:]))
        memo[key] = any(go(*o) for o in options)
        return memo[key]

    return go(placed, talon, pos, piles)


def test_the_front_game_is_sound_for_any_needs(monkeypatch):
    # The argument does not use the rows' structure: with random needs among a few talon and
    # reserve cards, any turn from 1 to 3 and any pointer, every front the game proves lost is
    # lost even in a looser game (redeals free and unlimited). Seeded, so it always checks the same.
    import tutor.search_proof as proof

    rng = random.Random(15)
    proved = 0
    for _trial in range(2500):
        n_talon, n_reserve = rng.randint(3, 9), rng.choice([0, 0, rng.randint(1, 4)])
        cards = rng.sample(range(52), n_talon + n_reserve)
        talon, rest = tuple(cards[:n_talon]), cards[n_talon:]
        piles: list[tuple[int, ...]] = []
        while rest:
            k = rng.randint(1, len(rest))
            piles.append(tuple(rest[:k]))
            rest = rest[k:]
        density = rng.choice([0.1, 0.2, 0.3])
        row = [0] * 52
        for c in cards:
            for d in cards:
                if d != c and rng.random() < density:
                    row[c] |= 1 << d
        pile_need = [0] * 52
        for p in piles:
            for j in range(len(p) - 1):
                pile_need[p[j]] = 1 << p[j + 1]
        mask = ((1 << 52) - 1) & ~sum(1 << c for c in cards)
        turn, pos = rng.choice([1, 2, 3, 3]), rng.randint(0, n_talon)
        table = tuple(row)
        monkeypatch.setattr(proof, "row_needs", lambda order, start, table=table: table)
        sizes = [k for k in range(1, n_talon + 1)
                 if proof.front_lost(_AnyNeeds(pile_need), (0, 1, 2, 3), mask, talon, pos, turn, k, 10**6)[0]]
        if sizes:
            proved += 1
            need = [row[c] | pile_need[c] for c in range(52)]
            assert not _winnable_with_any_needs(need, talon, pos, tuple(piles), mask, turn), (talon, pos, piles, turn)
    assert proved >= 300


def test_the_front_positions_of_the_win_search_stay_within_the_node_limit():
    # The deep front game adds its positions to the count; it is never started past the limit.
    rules = preset("bridesmaids")
    start = State.initial(deal_for(41804, rules), rules)
    for nodes in (2_500, 5_000, 8_000):
        res = solve(start, Limit(nodes=nodes), want="win")
        assert res.winnable is None and res.nodes <= nodes + 1  # the position that meets the limit


@pytest.mark.parametrize(("number", "order", "size", "found"), [
    (2, (2, 0, 1, 3), 24, (True, 45342)),
    (6, (1, 0, 3, 2), 21, (True, 21292)),
    (6, (1, 0, 3, 2), 24, (True, 86661)),
    (6, (1, 2, 0, 3), 24, (None, 100001)),
])
def test_the_front_game_visits_the_same_positions_as_it_always_has(number, order, size, found):
    """The answer and the count of front positions, pinned: the count decides what a node limit leaves
    undecided, so a faster front game must still visit exactly these (stored survey results rest on them).
    The values are those of the game before its closures were kept (stop 44)."""
    rules = RULES["bridesmaids"]
    state = State.initial(deal_for(number, rules), rules)
    needs = Needs(state.reserves, state.base % 13)
    assert front_lost(needs, order, state.mask(), tuple(state.talon), state.pos, rules.turn, size,
                      100_000) == found
