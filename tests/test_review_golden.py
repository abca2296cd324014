"""Golden reviews: the review's JSON and report of saved games stay byte-for-byte the same.

The games under ``tests/golden/review`` (five presets) cover five of the seven tags (late-start and
talon-shift need long games: tests/test_review.py finds them), luck,
the hindsight sentences (a blocking cycle, a thrown-away win, a deal lost from
the start), free plays, forced moves, close calls and the critical moments.
The expected files were written by the review before it was split into
facts and words; a change to the words or the figures shows here as a diff.

Each fact a comment or a moment is built from is also checked against the engine.

When a change is meant (new wording, a new grading), write the files again
with ``OSMOSIS_REGOLD=1 python -m pytest tests/test_review_golden.py`` and
read the diff.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
from pathlib import Path

import pytest
from rich.console import Console

from tutor.cli.review import render_review
from tutor.knowledge import observe, seen_cards
from tutor.record import load_record
from tutor.review import Label, Review, review
from tutor.review.facts import (
    Decided,
    EarlyStart,
    ErrorMoment,
    LateStart,
    LuckMoment,
    NoProgress,
    ReserveDig,
    TalonShift,
    TurnedPast,
    Ungraded,
    WrongRow,
)
from tutor.search import lost_from_start
from tutor.state import State
from tutor.talon import turning_blocks

GOLDEN = Path(__file__).parent / "golden" / "review"
GAMES = sorted(p.name.removesuffix(".record.json") for p in GOLDEN.glob("*.record.json"))
SAMPLES = 6
WIDE = {"osmosis-54-cycle", "osmosis-75-reserve-dig"}
"""Games where an error label in doubt drew more deals (so the check of their figures is tested)."""


def _report(rev, width: int, symbols: bool) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(render_review(rev, symbols, width=width))
    return console.file.getvalue()


@functools.cache
def reviewed(name: str) -> Review:
    return review(load_record(GOLDEN / f"{name}.record.json"), samples=SAMPLES, workers=1)


def outputs(name: str) -> dict[str, str]:
    """The review's outputs for one saved game: its JSON (candidates aside, to keep the files small), two reports."""
    rev = reviewed(name)
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
    for words in ("With hindsight (all cards known), this move threw away a win", "blocked the rows below",
                  "Luck, not a choice", "A free play", "The only legal move", "Too close to call", "Tip: ",
                  "No choice here could save the game"):
        assert words in text, words


def test_a_comment_gives_the_hindsight_caveat_once():
    """A win thrown away and the row that blocked share one caveat, not two sentences that both start with it."""
    both = 0
    for name in GAMES:
        data = json.loads((GOLDEN / f"{name}.review.json").read_text(encoding="utf-8"))
        for m in data["moves"]:
            assert m["comment"].count("With hindsight") <= 1, m["comment"]
            both += "threw away a win" in m["comment"] and "blocked the rows below" in m["comment"]
    assert both  # the golden games hold such a move, so the check above is tested


def test_the_move_that_would_have_kept_the_win_is_named_with_its_card():
    data = json.loads((GOLDEN / "peek-turned-past.review.json").read_text(encoding="utf-8"))
    comments = " ".join(m["comment"] for m in data["moves"])
    better = data["hindsight"]["better"]
    assert re.search(rf"a win, and {better} \((turn|redeal|[2-9TJQKA][SHDC]|10[SHDC])\) would have kept it", comments)


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
    data = json.loads(result.stdout)
    for m in data["moves"]:
        m.pop("candidates", None)
    assert json.dumps(data, indent=1, ensure_ascii=False) + "\n" == (
        GOLDEN / "osmosis-54-cycle.review.json").read_text(encoding="utf-8")
    text = run(["review", str(path), "--samples", str(SAMPLES), "--workers", "1"]).output
    assert "Review of deal 54" in text and "With hindsight (all cards known)" in text


def _opens(state: State, card: int | None) -> bool:
    return card is not None and card // 13 not in state.rows and state.destination(card) == len(state.rows)


