"""The replay viewer for ``osmosis replay`` on a terminal: a game that steps both ways.

Left and right step, Home and End go to the ends, ``n``/``p`` jump to the
next or previous labelled move or critical moment, ``g`` N goes to move N.
Beside the board: the move that led here with the review's label and
comment; under it the win-chance chart with a cursor at the current move.
The positions come from :meth:`tutor.record.Record.states` (replayed once),
the words and numbers from the review.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Static

from ..cli.common import stopped_like_ctrl_c
from ..cli.review_report import chance_text
from ..narrate.play import end_message
from ..narrate.review import HINDSIGHT, UNSEEN_WARNING, notes_reveal_unseen, unseen_warning
from ..record import Record
from ..render import describe_move, prose
from ..talon import waste_fan
from ..textsafe import brief
from .screens import (
    REPLAY_KEYS,
    CardPanel,
    TextScreen,
    box_key,
    box_paste,
    show_text,
    text_screen_key,
    typed_box,
    unbound_key,
)
from .widgets import SHORT_ROWS, ChartView, Keys, Lines, TableView, no_colour, too_narrow

if TYPE_CHECKING:
    from ..review import MoveReview, Review

WIDE = 110
ERROR_LABELS = ("inaccuracy", "mistake", "blunder")
MAX_DIGITS = 6  # a move number typed at g: more digits than any game has moves is refused
GLYPHS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}

CSS = """
#main { height: 1fr; }
#main.wide { layout: horizontal; }
#left, #right { height: auto; }
#main.wide #left { width: 62; }
#main.wide #right { width: 1fr; }
#table, #note, #chart, #title { height: auto; padding: 0 1; }
#right { margin-top: 1; }
#chart { margin-top: 1; }
#bottom { dock: bottom; height: auto; }
#goto { display: none; }
#goto.shown { display: block; }
#status { height: auto; max-height: 5; background: $panel; padding: 0 1; }
#status.short { max-height: 3; }
#keys { height: auto; padding: 0 1; color: $text-muted; }
#keys.short { display: none; }
#narrow { height: auto; padding: 0 1; color: $error; display: none; }
#narrow.shown { display: block; }
"""

KEYS = ("← back", "→ on", "Home start", "End end", "n next labelled", "p previous", "g go to move",
        "? help", "q quit")


def marked_moves(record: Record, rev: Review | None = None) -> list[int]:
    """The moves (1-based) ``n``/``p`` stop at: labelled moves (inaccuracy or worse, or tagged) and critical moments."""
    marks = set()
    for i, note in enumerate(record.annotations, 1):
        if note and (note.get("label") in ERROR_LABELS or note.get("tags")):
            marks.add(i)
    if rev is not None:
        marks.update(c.ply for c in rev.critical)
    return sorted(m for m in marks if 1 <= m <= len(record.moves))


class ReplayApp(App):
    """Step through a record; ``rev`` (a :class:`tutor.review.Review`) adds the chart and the critical moments."""

    CSS = CSS
    TITLE = "osmosis replay"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("right", "step(1)", "on"), Binding("left", "step(-1)", "back"),
        # priority: the scroll area, focused when the content is taller than the screen, takes Home and End too
        Binding("home", "go(0)", "start", priority=True), Binding("end", "go(-1)", "end", priority=True),
        Binding("n", "jump(1)", "next"), Binding("p", "jump(-1)", "previous"),
        Binding("g", "goto", "go to"), Binding("question_mark", "help", "help"), Binding("q", "quit_key", "quit"),
    ]

    def __init__(self, record: Record, rev: Review | None = None, symbols: bool = True, start: int = 0) -> None:
        super().__init__(ansi_color=no_colour())
        self.record = record
        self.rev = rev
        self.symbols = symbols
        self.states = record.states()
        self.moves = record.moves
        self.marks = marked_moves(record, rev)
        self.critical = {c.ply: c for c in rev.critical} if rev is not None else {}
        self.ply = start
        self.message = ""

    def reveals_unseen(self) -> bool:
        """The review shown uses cards the game has not shown yet: the one computed here, or the record's own
        annotations (an ``--annotate`` file, whose comments in hindsight came with no warning)."""
        return self.rev.reveals_unseen() if self.rev is not None else notes_reveal_unseen(self.record)
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="main"):
            with Vertical(id="left"):
                yield Static(id="title")
                yield CardPanel(id="table")
            with Vertical(id="right"):
                yield Static(id="note")
                yield Static(id="chart")
        with Vertical(id="bottom"):
            yield typed_box("move number, Enter goes there, Escape closes", "goto")
            yield Static(id="narrow")
            yield Static(id="status")
            yield Static(Keys(KEYS), id="keys")

    def on_mount(self) -> None:
        self.show()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#main").set_class(event.size.width >= WIDE, "wide")
        said = too_narrow(event.size.width)  # cards would be cut: say so rather than cut them silently
        narrow = self.query_one("#narrow", Static)
        narrow.set_class(said is not None, "shown")
        narrow.update(Lines(said or ""))
        self.query_one("#keys").set_class(event.size.height < SHORT_ROWS, "short")
        # a short terminal keeps three status lines, "Move N of M" first: all it says is at the top of the
        # note too (it had grown to 8 of 10 rows and pushed "Move N of M" off the screen)
        self.query_one("#status").set_class(event.size.height < SHORT_ROWS, "short")
        self.show()

    # ---- drawing ------------------------------------------------------------
    def show(self) -> None:
        n, total = self.ply, len(self.moves)
        record = self.record
        where = f"Replay of deal {record.deal.number}" if record.deal.number is not None else "Replay of a deal"
        self.query_one("#title", Static).update(Lines(f"{where}, {record.rules.describe()}", symbols=self.symbols))
        state = self.states[n]
        fan = waste_fan(self.states[: n + 1], self.moves[:n])
        self.query_one("#table", Static).update(TableView(state, self.symbols, fan, playable=False))
        said = self._said(state)
        short = self.query_one("#status").has_class("short") and said
        self.query_one("#note", Static).update(Lines(*([said] if short else []), *self._note(), symbols=self.symbols))
        chart = self.query_one("#chart", Static)
        if self.rev is not None:
            chart.update(ChartView(self.rev, cursor=n))
        else:
            chart.update(Text("No win chances in this record (osmosis replay computes them unless --no-review "
                              "or the record is annotated).", style="dim"))
        status = f"Move {n} of {total}" + (f"   {said}" if said else "")
        self.query_one("#status", Static).update(Lines(status, symbols=self.symbols))

    def _said(self, state) -> str:
        """What the status says after "Move N of M": the message (what the last key did) first, so that a short
        terminal's two lines show it, then the end of the game at its last move."""
        parts = [self.message] if self.message else []
        if self.ply == len(self.moves):
            parts.append(end_message(state) if state.over else "the end of the record (not finished)")
        return "   ".join(parts)

    def _note(self) -> list[Text | str]:
        n = self.ply
        if n == 0:
            # n only where there is a labelled move or a critical moment to jump to (none without a review)
            jump = ", n jumps to the first labelled move" if self.marks else ""
            lines: list[Text | str] = [f"The start: no move played yet. → steps on{jump}." if self.moves
                                       else "This record has no move: there is nothing to step through."]
            if self.reveals_unseen():  # an unfinished game: its hindsight names cards still to come
                lines.append(UNSEEN_WARNING)
            if self.rev is not None:
                lines.append(self.rev.hindsight.verdict())
            return lines
        state, move = self.states[n - 1], self.moves[n - 1]
        head = Text(f"Move {n}: ", style="bold")
        head.append_text(prose(describe_move(state, move, False), self.symbols))
        note = self.record.annotations[n - 1] or {}
        label = note.get("label")
        # the review's, or the annotation's own word for it (an annotated record comes with no review)
        ungraded = not self.rev.moves[n - 1].graded if self.rev is not None else note.get("graded") is False
        if label and not ungraded:  # a forced move, a free play, a decided position: no "best"
            head.append("  ")
            head.append(label + (f" {GLYPHS[label]}" if label in GLYPHS else ""),
                        style="bold red" if label in ERROR_LABELS else "green")
        if note.get("tags"):
            head.append("  [" + ", ".join(note["tags"]) + "]", style="dim")
        out: list[Text | str] = [head]
        if self.rev is not None:
            m = self.rev.moves[n - 1]
            # with luck the comment quotes the chance after the cards turned up: say which figure is which
            when = ", before the cards it turned up were seen" if m.luck is not None else ""
            if m.graded:
                out.append(f"Win chance {chance_text(m.win_after, m.win_after_interval, m.exact)} after it, "
                           f"{chance_text(m.win_before, m.win_before_interval, m.exact)} with the best move{when}, "
                           f"{_basis(m)}.")
            elif note.get("comment"):  # the comment names the kind of move and its chance: only what it lacks
                out.append("Not graded" + ("; its win chance is from before the cards it turned up were seen"
                                           if when else "") + ".")
            else:
                kind = "The only legal move" if m.forced else "A decided position" if m.decided else "A free play"
                out.append(f"{kind}, not graded: win chance "
                           f"{chance_text(m.win_after, m.win_after_interval, m.exact)} after it{when}, {_basis(m)}.")
        if note.get("comment"):
            out.append(note["comment"])
        moment = self.critical.get(n)
        if moment is not None:
            # a luck moment's text names its kind already ("luck: J♠ turned up ..."); an error's does not
            text = moment.text if moment.text.startswith(f"{moment.kind}:") else f"{moment.kind}: {moment.text}"
            out.append(Text("Critical moment, ", style="bold") + prose(text, self.symbols))
        if self.reveals_unseen() and any(HINDSIGHT in str(line) for line in out):  # opened here (--at N)
            out.insert(1, unseen_warning("here"))
        return out

    # ---- keys ---------------------------------------------------------------
    def go(self, n: int) -> None:
        self.ply = max(0, min(len(self.moves), n))
        self.message = ""
        self.show()

    def action_step(self, delta: int) -> None:
        if not 0 <= self.ply + delta <= len(self.moves):  # at an end: said, not a silent key
            self.message = ("This record has no move." if not self.moves else
                            f"This is the last move, move {len(self.moves)}: ← steps back, Home goes to the start."
                            if delta > 0 else "This is the start, before the first move: → steps on.")
            self.show()
            return
        self.go(self.ply + delta)

    def action_go(self, n: int) -> None:
        box = self.query_one("#goto", Input)
        if box.has_class("shown"):  # Home and End move the cursor in the move number being typed
            box.action_home() if n == 0 else box.action_end()
            return
        self.go(len(self.moves) if n < 0 else n)

    def action_jump(self, direction: int) -> None:
        targets = [m for m in self.marks if (m > self.ply if direction > 0 else m < self.ply)]
        if not targets:
            self.message = "no labelled move or critical moment " + ("after" if direction > 0 else "before") + " this one"
            self.show()
            return
        self.go(targets[0] if direction > 0 else targets[-1])

    def action_goto(self) -> None:
        box = self.query_one("#goto", Input)
        box.add_class("shown")
        box.value = ""
        # the box takes no focus (screens.typed_box): the keys after g come to on_key in the order typed

    def submit_number(self, value: str) -> None:
        """Enter in the g box: close it and go to the move, before any key typed after the Enter ("g 1 2
        Enter →" stayed at move 12, the arrow taken by the box)."""
        self.query_one("#goto", Input).remove_class("shown")
        text = value.strip()
        if not text:  # Enter on an empty box: nothing asked, the box just closes
            return
        # ASCII digits only ('²' passes isdigit but not int()), and few of them (int() refuses 4300 digits)
        if not (text.isascii() and text.isdigit()) or len(text) > MAX_DIGITS:
            self.message = f"{brief(text)} is not a move number: expected 0 to {len(self.moves)}"
            self.show()
            return
        self.go(int(text))
        if int(text) > len(self.moves):  # past the end goes to the end, and says so
            self.message = (f"There is no move {int(text)}: this is the last one, move {len(self.moves)}."
                            if self.moves else "This record has no move.")
            self.show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No viewer key while the g box is open: a key on its way to the viewer as the box opened (g 1 2
        typed at once) is the box's (:meth:`on_key`); Home and End stay the box's own (:meth:`action_go`)."""
        if action in ("step", "jump", "goto", "help", "quit_key") and self.query_one("#goto", Input).has_class("shown"):
            return False
        if action == "go" and len(self.screen_stack) > 1:  # Home and End (priority keys) close the help, as any key
            return False
        return super().check_action(action, parameters)

    def on_key(self, event: events.Key) -> None:
        if text_screen_key(self, event):  # keys in the burst that opened the help: the help's, then the viewer's
            return
        box = self.query_one("#goto", Input)
        if not box.has_class("shown"):
            key = unbound_key(self, event)
            if key is not None:  # it did nothing without a word
                self.message = f"{key} is not a key of the viewer: ? lists the keys (arrows, Home, End, n, p, g, q)."
                self.show()
            return
        # every key comes here while the box is open (the viewer's own are refused, check_action), in the
        # order typed: "g 1 2" at once had stayed at move 0, "g x q" had quit
        if event.key in ("escape", "enter"):
            event.stop()
            if event.key == "enter":
                self.submit_number(box.value)
            else:
                box.remove_class("shown")
            return
        box_key(box, event)

    def on_paste(self, event: events.Paste) -> None:
        box = self.query_one("#goto", Input)
        if box.has_class("shown"):
            box_paste(box, event)

    def action_help(self) -> None:
        show_text(self, TextScreen(REPLAY_KEYS, "Any key closes this help.", symbols=self.symbols))

    async def action_quit(self) -> None:
        self.exit(self.ply)

    action_quit_key = action_quit
    """The q key: quit, under a name of its own, so that the box can refuse the key and not Ctrl+Q."""


def run_replay(record: Record, rev: Review | None = None, symbols: bool = True, start: int = 0) -> int | None:
    """Run the viewer (at move ``start``) until the player quits; the move it was at."""
    with stopped_like_ctrl_c():  # a kill (SIGTERM) closes the viewer as Ctrl-C does: the terminal put back
        return ReplayApp(record, rev, symbols, start=max(0, min(start, len(record.moves)))).run()


def _basis(m: MoveReview) -> str:
    """What a move's win chances rest on: ``on 64 deals``, or ``exact`` (every consistent deal solved)."""
    return "exact" if m.exact else f"on {m.samples} deal{'s' if m.samples != 1 else ''}"
