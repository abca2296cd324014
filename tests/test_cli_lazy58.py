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
