"""Golden reviews: the review's JSON and report of saved games stay byte-for-byte the same.

The games under ``tests/golden/review`` (five presets) cover five of the seven tags (late-start and
talon-shift need long games: tests/test_review.py finds them), luck,
the hindsight sentences (a blocking cycle, a thrown-away win, a deal lost from
the start), free plays, forced moves, close calls and the critical moments.
The expected files were written by the review before it was split into
facts and words; a change to the words or the figures shows here as a diff.

When a change is meant (new wording, a new grading), write the files again
with ``OSMOSIS_REGOLD=1 python -m pytest tests/test_review_golden.py`` and
read the diff.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from rich.console import Console

from tutor.cli.review import render_review
from tutor.record import load_record
from tutor.review import review

GOLDEN = Path(__file__).parent / "golden" / "review"
GAMES = sorted(p.name.removesuffix(".record.json") for p in GOLDEN.glob("*.record.json"))
SAMPLES = 6


def _report(rev, width: int, symbols: bool) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(render_review(rev, symbols, width=width))
    return console.file.getvalue()


def outputs(name: str) -> dict[str, str]:
    """The review's outputs for one saved game: its JSON (candidates aside, to keep the files small), two reports."""
    rev = review(load_record(GOLDEN / f"{name}.record.json"), samples=SAMPLES, workers=1)
    data = rev.to_json()
    for m in data["moves"]:
        m.pop("candidates", None)
    return {"review.json": json.dumps(data, indent=1, ensure_ascii=False) + "\n",
            "report.txt": _report(rev, 100, False), "narrow.txt": _report(rev, 60, True)}


def test_the_golden_games_cover_every_tag_and_both_kinds_of_moment():
    tags, kinds, text = set(), set(), ""
    for name in GAMES:
        data = json.loads((GOLDEN / f"{name}.review.json").read_text(encoding="utf-8"))
        tags |= {t for m in data["moves"] for t in m["tags"]}
        kinds |= {c["kind"] for c in data["critical"]}
        text += " ".join(m["comment"] for m in data["moves"])
    assert tags >= {"early-start", "wrong-row", "turned-past", "reserve-dig", "no-progress"}
    assert kinds == {"error", "luck"}
    for words in ("With hindsight (all cards known), putting", "Luck, not a choice", "A free play",
                  "The only legal move", "Too close to call", "Tip: "):
        assert words in text, words


@pytest.mark.parametrize("name", GAMES)
def test_review_of_a_saved_game_is_byte_identical_to_its_golden(name):
    got = outputs(name)
    if os.environ.get("OSMOSIS_REGOLD"):
        for kind, text in got.items():
            (GOLDEN / f"{name}.{kind}").write_text(text, encoding="utf-8")
    for kind, text in got.items():
        assert text == (GOLDEN / f"{name}.{kind}").read_text(encoding="utf-8"), f"{name}.{kind}"


def test_the_command_prints_the_same_review(run):
    path = GOLDEN / "osmosis-54-cycle.record.json"
    result = run(["review", str(path), "--json", "--samples", str(SAMPLES), "--workers", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    for m in data["moves"]:
        m.pop("candidates", None)
    assert json.dumps(data, indent=1, ensure_ascii=False) + "\n" == (
        GOLDEN / "osmosis-54-cycle.review.json").read_text(encoding="utf-8")
    text = run(["review", str(path), "--samples", str(SAMPLES), "--workers", "1"]).output
    assert "Review of deal 54" in text and "With hindsight (all cards known)" in text
