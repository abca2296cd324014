"""The replay viewer, driven headless: it steps both ways, jumps to the labelled moves and goes to a move."""

from __future__ import annotations

import asyncio

import pytest

from tutor.board import screen_text
from tutor.board.replay import ReplayApp, marked_moves
from tutor.deals import deal_for
from tutor.record import Record
from tutor.review import review
from tutor.rules import preset
from tutor.state import State


@pytest.fixture(scope="module")
def reviewed():
    """Deal 18 played by the greedy policy (82 moves), reviewed with few samples."""
    rules = preset("osmosis")
    deal = deal_for(18, rules)
    state, moves = State.initial(deal, rules), []
    while not state.over:
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    record = Record(rules, deal, moves)
    rev = review(record, samples=8, workers=1)
    return rev.annotated(), rev


def screens(record, rev, keys, width=80, height=50):
    app = ReplayApp(record, rev, symbols=True)
    out = []

    async def go():
        async with app.run_test(size=(width, height)) as pilot:
            await pilot.pause()
            out.append(screen_text(app))
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
                out.append(screen_text(app))

    asyncio.run(go())
    return out


def status(text: str) -> str:
    return next(line.strip() for line in text.splitlines() if line.strip().startswith("Move ") and " of " in line)


@pytest.mark.parametrize("width", [80, 60])
def test_replay_steps_both_ways(reviewed, width):
    record, rev = reviewed
    m = len(record.moves)
    stock = [f"Stock {len(s.stock)}" for s in record.states()]
    shown = screens(record, rev, ["right", "right", "left", "end", "left", "home"], width=width)
    assert status(shown[0]).startswith(f"Move 0 of {m}")
    assert status(shown[1]).startswith(f"Move 1 of {m}") and stock[1] in shown[1]
    assert status(shown[2]).startswith(f"Move 2 of {m}")
    assert status(shown[3]).startswith(f"Move 1 of {m}") and stock[1] in shown[3]
    assert status(shown[4]).startswith(f"Move {m} of {m}")
    assert status(shown[5]).startswith(f"Move {m - 1} of {m}")
    assert status(shown[6]).startswith(f"Move 0 of {m}") and "Stock 35" in shown[6]
    for text in shown:
        assert all(len(line) <= width for line in text.splitlines())


def test_n_and_p_jump_to_the_labelled_moves_and_critical_moments(reviewed):
    record, rev = reviewed
    marks = marked_moves(record, rev)
    assert marks and set(c.ply for c in rev.critical) <= set(marks)
    shown = screens(record, rev, ["n"] * (len(marks) + 1) + ["p", "p"])
    for i, mark in enumerate(marks, 1):
        assert status(shown[i]).startswith(f"Move {mark} of ")
    assert "no labelled move or critical moment after this one" in shown[len(marks) + 1]
    assert status(shown[-2]).startswith(f"Move {marks[-2]} of ")
    assert status(shown[-1]).startswith(f"Move {marks[-3]} of ")


def test_a_labelled_move_shows_its_label_glyph_comment_and_the_chart_cursor(reviewed):
    record, rev = reviewed
    worst = max((m for m in rev.moves if m.graded), key=lambda m: m.drop)
    glyph = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}[str(worst.label)]
    keys = ["g", *str(worst.ply), "enter"]
    text = screens(record, rev, keys)[-1]
    assert status(text).startswith(f"Move {worst.ply} of ")
    assert f"{worst.label} {glyph}" in text
    flat = " ".join(text.split())
    assert " ".join(worst.comment.split()[:6]) in flat
    assert f"▲ move {worst.ply}" in text
    assert "⁈ inaccuracy (?!), ? mistake, ⁇ blunder (??)" in flat


def test_g_with_a_number_out_of_range_goes_to_the_end_and_a_word_is_refused(reviewed):
    record, rev = reviewed
    shown = screens(record, rev, ["g", "9", "9", "9", "enter", "g", "x", "enter"])
    assert status(shown[5]).startswith(f"Move {len(record.moves)} of ")
    assert "'x' is not a move number" in shown[-1]


