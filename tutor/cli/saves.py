"""Where a game being played is kept, and what can truthfully be said about it.

The rules, so that a player never loses a game:

- a new game gets its autosave file at its first move (a game quit with no
  move leaves no file), under a name no other game has (storage's
  exclusive creation, so two games started in the same second never share
  one);
- a file that holds a finished game (won or blocked) is never overwritten
  by a shorter or unfinished one: after an undo past the end the finished
  file still holds every move, so nothing new is written until a move it
  does not hold (or ``s``), and then the game goes on in a new copy; the
  messages say which file holds what;
- an autosave file written by someone else since this session last wrote
  or read it (another session of the same game) is kept as it is: the game
  goes on in a copy;
- ``s FILE`` and ``--save`` never write over another game, finished or
  not, or a file that is no game record (:func:`keep_other_file`); a game
  whose every move was taken back leaves no file on quit;
- "saved" is said only of a file whose last good write holds the moves
  played now; when saving fails, the player is told which moves are not
  saved and offered ``s FILE``;
- a Ctrl-C while a move is played and saved waits until it is saved
  (:func:`held_interrupt`).

No output here: every method returns the sentences to show.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..deals import Deal
from ..errors import RecordError
from ..game import Game
from ..notation import Move
from ..record import save_new_record, save_record
from ..storage import folder_lock, folder_reason, games_dir, is_regular_file, remove_stale_temps
from ..textsafe import quoted, shown_path
from .keep import game_began, keep_other_file, move_objects_words
from .words import SAVE_TO_A_FILE


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _stamp(path: str | Path) -> tuple[int, int, int] | None:
    """What changes whenever a file is written (an atomic save replaces it: a new inode), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _file_system_name(name: str) -> str:
    """A typed file name as the file system takes it: where its encoding (ASCII in a C locale) cannot hold the
    name as read (UTF-8 first), the name's own bytes, as a name given on the command line is taken."""
    try:
        os.fsencode(name)
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode(sys.getfilesystemencoding(), "surrogateescape")
    return name


