"""The README's benchmark scripts meet bad input as the command does: one line, exit status 1, no traceback,
and nothing made where a name was mistyped."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def script(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / name), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def one_line_error(result: subprocess.CompletedProcess[str], said: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert result.stderr.count("\n") == 1 and said in result.stderr, result.stderr


@pytest.mark.parametrize("make, said", [
    (None, "is not a file: give the path of a results store"),
    ("junk", "cannot be read as a results store (file is not a database)"),
    ("other", "is not an osmosis results store (it has no configs and outcomes tables)"),
])
def test_rekey_refuses_what_is_not_a_results_store_in_one_line(tmp_path, make, said):
    """A missing name gave a traceback (no such table: configs) and left an empty file of that name; a text
    file or the game history gave a traceback too."""
    store = tmp_path / "store.sqlite3"
    if make == "junk":
        store.write_text("junk\n")
    elif make == "other":
        with sqlite3.connect(store) as db:
            db.execute("CREATE TABLE games (id INTEGER)")
    before = store.read_bytes() if store.exists() else None
    one_line_error(script("rekey.py", str(store), "--verify", cwd=tmp_path), said)
    assert (store.read_bytes() if store.exists() else None) == before  # nothing made, nothing changed


@pytest.mark.parametrize("what", ["table", "times"])
def test_survey_from_a_folder_missing_or_without_per_deal_files_is_one_line(tmp_path, what):
    """A mistyped --from printed an empty table and exited 0, which read as "no results"."""
    one_line_error(script("survey.py", what, "--from", "nodir", cwd=tmp_path), "'nodir' is not a folder")
    (tmp_path / "empty").mkdir()
    one_line_error(script("survey.py", what, "--from", "empty", cwd=tmp_path), "'empty' holds no per-deal files")
