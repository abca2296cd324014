"""The full-screen board for ``osmosis play``: single keys, a memory panel, hints in a panel.

The board is a view over a :class:`tutor.cli.session.Session` (the game, where
it is saved, the tutor's settings): moves go through ``Game.push`` and the
session's autosave, exactly as in line mode. The rules stay in the engine:
``t`` asks :func:`tutor.talon.turns_to_play`, the memory panel
:func:`tutor.talon.memory` (from the observation only), the hint
:func:`tutor.hints.hint`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Static

from ..cli.common import played_before, unreadable_word
from ..errors import IllegalMoveError, MoveError, TutorError
from ..knowledge import move_for_card, observe
from ..narrate.moves import move_heading
from ..narrate.play import end_message
from ..notation import Move, parse_input
from ..render import describe_move
from ..state import State
from ..talon import TURN_STOPS, memory, turns_to_play, waste_fan, why_illegal
from .screens import PLAY_KEYS, TextScreen
from .widgets import HintView, Keys, Lines, MemoryView, TableView

if TYPE_CHECKING:
    from ..cli.session import Session
    from ..hints import Hint

Answers = dict[str, tuple[str, Callable[[], object]]]  # a question's keys: key -> (label, what it does)

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
#status { height: 1; background: $panel; padding: 0 1; }
#keys { height: auto; padding: 0 1; color: $text-muted; }
"""

KEYS = ("1-4 reserve", "w waste", "d turn", "t turn to a play", "u undo", "r redo", "h hint",
        ": type a card", "s save", "? help", "q quit")
END_KEYS = ("v review this game", "u take back the last move", "q quit")  # the end question's keys



