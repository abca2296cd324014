"""The README's strength table is the one `benchmarks/strength.py table` prints from the per-deal files, and
its paired comparisons carry the right exact sign test."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def strength():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import strength

    return strength


def test_the_sign_test_is_the_exact_two_sided_binomial(strength):
    assert strength.sign_p(13, 4) == pytest.approx(0.04904, abs=1e-5)  # the tutor against PIMC alone, 226 deals
    assert strength.sign_p(12, 2) == pytest.approx(0.01294, abs=1e-5)
    assert strength.sign_p(0, 0) == 1.0 and strength.sign_p(3, 3) == 1.0
    assert strength.sign_p(1, 7) == strength.sign_p(7, 1) == pytest.approx(0.0703, abs=1e-4)


@pytest.mark.skipif(not (ROOT / "benchmarks" / "results" / "strength").is_dir(),
                    reason="benchmarks/results is not here (an sdist)")
def test_the_readme_table_is_what_the_files_give(strength, capsys):
    strength.table(None)
    out = capsys.readouterr().out.splitlines()
    printed = [line for line in out if line.startswith("|")]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(printed) >= 9  # the header, its rule and the osmosis, peek and other presets' rows
    # the whole table as one block: no row of it stale, none left out, none added
    at = readme.index(printed[0] + "\n")
    assert readme[at:].split("\n\n")[0].splitlines() == printed
    pooled = [line for line in out if line.startswith("Osmosis paired over all")]
    assert len(pooled) == 1 and pooled[0] in readme.splitlines()  # the sentence the goal's paragraph cites


def test_compare_pairs_two_files_deal_by_deal(strength, tmp_path, capsys):
    def write(name, won):
        path = tmp_path / name
        path.write_text("".join(json.dumps({"deal": d, "won": w}) + "\n" for d, w in won.items()))
        return str(path)

    a = write("a.jsonl", {1: True, 2: False, 3: True, 4: True})
    b = write("b.jsonl", {1: True, 2: True, 3: False, 5: True})  # deal 5 only in b: not paired
    strength.compare(type("Args", (), {"a": a, "b": b})())
    out = capsys.readouterr().out
    assert out.startswith("3 deals in both:")
    assert "only the first won 1: 3" in out and "only the second won 1: 2" in out and "p = 1" in out
