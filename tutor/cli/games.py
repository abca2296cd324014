"""``osmosis games``: the saved games, newest first, numbered for ``osmosis play --resume N``."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import click
from rich.console import JustifyMethod
from rich.text import Text

from ..errors import RecordError, TutorError
from ..history.db import GameRow
from ..inputs import capped_int
from ..narrate.play import plural
from ..record import Record, load_record
from ..storage import folder_reason, games_dir, record_files
from ..table import Table
from ..textsafe import brief, os_reason, quoted, shown_path
from .app import console_of
from .history_render import deal_column, options_label


@dataclass(frozen=True)
class SavedGame:
    """One file of the games folder: its record, or why it cannot be read."""

    number: int
    path: Path
    mtime: float
    record: Record | None
    error: str | None = None
    went_on: GameRow | None = None
    """The history's game when this file is a copy it left behind: saved with s FILE, the game went on
    from that file (:func:`tutor.history.copies.went_on_elsewhere`)."""

    @property
    def over(self) -> bool:
        return self.record is not None and self.record.replay().over

    def result_text(self) -> str:
        if self.record is None:
            return "unreadable"
        final = self.record.replay()
        text = "won" if final.won else (f"{final.cards} card{'' if final.cards == 1 else 's'}, "
                                        + ("blocked" if final.over else "not finished"))
        return text + (f"; {went_on_text(self.went_on)}" if self.went_on is not None else "")

    def to_json(self) -> dict:
        out = {"number": self.number, "path": str(self.path),
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.mtime))}  # UTC, as history's
        if self.record is None:  # every field a script reads is there, null where the file gave nothing
            out.update({"deal": None, "variant": None, "moves": None, "cards": None, "won": None, "over": None,
                        "error": self.error})
            return out
        final = self.record.replay()
        out.update({"deal": self.record.deal.record_ref(), "variant": self.record.rules.to_json(),
                    "moves": len(self.record.moves), "cards": final.cards, "won": final.won,
                    "over": final.over})
        if self.went_on is not None:
            row = self.went_on
            out["went_on"] = {"game_id": row.id, "moves": row.moves, "won": row.won, "over": row.over,
                              "source": row.source}
        return out


def row_result(row: GameRow) -> str:
    """A stored game's result in a word or two: ``won``, ``finished``, ``not finished``."""
    return "won" if row.won else "finished" if row.over else "not finished"


def copy_not_kept(row: GameRow, moves: int, how: str = "older") -> str:
    """Why a review of a copy of game ``row`` (holding ``moves`` moves) is not kept in the history: the row
    holds the game further on (``older``: the games folder's copy of a game finished from its ``s FILE`` copy,
    or a copy the game went past), or went on from a copy of this very file (``went_on``), which may have
    taken moves back since. Storing it would set the game back, a win included."""
    from .history_render import shell_word

    latest = (f": osmosis review {shell_word(row.source)}" if row.source and Path(row.source).is_file() else "")
    game = f"game {row.id} ({plural(row.moves, 'move')}, {row_result(row)})"
    if how == "went_on":
        what = f"game {row.id} went on from a copy of this file ({plural(row.moves, 'move')}, {row_result(row)})"
    elif moves < row.moves:
        what = f"this file holds the first {moves} of the {row.moves} moves of game {row.id} ({row_result(row)})"
    else:
        what = f"{game} went on from this file's moves, and took some back"
    return f"Not kept in your history: {what}, which the history keeps; review its latest copy to keep a review{latest}."


def went_on_text(row: GameRow) -> str:
    """``an older copy: the game went on to 83 moves (won) in my.json``."""
    how = row_result(row)
    where = f" in {shown_path(row.source)}" if row.source else ""
    return f"an older copy: the game went on to {row.moves} moves ({how}){where}"


def older_copy_note(path: Path, record: Record) -> str | None:
    """A note when the resumed file is a copy its game left behind (it went on from an ``s FILE`` copy):
    going on here makes a game of its own, and the player may have meant the other file."""
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    row = _left_behind([SavedGame(0, path, mtime, record)])[0].went_on
    if row is None:
        return None
    return (f"Note: this file is {went_on_text(row)}; going on here plays this older copy on as a game of its "
            "own.")


def _left_behind(games: list[SavedGame]) -> list[SavedGame]:
    """``games`` with the copies a game left behind marked (the history read only, where there is one)."""
    from dataclasses import replace

    from ..history import copies as hcopies
    from ..history import games as hgames
    from ..history.db import HistoryError, db_path

    if not games or not db_path().exists():
        return games
    try:
        from .history import opened

        with opened(hgames.open_history(import_folder=False)) as history:
            return [replace(g, went_on=hcopies.went_on_elsewhere(history, g.path, g.record, g.mtime))
                    if g.record is not None else g for g in games]
    except (HistoryError, OSError):
        return games


