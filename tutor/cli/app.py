"""The application object that travels in the click context (``ctx.obj``), as hatch does.

One place for what every command shares: the rich Console (markup off, so
text that came from a file or a deal is never read as rich markup), whether
cards are drawn with suit symbols, and the data folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import click
from rich.console import Console
from rich.segment import Segment

from ..render import use_symbols
from ..storage import data_dir

_TRAILING = re.compile(r" +(?=\n)")


class PlainConsole(Console):
    """A Console whose output to a pipe or a file has no trailing spaces (rich pads wrapped lines and tables).

    On a terminal nothing changes: the spaces are invisible there and may sit inside a style's codes.
    ``two_letters``: cards in two letters even on a terminal (``--plain``).
    """

    two_letters = False

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:  # rich's one place where output becomes text
        text = super()._render_buffer(buffer)
        return text if self.is_terminal else _TRAILING.sub("", text)


MIN_WIDTH = 20
"""Narrower than this (``COLUMNS=0``, say) is no width to lay text out in: rich would print nothing at all,
so the console takes 80 columns instead, as it does when the width is unknown."""


def new_console() -> Console:
    console = PlainConsole(highlight=False, soft_wrap=False, markup=False)
    if console.width < MIN_WIDTH:
        console.width = 80
    return console


@dataclass
class Application:
    """What the commands of one ``osmosis`` run share."""

    console: Console = field(default_factory=new_console)

    @property
    def symbols(self) -> bool:
        """Cards with suit symbols (a terminal) or in two letters (pipes, files)."""
        return use_symbols(self.console)

    @property
    def data_dir(self) -> Path:
        return data_dir()


def app_of(ctx: click.Context) -> Application:
    """The run's :class:`Application`; made on first use (a context built by hand, a test)."""
    root = ctx.find_root()
    obj = root.obj
    if isinstance(obj, Application):
        return obj
    console = obj.get("console") if isinstance(obj, dict) else None
    app = Application(console or new_console())
    root.obj = app
    return app


def console_of(ctx: click.Context) -> Console:
    """The one rich Console that travels in the click context."""
    return app_of(ctx).console
