"""What ``osmosis import`` says it did: only what it changed counts as imported, in games, reviews and drills."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..history.transfer import ImportResult


def counted(*counts: tuple[int, str]) -> str:
    """``1 review, 2 drills``: the counts that are not 0, each with its word."""
    return ", ".join(f"{n} {what}{'s' if n != 1 else ''}" for n, what in counts if n)


def imported_lines(total: ImportResult) -> list[str]:
    """What an import says it did: only what it changed is counted as imported."""
    new = len(total.new)
    # a row that held the first moves of a file's game, brought up to it (a game played on from s FILE)
    grown = len(total.grown - total.new)
    distinct = len(total.ids) or total.games  # one game named twice (import f.json f.json) is one game
    said = []
    if total.games and not (new or grown or total.new_reviews or total.new_drills):
        held = counted((distinct, "game"), (total.reviews, "review"), (total.drills, "drill"))
        said.append(f"Nothing new to import: the {held} {'was' if held == '1 game' else 'were'} in your history "
                    "already, and each is kept once.")
    elif not (new or grown) and total.games:
        changed = counted((total.new_reviews, "review"), (total.new_drills, "drill"))
        said.append(f"Imported {changed} into your history (the {counted((distinct, 'game'))} "
                    f"{'was' if distinct == 1 else 'were'} in it already).")
    elif total.games or not (total.problems or total.empty or total.unbegun):
        # counted: the games it added or brought up to the file's moves, not those it found there already
        games = counted((new + grown, "game")) or "0 games"
        extra = "".join(f", {part}" for part in [counted((total.new_reviews, "review"), (total.new_drills, "drill"))]
                        if part)
        notes = []
        if grown:
            one = grown == 1
            notes.append(f"{grown} of them {'was' if one else 'were'} there with {'its' if one else 'their'} first "
                         f"moves only, and now {'holds' if one else 'hold'} the whole game")
        there = distinct - new - grown
        if there > 0:
            notes.append(f"{counted((there, 'other game'))} {'was' if there == 1 else 'were'} in it already")
        fresh = f" ({'; '.join(notes)})" if notes else ""
        said.append(f"Imported {games}{extra} into your history{fresh}.")
    if total.empty:
        one = len(total.empty) == 1
        said.append(f"{', '.join(total.empty)} {'holds' if one else 'hold'} no game (an export of a history with "
                    f"none is an empty file): nothing to import from {'it' if one else 'them'}.")
    if total.unbegun:
        one = len(total.unbegun) == 1
        said.append(f"{', '.join(total.unbegun)} {'holds a game' if one else 'hold games'} with no move played "
                    "yet: nothing to import (your history counts a game from its first move; osmosis play "
                    f"--resume {total.unbegun[0] + ' plays it' if one else 'FILE plays each'}).")
    if total.replaced:  # counted in games: two files reviewing one game replace one review
        n = len(total.replaced)
        said.append(f"The imported review of {n} game{'' if n == 1 else 's'} replaced your history's own: "
                    f"{'it was' if n == 1 else 'they were'} made with more samples.")
    if total.rougher:
        one = total.rougher == 1
        said.append(f"Your history keeps its own review of {total.rougher} game{'' if one else 's'}: the file's "
                    f"{'was' if one else 'were'} made with fewer samples or other thresholds.")
    return said
