"""The osmosis group loads a command's module when the command is wanted (stop 57: 0.44 s of every start)."""

from __future__ import annotations

import subprocess
import sys

import click

from tutor.cli import COMMANDS, main


def test_every_command_in_the_table_is_the_command_of_that_name():
    ctx = click.Context(main)
    assert main.list_commands(ctx) == sorted(COMMANDS)
    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert isinstance(command, click.Command) and command.name == name
    assert main.get_command(ctx, "nonsense") is None


def test_a_command_does_not_import_the_others():
    code = ("import sys\n"
            "from tutor.cli import main\n"
            "sys.argv = ['osmosis', 'variants']\n"
            "try:\n"
            "    main()\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('tutor.cli.') and m != 'tutor.cli.variants'),"
            " file=sys.stderr)\n"
            "print('tutor.review' in sys.modules, 'tutor.history' in sys.modules, 'tutor.lessons' in sys.modules,"
            " file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    loaded, others = out.stderr.strip().splitlines()[-2:]
    for heavy in ("tutor.cli.review", "tutor.cli.coach", "tutor.cli.drill", "tutor.cli.lesson", "tutor.cli.stats",
                  "tutor.cli.play"):
        assert heavy not in loaded
    assert others.split()[1:] == ["False", "False"]  # the history and the lessons: not for a list of variants


def test_a_mistyped_command_is_told_the_nearest_one():
    """With the commands loaded lazily, click's "Did you mean" had nothing to choose from."""
    from click.testing import CliRunner

    for typed, meant in (("hitn", "hint"), ("exprot", "export"), ("histroy", "history")):
        result = CliRunner().invoke(main, [typed])
        assert result.exit_code == 2
        assert f"No such command '{typed}'" in result.output and f"'{meant}'" in result.output


def test_ctrl_c_while_a_commands_module_loads_for_help_is_one_line(monkeypatch):
    """A Ctrl-C while help loads the commands' modules gave click's "Aborted!" and status 1 (an input
    error's); it is "interrupted" and 130, as everywhere else."""
    import importlib

    from click.testing import CliRunner

    import tutor.cli as cli

    real = importlib.import_module

    def interrupted(name, *args, **kwargs):
        if name.startswith("tutor.cli.") and name not in sys.modules:
            raise KeyboardInterrupt
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", interrupted)
    group = cli.TutorGroup(name="osmosis")
    for name in cli.COMMANDS:
        monkeypatch.delitem(sys.modules, f"tutor.cli.{cli.COMMANDS[name][0]}", raising=False)
    result = CliRunner().invoke(group, ["--help"])
    assert result.exit_code == 130 and "Aborted" not in result.output
    assert result.output.strip().splitlines()[-1] == "interrupted"
