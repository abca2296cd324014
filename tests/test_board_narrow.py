"""The board on a narrow terminal: every foundation card, reserve top and the waste stay in view, or it says why not."""

from __future__ import annotations

import asyncio
import re

import pytest
from test_board import flat, make_session, screens

from tutor.board import screen_text
from tutor.board.play import BoardApp
from tutor.board.replay import ReplayApp
from tutor.board.widgets import MIN_COLUMNS, HintView, Keys, MemoryView, TableView
from tutor.cards import RANKS, SUIT_SYMBOLS
from tutor.knowledge import observe
from tutor.record import Record
from tutor.render import card_name
from tutor.talon import memory, waste_fan

WIDTHS = [MIN_COLUMNS, 40, 60, 80, 120]
ROW = re.compile(r"^\s*([1-4]) ([♠♥♦♣])\s+(.*)$")


def greedy(session, plies):
    """Deal's first legal move ``plies`` times: on deal 17, 60 of them start all four rows (31 cards, kings too)."""
    game = session.game
    for _ in range(plies):
        game.push(game.state.legal_moves()[0])
    session.autosave_now()
    return session


def board(session, width, height=60, keys=()) -> tuple[BoardApp, str]:
    """The board after ``keys`` (:func:`test_board.screens`), and the app, to look into its hints."""
    app = BoardApp(session, symbols=True)
    return app, screens(session, keys, width, height, app=app)[-1]


def foundation_rows(text: str) -> dict[int, tuple[str, list[str]]]:
    """The foundation rows on the screen: row number -> (suit symbol, its 13 cells with the suit taken off)."""
    rows = {}
    for line in text.splitlines():
        found = ROW.match(line)
        if found and found.group(1) not in rows:
            suit = found.group(2)
            cells = found.group(3).split()[:13]
            rows[int(found.group(1))] = (suit, [c.replace(suit, "") for c in cells])
    return rows


def check_table(text: str, state) -> None:
    """Every card of ``state``'s foundations, every reserve top and the waste's top are on the screen, whole."""
    rows = foundation_rows(text)
    assert len(rows) == len(state.rows)
    for k, suit in enumerate(state.rows):
        symbol, cells = rows[k + 1]
        assert symbol == SUIT_SYMBOLS[suit]
        assert cells == [RANKS[r] if state.found[suit] >> r & 1 else "·" for r in range(13)], (k, cells)
    assert re.search(" +".join(RANKS), text)  # the rank header, whole
    for i, pile in enumerate(state.reserves):
        if pile:
            assert re.search(rf"\b{i + 1}  {re.escape(card_name(pile[-1]))}", text), (i, pile)
    if state.waste:
        assert f"{card_name(state.waste[-1])} (top)" in text
    assert f"Stock {len(state.stock)}" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_every_foundation_card_reserve_top_and_the_waste_are_in_view(tmp_path, width):
    session = greedy(make_session(tmp_path, number=17), 60)
    state = session.game.state
    assert len(state.rows) == 4 and state.score == 31  # the king column is filled: the widest rows
    _, text = board(session, width)
    check_table(text, state)
    assert "Move 60" in flat(text) and "Score 31/52" in flat(text)  # the status line is not cut either
    assert "too narrow" not in text


@pytest.mark.parametrize("width", WIDTHS)
def test_the_row_a_card_would_open_is_named_whole(tmp_path, width):
    session = make_session(tmp_path, number=1)
    _, text = board(session, width)
    assert "opened by" in text
    state = session.game.state
    for suit in range(4):
        if suit not in state.rows:
            assert card_name(suit * 13 + state.start_rank - 1) in text.split("opened by", 1)[1]


def test_below_the_narrowest_width_one_line_says_how_many_columns_are_needed(tmp_path):
    _, text = board(greedy(make_session(tmp_path, number=17), 60), MIN_COLUMNS - 4)
    said = flat(text)
    assert f"The terminal is too narrow: the board needs {MIN_COLUMNS} columns, it has {MIN_COLUMNS - 4}." in said


