"""The fixtures every test may ask for: deal 1, a fresh data folder, and the one CLI runner.

Plain helper functions (deals from card names, positions from moves) live in
``builders.py``, imported as a module, never from this file."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import osmosis

from tutor.deals import Deal, deal_for
from tutor.rules import preset


@pytest.fixture
def deal_one() -> Deal:
    """PySolFC Osmosis deal 1: base 2S, pile 1 JD 5D KD AD."""
    return deal_for(1, preset("osmosis"))


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
