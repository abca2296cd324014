"""Test builders from notation: a deal laid out by hand from card names, a position from moves,
and the check that a command handled bad input cleanly."""

from __future__ import annotations

import re

from click.testing import CliRunner, Result

from tutor.cards import parse_card, parse_cards
from tutor.deals import Deal, deal_for
from tutor.rules import Rules, preset
from tutor.state import State


def osmosis(args, home, input=None, env: dict | None = None, catch: bool = False) -> Result:
    """Run the ``osmosis`` command as every CLI test does: plain output, 100 columns, ``home`` as
    $OSMOSIS_HOME (``env`` adds or overrides variables). The ``run`` fixture is this with a fresh home."""
    from tutor.cli import main

    runner = CliRunner(env={"NO_COLOR": "1", "COLUMNS": "100", "OSMOSIS_HOME": str(home), **(env or {})})
    return runner.invoke(main, args, input=input, catch_exceptions=catch)


def make_deal(reserves: list[str], base: str, talon: str = "") -> Deal:
    """A deal from card names: piles bottom to top, the base card, then the start of the talon.

    Cards not named go to the end of the talon in card order (S H D C, A to K),
    so a test names only the cards that matter to it.
    """
    piles = tuple(tuple(parse_cards(p)) for p in reserves)
    head = parse_cards(talon)
    used = {c for p in piles for c in p} | {parse_card(base)} | set(head)
    rest = [c for c in range(52) if c not in used]
    return Deal(piles, parse_card(base), tuple(head + rest))


def position(deal: Deal | int, moves: str = "", rules: Rules | str = "osmosis") -> State:
    """The position after ``moves`` (tokens) from a deal or a deal number."""
    rules = preset(rules) if isinstance(rules, str) else rules
    if isinstance(deal, int):
        deal = deal_for(deal, rules)
    return State.initial(deal, rules).play(moves.split())


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def greedy_moves(number: int, variant: str = "osmosis") -> list[str]:
    """The greedy policy's game of a deal (benchmarks/greedy_moves.py): the first legal move each time, to the end."""
    rules = preset(variant)
    state, moves = State.initial(deal_for(number, rules), rules), []
    while state.legal_moves():
        moves.append(str(state.legal_moves()[0]))
        state = state.apply(state.legal_moves()[0])
    return moves


def assert_handled(result, allowed=(0, 1)) -> None:
    """The command ended cleanly: an allowed exit status, no traceback, an error as one line, no control codes."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in allowed, (result.exit_code, result.output[-500:])
    assert "Traceback" not in result.output
    if result.exit_code == 1:
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, result.stderr
    for stream in (result.stdout, result.stderr):
        assert not CONTROL.search(stream), repr(CONTROL.search(stream))


def unsavable(tmp_path, monkeypatch, number: int = 5):
    """A board game of deal ``number`` whose games folder cannot be made (a file stands where it would go), as
    Session.open finds it."""
    import io

    import click
    from rich.console import Console

    from tutor.cli import main
    from tutor.cli.session import Session
    from tutor.record import Game

    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "games").touch()
    monkeypatch.setenv("OSMOSIS_HOME", str(tmp_path / "h"))
    ctx = click.Context(main, obj={"console": Console(file=io.StringIO(), width=80)})
    return Session.open(ctx, Game.new(number, "osmosis"), False, 10.0, board=True)
