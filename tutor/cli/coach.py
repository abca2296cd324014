"""``osmosis coach``: the recurring kinds of error across your reviewed games, and the biggest losses.

Games not reviewed yet are reviewed on the way (``--review``, the default;
a progress bar on a terminal) with the same review as ``osmosis review``,
and the reviews are kept, so each game is reviewed once.
"""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from ..errors import TutorError
from ..history.coach import check_tag, coach
from ..history.copies import record_of
from ..history.db import GameRow, History
from ..history.reviews import outdated, unreviewed, went_on
from ..review import DEFAULT_SAMPLES, TAGS
from . import history_render as words
from .app import console_of
from .common import PipeTicker, live_display
from .history import open_for_command, store_review


def review_pending(console: Console, history: History, samples: int | None, limit: int | None = None, quiet: bool = False,
                   workers: int | None = None) -> tuple[int, int, int]:
    """Review the games that have no current review, oldest first, and those reviewed by older rules for
    the kinds of error; returns how many were reviewed, how many of them again for those rules, and how many
    again because the game changed since its review."""
    from .review import compute_review

    pending = unreviewed(history)
    if limit is not None:
        pending = pending[-limit:]
    if not pending:
        return 0, 0, 0
    ids = {g.id for g in pending}
    older = outdated(history) & ids
    again, changed = len(older), len((went_on(history) & ids) - older)

    def one(game: GameRow) -> None:
        try:
            record = record_of(game)
        except TutorError as exc:  # a row garbled by hand: the rest are reviewed (it stopped every coach run)
            click.echo(f"warning: game {game.id} of the history cannot be read ({exc}): it is left unreviewed, and "
                       "the other games are reviewed", err=True)
            return
        rev = compute_review(console, record, samples, workers=workers, quiet=True, lines=False)
        store_review(record, None, rev, history=history, game_id=game.id)

    if quiet or not live_display(console):
        # in a pipe a run of many reviews says how far it is on stderr, as stats does, every 15 s
        reviewed = 0

        def line(seconds: float) -> str:
            left = f", about {_duration(seconds / reviewed * (len(pending) - reviewed))} left" if reviewed else ""
            return (f"coach: reviewed {reviewed:,} of {len(pending):,} games{left} "
                    "(Ctrl-C stops; the reviews made are kept)")

        with PipeTicker(line):
            for game in pending:
                one(game)
                reviewed += 1
        return len(pending), again, changed
    with Progress(TextColumn("Reviewing your games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("coach", total=len(pending))
        for game in pending:
            one(game)
            bar.advance(task)
    return len(pending), again, changed


def reviewed_what(done: int, again: int, changed: int = 0) -> str:
    """``3 games not reviewed before``, ``7 games again: their reviews were by older rules for the kinds of
    error``, ``1 game again: it went on after its review``, or several of them."""
    first = done - again - changed
    parts = [f"{first} game{'s' if first != 1 else ''} not reviewed before"] if first else []
    if again:
        parts.append(f"{again} game{'s' if again != 1 else ''} again: {'their reviews were' if again != 1 else 'its review was'} "
                     "made by an older osmosis, with older rules for the kinds of error")
    if changed:
        parts.append(f"{changed} game{'s' if changed != 1 else ''} again: {'they' if changed != 1 else 'it'} went on "
                     "(or moves were taken back) after the review")
    return ", and ".join(parts)


def _duration(seconds: float) -> str:
    """``40 s``, ``12 min``, ``5.5 h``: a rough time left."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


@click.command("coach")
@click.option("--tag", default=None, metavar="TAG",
              help=f"Only one kind of error: {', '.join(TAGS)}.")
@click.option("--review/--no-review", "do_review", default=True, show_default=True,
              help="Review the games not reviewed yet first (each is reviewed once and kept).")
@click.option("--samples", type=click.IntRange(1, 1000), default=DEFAULT_SAMPLES, show_default=True, metavar="K",
              help="Sampled deals per graded move for the reviews made on the way.")
@click.option("--workers", type=click.IntRange(1, 64), default=None, metavar="N",
              help="Processes for each review (default: up to 2; 1 is quicker for short games).")
@click.option("--examples", type=click.IntRange(0, 50), default=3, show_default=True, metavar="N",
              help="Worst examples shown for each kind of error.")
@click.option("--losses", type=click.IntRange(0, 200), default=10, show_default=True, metavar="N",
              help="How many of the biggest single losses to list.")
@click.option("--json", "as_json", is_flag=True, help="Print the coach's figures as JSON.")
@click.pass_context
def coach_command(ctx: click.Context, tag: str | None, do_review: bool, samples: int, workers: int | None,
                  examples: int, losses: int, as_json: bool) -> None:
    """Your recurring kinds of error: how often, their cost, the lesson for each.

    Each kind is a review tag (early-start, late-start, wrong-row,
    turned-past, reserve-dig, talon-shift, no-progress): how often it happened, the mean
    win chance it cost, whether it comes less often in your newer games than
    in your older ones, the worst examples (open them with osmosis replay)
    and the lesson that teaches it. Then the biggest single losses.
    """
    if tag is not None:
        tag = check_tag(tag)
    console = console_of(ctx)
    with open_for_command(console) as history:
        if do_review:
            done, again, changed = review_pending(console, history, samples, quiet=as_json, workers=workers)
            if done and not as_json:
                console.print(f"Reviewed {reviewed_what(done, again, changed)} ({samples} samples a move).", soft_wrap=True,
                              markup=False)
        waiting = {g.id for g in unreviewed(history)}
        result = coach(history, tag, examples=examples, losses=losses, unreviewed=len(waiting),
                       outdated=len(outdated(history) & waiting))  # of the unreviewed: a 0-move game is neither
    if as_json:
        click.echo(json.dumps(result.to_json()))
        return
    words.print_parts(console, words.render_coaching(result, {t: meaning for t, (_, meaning) in TAGS.items()}))