class GameFiles:
    """The files of one game at the terminal: the autosave, ``--save PATH``, and what each holds."""

    def __init__(self, game: Game, games: Path | None, stem: str, save_path: str | None = None,
                 resumed: Path | None = None, given: Path | None = None) -> None:
        self.game = game
        self.games = games  # the folder for new autosave files; None when it cannot be used
        self.stem = stem
        self.save_path = save_path
        self.autosave: Path | None = resumed
        self.written: dict[str, tuple[Move, ...]] = {}  # file -> the moves its last good write holds
        self.finished: set[str] = set()  # files holding a finished game
        self.failed = False  # the last autosave failed
        self.created = False  # the autosave file was made by this session (not a resumed game's)
        self.asked = False  # the player saved it with s: it stays, even with no move in it
        self.told_held = False  # the player was told that the finished file still holds the moves
        self.stamps: dict[str, tuple[int, int, int] | None] = {}  # file -> how it was when last written or read
        self.moved_from: Path | None = None  # the file this game left for a copy, written by something else
        self.to_a_file = SAVE_TO_A_FILE  # how the player saves to a file of their own (the board's own way)
        # A record read from a pipe or a device (``--resume <(...)``), which no write can go back to: its moves
        # are the player's already, so quitting with only them loses nothing (no "not saved" for them).
        self.given = given
        self.given_moves = self._moves() if given is not None else ()
        self.began = game_began(resumed)  # a file of this deal written before then is another try (keep.py)
        if resumed is not None:
            self._note(resumed)

    # -- bookkeeping
    def _moves(self) -> tuple[Move, ...]:
        return tuple(self.game.moves)

    def _key(self, path: str | Path | None) -> str:
        """The name this session keeps ``path`` under: the name it already knows the same file by, if any
        (``./won.json`` and ``won.json`` are one file: keyed apart, this session's own write to one read as
        another session's write to the other), else the path as given."""
        text = str(path)
        if text in self.stamps or text in self.written:
            return text
        try:
            real = os.path.realpath(text)
            known = [*self.stamps, *self.written, *(str(p) for p in (self.autosave, self.save_path) if p is not None)]
            return next((k for k in known if os.path.realpath(k) == real), text)
        except (OSError, ValueError):  # a name no file can have (a NUL in it): the writer says why
            return text

    def _note(self, path: str | Path) -> None:
        self.written[self._key(path)] = self._moves()
        self.stamps[self._key(path)] = _stamp(path)
        if self.game.state.over:
            self.finished.add(self._key(path))

    def _changed_elsewhere(self, path: str | Path) -> bool:
        """Whether the file was written by someone else (another session of the same game, say) since this
        one last wrote or read it: then it is kept as it is."""
        stamp = self.stamps.get(self._key(path))
        return stamp is not None and _stamp(path) != stamp

    def _forget(self, path: str | Path) -> None:
        self.written.pop(self._key(path), None)
        self.finished.discard(self._key(path))
        self.stamps.pop(self._key(path), None)

    def _write(self, path: str | Path) -> None:
        save_record(self.game.to_record(), path)
        self._note(path)

    def _write_own(self, path: str | Path) -> None:
        """Write a file of the player's own (``--save``, ``s FILE``): one this session has not written, or one
        written since by someone else (another session saving its game there), is checked first, under the
        folder's lock with the write, so another game in it is never written over (:func:`keep_other_file`)."""
        with folder_lock(path):
            if self._key(path) not in self.written or self._changed_elsewhere(path):
                keep_other_file(path, self.game.to_record(), self.began)
            self._write(path)

    def _new_file(self) -> Path:
        folder = self.games if self.games is not None else (self.autosave.parent if self.autosave else None)
        if folder is None:
            raise RecordError("there is no folder for a new game file (set OSMOSIS_HOME to a writable folder)")
        path = save_new_record(self.game.to_record(), folder, self.stem)
        self._note(path)
        return path

    def _holds_start(self, path: str | Path) -> bool:
        """Whether ``path`` holds a finished game whose moves begin with (or are) the moves played now."""
        held, now = self.written.get(self._key(path)), self._moves()
        return self._key(path) in self.finished and held is not None and held[:len(now)] == now

    def _protected(self, path: str | Path) -> bool:
        """Whether writing the game now to ``path`` would replace a finished game with another line of play
        (shorter, unfinished, or ended otherwise after an undo)."""
        return self._key(path) in self.finished and self.written.get(self._key(path)) != self._moves()

    # -- questions
    def holding_now(self) -> list[str]:
        """The files whose content is the game as it stands."""
        now = self._moves()
        return [p for p, moves in self.written.items() if moves == now]

    def holds(self, path: str | Path | None) -> bool:
        """Whether the last good write of ``path`` holds the moves played now."""
        return path is not None and self.written.get(self._key(path)) == self._moves()

    def nothing_to_save(self) -> bool:
        """No move played (a new game, or one read from a pipe, as it was given) and nothing written:
        quitting loses nothing."""
        return self._moves() == self.given_moves and not self.written

    def nothing_played(self) -> str:
        """On quit, when :meth:`nothing_to_save`: why there is no game file, and where the game is."""
        given = f" {self._given_where()}" if self.game.moves else ""
        return f"No move was played, so no game file was written.{given}"

    def _given_where(self) -> str:
        if self.given is not None and is_regular_file(self.given):  # a review's report, another tool's file
            return f"The game ({_plural(self.game.ply, 'move')}) is in {shown_path(self.given)}, kept as it was read."
        return (f"The game ({_plural(self.game.ply, 'move')}) was read from {shown_path(self.given)}, which is not a "
                "regular file (a pipe or a device), so it is not kept in a file here.")

    def unsaved_sentence(self) -> str:
        """What is not saved, and what the game's file holds instead."""
        ply = self.game.ply
        if self.nothing_to_save() and self.game.moves:
            return self._given_where()  # the moves given, none played: nothing of the player's is lost
        for candidate in (self.autosave, self.save_path, *self.written):
            if candidate is not None and self._key(candidate) in self.written:
                held = len(self.written[self._key(candidate)])
                return (f"The last moves are not saved: {shown_path(candidate)} holds the game as it was at "
                        f"move {held}, not as it is now at move {ply}.")
        return f"The game ({_plural(ply, 'move')}) is not saved in any file."

    # -- events
    def start_message(self) -> str | None:
        """What to say before the first move."""
        if self.autosave is not None:
            path = shown_path(self.autosave)
            if self._key(self.autosave) in self.finished:
                state = self.game.state
                how = "won" if state.won else f"blocked with {_plural(state.cards, 'card')}"
                return (f"This game is over ({how}): {path} keeps it as it is (osmosis replay {path} steps "
                        "through it); after an undo, a move it does not hold goes on in a copy in a new file.")
            return f"The game is saved as you play in {path}."
        if self.games is not None:
            return f"The game is saved as you play in {shown_path(self.games)}, from your first move."
        return None

    def after_change(self, force: bool = False) -> list[str]:
        """Autosave after a move or an undo (``force``: also with no move yet); the sentences to show."""
        if self.games is None and self.autosave is None:
            return []  # the player was told at the start: s FILE saves
        if self.autosave is None and not self.game.moves and not force:
            return []
        # Another session of the same game may save it at this very moment: the check that the file is as
        # this one left it and the write go together, under the folder's lock.
        with folder_lock(self.autosave if self.autosave is not None else self.games or "."):
            return self._autosave(force)

    def _autosave(self, force: bool) -> list[str]:
        try:
            if self.autosave is None:
                self.autosave = self._new_file()
                self.created = True
                said = [f"The game is saved as you play in {shown_path(self.autosave)}."]
            elif self._changed_elsewhere(self.autosave):
                old = self.autosave
                gone = _stamp(old) is None  # removed (by hand, or with its folder), not written by another session
                # or a link to no file (or to itself) put in its place: not removed, and no game there either
                what = "replaced by a link that leads to no file" if gone and os.path.lexists(old) else "removed"
                self._forget(old)
                if gone and self.games is not None:
                    self.games.mkdir(parents=True, exist_ok=True)
                self.autosave = self._new_file()
                self.moved_from = None if gone else old  # its history row may go on with the copy
                again = "there again" if os.path.realpath(self.autosave) == os.path.realpath(old) else f"again, in {shown_path(self.autosave)}"
                said = [f"{shown_path(old)} was {what} since this one saved it: the game is saved {again}." if gone
                        else f"{shown_path(old)} was written by another session (or program) since this one saved "
                             f"it, and is kept as it is; this game goes on in a copy, {shown_path(self.autosave)}."]
            elif self._holds_start(self.autosave) and not force:
                # an undo (or the same moves again) after the end: the finished file holds every move
                # played now, so a copy would only repeat the start of it
                said = []
                if not self.game.state.over and not self.told_held:
                    self.told_held = True
                    said = [f"This game was over, so {shown_path(self.autosave)} keeps it as it was, with the "
                            "moves taken back; a move it does not hold goes on in a copy in a new file."]
            elif not force and any(self._holds_start(p) for p in self.finished if p != self._key(self.autosave)):
                said = []  # back on a finished file's moves after a copy began: that file holds them (no twin)
            elif self._protected(self.autosave):
                old, self.autosave = self.autosave, self._new_file()
                said = [f"This game was over, so {shown_path(old)} keeps it as it was; the game goes on in a "
                        f"copy, {shown_path(self.autosave)}."]
                if force:  # s itself, with no new move: the copy is what s asked for
                    said = [f"{shown_path(old)} keeps the finished game, so the game as it is now goes to a "
                            f"copy, {shown_path(self.autosave)}."]
                elif self.told_held:  # the player heard the first half at the undo
                    said = [f"A move {shown_path(old)} does not hold: the game goes on in a copy, "
                            f"{shown_path(self.autosave)}."]
            else:
                self._write(self.autosave)
                said = []
        except RecordError as exc:
            first = not self.failed
            self.failed = True
            # the player's way to a file of their own (on the board s is a key: the : box first), and the
            # moves the file lacks counted from what it holds, not from the start of the game
            if first:
                return [f"Autosave failed: {exc}. The moves from now on are not saved: {self.to_a_file}, to "
                        "save the game to another file."]
            return [f"Autosave failed again: {self._not_saved()}; {self.to_a_file}, to save the game to "
                    "another file."]
        said += ["Autosave works again: the game is saved."] if self.failed else []
        self.failed = False
        return said

    def _not_saved(self) -> str:
        """``moves 4-5 are not saved``: the moves after those the autosave file's last good write holds."""
        held = len(self.written.get(self._key(self.autosave), ())) if self.autosave is not None else 0
        ply = self.game.ply
        if ply == 0 and held == 0:  # every move taken back, or s before the first: nothing to count
            return "no file holds the game yet"
        if self.autosave is not None and held >= ply:  # moves taken back: the file still holds them
            return f"{shown_path(self.autosave)} holds the game as it was at move {held}, not as it is now at move {ply}"
        if ply == held + 1:
            return f"move {ply} is not saved"
        return f"moves {held + 1}-{ply} are not saved"

    def save(self, arg: str) -> list[str]:
        """The ``s`` command: ``s FILE`` writes FILE; ``s`` alone the file the game is kept in."""
        if arg:
            arg = _file_system_name(arg)
            self._write_own(arg)  # never another game's file
            if self.save_path is None and (self.autosave is None or self.failed):
                self.save_path = arg  # this file keeps the game from now on, at the end and on quit
            return [f"Saved to {shown_path(arg)}."]
        if self.save_path is not None:
            if self._protected(self.save_path):
                raise RecordError(f"{shown_path(self.save_path)} holds the finished game: "
                                  "type s FILE to save this one to another file")
            self._write_own(self.save_path)
            return [f"Saved to {shown_path(self.save_path)}."]
        if self.games is None and self.autosave is None:
            raise RecordError(f"there is no file to save to: {self.to_a_file}")
        said = self.after_change(force=True)
        if self.failed:
            return said
        self.asked = True
        return said + [f"Saved to {shown_path(self.autosave)}."]

    def drop_empty(self) -> bool:
        """On quit: remove the autosave file this session made when every move was taken back, so that a game
        quit with no move leaves no file (as one never begun), unless the player saved it with ``s`` or another
        file holds moves of it. True when it was removed."""
        path = self.autosave
        if (path is None or not self.created or self.asked or self.game.moves or self.written.get(self._key(path)) != ()
                or any(p != self._key(path) and moves for p, moves in self.written.items())):  # --save: no move
            return False
        try:
            Path(path).unlink()
        except OSError:
            return False
        del self.written[self._key(path)]
        self.autosave, self.created = None, False
        try:  # nor a row in the history: the game is gone
            from ..history.games import forget_unplayed

            forget_unplayed(path)
        except Exception:  # noqa: BLE001 - the history must never break a game; an empty row is counted nowhere
            pass
        return True

    def keep(self) -> list[str]:
        """At the end of the game and on quit: write ``--save PATH`` too; the sentences to show."""
        if self.save_path is None or (not self.game.moves and not self.written):
            return []
        if self._protected(self.save_path):
            return [f"{shown_path(self.save_path)} keeps the finished game; this one is not written there."]
        try:
            self._write_own(self.save_path)
        except RecordError as exc:
            kept = [p for p in self.holding_now() if p != self._key(self.save_path)]
            where = (f"the game is kept in {shown_path(kept[0])}" if kept
                     else "type s FILE with a file in a folder you can write to")
            return [f"Save failed: {exc}; {where}."]
        return []

    def saved_sentence(self) -> str | None:
        """``The game is saved in F (N moves, C cards on the foundations).``, or None when no file holds it."""
        where = self.holding_now()
        ply, score = self.game.ply, self.game.state.score
        if not where:
            # the game's own file (the resumed or autosave file) keeps it; --save and s FILE hold copies
            held = sorted((p for p in self.finished if self._holds_start(p)),
                          key=lambda p: (p != self._key(self.autosave), p == self._key(self.save_path), p))
            if not held:
                return None
            kept = self.written[held[0]]
            # --save PATH: written when a finished game opened, or when a game played here ended; a file
            # holding another finished game from here (a line played on in a copy, then taken back) is no copy
            copies = [p for p in held[1:] if self.written.get(p) == kept]
            others = [p for p in held[1:] if p in self.written and self.written[p] != kept]
            if others:
                rest = "; ".join([f"{shown_path(p)} keeps another finished game from this position "
                                  f"({_plural(len(self.written[p]), 'move')})" for p in others]
                                 + [f"{shown_path(p)} holds a copy of the first" for p in copies])
            else:
                rest = (f"nothing new was played, and {shown_path(copies[0])} holds a copy of it" if copies
                        else "nothing new was played, so no other file was written")
            return (f"You stopped at move {ply} of the finished game that {shown_path(held[0])} keeps "
                    f"({_plural(len(kept), 'move')}); {rest}.")
        preferred = [str(p) for p in (self.save_path, self.autosave) if p is not None and str(p) in where]
        return (f"The game is saved in {shown_path((preferred or where)[0])} "
                f"({_plural(ply, 'move')}, {_plural(score, 'card')} on the foundations).")


