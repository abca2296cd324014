"""``osmosis history``, ``osmosis import``, ``osmosis export``, and the hooks that feed the history.

The hooks (:func:`note_game` as a game is autosaved, :func:`after_game` at
its end, :func:`note_review` when a review runs) never raise: a history
that cannot be written costs the player one warning line, never the game.
``coach`` and ``drill`` live in :mod:`.coach` and :mod:`.drill`.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from ..history import copies as hcopies
from ..history import games as hgames
from ..history import names as hnames
from ..history.db import History, HistoryError
from ..history.stats import figures, summary
from ..record import content_of
from ..textsafe import quoted, shown_path
from . import history_render as words
from .app import console_of
from .common import FILE
from .games import copy_not_kept
from .keep import cannot_write

if TYPE_CHECKING:
    from ..record import Record
    from ..review import Review

Say = Callable[[str], object]
"""Where a hook's one line goes (play's message line); None for stderr."""

_warned: set[str] = set()


def open_for_command(console: Console | None = None) -> History:
    """The history for a command: a damaged file's note and the first-use import are said on stderr."""
    return opened(hgames.open_history())


def opened(history: History, say: Say | None = None, warn: Say | None = None) -> History:
    """``history``, its news said once (a warning to ``warn``, the rest to ``say``, else stderr): a damaged
    file set aside (or one read as it is), and the games folder's import. Every command that opens the history passes it here: the first
    to open a damaged file sets it aside, and ``games`` or ``review`` did so without a word."""
    if history.warning:
        _warn_once(warn, history.warning, None)
    if history.imported and history.imported[0] + history.imported[1]:
        added, skipped = history.imported
        extra = f" ({skipped} unreadable file{'s' if skipped != 1 else ''} left out)" if skipped else ""
        text = (f"Imported {added} saved game{'s' if added != 1 else ''} from the games folder into your "
                f"history{extra}.")
        if say is not None:
            say(text)
        else:
            click.echo(text, err=True)
        history.imported = None
    return history


def _warn_once(say: Say | None, what: str, exc: BaseException | None) -> None:
    """One warning line per problem and history file in a session."""
    from ..history.db import db_path

    key = f"{db_path()}: {what}"
    if key in _warned:
        return
    _warned.add(key)
    # a MemoryError says nothing of itself: "could not be added to your history (); play goes on"
    reason = "out of memory" if isinstance(exc, MemoryError) else (str(exc) or type(exc).__name__)
    text = f"warning: {what} ({reason}); play goes on" if exc is not None else f"warning: {what}"
    if say is not None:
        say(text)
    else:
        click.echo(text, err=True)


# ---- hooks ----------------------------------------------------------------

def note_game(record: Record, path: str | Path | None, warn: Say | None = None,
              resumed_from: str | None = None, moved_from: str | Path | None = None) -> None:
    """Put the game just autosaved into the history (``resumed_from``: the content of the game as its
    resumed file held it; ``moved_from``: the file it left for a copy); a failure is one warning to ``warn``
    (else stderr). Never raises."""
    try:
        hgames.note_game(record, path, resumed_from=resumed_from, moved_from=moved_from)
        damaged = hgames.take_warning()
    except Exception as exc:  # noqa: BLE001 - a history failure must never break a game
        _warn_once(warn, "the game could not be added to your history", exc)
        return
    if damaged:
        _warn_once(warn, damaged, None)


def after_game(record: Record, path: str | Path | None, say: Say, warn: Say | None = None) -> None:
    """At the end of a game: one line of what the history shows, when it has something to say (a warning to
    ``warn``, else stderr). Never raises."""
    try:
        line = _after_game_line(record, path, say, warn)
    except Exception as exc:  # noqa: BLE001
        _warn_once(warn, "your history could not be read", exc)
        return
    if line:
        say(line)


def _after_game_line(record: Record, path: str | Path | None, say: Say, warn: Say | None) -> str | None:
    from ..history.coach import recurring
    from ..history.reviews import reviews

    with opened(hgames.open_history(import_folder=False), say, warn) as history:
        rec = recurring(history)
        if rec is not None:
            return words.recurring_line(rec)
        variant = hnames.variant_name(record)
        same = [g for g in history.games(played_only=True) if g.variant == variant]
        if len(same) >= 2:
            return words.results_line(figures(same, reviews(history, with_moves=False)), variant)
    return None