def test_on_a_tiny_terminal_the_too_narrow_line_and_the_status_stay_in_view(tmp_path):
    # at 20x8 the wrapped key bar filled the screen ("1-4 reserve  w w / d turn / ..."), the status and the
    # too-narrow line pushed out of view: below 14 rows the key bar is left out (the status says "? help")
    _, text = board(make_session(tmp_path, number=18), 20, height=8)
    said = flat(text)
    assert f"the board needs {MIN_COLUMNS} columns" in said and "Move 0" in said and "? help" in said
    assert "reserve" not in said
    _, roomy = board(make_session(tmp_path / "roomy", number=18), 80, height=40)
    assert "1-4 reserve" in roomy


@pytest.mark.parametrize("width", [40, 60])
def test_the_replay_shows_every_foundation_card_at_narrow_widths(tmp_path, width):
    session = greedy(make_session(tmp_path, number=17), 60)
    record = Record(session.game.rules, session.game.deal, list(session.game.moves))
    app = ReplayApp(record, None, symbols=True)
    out = []

    async def go():
        async with app.run_test(size=(width, 60)) as pilot:
            await pilot.press("end")
            await pilot.pause()
            out.append(screen_text(app))

    asyncio.run(go())
    check_table(out[0], session.game.state)


@pytest.mark.parametrize("size", [(40, 60), (60, 24), (120, 50)])
def test_every_figure_of_the_hint_is_in_view(tmp_path, size):
    """At 60x24 (a scroll bar) and 120 (the panel beside the table) the table's last column was cut."""
    app, text = board(make_session(tmp_path, number=7), *size, keys=["h"])
    (hint,) = app.hints.values()
    said = flat(text)
    assert "Hint: r2 (Q♠)" in said and "the same ones for every move." in said
    for cand in hint.ranked():
        assert f"{cand.win * 100:.0f}%" in said and str(cand.samples) in said
        lo, hi = cand.cards_interval
        assert f"{lo:.0f}-{hi:.0f}" in said


def test_no_panel_draws_a_line_wider_than_it_is_given(tmp_path):
    """Every width from the narrowest the board takes: a line too long would be cut silently by the terminal."""
    from tutor.advice import advise

    states = [greedy(make_session(tmp_path / "a", number=17), 60).game,
              make_session(tmp_path / "b", number=1).game,
              greedy(make_session(tmp_path / "c", number=3, variant="peek"), 20).game,
              make_session(tmp_path / "d", number=4, variant="bridesmaids").game]  # its one line, no reserve
    hint = advise(observe(states[1].state))
    from tutor.board.screens import KEYS

    for width in range(MIN_COLUMNS - 4, 121):
        for game in states:
            views = [TableView(game.state, True, waste_fan(game.states, game.moves)),
                     TableView(game.state, False, 3), MemoryView(memory(observe(game.state)), True)]
            for view in views:
                assert all(len(line.plain) <= width for line in view.lines(width)), (width, type(view))
        for view in (HintView(hint, states[1].state, True), Keys(KEYS)):
            assert all(len(line.plain) <= width for line in view.lines(width)), (width, type(view))


@pytest.mark.parametrize("width", [MIN_COLUMNS, 40])
def test_every_key_of_the_help_wraps_under_its_text(tmp_path, width):
    """``: or /`` is a key of three words: its line went on under the key, at column 0."""
    from test_board import screens

    text = screens(make_session(tmp_path), ["question_mark"], width=width, height=40)[1]
    lines = [line.split("│")[1] for line in text.splitlines() if line.count("│") >= 2]  # the help's box
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith(": or /"))
    follow = lines[at + 1]
    assert follow.startswith(" " * 9) and "and Enter" in flat(" ".join(lines[at:at + 3]))


def test_at_twenty_columns_no_figure_or_word_is_cut(tmp_path):
    """Lines were built for at least 20 columns and cut to the 18 inside the padding: "Score 1/5" for 1/52,
    "The terminal is to" for "too narrow"."""
    _, text = board(make_session(tmp_path, number=8), 20, height=12)
    said = flat(text)
    assert "Score 1/52" in said and "Stock 35" in said
    assert f"The terminal is too narrow: the board needs {MIN_COLUMNS} columns, it has 20." in said
    assert all(len(line.rstrip()) <= 20 for line in text.splitlines())