class BoardApp(App):
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
        Binding("s", "save", "save"), Binding("question_mark", "help", "help"), Binding("q", "quit", "quit"),
    ]

    def __init__(self, session: Session, symbols: bool = True) -> None:
        super().__init__()
        self.session = session
        self.game = session.game
        self.symbols = symbols
        self.redo_stack: list[Move] = []
        self.hints: dict[State, Hint] = {}
        self.hint_shown = False
        self.end_shown = False
        self.message_text = ""
        self.pending: Answers | None = None  # the question waiting for an answer
        self.reveal: str | None = None  # a panel just asked for ("#hint", "#message"), scrolled into view once shown
        self.warned_unsaved = False
        session.listener = self.note  # the session's messages (autosave, saves, history) go to the board

    # ---- layout ---------------------------------------------------------
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="main"):
            with Vertical(id="left"):
                yield Static(id="title")
                yield Static(id="table")
            with Vertical(id="right"):
                yield Static(id="memory")
                yield Static(id="hint")
                yield Static(id="message")
        with Vertical(id="bottom"):
            yield Input(placeholder="moves or cards, like 7h or r2 w d; Enter plays, Escape closes", id="prompt")
            yield Static(id="status")
            yield Static(Keys(KEYS), id="keys")

    def on_mount(self) -> None:
        self.refresh_board()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#main").set_class(event.size.width >= WIDE, "wide")

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
        status = f"Move {game.ply}   Stock {len(state.stock)}   Pass {state.pass_no}   Score {state.score}/52"
        if state.won:
            status += "   won"
        elif state.blocked:
            status += "   blocked"
        self.query_one("#status", Static).update(status + "   ? help")
        self.query_one("#keys", Static).update(Keys(END_KEYS if state.over else KEYS))
        if self.reveal == "#message" or (self.reveal == "#hint" and hint is not None):
            # on a short terminal the panels under the table are below the fold: bring the one asked for up
            target = self.query_one(self.reveal)
            self.reveal = None
            self.call_after_refresh(target.scroll_visible, animate=False)

    def say(self, text: str | Text) -> None:
        self.message_text = str(text)
        if self.is_running:
            self.refresh_board()

    def note(self, text: str | Text) -> None:
        """A message from the session (a save, the history), under what the move itself said."""
        self.say(f"{self.message_text}\n{text}" if self.message_text else text)

    # ---- moves ------------------------------------------------------------
    def action_play(self, token: str) -> None:
        self.play_moves([token])

    def play_moves(self, tokens: list[str]) -> None:
        """Play typed tokens (moves or card names) in turn; stop at the first that cannot be played.

        The board is drawn and the game autosaved once, after the last move played.
        """
        bad = unreadable_word(tokens)  # a typo anywhere: nothing of the line is played
        if bad is not None:
            self.reveal = "#message"
            self.say(bad)
            return
        played: list[str] = []
        try:
            for i, token in enumerate(tokens):
                state = self.game.state
                try:
                    target = parse_input(token)
                    move = target if isinstance(target, Move) else move_for_card(state, target)
                    if move not in state.legal_moves():
                        raise IllegalMoveError(why_illegal(state, move))
                except (MoveError, IllegalMoveError) as exc:
                    self.message_text = str(exc) + played_before(played)
                    self.reveal = "#message"  # why the key did nothing, in view even on a short terminal
                    return
                if not self.commit(move, then=tokens[i + 1:], batch=True):
                    return
                played.append(str(move))
        finally:
            if played:
                self._after_moves()
            else:
                self.refresh_board()

    def commit(self, move: Move, then: Sequence[str] = (), batch: bool = False) -> bool:
        """Play ``move`` now, or first ask the tutor's question; False when the rest must wait."""
        state = self.game.state
        if self.session.tutor and len(state.legal_moves()) > 1:
            hint = self.hints.get(state)
            if hint is None:
                self.message_text = "Thinking..."

                def go_on() -> None:  # once the hint is ready: this move (maybe a question), then the rest
                    if self.commit(move, then):
                        self.play_moves(list(then))

                self.compute_hint(state, go_on)
                return False
            warning = self._warning(state, move, hint)
            if warning:
                self.ask(warning, move)
                return False
        self._push(move)
        if not batch:
            self._after_moves()
        return True

    def _push(self, move: Move) -> None:
        state = self.game.state
        self.game.push(move)
        if self.redo_stack and self.redo_stack[-1] == move:
            self.redo_stack.pop()
        else:
            self.redo_stack.clear()
        self.message_text = move_heading(self.game.ply, state, move, self.symbols)

    def _after_moves(self) -> None:
        """After one or more moves: autosave (as line mode does), draw, and the end of the game."""
        self.session.autosave_now()
        if self.reveal is None:  # a move played: the table first, on a terminal too short for everything
            self.query_one("#main").scroll_home(animate=False)
        self.refresh_board()
        if self.game.state.over and not self.end_shown:
            self.end_shown = True
            self.show_end(end_message(self.game.state))

    def _warning(self, state: State, move: Move, hint: Hint) -> str | None:
        """The tutor's question, by the same rule and words as line mode (a drop sure at 95%)."""
        from ..narrate import tutor_question

        return tutor_question(hint, move, self.session.threshold, describe_move(state, hint.best, self.symbols))

    def ask(self, warning: str, move: Move) -> None:
        """The tutor's question, under the board that stays in view; answered with y, n or h."""
        def play_it() -> None:
            self._push(move)
            self._after_moves()

        def show_hint() -> None:
            self.hint_shown = True
            self.reveal = "#hint"
            self.say("Move not played; the hint is above.")

        self.question(warning, {"y": ("play it anyway", play_it), "n": ("rethink", lambda: self.say("Move not played.")),
                                "h": ("show the hint", show_hint)})

    def question(self, text: str, answers: Answers) -> None:
        """Ask ``text`` in the message panel; until a key of ``answers`` comes, other keys only remind."""
        self.pending = answers
        keys = "    ".join(f"{key}  {label}" for key, (label, _) in answers.items())
        self.query_one("#message").add_class("question")
        self.reveal = "#message"
        self.say(f"{text}\n{keys}")

    def _answer(self, key: str) -> None:
        answers, self.pending = self.pending, None
        self.query_one("#message").remove_class("question")
        if answers is not None:
            answers[key][1]()

    def action_turn_until(self) -> None:
        run = turns_to_play(self.game.state)
        if not run.moves:
            self.say(TURN_STOPS.get(run.why, "Nothing to turn."))
            return
        self.play_moves([str(m) for m in run.moves])

    def action_undo(self) -> None:
        if not self.game.can_undo():
            self.say("Nothing to undo: this is the start of the game.")
            return
        (move,) = self.game.undo(1)
        self.redo_stack.append(move)
        self.end_shown = False
        self.session.autosave_now()
        self.say(f"Took back move {self.game.ply + 1} ({move}); r plays it again.")

    def action_redo(self) -> None:
        if not self.redo_stack:
            self.say("Nothing to redo.")
            return
        self.commit(self.redo_stack[-1])

    # ---- hint, help, save, the prompt ---------------------------------------
    def action_hint(self) -> None:
        state = self.game.state
        if state.over:
            self.say("The game is over: there is no move to hint.")
            return
        if self.hint_shown and state in self.hints:
            self.hint_shown = False
            self.say("")
            return
        self.hint_shown = True
        self.reveal = "#hint"
        if state in self.hints:
            self.say("")
        else:
            self.say("Thinking...")
            self.compute_hint(state, lambda: self.say(""))

    @work(thread=True, exclusive=True, group="hint")
    def compute_hint(self, state: State, then: Callable[[], object]) -> None:
        from ..advice import advise

        result = advise(observe(state))
        self.call_from_thread(self._hint_ready, state, result, then)

    def _hint_ready(self, state: State, result: Hint, then: Callable[[], object]) -> None:
        self.hints[state] = result
        if state == self.game.state:
            then()

    def action_help(self) -> None:
        self.push_screen(TextScreen(PLAY_KEYS, "Any key closes this help.", symbols=self.symbols))

    def action_save(self) -> None:
        try:
            self.session.save_command("")
        except TutorError as exc:
            self.say(str(exc))

    def action_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        prompt.add_class("shown")
        prompt.value = ""
        prompt.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._close_prompt()
        words = event.value.split()
        if words and words[0].lower() == "s":  # s FILE saves to that file, as in line mode
            try:
                self.session.save_command(event.value.strip()[1:].strip())
            except TutorError as exc:
                self.say(str(exc))
            return
        self.play_moves(words)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.query_one("#prompt", Input).has_class("shown"):
            self._close_prompt()
            return
        if self.pending is None:
            return
        event.stop()
        event.prevent_default()
        key = event.character if event.character in self.pending else event.key
        if key in self.pending:
            self._answer(key)
        else:
            self.bell()

    def _close_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        prompt.remove_class("shown")
        self.set_focus(None)

    # ---- the end ------------------------------------------------------------
    def show_end(self, summary: str) -> None:
        """The result under the final position, and what next: the review, an undo, or quit."""
        self.session.finish(saved_line=False)
        self.question(f"{summary} {self.session.saved_now()}", {
            "v": ("review this game", lambda: self.exit("review")),
            "u": ("take back the last move", self.action_undo),
            "q": ("quit", self.exit),
        })

    async def action_quit(self) -> None:
        files = self.session.files
        if files.saved_sentence() is None and not files.nothing_to_save() and not self.warned_unsaved:
            # As in line mode: moves that are not saved get a warning and a second q.
            self.warned_unsaved = True
            self.say(f"{files.unsaved_sentence()} Press : and type s FILE to save it, or q again to quit "
                     "without saving.")
            return
        self.exit()


def run_board(session: Session, symbols: bool = True) -> str | None:
    """Run the board until the player quits; ``"review"`` when they asked for the review."""
    try:
        return BoardApp(session, symbols).run()
    finally:
        session.listener = None  # the session speaks to the terminal again
