"""The ``osmosis`` entry point: a Ctrl-C while the command's modules load is one line, exit status 130."""

from __future__ import annotations

import sys
import types

import pytest


def test_a_ctrl_c_while_the_cli_loads_is_one_line_and_exit_130(monkeypatch, capsys):
    from tutor import entry

    class Loading(types.ModuleType):
        def __getattr__(self, name):
            raise KeyboardInterrupt  # as a Ctrl-C half a second after the command started

    monkeypatch.setitem(sys.modules, "tutor.cli", Loading("tutor.cli"))
    with pytest.raises(SystemExit) as info:
        entry.run()
    assert info.value.code == 130 and capsys.readouterr().err == "interrupted\n"


def test_the_entry_point_runs_the_cli(monkeypatch, capsys):
    from tutor import entry

    monkeypatch.setattr(sys, "argv", ["osmosis", "--version"])
    with pytest.raises(SystemExit) as info:
        entry.run()
    assert info.value.code == 0 and "osmosis" in capsys.readouterr().out
