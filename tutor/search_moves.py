"""The talon arithmetic of the solver: folded moves, turn stops and the per-row-order tables.

Shared by the hot loop (:mod:`tutor.search_dfs`), the solver's driver
(:mod:`tutor.search`) and the explored DAG (:mod:`tutor.graph`). See
:mod:`tutor.search` for how the search works.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Literal

from .notation import RESERVE_MOVES, TURN, WASTE, Move

if TYPE_CHECKING:
    from .state import State


Step = tuple[Move, ...]
"""The atomic moves of one folded move (turns, then the play): one entry of a line."""

Target = tuple[int, int, int]
"""A child in the search: (waste position it is played from, turns to get there, 1 if after a redeal)."""

Status = Literal["won", "done", "paused", "stopped"]
"""How :meth:`_Search.run` ended."""


def _pass_then_late(target: Target) -> tuple[int, int]:
    return target[2], -target[0]


OPTIONS = {"late_first": True, "rounds": True, "cut_cycles": True, "dominance": True, "buried": True,
           "last_pass": True, "talon_order": True, "last_card": True,
           "spacers": True, "front": True, "deep_front": True, "sweep": True}
"""Switches of the search, for benchmarks/solve.py to measure what each idea buys."""

FIRST_BUDGET = 2000
"""Node budget of each row order in the first round of the win search (then x4 each round)."""



@cache
def _need_table(rows: tuple[int, ...], order: tuple[int, ...], base: int) -> tuple[tuple[int, ...], int]:
    """Per card, under the full row order ``order``: the placed-card bit it needs to be playable
    now (> 0), -1 if it opens the next row of ``order``, 0 if it cannot be played.

    A row-1 card needs the base card (always placed). Also returns a small code of the rows.
    """
    start = base % 13
    table = [0] * 52
    for k, suit in enumerate(rows):
        for r in range(13):
            table[suit * 13 + r] = 1 << base if k == 0 else 1 << (rows[k - 1] * 13 + r)
    if len(rows) < 4:
        table[order[len(rows)] * 13 + start] = -1
    code = len(rows)
    for i, s in enumerate(rows):
        code |= s << (3 + 2 * i)
    return tuple(table), code


def _last_card_first(targets: list[Target], length: int, only: bool) -> list[Target]:
    """The children left once the talon's last card ``c`` is known to be playable.

    Playing ``c`` (turn to the end, play it) loses nothing after a redeal: with ``c`` gone
    the cards before it keep their places, so every turn stop of a later pass is still a
    stop (the one at ``c`` becomes the stop at the card before it), and any line from a
    redeal without ``c`` on the foundations is a line with it. So every play after a redeal
    is dominated by that child: drop them. If the stops left in this pass are those of a
    redeal too (``only``: the waste position is a multiple of the turn) and passes are
    unlimited (a play now is worth no more than the same play after a redeal), every other
    child is dominated as well.
    """
    if only:
        return [t for t in targets if t[0] == length and not t[2]] or [t for t in targets if not t[2]]
    return [t for t in targets if not t[2]]


def _turns_to(length: int, pos: int, target: int, turn: int) -> tuple[int, bool]:
    """Turns needed from waste position ``pos`` until position ``target``, and whether it redeals."""
    if target >= pos and (target == pos or target == length or (target - pos) % turn == 0):
        if target == pos:
            return 0, False
        return -(-(target - pos) // turn), False
    to_end = -(-(length - pos) // turn)
    return to_end + 1 + -(-target // turn), True



def folded_moves(state: State) -> list[tuple[int, Step]]:
    """Every card playable from ``state`` by turning the talon and then playing it.

    Returns (card, atomic moves) pairs: reserve plays first, then talon plays
    in the order they show (this pass first, then after a redeal).
    """
    out: list[tuple[int, Step]] = []
    for i, pile in enumerate(state.reserves):
        if pile and state.destination(pile[-1]) >= 0:
            out.append((pile[-1], (RESERVE_MOVES[i],)))
    talon, pos, turn = state.talon, state.pos, state.rules.turn
    length = len(talon)
    seen: set[int] = set()
    targets: list[int] = []
    if pos:
        targets.append(pos)
    q = pos
    while q < length:
        q = min(q + turn, length)
        targets.append(q)
    if state.progress and (state.rules.passes == 0 or state.pass_no < state.rules.passes) and length:
        q = 0
        while q < length:
            q = min(q + turn, length)
            targets.append(q)
    for q in targets:
        if q in seen:
            continue
        seen.add(q)
        card = talon[q - 1]
        if state.destination(card) >= 0:
            k, _ = _turns_to(length, pos, q, turn)
            out.append((card, (TURN,) * k + (WASTE,)))
    return out
