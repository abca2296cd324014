"""The full-screen board, driven headless with Textual's pilot: keys in, screen text out."""

from __future__ import annotations

import asyncio
import io
import random

import click
import pytest
from rich.console import Console
from rich.style import Style

from tutor.board import screen_text
from tutor.board.play import BoardApp
from tutor.cli import main
from tutor.cli.saves import GameFiles
from tutor.cli.session import Session
from tutor.notation import WASTE
from tutor.record import Game, load_record
from tutor.talon import turns_to_play

WIDTHS = [80, 60]


def make_session(tmp_path, number=1, tutor=False, variant="osmosis"):
    ctx = click.Context(main, obj={"console": Console(file=io.StringIO(), width=80)})
    game = Game.new(number, variant)
    return Session(ctx, game, GameFiles(game, tmp_path, "game"), tutor, 10.0)


async def settle(app: BoardApp, pilot) -> None:
    """Wait until the board has nothing left to do: its workers (the hints) finished and every message they
    posted handled. One pause after the workers was not always enough on a loaded machine (the hint's words
    came a frame later, under pytest-xdist's second process)."""
    for _ in range(400):
        await app.workers.wait_for_complete()
        await pilot.pause(0.05)
        if not app.workers._workers and app.message_queue_size == 0 and app.screen.message_queue_size == 0:
            break
    await pilot.pause()


def screens(session, keys, width=80, height=40, app=None) -> list[str]:
    """Press ``keys`` on one board (waiting for hints to finish); the screen text before and after each key.
    ``app``: the board to run (a new one on ``session`` if None), for a test that looks into it after."""
    app = app or BoardApp(session, symbols=True)
    out = []

    async def go():
        async with app.run_test(size=(width, height)) as pilot:
            await pilot.pause()
            out.append(screen_text(app))
            for key in keys:
                await pilot.press(key)
                await settle(app, pilot)
                out.append(screen_text(app))

    asyncio.run(go())
    return out


def typed(session, keys, width=80, height=50) -> str:
    """Send ``keys`` as key events all at once (the app handles them in order), then wait; the screen after."""
    from textual import events

    app = BoardApp(session, symbols=True)
    out = []

    async def go():
        async with app.run_test(size=(width, height)) as pilot:
            await pilot.pause()
            for key in keys:
                app._driver.send_message(events.Key(key, key if len(key) == 1 else None))
            for _ in range(200):
                await pilot.pause(0.05)
                if app._driver is not None and app.message_queue_size == 0 and app.screen.message_queue_size == 0:
                    break
            await pilot.pause()
            out.append(screen_text(app))

    asyncio.run(go())
    return out[0]


def run(session, keys, width=80, height=40, check=None):
    """Press ``keys``; the screen before the first and after the last."""
    shown = screens(session, keys, width, height)
    return shown[0], shown[-1], None


def flat(text: str) -> str:
    """The screen's words with line breaks, box borders and runs of spaces as single spaces."""
    return " ".join(text.translate(str.maketrans("│╭╮╰╯─", "      ")).split())


def unwrapped(text: str) -> str:
    """The screen's text with every space and line break taken out: a long file name wraps where the screen's
    width falls in it (before its last full stop in one temporary folder, not in another), and this compares
    what was said whatever the length of the test's folder."""
    return "".join(flat(text).split())


def says(screen: str, words: str) -> bool:
    """Whether ``screen`` says ``words``, however the screen wrapped them."""
    return unwrapped(words) in unwrapped(screen)


def key_of(move) -> str:
    return {"d": "d", "w": "w"}.get(str(move), str(move)[1:])


def status_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.strip().startswith("Move ") and "Score" in line)


