"""The rich renderables: cards, positions, deals and hints, as text without colour."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from builders import make_deal, osmosis, position
from rich.console import Console

import tutor
from tutor.cards import parse_card
from tutor.deals import deal_for
from tutor.notation import Move, parse_moves
from tutor.render import card_text, render_deal, render_hint, render_state
from tutor.rules import preset
from tutor.state import State
from tutor.talon import waste_fan


def text_of(renderable, width: int = 80) -> str:
    console = Console(width=width, no_color=True, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def test_card_text_shows_the_symbol_and_colours_red_suits_only():
    heart = card_text(parse_card("7h"))
    spade = card_text(parse_card("KS"))
    assert heart.plain == "7♥"
    assert "red" in str(heart.style)
    assert spade.plain == "K♠"
    assert "red" not in str(spade.style)


def test_card_text_without_symbols_uses_the_two_letter_name():
    assert card_text(parse_card("10d"), symbols=False).plain == "TD"


def test_initial_position_shows_reserve_tops_and_backs_for_face_down_cards():
    out = text_of(render_state(position(1), symbols=False))
    # Deal 1: reserve tops AD QC KH 3H, each with three face-down cards under it.
    assert "r1 ▒▒ ▒▒ ▒▒ AD" in out
    assert "r4 ▒▒ ▒▒ ▒▒ 3H" in out
    assert "JD" not in out  # face down at the bottom of pile 1
    assert "Score 1/52" in out
    assert "Stock 35" in out
    assert "Moves    d turn" in out


def test_reveal_shows_the_face_down_reserve_cards_and_the_stock():
    out = text_of(render_state(position(1), reveal=True, symbols=False), width=200)
    assert "r1 JD 5D KD AD" in out
    assert "KS 9D QD JS" in out  # the stock in turning order


def test_peek_shows_every_reserve_card_face_up():
    out = text_of(render_state(position(1, rules="peek"), symbols=False))
    assert "r2 2D 7H KC QC" in out
    assert "▒▒" not in out


def test_foundation_rows_line_ranks_up_and_name_the_openers_of_the_next_row():
    deal = make_deal(["JD 5D KD 2H", "2D 7H KC QC", "9H 7C 9S KH", "JC 5H 5S 3H"], "2S", "AS 3S 4S")
    state = position(deal, "r1 d w")  # 2H opens row 2; 4S goes to row 1
    out = text_of(render_state(state, symbols=False))
    lines = out.splitlines()
    row1 = next(line for line in lines if line.startswith("  1 S"))
    row2 = next(line for line in lines if line.startswith("  2 H"))
    header = next(line for line in lines if line.strip().startswith("A  2  3"))
    # Each rank sits under its column header, so the osmosis filter is visible.
    assert row1[header.index("2")] == "2" and row1[header.index("4")] == "4"
    assert row2[header.index("2")] == "2"
    assert "opened by 2D or 2C" in out
    assert "starting rank 2" in out


def test_waste_shows_the_cards_of_the_last_turn_and_counts_the_rest():
    deal = deal_for(1, preset("osmosis"))
    moves = parse_moves("d d")
    states = [State.initial(deal, preset("osmosis"))]
    for m in moves:
        states.append(states[-1].apply(m))
    out = text_of(render_state(states[-1], symbols=False, fan=waste_fan(states, moves)))
    assert "Waste    3 more, then JS AS AH (top)" in out


def test_waste_fan_shrinks_as_cards_of_the_turn_are_played_and_resets_on_redeal():
    deal = make_deal(["JD 5D KD AD", "2D 7H KC QC", "9H 7C 9S KH", "JC 5H 5S 3H"], "2S", "9D 3S 4S")
    rules = preset("osmosis")
    states = [State.initial(deal, rules)]
    moves: list[Move] = []

    def push(token):
        moves.append(Move.parse(token))
        states.append(states[-1].apply(moves[-1]))

    push("d")
    assert waste_fan(states, moves) == 3
    push("w")  # 4S
    assert waste_fan(states, moves) == 2
    push("w")  # 3S
    assert waste_fan(states, moves) == 1
    while states[-1].stock:
        push("d")
    push("d")  # the redeal: the waste is empty
    assert states[-1].pos == 0
    assert waste_fan(states, moves) == 1


def test_a_position_fits_an_80_column_terminal():
    state = position(1, "d d d d d d d d d d d d", rules="peek")
    narrow = text_of(render_state(state, symbols=True), width=80)
    wide = text_of(render_state(state, symbols=True), width=200)
    assert [line.rstrip() for line in narrow.splitlines()] == [line.rstrip() for line in wide.splitlines()]


def test_over_position_lists_no_moves_and_says_blocked():
    deal = make_deal(["JD 5D KD AD", "2D 7H KC QC", "9H 7C 9S KH", "JC 5H 5S 3H"], "2S")
    state = State.initial(deal, preset("limited"))
    while not state.over:
        state = state.apply(state.legal_moves()[0])
    out = text_of(render_state(state, symbols=False))
    assert "blocked" in out
    assert "Moves    none" in out


def test_render_deal_hides_the_talon_unless_revealed():
    deal = deal_for(1, preset("osmosis"))
    hidden = text_of(render_deal(deal, preset("osmosis"), symbols=False))
    shown = text_of(render_deal(deal, preset("osmosis"), reveal=True, symbols=False))
    assert "Base     2S" in hidden and "Deal 1" in hidden
    assert "35 cards face down" in hidden and "KS" not in hidden
    assert "KS 9D QD" in shown and "JD 5D KD AD" in shown


def test_render_deal_without_reserve():
    rules = preset("bridesmaids")
    out = text_of(render_deal(deal_for(1, rules), rules, symbols=False))
    assert "Reserve" not in out
    assert "51 cards face down" in out


@dataclass
class _Candidate:
    move: Move
    win: float
    cards: float


@dataclass
class _Hint:
    best: Move
    candidates: list
    reason: str


def test_render_hint_lists_the_best_move_first_with_card_win_and_cards():
    state = position(1, "d d")
    hint = _Hint(Move.parse("d"), [_Candidate(Move.parse("d"), 0.34, 41.25)], "Nothing is playable: turn the talon.")
    out = text_of(render_hint(hint, state, symbols=False))
    assert "Hint: d (turn the talon)" in out
    row = next(line for line in out.splitlines() if line.startswith("d "))
    assert "turn" in row and "34%" in row and "41.2" in row
    assert "Nothing is playable: turn the talon." in out


def test_render_hint_orders_candidates_best_first():
    deal = make_deal(["JD 5D KD AD", "2D 7H KC QC", "9H 7C 9S KH", "JC 5H 5S 2H"], "2S")
    state = State.initial(deal, preset("osmosis"))
    r4, d = Move.parse("r4"), Move.parse("d")
    hint = _Hint(d, [_Candidate(r4, 0.12, 30.0), _Candidate(d, 0.34, 38.0)], "Wait before opening row 2.")
    lines = text_of(render_hint(hint, state, symbols=False)).splitlines()
    body = [line for line in lines if line.startswith(("d ", "r4 "))]
    assert body[0].startswith("d ") and body[1].startswith("r4 ")
    assert "2H" in body[1] and "12%" in body[1]


def test_only_render_and_the_cli_import_rich_or_click():
    root = Path(tutor.__file__).parent
    pattern = re.compile(r"^\s*(import|from)\s+(rich|click)\b", re.MULTILINE)
    offenders = [p.name for p in root.glob("*.py")
                 if p.name not in ("render.py", "table.py") and pattern.search(p.read_text())]
    assert offenders == []
    assert pattern.search((root / "render.py").read_text())


def test_the_move_list_play_and_replay_spell_a_move_as_the_one_describer_does():
    from tutor.board.widgets import HintView
    from tutor.narrate.moves import move_brief, move_heading
    from tutor.render import move_line, move_text

    redeal = position(1, "d d d d d w")  # 7S played; then turn until the stock is empty: d redeals
    while redeal.pos < len(redeal.talon):
        redeal = redeal.apply(Move.parse("d"))
    assert redeal.pos == len(redeal.talon) and redeal.can_redeal()
    for state in (position(1), position(1, "d d d d d"), redeal):
        for move in state.legal_moves():
            for symbols in (False, True):
                assert move_text(state, move, symbols).plain == move_brief(state, move, symbols)
                assert move_line(7, state, move, symbols).plain == move_heading(7, state, move, symbols)
    assert move_brief(redeal, Move.parse("d")) == "d redeal"
    assert move_heading(3, position(1, "d d d d d"), Move.parse("w")) == "Move 3: w 7S"
    # The board's hint panel names a redeal as osmosis hint does in its title, as the move list does in its row.
    from tutor.hints import Candidate, Hint

    hint = Hint(Move.parse("d"), [Candidate(Move.parse("d"), 0.5, 30.0, samples=8)], "")
    console = Console(width=60, color_system=None, record=True)
    console.print(HintView(hint, redeal, symbols=False))
    rows = console.export_text().splitlines()
    assert rows[0].startswith("Hint: d (redeal the waste)")  # as osmosis hint says it
    assert any(line.startswith("d     redeal") for line in rows[2:])


def _words_whole(text: str, words: list[str]) -> list[str]:
    """The words of ``words`` that do not appear whole in ``text`` (broken over two lines, or cut)."""
    return [w for w in words if w not in text]


@pytest.mark.parametrize("columns", ["40", "60", "70", "80"])
def test_the_variant_names_you_type_are_never_broken_inside(home, columns):
    """At 70 columns rich narrowed every column evenly and printed "treasure-tro" over "ve"."""
    from tutor.rules import PRESETS

    text = osmosis(["variants"], home, env={"COLUMNS": columns}).stdout
    names = list(PRESETS) + ["treasure-trove", "open-osmosis", "single-card"]
    assert _words_whole(text, names) == []
    assert max(len(line) for line in text.splitlines()) <= int(columns)


def test_a_table_too_narrow_for_its_words_prints_each_row_as_a_record():
    from rich.console import Console

    from tutor.render import Table

    table = Table(box=None, pad_edge=False, header_style="bold")
    for col in ("drill", "variant", "result", "answers"):
        table.add_column(col, no_wrap=True)
    table.add_row("12", "treasure-trove", "unfinished", "3/4")
    table.add_row("13", "bridesmaids", "won", "0/0")
    wide, narrow = Console(width=80, file=io.StringIO()), Console(width=30, file=io.StringIO())
    wide.print(table)
    narrow.print(table)
    assert wide.file.getvalue().splitlines()[0].split() == ["drill", "variant", "result", "answers"]
    assert narrow.file.getvalue().splitlines() == [  # a heading stays with its value
        "drill 12",
        "  variant treasure-trove",
        "  result unfinished",
        "  answers 3/4",
        "drill 13  variant bridesmaids",
        "  result won  answers 0/0",
    ]


@pytest.mark.parametrize("columns", [40, 45])
def test_the_foundation_grid_keeps_its_ranks_in_line_on_a_narrow_terminal(columns):
    """Line mode drew the grid 46 columns wide at any width: at 40 "Q  K" went onto lines of their own."""
    state = position(23, "r2 d d d w w r3 d d d w w r1 w r2 w w r3 w")
    console = Console(width=columns, file=io.StringIO(), color_system=None)
    console.print(render_state(state, symbols=False))
    lines = console.file.getvalue().splitlines()
    top = lines.index("Foundations  (starting rank 9)")
    header, rows = lines[top + 1], lines[top + 2:top + 5]
    assert header.split() == list("A23456789TJQK")
    assert rows[0].split() == ["1", "H", "·", "·", "·", "4", "5", "6", "7", "·", "9", "·", "J", "Q", "·"]
    for row in rows:  # every rank under its heading
        assert all(header[i] != " " for i, ch in enumerate(row) if i >= 7 and ch not in " ")
    assert max(len(line) for line in lines[top:top + 6]) <= columns
    wide = Console(width=80, file=io.StringIO(), color_system=None)
    wide.print(render_state(state, symbols=False))
    assert "4H 5H 6H 7H" in wide.file.getvalue()  # a card a cell where the grid fits


def test_a_column_that_does_not_wrap_is_never_cut_to_fit():
    """Narrowing the widest columns first must stop at a no-wrap column's widest line, not its widest word:
    "2026-12-05 11:02 (U" was cut where rich itself wraps the other column."""
    from tutor.table import Table

    table = Table(box=None, pad_edge=False)
    table.add_column("variant")
    table.add_column("date", no_wrap=True)
    table.add_row("turn 1, 3 passes, 4 piles, open", "2026-12-05 11:02 (UTC)")
    console = Console(width=40, file=io.StringIO())
    console.print(table)
    assert "2026-12-05 11:02 (UTC)" in console.file.getvalue()


def test_hint_records_keep_each_interval_with_its_figure(home):
    """At 30 columns the two "95%" columns read as "win 59%  95% 45-72  cards 48.1": the win's interval
    beside the cards."""
    text = osmosis(["hint", "5", "--moves", "d d"], home, env={"COLUMNS": "30"}).stdout
    assert "  win 59% (95% 45-72)" in text and "  cards 48.1 (95% 46-50)" in text
    assert max(len(line) for line in text.splitlines()) <= 30
