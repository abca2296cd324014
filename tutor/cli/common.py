"""Options and argument types shared by several commands, and the one way to read a typed line."""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..deals import DEAL_RANGE, MAX_DEAL_NUMBER, Deal, check_rules, deal_for, load_deal
from ..errors import DealError
from ..record import RECORD_FORMAT, Record, load_record, plain_rules
from ..rules import MAX_PASSES, Rules, preset
from ..textsafe import clean, quoted

if TYPE_CHECKING:
    from rich.console import Console

F = TypeVar("F", bound=Callable[..., Any])


def variant_options(f: F) -> F:
    """--variant and the options that override it one by one."""
    f = click.option("--reserve-piles", type=click.IntRange(0, 4), default=None,
                     help="Reserve piles of four cards (0 = none, as in Bridesmaids).")(f)
    f = click.option("--open-reserve/--no-open-reserve", default=None,
                     help="All reserve cards face up (as in Peek).")(f)
    f = click.option("--passes", type=click.IntRange(0, MAX_PASSES), default=None,
                     help=f"Passes through the talon allowed, 0 = unlimited (at most {MAX_PASSES}).")(f)
    f = click.option("--turn", type=click.Choice(["1", "3"]), default=None,
                     help="Cards turned from the talon at a time.")(f)
    f = click.option("--variant", "-v", default=None, metavar="NAME",
                     help="osmosis (default), peek, single, limited, bridesmaids, or an alias.")(f)
    return f


def rules_from(variant: str | None, turn: str | int | None = None, passes: int | None = None,
               open_reserve: bool | None = None, reserve_piles: int | None = None,
               default: Rules | None = None) -> Rules:
    """The rule set from a preset name (or a default) and option overrides; ``--variant ''`` is an error."""
    base = preset(variant) if variant is not None else (default or preset("osmosis"))
    # no reserve: "open" changes nothing, so the rules are one name for one game (Bridesmaids)
    return plain_rules(base.with_options(turn=int(turn) if turn is not None else None, passes=passes,
                                         open_reserve=open_reserve, reserve_piles=reserve_piles))


def rules_from_kwargs(kwargs: dict[str, Any], default: Rules | None = None, deal_file: str | None = None) -> Rules:
    """Pop the variant options out of a command's kwargs and build the rules.

    A deal file with another number of reserve piles (a Bridesmaids deal has
    none) sets that number, unless --variant or --reserve-piles says otherwise.
    """
    explicit = kwargs.get("variant") is not None or kwargs.get("reserve_piles") is not None
    rules = rules_from(kwargs.pop("variant", None), kwargs.pop("turn", None), kwargs.pop("passes", None),
                       kwargs.pop("open_reserve", None), kwargs.pop("reserve_piles", None), default=default)
    if deal_file is not None and not explicit:
        piles = deal_from_file(deal_file).reserve_piles
        if piles != rules.reserve_piles:
            rules = rules.with_options(reserve_piles=piles)
    return rules


def check_record_rules(kwargs: dict[str, Any], rules: Rules, option: str) -> None:
    """With ``option`` (--record, --resume) the record sets the variant: variant options may name it again
    (``--variant osmosis`` for an Osmosis record), never another one."""
    if all(v is None for v in kwargs.values()):
        return
    asked = rules_from_kwargs(dict(kwargs), default=rules)
    if asked != rules:
        raise click.UsageError(f"{option} takes the variant from the record ({rules.describe()}), and the "
                               f"variant options given ask for another ({asked.describe()}): leave them out")


def deal_from_file(path: str) -> Deal:
    """The deal in ``path``, read once per command: ``/dev/stdin`` and ``<(...)`` can be read only once."""
    ctx = click.get_current_context(silent=True)
    cache: dict[str, Deal] = ctx.meta.setdefault("tutor.deal_files", {}) if ctx is not None else {}
    if path not in cache:
        try:
            cache[path] = load_deal(path)
        except DealError as exc:  # a game record where a deal file belongs: where a record goes
            if f"format {RECORD_FORMAT!r} is not supported" not in str(exc):
                raise
            raise DealError(f"{exc} (that is a game record: osmosis play --resume, hint --record, review and "
                            "replay take it)") from None
    return cache[path]


def resolve_deal(number: int | None, deal_file: str | None, rules: Rules) -> Deal:
    """A deal from a number or a deal file (exactly one of them)."""
    if number is not None and deal_file is not None:
        raise click.UsageError("give a deal number or --deal-file, not both")
    if deal_file is not None:
        deal = deal_from_file(deal_file)
        check_rules(deal, rules)
        return deal
    if number is None:
        raise click.UsageError("give a deal number or --deal-file")
    return deal_for(number, rules)


