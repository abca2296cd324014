"""Faults a tmux audit found on the board: keys while the tutor thinks, lines after a question, lost messages."""

from __future__ import annotations

import asyncio

from builders import unsavable
from test_board import flat, make_session, says, screens, settle, status_line
from textual import events

from tutor.board import screen_text
from tutor.board.play import BoardApp
from tutor.cli.session import Session

# the 32-move game of deal 2 (greedy moves): at its end w (A♦) gives cards away, d is best
DEAL2_32 = "r2 r2 r3 d d w d w d d d w r2 r4 d w d d w d d d d d w d d d d w d d".split()


def deal2_session(tmp_path, tutor=True) -> Session:
    session = make_session(tmp_path, number=2, tutor=tutor)
    for word in DEAL2_32:
        session.game.push(word)
    return session


def at_once(session, batches, width=80, height=50) -> list[str]:
    """Each batch of keys sent at once (the app takes them in order); the screen after each, hints done."""
    app = BoardApp(session, symbols=True)
    out = []

    async def go():
        async with app.run_test(size=(width, height)) as pilot:
            await pilot.pause()
            for keys in batches:
                for key in keys:
                    app._driver.send_message(events.Key(key, key if len(key) == 1 else None))
                await settle(app, pilot)
                out.append(screen_text(app))

    asyncio.run(go())
    return out


def test_a_move_key_while_the_tutor_weighs_another_is_refused_and_y_plays_the_move_asked_about(tmp_path):
    """w then d at once: the question about w came up, d was played anyway, and y then played w (8♦)."""
    session = deal2_session(tmp_path)
    asked, bell, answered = at_once(session, [["w", "d"], ["1"], ["y"]])
    assert "That gives cards away" in flat(asked) and "Move 32 " in status_line(asked)
    assert session.game.ply == 33 and str(session.game.moves[-1]) == "w"
    assert "That gives cards away" in flat(bell)  # 1 only rings the bell: the question stays
    assert "Move 33: w A♦" in answered and "Move 34" not in answered


def test_y_plays_the_rest_of_a_typed_line_as_line_mode_does(tmp_path):
    session = deal2_session(tmp_path)
    shown = screens(session, ["colon", *"w d w d", "enter", "y"], height=50)
    assert "That gives cards away" in flat(shown[-2])
    assert [str(m) for m in session.game.moves[32:]] == ["w", "d", "w", "d"]
    assert "Move 36 " in status_line(shown[-1])


def test_n_names_the_rest_of_the_line_it_keeps_back(tmp_path):
    session = deal2_session(tmp_path)
    shown = screens(session, ["colon", *"w d w d", "enter", "n"], height=50)
    assert "Move not played. Nor the rest of the line: d w d." in flat(shown[-1])
    assert session.game.ply == 32


def test_q_at_the_tutors_question_quits_as_in_line_mode(tmp_path):
    session = deal2_session(tmp_path)
    app = BoardApp(session, symbols=True)

    async def go():
        async with app.run_test(size=(80, 50)) as pilot:
            await pilot.press("w")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert "q  quit" in screen_text(app)
            await pilot.press("q")
            await pilot.pause()

    asyncio.run(go())
    assert not app.is_running and session.game.ply == 32


def test_a_game_that_cannot_be_autosaved_says_so_on_the_board_and_keeps_it_in_view(tmp_path, monkeypatch):
    session = unsavable(tmp_path, monkeypatch)
    saved = tmp_path / "kept.json"
    shown = screens(session, ["d", "w", "colon", *f"s {saved}", "enter", "d"], height=30)
    for text in shown[:3]:
        assert "The game cannot be saved as you play: cannot create the games folder" in flat(text)
        assert flat(text).count("Not saved: press : and type s FILE to save it.") == 1
    after_save = flat(shown[-2])
    assert says(after_save, f"Saved to {saved}.") and "cannot be saved as you play" not in after_save
    assert says(shown[-1], f"The last moves are not saved: {saved} holds the game as it was at move 2")


def test_a_move_after_the_unsaved_warning_of_q_makes_q_warn_again(tmp_path, monkeypatch):
    session = unsavable(tmp_path, monkeypatch)
    app = BoardApp(session, symbols=True)

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            for key in ("d", "q", "d", "q"):
                await pilot.press(key)
                await pilot.pause()
            assert app.is_running  # the second q came after a move: a warning, as line mode gives
            assert "q again to quit without saving" in flat(screen_text(app))

    asyncio.run(go())
    assert session.game.ply == 2


def test_the_end_names_the_words_left_and_shows_the_history_line(tmp_path, monkeypatch, home):
    """Deal 1 blocks after twelve turns: two more typed d are named, and the history's line is kept."""
    import tutor.cli.history as history

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    monkeypatch.setattr(history, "after_game", lambda record, path, say, warn=None: say("History: 2 games of osmosis."))
    session = make_session(tmp_path)
    end = screens(session, ["colon", *" ".join(["d"] * 14), "enter"], height=50)[-1]
    text = flat(end)
    assert "Not played, since the game is over: d d." in text
    assert "Blocked: 1 card" in text and "History: 2 games of osmosis." in text