def note_review(ctx: click.Context, record: Record, path: str | Path | None, rev: Review, quiet: bool = False,
                later: bool = True) -> None:
    """Store a review with its game; one line of what the history shows, after the command's output
    (``later``) or now.

    Never raises: the review itself is already done.
    """
    console = console_of(ctx)
    try:
        line = store_review(record, path, rev)
    except Exception as exc:  # noqa: BLE001
        line = f"warning: the review was not added to your history ({exc})"
    if not line or quiet:
        return
    # wrapped between words at the console's width, as the review above it (a terminal breaks words)
    if later:
        ctx.call_on_close(lambda: console.print(line, markup=False))
    else:
        console.print(line, markup=False)


def store_review(record: Record, path: str | Path | None, rev: Review, history: History | None = None,
                 game_id: int | None = None) -> str | None:
    """Store the review of a record (adding the game if the history lacks it); the line to say, if any.

    ``game_id`` names the history's game outright (the coach reviewing its own rows): two games with the
    same moves are two games, and looking one up by its content would find the other.
    """
    from ..history.coach import recurring
    from ..history.reviews import not_kept, review_data, reviews
    from ..history.reviews import store_review as store

    own = history is None
    history = history or opened(hgames.open_history())
    try:
        with history.write():  # look-up and insert in one transaction: two reviews at once add one game
            if game_id is None:
                # an older copy played on as a game of its own has a row of its own (KEY#2)
                key = hcopies.own_key(history, hnames.key_for_path(path), record) if path is not None else None
                moved = hcopies.went_on_in_a_copy(history, Path(path), record) if path is not None else None
                if moved is not None:  # the file is the game as it was before it went on in a copy
                    return copy_not_kept(moved, len(record.moves),
                                         "older" if moved.moves > len(record.moves) else "went_on")
                found = hgames.key_of(history, record, key)
                if isinstance(found, int):  # the row holds this game, as far or further on
                    row = history.game(found)
                    if row is not None and row.moves > len(record.moves):
                        return copy_not_kept(row, len(record.moves))
                    game_id = found
                else:
                    # found by content only with no file's key (a pipe): a file's own key that no copy matched
                    # (another game of play's, played alike) is a game of its own
                    game = history.game_by_content(content_of(record)) if found is None else None
                    left = hcopies.copy_left_behind(history, Path(path), record) if game is None and path else None
                    if left is not None:  # a copy the game left behind, holding its first moves
                        return copy_not_kept(left, len(record.moves))
                    started, played = hgames.dates_of(path)
                    game_id = game.id if game is not None else hgames.add_record(
                        history, record, key=found, source=hnames.source_of(path) if path else None,
                        started_at=started, played_at=played)
            other = not_kept(history, game_id, rev.thresholds, rev.samples)
            if other is not None:
                return other
            store(history, game_id, review_data(rev))
        rec = recurring(history, game_id=game_id)
        if rec is not None:
            return words.recurring_line(rec)
        done = reviews(history, with_moves=False)
        this = history.game(game_id)
        variant = this.variant if this is not None else None
        # compared within the variant only: a Peek game's accuracy says nothing of an Osmosis game's
        others = [g for g in history.games(played_only=True)
                  if g.id in done and g.id != game_id and g.variant == variant]
        fig = figures(others, done)
        # compared only when both sides rate something: a game with no graded move has no accuracy
        if others and variant is not None and rev.graded > 0 and fig.accuracy is not None:
            return words.accuracy_line(rev.accuracy, fig, variant, rev.graded, rev.accuracy_ci_text())
        return None
    finally:
        if own:
            history.close()


# ---- the commands -----------------------------------------------------------

@click.command("history")
@click.option("--last", "last_n", type=click.IntRange(1), default=10, show_default=True, metavar="N",
              help="Figures over the last N games too, and the N most recent games listed.")
