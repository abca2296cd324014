"""``osmosis deal``, ``osmosis play`` and ``osmosis replay``: the commands (parse, call, render).

The game itself, line mode's loop and what it says, is the
:class:`~tutor.cli.session.Session` (shared with the full-screen board).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from ..deals import deal_text, random_deal_number
from ..errors import RecordError
from ..game import Game
from ..narrate.play import end_message, plural
from ..record import Record
from ..render import move_line, prose, render_deal, render_state, use_symbols
from ..talon import waste_fan
from ..textsafe import clean
from .app import console_of
from .common import (
    DEAL_NUMBER,
    DealCommand,
    FiniteFloat,
    check_record_rules,
    is_a_terminal,
    read_line,
    record_from_file,
    resolve_deal,
    rules_flags,
    rules_from_kwargs,
    variant_options,
)
from .session import Session, say_line

__all__ = ["deal_command", "play_command", "replay_command", "deal_json", "board_wanted", "review_after_play"]


# ---- osmosis deal --------------------------------------------------------
deal_json = deal_text  # the one deal-file writer lives in tutor.deals


@click.command("deal", cls=DealCommand)
@click.argument("number", type=DEAL_NUMBER, required=False)
@click.option("--deal-file", metavar="FILE", default=None, help="A deal file (osmosis-deal/1) instead of a number.")
@variant_options
@click.option("--json", "as_json", is_flag=True, help="Print the deal file (JSON) instead of the layout.")
@click.option("--reveal", is_flag=True, help="Show the face-down cards too.")
@click.pass_context
def deal_command(ctx: click.Context, number: int | None, deal_file: str | None, as_json: bool, reveal: bool,
                 **kwargs: Any) -> None:
    """Show deal NUMBER's layout (PySolFC's numbering), or print it as a deal file."""
    rules = rules_from_kwargs(kwargs, deal_file=deal_file)
    deal = resolve_deal(number, deal_file, rules)
    if as_json:
        click.echo(deal_json(deal))
        return
    console = console_of(ctx)
    console.print(render_deal(deal, rules, reveal=reveal, symbols=use_symbols(console)))
    if rules.warning():
        console.print(f"Note: {rules.warning()}.", soft_wrap=True)


def _check_save_path(path: str) -> None:
    """Refuse before the game a ``--save`` path no game could be written to (a missing folder, a file where a
    folder should be, a device, a folder that cannot be written): it failed only at ``q`` and exited 0, the game
    kept elsewhere."""
    import tempfile
    from pathlib import Path

    from ..errors import RecordError
    from ..record import no_folder
    from ..storage import check_writable_target, games_dir
    from ..textsafe import quoted
    from .keep import cannot_write

    # through a link, the file it points to is the one written (a dangling link's folder may not be there)
    folder = Path(os.path.realpath(path) if os.path.islink(path) else os.path.abspath(path)).parent
    games = Path(os.path.abspath(games_dir()))
    if not folder.is_dir() and folder not in (games, *games.parents):  # the games folder and above: made to play
        raise RecordError(f"--save {quoted(path)} cannot be written: {no_folder(folder)}")
    try:
        check_writable_target(path)
        if folder.is_dir():  # a folder that is there but cannot be written (its rights, a read-only disk)
            fd, probe = tempfile.mkstemp(prefix=".osmosis-", suffix=".tmp", dir=folder)
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        raise RecordError(f"--save {quoted(path)} cannot be written: {cannot_write(path, exc, '--save')}") from None


@click.command("play", cls=DealCommand)
@click.argument("number", type=DEAL_NUMBER, required=False)
@click.option("--deal-file", metavar="FILE", default=None, help="Play a deal file (osmosis-deal/1).")
@variant_options
@click.option("--tutor", is_flag=True, help="Warn before a move that is clearly worse than the best one.")
@click.option("--threshold", type=FiniteFloat(0, 100), default=10.0, show_default=True, metavar="PCT",
              help="Tutor mode warns when a move's win chance is this many points below the best (0 to 100).")
@click.option("--save", "save_path", metavar="PATH", default=None,
              help="Also save the record here (on s, at the end and on quit).")
@click.option("--resume", "resume_path", metavar="RECORD", default=None,
              help="Go on with a saved game (a file, 'last', or a number from osmosis games); "
                   "it is saved back to the same file as you play.")
@click.option("--plain", is_flag=True, help="Line mode (typed moves and Enter) even on a terminal.")
@click.pass_context
def play_command(ctx: click.Context, number: int | None, deal_file: str | None, tutor: bool, threshold: float,
                 save_path: str | None, resume_path: str | None, plain: bool = False, **kwargs: Any) -> None:
    """Play a deal in the terminal (no argument: a random deal number).

    On a terminal a full-screen board with single keys: 1-4 w d t u r h s q ?.
    Piped input and --plain: line mode, type r1-r4, w, d or a card name to
    move; t turns to the next playable card, u undo, h hint, s save, q quit,
    ? help. The game is saved after every move.
    """
    console = console_of(ctx)
    if save_path is not None and (not save_path.strip() or os.path.isdir(save_path)):
        from ..errors import RecordError
        from ..textsafe import quoted

        raise RecordError(f"--save {quoted(save_path)} is {'a folder' if save_path.strip() else 'empty'}: "
                          "give a file name, like --save game.json")
    if save_path is not None:
        _check_save_path(save_path)
    resumed: Path | None = None
    if resume_path is not None:
        if number is not None or deal_file is not None:
            raise click.UsageError("--resume takes the deal from the record: give no deal number or --deal-file "
                                   "with it")
        from .games import resolve_resume

        from_list = not os.path.exists(resume_path)  # "last" or a number from osmosis games
        resumed = resolve_resume(resume_path)
        game = Game.from_record(record_from_file(str(resumed)))
        check_record_rules(kwargs, game.rules, "--resume")
        if game.state.over and (from_list or (not plain and board_wanted(console))):
            # A finished game picked from the list, or on a terminal, opens as a replay; a
            # record file named in line mode opens as it ended, and after an undo a move the
            # finished file does not hold goes on in a new copy (GameFiles says so). Either
            # way the finished file is never rewritten.
            say_line(console, f"That game is finished: {end_message(game.state)} It opens as a replay.")
            ctx.invoke(replay_command, record_path=str(resumed), plain=plain)
            return
    else:
        rules = rules_from_kwargs(kwargs, deal_file=deal_file)
        if number is None and deal_file is None:
            number = random_deal_number()
            say_line(console, f"Deal {number} (a random deal; play it again with: "
                              f"osmosis play {number}{rules_flags(rules)})")
        deal = resolve_deal(number, deal_file, rules)
        game = Game(rules, deal)
    if save_path is not None and (resumed is None or os.path.abspath(save_path) != os.path.abspath(resumed)):
        from ..record import keep_finished_game
        from .keep import game_began, keep_other_file

        keep_finished_game(save_path, "this game (--save)")
        keep_other_file(save_path, game.to_record(), game_began(resumed))
    on_board = not plain and board_wanted(console)
    if plain:
        console.two_letters = True  # type: ignore[attr-defined]  # cards in two letters, as the README says
    session = Session.open(ctx, game, tutor, threshold, save_path, resumed, board=on_board)
    if on_board:
        from ..board.play import run_board

        try:
            wants_review = run_board(session, use_symbols(console)) == "review"
        except KeyboardInterrupt:  # a kill or a closed terminal: the board closed, the terminal put back
            session.quit(final=True)  # where the game is kept, as a Ctrl-C in line mode says it
            ctx.exit(session.exit_code or 130)
        session.quit(final=True)
        if wants_review:
            review_after_play(ctx, session.record())
        ctx.exit(session.exit_code)
    session.run()
    ctx.exit(session.exit_code)


def board_wanted(console: Console) -> bool:
    """The full-screen board: only when both ends are a terminal that can draw it (its card backs, arrows
    and empty cells need a UTF-8 terminal; elsewhere line mode spells them in ASCII). Textual draws on
    stderr, so that is a terminal too: ``osmosis play 2>log`` drew the board into the log, the screen blank."""
    return (sys.stdin.isatty() and sys.stdout.isatty() and _stderr_is_a_terminal() and console.is_terminal
            and os.environ.get("TERM", "") not in ("", "dumb")
            and (console.encoding or "").lower().replace("-", "").startswith("utf8"))


def _stderr_is_a_terminal() -> bool:
    return is_a_terminal(sys.__stderr__)


def review_after_play(ctx: click.Context, record: Record) -> None:
    from .review import review_after_play as review

    review(ctx, record)


# ---- osmosis replay ------------------------------------------------------
def _annotation_text(note: dict | None, symbols: bool = False) -> Text | None:
    """A record's note on a move (label, tags, comment) as one line, or None for no note.

    The label is shown once: not before a comment that opens with it ("Blunder: ..."), and not at all for a
    forced move, a free play or a decided position (``graded: false``), whose label ``best`` grades nothing.
    """
    if not note:
        return None
    text = Text("  ")
    # The annotations come from a file that may have been shared: no control codes reach the terminal.
    label = note.get("label")
    comment = note.get("comment") if isinstance(note.get("comment"), str) else None
    tags = [clean(str(t)) for t in note.get("tags") or []]
    if note.get("graded") is False or (isinstance(label, str) and comment
                                       and comment.lower().startswith(label.lower())):
        label = None
    if label:
        text.append(clean(str(label)), style="bold")
        if tags:
            text.append(f" [{', '.join(tags)}]")
        if comment:
            text.append(": ")
    if comment:
        text.append_text(prose(clean(comment), symbols))
    if tags and not label:
        text.append(f" [{', '.join(tags)}]", style="dim")
    return text if text.plain.strip() else None


@click.command("replay")
@click.argument("record_path", metavar="RECORD")
@click.option("--all", "show_all", is_flag=True, help="Print every position without waiting.")
@click.option("--review/--no-review", "with_review", default=True, show_default=True,
              help="Comment every move with the post-game review (computed unless every move carries its own "
                   "annotation, which is kept where there is one; with the no- form, only the record's own "
                   "annotations are shown).")
@click.option("--plain", is_flag=True, help="Line mode (Enter for the next move) even on a terminal.")
@click.option("--at", "at", type=click.IntRange(1), default=None, metavar="N",
              help="Open at move N (osmosis coach names the moves worth a look).")
@click.pass_context
def replay_command(ctx: click.Context, record_path: str, show_all: bool, with_review: bool = True,
                   plain: bool = False, at: int | None = None) -> None:
    """Step through a game record with commentary.

    On a terminal a viewer: arrows step both ways, Home/End, n/p jump to the
    labelled moves and critical moments, g goes to a move. In line mode
    (pipes, --plain) Enter shows the next move and q stops; when the input
    is not a terminal and ends, the rest of the game is printed. Each move
    gets the post-game review's label and comment. --at N opens at move N.
    RECORD is a record file, last (the newest saved game) or a number from
    osmosis games.
    """
    from .games import resolve_resume

    record = record_from_file(str(resolve_resume(record_path, "replayed")))
    if at is not None and at > len(record.moves):
        raise RecordError(f"the record has {plural(len(record.moves), 'move')}, so there is no move {at}: "
                          + (f"expected --at 1 to {len(record.moves)}" if record.moves else "leave out --at"))
    if plain:
        console_of(ctx).two_letters = True  # type: ignore[attr-defined]  # cards in two letters
    if not show_all and not plain and board_wanted(console_of(ctx)):
        from ..board.replay import run_replay
        from .review import replay_samples, review_for_viewer

        record, rev = review_for_viewer(ctx, record, replay_samples(record)) if with_review else (record, None)
        run_replay(record, rev, use_symbols(console_of(ctx)), start=at or 0)
        return
    summary: list[str] = []
    if with_review:
        from .review import annotate_for_replay, replay_samples

        record, summary = annotate_for_replay(ctx, record, replay_samples(record))
    console = console_of(ctx)
    symbols = use_symbols(console)
    states = record.states()
    moves = record.moves
    where = f"deal {record.deal.number}" if record.deal.number is not None else "a deal given in full"
    say_line(console, f"Replay of {where}, {record.rules.describe()}: {plural(len(moves), 'move')}."
                  + (f" From move {at}, the position before it:" if at else ""))
    for line in summary:
        say_line(console, line)
    first = (at or 1) - 1
    console.print(render_state(states[first], symbols=symbols,
                               fan=waste_fan(states[: first + 1], moves[:first]), moves=False))
    echo = not sys.stdin.isatty()
    for i, move in enumerate(moves):
        if i < first:
            continue
        while not show_all:
            answer = read_line("Enter: next move, q: stop ", echo)
            if answer is None and echo:
                show_all = True  # input from a pipe or file that ended: print the rest
            elif answer is None or answer.strip().lower() in ("q", "quit"):
                say_line(console, f"Stopped after move {i} of {len(moves)}.")
                return
            elif answer.strip():  # only Enter steps on: a typed word would have been taken as one
                say_line(console, "Here Enter shows the next move and q stops (--at N starts at move N; "
                                  "on a terminal the board steps back and jumps too).")
                continue
            break
        say_line(console, move_line(i + 1, states[i], move, symbols))
        note = _annotation_text(record.annotations[i], symbols)
        if note is not None:
            say_line(console, note)
        console.print(render_state(states[i + 1], symbols=symbols, fan=waste_fan(states[: i + 2], moves[: i + 1]),
                                   moves=False))
    final = states[-1]
    if final.over:
        say_line(console, end_message(final))
    else:
        say_line(console, f"End of the record: {plural(final.score, 'card')} on the foundations, "
                      "the game was not finished.")
