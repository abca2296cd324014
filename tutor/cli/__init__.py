"""The ``osmosis`` command: a click group whose commands live in the modules of this package.

Commands are thin: parse the arguments, call the library, hand the result
to :mod:`tutor.render`. A :class:`~tutor.errors.TutorError` becomes one line
on stderr and exit status 1, never a traceback.
"""

from __future__ import annotations


import click
from rich.console import Console

from .. import __version__
from ..errors import TutorError
from ..textsafe import clean


class TutorGroup(click.Group):
    """A click group that turns library errors into one line and exit status 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TutorError as exc:
            # One line, whatever the message quotes: no newline or control code gets through.
            click.echo(f"error: {clean(exc)}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


@click.group(cls=TutorGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="osmosis")
@click.pass_context
def main(ctx: click.Context) -> None:
    """A tutor for the patience game Osmosis (Treasure Trove).

    Play deals in the terminal, ask for hints, review a finished game, take
    lessons, or solve and survey deals.
    """
    ctx.ensure_object(dict)
    ctx.obj.setdefault("console", Console(highlight=False, soft_wrap=False))


def console_of(ctx: click.Context) -> Console:
    """The one rich Console that travels in the click context."""
    obj = ctx.find_root().obj or {}
    return obj.get("console") or Console(highlight=False)


# Each module registers its commands on ``main`` when imported.
from . import common  # noqa: E402,F401
from . import play  # noqa: E402,F401
from . import lesson  # noqa: E402,F401
from . import review  # noqa: E402,F401
from . import solve  # noqa: E402,F401
from . import stats  # noqa: E402,F401
from . import hint  # noqa: E402,F401
from . import variants  # noqa: E402,F401
from . import history  # noqa: E402,F401
from . import games  # noqa: E402,F401