def test_an_undo_at_the_end_says_what_the_finished_file_keeps(tmp_path, monkeypatch, home):
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    session = make_session(tmp_path)
    shown = screens(session, ["d"] * 12 + ["u"], height=50)
    text = flat(shown[-1])
    assert "Took back move 12 (d); r plays it again." in text
    assert "This game was over, so" in text and "keeps it as it was, with the moves taken back" in text


def test_t_says_the_run_of_turns_in_line_modes_words(tmp_path, run):
    """Deal 1: t turns five times to 7♠; line mode and the board say the same sentence."""
    plain = run(["play", "1", "--plain"], input="t\nq\n").stdout
    line = next(x for x in plain.splitlines() if x.startswith("Moves 1-5: "))
    assert line == "Moves 1-5: turned the talon 5 times, until the waste shows a card that can be played."
    shown = screens(make_session(tmp_path), ["t"])
    assert line in flat(shown[-1]) and "Move 5: d" not in shown[-1]


def test_u_h_and_t_alone_at_the_prompt_are_commands_as_in_line_mode(tmp_path):
    session = make_session(tmp_path)
    shown = screens(session, ["colon", "t", "enter", "colon", "u", "enter", "colon", "h", "enter"], height=50)
    assert "Moves 1-5: turned the talon 5 times" in flat(shown[3])
    assert "Took back move 5 (d)" in flat(shown[6]) and session.game.ply == 4
    assert "Hint: " in shown[-1]


def test_the_tutors_question_stays_in_view_when_the_terminal_gets_smaller(tmp_path):
    """Asked at 80x50, then the terminal made 40x12: the question and its keys were left below the fold, and
    any key only rang the bell."""
    session = deal2_session(tmp_path)
    app = BoardApp(session, symbols=True)
    shown = []

    async def go():
        async with app.run_test(size=(80, 50)) as pilot:
            await pilot.press("w")
            await app.workers.wait_for_complete()
            await pilot.pause()
            shown.append(screen_text(app))
            await pilot.resize_terminal(40, 12)
            for _ in range(4):
                await pilot.pause(0.05)
            shown.append(screen_text(app))

    asyncio.run(go())
    assert "That gives cards away" in flat(shown[0])
    assert "y  play it anyway" in shown[1] and "q  quit" in shown[1], shown[1]


def test_a_game_that_cannot_be_saved_leaves_room_for_the_board_at_34x10(tmp_path, monkeypatch):
    """The warning took all 10 rows at 34 columns (8 lines): no card, no question, not even the : box that is
    the way out; it is kept to 3 rows, the way out first. On the board, the message for s with no file said
    to type "s game.json", whose space plays a turn there."""
    session = unsavable(tmp_path, monkeypatch)
    shown = screens(session, ["d", "s"], width=34, height=10)
    assert "Not saved: press : and type s" in flat(shown[1])
    assert "Reserve" in shown[1] or "Stock" in shown[1]
    rows = [line for line in shown[1].splitlines() if line.strip()]
    assert len(rows) <= 10
    assert "press : and type s and a file name, like s game.json" in flat(shown[2])
    (tmp_path / "b").mkdir()
    taller = screens(unsavable(tmp_path / "b", monkeypatch), ["d"], width=34, height=14)[-1]
    assert "Reserve" in taller and "Not saved: press :" in flat(taller)  # 14 rows: 8 of warning took every card


def test_the_board_prompt_takes_save_file_and_explains_u_with_a_count(tmp_path, monkeypatch):
    """': save x.json' was refused as "save is a command, not a move: type it on a line of its own" (it was);
    ': u 2' likewise, where the board takes back one move a key."""
    session = unsavable(tmp_path, monkeypatch)
    saved = tmp_path / "x.json"
    typed = ["colon", *f"save {saved}", "enter"]
    shown = screens(session, ["d", *typed, "colon", *"u 2", "enter"], height=40)
    assert saved.is_file() and says(shown[1 + len(typed)], f"Saved to {saved}.")
    assert "On the board u takes back one move: press u once for each move" in flat(shown[-1])
    assert session.game.ply == 1


def test_the_unsaved_warning_of_q_comes_into_view_on_a_short_terminal(tmp_path, monkeypatch):
    """At 80x24 the answer to q ("... or q again to quit without saving") was below the fold: the key seemed
    to do nothing, and the next q threw the moves away."""
    session = unsavable(tmp_path, monkeypatch)
    shown = screens(session, ["d", "q"], width=80, height=24)
    assert "q again to quit without saving" not in flat(shown[1])
    assert "q again to quit without saving" in flat(shown[2])
