"""Rich renderables for positions, deals and hints; the only module besides the CLI that knows rich.

Cards show their suit symbol (red suits in red) on a terminal, or the
two-letter names (``7H``) with ``symbols=False``, which the CLI chooses for
pipes and files. Everything stays readable without colour (``NO_COLOR``) and
fits an 80-column terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text

from .cards import NAMES, RANKS, RED_SUITS, SUIT_SYMBOLS, SUITS, SYMBOLS
from .deals import Deal
from .narrate.hint import cards_ends
from .narrate.moves import move_deed, move_fact, move_label
from .notation import TURN, Move
from .rules import Rules
from .state import State
from .table import Table


class ScoredMove(Protocol):
    """What :func:`render_hint` needs of a candidate (a :class:`tutor.hints.Candidate`): the move and its scores.

    ``card``, ``exact``, ``interval`` and ``samples`` are drawn when the candidate has them.
    """

    @property
    def move(self) -> Move: ...
    @property
    def win(self) -> float: ...
    @property
    def cards(self) -> float: ...


class ScoredPosition(Protocol):
    """What :func:`render_hint` needs of a hint (a :class:`tutor.hints.Hint`)."""

    @property
    def best(self) -> Move: ...
    @property
    def candidates(self) -> Sequence[ScoredMove]: ...
    @property
    def reason(self) -> str: ...


BACK = "▒▒"
BACK_STYLE = "blue"
RED = "red"
DIM = "dim"
LABEL = "bold"


def _label(text: str, style: str = LABEL) -> Text:
    """Styled text that later appends do not inherit (a Text's own style spans all of it)."""
    label = Text()
    label.append(text, style=style)
    return label


def use_symbols(console: Console) -> bool:
    """Suit symbols where a terminal that can show them is used, two-letter names elsewhere (and where the
    command was asked for plain lines: ``two_letters`` set on the console, as ``--plain`` does)."""
    encoding = (console.encoding or "").lower()
    return console.is_terminal and encoding.startswith("utf") and not getattr(console, "two_letters", False)


def card_text(card: int, symbols: bool = True, style: str = "") -> Text:
    """A card as rich Text: ``7♥`` (or ``7H``), red suits in red."""
    name = card_name(card, symbols)
    colour = RED if card // 13 in RED_SUITS else ""
    return Text(name, style=" ".join(s for s in (colour, style) if s))


_CARD_NAME = re.compile(r"(?<![A-Za-z0-9])(10|[A2-9TJQK])([SHDC])(?![A-Za-z0-9])")


def card_name(card: int, symbols: bool = True) -> str:
    """The one spelling of a card in text: ``7♥`` on a terminal, ``7H`` in plain mode and JSON."""
    return SYMBOLS[card] if symbols else NAMES[card]


def prose(text: str, symbols: bool = True, style: str = "") -> Text:
    """A sentence with every card name in it spelt as :func:`card_name` spells cards (red suits red).

    The engine writes cards as ``TS`` in its sentences; on a terminal the
    board shows ``T♠``, so the words are respelt here, in one place, to match.
    """
    out = Text(style=style)
    last = 0
    for m in _CARD_NAME.finditer(text):
        out.append(text[last:m.start()])
        rank = "T" if m.group(1) == "10" else m.group(1)
        out.append_text(card_text(RANKS.index(rank) + 13 * SUITS.index(m.group(2)), symbols))
        last = m.end()
    out.append(text[last:])
    return out


def _reserve_cell(card: int, face_up: bool, reveal: bool, symbols: bool) -> Text:
    """A reserve card: shown when face up, dimmed when revealed, else a card back."""
    if face_up:
        return card_text(card, symbols)
    if reveal:
        return card_text(card, symbols, DIM)
    return Text(BACK, style=BACK_STYLE)

def suit_text(suit: int, symbols: bool = True) -> Text:
    return Text(SUIT_SYMBOLS[suit] if symbols else SUITS[suit], style=RED if suit in RED_SUITS else "")


def _cards(cards: Iterable[int], symbols: bool, style: str = "") -> Text:
    return Text(" ").join(card_text(c, symbols, style) for c in cards)


def move_text(state: State, move: Move, symbols: bool = True) -> Text:
    """A legal move as the player types it and what it does: ``r2 7♥``, ``w K♠``, ``d turn``.

    The words are :func:`tutor.narrate.moves.move_brief`'s; here the card gets its colour.
    """
    fact = move_fact(state, move)
    text = _label(fact.notation)
    text.append(" ")
    if fact.card is not None:
        text.append_text(card_text(fact.card, symbols))
    else:
        text.append(move_deed(fact, symbols))
    return text


def move_line(number: int, state: State, move: Move, symbols: bool = True) -> Text:
    """The line after move ``number``, played from ``state``: ``Move 5: r2 7♥`` (:func:`~tutor.narrate.move_heading`)."""
    text = _label(f"Move {number}: ")
    text.append_text(move_text(state, move, symbols))
    return text


def turn_word(state: State) -> str:
    """What ``d`` does now: turn cards from the stock, or redeal the waste."""
    return move_deed(move_fact(state, TURN))


def describe_move(state: State, move: Move, symbols: bool = True) -> str:
    """A move in words, for sentences: ``r2 (7♥)``, ``d (turn the talon)`` (:func:`tutor.narrate.move_label`)."""
    return move_label(state, move, symbols)


def _passes_text(state: State) -> str:
    limit = state.rules.passes
    return f"pass {state.pass_no} of {limit}" if limit else f"pass {state.pass_no} (unlimited passes)"


def _reserve_lines(state: State, reveal: bool, symbols: bool, width: int | None = None) -> list[Text]:
    """``Reserve  r1 ▒▒ ▒▒ ▒▒ AD   r2 ...``; piles that do not fit ``width`` go on the next line, whole."""
    if not state.reserves:
        return []
    piles = []
    for i, pile in enumerate(state.reserves):
        cell = _label(f"r{i + 1} ")
        if not pile:
            cell.append("(empty)", style=DIM)
        else:
            parts = [_reserve_cell(card, state.face_up(i, depth), reveal, symbols)
                     for depth, card in enumerate(reversed(pile))]
            cell.append_text(Text(" ").join(reversed(parts)))
        piles.append(cell)
    lines = [_label("Reserve  ")]
    for cell in piles:
        line = lines[-1]
        fresh = len(line.plain) == len("Reserve  ")
        if not fresh and width is not None and len(line.plain) + 3 + len(cell.plain) > width:
            lines.append(Text(" " * len("Reserve  ")))
            line, fresh = lines[-1], True
        if not fresh:
            line.append("   ")
        line.append_text(cell)
    return lines


#: The foundation grid's width with a card in each cell: below it each cell shows the rank alone (the row's
#: suit leads the row), two columns a cell, so the ranks stay lined up on a 40-column terminal.
FOUNDATION_WIDTH = 7 + 13 * 3


def _foundation_lines(state: State, symbols: bool, columns: int | None = None) -> list[Text]:
    start = state.start_rank
    narrow = columns is not None and columns < FOUNDATION_WIDTH
    width = 2 if narrow else 3
    title = _label("Foundations")
    title.append(f"  (starting rank {RANKS[start - 1]})")
    header = Text(" " * 7)
    for r in range(1, 14):
        header.append(RANKS[r - 1].ljust(width), style="bold underline" if r == start else DIM)
    lines = [title, header]
    free_suits = [s for s in range(4) if s not in state.rows]
    for k in range(4):
        line = Text(f"  {k + 1} ")
        if k < len(state.rows):
            suit = state.rows[k]
            line.append_text(suit_text(suit, symbols))
            line.append("  ")
            mask = state.found[suit]
            for r in range(13):
                if mask >> r & 1:
                    cell = card_text(suit * 13 + r, symbols)
                    if narrow:  # the rank alone, in its suit's colour
                        cell = Text(RANKS[r], style=RED if suit in RED_SUITS else "")
                    line.append_text(cell)
                    line.append(" " * (width - len(cell.plain)))
                else:
                    line.append("·".ljust(width), style=DIM)
        elif k == len(state.rows):
            openers = [s * 13 + start - 1 for s in free_suits]
            line.append("-   opened by ", style=DIM)
            line.append_text(Text(" or ").join(card_text(c, symbols) for c in openers))
        else:
            line.append("-", style=DIM)
        line.rstrip()
        lines.append(line)
    header.rstrip()
    return lines


def _talon_lines(state: State, reveal: bool, symbols: bool, fan: int | None) -> list[Text]:
    waste = state.waste
    line = _label("Waste    ")
    if not waste:
        line.append("(empty)", style=DIM)
    else:
        shown = max(1, min(fan or 1, len(waste)))
        below = len(waste) - shown
        if below:
            line.append(f"{below} more, then ", style=DIM)
        line.append_text(_cards(waste[len(waste) - shown:-1], symbols, DIM))
        if shown > 1:
            line.append(" ")
        line.append_text(card_text(waste[-1], symbols, "bold"))
        line.append(" (top)", style=DIM)
    line.append("   ")
    line.append("Stock ", style=LABEL)
    line.append(str(len(state.stock)))
    lines = [line]
    if reveal and state.stock:
        lines.append(_label("Stock    ") + _cards(state.stock, symbols, DIM))
    return lines


def _moves_line(state: State, symbols: bool) -> Text:
    line = _label("Moves    ")
    moves = state.legal_moves()
    if not moves:
        line.append("none", style=DIM)
        return line
    line.append_text(Text("   ").join(move_text(state, m, symbols) for m in moves))
    return line


class _Position:
    """A position laid out for the width it is drawn at (the reserve line wraps by whole piles)."""

    def __init__(self, state: State, reveal: bool, symbols: bool, fan: int | None, moves: bool) -> None:
        self.args = (state, reveal, symbols, fan, moves)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield _position(*self.args, width=options.max_width)


def render_state(state: State, reveal: bool = False, symbols: bool = True, fan: int | None = None,
                 moves: bool = True) -> RenderableType:
    """A position: reserve, foundation rows, waste and stock, pass, score and the legal moves.

    ``reveal`` also shows the face-down reserve cards (dimmed) and the stock.
    ``fan`` is how many waste cards the player can see (the top and the rest
    of the turn it came with); the caller knows it from the game's history.
    """
    return _Position(state, reveal, symbols, fan, moves)


def _position(state: State, reveal: bool, symbols: bool, fan: int | None, moves: bool,
              width: int | None = None) -> Group:
    head = _label(f"Score {state.score}/52")
    head.append(f"   {_passes_text(state).capitalize()}   turn {state.rules.turn}")
    if state.won:
        head.append("   won", style="bold green")
    elif state.blocked:
        head.append("   blocked", style="bold red")
    parts: list[RenderableType] = [head]
    parts += _reserve_lines(state, reveal, symbols, width)
    parts += _foundation_lines(state, symbols, width)
    parts += _talon_lines(state, reveal, symbols, fan)
    if moves:
        parts.append(_moves_line(state, symbols))
    return Group(*parts)


# Parts of a position, for the full-screen board (tutor.board).
foundation_lines = _foundation_lines
talon_lines = _talon_lines
passes_text = _passes_text


def render_deal(deal: Deal, rules: Rules, reveal: bool = False, symbols: bool = True) -> RenderableType:
    """A deal's layout before the first move; ``reveal`` shows every card, the talon in turning order."""
    title = _label(f"Deal {deal.number}" if deal.number is not None else "Deal (from a file)")
    title.append(f"   {rules.describe()}")
    parts: list[RenderableType] = [title]
    if deal.reserves:
        line = _label("Reserve  ")
        line.append("bottom to top", style=DIM)
        parts.append(line)
        for i, pile in enumerate(deal.reserves):
            row = _label(f"  r{i + 1}  ")
            cells = []
            for depth, card in enumerate(reversed(pile)):
                cells.append(_reserve_cell(card, depth == 0 or rules.open_reserve, reveal, symbols))
            row.append_text(Text(" ").join(reversed(cells)))
            parts.append(row)
    base = _label("Base     ")
    base.append_text(card_text(deal.base, symbols))
    base.append(f"   starts row 1; the starting rank is {RANKS[deal.base % 13]}")
    parts.append(base)
    talon = _label("Talon    ")
    talon.append(f"{len(deal.talon)} cards")
    if reveal:
        talon.append(", in turning order:")
        parts.append(talon)
        per_line = 13
        for i in range(0, len(deal.talon), per_line):
            parts.append(Text("  ") + _cards(deal.talon[i:i + per_line], symbols))
    else:
        talon.append(" face down", style=DIM)
        parts.append(talon)
    return Group(*parts)


def _interval_cell(cand: ScoredMove) -> str:
    """A candidate's 95% win interval ("33-50"), "exact" when every consistent deal was solved, or "certain"
    when the win alone is known in every one (a settled hint, :mod:`tutor.advice`: its interval is the one
    value)."""
    if getattr(cand, "exact", False):
        return "exact"
    lo, hi = getattr(cand, "interval", (0.0, 1.0))
    if lo == hi:
        return "certain"
    return f"{lo * 100:.0f}-{hi * 100:.0f}"


def cards_interval_cell(cand: ScoredMove, certain: bool = False) -> str:
    """A candidate's 95% interval of its expected cards ("33-36"; one decimal where the rounded ends would be
    one number), "exact" when every consistent deal was solved, "certain" when the rules fix the count
    (``certain``: the no-progress rule, :mod:`tutor.advice`), "same" when every sampled deal gives the same
    count, "-" with no interval."""
    if getattr(cand, "exact", False):
        return "exact"
    if certain:
        return "certain"
    iv = getattr(cand, "cards_interval", None)
    if iv is None:
        return "-"
    lo, hi = iv
    return "same" if round(lo, 6) == round(hi, 6) else cards_ends(lo, hi)


def _samples_cell(cand: ScoredMove) -> str:
    n = getattr(cand, "samples", 0)
    return f"{n} deal{'s' if n != 1 else ''}" if getattr(cand, "exact", False) else str(n)


def differs_blind(candidates: Iterable[object]) -> bool:
    """Some move's blind win chance (the search over the cards still to turn up) shows another figure than its
    win on the samples: the tables then give that column (where they agree it would only repeat them)."""
    return any((b := getattr(c, "blind", None)) is not None and f"{b * 100:.0f}" != f"{getattr(c, 'win', 0) * 100:.0f}"
               for c in candidates)


def render_hint(hint: ScoredPosition, state: State | None = None, symbols: bool = True) -> RenderableType:

    """A hint: its candidates best first (move, card, win %, expected cards), then the reason."""
    candidates = sorted(hint.candidates, key=lambda c: (c.move != hint.best, -c.win, -c.cards))
    ruled = getattr(hint, "cards_certain", False)  # cards fixed by the rule (tutor.advice.SettledHint)
    table = Table(box=None, pad_edge=False, show_edge=False, header_style=LABEL)
    table.add_column("move")
    table.add_column("card")
    table.add_column("win", justify="right")
    table.add_column("95%", justify="right")
    table.add_column("cards", justify="right")
    table.add_column("95%", justify="right")
    table.add_column("samples", justify="right")
    # where the search over the cards still to turn up chose the move (strategy fusion), its blind win chance
    # beside the clairvoyant one: "98% 98%" for both moves read as a tie the words then broke
    blind = differs_blind(candidates)
    if blind:
        table.add_column("blind", justify="right")
        table.add_column("95%", justify="right")
    for cand in candidates:
        best = cand.move == hint.best
        card = getattr(cand, "card", None)
        if card is None and state is not None:
            card = state.card_of(cand.move)
        if card is not None:
            what = card_text(card, symbols)
        elif cand.move.kind == "d":
            what = Text(move_deed(move_fact(state, cand.move)) if state is not None else "turn")
        else:
            what = Text("")
        seen = getattr(cand, "blind", None)
        ends = getattr(cand, "blind_interval", None)
        table.add_row(Text(str(cand.move), style=LABEL if best else ""), what,
                      f"{cand.win * 100:.0f}%", _interval_cell(cand), f"{cand.cards:.1f}", cards_interval_cell(cand, ruled),
                      _samples_cell(cand),
                      *([] if not blind else ["" if seen is None else f"{seen * 100:.0f}%",
                                              "" if ends is None else (f"{ends[0] * 100:.0f}-{ends[1] * 100:.0f}"
                                                                       if ends[0] != ends[1] else "exact")]))
    title = _label("Hint: ")
    title.append(describe_move(state, hint.best, symbols) if state is not None else str(hint.best), style=LABEL)
    reason = prose(hint.reason or "", symbols)
    return Group(title, table, reason)