def test_a_record_without_a_review_still_steps(reviewed):
    record, _ = reviewed
    bare = Record(record.rules, record.deal, record.moves)
    shown = screens(bare, None, ["right", "n"])
    # no labelled move to jump to: the start does not offer n (it answered "no labelled move ... after this one")
    assert "The start: no move played yet. → steps on." in shown[0] and "n jumps" not in shown[0]
    assert status(shown[1]).startswith("Move 1 of ")
    assert "No win chances in this record" in shown[1]
    assert "no labelled move or critical moment after this one" in shown[2]


def chart_rows(text: str) -> list[str]:
    """The chart's rows of bars: the lines that start with a move number and hold bar cells."""
    return [line.strip() for line in text.splitlines()
            if line.strip()[:1].isdigit() and any(c in line for c in "▁▂▃▄▅▆▇█")]


def test_the_first_screen_draws_the_chart_as_wide_as_every_later_one(reviewed):
    record, rev = reviewed
    first, _, back = screens(record, rev, ["right", "left"])
    assert chart_rows(first) == chart_rows(back)
    # 82 moves in two rows at 80 columns, not a 30-column chart in four
    assert len(chart_rows(first)) == 2


def test_a_resized_terminal_lays_the_chart_out_again(reviewed):
    record, rev = reviewed
    app = ReplayApp(record, rev, symbols=True)
    out = []

    async def go():
        async with app.run_test(size=(100, 50)) as pilot:
            await pilot.pause()
            out.append(screen_text(app))
            await pilot.resize_terminal(60, 50)
            await pilot.pause()
            await pilot.pause()
            out.append(screen_text(app))

    asyncio.run(go())
    wide, narrow = out
    fresh = screens(record, rev, [], width=60)[0]
    assert chart_rows(narrow) == chart_rows(fresh) != chart_rows(wide)
    assert all(len(line) <= 60 for line in narrow.splitlines())


def test_a_critical_moment_names_its_kind_once(reviewed):
    record, rev = reviewed
    marks = marked_moves(record, rev)
    shown = screens(record, rev, ["n"] * len(marks))
    seen = set()
    for text in shown[1:]:
        flat = " ".join(text.split())
        for kind in ("luck", "error"):
            if f"Critical moment, {kind}: " in flat:
                seen.add(kind)
        assert "luck: luck" not in flat and "Critical moment (" not in flat
    assert seen == {str(m.kind) for m in rev.critical}


def test_an_ungraded_move_gets_no_label_and_a_lucky_one_says_which_chance_is_which(reviewed):
    record, rev = reviewed
    ungraded = next(m for m in rev.moves if not m.graded and m.luck is not None)
    text = screens(record, rev, ["g", *str(ungraded.ply), "enter"])[-1]
    flat = " ".join(text.split())
    head = next(line for line in text.splitlines() if line.strip().startswith(f"Move {ungraded.ply}: "))
    assert " best" not in head  # not graded, so not "best"
    kind = "The only legal move" if ungraded.forced else "A free play"
    assert "Not graded; its win chance is from before the cards it turned up were seen." in flat
    assert flat.count(kind) == 1  # named once, by the comment
    assert ") (" not in flat


def test_g_refuses_digits_int_cannot_read_and_overlong_numbers_with_one_line(reviewed):
    """'²' passes isdigit() and 5000 ones exceed int()'s limit: both crashed the viewer with a traceback."""
    from textual.widgets import Input

    record, rev = reviewed
    m = len(record.moves)
    app = ReplayApp(record, rev, symbols=True)
    out = []

    async def go():
        async with app.run_test(size=(80, 50)) as pilot:
            await pilot.press("right")
            for typed in ("²", "1" * 5000, str(m + 1)):
                await pilot.press("g")
                app.query_one("#goto", Input).value = typed
                await pilot.press("enter")
                await pilot.pause()
                out.append(" ".join(screen_text(app).split()))
            await pilot.press("right")
            await pilot.pause()
            out.append(screen_text(app))

    asyncio.run(go())
    assert f"'²' is not a move number: expected 0 to {m}" in out[0] and "Move 1 of " in out[0]
    assert f"characters) is not a move number: expected 0 to {m}" in out[1] and "Move 1 of " in out[1]
    # a number past the end goes to the last move and says so, not in silence
    assert f"There is no move {m + 1}: this is the last one, move {m}." in out[2] and f"Move {m} of " in out[2]
    assert status(out[3]).startswith(f"Move {m} of ")  # the viewer goes on (at the end, right stays there)


