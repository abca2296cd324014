"""Words of the advice commands (solve, hint, review) found wrong by the second advice audit."""

from __future__ import annotations

import tempfile

from builders import osmosis

from tutor.deals import deal_for
from tutor.rules import preset
from tutor.state import State

HOME = tempfile.mkdtemp(prefix="osmosis-advice-words-")  # never the real data folder


def run(*args: str):
    return osmosis(list(args), HOME, catch=True)


def greedy(number: int, variant: str = "osmosis") -> list[str]:
    """The greedy policy's moves (benchmarks/greedy_moves.py): the first legal move each time."""
    rules = preset(variant)
    state = State.initial(deal_for(number, rules), rules)
    moves = []
    while state.legal_moves():
        move = state.legal_moves()[0]
        moves.append(str(move))
        state = state.apply(move)
    return moves


def flat(text: str) -> str:
    return " ".join(text.split())


# --- solve ---------------------------------------------------------------------------------------------


def test_solve_after_moves_does_not_call_a_winnable_deal_lost_from_the_start():
    """Peek deal 3 is winnable; greedy move 27 (r3 TH) opens row 3 for hearts, and that row order loses."""
    assert "winnable" in run("solve", "3", "--variant", "peek").output
    out = flat(run("solve", "3", "--variant", "peek", "--moves", " ".join(greedy(3, "peek")[:27])).output)
    assert "from the start" not in out
    assert "Lost now, after 27 moves, by the row order chosen:" in out
    assert "rows opened so far (clubs, diamonds, hearts)" in out and "JH lies above 8H in pile 2" in out


def test_solve_of_a_deal_lost_from_the_start_says_so_with_or_without_moves():
    assert "Lost from the start: 8H lies above 8S" in flat(run("solve", "7").output)
    assert "Lost from the start: 8H lies above 8S" in flat(run("solve", "7", "--moves", "d d").output)


def test_solve_counts_take_the_singular_for_one():
    out = flat(run("solve", "5", "--moves", " ".join(greedy(5))).output)
    assert "1 position searched" in out and "1 positions" not in out
    out = flat(run("solve", "23", "--moves", " ".join(greedy(23)[:82])).output)
    assert "A winning line of 1 move (1 play) follows." in out


def test_solve_of_a_won_game_says_it_is_won():
    moves = greedy(23)
    out = flat(run("solve", "23", "--moves", " ".join(moves)).output)
    assert f"Deal 23 after {len(moves)} moves" in out and ": won: all 52 cards are on the foundations" in out
    assert "winnable" not in out and "0 moves" not in out
