"""Saving at the edges of a game: the board's end question and q, Ctrl-C in a typed line, a record from a pipe.

Each test is an audit's reproduction: a won game lost at the end question, a second q that saved after
"q again to quit without saving", a line of moves cut by Ctrl-C with --save never written, a false "not
saved" for a game read from a pipe, and a quit message that named the copy as the game's own file.
"""

from __future__ import annotations

import asyncio
import os
import signal

from builders import unsavable
from test_board import flat, says

from tutor.board import screen_text
from tutor.board.play import BoardApp
from tutor.record import Game, load_record, save_record

BLOCKED_1 = ["d"] * 12  # deal 1 blocks after twelve turns


def on_board(session, keys, seen, text: dict[int, str] | None = None) -> BoardApp:
    """Press ``keys`` (``text``: after key i, type that text), the screen seen after each into ``seen``."""
    app = BoardApp(session, symbols=True)

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            await pilot.pause()
            for i, key in enumerate(keys):
                if not app.is_running:
                    break
                await pilot.press(key)
                for ch in (text or {}).get(i, ""):
                    await pilot.press({" ": "space", "/": "slash", ".": "full_stop"}.get(ch, ch))
                await pilot.pause()
                seen.append(screen_text(app))

    asyncio.run(go())
    return app


def test_the_end_question_warns_at_the_first_q_and_quits_at_the_second(tmp_path, monkeypatch):
    """B1: the end question's q quit at once, the won (here blocked) game not saved anywhere, no warning."""
    session = unsavable(tmp_path, monkeypatch, 1)
    seen: list[str] = []
    app = on_board(session, [*BLOCKED_1, "q", "q"], seen)
    end = flat(seen[len(BLOCKED_1) - 1])
    assert "is not saved in any file. Press : and type s FILE to save it." in end
    assert "Type s FILE" not in end  # line mode's words: s alone is a key on the board
    warned = flat(seen[len(BLOCKED_1)])
    assert "q again to quit without saving" in warned and "v review this game" in warned  # still the end question
    assert not app.is_running and len(seen) == len(BLOCKED_1) + 2
    session.quit(final=True)
    assert session.exit_code == 1


def test_the_end_question_takes_colon_and_s_file_and_then_quits_at_once(tmp_path, monkeypatch):
    """B1: ':' and 's' at the end question only rang the bell, though the texts said to press them."""
    session = unsavable(tmp_path, monkeypatch, 1)
    target = tmp_path / "won.json"
    seen: list[str] = []
    app = on_board(session, [*BLOCKED_1, "colon", "enter", "q"], seen, {len(BLOCKED_1): f"s {target}"})
    assert [str(m) for m in load_record(target).moves] == BLOCKED_1
    back = flat(seen[len(BLOCKED_1) + 1])
    assert says(back, f"Saved to {target}.") and says(back, f"The game is saved in {target}.")
    assert "v review this game" in back  # the end question again, its keys in view
    assert not app.is_running  # saved: one q quits
    session.quit(final=True)
    assert session.exit_code == 0


def test_q_on_the_board_writes_the_s_file_target_before_it_warns(tmp_path, monkeypatch):
    """B2: after s FILE and another move, q warned that the moves were not saved, and the "quit without
    saving" q then saved them; line mode saves at the first q, as the board now does."""
    session = unsavable(tmp_path, monkeypatch, 1)
    target = tmp_path / "mine.json"
    seen: list[str] = []
    app = on_board(session, ["d", "colon", "enter", "d", "q"], seen, {1: f"s {target}"})
    assert not app.is_running
    assert all("q again to quit without saving" not in flat(s) for s in seen)
    assert [str(m) for m in load_record(target).moves] == ["d", "d"]
    session.quit(final=True)
    assert session.exit_code == 0


def interrupt_at(monkeypatch, call: int, before: bool) -> None:
    """Ctrl-C (a real SIGINT to this process) at the ``call``-th autosave: before its write, or after it."""
    from tutor.cli.saves import GameFiles

    real, calls = GameFiles.after_change, []

    def autosave(self, force=False):
        calls.append(1)
        if len(calls) == call and before:
            os.kill(os.getpid(), signal.SIGINT)
        said = real(self, force)
        if len(calls) == call and not before:
            os.kill(os.getpid(), signal.SIGINT)
        return said

    monkeypatch.setattr(GameFiles, "after_change", autosave)


