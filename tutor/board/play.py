"""The full-screen board for ``osmosis play``: single keys, a memory panel, hints in a panel.

The board is a view over a :class:`tutor.cli.session.Session` (the game, where
it is saved, the tutor's settings): moves go through ``Game.push`` and the
session's autosave, exactly as in line mode. The rules stay in the engine:
``t`` asks :func:`tutor.talon.turns_to_play`, the memory panel
:func:`tutor.talon.memory` (from the observation only), the hint
:func:`tutor.hints.hint`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.actions import SkipAction
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Static

from ..cli.common import stopped_like_ctrl_c
from ..cli.words import SAVE_ON_THE_BOARD
from ..errors import TutorError
from ..knowledge import observe
from ..narrate.play import end_message, over_rest, turned_sentence
from ..talon import TURN_STOPS, memory, turns_to_play, waste_fan
from .asking import Answers, MovesApp
from .screens import (
    BOX_EDITS,
    CardPanel,
    TextScreen,
    box_key,
    box_paste,
    keys_for,
    play_keys,
    show_text,
    text_screen_key,
    typed_box,
    unbound_key,
)
from .widgets import SHORT_ROWS, HintView, Keys, Lines, MemoryView, Status, TableView, too_narrow

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from ..cli.session import Session

WIDE = 110  # from this many columns the panels stand beside the table

CSS = """
#main { height: 1fr; }
#main.wide { layout: horizontal; }
#left, #right { height: auto; }
#main.wide #left { width: 62; }
#main.wide #right { width: 1fr; }
#title, #table, #memory, #hint, #message { height: auto; padding: 0 1; }
#memory { margin-top: 1; }
#hint { margin-top: 1; display: none; }
#message.question { border: round $warning; padding: 0 1; }
#hint.shown { display: block; }
#bottom { dock: bottom; height: auto; }
#prompt { display: none; }
#prompt.shown { display: block; }
#status { height: auto; background: $panel; padding: 0 1; }
#keys { height: auto; padding: 0 1; color: $text-muted; }
#keys.short { display: none; }
#warning { height: auto; padding: 0 1; color: $warning; display: none; }
#warning.short { max-height: 3; }
#warning.shown { display: block; }
#narrow { height: auto; padding: 0 1; color: $error; display: none; }
#narrow.shown { display: block; }
"""

#: Seconds after a resize before the view is scrolled: the panels are laid out at the new size by then (the
#: scroll right after the resize event still measured the old layout, and nothing moved).
RELAYOUT = 0.05
#: Below this many rows the unsaved warning keeps to 3 of them.
WARNING_ROWS = 30
#: Below this many columns the key line wraps to 3 or 4 rows.
NARROW_KEYS = 60

# a word alone at the : prompt that line mode reads as a command: the board's method for it
PROMPT_COMMANDS = {"u": "action_undo", "undo": "action_undo", "h": "action_hint", "hint": "action_hint",
                   "t": "action_turn_until", "q": "quit_game", "quit": "quit_game", "?": "action_help",
                   "help": "action_help"}
BOARD_ACTIONS = frozenset({"play", "turn_until", "undo", "redo", "hint", "prompt", "save", "help", "quit_key"})
"""The actions of the board's keys (its bindings), none of which a key typed into the : box may start (Ctrl+Q,
Textual's own "quit", still quits)."""
END_KEYS = ("v review this game", "u take back the last move", ": then s FILE saves", "q quit")  # the end question's keys


