"""Quitting the board while a hint is computed: the board goes at once, the computation is stopped, the game kept.

The hint here is a stand-in that computes until it is stopped or let go, so the tests see whether quitting waited
for it (speed itself is never asserted as a time: the stand-in only finishes by itself after a long while).
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from test_board_faults import DEAL2_32, deal2_session
from textual import events
from textual.worker import WorkerState

import tutor.advice
from tutor.board.play import BoardApp
from tutor.record import load_record

REAL_ADVISE = tutor.advice.advise
LONG = 10.0  # seconds the stand-in computes by itself: far longer than any quit takes


class Thinking:
    """``advise`` that computes (a Python loop) until released, stopped, or :data:`LONG` has passed."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.ended = threading.Event()
        self.release = threading.Event()
        self.how = ""  # "finished", or the name of the exception that stopped it

    def __call__(self, obs, samples=None):
        self.started.set()
        try:
            until = time.monotonic() + LONG
            while not self.release.is_set() and time.monotonic() < until:
                time.sleep(0.001)
            self.how = "finished"
            return REAL_ADVISE(obs, samples)
        except BaseException as exc:
            self.how = type(exc).__name__
            raise
        finally:
            self.ended.set()


@pytest.fixture
def thinking(monkeypatch):
    stand_in = Thinking()
    monkeypatch.setattr(tutor.advice, "advise", stand_in)
    yield stand_in
    stand_in.release.set()  # nothing left computing after the test
    stand_in.ended.wait(LONG)


def quit_while_thinking(session, key: str, thinking: Thinking) -> tuple[BoardApp, dict]:
    """Press ``key`` (which starts a hint), then q while the hint is computed; what was seen on the way."""
    app = BoardApp(session, symbols=True)
    seen: dict = {}

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            await pilot.pause()
            app._driver.send_message(events.Key(key, key))
            for _ in range(500):  # with --tutor the hint at the start is computed ahead: wait for the key's effect
                if thinking.started.is_set() and app.message_text:
                    break
                await asyncio.sleep(0.01)
            seen["message"] = app.message_text
            seen["workers"] = [w for w in app.workers if w.group == "hint"]
            app._driver.send_message(events.Key("q", "q"))
            for _ in range(500):
                if not app.is_running:
                    break
                await asyncio.sleep(0.01)
        seen["ended when the board was gone"] = thinking.ended.is_set()

    asyncio.run(go())
    seen["ended before it was let go"] = thinking.ended.wait(LONG / 2)
    return app, seen


def test_quitting_while_a_hint_is_computed_does_not_wait_for_it_and_stops_it(tmp_path, thinking):
    session = deal2_session(tmp_path, tutor=False)
    session.autosave_now()
    app, seen = quit_while_thinking(session, "h", thinking)
    assert seen["message"] == "Thinking..." and len(seen["workers"]) == 1
    assert not app.is_running and app.return_value is None
    assert seen["workers"][0].state == WorkerState.CANCELLED
    assert thinking.how != "finished"  # the board did not wait for the hint to be done
    assert seen["ended before it was let go"] and thinking.how == "Stopped"  # stopped where it stood, not left on


def test_quitting_while_a_move_waits_for_the_tutors_hint_keeps_the_game_as_it_was(tmp_path, thinking):
    session = deal2_session(tmp_path, tutor=True)
    session.autosave_now()
    app, seen = quit_while_thinking(session, "w", thinking)
    assert seen["message"].startswith("Thinking")
    thinking.release.set()  # were the hint still computed, it would now come back and play w
    thinking.ended.wait(LONG)
    assert not app.is_running and thinking.how != "finished"
    assert session.game.ply == 32  # w waited for the hint: it is not played after q
    assert [str(m) for m in load_record(tmp_path / "game.json").moves] == DEAL2_32  # the autosave holds every move


def test_a_hint_computed_in_its_thread_still_comes_to_the_board(tmp_path, thinking):
    session = deal2_session(tmp_path, tutor=True)
    app = BoardApp(session, symbols=True)

    async def go():
        async with app.run_test(size=(80, 50)) as pilot:
            await pilot.press("w")
            thinking.release.set()
            await app.workers.wait_for_complete()
            await pilot.pause()

    asyncio.run(go())
    assert thinking.how == "finished" and app.pending is not None  # the tutor's question about w, from the hint
    assert session.game.state in app.hints


def test_with_the_tutor_on_the_board_computes_the_hint_ahead_and_a_move_takes_it(tmp_path, thinking):
    """Each move under --tutor waits for its position's hint: the board starts it as the position is shown,
    and a move made meanwhile waits for that one, starting no second search."""
    session = deal2_session(tmp_path, tutor=True)
    app = BoardApp(session, symbols=True)
    seen: dict = {}

    async def go():
        async with app.run_test(size=(80, 40)) as pilot:
            await pilot.pause()
            for _ in range(500):
                if thinking.started.is_set():
                    break
                await asyncio.sleep(0.01)
            seen["started"] = thinking.started.is_set()  # no key pressed
            app._driver.send_message(events.Key("w", "w"))
            await pilot.pause()
            seen["workers"] = len([w for w in app.workers if w.group == "hint"])
            thinking.release.set()
            await app.workers.wait_for_complete()
            await pilot.pause()
            seen["asked"] = app.pending is not None

    asyncio.run(go())
    assert seen["started"] and seen["workers"] == 1
    assert seen["asked"] and thinking.how == "finished"  # w waited for the hint computed ahead: asked about
