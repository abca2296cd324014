"""Screens over the board: the keys (help); questions stay on the board itself, under the position.
Also the table's own panel, whose clickable cards keep their colours."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from .widgets import Lines

CSS = """
ModalScreen { align: center middle; }
ModalScreen > VerticalScroll { width: 90%; max-width: 84; height: auto; max-height: 90%;
                               border: round $accent; padding: 0 1; background: $surface; }
"""

PLAY_KEYS = """\
1-4      play the top card of reserve pile 1-4
w        play the waste's top card
d space  turn the talon (a redeal when the stock is empty)
t        turn until the waste shows a card that can be played (stops before a redeal)
u r      undo, redo
h        hint: every move's win chance, samples and interval, and why
: or /   type moves or card names (7h, 10h, r2 w d) and Enter
s        save          q  quit (the game stays saved)
?        this help     the mouse: click a reserve card or the waste's top card to play it"""

REPLAY_KEYS = """\
left right  one move back, one move on
Home End    the start, the end
n p         the next, the previous labelled move or critical moment
g           go to a move: type its number and Enter
?           this help
q           quit"""


class TextScreen(ModalScreen[str]):
    """A text over the board; any key closes it and is handed back (the end screen reads it)."""

    DEFAULT_CSS = CSS

    def __init__(self, *texts, keys: tuple[str, ...] = (), symbols: bool = True) -> None:
        super().__init__()
        self.texts = texts
        self.keys = keys
        self.symbols = symbols
        self.closing = False  # a second key that comes before the screen is gone must not close it again

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Lines(*self.texts, symbols=self.symbols, hanging=True), id="text")

    def on_key(self, event) -> None:
        if self.closing:
            event.stop()
            return
        key = event.key if event.key in self.keys else event.character
        if self.keys and key not in self.keys:
            return
        event.stop()
        self.closing = True
        self.dismiss(key)


class CardPanel(Static):
    """The table's panel. Its playable cards run an action when clicked (:func:`~tutor.board.widgets.clickable`);
    Textual would draw such text in its one link colour, and a red card (7♥) would show in the terminal's
    text colour: links are off, the cards keep their own colour, and the underline marks them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.set_reactive(Static.auto_links, False)