class BoardApp(MovesApp):
    """One game on the full screen; ``app.exit`` returns ``"review"`` when the player asks for one."""

    CSS = CSS
    TITLE = "osmosis"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("1", "play('r1')", "r1", show=False), Binding("2", "play('r2')", "r2", show=False),
        Binding("3", "play('r3')", "r3", show=False), Binding("4", "play('r4')", "r4", show=False),
        Binding("w", "play('w')", "waste"), Binding("d,space", "play('d')", "turn"),
        Binding("t", "turn_until", "turn to a play"), Binding("u", "undo", "undo"), Binding("r", "redo", "redo"),
        Binding("h", "hint", "hint"), Binding("colon,slash", "prompt", "type", show=False),
        Binding("s", "save", "save"), Binding("question_mark", "help", "help"), Binding("q", "quit_key", "quit"),
        # priority: the scroll area, focused when the board is taller than the screen, takes these keys first
        *(Binding(key, f"box_edit('{key}')", show=False, priority=True) for key in ("home", "end", "left", "right")),
    ]

    def __init__(self, session: Session, symbols: bool = True) -> None:
        super().__init__()
        self.session = session
        self.game = session.game
        self.symbols = symbols
        self.end_shown = False
        self.message_text = ""
        self.reveal: str | None = None  # a panel just asked for ("#hint", "#message"), scrolled into view once shown
        self.warned_unsaved = False
        self.end_box: str | None = None  # the end question's text while its : box is open
        self.no_autosave: str | None = None  # why the game cannot be saved as it is played, from the start
        session.listener = self.note  # the session's messages (autosave, saves, history) go to the board
        session.files.to_a_file = SAVE_ON_THE_BOARD  # s is a key here: a file of one's own goes through the : box

    # ---- layout ---------------------------------------------------------
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="main"):
            with Vertical(id="left"):
                yield Static(id="title")
                yield CardPanel(id="table")
            with Vertical(id="right"):
                yield Static(id="memory")
                yield Static(id="hint")
                yield Static(id="message")
        with Vertical(id="bottom"):
            yield typed_box("moves or cards, like 7h or r2 w d; Enter plays, Escape closes", "prompt")
            yield Static(id="warning")
            yield Static(id="narrow")
            yield Static(id="status")
            yield Static(Keys(keys_for(self.session.game.rules.reserve_piles)), id="keys")

    def on_mount(self) -> None:
        files = self.session.files
        if files.games is None and files.autosave is None:
            # line mode's warning was printed before the board opened, behind it: the board says it again
            self.no_autosave = self.session.no_autosave or "the games folder could not be made"
        self.refresh_board()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#main").set_class(event.size.width >= WIDE, "wide")
        said = too_narrow(event.size.width)  # cards would be cut: say so rather than cut them silently
        narrow = self.query_one("#narrow", Static)
        narrow.set_class(said is not None, "shown")
        narrow.update(Lines(said or ""))
        # the key line wraps to 4 rows on a narrow terminal: hidden there below 20 rows too (? help stays)
        narrow_keys = event.size.width < NARROW_KEYS and event.size.height < 20
        self.query_one("#keys").set_class(event.size.height < SHORT_ROWS or narrow_keys, "short")
        # under 30 rows the warning keeps to 3, the way out first (8 rows at 34 columns took all of 34x10 and
        # every card at 34x14)
        self.query_one("#warning").set_class(event.size.height < WARNING_ROWS, "short")
        # a question or the hint asked for stays in view when the terminal gets smaller (it was left below the
        # fold, its keys answering nothing the player could see)
        if self.query_one("#message").has_class("question"):
            self.set_timer(RELAYOUT, lambda: self.query_one("#main").scroll_end(animate=False))
        elif self.query_one("#hint").has_class("shown"):
            self.set_timer(RELAYOUT, lambda: self.query_one("#hint").scroll_visible(animate=False))

    def refresh_board(self) -> None:
        game = self.game
        state = game.state
        deal = game.deal
        title = f"Deal {deal.number}" if deal.number is not None else "A deal given in full"
        self.query_one("#title", Static).update(Lines(f"{title}, {game.rules.describe()}", symbols=self.symbols))
        self.query_one("#table", Static).update(
            TableView(state, self.symbols, waste_fan(game.states, game.moves)))
        self.query_one("#memory", Static).update(MemoryView(memory(observe(state)), self.symbols))
        hint = self.hints.get(state) if self.hint_shown else None
        panel = self.query_one("#hint", Static)
        panel.set_class(hint is not None, "shown")
        if hint is not None:
            panel.update(HintView(hint, state, self.symbols))
        self.query_one("#message", Static).update(Lines(self.message_text, symbols=self.symbols))
        warning = self.unsaved_warning()
        shown = self.query_one("#warning", Static)
        shown.set_class(warning is not None, "shown")
        shown.update(Lines(warning or "", symbols=self.symbols))
        status = [f"Move {game.ply}", f"Stock {len(state.stock)}", f"Pass {state.pass_no}", f"Score {state.score}/52"]
        if state.won:
            status.append("won")
        elif state.blocked:
            status.append("blocked")
        # the game over, the end question takes only its own keys (v u q, below): no "? help" then
        self.query_one("#status", Static).update(Status(status + ([] if state.over else ["? help"])))
        self.query_one("#keys", Static).update(Keys(END_KEYS if state.over else keys_for(state.rules.reserve_piles)))
        self.prefetch_hint()
        if self.reveal == "#message" or (self.reveal == "#hint" and hint is not None):
            # on a short terminal the panels under the table are below the fold: bring the one asked for up
            target = self.query_one(self.reveal)
            self.reveal = None
            if target.has_class("question"):  # the answers close the question, the last thing in the scroll area:
                # in view even where the question is taller than the view (the end question at 34x10)
                self.call_after_refresh(self.query_one("#main").scroll_end, animate=False)
            else:
                self.call_after_refresh(target.scroll_visible, animate=False)

    def unsaved_warning(self) -> str | None:
        """A line kept in view above the status while the game is not saved as it is played."""
        files = self.session.files
        if files.holding_now():  # a file holds the game as it stands (s FILE after a failed autosave, too)
            return None
        if self.no_autosave is not None:
            text = f"The game cannot be saved as you play: {self.no_autosave}."
            if files.written:
                text += " " + files.unsaved_sentence()
        elif files.failed:
            text = files.unsaved_sentence()
        else:
            return None
        return "Not saved: press : and type s FILE to save it. " + text  # the way out first: the rest may be cut

    def say(self, text: str | Text) -> None:
        self.message_text = str(text)
        if self.is_running:
            self.refresh_board()

    def explain(self, text: str | Text) -> None:
        """Why a key did nothing, in view even on a short terminal (the panel is below the fold there)."""
        self.reveal = "#message"
        self.say(text)

    def note(self, text: str | Text) -> None:
        """A message from the session (a save, the history), under what the move itself said, scrolled into
        view (on a short terminal "the game goes on in a copy, FILE" was cut below the fold)."""
        self.reveal = "#message"
        self.say(f"{self.message_text}\n{text}" if self.message_text else text)

    # ---- moves ------------------------------------------------------------
    def action_play(self, token: str) -> None:
        if not self.refused(token):
            self.play_moves([token])

    def _after_moves(self) -> None:
        """After one or more moves: autosave (as line mode does), draw, and the end of the game."""
        if self.turn_run is not None and self.waiting is None and self.pending is None:
            first, why = self.turn_run  # t's run is over: one sentence for it, as line mode says it
            self.turn_run = None
            if self.game.ply >= first and not self.game.state.over:
                self.message_text = turned_sentence(first, self.game.ply, why)
        self.warned_unsaved = False  # the game changed: a q warns again if it is not saved
        self.session.autosave_now()
        if self.reveal is None:  # a move played: the table first, on a terminal too short for everything
            self.query_one("#main").scroll_home(animate=False)
        self.refresh_board()
        if self.game.state.over and not self.end_shown:
            self.end_shown = True
            self.show_end(end_message(self.game.state))

    def action_turn_until(self) -> None:
        if self.refused("t"):
            return
        run = turns_to_play(self.game.state)
        if not run.moves:
            self.explain(TURN_STOPS.get(run.why, "Nothing to turn."))
            return
        self.turn_run = (self.game.ply + 1, run.why)
        self.play_moves([str(m) for m in run.moves])

    def action_undo(self) -> None:
        if self.refused("u"):
            return
        if not self.game.can_undo():
            self.explain("Nothing to undo: this is the start of the game.")
            return
        (move,) = self.game.undo(1)
        self.redo_stack.append(move)
        self.end_shown = False
        self.warned_unsaved = False
        # said first: what the session says on saving (a finished file kept as it is) comes under it
        self.message_text = f"Took back move {self.game.ply + 1} ({move}); r plays it again."
        self.session.autosave_now()
        self.refresh_board()

    def action_redo(self) -> None:
        if self.refused("r"):
            return
        if not self.redo_stack:
            self.explain("Nothing to redo.")
            return
        self.play_moves([str(self.redo_stack[-1])])

    # ---- help, save, the prompt ---------------------------------------------
    def action_help(self) -> None:
        show_text(self, TextScreen(play_keys(self.session.game.rules.reserve_piles), "Any key closes this help.",
                                   symbols=self.symbols))

    def action_save(self, arg: str = "") -> None:
        self.message_text = ""  # what a save says stands alone (it came under an earlier "unknown move")
        try:
            self.session.save_command(arg)
        except TutorError as exc:
            self.explain(str(exc))
            return
        self.warned_unsaved = False
        self.refresh_board()

    def action_prompt(self) -> None:
        if self.refused(":"):
            return
        prompt = self.query_one("#prompt", Input)
        prompt.add_class("shown")
        prompt.value = ""
        # the box takes no focus (screens.typed_box): the keys after the colon come to on_key in order, the
        # keys of a pasted ": d d d" too (they played five turns, each d and each space a board key)

    def submit_line(self, value: str) -> None:
        """Enter in the : box: close it and play the line (or run the command alone on it), before any key
        typed after the Enter (they went into the box, or ": d Enter q" did not quit)."""
        self._close_prompt()
        words = value.split()
        if words and words[0].lower() in ("s", "save"):  # s FILE saves to that file, as in line mode
            self.action_save(value.strip()[len(words[0]):].strip())
            return
        if len(words) > 1 and words[0].lower() in ("u", "undo"):  # line mode's u 3: one at a time here
            self.explain("On the board u takes back one move: press u once for each move (or type u alone here).")
            return
        command = PROMPT_COMMANDS.get(words[0].lower()) if len(words) == 1 else None
        if command is not None:  # u, h, t, q, ? alone on the line are commands, as in line mode
            getattr(self, command)()
        elif not self.refused(" ".join(words)):
            self.play_moves(value.replace(",", " ").split())  # "d, w" as --moves takes it

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No board key while the : box is open: a key on its way to the board as the box opened (typed or
        pasted at once after the colon) is the box's (:meth:`on_key`), not a move, an undo or a quit."""
        if action in BOARD_ACTIONS and self.query_one("#prompt", Input).has_class("shown"):
            return False
        return super().check_action(action, parameters)

    def on_key(self, event: events.Key) -> None:
        if text_screen_key(self, event):  # keys in the burst that opened the help: the help's, then the board's
            return
        prompt = self.query_one("#prompt", Input)
        if prompt.has_class("shown"):
            # Every key comes here while the box is open (the board's own are refused, check_action): the
            # box's edits and characters, Enter and Escape, in the order typed
            if event.key in ("escape", "enter"):
                event.stop()
                event.prevent_default()  # the box's own: not then an answer to the question its line may ask
                if event.key == "enter":
                    self.submit_line(prompt.value)
                else:
                    self._close_prompt()
                if self.end_box is not None:  # the box was opened from the end question: back to it
                    before, self.end_box = self.end_box, None
                    self.ask_end(self.message_text if self.message_text != before else "")
                return
            if box_key(prompt, event):
                return
        elif self.pending is None and (key := unbound_key(self, event)) is not None:
            # line mode answers such a word; on the board it did nothing without a word
            self.say(f"{key} is not a key of the board: ? lists the keys, and : types a move or a card (7h).")
            return
        super().on_key(event)

    def on_paste(self, event: events.Paste) -> None:
        prompt = self.query_one("#prompt", Input)
        if prompt.has_class("shown"):
            box_paste(prompt, event)

    def action_box_edit(self, key: str) -> None:
        """Home, End and the arrows move the cursor in the open : box; else they are the scroll area's."""
        prompt = self.query_one("#prompt", Input)
        if not prompt.has_class("shown"):
            raise SkipAction()
        getattr(prompt, f"action_{BOX_EDITS[key]}")()

    def _close_prompt(self) -> None:
        self.query_one("#prompt", Input).remove_class("shown")  # the focus stays where it was: the scroll keys
        # still scroll the board (the box never had it)

    # ---- the end ------------------------------------------------------------
    def show_end(self, summary: str) -> None:
        """The result under the final position, and what next: the review, an undo, or quit.

        Said as line mode says it: the last move, the words of its line left unplayed, the result, where the
        game is kept, and what the history shows.
        """
        said = [self.message_text] if self.message_text else []
        if self.rest_at_end:
            said.append(over_rest(self.rest_at_end))
            self.rest_at_end = ()
        said.append(f"{summary} {self.session.saved_now()}")
        self.message_text = ""
        self.session.finish(saved_line=False)  # what it says (the history) comes to note, under the rest
        if self.message_text:
            said.append(self.message_text)
        self.question("\n".join(said), self.end_answers())

    def end_answers(self) -> Answers:
        """The end question's keys: : opens the box (s FILE saves the game there), q quits as q does anywhere (a
        game not saved is warned about first; it was thrown away at once)."""
        def box() -> None:
            self.end_box = self.message_text  # the question as shown: what the box's line says comes instead
            self.action_prompt()

        def leave(then: str | None = None) -> None:  # v too closes the board: the same warning first
            self.quit_game(then)
            if not self.leaving:  # only warned: the warning, and the question again
                self.ask_end(self.message_text, first=False)

        return {"v": ("review this game", lambda: leave("review")), "u": ("take back the last move", self.action_undo),
                ":": ("type s FILE to save", box), "q": ("quit", leave)}

    def ask_end(self, said: str, first: bool = True) -> None:
        """The end question again, after a line typed in its box or a q that only warned: what that said, the
        result and where the game is now (or, after the warning, the result first)."""
        if self.leaving or self.pending is not None or not self.game.state.over:
            return  # closed, asked already, or an undo (u, : u) took the game back from its end
        result = end_message(self.game.state) + (f" {self.session.saved_now()}" if first else "")  # the warning says it
        self.question("\n".join(x for x in ((said, result) if first else (result, said)) if x), self.end_answers())

    async def action_quit(self) -> None:
        self.quit_game()

    action_quit_key = action_quit
    """The q key: quit, under a name of its own, so that the box can refuse the key and not Ctrl+Q."""

    def quit_game(self, then: str | None = None) -> None:
        """Close the board (``then``: "review", for ``v`` at the end), after a warning if moves are not saved."""
        files = self.session.files
        # As in line mode, --save PATH (or the file of s FILE) is written first: what is unsaved is decided after
        said = files.keep()  # (what it says is said again as the board closes, by the session's quit)
        if files.saved_sentence() is None and not files.nothing_to_save() and not self.warned_unsaved:
            # As in line mode: moves that are not saved get a warning and a second q (or v).
            self.warned_unsaved = True
            again = "v again for the review" if then == "review" else "q again to quit"
            self.explain(" ".join([*said, f"{files.unsaved_sentence()} Press : and type s FILE to save it, or "
                                          f"{again} without saving."]))
            return
        self.exit(then)


def run_board(session: Session, symbols: bool = True) -> str | None:
    """Run the board until the player quits; ``"review"`` when they asked for the review."""
    try:
        with stopped_like_ctrl_c():  # a kill (SIGTERM) closes the board as Ctrl-C does: the terminal put back
            return BoardApp(session, symbols).run()
    finally:
        session.listener = None  # the session speaks to the terminal again
