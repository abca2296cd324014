"""The README's win-rate table rebuilt from per-deal files (benchmarks/survey.py table --from), and the
published files checked against each other: no player wins a deal the solver calls lost."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


@pytest.fixture(scope="module")
def survey():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import survey

    return survey


def write(folder: Path, name: str, policy: str, rows: list[tuple[int, bool | None, int]]) -> None:
    path = folder / f"{name}-{policy}-1-{len(rows)}.jsonl.gz"
    with gzip.open(path, "wt") as fh:
        for deal, won, cards in rows:
            fh.write(json.dumps({"deal": deal, "variant": name, "policy": policy, "won": won, "cards": cards,
                                 "seconds": 0.5}) + "\n")


def table_rows(text: str) -> dict[tuple[str, str], list[str]]:
    out = {}
    for line in text.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            out[(cells[0].strip("`"), cells[1])] = cells
    return out


def test_the_share_of_the_winnable_joins_the_solver_file_deal_by_deal(survey, tmp_path, capsys):
    write(tmp_path, "osmosis", "solver", [(1, True, 52), (2, False, 30), (3, True, 52), (4, True, 52)])
    write(tmp_path, "osmosis", "greedy", [(1, True, 52), (2, False, 20), (3, False, 40), (4, False, 33)])
    write(tmp_path, "osmosis", "tutor", [(1, True, 52), (2, False, 25), (3, True, 52)])
    survey.table_from_files(tmp_path, ["solver", "greedy", "tutor"])
    rows = table_rows(capsys.readouterr().out)
    solver, greedy, tutor = rows[("osmosis", "solver")], rows[("osmosis", "greedy")], rows[("osmosis", "tutor")]
    assert solver[2] == "4" and solver[3].startswith("3 = 75.0%") and solver[4] == "-"
    assert greedy[4].startswith("1/3 = 33.3%")
    assert tutor[2] == "3" and tutor[4].startswith("2/2 = 100.0%")
    mean, interval = tutor[5].split(" ", 1)  # the mean cards with their 95% interval, as osmosis stats gives it
    assert mean == f"{(52 + 25 + 52) / 3:.2f}"
    from tutor.estimate import mean_interval

    low, high = mean_interval([52, 25, 52])
    assert interval == f"({low:.2f}-{high:.2f})"


def test_peek_takes_the_larger_osmosis_solver_file_and_says_so(survey, tmp_path, capsys):
    write(tmp_path, "osmosis", "solver", [(1, True, 52), (2, False, 30), (3, True, 52)])
    write(tmp_path, "peek", "solver", [(1, True, 52)])
    write(tmp_path, "peek", "greedy", [(1, False, 30), (2, False, 20), (3, True, 52)])
    survey.table_from_files(tmp_path, ["solver", "greedy"])
    out = capsys.readouterr().out
    rows = table_rows(out)
    assert rows[("peek", "solver")][2] == "3"
    assert "with every card known peek is osmosis" in rows[("peek", "solver")][-1]
    assert rows[("peek", "greedy")][4].startswith("1/2 = 50.0%")
    assert "peek's own solver file: peek-solver-1-1.jsonl.gz, 1 deals" in out


def test_a_win_the_solver_calls_lost_is_reported(survey, tmp_path, capsys):
    write(tmp_path, "single", "solver", [(1, False, 30), (2, True, 52)])
    write(tmp_path, "single", "greedy", [(1, True, 52), (2, True, 52), (3, True, 52)])
    survey.table_from_files(tmp_path, ["solver", "greedy"])
    out = capsys.readouterr().out
    assert "single greedy won 1 deals the solver calls lost: 1" in out
    assert "(on the 2 deals the solver file covers)" in table_rows(out)[("single", "greedy")][4]


def published(path: Path) -> dict[int, bool | None]:
    with gzip.open(path, "rt") as fh:
        return {row["deal"]: row["won"] for row in map(json.loads, fh)}


@pytest.mark.parametrize("path", sorted(p for p in RESULTS.glob("*.jsonl.gz") if "-solver-" not in p.name),
                         ids=lambda p: p.name)
def test_no_published_player_wins_a_deal_the_solver_calls_lost(path):
    name = path.name.split("-")[0]
    solver_files = sorted(RESULTS.glob(f"{'osmosis' if name == 'peek' else name}-solver-*.jsonl.gz"),
                          key=lambda p: p.stat().st_size)
    verdict = published(solver_files[-1])
    played = published(path)
    assert set(played) & set(verdict)
    assert [d for d, won in played.items() if won and verdict.get(d) is False] == []
