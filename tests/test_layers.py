"""Imports point one way: only render (with its table), board and cli know rich, click or textual."""

from __future__ import annotations

import ast
from pathlib import Path

import tutor

UI = {"rich", "click", "textual"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_only_render_board_and_cli_import_the_ui_libraries():
    root = Path(tutor.__file__).parent
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if rel.parts[0] in ("cli", "board") or rel.name in ("render.py", "table.py"):
            continue
        assert not _imports(path) & UI, f"{rel} imports {_imports(path) & UI}"


def test_the_board_does_not_import_click():
    root = Path(tutor.__file__).parent / "board"
    for path in root.rglob("*.py"):
        assert "click" not in _imports(path), path.name


def test_starting_a_command_does_not_load_networkx():
    """networkx took 113 of the 280 ms every command spent starting (cycles.py imported it at the top);
    it is loaded where a graph is built."""
    import subprocess
    import sys

    code = "import sys, tutor.entry, tutor.cli; print('networkx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
