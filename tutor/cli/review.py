"""``osmosis review``: the post-game review of a game record, as a report or JSON.

Thin: parse the record and options, call :func:`tutor.review.review`, render
with :mod:`.review_report` (the result, the hindsight verdict, labelled as
such, the accuracy and the count of each label, a chart of the win chance
move by move, the critical moments, and a table of the labelled moves with
what was better and why). ``--annotate`` writes the record with each move's
label, tags and comment.
"""

from __future__ import annotations

import json

import click
from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from ..errors import RecordError, TutorError
from ..inputs import capped_int
from ..narrate.play import plural
from ..narrate.review import UNSEEN_WARNING, notes_reveal_unseen
from ..practical import MAX_GAMES, check_games
from ..record import Record, save_record
from ..render import use_symbols
from ..review import DEFAULT_SAMPLES, DEFAULT_THRESHOLDS, Review, Thresholds, review
from ..textsafe import brief, shown_path, shows
from .app import console_of
from .common import PipeTicker, live_display, record_from_file, stopped_like_ctrl_c
from .review_report import UNRATED, chart, counts_line, moments_table, moves_table, render_review, result_line

__all__ = ["review_command", "compute_review", "run_review", "review_after_play", "annotate_for_replay",
           "review_for_viewer", "ThresholdsType", "render_review", "chart", "counts_line", "moves_table",
           "moments_table", "result_line"]


class ThresholdsType(click.ParamType):
    """``5,10,15``: inaccuracy, mistake and blunder thresholds in win-chance points."""

    name = "a,b,c"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> Thresholds:
        if isinstance(value, Thresholds):
            return value
        try:
            return Thresholds.parse(str(value))
        except TutorError as e:  # a bad option value is a usage error (exit 2), as for every numeric option
            self.fail(str(e), param, ctx)


class GamesType(click.ParamType):
    """``--practical N``: blind games a move, a whole number from 1; a bad value is a usage error (exit 2), as
    for every numeric option."""

    name = "N"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            return self._games(value)
        except TutorError as e:
            self.fail(str(e), param, ctx)

    @staticmethod
    def _games(value: object) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return check_games(value)
        text = str(value).strip()
        if not text.isdecimal() or not text.isascii():
            raise TutorError(f"{str(value)!r} is not a number of games: expected a whole number "
                             f"from 1 to {MAX_GAMES}, like 16")
        games = capped_int(text, MAX_GAMES)
        if games < 1:
            raise TutorError(f"{brief(text)} is no game at all: expected a whole number from 1 to "
                             f"{MAX_GAMES}, like 16")
        if games > MAX_GAMES:
            raise TutorError(f"{brief(text)} is too many games: expected a whole number from 1 to "
                             f"{MAX_GAMES}, like 16")
        return check_games(games)


def report_for(rev: Review, console: Console) -> RenderableType:
    """The review's report as ``console`` can show it: suit symbols, its width, ASCII chart marks where it
    cannot show the glyphs."""
    return render_review(rev, use_symbols(console), width=console.width, ascii_only=not shows("⁈", console))


def compute_review(console: Console, record: Record, samples: int | None = DEFAULT_SAMPLES,
                   thresholds: Thresholds = DEFAULT_THRESHOLDS, workers: int | None = None,
                   quiet: bool = False, practical: int | None = None, lines: bool = True) -> Review:
    """Run the review, with a progress bar on a terminal, else (in a pipe, or ``quiet``: JSON on stdout) a
    line on stderr every 15 s while it runs (none with ``lines`` False: the caller says how far it is).

    ``practical``: blind games a move for the practical win chance at each error (None: not computed).
    ``kill`` and a closed terminal stop it as Ctrl-C does (its worker processes with it).
    """
    from ..review import cache

    kept = cache.load(record, samples, thresholds, practical)
    if kept is not None:  # reviewed before, under the same settings and code: the same review
        return kept
    with stopped_like_ctrl_c():
        rev = _compute_review(console, record, samples, thresholds, workers, quiet, practical, lines)
    cache.save(rev, samples, thresholds, practical)
    return rev