@pytest.mark.parametrize("width", WIDTHS)
def test_pressing_d_once_on_deal_one_turns_three_cards(tmp_path, width):
    before, after, app = run(make_session(tmp_path), ["d"], width=width)
    assert "Stock 35" in status_line(before) and "Move 0" in status_line(before)
    assert "Stock 32" in status_line(after) and "Move 1 " in status_line(after)
    assert "Waste  K♠ 9♦ Q♦ (top)   Stock 32" in after
    assert [str(m) for m in load_record(tmp_path / "game.json").moves] == ["d"]  # autosaved as line mode does


@pytest.mark.parametrize("width", WIDTHS)
def test_the_board_shows_reserve_rows_under_a_rank_header_and_the_memory(tmp_path, width):
    _, after, _ = run(make_session(tmp_path), ["d"], width=width)
    assert "Foundations  (starting rank 2)" in after
    assert "A  2  3  4  5  6  7  8  9  T  J  Q  K" in after
    for top in ("1  A♦ ▒▒3", "2  Q♣ ▒▒3", "3  K♥ ▒▒3", "4  3♥ ▒▒3"):
        assert top in after
    assert "Memory  pass 1: 3 talon cards known, 32 not seen yet" in after
    assert "waste K♠* 9♦ Q♦ (top)" in after
    assert "next  ?? ?? ??" in after


def test_a_whole_short_game_with_single_keys(tmp_path):
    """Deal 17 is won by the solver's line; play it on the board with one key a move (t for a run of turns)."""
    from tutor.deals import deal_for
    from tutor.rules import preset
    from tutor.search import solve
    from tutor.state import State

    rules = preset("osmosis")
    state = State.initial(deal_for(17, rules), rules)
    line = list(solve(state).line)
    keys, i = [], 0
    while i < len(line):  # a run of turns that t plays is one key
        run_ = turns_to_play(state).moves
        if run_ and tuple(line[i:i + len(run_)]) == run_:
            keys.append("t")
            state, i = state.play(run_), i + len(run_)
        else:
            keys.append(key_of(line[i]))
            state, i = state.apply(line[i]), i + 1
    assert "t" in keys and len(keys) < len(line)
    session = make_session(tmp_path, number=17)
    end = typed(session, keys)
    assert session.game.moves == line
    assert session.game.state.won
    assert "Won! All 52 cards are on the foundations." in end  # the end screen
    assert "v  review this game" in end and "Score 52/52" in end
    after = screens(session, ["escape"])[-1]  # a new board on the won game
    assert f"Move {len(line)} " in status_line(after) and "won" in status_line(after)
    assert load_record(tmp_path / "game.json").final_result() == {"cards": 52, "won": True}


def test_t_turns_to_the_first_playable_waste_card_and_never_past_one(tmp_path):
    session = make_session(tmp_path)
    first, after, again = screens(session, ["t", "t"])
    moves = session.game.moves
    assert [str(m) for m in moves] == ["d"] * 5  # 7♠ shows after the fifth turn
    assert "Move 5 " in status_line(after) and "7♠ (top)" in after
    for state in session.game.states[:-1]:
        assert WASTE not in state.legal_moves()
    assert "w plays it, d turns past it" in again and session.game.ply == 5


@pytest.mark.parametrize("number", [1, 2, 3, 5, 8, 13])
def test_t_on_the_board_never_skips_a_playable_card(tmp_path, number):
    """Random keys with many t on several deals: every turn t played left no playable card on the waste."""
    from tutor.notation import Move

    session = make_session(tmp_path, number=number)
    rng = random.Random(number)
    keys = [k for _ in range(15) for k in ("t", rng.choice(["w", "1", "2", "3", "4", "d"]))]
    typed(session, keys)
    game = session.game
    # the same keys by the rule: t's turns are exactly turns_to_play's, and none turned past a playable card
    state = Game.new(number).state
    for key in keys:
        if key == "t":
            for m in turns_to_play(state).moves:
                assert WASTE not in state.legal_moves()
                state = state.apply(m)
        else:
            move = Move.parse({"w": "w", "d": "d"}.get(key, f"r{key}"))
            if move in state.legal_moves():
                state = state.apply(move)
    assert state == game.state
    assert game.ply > 0


