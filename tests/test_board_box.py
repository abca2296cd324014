"""The typed boxes (the board's : box, the viewer's g box): keys sent at once after Enter are the board's, the
scroll keys keep working after a box closes, and a help taller than the terminal scrolls (a board audit)."""

from __future__ import annotations

import asyncio

from test_board import burst, make_session
from test_board_replay import reviewed  # noqa: F401 - the module's fixture, shared

from tutor.board import screen_text
from tutor.board.play import BoardApp
from tutor.board.replay import ReplayApp
from tutor.board.screens import TextScreen

KEY_CHARS = {"colon": ":", "space": " ", "enter": "\r", "right": None, "left": None}


def keys(*names: str) -> list[tuple[str, str | None]]:
    return [(k, KEY_CHARS.get(k, k)) for k in names]


def test_keys_sent_at_once_after_enter_in_the_colon_box_are_the_boards(tmp_path):
    # ": d d Enter d" played d d (the last d went into the box, which had the focus until it took its Enter)
    session = make_session(tmp_path, 18)
    held = burst(BoardApp(session, symbols=True), keys("colon", "d", "space", "d", "enter", "d"))
    assert [str(m) for m in session.game.moves] == ["d", "d", "d"] and held == "d d"  # the line sent, kept
    # ": u Enter d d" after a d: the undo, then the two turns (they were swallowed by the box)
    session = make_session(tmp_path / "undo", 18)
    burst(BoardApp(session, symbols=True), keys("d", "colon", "u", "enter", "d", "d"))
    assert [str(m) for m in session.game.moves] == ["d", "d"]
    # ": d Enter q" quits (the q went into the closed box)
    app = BoardApp(make_session(tmp_path / "quit", 18), symbols=True)
    assert burst(app, keys("colon", "d", "enter", "q"), look=lambda app: app.is_running) is False


def test_the_colon_box_edits_with_backspace_and_the_cursor_keys(tmp_path):
    session = make_session(tmp_path, 18)
    burst(BoardApp(session, symbols=True), keys("colon", "w", "x", "backspace", "backspace", "d", "home", "d",
                                                "space", "end", "space", "d", "enter"))
    # "wx" rubbed out, "d", then "d " typed at its start and " d" at its end: "d d d"
    assert [str(m) for m in session.game.moves] == ["d", "d", "d"]


def test_keys_sent_at_once_after_enter_in_the_g_box_are_the_viewers(reviewed):  # noqa: F811 - the fixture
    record, rev = reviewed

    def ply(*names):
        return burst(ReplayApp(record, rev, symbols=True), keys(*names), look=lambda app: app.ply)

    assert ply("g", "1", "2", "enter", "right") == 13  # the arrow was the box's: it stayed at 12
    assert ply("g", "1", "2", "enter", "g", "9", "enter") == 9  # "'12g9' is not a move number"
    assert ply("right", "right", "right", "g", "5", "enter", "left") == 4
    app = ReplayApp(record, rev, symbols=True)
    assert burst(app, keys("g", "1", "2", "enter", "q"), look=lambda app: app.is_running) is False


def _scrolled(app, presses, size, look=lambda app: None):
    out = []

    async def go():
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for key in presses:
                await pilot.press(key)
                await pilot.pause()
            out.append(app.query_one("#main").scroll_y)
            look(app)

    asyncio.run(go())
    return out[0]


def test_the_scroll_keys_still_scroll_the_board_after_a_box_closes(tmp_path, reviewed):  # noqa: F811
    # the box's closing set the focus to nothing: PageDown no longer reached the waste below the fold
    assert _scrolled(BoardApp(make_session(tmp_path, 1), symbols=True), ["pagedown"], (40, 12)) > 0
    for closing in (["colon", "escape"], ["colon", "d", "enter"]):
        app = BoardApp(make_session(tmp_path / closing[-1], 1), symbols=True)
        assert _scrolled(app, [*closing, "pagedown"], (40, 12)) > 0, closing
    record, rev = reviewed
    assert _scrolled(ReplayApp(record, rev, symbols=True), ["g", "3", "enter", "pagedown"], (40, 12)) > 0


def test_a_help_taller_than_the_terminal_scrolls_with_the_arrows_and_closes_with_any_other_key(tmp_path):
    app = BoardApp(make_session(tmp_path, 1), symbols=True)
    seen = []

    async def go():
        async with app.run_test(size=(40, 12)) as pilot:
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, TextScreen)
            await pilot.press("pagedown", "pagedown", "pagedown", "down")  # the help's box: 10 of 12 rows
            await pilot.pause()
            seen.append(isinstance(app.screen, TextScreen))
            seen.append("Any key closes this help." in screen_text(app))
            await pilot.press("x")
            await pilot.pause()
            seen.append(isinstance(app.screen, TextScreen))

    asyncio.run(go())
    assert seen == [True, True, False]


def test_the_viewers_status_keeps_move_n_of_m_in_view_on_a_short_terminal(reviewed):  # noqa: F811
    # at 34x10, "g 999 Enter": the end sentence and the message grew the status to 8 of 10 rows, and at 30x8
    # pushed "Move N of M" off the screen
    from test_board_replay import screens, status

    record, rev = reviewed
    m = len(record.moves)
    for width, height in ((34, 10), (30, 8), (40, 12)):
        shown = screens(record, rev, ["g", "9", "9", "9", "enter"], width=width, height=height)[-1]
        assert status(shown).startswith(f"Move {m} of {m}"), (width, height)
        assert "There is no" in shown, (width, height)  # what it says, at the top of the note if not there


def test_home_end_and_the_arrows_edit_the_colon_box_and_leave_the_board_where_it_is(tmp_path):
    # at 40x12 the scroll area has the focus: Home in the box also scrolled the board back to its top
    app = BoardApp(make_session(tmp_path, 18), symbols=True)
    held = []
    presses = ["pagedown", "colon", "d", "left", "right", "end", "space", "d", "home", "d", "space"]
    scrolled = _scrolled(app, presses, (40, 12), look=lambda app: held.append(app.query_one("#prompt").value))
    assert scrolled > 0 and held == ["d d d"]
    # with the box closed they scroll the board as before
    assert _scrolled(BoardApp(make_session(tmp_path / "scroll", 1), symbols=True), ["pagedown", "home"],
                     (40, 12)) == 0
