"""``osmosis variants``: the named rule sets, their aliases and options."""

from __future__ import annotations

import json

import click

from ..rules import ALIASES, PRESET_NOTES, PRESETS
from ..table import Table
from .app import console_of


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the presets as JSON.")
@click.pass_context
def variants(ctx: click.Context, as_json: bool) -> None:
    """List the variants (presets) and the options each one sets.

    Every preset is a combination of --turn, --passes, --open-reserve and
    --reserve-piles, which the commands that set up a deal (deal, play, solve,
    hint, stats) also take one by one; a game record names its own.
    """
    aliases = {name: [a for a, target in ALIASES.items() if target == name] for name in PRESETS}
    if as_json:
        click.echo(json.dumps([{"name": name, "aliases": aliases[name], "turn": r.turn, "passes": r.passes,
                                "open_reserve": r.open_reserve, "reserve_piles": r.reserve_piles,
                                "note": PRESET_NOTES[name]} for name, r in PRESETS.items()], indent=2))
        return
    table = Table(box=None, pad_edge=False)
    for column in ("variant", "also", "turn", "passes", "reserve", "about"):
        table.add_column(column)
    for name, r in PRESETS.items():
        reserve = "none" if r.reserve_piles == 0 else f"{r.reserve_piles}x4, " + ("all up" if r.open_reserve else "top up")
        table.add_row(name, ", ".join(aliases[name]), str(r.turn), str(r.passes or "unlimited"), reserve,
                      PRESET_NOTES[name])
    console = console_of(ctx)
    console.print(table)
    console.print("Options override a preset one by one, e.g. --variant osmosis --turn 1 --passes 3 "
                  "(GNOME Aisleriot's default).")