def _compute_review(console: Console, record: Record, samples: int | None, thresholds: Thresholds,
                    workers: int | None, quiet: bool, practical: int | None, lines: bool) -> Review:
    positions = len(record.moves) + 1
    if quiet or not live_display(console):
        # in a pipe a long review (limited games take minutes) says how far it is on stderr every 15 s
        done = {"what": "positions scored", "done": 0, "total": positions}

        def note(what: str, count: int, total: int) -> None:
            done.update(what=what, done=count, total=total)

        def line(seconds: float) -> str:
            return f"review: {done['done']:,} of {done['total']:,} {done['what']}, {seconds:.0f} s so far"

        def run() -> Review:
            return review(record, samples=samples, thresholds=thresholds, workers=workers, practical=practical,
                          progress=lambda d, t: note("positions scored", d, t),
                          practical_progress=lambda d, t: note("blind games played", d, t))

        if not lines:
            return run()
        with PipeTicker(line):
            return run()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        # the total from the start: the first positions (most cards unseen) take longest, so the count waits
        task = bar.add_task("Reviewing", total=positions)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        def games(done: int, total: int) -> None:
            bar.update(task, description="Playing out blind", completed=done, total=total)

        return review(record, samples=samples, thresholds=thresholds, workers=workers, progress=tick,
                      practical=practical, practical_progress=games)


def run_review(ctx_or_console: click.Context | Console, record: Record, samples: int | None = DEFAULT_SAMPLES,
               thresholds: Thresholds = DEFAULT_THRESHOLDS) -> Review:
    """Review a record and print the report (for the end of ``osmosis play``)."""
    console = ctx_or_console if isinstance(ctx_or_console, Console) else console_of(ctx_or_console)
    rev = compute_review(console, record, samples, thresholds)
    console.print(report_for(rev, console))
    return rev


def review_after_play(ctx: click.Context, record: Record) -> Review:
    """The review offered at the end of ``osmosis play``."""
    rev = run_review(ctx, record)
    from .history import note_review  # kept with the game in the player's history

    note_review(ctx, record, None, rev, later=False)
    return rev


def _own_notes(record: Record) -> list[bool]:
    """Per move, whether the record's own annotation stands: there is one, and it names no other move than the
    one played (an annotation left on a move changed by hand since does)."""
    return [note is not None and note.get("move", str(move)) == str(move)
            for move, note in zip(record.moves, record.annotations, strict=True)]


def annotated_whole(record: Record) -> bool:
    """Whether the record's own annotations can stand for the review: one on every move (:func:`_own_notes`).
    A game resumed after ``--annotate`` has moves without one: the review is computed, and fills them in."""
    return bool(record.moves) and all(_own_notes(record))


def _with_own_notes(record: Record, reviewed: Record, keep: list[bool] | None = None) -> Record:
    """The reviewed record with the record's own annotations kept where they stand (a comment written by hand,
    the moves annotated before the game went on), the review's on every other move; ``keep``: on these moves
    only (:func:`with_players_notes`)."""
    keep = _own_notes(record) if keep is None else keep
    notes = [mine if kept else theirs for kept, mine, theirs in zip(keep, record.annotations, reviewed.annotations,
                                                                    strict=True)]
    return Record(reviewed.rules, reviewed.deal, list(reviewed.moves), notes, reviewed.result,
                  extra=dict(record.extra), deal_extra=dict(record.deal_extra))


REVIEW_NOTE = frozenset({"move", "label", "tags", "comment", "graded"})
"""The keys of a review's annotation (:meth:`tutor.review.values.MoveReview.annotation`)."""


def with_players_notes(record: Record, reviewed: Record) -> tuple[Record, list[int]]:
    """The reviewed record for ``--annotate``, with every note the player (or another tool) wrote kept on the
    move it names, and those moves' numbers. A review's own note (all of its keys, no other) is written anew;
    any other was lost to the review's: "my plan: turn first" on move 1 became "A free play: ..."."""
    keep = [stands and note is not None and not {"move", "label", "tags", "comment"} <= note.keys() <= REVIEW_NOTE
            for stands, note in zip(_own_notes(record), record.annotations, strict=True)]
    return _with_own_notes(record, reviewed, keep), [i + 1 for i, kept in enumerate(keep) if kept]