def test_undo_and_redo(tmp_path):
    session = make_session(tmp_path)
    shown = screens(session, ["d", "d", "u", "u", "r", "r", "r", "u", "d", "r"])
    assert "Move 1 " in status_line(shown[3]) and "r plays it again" in shown[3]
    assert "Move 0 " in status_line(shown[4]) and "Stock 35" in status_line(shown[4])
    assert "Move 1 " in status_line(shown[5])
    assert "Move 2 " in status_line(shown[6]) and "Stock 29" in status_line(shown[6])
    assert "Nothing to redo." in shown[7]
    assert "Nothing to redo." in shown[10]  # a new move after an undo ends the redo line
    assert [str(m) for m in session.game.moves] == ["d", "d"]
    assert [str(m) for m in load_record(tmp_path / "game.json").moves] == ["d", "d"]


def test_a_card_typed_at_the_prompt_is_played(tmp_path):
    session = make_session(tmp_path)
    _, after, _ = run(session, ["colon", *"d d d d d 7s", "enter"])  # 7♠ shows after five turns
    assert [str(m) for m in session.game.moves] == ["d"] * 5 + ["w"]
    assert "Move 6: w 7♠" in after
    _, after, _ = run(session, ["colon", "7", "h", "enter"])
    assert "7♥ cannot be played now" in after and session.game.ply == 6


def test_hint_panel_lists_every_move_with_its_chance_samples_and_interval(tmp_path):
    session = make_session(tmp_path)
    _, after, _ = run(session, ["d"] * 5 + ["h"], height=50)
    assert "Hint: " in after
    assert "move  card   win   95% interval  cards        95%  samples" in after
    assert "w     7♠" in after and "d     turn" in after
    assert "cards: how many cards the move leaves on the foundations at the end" in flat(after)


def test_tutor_mode_asks_before_a_clear_mistake_and_n_keeps_the_move_back(tmp_path):
    """Peek deal 3 after the greedy moves that line mode's tutor test uses: d there loses, w (T♦) wins."""
    from test_cli_play import PEEK3_PLIES

    session = make_session(tmp_path, number=3, tutor=True, variant="peek")
    game = session.game
    for _ in range(PEEK3_PLIES):
        game.push(game.state.legal_moves()[0])
    ply = game.ply
    shown = screens(session, ["d", "t", "n", "d", "h", "d", "y"], height=50)
    # The same rule and words as line mode's tutor (test_cli_play), with the board's card symbols.
    assert "That would be a blunder: win 0% against 100% for w (T♦), exact" in flat(shown[1])
    assert "y  play it anyway    n  rethink    h  show the hint" in shown[1]
    assert "Stock 15" in shown[1]  # the board stays in view under the question
    assert f"Move {ply} " in status_line(shown[2]) and "That would be a blunder" in shown[2]  # t waits
    assert "Move not played." in shown[3] and f"Move {ply} " in status_line(shown[3])
    assert "Hint: w (T♦)" in shown[5]
    assert game.ply == ply + 1 and str(game.moves[-1]) == "d"
    assert "Move not played." not in shown[7]


def test_with_tutor_the_hint_coming_by_itself_keeps_what_the_move_said(tmp_path):
    """--tutor computes the next position's hint as soon as a move is shown; with the hint panel on, its arrival
    cleared the message panel: "Move 1: r4 4♠" went, and with it any note of which file holds the game."""
    session = make_session(tmp_path, number=5, tutor=True)
    shown = screens(session, ["h", "4"], width=100, height=60)
    assert "Hint: " in shown[-1] and "Move 1: r4 4♠" in shown[-1]
    assert "Thinking..." not in shown[1]  # the hint asked for takes the place of its message


def test_help_shows_the_keys(tmp_path):
    _, after, _ = run(make_session(tmp_path), ["question_mark"])
    assert "t        turn until the waste shows a card that can be played" in after
    # card names as they are typed: "10H" was respelt as the board's "T♥", which no keyboard types
    assert "(7h, 10h, r2 w d)" in after and "T♥" not in after