@click.option("--variant", "-v", default=None, metavar="NAME",
              help="Only the games of one variant: a preset, or options as the history names them "
                   "(\"turn 1, 3 passes, 4 piles\") or as its JSON gives them.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
def history_command(ctx: click.Context, last_n: int, variant: str | None, as_json: bool) -> None:
    """Your games: win rate, mean cards, streaks, accuracy over time.

    The figures over all your games, over the last N and per variant.

    Every game played with osmosis play goes into the history as it is
    played ($OSMOSIS_HOME/history.sqlite3); saved games are imported on
    first use, other records with osmosis import.
    """
    console = console_of(ctx)
    with open_for_command(console) as history:
        if variant is not None:
            variant = _stored_variant(history, variant)
        s = summary(history, last_n, variant)
    if as_json:
        click.echo(json.dumps(s.to_json()))
        return
    console.print(words.render_summary(s, width=console.width, variant=variant))


def _stored_variant(history: History, name: str) -> str:
    """``--variant``'s value as the history stores it: a preset (or alias), else a combination of options
    written as the history shows it (``turn 1, 3 passes, 4 piles``, any case); else the preset's error, with
    the combinations the history holds."""
    from ..errors import TutorError
    from ..rules import Rules, preset

    if name.lstrip().startswith("{"):  # the options as history --json and games --json give them
        try:
            return hnames.rules_name(Rules.from_json(json.loads(name)))
        except (ValueError, TutorError) as exc:
            raise TutorError(f"--variant {name!r} is no set of options the history knows ({exc}): give them as "
                             "history --json writes them, or as the history names them (turn 1, 3 passes, "
                             "4 piles)") from None
    try:
        return preset(name).name or name
    except TutorError as exc:
        combos = sorted({g.variant for g in history.games() if g.variant.startswith("{")})
        wanted = " ".join(name.lower().split())
        for stored in combos:
            if words.variant_label(stored).lower() == wanted:
                return stored
        written = _options_named(wanted)
        if written is not None:  # options written as the history names them, with no game yet
            return written
        if not combos:
            raise
        shown = "; ".join(repr(words.variant_label(v)) for v in combos[:5])
        raise TutorError(f"{exc}, or a combination of options your history holds: {shown}") from None


_OPTIONS = re.compile(r"turn ([13]), (unlimited|\d{1,4}) pass(?:es)?, (no reserve|([0-4]) piles?(, open)?)")


def _options_named(wanted: str) -> str | None:
    """The stored form of options written as the history names them (``turn 1, 5 passes, 4 piles``), or None
    where ``wanted`` is not such a name or no game could have them."""
    from ..errors import RulesError
    from ..rules import Rules

    found = _OPTIONS.fullmatch(wanted)
    if found is None:
        return None
    turn, passes, _, piles, open_ = found.groups()
    try:
        rules = Rules(int(turn), 0 if passes == "unlimited" else int(passes), open_ is not None,
                      0 if piles is None else int(piles))
    except RulesError:
        return None
    return hnames.rules_name(rules)


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(readable=False))
@click.pass_context
def import_command(ctx: click.Context, files: tuple[str, ...]) -> None:
    """Bring game records or an export (JSON lines) into your history.

    FILE is a game record (osmosis-record/1) or what osmosis export wrote.

    The same game imported twice is kept once. A file that cannot be read
    is named and the others still go in; the exit status is then 1.
    """
    from ..history.transfer import ImportResult, import_file
    from .import_words import imported_lines

    console = console_of(ctx)
    total = ImportResult()
    history = hgames.open_history()
    if history.read_only:  # one line, not a warning that nothing is stored and then the error of the first store
        history.close()
        raise HistoryError(f"your history {quoted(history.path)} cannot be written here ({history.refused}), so "
                           "nothing was imported: set OSMOSIS_HOME to a writable folder, or free some disk space")
    with opened(history) as history:
        for at, name in enumerate(files, 1):
            # what each file changed is found in the transaction that wrote it: another import may run at once
            if not name:  # Path("") is the current folder: named as typed instead
                result = ImportResult(problems=["an empty file name was given: give a record file or an export, "
                                                "like game.json"])
            else:
                result = import_file(history, Path(name))
            total.games += result.games
            total.add(result)
            total.problems += result.problems
            total.warnings += result.warnings
            total.empty += result.empty
            total.unbegun += result.unbegun
            if result.stopped:
                skipped = len(files) - at
                if skipped:
                    total.problems.append(f"{skipped} more file{'s' if skipped != 1 else ''} not imported")
                break
    for warning in total.warnings:
        click.echo(f"warning: {warning}", err=True)
    for problem in total.problems:
        click.echo(f"error: {problem}", err=True)
    for line in imported_lines(total):
        console.print(line, soft_wrap=True, markup=False)
    if total.problems:
        ctx.exit(1)