def annotate_for_replay(ctx_or_console: click.Context | Console, record: Record,
                        samples: int | None = DEFAULT_SAMPLES) -> tuple[Record, list[str]]:
    """The record with the review's label, tags and comment on each move (for ``osmosis replay --review``).

    A record annotated on every move (:func:`annotated_whole`) keeps them; otherwise the review
    is computed (with a progress bar on a terminal). The second item is the
    review's summary (the hindsight verdict and the accuracy), for the caller
    to print under its own heading; empty when nothing was computed.
    """
    if annotated_whole(record):  # its comments in hindsight warn as the review that wrote them did
        return record, [UNSEEN_WARNING] if notes_reveal_unseen(record) else []
    console = ctx_or_console if isinstance(ctx_or_console, Console) else console_of(ctx_or_console)
    rev = compute_review(console, record, samples)
    rating = (f"Accuracy {rev.accuracy_text()} over {plural(rev.graded, 'graded move')} (as osmosis review "
              f"computes it; win chances from what you could see: {rev.sampling_text()})." if rev.rated
              else f"Accuracy not rated: no move of this game was graded ({UNRATED})." if record.moves
              else "Accuracy not rated: no move was played.")
    # an unfinished game: its hindsight names cards still to come, said before it as the review says it
    summary = [*([UNSEEN_WARNING] if rev.reveals_unseen() else []), rev.hindsight.verdict(), rating]
    return _with_own_notes(record, rev.annotated()), summary


def replay_samples(record: Record) -> int | None:
    """The samples a replay reviews with: those of the history's own review of this game where it keeps one
    on more (the coach sends the player to ``replay --at N`` for a move as that review labels it: a review on
    the default 64 read the same move otherwise), else the default."""
    from ..history.db import db_path
    from ..history.games import open_history
    from ..history.reviews import reviews
    from ..record import content_of

    try:
        if not db_path().exists():  # no history yet: none is made to be read here
            return DEFAULT_SAMPLES
        history = open_history(import_folder=False)
    except (TutorError, OSError):
        return DEFAULT_SAMPLES
    try:
        row = history.game_by_content(content_of(record))
        kept = reviews(history, with_moves=False, tags_current=True).get(row.id) if row is not None else None
    except (TutorError, OSError):
        kept = None
    finally:
        history.close()
    if kept is None or (kept.samples is not None and kept.samples <= (DEFAULT_SAMPLES or 0)):
        return DEFAULT_SAMPLES
    return kept.samples


def review_for_viewer(ctx_or_console: click.Context | Console, record: Record,
                      samples: int | None = DEFAULT_SAMPLES) -> tuple[Record, Review | None]:
    """The record with the review's annotations and the review itself (None for an annotated record), for the viewer."""
    if annotated_whole(record):
        return record, None
    console = ctx_or_console if isinstance(ctx_or_console, Console) else console_of(ctx_or_console)
    rev = compute_review(console, record, samples)
    return _with_own_notes(record, rev.annotated()), rev


# ---- the command -----------------------------------------------------------

@click.command("review")
@click.argument("record_path", metavar="RECORD")
@click.option("--json", "as_json", is_flag=True,
              help="Print the review as JSON: moves (ply, move, best, win_before, win_after, label, tags, "
                   "comment), accuracy, hindsight, result.")
@click.option("--annotate", "annotate_path", metavar="OUT", default=None,
              help="Write the record with each move's label, tags and comment to OUT.")
@click.option("--samples", type=click.IntRange(1, 1000), default=DEFAULT_SAMPLES, show_default=True,
              metavar="K", help="Sampled deals per move, shared through the game (a label in doubt draws "
              "up to eight times as many); more is slower and steadier.")
