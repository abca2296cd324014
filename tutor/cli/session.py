"""One game at the terminal: the :class:`Session` that line mode and the full-screen board share.

The session holds the game, where it is saved (:class:`~tutor.cli.saves.GameFiles`) and the tutor's settings;
it plays typed moves, undoes, saves and asks the tutor's question. ``osmosis play`` (:mod:`tutor.cli.play`) only
parses its options, opens a session with :meth:`Session.open` and runs it (line mode) or hands it to the board
(:mod:`tutor.board.play`). The words come from :mod:`tutor.narrate` (the move played, the warning, the result),
and what the player may be told about a typed card from :mod:`tutor.knowledge`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console, RenderableType
from rich.text import Text

from ..errors import IllegalMoveError, MoveError, RecordError, TutorError
from ..game import Game
from ..history.copies import resumed_content
from ..inputs import capped_int
from ..narrate.play import end_message, help_text, not_played, over_rest, stopped_sentence, turned_sentence
from ..notation import Move
from ..record import Record
from ..render import describe_move, move_line, prose, render_hint, render_state, use_symbols
from ..state import State
from ..talon import TURN_STOPS, move_typed, turns_to_play, waste_fan
from ..textsafe import brief, shown_path
from .app import console_of
from .common import read_line
from .games import older_copy_note
from .prefetch import Prefetch
from .saves import GameFiles, autosave_stem, held_interrupt, prepare_games_dir, resume_target
from .words import SAVE_ON_THE_BOARD, played_before, unreadable_word, without_label

if TYPE_CHECKING:
    from ..hints import Hint

__all__ = ["Session", "autosave_stem", "prepare_games_dir", "say_line", "offer_review"]

# ---- output --------------------------------------------------------------
def say_line(console: Console, text: str | Text) -> None:
    """A message, never read as rich markup: on a terminal wrapped at word boundaries, else one line."""
    console.print(prose(text, use_symbols(console)) if isinstance(text, str) else text,
                  soft_wrap=not console.is_terminal)


def offer_review(ctx: click.Context, record: Record) -> None:
    """At the end of a game on a terminal, offer the post-game review."""
    answer = read_line("Review this game? [y/N] ", False)
    if answer and answer.strip().lower() in ("y", "yes"):
        from .review import review_after_play

        review_after_play(ctx, record)


# ---- the session ---------------------------------------------------------

class Session:
    """One game at the terminal: the game, where it is saved, and the tutor's settings."""

    def __init__(self, ctx: click.Context, game: Game, files: GameFiles, tutor: bool, threshold: float) -> None:
        self.ctx = ctx
        self.console = console_of(ctx)
        self.symbols = use_symbols(self.console)
        self.game = game
        self.files = files
        self.tutor = tutor
        self.threshold = threshold
        self.interactive = sys.stdin.isatty()
        if self.interactive:
            with contextlib.suppress(ImportError):  # line editing and history for the prompt, where there is one
                import readline  # noqa: F401
        self.echo = not self.interactive
        self._hints: dict[State, Hint] = {}
        self._next: Prefetch | None = None  # with --tutor, the hint at the position shown, being computed
        # Where the session's messages go instead of the terminal (the board shows them in its panel).
        self.listener: Callable[[str | Text], None] | None = None
        self._ended = False
        self._warned_unsaved = False
        self._quit_asked = False  # q typed at the tutor's question (not the input's end)
        self._changed = False  # a move played or taken back here (a game opened finished stays as it was)
        self.exit_code = 0
        self.no_autosave: str | None = None  # why the games folder could not be used (no autosave), if so
        #: The game as the resumed file held it (its content fingerprint), so that the history goes on with
        #: the row that holds it (a copy saved with s FILE, resumed) instead of starting another.
        self.resumed_from: str | None = None

    @classmethod
    def open(cls, ctx: click.Context, game: Game, tutor: bool, threshold: float, save_path: str | None = None,
             resume_path: Path | None = None, board: bool = False) -> Session:
        """A session for ``game``: find where it is kept and say so, with the game's title and the help line.

        ``board``: the full-screen board takes over (its status line says ``? help``), so the help line,
        which would be left in the shell after it closes, is not printed.
        """
        console = console_of(ctx)
        deal, rules = game.deal, game.rules
        no_autosave = None
        try:
            games: Path | None = prepare_games_dir()
        except RecordError as exc:
            games, no_autosave = None, str(exc)
        resumed, given, said = resume_target(resume_path, games, no_autosave)
        for sentence in said:
            say_line(console, sentence)
        files = GameFiles(game, games, autosave_stem(deal), save_path, resumed=resumed, given=given)
        title = f"Deal {deal.number}" if deal.number is not None else "A deal given in full"
        say_line(console, f"{title}, {rules.describe()}" + (f", after move {game.ply}." if game.ply else "."))
        if rules.warning():
            say_line(console, f"Note: {rules.warning()}.")
        older = older_copy_note(resumed, game.to_record()) if resumed is not None and game.ply else None
        for line in (files.start_message(), older, None if board else "Type ? for help."):
            if line:
                say_line(console, line)
        if tutor:
            say_line(console, f"Tutor mode: moves {threshold:g} or more points below the best (with 95% "
                              "confidence, or likely where the deals cannot be sure) are questioned.")
        session = cls(ctx, game, files, tutor, threshold)
        session.no_autosave = no_autosave
        if resumed is not None and game.ply:
            session.resumed_from = resumed_content(game.to_record(), resumed)  # the game as its file held it
        return session

    # -- output
    def say(self, text: str | Text) -> None:
        """A message on one line (the terminal wraps it, rich does not), or to the listener."""
        if self.listener is not None:
            self.listener(text)
        else:
            say_line(self.console, text)

    def warn(self, text: str) -> None:
        """A warning (the history could not be written): the board's, else stderr as every command's."""
        if self.listener is not None:
            self.listener(text)
        else:
            click.echo(text, err=True)

    def draw(self, renderable: RenderableType) -> None:
        self.console.print(renderable)

    def show(self) -> None:
        game = self.game
        self.draw(render_state(game.state, symbols=self.symbols, fan=waste_fan(game.states, game.moves)))
        state = game.state
        if (self.tutor and not state.over and len(state.legal_moves()) > 1 and state not in self._hints
                and (self._next is None or self._next.state != state)):
            self._next = Prefetch(state)  # every move is checked against it: computed while the player thinks

    def record(self) -> Record:
        return self.game.to_record()

    def tell(self, sentences: Iterable[str]) -> None:
        for sentence in sentences:
            self.say(sentence)

    def autosave_now(self) -> None:
        """Save to the autosave file; a failure is reported and the game goes on."""
        self.tell(self.files.after_change())
        self._changed = True
        self._warned_unsaved = False  # the game changed: a q warns again if it is not saved
        if self.files.holds(self.files.autosave) and not self.files.failed:
            from .history import note_game  # the game goes into the player's history as it is played

            note_game(self.record(), self.files.autosave, self.warn, self.resumed_from, self.files.moved_from)

    def saved_now(self) -> str:
        """Where the moves played now are kept, in a sentence true either way (on the board s FILE goes after :)."""
        where = self.files.holding_now()
        how = " Press : and type" if self.files.to_a_file == SAVE_ON_THE_BOARD else " Type"
        return (f"The game is saved in {shown_path(where[0])}." if where
                else f"{self.files.unsaved_sentence()}{how} s FILE to save it.")

    def finish(self, saved_line: bool = True) -> None:
        """At the end of a game: keep the finished file safe, say where it is and what the history shows."""
        self.tell(self.files.keep())
        if saved_line:
            self.say(f"{self.saved_now()} u takes back moves, q quits.")
        if not self._changed:
            return  # a finished game opened again: no game ended here, so the history has nothing new to say
        from .history import after_game  # one line of what the player's history shows

        after_game(self.record(), self.files.autosave, self.say, self.warn)

    # -- the loop
    def run(self) -> None:
        """Line mode: read a line at a time until the player quits or the input ends."""
        self.show()
        while True:
            self._check_end()
            try:
                line = read_line("move> ", self.echo)
            except KeyboardInterrupt:  # quits, saying where the game is kept; 130, as for any command Ctrl-C stops
                line, self.exit_code = None, 130
                self.say("")
            if line is None:
                self.quit(final=True)
                return
            words = line.split()
            if not words:
                self.show()
                continue
            cmd = words[0].lower()
            if len(words) > 1 and cmd in ("q", "quit", "exit", "?", "help", "h", "hint"):
                cmd = ""  # a command goes alone ("h d" played no d, "q w" quit): refused as "d h" is, below
            if cmd in ("q", "quit", "exit"):
                if self.quit(final=self._warned_unsaved):
                    return
                continue
            try:
                if cmd in ("?", "help"):
                    self.say(help_text(self.game.rules.reserve_piles))
                elif cmd in ("u", "undo"):
                    self.undo(words[1:])
                elif cmd in ("s", "save"):
                    self.save_command(line.strip()[len(words[0]):].strip())
                elif cmd in ("h", "hint"):
                    self.show_hint()
                elif cmd in ("r", "redo") and len(words) == 1:
                    self.say("r (redo) is a key of the board; here, after u, type the move again.")
                elif not (self.turn_until() if cmd == "t" and len(words) == 1
                          else self.play_line(line.replace(",", " ").split())):  # "d, w" as --moves takes it
                    # the input ended, or q at the tutor's question: that q as one at the prompt (moves not
                    # saved: a warning first, and s FILE offered)
                    asked, self._quit_asked = self._quit_asked, False
                    if self.quit(final=not asked or self._warned_unsaved):
                        return
            except TutorError as exc:
                self.say(str(exc))
            except KeyboardInterrupt:  # while a line or an undo was played and saved: quit as at the prompt
                self.say("")
                self.exit_code = 130
                self._check_end()  # a move that ended the game: its result first
                self.quit(final=True)
                return

    def _check_end(self) -> None:
        state = self.game.state
        if not state.over:
            self._ended = False
            return
        if self._ended:
            return
        self._ended = True
        self.say(Text(end_message(state), style="bold green" if state.won else "bold"))
        self.finish()
        if self.interactive:
            offer_review(self.ctx, self.record())

    def quit(self, final: bool) -> bool:
        """Leave the game, saying where it is kept. With moves not saved, the first q only warns (False)."""
        self.tell(self.files.keep())
        if self.files.drop_empty():  # a --save file keeps the game with no move, as the player asked
            kept = self.files.saved_sentence()
            self.say(f"Every move was taken back, so the game's file in the games folder was removed. {kept}" if kept
                     else "Every move was taken back, so the game's file was removed: no game file is left.")
            return True
        saved = self.files.saved_sentence()
        if saved is not None:
            self.say(saved)
            return True
        if self.files.nothing_to_save():
            self.say(self.files.nothing_played())
            return True
        if not final:
            self._warned_unsaved = True
            self.say(f"{self.files.unsaved_sentence()} Type s FILE to save it, or q again to quit without saving.")
            return False
        self.say(self.files.unsaved_sentence())
        click.echo("error: the game was not saved (the last moves are lost): "
                   "the game files could not be written", err=True)
        self.exit_code = 1
        return True

    def turn_until(self) -> bool:
        """``t``: turn until the waste shows a card that can be played (:func:`tutor.talon.turns_to_play`), the
        board shown once at the end. False means quit."""
        run = turns_to_play(self.game.state)
        if not run.moves:
            self.say(TURN_STOPS.get(run.why, "Nothing to turn."))
            return True
        first = self.game.ply + 1
        if not self.play_line([str(m) for m in run.moves], each=False):
            return False
        if self.game.ply >= first and not self.game.state.over:  # a game that ended showed its last move already
            self.say("")
            whole = self.game.ply - first + 1 == len(run.moves)  # or the tutor's question kept the rest back
            self.say(turned_sentence(first, self.game.ply, run.why if whole else None))
            self.show()
        return True

    def play_line(self, words: list[str], each: bool = True) -> bool:
        """Play each word of a line as a move; stop at the first that fails. False means quit.

        A word that is no move or card at all stops the line before any of it is played. ``each``: show each
        move and the board after it (``t`` shows the board once, at the end).
        """
        bad = unreadable_word(words, self.game.state.rules.reserve_piles)
        if bad is not None:
            self.say(bad)
            return True
        played: list[str] = []
        rest = list(words)  # the words not read yet
        unplayed = rest  # the words not played, the move in hand with them until it is played
        try:
            while rest:
                unplayed = rest
                word, rest = rest[0], rest[1:]
                state = self.game.state
                try:
                    move = move_typed(state, word)
                except (MoveError, IllegalMoveError) as exc:
                    self.say(str(exc) + played_before(played))
                    return True
                rest = without_label(state, move, rest)  # solve's line "r3 9C d" pastes as it is printed
                unplayed = [word, *rest]
                if self.tutor:
                    verdict = self.tutor_check(state, move)
                    if verdict is None:
                        return False
                    if not verdict:  # t's run (each False) was worked out on the face-down cards: its length unsaid
                        self.say(not_played(rest, turns=not each))
                        return True
                with held_interrupt():  # a Ctrl-C now stops the line after this move, played, saved and shown
                    self.game.push(move)
                    played.append(str(move))
                    unplayed = rest
                    self.autosave_now()
                    if each or self.game.state.over:
                        self.say("")
                        self.say(move_line(self.game.ply, state, move, self.symbols))
                        self.show()
                if self.game.state.over:
                    if rest and each:  # said before the end message, which the loop shows next (t's run: unsaid)
                        self.say(over_rest(rest))  # words checked readable
                    return True
        except KeyboardInterrupt:  # between moves or during one: every move played is saved; run() quits
            if self.game.state.over and unplayed and each:  # the move in hand ended the game: its result comes next
                self.say(over_rest(unplayed))
            elif not self.game.state.over:  # a t run's length was worked out on face-down cards: unsaid
                self.say("\n" + stopped_sentence(self.game.ply, len(unplayed) if each else 0))
                if not each:
                    self.show()
            raise
        return True

    def undo(self, args: list[str]) -> None:
        count = 1
        if args:
            if len(args) > 1 or not (args[0].isascii() and args[0].isdigit()) or not args[0].strip("0"):
                raise MoveError(f"{brief('u ' + ' '.join(args))} is not an undo: expected u, or u and a number "
                                "of moves of at least 1, like u 3")
            # a number of more digits than any game has moves takes them all back (no huge int is made)
            count = capped_int(args[0], 10**6)
        if not self.game.can_undo():
            self.say("Nothing to undo: this is the start of the game.")
            return
        every = count >= self.game.ply and count > 1
        count = min(count, self.game.ply)
        with held_interrupt():  # a Ctrl-C now quits after the undo is saved, not half way
            taken = self.game.undo(count)
            words = " ".join(str(m) for m in reversed(taken))
            self.say(f"Took back {count} move{'s' if count != 1 else ''} ({words})"
                     f"{': every move, back to the start' if every else ''}.")
            self.autosave_now()
            self.show()

    def save_command(self, arg: str) -> None:
        # read as the shell would have on the command line: a name in quotes as it is, ~ and ~user a home folder
        in_quotes = len(arg) > 1 and arg[0] == arg[-1] and arg[0] in "'\""
        if in_quotes and not (arg := arg[1:-1]).strip():
            raise RecordError("an empty file name was given for this game: give a file name, like s game.json")
        self.tell(self.files.save(os.path.expanduser(arg) if arg.startswith("~") and not in_quotes else arg))
        self._warned_unsaved = False

    # -- hints and the tutor
    def hint_for(self, state: State) -> Hint:
        """The hint at ``state`` from what the player has seen (cached per position)."""
        if state not in self._hints and self._next is not None and self._next.state == state:
            ahead, self._next = self._next, None
            busy = ahead.thread.is_alive() and self.console.is_terminal
            with self.console.status("Thinking...") if busy else contextlib.nullcontext():
                found = ahead.result()
            if found is not None:
                self._hints[state] = found
        if state not in self._hints:
            from ..advice import advise
            from ..knowledge import observe

            if self.console.is_terminal:
                with self.console.status("Thinking..."):
                    self._hints[state] = advise(observe(state))
            else:
                self._hints[state] = advise(observe(state))
        return self._hints[state]

    def show_hint(self) -> None:
        state = self.game.state
        if state.over:
            self.say("The game is over: there is no move to hint.")
            return
        try:
            self.draw(render_hint(self.hint_for(state), state, symbols=self.symbols))
        except KeyboardInterrupt:  # only thinking cut short (no move half made): back to the prompt, as a shell
            self.say("\nStopped. Ctrl-C at the prompt, or q, quits.")

    def tutor_check(self, state: State, move: Move) -> bool | None:
        """Before a move: warn if it is clearly worse than the best. True = play, False = not, None = input ended."""
        if len(state.legal_moves()) < 2:
            return True
        try:
            advice = self.hint_for(state)
        except KeyboardInterrupt:  # the check cut short: the move kept back, the prompt given back (as a hint's)
            self.say("\nStopped the tutor's check: the move was not played. Ctrl-C at the prompt, or q, quits.")
            return False
        from ..narrate import tutor_question

        # the drop must reach the threshold with confidence (or, where no move wins, the cards lost be sure)
        warning = tutor_question(advice, move, self.threshold, describe_move(state, advice.best, self.symbols))
        if warning is None:
            return True
        self.say(warning)
        while True:
            try:
                answer = read_line("Play it anyway? [y/N, h hint, q quit] ", self.echo)
            except KeyboardInterrupt:  # Ctrl-C at a prompt quits, as at the move prompt
                return None
            if answer is None:
                return None
            word = answer.strip().lower()
            if word in ("y", "yes"):
                return True
            if word in ("", "n", "no"):
                return False
            if word in ("q", "quit"):
                self._quit_asked = True
                return None  # the move kept back, and the game left as a q would leave it
            if word in ("h", "hint"):
                self.show_hint()
                continue
            self.say(f"{brief(answer.strip())}: type y to play it anyway, n (or Enter) to keep it back, "
                     "h for the hint, q to quit.")

