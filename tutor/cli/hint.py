"""``osmosis hint``: the best move for the player, from the cards the player has seen."""

from __future__ import annotations

import json
from typing import Any

import click

from ..advice import advise as compute_hint
from ..hints import DEFAULT_SAMPLES, HINT_NODES
from ..knowledge import observe
from ..render import cards_interval_cell, differs_blind, render_hint, render_state, use_symbols
from ..state import State
from ..talon import waste_fan
from .app import console_of
from .common import (
    DEAL_NUMBER,
    FILE,
    DealCommand,
    check_record_rules,
    record_from_file,
    resolve_deal,
    rules_from_kwargs,
    variant_options,
)
from .words import MOVES, follow

MAX_SAMPLES = 1000  # the same bound as review's; beyond it a hint takes minutes and gains nothing visible


@click.command("hint", cls=DealCommand)
@click.argument("number", type=DEAL_NUMBER, required=False)
@click.option("--deal-file", type=FILE, default=None, help="A deal file (JSON) instead of a number.")
@click.option("--record", "record_path", type=FILE, default=None,
              help="A game record (a file, 'last', or a number from osmosis games): the hint is for the "
                   "position after its moves.")
@variant_options
@click.option("--moves", "tokens", type=MOVES, default=None,
              help='Moves to play first (after the record\'s), e.g. "d w r2" (card names too, as in play).')
@click.option("--samples", type=click.IntRange(1, MAX_SAMPLES), default=None,
              help=f"Most deals to sample from what you have seen (default {DEFAULT_SAMPLES}, at most {MAX_SAMPLES}; "
                   "samples stop early once the answer is settled, or once the searches have visited "
                   f"{HINT_NODES:,} positions a deal of this budget); more is slower and steadier.")
@click.option("--json", "as_json", is_flag=True, help="Print the hint as JSON.")
@click.pass_context
def hint_command(ctx: click.Context, number: int | None, deal_file: str | None, record_path: str | None,
                 tokens: list[str] | None, samples: int | None, as_json: bool, **kwargs: Any) -> None:

    """The best move for the player, who sees only the face-up cards.

    Every legal move gets its chance to win and its expected final score,
    estimated from deals consistent with what you have seen (the face-down
    cards are never looked at), and the best one comes with the reason.
    """
    if record_path is not None:
        if number is not None or deal_file is not None:
            raise click.UsageError("--record takes the deal from the record: give no deal number or --deal-file "
                                   "with it")
        from .games import resolve_resume

        record = record_from_file(str(resolve_resume(record_path, "read")))
        check_record_rules(kwargs, record.rules, "--record")
        played, state = list(record.moves), record.replay()
        states = record.states()
    else:
        if number is None and deal_file is None:
            raise click.UsageError("give a deal number, --deal-file or --record")
        rules = rules_from_kwargs(kwargs, deal_file=deal_file)
        state = State.initial(resolve_deal(number, deal_file, rules), rules)
        played, states = [], [state]
    # the positions along the way too, so the board shows the waste as play shows it
    after, moves = follow(state, tokens)
    states += after[1:]
    played += moves
    state = states[-1]
    console = console_of(ctx)
    if not state.legal_moves():
        # A finished game is a valid position with nothing to choose: say so, in JSON too.
        reason = (f"The game is over ({'won' if state.won else 'blocked'} with {state.cards} card{'s' if state.cards != 1 else ''} on the "
                  "foundations): there is no move to hint.")
        if as_json:
            click.echo(json.dumps({"best": None, "candidates": [], "reason": reason, "over": True}))
        else:
            console.print(reason)
        return
    obs = observe(state)
    if as_json or not console.is_terminal:
        result = compute_hint(obs, samples=samples)
    else:
        with console.status("Thinking..."):
            result = compute_hint(obs, samples=samples)
    if as_json:
        data = result.to_json()
        if any(c.blind is not None for c in result.candidates):
            # the deals behind each candidate's blind_win (and its blind_interval): the search's own (all of them
            # when exact)
            from ..narrate.blind import drawn_deals, search_count

            exact = str(result.method) == "exact"
            data["blind_deals"] = result.samples if exact else search_count(drawn_deals(obs, samples))
            for cand in data["candidates"]:  # each blind figure with its deals, as the review's candidates have
                if "blind_win" in cand:
                    cand["blind_deals"] = data["blind_deals"]
        if state.rules.warning():  # the spec: the tutor says so when asked
            data["note"] = f"{state.rules.warning()}."
        click.echo(json.dumps(data))
        return
    symbols = use_symbols(console)
    if state.rules.warning():
        console.print(f"Note: {state.rules.warning()}.")
    console.print(render_state(state, symbols=symbols, fan=waste_fan(states, played)))
    console.print()
    console.print(render_hint(result, state, symbols=symbols))
    # the reason says how many deals its figures rest on (and that they are the same for every move)
    certain = all(c.interval[0] == c.interval[1] and c.cards_interval[0] == c.cards_interval[1]
                  for c in result.candidates)  # a settled hint's certain figures (tutor.advice): no interval
    intervals = "" if result.exact or certain else "95% intervals; "
    # the key for every "same" the table shows (a settled hint's cards too: they were left without one)
    ruled = getattr(result, "cards_certain", False)
    same = any(cards_interval_cell(c, ruled) == "same" for c in result.candidates)
    console.print(f"({intervals}{result.seconds:.1f} s; only cards you have seen were used; cards: the cards "
                  "expected on the foundations at the end" + ("; same: every sampled deal gives that count" if same else "")
                  + ("; blind: the win chance of a player who sees only the table, from the search over the cards "
                     "still to turn up" if differs_blind(result.candidates) else "")
                  + ")", style="dim")
