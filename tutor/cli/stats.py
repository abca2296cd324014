"""``osmosis stats``: a win-rate survey over a range of deals, on Dask, resumable from the results store."""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Column

from ..engines import BATCH, DaskEngine, InProcess, stream_survey
from ..engines import Progress as SurveyProgress
from ..errors import RecordError, TutorError
from ..rules import Rules
from ..search import DEFAULT_LIMIT, Limit
from ..store import ResultStore
from ..survey import POLICIES, DealRange, Tally, parse_range
from ..table import Table
from ..textsafe import quoted, shown_path
from .app import console_of
from .common import FILE, PipeTicker, live_display, rules_from_kwargs, stopped_like_ctrl_c, variant_options

MAX_WORKERS = 1024
MAX_NODES = 10**9
MAX_SECONDS = 86_400.0
RETRY_FACTOR = 10


def checked_seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A time limit a solve can keep: a finite number of seconds, more than 0 and at most a day."""
    if value is None:
        return None
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise click.BadParameter(f"{value!r} is not a time limit: expected seconds more than 0 and at most "
                                 f"{MAX_SECONDS:.0f}, like 2.5")
    return value


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "an unknown time"
    s = int(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 86_400:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 86_400} d {s % 86_400 // 3600} h"


def running_rate(tally: Tally) -> str:
    """The win rate so far with its 95% interval, e.g. ``29.9% (27.1-32.8%)``."""
    if not tally.deals:
        return "-"
    low, high = tally.interval
    return f"{100 * tally.win_rate:.1f}% (95% {100 * low:.1f}-{100 * high:.1f}%)"


def _rate(p: SurveyProgress, elapsed: float | None = None) -> float:
    """Deals played a second (deals read from the store are no measure of what is left), over ``elapsed``
    seconds (default: to the last batch folded in)."""
    seconds = p.elapsed if elapsed is None else max(elapsed, p.elapsed)
    return (p.done - p.from_store) / seconds if seconds > 0 else 0.0


def rate_text(rate: float) -> str:
    """``12.5 deals/s``, or per minute when slower than one deal in 10 s (``0.0 deals/s`` says nothing)."""
    return f"{rate:,.1f} deals/s" if rate >= 0.1 or rate == 0 else f"{60 * rate:,.1f} deals/min"


def progress_line(p: SurveyProgress, elapsed: float | None = None) -> str:
    """One line for stderr: done/total, the rate, the time left, the running win rate. ``elapsed``: the
    seconds so far when the line is written (a timer's line between batches: the rate falls as it waits)."""
    rate = _rate(p, elapsed)
    left = (p.total - p.done) / rate if rate > 0 else float("inf")
    stored = f", {p.from_store:,} from the store" if p.from_store else ""
    time_left = f"about {_duration(left)} left" if math.isfinite(left) else "the time left is not known yet"
    return f"stats: {p.done:,}/{p.total:,} deals{stored}, {rate_text(rate)}, {time_left}; win rate {running_rate(p.tally)}"



def _cannot_write(path: str, exc: OSError) -> TutorError:
    """The per-deal file cannot be written: why, and what to give instead."""
    from .keep import cannot_write

    return TutorError(f"cannot write the per-deal file {quoted(path)}: {cannot_write(path, exc, '--per-deal')}")


class PerDealFile:
    """The --per-deal file, written beside its name and renamed over it only when the survey has finished, so a
    failed or interrupted run leaves an earlier file as it was (gzip-compressed when the name ends in .gz)."""

    def __init__(self, path: str) -> None:
        from ..storage import check_writable_target, lock_file, remove_stale_temps, temp_prefix
        from .keep import keep_game_file, per_deal_file

        keep_game_file(path, "the per-deal lines", example="deals.jsonl", same_kind=per_deal_file)
        try:  # the name as given too: /dev/stdout resolves to the file the output is appended to
            check_writable_target(path)
        except OSError as exc:
            raise _cannot_write(path, exc) from None
        target = Path(path)
        if target.is_symlink():
            target = Path(os.path.realpath(target))  # write the file the link points to, and keep the link
        self.path, self.target = path, target
        try:
            check_writable_target(target)
            # what surveys killed outright (SIGKILL) left: a running one holds a lock on its own file, and one
            # made this instant may not have taken it yet
            remove_stale_temps(target, older_than=60, locked=True)
            fd, self.tmp = tempfile.mkstemp(prefix=temp_prefix(target.name), suffix=".tmp", dir=target.parent)
            os.close(fd)
            self.raw = open(self.tmp, "wb")
            lock_file(self.raw)  # held while this survey writes: the file is not abandoned
            # the gzip header names the file as it will be called (gunzip -N gave back the temporary name)
            self.stream: TextIO = (io.TextIOWrapper(gzip.GzipFile(target.name, "wb", fileobj=self.raw),
                                                    encoding="utf-8") if path.endswith(".gz")
                                   else io.TextIOWrapper(self.raw, encoding="utf-8"))
        except OSError as exc:
            raise _cannot_write(path, exc) from None

    def close(self, keep: bool) -> None:
        """Close the lines; with ``keep``, put them in place of the file named, else drop them."""
        try:
            self.stream.close()
            self.raw.close()  # a GzipFile leaves the file it was given open
            if keep:
                from ..storage import folder_lock, keep_mode
                from .keep import keep_game_file, per_deal_file

                keep_mode(self.tmp, self.target)  # mkstemp made it 0600: the old file's mode, or the umask's
                with folder_lock(self.target):
                    try:  # checked again with the rename: a survey runs for minutes, a game may be saved there
                        keep_game_file(self.path, "the per-deal lines", example="deals.jsonl",
                                       same_kind=per_deal_file)
                    except RecordError as exc:
                        raise RecordError(f"{exc}; the per-deal lines are in {shown_path(self._set_aside())}") from None
                    os.replace(self.tmp, self.target)
                return
        except OSError as exc:
            raise _cannot_write(self.path, exc) from None
        finally:
            if not keep or os.path.exists(self.tmp):
                try:
                    os.unlink(self.tmp)
                except OSError:
                    pass


    def _set_aside(self) -> Path:
        """The finished lines under a name of their own beside the file named (never over another file)."""
        stem, gz = (self.target.name[:-3], ".gz") if self.target.name.endswith(".gz") else (self.target.name, "")
        base = stem.rsplit(".", 1)[0] if "." in stem.lstrip(".") else stem  # .hidden stays .hidden
        for n in range(1, 1000):
            candidate = self.target.with_name(f"{base}.per-deal{'' if n == 1 else f'-{n}'}.jsonl{gz}")
            try:
                if gz:  # written again, so that its gzip header names it (gunzip -N), not the file refused
                    with open(candidate, "xb") as raw, gzip.open(self.tmp, "rb") as lines, \
                            gzip.GzipFile(candidate.name, "wb", fileobj=raw) as copy:
                        shutil.copyfileobj(lines, copy)
                else:
                    os.link(self.tmp, candidate)  # fails where a file is already
            except FileExistsError:
                continue
            os.unlink(self.tmp)
            return candidate
        raise OSError(f"no free name beside {self.target}")


def open_per_deal(path: str) -> PerDealFile:
    """The --per-deal file (:class:`PerDealFile`; never over a saved game, a deal file or the tutor's data)."""
    return PerDealFile(path)


@click.command("stats")
@variant_options
@click.option("--deals", "deal_range", required=True, metavar="A-B", help="Deal numbers, e.g. 1-1000, or one number.")
@click.option("--policy", type=click.Choice(POLICIES, case_sensitive=False), default="solver", show_default=True,
              help="solver: full knowledge; greedy: first playable card, else turn; tutor: follows its hints.")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
              help="Dask worker processes on this machine (default: one per CPU; 1 = play here, no cluster). "
                   "Results do not depend on it.")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Run on an existing Dask cluster (workers started with `dask worker`, osmosis-tutor installed).")