def test_home_and_end_go_to_the_ends_when_the_board_is_taller_than_the_screen(reviewed):
    record, rev = reviewed
    m = len(record.moves)
    shown = screens(record, rev, ["right", "end", "home", "g", "1", "home", "2", "enter"], width=80, height=24)
    assert status(shown[2]).startswith(f"Move {m} of {m}")
    assert status(shown[3]).startswith(f"Move 0 of {m}")
    assert status(shown[-1]).startswith(f"Move 21 of {m}")  # in the box, Home moves the cursor


def test_a_move_number_typed_at_once_after_g_goes_into_the_box(reviewed):
    # "g 1 2 Enter" at once stayed at move 0 with the box open and empty (the keys went to the viewer first)
    from test_board import burst

    record, rev = reviewed
    app = ReplayApp(record, rev, symbols=True)
    assert burst(app, (("g", "g"), ("1", "1"), ("2", "2"), ("enter", "\r")), look=lambda app: app.ply) == 12
    # an empty box: Enter just closes it, no "'' is not a move number"
    shown = burst(ReplayApp(record, rev, symbols=True, start=12), (), after=["g", "enter"], look=screen_text)
    assert "is not a move number" not in shown and status(shown).startswith("Move 12 of ")


def test_ctrl_q_still_quits_the_viewer_while_the_g_box_is_open(reviewed):
    from test_board import quits_with_the_box_open

    record, rev = reviewed
    assert quits_with_the_box_open(ReplayApp(record, rev, symbols=True), ["g", "q"], "#goto") == ("q", False)


def test_each_win_chance_in_the_viewer_carries_its_interval_and_deals(reviewed):
    """"Win chance 36% after it, 39% with the best move." gave neither an interval nor the number of deals."""
    record, rev = reviewed
    graded = next(m for m in rev.moves if m.graded and not m.exact)
    shown = screens(record, rev, ["g", *str(graded.ply), "enter"], height=80)
    text = " ".join(shown[-1].split())
    lo, hi = graded.win_after_interval
    assert (f"Win chance {graded.win_after * 100:.0f}% (95%: {lo * 100:.0f}-{hi * 100:.0f}%) after it"
            in text), text
    assert f"with the best move, on {graded.samples} deals." in text or "with the best move, before" in text


def test_an_annotated_record_puts_no_best_on_a_move_its_review_did_not_grade(reviewed):
    """Without a review beside it, the viewer showed "best" on a free play whose annotation says graded: false
    (line mode and the viewer of the plain record show no label there)."""
    record, rev = reviewed
    free = next(m for m in rev.moves if not m.graded)
    assert record.annotations[free.ply - 1].get("graded") is False
    shown = screens(record, None, ["g", *str(free.ply), "enter"], height=80)
    head = next(line for line in shown[-1].splitlines() if line.strip().startswith(f"Move {free.ply}:"))
    assert "best" not in head


def test_home_and_end_close_the_help_and_leave_the_move_as_it_was(reviewed):
    record, rev = reviewed
    shown = screens(record, rev, ["g", "4", "0", "enter", "question_mark", "end", "question_mark", "home"])
    assert status(shown[4]).startswith("Move 40 of")
    assert status(shown[6]).startswith("Move 40 of") and "Any key closes this help" not in shown[6]
    assert status(shown[8]).startswith("Move 40 of") and "Any key closes this help" not in shown[8]


def test_a_key_the_viewer_has_no_use_for_and_a_step_past_either_end_say_so(reviewed):
    """d, x and space did nothing in the viewer without a word, nor did → on the last move or ← before the
    first (n at the end already answered)."""
    record, rev = reviewed
    m = len(record.moves)
    screen = screens(record, rev, ["left", "x", "space", "end", "right", "left"])
    shown = [" ".join(s.split()) for s in screen]
    assert "This is the start, before the first move: → steps on." in shown[1]
    assert "x is not a key of the viewer: ? lists the keys (arrows, Home, End, n, p, g, q)." in shown[2]
    assert "space is not a key of the viewer" in shown[3]
    assert f"This is the last move, move {m}: ← steps back, Home goes to the start." in shown[5]
    assert status(screen[6]).startswith(f"Move {m - 1} of {m}") and "This is the last move" not in shown[6]
