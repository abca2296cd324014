"""Words and layout: one spelling of cards, lines cut at words at 60 columns, counts that add up, chess glyphs."""

from __future__ import annotations

import io
import re

import pytest
from builders import position
from rich.console import Console

from tutor.cli.review import chart, counts_line, render_review
from tutor.deals import deal_for
from tutor.record import Record
from tutor.render import prose, render_state
from tutor.review import Label, review
from tutor.rules import preset
from tutor.state import State


def test_prose_respells_card_names_and_leaves_other_words_alone():
    assert prose("Play TS from pile 3, then 10H and 7c; HAS r2 AS", symbols=True).plain == \
        "Play T♠ from pile 3, then T♥ and 7c; HAS r2 A♠"
    assert prose("Play TS", symbols=False).plain == "Play TS"
    red = prose("7H", symbols=True)
    assert red.plain == "7♥" and "red" in str(red.spans[0].style)


def _print(renderable, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, highlight=False)
    console.print(renderable)
    return console.file.getvalue()


def test_the_reserve_line_wraps_by_whole_piles_at_60_columns():
    text = _print(render_state(position(1, "d"), symbols=False), 60)
    lines = text.splitlines()
    assert all(len(line) <= 60 for line in lines)
    assert "Reserve  r1 ▒▒ ▒▒ ▒▒ AD   r2 ▒▒ ▒▒ ▒▒ QC   r3 ▒▒ ▒▒ ▒▒ KH" in text
    assert "         r4 ▒▒ ▒▒ ▒▒ 3H" in text
    wide = _print(render_state(position(1, "d"), symbols=False), 100)
    assert "r3 ▒▒ ▒▒ ▒▒ KH   r4 ▒▒ ▒▒ ▒▒ 3H" in wide


@pytest.fixture(scope="module")
def rev():
    rules = preset("osmosis")
    deal = deal_for(18, rules)
    state, moves = State.initial(deal, rules), []
    while not state.over:
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.apply(move)
    return review(Record(rules, deal, moves), samples=8, workers=1)


def test_review_counts_add_up(rev):
    text = counts_line(rev).plain
    m = re.match(r"(\d+) moves: (\d+) graded \((\d+) best, (\d+) good, (\d+) inaccurac\w+ \?!, (\d+) mistakes? \?, "
                 r"(\d+) blunders? \?\?\)(?:; (.*) moves? not graded)?$", " ".join(text.split()))
    assert m, text
    total, graded, *labels = (int(x) for x in m.groups()[:7])
    apart = dict((w, int(n)) for n, w in re.findall(r"(\d+) (forced|free|already decided)", m.group(8) or ""))
    assert 0 not in apart.values()  # a count apart is named only when there are some
    forced, free, decided = (apart.get(w, 0) for w in ("forced", "free", "already decided"))
    assert total == len(rev.moves) == graded + forced + free + decided
    assert decided == sum(m.decided for m in rev.moves)
    assert sum(labels) == graded == rev.graded


def test_chart_uses_chess_glyphs_and_a_cursor(rev):
    text = chart(rev, 80, cursor=10).plain
    assert "!" not in text.replace("?!", "")
    assert "⁈ inaccuracy (?!), ? mistake, ⁇ blunder (??)" in " ".join(text.split())
    glyphs = {Label.INACCURACY: "⁈", Label.MISTAKE: "?", Label.BLUNDER: "⁇"}
    marks = "".join(line for line in text.splitlines()[1:2])
    for m in rev.moves[:72]:
        if m.label >= Label.INACCURACY:
            assert marks[7 + m.ply - 1] == glyphs[m.label]
    cursor = next(line for line in text.splitlines() if "▲" in line)
    assert cursor.index("▲") == 7 + 10 - 1 and "move 10" in cursor
    # at the right end of a row the label goes before the marker: "▲ mo" was cut at 80 columns
    per_row = 80 - 8
    if len(rev.moves) >= per_row:
        end = next(line for line in chart(rev, 80, cursor=per_row).plain.splitlines() if "▲" in line)
        assert end.rstrip().endswith(f"move {per_row} ▲") and end.index("▲") == 7 + per_row - 1 and len(end) <= 80


@pytest.mark.parametrize("width", [60, 80, 120])
def test_review_report_says_move_not_ply_and_breaks_no_word(rev, width):
    text = _print(render_review(rev, symbols=False, width=width), width)
    assert not re.search(r"\bply\b", text)
    assert all(len(line) <= width for line in text.splitlines())
    words = set(text.split())
    for m in rev.moves:
        if m.label >= Label.INACCURACY:
            for word in m.comment.split():
                assert word in words, (word, width)


def test_review_help_does_not_send_the_reader_to_the_spec(run):
    out = run(["review", "--help"]).stdout
    assert "spec" not in out.lower()