def rules_flags(rules: Rules) -> str:
    """The options that give ``rules`` on the command line, after a space: `` --variant peek``, `` --turn 1
    --passes 3``; nothing for the default (osmosis)."""
    if rules.name is not None:
        return "" if rules.name == "osmosis" else f" --variant {rules.name}"
    default = Rules()
    flags = [f"--turn {rules.turn}" if rules.turn != default.turn else "",
             f"--passes {rules.passes}" if rules.passes != default.passes else "",
             "--open-reserve" if rules.open_reserve else "",
             f"--reserve-piles {rules.reserve_piles}" if rules.reserve_piles != default.reserve_piles else ""]
    return "".join(f" {f}" for f in flags if f)


class DealNumberType(click.ParamType):
    name = "N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        from ..deals import parse_deal_number

        if isinstance(value, int):
            return value
        text = str(value).strip(" \t\r\n")
        if text[:1] in ("-", "+") and text[1:].isascii() and text[1:].isdigit():
            raise DealError(f"deal number {quoted(text, limit=40)} has a sign: expected a whole number "
                            f"from {DEAL_RANGE}, in the digits 0-9 alone")
        if text.isascii() and text.isdigit() and len(text.lstrip("0")) > len(str(MAX_DEAL_NUMBER)):
            # a number, only too long for one: say so (the parser's digit limit would call it "not a number")
            raise DealError(f"deal number {quoted(text, limit=40)} is out of range: expected {DEAL_RANGE}")
        if text.isascii() and text.isdigit():
            # leading zeros, however many, as `stats --deals` reads them (the parser's digit limit counts them);
            # the check above leaves at most 21 digits past them
            number = int(text.lstrip("0") or "0")
            if not 1 <= number <= MAX_DEAL_NUMBER:
                raise DealError(f"deal number {quoted(text, limit=40)} is out of range: expected {DEAL_RANGE}")
            return number
        if os.path.isfile(text):  # `osmosis play game.json`: a file where the number goes
            record = {"play": "; a saved game goes on with --resume FILE", "hint": "; a game record with --record FILE"}
            raise DealError(f"deal number {quoted(text, limit=40)} is not a number but a file: a deal file is given "
                            f"with --deal-file FILE{record.get(ctx.info_name or '', '') if ctx else ''}")
        return parse_deal_number(value)


DEAL_NUMBER = DealNumberType()
#: A file name, read (or written) by the command itself: click's own readability check would make a file that
#: cannot be read a usage error (exit 2, three lines) where every reader here gives one line and exit 1.
FILE = click.Path(readable=False)


class DealCommand(click.Command):
    """A command with a deal number argument: ``osmosis solve -5`` is a bad deal number (one line, exit 1),
    where click would read ``-5`` as an unknown option (a usage error, exit 2)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        valued = {name for p in self.params if isinstance(p, click.Option) and not p.is_flag and not p.count
                  for name in p.opts}
        before = None
        for arg in args:
            if arg == "--":
                break
            if before not in valued and len(arg) > 1 and arg[0] == "-" and arg[1].isdigit():
                DEAL_NUMBER.convert(arg, None, ctx)  # a signed number: the deal number's own error
            before = arg
        return super().parse_args(ctx, args)


class FiniteFloat(click.ParamType):
    """A number in a closed range; ``nan`` and ``inf`` are refused (``FloatRange`` lets ``nan`` through)."""

    name = "number"

    def __init__(self, low: float, high: float, low_open: bool = False) -> None:
        self.low, self.high, self.low_open = low, high, low_open

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:

        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        above = number > self.low if self.low_open else number >= self.low
        if not math.isfinite(number) or not above or number > self.high:
            if self.low_open:
                self.fail(f"{value!r} is not allowed: expected a number above {self.low:g} and at most {self.high:g}",
                          param, ctx)
            self.fail(f"{value!r} is not a number from {self.low:g} to {self.high:g}", param, ctx)
        return number


MAX_SECONDS = 24 * 3600
SECONDS = FiniteFloat(0, MAX_SECONDS, low_open=True)


def record_from_file(path: str) -> Record:
    """Load a record for a command; a stored result that its moves do not reach is a warning on stderr."""
    record = load_record(path)
    for warning in record.warnings:
        click.echo(f"warning: {warning}", err=True)
    return record


def read_line(prompt: str, echo: bool) -> str | None:
    """One typed line, or None at the end of the input.

    A line that is not UTF-8 text is refused with a message and the next one
    is read, so a stray byte never ends a game. Piped lines are echoed (with
    ``echo``) so the output reads as a transcript.
    """
    while True:
        line = _raw_line(prompt, echo)
        if line is None:
            if echo or _typed():  # Ctrl-D leaves the cursor after the prompt: what follows starts a line
                click.echo("")
            return None
        if isinstance(line, bytes):
            encoding = getattr(sys.stdin, "encoding", None) or "utf-8"
            click.echo(f"That line is not {encoding} text, so it was ignored: type it again.")
            continue
        if isinstance(line, int):
            click.echo(f"That line is longer than {MAX_LINE:,} bytes ({line:,}), so it was ignored: type it again.")
            continue
        line = line.lstrip("\ufeff")  # a byte-order mark that opens a piped file is no part of a move
        if echo:
            # the transcript shows no control codes, even typed ones; written as the rest of play's output is,
            # so a glyph the output cannot show gets its ASCII stand-in (click.echo wrote UTF-8 to a C locale)
            print(clean(line), flush=True)
        return line


MAX_LINE = 100_000
"""The longest piped line read as one (a whole game's moves fit many times): a longer one (``/dev/zero``, a
binary file) is skipped to its end, never held whole in memory."""


def is_a_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal; a stream closed, missing or with no file is not."""
    try:
        return bool(stream is not None and stream.isatty())  # type: ignore[attr-defined]
    except (ValueError, OSError, AttributeError):
        return False