@click.option("--thresholds", type=ThresholdsType(), default="5,10,15", show_default=True,
              help="Inaccuracy, mistake and blunder thresholds in win-chance points.")
@click.option("--workers", type=click.IntRange(1, 64), default=None, metavar="N",
              help="Processes for grading and the practical playouts (default: up to 2).")
@click.option("--practical", type=GamesType(), default=None, metavar="N",
              help="At each error among the critical moments, play the position out blind with the tutor on N "
                   "deals consistent with what you had seen (every one when there are no more), after your move "
                   "and after the best: the practical win chance. Off by default (a whole game a deal is slow). "
                   f"N from 1 to {MAX_GAMES}.")
@click.pass_context
def review_command(ctx: click.Context, record_path: str, as_json: bool, annotate_path: str | None,
                   samples: int, thresholds: Thresholds, workers: int | None, practical: int | None) -> None:
    """Review a game (finished or not): every move graded from what you could see, plus hindsight.

    Labels by the drop in win chance from the best move: best, good,
    inaccuracy, mistake, blunder. Hindsight (every card known) says whether
    the deal was winnable and at which move the win was lost. RECORD is a
    record file, last (the newest saved game) or a number from osmosis games.
    """
    from .games import resolve_resume

    record_path = str(resolve_resume(record_path, "reviewed"))
    record = record_from_file(record_path)
    if not as_json and not _asked_to_go_on(record, record_path):
        return
    if annotate_path is not None:
        from .keep import keep_game_file

        keep_game_file(annotate_path, "the annotated record of this game", record)
    console = console_of(ctx)
    rev = compute_review(console, record, samples, thresholds, workers, quiet=as_json, practical=practical)
    from .history import note_review  # stored with the game; one line of the history after the report

    note_review(ctx, record, record_path, rev, quiet=as_json)
    refused, kept = None, list[int]()
    if annotate_path is not None:
        annotated, kept = with_players_notes(record, rev.annotated())
        try:
            _write_annotated(annotate_path, record, annotated)
        except RecordError as exc:
            refused = exc  # the report is shown all the same, then the error (exit 1)
    if as_json:
        click.echo(json.dumps(rev.to_json()))
    else:
        console.print(report_for(rev, console))
        if annotate_path is not None and refused is None:
            console.print(f"Annotated record written to {shown_path(annotate_path)} (osmosis replay "
                          f"{shown_path(annotate_path)} shows it).", markup=False)
            if kept:
                console.print(f"Your own notes on {plural(len(kept), 'move')} ({', '.join(map(str, kept))}) are kept "
                              "in it in place of the review's (the report above has the review's).", markup=False)
    if refused is not None:
        raise refused


def _at_a_terminal() -> bool:
    import sys

    from .common import is_a_terminal

    return is_a_terminal(sys.stdin) and is_a_terminal(sys.stdout)


def _asked_to_go_on(record: Record, path: str) -> bool:
    """At a terminal, before reviewing an unfinished game that has cards still to show: whether the player
    wants the hindsight now (`osmosis review last` on a game put aside printed the warning and, on the next
    line, "the deal could not be won from the start"). Where input or output is no terminal the review goes on."""
    from ..knowledge import has_seen_everything
    from ..textsafe import shell_word
    from .common import read_line

    state = record.replay()
    if state.over or has_seen_everything(state) or not _at_a_terminal():
        return True
    answer = read_line("This game is not finished, and the review's hindsight knows the cards it has not shown "
                       "yet. Review it now? [y/N] ", False)
    if answer is not None and answer.strip().lower() in ("y", "yes"):
        return True
    click.echo(f"Not reviewed. Go on with it: osmosis play --resume {shell_word(path)}")
    return False


def _write_annotated(path: str, record: Record, annotated: Record) -> None:
    """Write the annotated record, checked again with the write under the folder's lock: the review can take
    minutes, and another session may save its game there meanwhile (its moves were lost to the older copy)."""
    from ..storage import folder_lock
    from .keep import keep_game_file

    with folder_lock(path):
        keep_game_file(path, "the annotated record of this game", record)
        save_record(annotated, path)