@contextmanager
def held_interrupt() -> Iterator[None]:
    """Ctrl-C held back while a move is played and saved (none half made, none unsaved), and raised after it
    (in the main thread, where Python takes it as KeyboardInterrupt; elsewhere it is left as it is)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    hit: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: hit.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if hit:
        raise KeyboardInterrupt


# ---- where games are kept ------------------------------------------------
def resume_target(path: Path | None, games: Path | None, no_autosave: str | None
                  ) -> tuple[Path | None, Path | None, list[str]]:
    """Where ``--resume PATH``'s game is written as it goes on: ``(resumed, given, said)``. A regular record file
    is written back (``resumed``); one read from a pipe or a device, or a file whose moves are objects (a
    review's report, another tool's file: kept as it is, its notes come along), is only read (``given``), and
    the game goes on in a new file; ``said``: the lines that tell the player so."""
    if path is None:
        return None, None, ([] if games is not None else
                            [f"The game cannot be saved as you play: {no_autosave}. Type s FILE to save it."])
    regular = is_regular_file(path)
    laid_out = move_objects_words(path) if regular else None
    if regular and laid_out is None:
        return path, None, []
    if laid_out is not None:
        return None, path, [f"{laid_out}, so it is kept as it is: " + (
            "the game goes on in a new file, its notes with it." if games is not None else
            f"the game cannot be saved as you play: {no_autosave}. Type s FILE to save it.")]
    return None, path, [f"{shown_path(path)} is not a regular file, " + (
        "so the game goes on in a new file." if games is not None else
        f"and the game cannot be saved as you play: {no_autosave}. Type s FILE to save it.")]


def autosave_stem(deal: Deal, when: float | None = None) -> str:
    """The name of a new autosave file, without ``.json``; storage makes it unique (``-2``, ...)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    return f"deal-{deal.number}-{stamp}" if deal.number is not None else f"deal-file-{stamp}"


def prepare_games_dir() -> Path:
    """The games folder, made if need be and tidied of temporary files left by killed saves."""
    games = games_dir()
    try:
        games.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:
        reason = folder_reason(games, exc) if isinstance(exc, OSError) else "not a usable folder name"
        raise RecordError(f"cannot create the games folder {quoted(games)}: {reason} "
                          "(set OSMOSIS_HOME to a writable folder)") from None
    remove_stale_temps(games)
    return games
