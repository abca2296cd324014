"""Screens over the board: the keys (help); questions stay on the board itself, under the position.
Also the table's own panel, whose clickable cards keep their colours."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from .widgets import Lines

CSS = """
TextScreen { align: center middle; }
TextScreen > VerticalScroll { width: 100%; max-width: 84; height: auto; max-height: 90%;
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
PgUp PgDn  scroll a board taller than the terminal, back to the table (the arrows, Home, End too)
?        this help     the mouse: click a reserve pile's top card or the waste's top card to play it"""

REPLAY_KEYS = """\
left right  one move back, one move on
Home End    the start, the end
n p         the next, the previous labelled move or critical moment
g           go to a move: type its number and Enter
?           this help
q           quit"""


def play_keys(piles: int) -> str:
    """:data:`PLAY_KEYS` with the reserve keys the game has (none in Bridesmaids, ``1-2`` with two piles)."""
    from ..narrate.play import pile_keys

    keys = pile_keys(piles, prefix="")
    first, rest = PLAY_KEYS.split("\n", 1)
    if keys is None:  # no reserve: no reserve move to type, no reserve card to click
        return (rest.replace("(7h, 10h, r2 w d)", "(7h, 10h, w d)")
                .replace("click a reserve pile's top card or the waste's top card", "click the waste's top card"))
    if piles < 2:
        rest = rest.replace("r2 w d", "r1 w d")
    return f"{keys:<9}play the top card of reserve pile {keys}\n{rest}"


KEYS = ("1-4 reserve", "w waste", "d turn", "t turn to a play", "u undo", "r redo", "h hint",
        ": type a card", "s save", "? help", "q quit")


def keys_for(piles: int) -> tuple[str, ...]:
    """:data:`KEYS` with the reserve keys the game has: ``1-2 reserve`` with two piles, none in Bridesmaids."""
    from ..narrate.play import pile_keys

    keys = pile_keys(piles, prefix="")
    return KEYS[1:] if keys is None else (f"{keys} reserve", *KEYS[1:])


def show_text(app: App, screen: TextScreen) -> None:
    """Push ``screen`` over the board; the keys it held come back to ``app`` once it is gone."""

    def gone(_: str | None) -> None:  # called as the screen is dismissed, before it is off the stack
        def replay() -> None:
            if screen in app.screen_stack:  # still going: a key posted now would come back to it
                app.call_after_refresh(replay)
                return
            held, screen.held = screen.held, []
            for key, character in held:
                app.post_message(events.Key(key, character))

        app.call_after_refresh(replay)

    app.push_screen(screen, callback=gone)


def text_screen_key(app: App, event: events.Key) -> bool:
    """A key that reached the app while a text is over the board (the burst that opened it): the text's to take.
    True when it was taken."""
    if isinstance(app.screen, TextScreen):
        app.screen.take(event)
        return True
    return False


class TextScreen(ModalScreen[str]):
    """A text over the board; any key closes it and is handed back (the end screen reads it)."""

    DEFAULT_CSS = CSS
    # not scoped: a screen's own CSS is scoped under it, so its rules matched nothing and the help filled the
    # whole terminal from its top-left corner with no border
    SCOPED_CSS = False

    def __init__(self, *texts, keys: tuple[str, ...] = (), symbols: bool = True) -> None:
        super().__init__()
        self.texts = texts
        self.keys = keys
        self.symbols = symbols
        self.closing = False  # a second key that comes before the screen is gone must not close it again
        # keys that came in the same burst as the one that opened or closed it (a paste, a fast typist, key
        # repeat): handed back to the board once the screen is gone, in order (they were lost, the help left open)
        self.held: list[tuple[str, str | None]] = []

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Lines(*self.texts, symbols=self.symbols, hanging=True), id="text")

    def take(self, event: events.Key) -> None:
        """A key that reached the app while this screen is on top but not yet taking keys (it came in the
        burst that opened it): it closes the screen as any key would, and the keys after it are held for the
        board."""
        event.stop()
        event.prevent_default()  # nor is it the board's binding as well (? d d at once played two d)
        if self.closing:
            self.held.append((event.key, event.character))
            return
        key = event.key if event.key in self.keys else event.character
        if self.keys and key not in self.keys:
            return
        self.closing = True
        self.dismiss(key)  # not awaited: the app's own handler is running

    def on_key(self, event) -> None:
        if self.closing:
            event.stop()
            self.held.append((event.key, event.character))
            return
        scroll = SCROLL_KEYS.get(event.key)
        if scroll is not None and event.key not in self.keys:
            view = self.query_one(VerticalScroll)
            if view.max_scroll_y > 0:  # a text taller than the terminal: these keys scroll it, not close it
                event.stop()
                getattr(view, f"action_{scroll}")()
                return
        key = event.key if event.key in self.keys else event.character
        if self.keys and key not in self.keys:
            return
        event.stop()
        self.closing = True
        self.dismiss(key)


#: The keys that scroll a text over the board that is taller than the terminal (the help on 12 rows).
SCROLL_KEYS = {"up": "scroll_up", "down": "scroll_down", "pageup": "page_up", "pagedown": "page_down",
               "home": "scroll_home", "end": "scroll_end"}

#: The keys that edit a typed box (the board's : box, the viewer's g box) and the Input action each runs.
BOX_EDITS = {"backspace": "delete_left", "ctrl+h": "delete_left", "delete": "delete_right",
             "left": "cursor_left", "right": "cursor_right", "home": "home", "ctrl+a": "home", "end": "end",
             "ctrl+e": "end", "ctrl+u": "delete_left_all", "ctrl+w": "delete_left_word", "ctrl+k": "delete_right_all"}


def typed_box(placeholder: str, box_id: str) -> Input:
    """A box to type a line in that never takes the focus: every key reaches the app in the order typed, so
    keys sent at once after Enter are the board's, not the box's (the focus, and with it where a key goes,
    changed only when the box handled its Enter, after the keys queued behind it), and the board's scroll
    keeps its focus. The app feeds it with :func:`box_key`."""
    box = Input(placeholder=placeholder, id=box_id)
    box.can_focus = False
    return box


def box_key(box: Input, event: events.Key) -> bool:
    """Apply a key to the open ``box``, an edit (:data:`BOX_EDITS`) or a printable character: True when taken
    (Enter and Escape are the caller's)."""
    action = BOX_EDITS.get(event.key)
    if action is not None:
        getattr(box, f"action_{action}")()
    elif event.is_printable and event.character is not None:
        box.insert_text_at_cursor(event.character)
    else:
        return False
    event.stop()
    return True


def unbound_key(app: App, event: events.Key) -> str | None:
    """A key the app has no use for, as the player typed it (``x``, ``Enter``), else None: a printable key or
    Enter that none of its bindings names, scroll keys aside, pressed on the app's own screen (any key closes a
    help over it). The caller says so: such a key did nothing without a word."""
    if len(app.screen_stack) > 1 or event.key in SCROLL_KEYS:
        return None
    if not (event.key == "enter" or (event.is_printable and event.character)):
        return None
    bound = {key.strip() for b in app.BINDINGS if isinstance(b, Binding) for key in b.key.split(",")}
    if event.key in bound or event.character in bound:
        return None
    return "Enter" if event.key == "enter" else ("space" if event.character == " " else event.character)


def box_paste(box: Input, event: events.Paste) -> None:
    """A paste into the open ``box``: its first line, as a focused Input takes it."""
    lines = event.text.splitlines()
    if lines:
        box.insert_text_at_cursor(lines[0])
    event.stop()


class CardPanel(Static):
    """The table's panel. Its playable cards run an action when clicked (:func:`~tutor.board.widgets.clickable`);
    Textual would draw such text in its one link colour, and a red card (7♥) would show in the terminal's
    text colour: links are off, the cards keep their own colour, and the underline marks them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.set_reactive(Static.auto_links, False)

    async def _on_click(self, event: events.Click) -> None:
        """A double click is one gesture: its second click (Textual's ``chain`` 2) would play the card that
        the first turned up, face down when the player clicked."""
        if event.chain > 1:
            event.prevent_default()
            event.stop()