@pytest.mark.parametrize("width", WIDTHS)
def test_no_word_is_broken_at_the_edge(tmp_path, width):
    """Every screen line fits the width, and words of the board's sentences stay whole."""
    session = make_session(tmp_path)
    _, after, _ = run(session, ["d", "d", "h", "question_mark"], width=width, height=60)
    _, board, _ = run(session, ["d", "h"], width=width, height=60)
    words = set()
    for text in (after, board):
        for line in text.splitlines():
            assert len(line) <= width
            words.update(line.split())
    for sentence in ("in groups of 3 as the turns show them, the last of each on top",
                     "turn until the waste shows a card that can be played"):
        for word in sentence.split():
            assert word.strip(",;") in {w.strip(",;():") for w in words}, word


def test_a_mouse_click_on_the_waste_top_plays_it(tmp_path):
    session = make_session(tmp_path)
    app = BoardApp(session, symbols=True)

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            for _ in range(5):
                await pilot.press("d")
            await pilot.pause()
            lines = screen_text(app).splitlines()
            y = next(i for i, line in enumerate(lines) if line.lstrip().startswith("Waste"))
            x = lines[y].index("7♠")
            await pilot.click(offset=(x, y))
            await pilot.pause()

    asyncio.run(go())
    assert [str(m) for m in session.game.moves] == ["d"] * 5 + ["w"]


def test_the_end_of_a_blocked_game_offers_the_review_and_v_asks_for_it(tmp_path):
    """Twelve turns with no card played block deal 1: the end screen, then v closes the board asking for the review."""
    session = make_session(tmp_path)
    app = BoardApp(session, symbols=True)
    out = {}

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            for _ in range(12):
                await pilot.press("d")
            await pilot.pause()
            out["end"] = screen_text(app)
            await pilot.press("v")
            await pilot.pause()

    asyncio.run(go())
    assert "Blocked: 1 card" in out["end"]
    assert "v  review this game" in out["end"] and "The game is saved" in out["end"]
    # the end question takes only v, u and q: the status no longer offers "? help" (? only rang the bell)
    assert "blocked" in out["end"] and "? help" not in out["end"]
    assert app.return_value == "review"


def test_play_on_a_terminal_runs_the_board_with_the_session_and_reviews_on_request(run, monkeypatch, home):
    import tutor.board.play as board_play
    import tutor.cli.play as cli_play

    seen = {}

    def fake_board(session, symbols=True):
        seen["session"] = session
        session.game.push("d")
        session.autosave_now()
        return "review"

    monkeypatch.setattr(cli_play, "board_wanted", lambda console: True)
    monkeypatch.setattr(board_play, "run_board", fake_board)
    monkeypatch.setattr(cli_play, "review_after_play", lambda ctx, record: seen.setdefault("reviewed", record))
    result = run(["play", "1"])
    assert result.exit_code == 0
    assert seen["session"].game.deal.number == 1
    assert [str(m) for m in seen["reviewed"].moves] == ["d"]
    assert "The game is saved in" in result.stdout and "(1 move, 1 card on the foundations)" in result.stdout
    saved = load_record(next((home / "games").glob("*.json")))
    assert [str(m) for m in saved.moves] == ["d"]
    plain = run(["play", "1", "--plain"], input="q\n")
    assert "move> " in plain.stdout  # --plain keeps the line mode even where the board would run


def test_s_saves_and_q_quits(tmp_path):
    session = make_session(tmp_path)
    shown = screens(session, ["d", "s"])
    assert says(shown[-1], f"Saved to {tmp_path / 'game.json'}.")
    # a save's words stand alone: an earlier "unknown move" stayed above them
    shown = screens(session, ["colon", "x", "enter", "s"])
    assert "unknown move 'x'" in flat(shown[3]) and "unknown move" not in flat(shown[4])
    assert says(shown[4], f"Saved to {tmp_path / 'game.json'}.")
    app = BoardApp(session, symbols=True)

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running

    asyncio.run(go())
    assert app.return_value is None
    assert [str(m) for m in load_record(tmp_path / "game.json").moves] == ["d"]


