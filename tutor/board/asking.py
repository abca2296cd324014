"""The board's moves and the tutor's questions: a move waits for its hint, then is played or asked about.

One move at a time: while a move waits for its hint (computed in a worker
thread) or a question about it is open, other move keys are refused with a
short message; a question is only answered about its own position and move,
and a hint that comes for a position the board has left is kept for later
but moves nothing. :class:`tutor.board.play.BoardApp` is the app itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text
from textual import events, work
from textual.app import App

from ..cli.words import played_before, unreadable_word, without_label
from ..errors import IllegalMoveError, MoveError
from ..knowledge import observe
from ..narrate.moves import move_heading
from ..narrate.play import not_played
from ..notation import Move
from ..render import describe_move
from ..state import State
from ..talon import move_typed
from .thinking import in_thread
from .widgets import KEYS_APART, no_colour

if TYPE_CHECKING:
    from ..cli.session import Session
    from ..hints import Hint

Answers = dict[str, tuple[str, Callable[[], object]]]  # a question's keys: key -> (label, what it does)


@dataclass(frozen=True)
class Waiting:
    """A move that waits for the hint at ``state`` (the tutor's verdict), with the rest of its line."""

    state: State
    move: Move
    rest: tuple[str, ...]
    played: tuple[str, ...]  # the moves of the line played before it


class MovesApp(App):
    """Typed and keyed moves, through the tutor's hint and question when ``--tutor`` is on."""

    session: Session
    symbols: bool
    message_text: str
    reveal: str | None

    def __init__(self) -> None:
        super().__init__(ansi_color=no_colour())
        self.redo_stack: list[Move] = []
        self.hints: dict[State, Hint] = {}
        self.hint_shown = False
        self.computing: State | None = None  # the position a hint worker is busy with
        self.waiting: Waiting | None = None  # the move waiting for its hint
        self.pending: Answers | None = None  # the question waiting for an answer
        self.approved: tuple[State, Move] | None = None  # a move the player said y to, where it was asked
        self.turn_run: tuple[int, str] | None = None  # t: its first move and why it stops, until it is told
        self.rest_at_end: tuple[str, ...] = ()  # the words of a line left when the game ended
        self.leaving = False  # the board is closing: a hint that comes now plays nothing
        self.kept_back = 0  # keys refused while the tutor weighed a move: said when that move plays or is asked
        self.typed_aside = False  # a line typed after ":" while a question is open: swallowed up to its Enter

    # the app draws, says and quits (tutor.board.play.BoardApp defines these methods)
    say: Callable[[str | Text], None]
    action_play: Callable[[str], None]
    end_box: str | None
    refresh_board: Callable[[], None]
    _after_moves: Callable[[], None]
    quit_game: Callable[[], None]

    # ---- one move at a time ---------------------------------------------------
    def refused(self, what: str) -> bool:
        """Whether ``what`` (a key's move or command) must wait: a move is waiting for its hint or question.

        Says so in one short line; the caller then does nothing.
        """
        if self.pending is not None:
            self.bell()  # the question's keys are in view under it
            if what == ":":  # what follows the colon is a line, not answers (the h of 7h showed the hint)
                self.typed_aside = True
            return True
        if self.waiting is None:
            self.turn_run = None  # a new action: the t before it was told
            return False
        self.bell()
        self.kept_back += 1
        self.say(f"Thinking about {self.waiting.move} first: {what} was not played (one move at a time).")
        return True

    def action_click(self, token: str) -> None:
        """A card clicked with the mouse: its move (``r2``, ``w``), or its name for a card under a pile's top in
        peek (what the typed name answers: why it cannot be played). The : box open does not swallow the
        click: the player reached past it to a card, so it closes, its words unplayed, and the card plays."""
        box = self.query_one("#prompt")
        if box.has_class("shown"):
            if self.end_box is not None:  # opened from the end question: the game is over, nothing plays
                self.bell()
                return
            box.remove_class("shown")
        self.action_play(token)

    # ---- moves ------------------------------------------------------------
    def play_moves(self, tokens: Sequence[str], played: Sequence[str] = ()) -> None:
        """Play typed tokens (moves or card names) in turn; stop at the first that cannot be played.

        ``played``: the moves of the same line played before these (for what a failed move says). The board
        is drawn and the game autosaved once, after the last move played.
        """
        bad = unreadable_word(tokens, self.game_state().rules.reserve_piles)  # a typo anywhere: nothing of the line is played
        if bad is not None:
            self.reveal = "#message"
            self.say(bad)
            return
        done = list(played)
        pushed = False
        rest = list(tokens)  # the words not read yet
        try:
            while rest:
                state = self.game_state()
                if state.over and pushed:
                    self.rest_at_end = tuple(rest)  # said with the end, as line mode does
                    return
                token, rest = rest[0], rest[1:]
                try:
                    move = move_typed(state, token)
                except (MoveError, IllegalMoveError) as exc:
                    self.message_text = str(exc) + played_before(done)
                    self.reveal = "#message"  # why the key did nothing, in view even on a short terminal
                    return
                rest = without_label(state, move, rest)  # solve's line "r3 9C d" pastes as it is printed
                if not self.commit(move, rest, done):
                    return
                pushed = True
                done.append(str(move))
        finally:
            if pushed:
                self._after_moves()
            else:
                self.refresh_board()

    def game_state(self) -> State:
        return self.session.game.state

    def commit(self, move: Move, rest: Sequence[str] = (), played: Sequence[str] = ()) -> bool:
        """Play ``move`` now, or first wait for the tutor's hint or ask its question; False when it waits."""
        state = self.game_state()
        approved, self.approved = self.approved, None
        if self.session.tutor and len(state.legal_moves()) > 1 and approved != (state, move):
            hint = self.hints.get(state)
            if hint is None:
                self.waiting = Waiting(state, move, tuple(rest), tuple(played))
                self.message_text = THINKING
                self.start_hint(state)
                return False
            warning = self._warning(state, move, hint)
            if warning:
                self.ask(warning, state, move, rest, played)
                return False
        self._push(move)
        return True

    def _push(self, move: Move) -> None:
        game = self.session.game
        state = game.state
        game.push(move)
        if self.redo_stack and self.redo_stack[-1] == move:
            self.redo_stack.pop()
        else:
            self.redo_stack.clear()
        self.message_text = move_heading(game.ply, state, move, self.symbols) + self._kept_back()

    def _kept_back(self) -> str:
        """The keys refused while the tutor weighed the move now played or asked about, said once (the refusal
        was written over by the move's own line, and two of four d's were gone without a word)."""
        n, self.kept_back = self.kept_back, 0
        keys = "1 key pressed while the tutor was thinking was" if n == 1 else f"{n} keys pressed while the tutor was thinking were"
        return f" ({keys} not played.)" if n else ""

    def _warning(self, state: State, move: Move, hint: Hint) -> str | None:
        """The tutor's question, by the same rule and words as line mode (a drop sure at 95%)."""
        from ..narrate import tutor_question

        return tutor_question(hint, move, self.session.threshold, describe_move(state, hint.best, self.symbols))

    # ---- the tutor's question -------------------------------------------------
    def ask(self, warning: str, state: State, move: Move, rest: Sequence[str], played: Sequence[str]) -> None:
        """The tutor's question about ``move`` at ``state``, under the board; answered with y, n, h or q.

        y plays it and the rest of its line, as line mode does; n and h keep both back, and say so.
        """
        def here() -> bool:  # the answer is about this position and move, or about nothing
            if self.game_state() == state:
                return True
            self.turn_run = None
            self.say(f"The position changed since the question: {move} was not played.")
            return False

        def play_it() -> None:
            if here():
                self.approved = (state, move)
                self.play_moves([str(move), *rest], played)

        turns = self.turn_run is not None  # t's run, worked out on the face-down cards: its length unsaid

        def keep_back() -> None:
            if here():
                self.turn_run = None
                self.say(not_played(rest, turns))

        def show_hint() -> None:
            if here():
                self.turn_run = None
                self.hint_shown = True
                self.reveal = "#hint"
                self.say(not_played(rest, turns) + " The hint is above.")

        def leave() -> None:
            self.turn_run = None
            self.message_text = not_played(rest, turns)
            self.quit_game()

        self.question(warning + self._kept_back(), {"y": ("play it anyway", play_it), "n": ("rethink", keep_back),
                                "h": ("show the hint", show_hint), "q": ("quit", leave)})

    def question(self, text: str, answers: Answers) -> None:
        """Ask ``text`` in the message panel; until a key of ``answers`` comes, other keys only remind."""
        self.pending, self.typed_aside = answers, False
        keys = KEYS_APART.join(f"{key}  {label}" for key, (label, _) in answers.items())
        self.query_one("#message").add_class("question")
        self.reveal = "#message"
        self.say(f"{text}\n{keys}")

    def _answer(self, key: str) -> None:
        answers, self.pending = self.pending, None
        self.query_one("#message").remove_class("question")
        if answers is not None:
            answers[key][1]()

    def on_key(self, event: events.Key) -> None:
        if self.pending is None or event.key == "ctrl+c":  # Ctrl-C: the board's own answer (Ctrl+Q quits)
            return
        event.stop()
        event.prevent_default()
        if self.typed_aside:  # a line typed after ":" while the question is open: neither answers nor board keys
            self.typed_aside = event.key not in ("enter", "escape")
            return
        char = (event.character or "").lower()  # Y as y, as line mode takes it; Enter and Escape are its n
        key = char if char in self.pending else "n" if event.key in ("enter", "escape") and "n" in self.pending \
            else event.key
        if key in self.pending:
            self._answer(key)
            return
        if char in (":", "/"):
            self.typed_aside = True
            self.bell()
            return
        from .screens import SCROLL_KEYS

        scroll = SCROLL_KEYS.get(event.key)
        if scroll is not None:  # a question taller than a short terminal: its answers are scrolled to, not rung at
            from textual.actions import SkipAction

            try:
                getattr(self.query_one("#main"), f"action_{scroll}")()
            except SkipAction:  # nothing to scroll (the board fits the terminal): Textual's way of saying so
                pass
        else:
            self.bell()

    # ---- the hint ---------------------------------------------------------------
    def action_hint(self) -> None:
        state = self.game_state()
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
            self.say(THINKING)
            self.start_hint(state)

    def prefetch_hint(self) -> None:
        """With ``--tutor``, the hint at the position shown, computed while the player thinks: each move waits
        for its position's hint (14.6 s before move 1 of a limited game), and is then usually played at once."""
        state = self.game_state()
        if self.session.tutor and not state.over and len(state.legal_moves()) > 1 and state not in self.hints:
            self.start_hint(state)

    def start_hint(self, state: State) -> None:
        """Compute the hint at ``state`` in a worker, unless one is at it already."""
        if self.computing != state:
            self.computing = state
            self.compute_hint(state)

    @work(group="hint")
    async def compute_hint(self, state: State) -> None:
        """The hint at ``state``, computed in a thread (:mod:`tutor.board.thinking`) that quitting stops, not awaits.

        One worker a position: a hint for a position the board has left still comes, and is kept.
        """
        def compute() -> Hint:
            from .. import advice  # looked up when called: tests put a slow stand-in there

            return advice.advise(observe(state))

        self._hint_ready(state, await in_thread(compute))

    def exit(self, result: object = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        """Close the board: first stop the hints being computed (the game stays as the last move left it)."""
        self.leaving = True
        self.workers.cancel_group(self, "hint")
        super().exit(result, return_code, message)

    def _hint_ready(self, state: State, result: Hint) -> None:
        """A hint is ready: keep it; go on with the move that waited for it, if it is still this position's."""
        if self.leaving:
            return
        self.hints[state] = result
        if self.computing == state:
            self.computing = None
        waiting = self.waiting
        if waiting is not None and waiting.state == state:
            self.waiting = None
            if state == self.game_state():
                self.play_moves([str(waiting.move), *waiting.rest], waiting.played)
                return
        if state == self.game_state() and self.hint_shown and self.waiting is None and self.pending is None:
            # the hint in its panel; what the move said stays (with --tutor the next hint comes by itself)
            self.say("" if self.message_text == THINKING else self.message_text)


THINKING = "Thinking..."
"""The message while a hint asked for is computed: the hint takes its place when it comes."""

__all__ = ["THINKING", "Answers", "MovesApp", "Waiting"]