@click.option("--worker-timeout", type=click.IntRange(1, 86_400), default=60, show_default=True, metavar="SECONDS",
              help="How long a survey on Dask waits with no worker (at the start of --scheduler's, or after "
                   "every one died or left) before it stops with an error.")
@click.option("--store", "store_path", type=FILE, default=None,
              help="The results store (SQLite; default: surveys.sqlite3 in the data folder).")
@click.option("--fresh", is_flag=True, help="Play every deal again, ignoring stored results (and replace them).")
@click.option("--per-deal", "per_deal", type=FILE, default=None,
              help="Write one JSON line per deal to this file (gzip if it ends in .gz).")
@click.option("--batch", type=click.IntRange(1, 100_000), default=None,
              help=f"Deals a task (default {BATCH['solver']} for solver, {BATCH['greedy']} greedy, "
                   f"{BATCH['tutor']} tutor).")
@click.option("--nodes", type=click.IntRange(1, MAX_NODES), default=None,
              help=f"Node limit of each solve (solver policy; default {DEFAULT_LIMIT.nodes}).")
@click.option("--retry-nodes", type=click.IntRange(0, MAX_NODES), default=None,
              help="Node limit of a second, win-only search for the deals the first leaves undecided "
                   f"(default {RETRY_FACTOR}x --nodes; 0 = none).")
@click.option("--seconds", type=float, default=None, callback=checked_seconds,
              help=f"Time limit of each solve, in seconds: more than 0, at most {MAX_SECONDS:.0f} (answers then "
                   "depend on the machine).")
