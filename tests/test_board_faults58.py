"""Board faults found at stop 57: what the board says of a failed autosave, and of a save to a file after it."""

from __future__ import annotations

from test_board import flat, make_session, says, screens

from tutor.cli.saves import GameFiles
from tutor.errors import RecordError


def _failing_after_first_move(session, monkeypatch):
    """The autosave file refuses writes from the second move on (a full disk, say); other files take them."""
    real = GameFiles._write

    def write(self, path):
        if self.autosave is not None and str(path) == str(self.autosave) and self.game.ply >= 2:
            raise RecordError(f"cannot write {path}: No space left on device")
        real(self, path)

    monkeypatch.setattr(GameFiles, "_write", write)


def test_a_failed_autosave_tells_the_boards_way_to_save_and_counts_the_moves_not_saved(tmp_path, monkeypatch):
    """It said "type s FILE", which on the board plays s (save to the game's own file), a space (a turn) and
    opens the box at "/"; and "5 moves played, not saved" where the file held the first 3."""
    session = make_session(tmp_path, number=5)
    _failing_after_first_move(session, monkeypatch)
    shown = screens(session, ["d", "d", "d"], height=40)
    first, again = flat(shown[2]), flat(shown[3])
    assert says(first, "The moves from now on are not saved: press : and type s and a file name, like s game.json,")
    assert "type s FILE to save the game" not in first
    assert says(again, "Autosave failed again: moves 2-3 are not saved; press : and type s and a file name")
    assert session.game.ply == 3


def test_a_save_to_a_file_after_a_failed_autosave_clears_the_warning(tmp_path, monkeypatch):
    """The warning "Not saved: ..." stayed under "Saved to F." for the rest of the game, F holding every move."""
    session = make_session(tmp_path, number=5)
    _failing_after_first_move(session, monkeypatch)
    mine = tmp_path / "mine.json"
    shown = screens(session, ["d", "d", "colon", *f"s {mine}", "enter", "d"], height=40)
    assert "Not saved:" in flat(shown[2])
    after_save = flat(shown[-2])
    assert says(after_save, f"Saved to {mine}.") and "Not saved:" not in after_save
    assert "Not saved:" in flat(shown[-1])  # the next move is in no file: the warning is back


def _burst(app, keys, size=(80, 40)):
    """``keys`` sent at once, as a paste or key repeat sends them; the screens on the stack after."""
    import asyncio

    from test_board import settle
    from textual import events

    async def go():
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for key in keys:
                app._driver.send_message(events.Key(key, "?" if key == "question_mark" else
                                                    (key if len(key) == 1 else None)))
            await settle(app, pilot)
            for _ in range(5):
                await pilot.pause(0.05)
            return len(app.screen_stack)

    return asyncio.run(go())


def test_keys_in_the_burst_that_opened_the_help_close_it_and_then_play(tmp_path):
    """"? x d d d" at once: the keys after ? reached the board while the help was not yet taking keys, were
    lost, and the help stayed open. The first closes it (any key does), the rest are the board's."""
    from tutor.board.play import BoardApp

    session = make_session(tmp_path, number=34)
    assert _burst(BoardApp(session), ["question_mark", "x", "d", "d", "d"]) == 1
    assert [str(m) for m in session.game.moves] == ["d", "d", "d"]
    session = make_session(tmp_path / "two", number=34)
    assert _burst(BoardApp(session), ["d", "question_mark", "x", "d"]) == 1
    assert [str(m) for m in session.game.moves] == ["d", "d"]


def test_the_replay_viewers_help_takes_a_burst_the_same_way(tmp_path):
    from tutor.board.replay import ReplayApp
    from tutor.deals import deal_for
    from tutor.record import Record
    from tutor.rules import preset

    rules = preset("osmosis")
    record = Record(rules, deal_for(14, rules), ["d"] * 6)
    app = ReplayApp(record, None, symbols=True)
    assert _burst(app, ["question_mark", "x", "right", "right"]) == 1
    assert app.ply == 2


def test_the_moves_not_saved_are_counted_from_what_the_file_holds(tmp_path):
    from tutor.record import Game

    game = Game.new(5, "osmosis")
    files = GameFiles(game, tmp_path / "no-such-folder", "game")
    assert files._not_saved() == "no file holds the game yet"  # not "moves 1-0 are not saved"
    game.push("d")
    assert files._not_saved() == "move 1 is not saved"
    game.push("d")
    assert files._not_saved() == "moves 1-2 are not saved"