def test_ctrl_c_in_a_typed_line_stops_it_after_the_move_in_hand_and_quits_saved(run, tmp_path, monkeypatch, home):
    """P1: Ctrl-C while a line of moves was played ended with a bare "interrupted", exit 130, --save unwritten.
    It quits saved, saying where; still 130, as for any command Ctrl-C stops (0 hid the stop from a script)."""
    for before in (True, False):
        saved = tmp_path / f"f{before}.json"
        interrupt_at(monkeypatch, 3, before)
        result = run(["play", "1", "--plain", "--save", str(saved)], input="d d d d d\nd\nq\n")
        assert result.exit_code == 130, result.output
        assert "Stopped (Ctrl-C) at move 3: 2 more of the line not played." in result.stdout
        assert f"The game is saved in {saved} (3 moves" in result.stdout
        assert [str(m) for m in load_record(saved).moves] == ["d"] * 3  # the move in hand too
        autosaves = sorted((home / "games").glob("*.json"), key=os.path.getmtime)
        assert [str(m) for m in load_record(autosaves[-1]).moves] == ["d"] * 3
        monkeypatch.undo()
        monkeypatch.setenv("OSMOSIS_HOME", str(home))


def through_a_pipe(record_path, run, args, input):
    """Run ``osmosis ARGS /dev/fd/N``, N a pipe that holds the record, as ``--resume <(cat FILE)`` gives it."""
    read, write = os.pipe()
    os.write(write, record_path.read_bytes())  # a record is far smaller than a pipe's buffer
    os.close(write)
    try:
        return run([*args, f"/dev/fd/{read}"], input=input)
    finally:
        os.close(read)


def test_a_game_resumed_from_a_pipe_and_quit_with_no_move_is_not_called_lost(run, tmp_path):
    """P3: "The game (12 moves) is not saved in any file", then "error: the game was not saved (the last moves
    are lost): the game files could not be written" and exit 1, with no move played and no write tried."""
    for moves in (BLOCKED_1, ["d", "d", "d"]):
        record = tmp_path / f"g{len(moves)}.json"
        game = Game.new(1, "osmosis")
        for word in moves:
            game.push(word)
        save_record(game.to_record(), record)
        result = through_a_pipe(record, run, ["play", "--plain", "--resume"], "q\n")
        assert result.exit_code == 0, result.output
        out = " ".join(result.stdout.split())
        assert f"No move was played, so no game file was written. The game ({len(moves)} moves) was read from" in out
        assert "which is not a regular file (a pipe or a device), so it is not kept in a file here." in out
        assert "not saved" not in out and "could not be written" not in result.output


def test_the_quit_names_the_resumed_file_as_the_one_that_keeps_the_finished_game(run, tmp_path):
    """P4: the files holding the finished game were sorted by name: "the finished game that acopy.json keeps
    ..., and zwon.json holds a copy of it", when zwon.json was the game's own file and acopy.json the copy."""
    own, copy = tmp_path / "zwon.json", tmp_path / "acopy.json"
    game = Game.new(1, "osmosis")
    for word in BLOCKED_1:
        game.push(word)
    save_record(game.to_record(), own)
    result = run(["play", "--plain", "--resume", str(own)], input=f"s {copy}\nu\nq\n")
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    assert (f"You stopped at move 11 of the finished game that {own} keeps (12 moves); nothing new was played, "
            f"and {copy} holds a copy of it.") in out


def test_v_at_the_end_question_warns_before_it_leaves_an_unsaved_game_for_the_review(tmp_path, monkeypatch):
    """The end question's v closed the board at once, the game in no file, where q warned first."""
    session = unsavable(tmp_path, monkeypatch, 1)
    seen: list[str] = []
    on_board(session, [*BLOCKED_1, "v"], seen)
    assert "v again for the review without saving" in flat(seen[-1]) and "v review this game" in flat(seen[-1])
    (tmp_path / "b").mkdir()
    session = unsavable(tmp_path / "b", monkeypatch, 1)
    app = BoardApp(session, symbols=True)

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            for key in [*BLOCKED_1, "v", "v"]:
                await pilot.press(key)
                await pilot.pause()

    asyncio.run(go())
    assert app.return_value == "review"  # the second v goes on to the review, as warned