@click.option("--solver/--no-solver", "against", default=None,
              help="With greedy or tutor: also give the solver's wins on the same deals and the share of the "
                   "solver-winnable deals the policy won (default: on for tutor; off for greedy, whose games "
                   "are a hundred times quicker than the solves).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def stats_command(ctx: click.Context, deal_range: str, policy: str, workers: int | None, scheduler: str | None,
                  worker_timeout: int, store_path: str | None, fresh: bool, per_deal: str | None, batch: int | None, nodes: int | None,
                  retry_nodes: int | None, seconds: float | None, against: bool | None, as_json: bool,
                  **kwargs: Any) -> None:
    """Survey the win rate of a variant over a range of deals.

    Deals run in batches on Dask (a local cluster, or --scheduler); every
    result is kept in the results store, so a rerun is read from it and a
    killed survey resumes where it stopped.
    """
    began = time.perf_counter()
    rules = rules_from_kwargs(kwargs)
    deals = parse_range(deal_range)
    if nodes is None and seconds is None:
        limit = DEFAULT_LIMIT
    else:
        # --seconds adds a time limit to the node limit (as --help and the README say), it does not lift it
        limit = Limit(nodes=nodes if nodes is not None else DEFAULT_LIMIT.nodes, seconds=seconds)
    if retry_nodes is None and limit.nodes is not None:
        retry_nodes = min(MAX_NODES, RETRY_FACTOR * limit.nodes)
    size = batch or BATCH[policy]
    workers = workers or os.cpu_count() or 1
    console = console_of(ctx)
    if store_path is not None:
        from .keep import refuse_folder_name

        refuse_folder_name(store_path, "the survey store", "results.sqlite3")
    store = ResultStore(store_path)
    if store.warning:
        click.echo(f"warning: {store.warning}", err=True)
    out: PerDealFile | None = None
    engine: InProcess | DaskEngine | None = None
    finished = False
    refused: RecordError | None = None
    # kill stops a survey as Ctrl-C does: the cluster shut down, the store closed
    with stopped_like_ctrl_c():
        try:
            out = open_per_deal(per_deal) if per_deal is not None else None
            # One batch or one worker: a cluster would only add its start-up time.
            if scheduler is not None:
                engine = DaskEngine(scheduler=scheduler, worker_timeout=worker_timeout)
            elif workers > 1 and len(deals) > size:
                engine = DaskEngine(workers=workers, worker_timeout=worker_timeout)
            else:
                engine = InProcess()
            tally = _run(console, rules, deals, policy, limit, engine, store, fresh, size,
                         out.stream if out is not None else None, as_json, retry_nodes,
                         policy != "solver" and (policy == "tutor" if against is None else against))
            finished = True
        except KeyboardInterrupt:
            # --fresh would play them all again: the same command without it takes them from the store
            again = "the same command again without --fresh" if fresh else "the same command again"
            click.echo(f"stats: interrupted; the finished batches are kept in {store.path}: run {again} to resume",
                       err=True)
            raise click.exceptions.Exit(130) from None  # that line says it all: not "interrupted" again
        finally:
            if out is not None:
                try:
                    out.close(keep=finished)  # a failed or interrupted run leaves an earlier file as it was
                except RecordError as exc:
                    if not finished:
                        raise
                    refused = exc  # a game saved there meanwhile: the figures are shown, then the error
            if engine is not None:  # interrupted or failed: its workers' batches are dropped, stopped at once
                engine.close(at_once=not finished)
            store.close()
            if store.invalid:  # said however the survey ended: the rows are replaced as their batches finish
                click.echo(f"warning: {store.invalid} stored result{'s were' if store.invalid != 1 else ' was'} not "
                           f"one a survey writes (a damaged or edited store?): played again, and replaced in "
                           f"{store.path}", err=True)
    _print_tally(console, tally, rules, deals, policy, as_json, began)
    if refused is not None:
        raise refused