def _typed() -> bool:
    return is_a_terminal(sys.stdin)


def _raw_line(prompt: str, echo: bool) -> str | bytes | int | None:
    """The next line as text, its bytes when they do not decode, its length when it is longer than
    :data:`MAX_LINE` (skipped), or None at the end of the input."""
    stream = sys.stdin
    if echo and hasattr(stream, "buffer"):
        # Piped input: read bytes, so one undecodable line cannot break the text layer for the rest.
        click.echo(prompt, nl=False)
        data = stream.buffer.readline(MAX_LINE + 1)
        if not data:
            return None
        if len(data) > MAX_LINE and not data.endswith(b"\n"):
            size = len(data)
            while data and not data.endswith(b"\n"):  # the rest of the line, a piece at a time
                data = stream.buffer.readline(1 << 16)
                size += len(data)
            return size
        data = data.rstrip(b"\n").rstrip(b"\r")
        for encoding in ("utf-8", getattr(stream, "encoding", None) or "utf-8"):
            try:  # UTF-8 first: a card's suit symbol piped in a C or Latin-1 locale (Latin-1 reads any bytes)
                return data.decode(encoding)
            except (UnicodeDecodeError, LookupError):
                continue
        return data
    try:
        line = input(prompt)
    except EOFError:
        return None
    except UnicodeDecodeError as exc:  # a strict ASCII stdin (PYTHONIOENCODING=ascii): its bytes, UTF-8 first
        data = exc.object if isinstance(exc.object, bytes) else b""
        return _as_utf8(data) or data
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:  # typed in a C or Latin-1 locale, a suit symbol's UTF-8 bytes came as stand-ins: read them as UTF-8
        return _as_utf8(line.encode(encoding, "surrogateescape")) or line
    except (UnicodeError, LookupError):
        return line


def _as_utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def live_display(console: Console) -> bool:
    """A progress bar can be drawn: a terminal, and not a dumb one (TERM=dumb draws no bar, so a long
    command there said nothing for as long as it ran; it gets the pipe's line every 15 s instead)."""
    return console.is_terminal and not console.is_dumb_terminal


PIPE_EVERY = 15.0
"""Seconds between two progress lines on stderr of a long command whose output is not a terminal."""


class PipeTicker:
    """A progress line on stderr every :data:`PIPE_EVERY` seconds while a long command runs in a pipe.

    ``line(seconds)`` gives the line for the time so far (None: nothing to
    say this time). The lines come from a timer, not from the work's own
    progress calls, so they keep coming while one long step runs (the first
    positions of a review, a survey's first batch). Use as a context manager;
    nothing is printed once it is left.
    """

    def __init__(self, line: Callable[[float], str | None], every: float | None = None) -> None:
        self._line, self._every = line, PIPE_EVERY if every is None else every
        self._stop = threading.Event()
        self._lock = threading.Lock()  # no line after the command has moved on
        self._thread = threading.Thread(target=self._run, name="osmosis-pipe-progress", daemon=True)

    def _run(self) -> None:
        start = time.monotonic()
        while not self._stop.wait(self._every):
            text = self._line(time.monotonic() - start)
            with self._lock:
                if text and not self._stop.is_set():
                    print(text, file=sys.stderr, flush=True)

    def __enter__(self) -> PipeTicker:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._stop.set()
        self._thread.join()


@contextlib.contextmanager
def stopped_like_ctrl_c() -> Iterator[None]:
    """While a long command runs, ``kill`` (SIGTERM) and a closed terminal (SIGHUP) stop it as Ctrl-C does:
    its worker processes are stopped and its files closed cleanly, then ``interrupted`` and exit status 130.

    Off the main thread (where no handler can be set) nothing changes, nor does a signal that is ignored
    (``nohup``) or already handled.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # only where the signal would end the process anyway: nohup's ignored SIGHUP stays ignored
    kept = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)
            if signal.getsignal(sig) == signal.SIG_DFL}
    try:
        yield
    finally:
        for sig, handler in kept.items():
            signal.signal(sig, handler)