def test_ctrl_c_in_a_t_run_says_nothing_of_the_run_s_length(run, monkeypatch, tmp_path):
    """"Stopped ... 3 more of the line not played" against "4 more" on a deal with two unseen talon cards
    swapped: a t run's length is worked out on face-down cards."""
    import json

    said = []
    for twin in (False, True):
        text = run(["deal", "1", "--json"]).stdout
        data = json.loads(text)
        if twin:  # two talon cards far down, unseen after a few turns
            data["talon"][14], data["talon"][16] = data["talon"][16], data["talon"][14]
        path = tmp_path / f"d{twin}.json"
        path.write_text(json.dumps(data))
        interrupt_at(monkeypatch, 2, False)
        result = run(["play", "--deal-file", str(path), "--plain"], input="t\nq\n")
        monkeypatch.undo()
        monkeypatch.setenv("OSMOSIS_HOME", str(tmp_path / "home"))
        assert result.exit_code == 130, result.output
        said.append([line for line in result.stdout.splitlines() if "Stopped" in line])
    assert said[0] == said[1] == ["Stopped (Ctrl-C) at move 2."]


def test_ctrl_c_while_an_undo_is_saved_quits_as_at_the_prompt(run, tmp_path, monkeypatch):
    """Ctrl-C during the undo's autosave ended with "interrupted", exit 130, --save never written."""
    saved = tmp_path / "u.json"
    interrupt_at(monkeypatch, 4, False)  # three moves, then the undo's save
    result = run(["play", "1", "--plain", "--save", str(saved)], input="d d d\nu\nq\n")
    assert result.exit_code == 130, result.output
    assert "Took back 1 move (d)." in result.stdout and f"The game is saved in {saved} (2 moves" in result.stdout
    assert [str(m) for m in load_record(saved).moves] == ["d", "d"]


def test_ctrl_c_on_the_move_that_ends_the_game_still_says_the_result(run, tmp_path, monkeypatch):
    """The game's result and the history line were never said when Ctrl-C came with the last move."""
    interrupt_at(monkeypatch, 12, False)
    result = run(["play", "1", "--plain"], input=" ".join(BLOCKED_1 + ["d", "d"]) + "\nq\n")
    assert result.exit_code == 130, result.output
    out = " ".join(result.stdout.split())
    assert "Blocked: 1 card on the foundations" in out and "Stopped" not in out
    assert "Not played, since the game is over: d d." in out and "of the line not played" not in out


def test_the_quit_tells_another_finished_game_from_a_copy(run, tmp_path):
    """Resumed from a finished game, a new line played on to its end in a copy and taken back: the quit called
    the resumed file (another game) "a copy" of the new one, and said "nothing new was played"."""
    own = tmp_path / "zwon.json"
    game = Game.new(1, "osmosis")
    for word in BLOCKED_1:
        game.push(word)
    save_record(game.to_record(), own)
    line = " ".join(["d"] * 40)
    result = run(["play", "--plain", "--resume", str(own)], input=f"u 8\nd w {line}\nu 22\nq\n")
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    last = out[out.rindex("You stopped at move"):]
    assert f"{own} keeps another finished game from this position (12 moves)" in last, last
    assert "nothing new was played" not in last and "holds a copy" not in last


def test_a_game_resumed_from_a_pipe_with_no_games_folder_says_it_cannot_be_saved_as_played(run, tmp_path, monkeypatch,
                                                                                          home):
    """"/dev/fd/63 is not a regular file, so the game goes on in a new file", where no file could be made."""
    record = tmp_path / "g.json"
    game = Game.new(1, "osmosis")
    game.push("d")
    save_record(game.to_record(), record)
    home.mkdir(parents=True, exist_ok=True)
    (home / "games").touch()  # a file where the games folder would go
    result = through_a_pipe(record, run, ["play", "--plain", "--resume"], "q\n")
    out = " ".join(result.stdout.split())
    assert "is not a regular file, and the game cannot be saved as you play:" in out
    assert "goes on in a new file" not in out
