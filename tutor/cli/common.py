"""Options and argument types shared by several commands."""

from __future__ import annotations

import click

from ..deals import Deal, check_rules, deal_for, load_deal
from ..errors import IllegalMoveError
from ..notation import Move, parse_moves
from ..state import State
from ..rules import Rules, preset


def variant_options(f):
    """--variant and the options that override it one by one."""
    f = click.option("--reserve-piles", type=click.IntRange(0, 4), default=None,
                     help="Reserve piles of four cards (0 = none, as in Bridesmaids).")(f)
    f = click.option("--open-reserve/--no-open-reserve", default=None,
                     help="All reserve cards face up (as in Peek).")(f)
    f = click.option("--passes", type=click.IntRange(0), default=None,
                     help="Passes through the talon allowed, 0 = unlimited.")(f)
    f = click.option("--turn", type=click.Choice(["1", "3"]), default=None,
                     help="Cards turned from the talon at a time.")(f)
    f = click.option("--variant", "-v", default=None, metavar="NAME",
                     help="osmosis (default), peek, single, limited, bridesmaids, or an alias.")(f)
    return f


def rules_from(variant: str | None, turn=None, passes=None, open_reserve=None, reserve_piles=None,
               default: Rules | None = None) -> Rules:
    """The rule set from a preset name (or a default) and option overrides."""
    base = preset(variant) if variant else (default or preset("osmosis"))
    return base.with_options(turn=int(turn) if turn is not None else None, passes=passes,
                             open_reserve=open_reserve, reserve_piles=reserve_piles)


def rules_from_kwargs(kwargs: dict, default: Rules | None = None, deal_file: str | None = None) -> Rules:
    """Pop the variant options out of a command's kwargs and build the rules.

    A deal file with another number of reserve piles (a Bridesmaids deal has
    none) sets that number, unless --variant or --reserve-piles says otherwise.
    """
    explicit = kwargs.get("variant") is not None or kwargs.get("reserve_piles") is not None
    rules = rules_from(kwargs.pop("variant", None), kwargs.pop("turn", None), kwargs.pop("passes", None),
                       kwargs.pop("open_reserve", None), kwargs.pop("reserve_piles", None), default=default)
    if deal_file is not None and not explicit:
        piles = load_deal(deal_file).reserve_piles
        if piles != rules.reserve_piles:
            rules = rules.with_options(reserve_piles=piles)
    return rules


def resolve_deal(number: int | None, deal_file: str | None, rules: Rules) -> Deal:
    """A deal from a number or a deal file (exactly one of them)."""
    if number is not None and deal_file is not None:
        raise click.UsageError("give a deal number or --deal-file, not both")
    if deal_file is not None:
        deal = load_deal(deal_file)
        check_rules(deal, rules)
        return deal
    if number is None:
        raise click.UsageError("give a deal number or --deal-file")
    return deal_for(number, rules)


def position_after(state: State, moves) -> State:
    """The position after ``--moves``; an illegal move names its number."""
    for i, move in enumerate(moves or [], 1):
        try:
            state = state.apply(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"move {i} of --moves ({move}): {exc}") from None
    return state


class MovesType(click.ParamType):
    """A list of move tokens, ``"d w r2"``."""

    name = "moves"

    def convert(self, value, param, ctx) -> list[Move]:
        if isinstance(value, list):
            return value
        # A bad token is an input error (exit 1), not a usage error.
        return parse_moves(value)


class DealNumberType(click.ParamType):
    name = "N"

    def convert(self, value, param, ctx) -> int:
        from ..deals import parse_deal_number

        if isinstance(value, int):
            return value
        return parse_deal_number(value)


MOVES = MovesType()
DEAL_NUMBER = DealNumberType()