@click.command("export")
@click.argument("file", required=False, type=FILE)  # text: Path() would drop a trailing slash
@click.pass_context
def export_command(ctx: click.Context, file: str | None) -> None:
    """Write your history as JSON lines (osmosis import reads them back).

    To FILE, or to the output (no FILE, or -).
    """
    from ..history.transfer import export_text
    from ..storage import check_writable_target, folder_lock

    if file == "-":  # the usual name of the output
        file = None
    if file is not None:
        from .keep import keep_game_file

        keep_game_file(file, "the export", example="history.jsonl", export=True)
        try:  # a folder, a pipe, a device: said before the history is read
            check_writable_target(file)
        except (OSError, ValueError) as exc:
            why = cannot_write(file, exc, "osmosis export") if isinstance(exc, OSError) else str(exc)
            raise HistoryError(f"cannot write {quoted(file)}: {why}") from None
        _keep_other_file(file)
    with open_for_command() as history:
        from ..history.drill import sync_drills_if_free

        sync_drills_if_free(history)  # the drills' costs as the reviews now stand
        text = export_text(history)
    if file is None:
        click.echo(text, nl=False)
        return
    with folder_lock(file):  # checked again with the write, which another export must wait for
        _write_export(file, text)
    n = text.count("\n")
    click.echo(f"Exported {n} game{'s' if n != 1 else ''} to {shown_path(file)}.", err=True)


def _write_export(file: str, text: str) -> None:
    """Write the export over ``file`` where that keeps what it holds: an earlier export only if this one keeps
    every game of it."""
    from ..history.backup import dropped_games, export_in, held_in
    from ..storage import atomic_write_text

    _keep_other_file(file)  # again: the file may have come since
    old = export_in(file)
    if old is not None:
        # an earlier export is a backup of whole games: written over only by one that keeps every one of them
        if old.laid_out:
            raise HistoryError(f"{quoted(file)} is an export that cannot be read line by line (laid out over several "
                               "lines, or a note added: what it holds cannot be checked) and is kept as it is: write "
                               "the export to another file")
        if old.unreadable:
            raise HistoryError(f"{quoted(file)} is an export with {old.unreadable} line"
                               f"{'s' if old.unreadable != 1 else ''} that cannot be read (a damaged or edited "
                               "export: what they hold cannot be checked) and is kept as it is: write the export "
                               "to another file")
        new = dict(found for found in map(held_in, text.splitlines()) if found is not None)
        lost = dropped_games(old.games, new)
        if lost:
            n = len(old.games)
            raise HistoryError(f"{quoted(file)} is an export of {n} game{'s' if n != 1 else ''}, and this history "
                               f"lacks {len(lost)} of {'it' if n == 1 else 'them'} or holds less ({lost[0]}"
                               f"{', ...' if len(lost) > 1 else ''}); it is kept as it is: write the export to "
                               f"another file, or import that one first (osmosis import {shlex.quote(str(file))})")
    try:
        atomic_write_text(file, text)
    except OSError as exc:
        raise HistoryError(f"cannot write {quoted(file)}: {cannot_write(file, exc, 'osmosis export')}") from None


def _keep_other_file(file: str) -> None:
    """Refuse to write the export over any file but an earlier export, as ``play --save`` over no game record."""
    from ..history.backup import other_file

    if other_file(file):
        raise HistoryError(f"{quoted(file)} is not an export of your history and is kept as it is: give a new file "
                           "name (osmosis export writes over an earlier export only)")