def _print_tally(console: Console, tally: Tally, rules: Rules, deals: DealRange, policy: str, as_json: bool,
                 began: float) -> None:
    """The survey's figures: the JSON object, or the table."""
    if as_json:
        click.echo(json.dumps(tally.to_json()))
        return
    low, high = tally.interval
    table = Table(title=f"{rules.describe()}, deals {deals}, policy {policy}", show_header=False,
                  title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    table.add_row("deals", f"{tally.deals:,}")
    table.add_row("wins", f"{tally.wins:,}")
    if policy == "solver":
        listed = ", ".join(map(str, tally.undecided[:10])) + (", ..." if tally.unknown > 10 else "")
        table.add_row("undecided", f"{tally.unknown:,}" + (f" (deal{'s' if tally.unknown != 1 else ''} {listed})" if tally.unknown else ""))
    table.add_row("win rate", f"{100 * tally.win_rate:.1f}% (95% interval {100 * low:.1f}%-{100 * high:.1f}%)")
    # a lost deal's score is the best the solver found within its node limit: exact unless the search was cut
    cards_low, cards_high = tally.cards_interval
    table.add_row("mean cards", f"{tally.mean_cards:.2f} (95% interval {cards_low:.2f}-{cards_high:.2f}"
                  + ("; at least: lost deals count the best score found" if tally.cards_at_least else "") + ")")
    if tally.paired:
        undecided = f", {tally.solver_unknown:,} undecided" if tally.solver_unknown else ""
        table.add_row("solver wins", f"{tally.solver_wins:,} of {tally.deals:,} (every card known{undecided}; "
                      f"{tally.solver_from_store:,} from the store)")
        lo, hi = tally.of_winnable_interval
        table.add_row("of the winnable", f"{tally.winnable_won:,} of {tally.solver_wins:,} won = "
                      f"{100 * tally.of_winnable:.1f}% (95% interval {100 * lo:.1f}%-{100 * hi:.1f}%)"
                      if tally.solver_wins else
                      (f"no deal in the range is known to be winnable ({tally.solver_unknown:,} undecided), so no "
                       "share to give" if tally.solver_unknown else
                       "no deal in the range is winnable, so no share to give"))
    table.add_row("from the store", f"{tally.from_store:,} of {tally.deals:,}")
    wall = time.perf_counter() - began  # the survey's own time leaves out starting the workers and the store
    table.add_row("time", f"{tally.seconds:.1f} s" + (f" playing the deals, {wall:.1f} s in all (with starting the "
                                                      "workers)" if wall - tally.seconds >= 0.1 else ""))
    console.print(table)


def _run(console: Console, rules: Rules, deals: DealRange, policy: str, limit: Limit, engine: InProcess | DaskEngine,
         store: ResultStore, fresh: bool, size: int, out: TextIO | None, as_json: bool,
         retry_nodes: int | None, against_solver: bool = False) -> Tally:
    """The survey, with a progress bar on a terminal or a line on stderr now and then in a pipe."""

    def survey(progress: Callable[[SurveyProgress], None]) -> Tally:
        return stream_survey(rules, deals, policy, limit, engine=engine, store=store, fresh=fresh, batch=size,
                             per_deal=out, progress=progress, retry_nodes=retry_nodes,
                             against_solver=against_solver)

    if live_display(console) and not as_json:
        # The time left is reckoned from the deals played, not those read from the store.
        # the columns that fit the terminal (rich cut any column, the spinner first and "2 min left" to "2"):
        # the bar from 110 columns, the win rate (cut short at its end) and the rate from 80, the label from 50;
        # the spinner, the count, the time so far (the bar moves only as a batch ends) and the time left always
        def kept(width: int) -> Column:
            return Column(min_width=width, no_wrap=True)

        label, width = f"{policy} {rules.name or 'custom'}", console.width
        columns = [SpinnerColumn(table_column=kept(1)), TextColumn(label, table_column=kept(len(label))),
                   BarColumn(bar_width=10), MofNCompleteColumn(table_column=kept(2 * len(str(len(deals))) + 1)),
                   TimeElapsedColumn(table_column=kept(7)), TextColumn("{task.fields[rate]}", table_column=kept(12)),
                   TextColumn("{task.fields[left]}", table_column=kept(10)), TextColumn("{task.fields[wins]}")]
        dropped = ({2} if width < 110 else set()) | ({5, 7} if width < 80 else set()) | ({1} if width < 50 else set())
        columns = [c for i, c in enumerate(columns) if i not in dropped]
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("deals", total=len(deals), rate="", left="", wins="")

            def show(p: SurveyProgress) -> None:
                rate = _rate(p)
                left = (p.total - p.done) / rate if rate > 0 else float("inf")
                bar.update(task, completed=p.done, rate=rate_text(rate),
                           left=f"{_duration(left)} left" if p.done < p.total else "",
                           wins=f"win rate {running_rate(p.tally)}")

            return survey(show)
    # in a pipe a line on stderr every 15 s, from a timer: a tutor survey's first batch takes minutes
    latest: list[SurveyProgress] = []

    def report(p: SurveyProgress) -> None:
        latest[:] = [p]

    def line(seconds: float) -> str | None:
        if not latest:
            return f"stats: 0/{len(deals):,} deals, {seconds:.0f} s so far"
        p = latest[0]
        return progress_line(p, seconds) if p.done < p.total else None

    with PipeTicker(line):
        return survey(report)