def test_on_a_short_terminal_the_hint_asked_for_is_scrolled_into_view(tmp_path):
    session = make_session(tmp_path, number=7)
    before, after = screens(session, ["h"], height=24)[:2]
    assert "Hint: " not in before
    text = flat(after)
    assert "Hint: r2 (Q♠)" in text and "the same ones for every move." in text  # the whole panel, to its end
    assert all(len(screen.splitlines()) <= 24 for screen in (before, after))


def test_on_a_short_terminal_the_tutors_question_is_in_view_with_its_keys(tmp_path):
    from test_cli_play import PEEK3_PLIES

    session = make_session(tmp_path, number=3, tutor=True, variant="peek")
    for _ in range(PEEK3_PLIES):
        session.game.push(session.game.state.legal_moves()[0])
    shown = screens(session, ["d"], height=20)
    assert "That would be a blunder" in flat(shown[1])
    assert "y  play it anyway    n  rethink    h  show the hint" in shown[1]
    assert "╰" in shown[1]  # the question's frame is drawn to its bottom edge


def test_two_keys_at_once_on_the_help_screen_close_it_once_and_the_board_goes_on(tmp_path):
    """The second key used to pop the help screen again: ScreenStackError, and the board was gone. Then it was
    swallowed; now the first closes the help and the second is the board's (stop 57: a paste lost keys)."""
    from textual import events

    app = BoardApp(make_session(tmp_path), symbols=True)
    out = []

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            await pilot.press("question_mark")
            await pilot.pause()
            for key in ("x", "d"):  # both queued before the first has closed the help
                app._driver.send_message(events.Key(key, key))
            for _ in range(40):
                await pilot.pause(0.05)
            out.append((len(app.screen_stack), app.is_running, screen_text(app)))
            await pilot.press("d")
            await pilot.pause()
            out.append((0, app.is_running, screen_text(app)))

    asyncio.run(go())
    (depth, running, text), (_, still, after) = out
    assert running and still and depth == 1
    assert "Any key closes this help." not in text and "Move 1 " in status_line(text)  # x closed it, d played
    assert "Move 2 " in status_line(after)


def test_a_typed_line_with_a_typo_plays_nothing_and_says_so(tmp_path):
    session = make_session(tmp_path, number=12)
    _, text, _ = run(session, ["colon", *"d d x", "enter"])
    assert "Move 0 " in status_line(text)
    assert "nothing of the line was played" in flat(text)
    (tmp_path / "b").mkdir()
    session = make_session(tmp_path / "b", number=12)
    _, text, _ = run(session, ["colon", *"d d 9h", "enter"])
    assert "Move 2 " in status_line(text) and "(played before it: d d)" in flat(text)


def test_on_a_short_terminal_a_refused_move_says_why_in_view_and_a_move_brings_the_table_back(tmp_path):
    session = make_session(tmp_path, number=12)
    shown = screens(session, ["d", "d", "2", "d"], height=20)
    refused = flat(shown[3])
    assert "r2 is not possible" in refused or "cannot be played" in refused  # the reason, not a silent key
    assert "Move 2 " in status_line(shown[3])
    back = shown[4]
    assert "Move 3 " in status_line(back) and "Deal 12, osmosis" in back  # the table's top in view again


def test_at_the_end_the_key_line_lists_only_the_keys_the_end_takes(tmp_path):
    session = make_session(tmp_path, number=3, variant="peek")
    game = session.game
    while not game.state.apply(game.state.legal_moves()[0]).over:  # the greedy game, one move short of its end
        game.push(game.state.legal_moves()[0])
    before, after = screens(session, [key_of(game.state.legal_moves()[0])], height=50)
    assert game.state.over
    assert "1-4 reserve" in " ".join(before.splitlines()[-2:])
    keys = " ".join(after.splitlines()[-2:])
    assert "v review this game" in keys and "q quit" in keys and "1-4 reserve" not in keys


