"""The fixtures every test may ask for: deal 1, a fresh data folder, and the one CLI runner.

Plain helper functions (deals from card names, positions from moves) live in
``builders.py``, imported as a module, never from this file."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest
from builders import osmosis

from tutor.deals import Deal, deal_for
from tutor.rules import preset


@pytest.fixture
def deal_one() -> Deal:
    """PySolFC Osmosis deal 1: base 2S, pile 1 JD 5D KD AD."""
    return deal_for(1, preset("osmosis"))


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path, monkeypatch) -> None:
    """Every test's own $OSMOSIS_HOME (the ``home`` fixture's folder), for the code a test runs in this process
    (the board's tests) and the processes it starts: none writes to the data folder of whoever runs the tests
    (636 games there came from tests that did not set it)."""
    monkeypatch.setenv("OSMOSIS_HOME", str(tmp_path / "home"))


@pytest.fixture
def home(tmp_path) -> Path:
    """A fresh data directory ($OSMOSIS_HOME) for one test."""
    return tmp_path / "home"


@pytest.fixture
def run(home):
    """Invoke the osmosis command with plain output, a fixed width and a fresh data directory."""
    def invoke(args, input=None, env=None):
        return osmosis(args, home, input=input, env=env)

    return invoke


@pytest.fixture(autouse=True, scope="session")
def _ctrl_c_as_at_a_terminal() -> None:
    """Ctrl-C raises KeyboardInterrupt in this process and in the processes it starts, as for a player at a
    terminal, also where the tests were started with SIGINT ignored (a shell's background job without job
    control, ``pytest &`` in a script): Python keeps an ignored SIGINT ignored, and the tests that send one
    then saw nothing happen."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
