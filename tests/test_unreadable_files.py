"""Files that exist but cannot be read: one line and exit 1 as input, and never written over as output.

click's own check of a path made an unreadable deal file or record a usage error (three lines, exit 2) in
solve, hint, import, export and stats, and `import good.json locked.json` took nothing in; with that check
gone, the outputs (export, --graph, --per-deal, --save, --annotate) must refuse such a file themselves: it
may be a game or a backup, and what it holds cannot be checked. A record in a folder that cannot be entered
was said not to exist.

Run as another user where the tests run as root (root reads any file): as root with the capabilities that
override file modes dropped (setpriv), or as they are for any other user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

OSMOSIS = [sys.executable, "-c", "from tutor.cli import main; main()"]
RECORD = {"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 51}, "moves": ["r2", "d", "w"]}


def _prefix(tmp_path: Path) -> list[str]:
    """The command prefix under which a file of mode 000 cannot be read (skips where there is none)."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        tool = shutil.which("setpriv")
        if tool is None:
            pytest.skip("needs setpriv to drop root's override of file modes")
        prefix = [tool, "--bounding-set=-dac_override,-dac_read_search,-fowner"]
    probe = tmp_path / "probe"
    probe.write_text("x")
    probe.chmod(0)
    try:
        if subprocess.run(prefix + ["cat", str(probe)], capture_output=True).returncode == 0:
            pytest.skip("a file of mode 000 can still be read here")
    finally:
        probe.chmod(0o644)
    return prefix


@pytest.fixture
def locked(tmp_path):
    """(run, folder): ``run(args)`` runs osmosis in ``folder`` as a user who cannot read mode-000 files."""
    prefix = _prefix(tmp_path)
    home = tmp_path / "home"
    env = {**os.environ, "OSMOSIS_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "100"}

    def run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run(prefix + OSMOSIS + args, input=stdin, capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=300)

    yield run, tmp_path
    for path in tmp_path.rglob("*"):  # pytest must be able to clean up
        path.chmod(0o755 if path.is_dir() else 0o644)


def _lock(path: Path, text: str) -> bytes:
    path.write_text(text)
    path.chmod(0)
    return text.encode()


def _one_line_exit_1(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert all(w in result.stderr for w in words), result.stderr


def test_an_input_file_that_cannot_be_read_is_one_line_and_exit_1(locked):
    run, folder = locked
    deal = run(["deal", "1", "--json"])
    _lock(folder / "d.json", deal.stdout)
    _lock(folder / "r.json", json.dumps(RECORD))
    for args in (["solve", "--deal-file", "d.json"], ["hint", "--deal-file", "d.json"], ["hint", "--record", "r.json"]):
        _one_line_exit_1(run(args), "cannot be read", "Permission denied")


def test_import_takes_the_readable_files_when_one_cannot_be_read(locked):
    run, folder = locked
    (folder / "good.json").write_text(json.dumps(RECORD))
    _lock(folder / "r.json", json.dumps(RECORD | {"moves": ["d"]}))
    result = run(["import", "good.json", "r.json"])
    assert result.returncode == 1 and "cannot be read: Permission denied" in result.stderr, result.stderr
    assert "Imported 1 game" in result.stdout
    assert json.loads(run(["history", "--json"]).stdout)["games"] == 1


@pytest.mark.parametrize("args, what", [
    (["export", "out.json"], "the export"),
    (["solve", "5", "--graph", "out.json"], "the graph"),
    (["stats", "--deals", "1-2", "--workers", "1", "--per-deal", "out.json"], "the per-deal lines"),
    (["review", "good.json", "--samples", "8", "--workers", "1", "--annotate", "out.json"], "the annotated record"),
    (["play", "51", "--plain", "--save", "out.json"], "give a new file name"),
])
def test_an_output_never_goes_over_a_file_that_cannot_be_read(locked, args, what):
    run, folder = locked
    (folder / "good.json").write_text(json.dumps(RECORD))
    before = _lock(folder / "out.json", json.dumps(RECORD))  # a game: what the file holds cannot be checked
    result = run(args, stdin="d\nq\n")
    _one_line_exit_1(result, "'out.json' cannot be read (Permission denied)", "kept as it is", what)
    (folder / "out.json").chmod(0o644)
    assert (folder / "out.json").read_bytes() == before


@pytest.mark.parametrize("command", [["review"], ["replay"], ["hint", "--record"], ["play", "--resume"]])
def test_a_record_in_a_folder_that_cannot_be_entered_is_not_said_to_be_missing(locked, command):
    run, folder = locked
    (folder / "in").mkdir()
    (folder / "in" / "good.json").write_text(json.dumps(RECORD))
    (folder / "in").chmod(0)
    result = run([*command, "in/good.json"])
    _one_line_exit_1(result, "record 'in/good.json' cannot be read: Permission denied")
    assert "does not exist" not in result.stderr