def test_the_help_screen_wraps_a_long_key_line_under_its_text_not_under_the_key(tmp_path):
    help_screen = screens(make_session(tmp_path), ["question_mark"], width=60, height=30)[1]
    # the help is a box over the board: its lines are what stands between its borders
    boxed = [line.split("│")[1] for line in help_screen.splitlines() if line.count("│") >= 2]
    at = next(i for i, line in enumerate(boxed) if line.strip().startswith("t        turn until the waste"))
    follow = next(line for line in boxed[at + 1:] if "redeal)" in line)
    assert len(follow) - len(follow.lstrip()) >= 9  # under the text, past the key column


def test_the_board_leaves_no_stale_help_line_in_the_shell(tmp_path, monkeypatch):
    from tutor.cli.session import Session

    monkeypatch.setenv("OSMOSIS_HOME", str(tmp_path / "home"))
    said = {}
    for board in (False, True):
        out = io.StringIO()
        ctx = click.Context(main, obj={"console": Console(file=out, width=80)})
        Session.open(ctx, Game.new(7, "osmosis"), False, 10.0, board=board)
        said[board] = out.getvalue()
    assert "Type ? for help." in said[False] and "Type ? for help." not in said[True]
    assert "Deal 7, osmosis" in said[True]


def test_the_board_asks_the_same_cards_question_as_line_mode(tmp_path):
    """Peek deal 2 after 24 greedy moves: no move wins, and w surely places fewer cards than turning."""
    session = make_session(tmp_path, number=2, tutor=True, variant="peek")
    for _ in range(24):
        session.game.push(session.game.state.legal_moves()[0])
    shown = screens(session, ["w", "n"], height=50)
    assert "That gives cards away: no move wins in the one deal consistent with what you have seen" in flat(shown[1])
    assert "Move not played." in shown[2] and session.game.ply == 24


def test_no_color_drops_the_colours_rather_than_greying_them(tmp_path, monkeypatch):
    """Under NO_COLOR Textual's default filter turned red cards into dark grey on black (contrast 1.6:1); the
    boards ask for the filter that leaves the terminal's own foreground instead. An empty NO_COLOR is unset
    (no-color.org, and rich in line mode): the board lost its colours to it where line mode kept them."""
    from textual.filter import Monochrome, NoColor

    from tutor.board.replay import ReplayApp
    from tutor.record import Record

    monkeypatch.setenv("NO_COLOR", "1")
    session = make_session(tmp_path)
    record = Record(session.game.rules, session.game.deal, [])
    for app in (BoardApp(session, symbols=True), ReplayApp(record)):
        assert app.no_color and app.ansi_color
        assert any(isinstance(f, NoColor) for f in app._filters)
        assert not any(isinstance(f, Monochrome) for f in app._filters)
    for value in ("", None):
        if value is None:
            monkeypatch.delenv("NO_COLOR", raising=False)
        else:
            monkeypatch.setenv("NO_COLOR", value)
        for app in (BoardApp(session, symbols=True), ReplayApp(record)):  # colours as usual
            assert not app.no_color and not app.ansi_color, value
            assert not any(isinstance(f, (NoColor, Monochrome)) for f in app._filters)


def test_the_cards_a_click_plays_keep_their_red_and_are_underlined(tmp_path):
    """Textual drew every clickable card in its one link colour: A♦ and K♥ on deal 1's reserve showed in the
    text's grey, like the black cards. They keep their red (and black ones their colour), underlined."""
    from textual.geometry import Region

    app = BoardApp(make_session(tmp_path), symbols=True)
    seen = {}

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            await pilot.pause()
            table = app.query_one("#table")
            for strip in table.render_lines(Region(0, 0, table.size.width, table.size.height)):
                for seg in strip:
                    if seg.style and seg.style.meta and "@click" in seg.style.meta:
                        seen[seg.text] = seg.style

    asyncio.run(go())
    assert {"A♦", "K♥", "Q♣"} <= set(seen)
    red, black = seen["A♦"].color, seen["Q♣"].color
    assert red is not None and black is not None and red != black and seen["K♥"].color == red
    assert red.triplet is not None and red.triplet.red > 2 * max(red.triplet.green, red.triplet.blue)
    assert all(style.underline and style.bold for style in seen.values())


