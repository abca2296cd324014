"""The ``osmosis`` command: a click group, with the commands of this package's modules added to it.

Commands are thin: parse the arguments, call the library, hand the result
to :mod:`tutor.render`. A :class:`~tutor.errors.TutorError` becomes one line
on stderr and exit status 1, never a traceback.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from typing import Any

import click

from .. import __version__
from ..errors import TutorError
from ..textsafe import clean, os_reason, quoted, tame
from .app import Application, app_of, console_of

__all__ = ["main", "Application", "app_of", "console_of"]


def _open_missing_streams() -> None:
    """A standard stream the shell closed (``<&-``) reads as empty input, or swallows output."""
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (lives as long as the process)
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115


class _WholeWrites(io.RawIOBase):
    """The output's file descriptor, written in full or not at all: Python's own buffered stdout lets a short
    write pass in silence (a file size limit, a disk filling up), and ``osmosis export > backup.jsonl`` said
    nothing where the backup kept its first 1024 bytes. Here the rest is written, so the error is raised."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += os.write(self._fd, view[done:])
        return done


def _whole_writes_to_a_file() -> None:
    """Where the output is a regular file (``> FILE``), give ``sys.stdout`` a layer that raises on a short
    write (:class:`_WholeWrites`); a terminal or a pipe is written whole or fails by itself."""
    import stat

    out = sys.stdout
    try:
        if not stat.S_ISREG(os.fstat(out.fileno()).st_mode):
            return
        out.flush()
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(_WholeWrites(out.fileno())), encoding=out.encoding,
                                      errors=out.errors, line_buffering=bool(out.line_buffering))
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return  # a stream with no file (a test's), or one already failing: left as it is


def _open_files_limit() -> str:
    try:
        import resource

        return str(resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    except (ImportError, OSError, ValueError):
        return "unknown"


def _output_failed(exc: OSError) -> None:
    """The output cannot be written (a full disk, a device error): one line on stderr, nothing more at exit."""
    try:  # what is still buffered for the failed output would fail again when Python exits
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    try:
        sys.stderr.write(f"error: the output cannot be written: {exc.strerror or exc}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


#: Each command's module and name there: a command's module is imported when the command runs (or help lists
#: it), so ``osmosis hint`` does not first import the review, the history and the lessons (0.44 s of start).
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("play", "play_command"), "deal": ("play", "deal_command"), "replay": ("play", "replay_command"),
    "games": ("games", "games_command"), "hint": ("hint", "hint_command"), "review": ("review", "review_command"),
    "solve": ("solve", "solve_command"), "stats": ("stats", "stats_command"), "lesson": ("lesson", "lesson_command"),
    "variants": ("variants", "variants"), "history": ("history", "history_command"),
    "coach": ("coach", "coach_command"), "drill": ("drill", "drill_command"),
    "import": ("history", "import_command"), "export": ("history", "export_command"),
}


class TutorGroup(click.Group):
    """A click group that turns library errors into one line and exit status 1, its commands loaded as
    they are wanted (:data:`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            from importlib import import_module

            module, name = COMMANDS[cmd_name]
            try:
                command = getattr(import_module(f"{__name__}.{module}"), name)
            except KeyboardInterrupt:  # loaded for help too, where click would say "Aborted!" with status 1
                click.echo("interrupted", err=True)
                sys.exit(130)
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                             list[str]]:
        if args and args[0] not in COMMANDS:  # click suggests the nearest of the commands loaded: all of them
            for name in COMMANDS:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        _open_missing_streams()
        _whole_writes_to_a_file()
        try:
            return super().main(*args, **kwargs)
        except OSError as exc:  # click itself handles a closed pipe; this is any other write error
            if exc.errno == errno.EMFILE:  # it named whichever file it was opening (a module of Python's, say)
                click.echo("error: too many files are open at once for this command: raise the limit (ulimit -n, "
                           f"now {_open_files_limit()}) and run it again", err=True)
                sys.exit(1)
            if exc.filename is not None:  # a file, not the output: one removed while the command ran, say
                gone = " (it was removed while the command ran: run the command again)" if isinstance(
                    exc, FileNotFoundError) else ""
                click.echo(tame(f"error: {quoted(exc.filename)}: {os_reason(exc)}{gone}"), err=True)
                sys.exit(1)
            from ..storage import CWD_GONE, cwd_gone

            if isinstance(exc, FileNotFoundError) and cwd_gone():  # a relative name, not the output
                click.echo(f"error: {CWD_GONE}, and run the command again", err=True)
                sys.exit(1)
            _output_failed(exc)
            sys.exit(1)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TutorError as exc:
            # One line, whatever the message quotes: no newline or control code gets through.
            click.echo(f"error: {tame(clean(exc))}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)
        except MemoryError:  # a memory limit (ulimit -v) below what the command needs
            _out_of_memory(ctx)
        except RuntimeError as exc:
            if "can't start new thread" not in str(exc):  # the same, for a thread's stack
                raise
            _out_of_memory(ctx)


def _out_of_memory(ctx: click.Context) -> None:
    click.echo("error: the command ran out of memory: raise the memory limit (ulimit -v) or free some memory, and "
               "run it again", err=True)
    ctx.exit(1)


@click.group(cls=TutorGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="osmosis")
@click.pass_context
def main(ctx: click.Context) -> None:
    """A tutor for the patience game Osmosis (Treasure Trove).

    Play deals in the terminal, ask for hints, review a finished game, take
    lessons, or solve and survey deals.
    """
    app_of(ctx)  # the Application in ctx.obj: one Console (markup off) for every command