@pytest.mark.parametrize("name", GAMES)
def test_every_fact_of_the_review_holds_in_the_game(name):
    """The claim check of the review: each fact a comment or a moment is built from, against the engine."""
    rev = reviewed(name)
    states, moves = list(rev.states), list(rev.record.moves)
    placed_later = [{s.card_of(mv) for s, mv in zip(states[k:], moves[k:])} for k in range(len(moves) + 1)]
    for m in rev.moves:
        state, after, facts = states[m.ply - 1], states[m.ply], m.facts
        assert facts is not None
        card = state.card_of(m.move)
        if isinstance(facts.grade, Ungraded):
            assert facts.grade.forced == (len(state.legal_moves()) == 1)
            assert facts.grade.forced or not _opens(state, card)
        elif isinstance(facts.grade, Decided):
            # every legal move scored, every consistent deal solved, and all of them lost (a won position stays graded)
            assert m.decided and not m.graded and len(state.legal_moves()) > 1
            assert {c.move for c in m.candidates} == set(state.legal_moves())
            assert all(c.exact and c.samples == facts.grade.samples for c in m.candidates)
            assert {c.win for c in m.candidates} == {0.0}
            assert facts.grade.played.move == m.move
            more = facts.grade.more
            assert more is None or more.cards > facts.grade.played.cards
        else:
            assert facts.grade.move == facts.grade.played.move == m.move and facts.grade.top.move in state.legal_moves()
            if m.paired is not None and not m.paired.exact and m.paired.samples > m.samples:
                # more deals drawn, the move graded best or good: its figures stay the shared deals' (the
                # chart's line), and its comment names the deals its drop rests on
                assert m.label <= Label.GOOD and m.shared == 0
                assert m.label == Label.BEST or f"on {m.paired.samples} deals, paired" in m.comment
            if m.shared:  # more deals drawn for the label: the two win chances are on them, and match the drop
                assert m.paired is not None and m.samples == m.paired.samples > m.shared
                assert abs(max(0.0, m.paired.estimate) - (m.win_before - m.win_after)) < 1e-9
                # their cards stay the shared deals' (the extra ones are scored for the win only), and say so
                played = next(c for c in m.candidates if c.move == m.move)
                assert played.cards_deals == m.shared < played.samples
                assert all(c.cards_deals == m.shared for c in m.candidates)
        for t in facts.tags:
            if isinstance(t, EarlyStart):
                assert t.card == card and _opens(state, card) and t.row == len(state.rows) + 1
                assert t.start_rank == state.start_rank == card % 13 + 1
                assert not _opens(state, state.card_of(t.wait.move))
            elif isinstance(t, WrongRow):
                assert t.card == card and t.other_card == state.card_of(t.other.move) and _opens(state, t.other_card)
                assert t.other_card // 13 != card // 13
            elif isinstance(t, LateStart):
                assert not _opens(state, card) and _opens(state, t.open_card)
            elif isinstance(t, NoProgress):
                # the pass ends with no play: at once, or with every card still to turn known and none playable
                assert m.move.kind == "d" and not state.progress
                assert after.blocked or turning_blocks(observe(state))
            elif isinstance(t, TurnedPast):
                assert m.move.kind == "d" and t.card == state.waste_top and t.card not in placed_later[m.ply - 1]
                assert t.first_row == (t.card // 13 == state.rows[0])
            elif isinstance(t, ReserveDig):
                pile = after.reserves[t.pile]
                assert m.move.kind == "r" and m.move.pile == t.pile and t.card == card
                assert t.under == (pile[-1] if pile else None)
                if t.odds is None:  # a card known before the move (Peek), or none: not playable
                    assert t.under is None or after.destination(t.under) < 0
                else:  # face down before it: fewer than half of the cards it could be were playable
                    unseen = observe(state).unseen_cards()
                    assert t.odds == (sum(after.destination(c) >= 0 for c in unseen), len(unseen))
                    assert 2 * t.odds[0] < t.odds[1] and not state.rules.open_reserve
            elif isinstance(t, TalonShift):
                assert m.move.kind == "w" and t.card == card == state.waste_top
        if facts.cycle is not None:
            assert facts.cycle.card == card and lost_from_start(state) is None and lost_from_start(after) is not None
        assert (facts.threw_away is not None) == (rev.hindsight.lost_at_ply == m.ply and not isinstance(
            facts.grade, Ungraded))
        assert m.decided == isinstance(facts.grade, Decided)
        assert (facts.only_move is not None) == m.only_move
        if facts.luck is not None:
            assert facts.luck.seen == tuple(sorted(seen_cards(after) - seen_cards(state))) == m.seen
    assert any(m.shared for m in rev.moves) or name not in WIDE

    for c in rev.critical:
        if isinstance(c.fact, ErrorMoment):
            assert c.fact.move == moves[c.ply - 1] and c.fact.best == rev.moves[c.ply - 1].best
        else:
            assert isinstance(c.fact, LuckMoment) and c.fact.seen == rev.moves[c.ply - 1].seen


@pytest.mark.parametrize("name", ["osmosis-54-cycle", "osmosis-75-reserve-dig"])
def test_the_ascii_chart_keeps_every_mark_under_its_move(name):
    """Under PYTHONIOENCODING=ascii the stand-ins ?! and ?? took two cells, and every later mark sat a column
    or more to the right of its move."""
    from tutor.cli.review_report import chart
    from tutor.textsafe import STAND_INS

    rev = reviewed(name)
    glyphs, plain = chart(rev, 80).plain, chart(rev, 80, ascii_only=True).plain
    assert any(g in glyphs for g in "⁈⁇")  # the game has marks to place
    plain_lines, glyph_lines = plain.splitlines(), glyphs.splitlines()
    assert len(plain_lines) == len(glyph_lines)
    for a, b in zip(glyph_lines[:-2], plain_lines[:-2]):  # the legend's words differ; the rows do not
        assert len(a) == len(b)
        assert [i for i, ch in enumerate(a) if ch != " "] == [i for i, ch in enumerate(b) if ch != " "]
    written = "".join(STAND_INS.get(ch, ch) for ch in plain).splitlines()  # as an ASCII output writes it
    assert all(line.isascii() for line in written)
    assert [len(line) for line in written[:-2]] == [len(line) for line in glyph_lines[:-2]]