def test_the_replay_table_has_no_cards_to_click():
    """The replay plays nothing: its table drew the top cards as links (underlined, clickable) to no action."""
    from tutor.board.widgets import TableView

    state = Game.new(1, "osmosis").state

    def links(view):
        return [span for line in view.lines(80) for span in line.spans
                if isinstance(span.style, Style) and span.style.meta and "@click" in span.style.meta]

    assert len(links(TableView(state, True, 3))) == 4 and links(TableView(state, True, 3, playable=False)) == []


def burst(app, keys, width=80, height=50, after=None, look=lambda app: app.query_one("#prompt").value):
    """Send ``keys`` ((key, character) pairs) as key events all at once, as a paste or a fast typist does, wait
    until the app has handled them, press ``after`` (keys, one at a time); ``look(app)`` then (by default what
    the board's : box holds)."""
    from textual import events

    seen = []

    async def go():
        async with app.run_test(size=(width, height)) as pilot:
            await pilot.pause()
            for key, char in keys:
                app._driver.send_message(events.Key(key, char))
            for _ in range(100):
                await pilot.pause(0.05)
                if app.message_queue_size == 0 and app.screen.message_queue_size == 0:
                    break
            await app.workers.wait_for_complete()
            await pilot.pause()
            for key in after or ():
                await pilot.press(key)
                await pilot.pause()
            seen.append(look(app))

    asyncio.run(go())
    return seen[0]


def quits_with_the_box_open(app, box_keys, box) -> tuple[str, bool]:
    """Open a box with ``box_keys``, then press Ctrl+Q: what the box ``box`` held, and whether the app still runs."""
    state = []

    async def go():
        async with app.run_test(size=(80, 50)) as pilot:
            await pilot.press(*box_keys)
            await pilot.pause()
            state.append(app.query_one(box).value)
            await pilot.press("ctrl+q")
            await pilot.pause()
            state.append(app.is_running)

    asyncio.run(go())
    return state[0], state[1]


def test_keys_sent_at_once_after_the_colon_go_into_the_box_not_to_the_board(tmp_path):
    # ": d d d" pasted (or typed in one burst) played five turns: the keys reached the board before the box
    # had the focus, each d and each space a board key, and the box was left open and empty
    session = make_session(tmp_path, 18)
    app = BoardApp(session, symbols=True)
    burst(app, [("colon", ":"), ("d", "d"), ("space", " "), ("d", "d"), ("space", " "), ("d", "d"), ("enter", "\r")])
    assert [str(m) for m in session.game.moves] == ["d", "d", "d"]
    # a board key in the burst is the box's too: "h" is no hint and "q" no quit, but words of the line
    session = make_session(tmp_path / "second", 18)
    app = BoardApp(session, symbols=True)
    held = burst(app, [("colon", ":"), ("d", "d"), ("space", " "), ("h", "h"), ("q", "q")])
    assert session.game.ply == 0 and not app.hint_shown and held == "d hq"


def test_ctrl_q_still_quits_while_the_colon_box_is_open(tmp_path):
    # the box refuses the board's keys (q is a word there), and had refused Textual's own Ctrl+Q with them
    assert quits_with_the_box_open(BoardApp(make_session(tmp_path), symbols=True), ["colon", "q"], "#prompt") == \
        ("q", False)