def saved_games(folder: Path | None = None) -> list[SavedGame]:
    """The records in the games folder, newest first (by the time they were last saved), numbered from 1."""
    folder = folder or games_dir()
    try:
        files = [p for p in record_files(folder) if p.is_file()]
    except OSError as exc:  # not "no saved games yet": they may be there
        raise RecordError(f"the games folder {shown_path(folder)} cannot be read: {folder_reason(folder, exc)}"
                          ) from None
    # a file removed meanwhile (another session took every move of its game back) is left out, not an error
    timed = [(mtime, p) for p in files if (mtime := _mtime(p)) is not None]
    timed.sort(key=lambda t: (t[0], t[1].name), reverse=True)
    games: list[SavedGame] = []
    for mtime, path in timed:
        try:
            games.append(SavedGame(len(games) + 1, path, mtime, load_record(path)))
        except TutorError as exc:
            if path.is_file():
                games.append(SavedGame(len(games) + 1, path, mtime, None, str(exc)))
    return games


def _mtime(path: Path) -> float | None:
    """When ``path`` was last written, or None if it is gone."""
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def resolve_resume(value: str, action: str = "resumed") -> Path:
    """What ``--resume`` (or ``review``'s and ``replay``'s RECORD) names: a record file, ``last`` (the newest
    saved game that can be read) or a number from the list of ``osmosis games``.

    A file of that name wins over ``last`` or a number; ``action`` ends the error for an unreadable game.
    """
    unreachable: OSError | None = None  # a name the system cannot look up: in a folder it may not enter, too long
    key = value.strip().lower()
    by_list = key == "last" or (key.isascii() and key.isdigit())
    try:
        if not (by_list and os.path.isdir(value)):  # a folder named last or 2 here: the list's, not a record
            os.stat(value)
            return Path(value)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        pass
    except OSError as exc:
        unreachable = exc
    if key != "last" and not (key.isascii() and key.isdigit()):
        from ..storage import file_in_the_way

        blocked = file_in_the_way(Path(value).parent)  # /etc/passwd/x: its folder is a file
        why = (f"cannot be read: {quoted(blocked)} is a file, not a folder" if blocked is not None else
               f"cannot be read: {os_reason(unreachable)}" if unreachable is not None else "does not exist")
        raise RecordError(f"record {quoted(value)} {why}: expected a record file, 'last' or a number from osmosis "
                          "games")
    games = saved_games()
    if not games:
        raise RecordError(f"there are no saved games in {shown_path(games_dir())}: play one with osmosis play")
    if key == "last":
        readable = [g for g in games if g.record is not None]
        if not readable:
            raise RecordError(f"no saved game in {shown_path(games_dir())} can be read ({plural(len(games), 'file')}, "
                              "osmosis games lists them): play one with osmosis play")
        return readable[0].path
    index = capped_int(key, len(games))
    if not 1 <= index <= len(games):
        shown = key if len(key) <= 30 else brief(key)  # a number of thousands of digits, quoted cut
        raise RecordError(f"there is no saved game {shown}: expected 1 to {len(games)} (osmosis games lists them)")
    game = games[index - 1]
    if game.record is None:
        raise RecordError(f"saved game {index} cannot be {action}: {game.error}")
    return game.path


def _deal_text(record: Record) -> str:
    return str(record.deal.number) if record.deal.number is not None else "file"


@click.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_context
def games_command(ctx: click.Context, as_json: bool) -> None:
    """List the saved games, newest first; osmosis play --resume N (or last) goes on with one."""
    games = _left_behind(saved_games())
    if as_json:
        click.echo(json.dumps({"folder": str(games_dir()), "games": [g.to_json() for g in games]}))
        return
    console = console_of(ctx)
    if not games:
        from ..storage import broken_link, file_in_the_way

        blocked, broken = file_in_the_way(games_dir()), broken_link(games_dir())
        if blocked is not None or broken is not None:  # no game can be saved there: "play starts one" is false
            why = broken or f"{shown_path(blocked)} is a file"
            console.print(Text(f"No saved games: {shown_path(games_dir())} cannot be a folder, since "
                               f"{why} (set OSMOSIS_HOME to a writable folder)."))
            return
        console.print(Text(f"No saved games yet in {shown_path(games_dir())}: osmosis play starts one."))
        return
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("#", "right"), ("deal", "right"), ("variant", "left"), ("saved (UTC)", "left"), ("moves", "right"), ("result", "left"))
    deal_width = max((len(_deal_text(g.record)) for g in games if g.record is not None), default=4)
    for name, justify in columns:  # a deal number of 20 digits stays whole on one line
        table.add_column(name, justify=justify, **deal_column(deal_width) if name == "deal" else {})
    for g in games:
        date = time.strftime("%Y-%m-%d %H:%M", time.gmtime(g.mtime))  # UTC, as the history's dates
        if g.record is None:
            table.add_row(str(g.number), "?", "?", date, "?", Text(f"unreadable: {shown_path(g.path.name)}", style="red"))
            continue
        rules = g.record.rules
        # a combination of options no preset has is named by its options: two of them are told apart
        variant = rules.name or options_label(rules.turn, rules.passes, rules.reserve_piles, rules.open_reserve)
        table.add_row(str(g.number), _deal_text(g.record), variant, date,
                      str(len(g.record.moves)), g.result_text())
    console.print(table)
    console.print(Text(f"In {shown_path(games_dir())}. osmosis play --resume N goes on with game N (--resume last: "
                       "the newest); a finished game opens as a replay. osmosis review N and osmosis replay N "
                       "take the same numbers."))