def test_a_reserve_top_card_plays_when_clicked_in_peek_too():
    """Peek: the piles are drawn face up, and their top cards were no links: clicking 6♦ on pile 2 did nothing
    (in Osmosis the same click plays r2)."""
    from tutor.board.widgets import TableView

    state = Game.new(2, "peek").state
    clicks = [span.style.meta["@click"] for line in TableView(state, True, 3).lines(80) for span in line.spans
              if isinstance(span.style, Style) and span.style.meta and "@click" in span.style.meta]
    assert [c for c in clicks if c.startswith("app.click('r")] == [f"app.click('r{i}')" for i in range(1, 5)]


@pytest.mark.parametrize("width", [6, 7, 8, 20, 80])
def test_the_status_wraps_an_item_between_its_words_and_never_cuts_a_number(width):
    """Below the board's 34 columns the status line was cut at the edge: "Stock 2" for a stock of 26."""
    from tutor.board.widgets import Status

    items = ["Move 12", "Stock 26", "Pass 1", "Score 3/52", "? help"]
    lines = [line.plain.rstrip() for line in Status(items).lines(width)]
    assert all(len(line) <= width for line in lines)
    assert " ".join(" ".join(lines).split()) == " ".join(items)  # every word whole, in order


def test_the_help_is_a_bordered_box_in_the_middle_not_the_whole_screen(tmp_path):
    """The help screen's CSS named ModalScreen inside the screen's own (scoped) CSS, so it matched nothing: the
    help filled the terminal from its top-left corner with no border."""
    from textual.containers import VerticalScroll

    session = make_session(tmp_path)
    app = BoardApp(session, symbols=True)
    seen = {}

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("question_mark")
            await pilot.pause()
            box = app.screen.query_one(VerticalScroll)
            seen["width"], seen["x"] = box.outer_size.width, box.region.x
            seen["border"] = box.styles.border_top[0]

    asyncio.run(go())
    assert seen["width"] <= 84 and seen["x"] > 0 and seen["border"] == "round"


def test_the_end_question_on_a_short_terminal_scrolls_to_its_answers(tmp_path):
    """At 40x12 the end question's answer line (v, u, q) was below the fold, and PageDown rang the bell."""
    session = make_session(tmp_path)
    app = BoardApp(session, symbols=True)
    shown = screens(session, ["d"] * 12 + ["home", "end"], width=40, height=12, app=app)  # twelve turns block deal 1
    # the answers come into view with the question (at 34x10 too), and the scroll keys still move over it
    assert "q  quit" in shown[-3] and "q  quit" not in shown[-2]
    assert "q  quit" in shown[-1] and "last move" in shown[-1]  # scrolled to
    assert session.game.state.blocked  # the keys scrolled: no answer was taken
    small = make_session(tmp_path / "small")
    end = screens(small, ["d"] * 12, width=34, height=10)[-1]
    assert "v  review this game" in end and "take back the last move" in end and "quit" in end


@pytest.mark.parametrize("key, said", [("u", "Nothing to undo"), ("r", "Nothing to redo")])
def test_a_key_that_does_nothing_says_why_in_view_on_a_short_terminal(tmp_path, key, said):
    assert said in screens(make_session(tmp_path), [key], width=40, height=12)[-1]


def test_a_key_the_board_has_no_use_for_says_so_and_a_move_key_clears_it(tmp_path):
    """x, 5, E or Enter on the board did nothing without a word, where line mode names an unknown word; the
    key that closes the help is the help's, and the : box takes any character."""
    session = make_session(tmp_path)
    shown = [flat(s) for s in screens(session, ["x", "d", "enter", "question_mark", "x", "colon", "x"])]
    assert "x is not a key of the board: ? lists the keys, and : types a move or a card (7h)." in shown[1]
    assert "is not a key" not in shown[2] and session.game.ply == 1
    assert "Enter is not a key of the board" in shown[3]
    assert "x is not a key" not in shown[5]  # x closed the help, the message before it stays
    assert "x is not a key" not in shown[7] and "Enter is not a key" in shown[7]  # typed in the box
