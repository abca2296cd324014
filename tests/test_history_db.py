"""The history database: migrations, a damaged file set aside, two writers at once, import/export, drills."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import tutor
from tutor.deals import deal_for
from tutor.history import db as hdb
from tutor.history import drill as drills
from tutor.history.coach import TAG_LESSONS, coach, recurring
from tutor.history.db import History, HistoryError
from tutor.history.games import add_record, note_game, open_history
from tutor.history.reviews import TAGGING, reviews, store_review
from tutor.history.stats import streaks, summary, wilson
from tutor.history.transfer import export_text, import_file
from tutor.lessons import find_lesson
from tutor.record import Record, content_of
from tutor.review import TAGS
from tutor.rules import preset


def record(n: int = 1, moves: str = "d d", variant: str = "osmosis") -> Record:
    rules = preset(variant)
    return Record(rules, deal_for(n, rules), moves.split())


class Clock:
    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def db(home, monkeypatch) -> Path:
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    return home / "history.sqlite3"


def test_a_new_database_is_at_the_latest_version_in_wal_mode_with_foreign_keys(db):
    with open_history() as h:
        assert h.version == hdb.VERSION
        assert h.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert h.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert h.conn.execute("PRAGMA busy_timeout").fetchone()[0] == hdb.BUSY_MS
    assert db.exists()


def test_an_older_schema_is_migrated_in_order_and_keeps_its_games(db):
    old = History(db, upgrade_to=1)
    assert old.version == 1
    old.conn.execute("INSERT INTO games (game_key, record, variant, deal_number, moves, cards, won, played_at) "
                     "VALUES ('games/old.json', ?, 'osmosis', 1, 2, 1, 0, '2026-01-02T03:04:05Z')",
                     (json.dumps(record().to_json()),))
    cols = {r[1] for r in old.conn.execute("PRAGMA table_info(games)")}
    assert "started_at" not in cols
    old.close()
    with open_history(import_folder=False) as h:
        assert h.version == hdb.VERSION
        (game,) = h.games()
        assert (game.key, game.moves, game.started_at, game.updated_at) == \
            ("games/old.json", 2, "2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z")
        tables = {r[0] for r in h.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"reviews", "review_moves", "drills", "drill_answers", "meta"} <= tables


def test_a_newer_schema_is_refused_and_left_alone(db):
    with open_history() as h:
        h.conn.execute("UPDATE schema_version SET version = ?", (hdb.VERSION + 1,))
    with pytest.raises(HistoryError, match="newer than this osmosis knows"):
        open_history()
    assert db.exists() and not list(db.parent.glob("*.damaged-*"))


def test_a_damaged_file_is_set_aside_and_a_new_one_started(db):
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database at all, just words " * 50)
    with open_history() as h:
        assert h.version == hdb.VERSION
        assert "set aside" in h.warning and "\n" not in h.warning
    (aside,) = db.parent.glob("history.sqlite3.damaged-*")
    assert aside.read_bytes().startswith(b"this is not a database")


@pytest.mark.parametrize("table, named", [
    ("photos (id INTEGER)", "photos"),
    # only a table of a history's name: the migration stopped at "table games already exists", an SQL error
    # in place of the line that says the file is no osmosis history
    ("games (id INTEGER PRIMARY KEY, name TEXT)", "games"),
])
def test_a_foreign_sqlite_file_is_set_aside_too(db, table, named):
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute(f"CREATE TABLE {table}")
    conn.commit()
    conn.close()
    with open_history() as h:
        assert f"not a database of osmosis-tutor (it holds tables {named})" in h.warning and "\n" not in h.warning
    assert list(db.parent.glob("history.sqlite3.damaged-*"))


def test_a_damaged_page_is_said_in_one_line_with_what_the_new_history_lacks(db):
    """SQLite's check of a damaged page runs over two lines, and the warning with it; nor did it say that the
    reviews, drills and imported games stay in the file set aside."""
    with open_history() as h:
        for n in range(1, 40):
            add_record(h, record(n), key=f"game-{n}")
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with open(db, "r+b") as fh:  # a page of the games table's b-tree overwritten
        fh.seek(4096 * 3)
        fh.write(b"\xff" * 4096)
    with open_history() as h:
        assert "set aside" in h.warning and "\n" not in h.warning
        assert "its reviews, drills and games imported from elsewhere stay only in that file" in h.warning


def test_the_same_game_key_updates_its_row_and_keeps_when_it_started(db):
    clock = Clock()
    note_game(record(moves="d"), db.parent / "games" / "g.json", clock=clock)
    clock.t += 60
    note_game(record(moves="d d"), db.parent / "games" / "g.json", clock=clock)
    with open_history() as h:
        (game,) = h.games()
        assert game.key == "games/g.json" and game.moves == 2
        assert game.started_at == hdb.iso(clock.t - 60) and game.played_at == hdb.iso(clock.t)


def _writer(path: Path, tag: str, count: int, errors: list) -> None:
    try:
        for i in range(count):
            with History(path) as h:
                add_record(h, record(i + 1, "d"), key=f"{tag}-{i}")
    except Exception as exc:  # pragma: no cover - reported by the test
        errors.append(exc)


def test_two_threads_writing_at_once_lose_nothing(db):
    History(db).close()
    errors: list = []
    threads = [threading.Thread(target=_writer, args=(db, tag, 25, errors)) for tag in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with History(db) as h:
        assert len(h.games()) == 50


def test_two_processes_writing_at_once_lose_nothing(db):
    root = Path(tutor.__file__).parent.parent
    code = ("import sys\nfrom tutor.history.db import History\nfrom tutor.history.games import add_record\n"
            "from tutor.record import Record\nfrom tutor.deals import deal_for\nfrom tutor.rules import preset\n"
            "r = preset('osmosis')\n"
            "for i in range(30):\n"
            "    with History(sys.argv[1]) as h:\n"
            "        add_record(h, Record(r, deal_for(i + 1, r), ['d', 'd']), key=f'{sys.argv[2]}-{i}')\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(db), tag], cwd=root, stderr=subprocess.PIPE)
             for tag in ("p", "q")]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    with History(db) as h:
        keys = {g.key for g in h.games()}
    assert keys == {f"{t}-{i}" for t in ("p", "q") for i in range(30)}


def _review(moves: list[dict], accuracy: float = 50.0, reviewed: int = 2) -> dict:
    """A stored review of a game of ``reviewed`` moves (only the moves that matter are listed)."""
    return {"moves_reviewed": reviewed, "accuracy": accuracy, "graded": sum(m["graded"] for m in moves),
            "samples": 8, "thresholds": {}, "hindsight": {}, "tagging": TAGGING, "moves": moves}


def _move(ply, move, best, label="best", tags=(), drop=0.0, graded=True, cands=()):
    return {"ply": ply, "move": move, "best": best, "label": label, "tags": list(tags), "drop": drop,
            "win_before": 0.5, "win_after": 0.5 - drop / 100, "graded": graded, "comment": "", "candidates": list(cands)}


def test_export_then_import_gives_the_same_history_and_a_second_import_changes_nothing(db, tmp_path, monkeypatch):
    clock = Clock()
    with open_history(clock=clock) as h:
        a = add_record(h, record(3, "d d d"), key="games/a.json", source="a.json")
        clock.t += 100
        add_record(h, record(4, "d"), key="games/b.json")
        store_review(h, a, _review([_move(1, "d", "d"), _move(2, "d", "r1", "blunder", ["turned-past"], 40.0),
                                    _move(3, "d", "d", graded=False)], reviewed=3))
        drills.sync_drills(h)
        (d,) = drills.due(h)
        drills.answer(h, d, "r1", True)
        first = export_text(h)
    out = tmp_path / "export.jsonl"
    out.write_text(first)
    lines = [json.loads(x) for x in first.splitlines()]
    assert [x["format"] for x in lines] == ["osmosis-history/1"] * 2
    assert lines[0]["review"]["moves"][1]["tags"] == ["turned-past"] and lines[0]["drills"][0]["box"] == 1
    monkeypatch.setenv("OSMOSIS_HOME", str(tmp_path / "other"))
    with open_history() as h2:
        result = import_file(h2, out)
        assert (result.games, result.reviews, result.drills, result.problems) == (2, 1, 1, [])
        assert export_text(h2) == first
        import_file(h2, out)
        assert export_text(h2) == first


def test_import_takes_a_record_written_by_hand_and_keeps_one_row_for_the_same_game(db, tmp_path):
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 5},
                             "moves": ["d", "d"]}))
    copy = tmp_path / "copy.json"
    copy.write_text(f.read_text())
    with open_history() as h:
        assert import_file(h, f).games == 1
        assert import_file(h, copy).games == 1
        (game,) = h.games()
        assert game.deal_number == 5 and game.moves == 2
        bad = tmp_path / "bad.json"
        bad.write_text('{"format": "osmosis-record/1", "deal": {"number": 5}, "moves": ["x9"]}')
        assert import_file(h, bad).problems


def test_figures_streaks_and_wilson():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(1, 4)
    assert 0.04 < lo < 0.05 and 0.69 < hi < 0.70

    class G:
        def __init__(self, won, over=True, moves=5):
            self.won, self.over, self.moves = won, over, moves

    s = streaks([G(True), G(True), G(False), G(True), G(True), G(True), G(False, over=False), G(False, moves=0)])
    assert (s.current, s.longest_wins, s.longest_losses) == (3, 3, 1)


def test_summary_counts_games_with_moves_and_the_last_n(db):
    clock = Clock()
    with open_history(clock=clock) as h:
        for n, moves in ((1, "d"), (2, ""), (3, "d d")):
            clock.t += 10
            add_record(h, record(n, moves), key=f"k{n}")
        s = summary(h, last_n=1)
    assert (s.all.games, s.last.games, [g.deal for g in s.recent]) == (2, 1, [3])
    assert s.to_json()["mean_cards"] == 1.0


def test_coach_counts_tags_trend_and_worst_examples(db):
    clock = Clock()
    with open_history(clock=clock) as h:
        ids = []
        for n in range(4):
            clock.t += 10
            ids.append(add_record(h, record(n + 1, "d d"), key=f"g{n}"))
        # early-start in the two older games, once in the newer two: getting better
        store_review(h, ids[0], _review([_move(1, "d", "w", "blunder", ["early-start"], 30.0)]))
        store_review(h, ids[1], _review([_move(1, "d", "w", "mistake", ["early-start"], 12.0)]))
        store_review(h, ids[2], _review([_move(2, "d", "w", "blunder", ["early-start", "wrong-row"], 50.0)]))
        store_review(h, ids[3], _review([_move(1, "d", "d")]))
        c = coach(h)
        only = coach(h, tag="wrong-row")
        rec = recurring(h)
    early = next(t for t in c.tags if t.tag == "early-start")
    assert (early.count, early.games, round(early.mean_drop, 2), early.trend) == (3, 3, 30.67, "better")
    # 2 in 2 older games, 1 in 2 newer: chance alone splits 3 so unevenly half the time
    assert round(early.trend_p, 3) == 0.5 and not early.trend_clear
    assert early.to_json()["trend_clear"] is False
    assert [(e.game_id, e.ply) for e in early.examples] == [(ids[2], 2), (ids[0], 1), (ids[1], 1)]
    assert early.lesson.name == "waiting"
    lo, hi = early.interval  # mean 30.67 of 30, 12, 50 (sd 19.0): 30.67 -+ t(2) 4.303 * 19.0 / sqrt(3), cut at 0
    assert round(lo, 1) == 0.0 and round(hi, 1) == 77.9
    assert [t.tag for t in only.tags] == ["wrong-row"] and [e.drop for e in only.losses] == [50.0]
    assert (rec.tag, rec.games, rec.window) == ("early-start", 3, 4)


@pytest.mark.parametrize("older, newer, trend, p, clear, words", [
    ((0, 2), (2, 3), "worse", 0.36, False, "No clear trend yet: 0 times in your 2 older games, 2 in your 3 newer"),
    ((1, 4), (1, 5), "better", 0.691, False, "No clear trend yet: 1 time in your 4 older games, 1 in your 5 newer"),
    ((10, 10), (0, 10), "better", 0.001, True, "Getting better: 10 times in your 10 older games, 0 in your 10 newer"),
    ((2, 4), (3, 6), "same", None, False, "No change: 2 times in your 4 older games, 3 in your 6 newer."),
])
def test_a_trend_is_named_only_when_chance_alone_would_rarely_give_it(older, newer, trend, p, clear, words):
    """The coach once said "Getting better: 0.2 a game ..., 0.2 in your 5 newer" for 1 of 4 against 1 of 5."""
    from tutor.cli.history_render import trend_text
    from tutor.history.coach import TagFigures

    t = TagFigures("early-start", older[0] + newer[0], older[0] + newer[0], 10.0, 10.0, older, newer, None, [])
    assert t.trend == trend and t.trend_clear is clear
    assert (t.trend_p is None) if p is None else round(t.trend_p, 3) == p
    assert trend_text(t).startswith(words)


def test_every_review_tag_has_a_lesson_that_exists():
    assert set(TAGS) <= set(TAG_LESSONS)
    for name in TAG_LESSONS.values():
        assert find_lesson(name).name == name


def _one_blunder(h) -> None:
    """Deal 1 after d d, reviewed: move 2 (d) a blunder where w was better, so one drill."""
    g = add_record(h, record(1, "d d"), key="g")
    store_review(h, g, _review([_move(2, "d", "w", "blunder", ["turned-past"], 60.0,
                                      cands=[{"move": "w", "win": 0.8, "samples": 24},
                                             {"move": "d", "win": 0.2, "samples": 24}])]))


def test_drill_schedule_right_comes_back_later_and_later_wrong_soon(db):
    clock = Clock()
    with open_history(clock=clock) as h:
        _one_blunder(h)
        assert drills.sync_drills(h) == 1 and drills.sync_drills(h) == 0
        gaps = []
        for right in (True, True, True, False, True):
            (d,) = drills.due(h)
            after = drills.answer(h, d, "w" if right else "d", right)
            gap = hdb.parse_iso(after.due_at) - clock.t
            gaps.append((after.box, gap))
            assert drills.due(h) == []
            clock.t += gap
        history_rows = h.query("SELECT right, box_after FROM drill_answers ORDER BY id")
    day = drills.DAY
    assert gaps == [(1, day), (2, 3 * day), (3, 7 * day), (0, 600.0), (1, day)]
    assert [(r[0], r[1]) for r in history_rows] == [(1, 1), (1, 2), (1, 3), (0, 0), (1, 1)]


def test_a_drill_answered_in_two_sessions_at_once_moves_from_the_box_the_last_answer_left(db):
    """Two drill sessions asked the same drill in box 2: a wrong answer in one put it in box 0, and a right
    answer in the other then put it in box 3 (from the box it was asked in), as if the wrong one never was."""
    clock = Clock()
    with open_history(clock=clock) as h:
        _one_blunder(h)
        drills.sync_drills(h)
        with h.write() as conn:
            conn.execute("UPDATE drills SET box = 2")
        (asked_here,) = drills.due(h)
        (asked_there,) = drills.due(h)
        assert drills.answer(h, asked_there, "d", False).box == 0
        after = drills.answer(h, asked_here, "w", True)
        assert after.box == 1 and hdb.parse_iso(after.due_at) - clock.t == drills.DAY
        assert (after.answers, after.right) == (2, 1)
        assert [tuple(r) for r in h.query("SELECT right, box_after FROM drill_answers ORDER BY id")] == [(0, 0), (1, 1)]


def test_a_drill_needs_a_real_drop_by_the_reviews_own_numbers():
    from tutor.history.reviews import StoredMove

    def m(label, best_win, played_win, samples):
        return StoredMove(1, 1, "d", "w", label, (), (best_win - played_win) * 100, best_win, played_win, True, "",
                          ({"move": "w", "win": best_win, "samples": samples},
                           {"move": "d", "win": played_win, "samples": samples}))

    assert drills.clear_mistake(m("blunder", 0.9, 0.1, 24), 24)
    # 20 points at the full budget of 24 samples: within twice the sampling error
    assert not drills.clear_mistake(m("blunder", 0.5, 0.3, 24), 24)
    # the hint stopped at 8 of 24 samples: its paired test found the leader clearly ahead
    assert drills.clear_mistake(m("blunder", 0.5, 0.3, 8), 24)
    assert not drills.clear_mistake(m("blunder", 0.5, 0.3, 8), 8)
    assert not drills.clear_mistake(m("inaccuracy", 0.9, 0.1, 24), 24)
    assert not drills.clear_mistake(m("blunder", 0.3, 0.5, 8), 24)


def test_the_history_package_draws_nothing():
    root = Path(tutor.__file__).parent / "history"
    pattern = re.compile(r"^\s*(import|from)\s+(rich|click)\b", re.MULTILINE)
    assert [p.name for p in root.glob("*.py") if pattern.search(p.read_text())] == []


def test_content_is_the_same_wherever_the_game_is_kept():
    assert content_of(record(2, "d d")) == content_of(record(2, "d d")) != content_of(record(2, "d"))


def test_a_review_of_other_moves_is_not_current_even_with_the_same_count(db):
    from tutor.history.reviews import review_data

    class Rev:  # the parts of tutor.review.Review that the history keeps
        def __init__(self, rec):
            self.record, self.moves, self.accuracy, self.graded, self.samples = rec, [], 90.0, 0, 8
            self.thresholds, self.hindsight = {}, {}

    with open_history() as h:
        g = add_record(h, record(2, "r2 d"), key="games/g.json")
        store_review(h, g, review_data(Rev(record(2, "r2 d"))))
        assert list(reviews(h)) == [g]
        add_record(h, record(2, "r2"), key="games/g.json")  # an undo
        assert reviews(h) == {}
        add_record(h, record(2, "r2 r3"), key="games/g.json")  # two moves again, not the same ones
        assert reviews(h) == {}
        add_record(h, record(2, "r2 d"), key="games/g.json")  # back to the reviewed game
        assert list(reviews(h)) == [g]


def test_a_drill_trusts_the_paired_interval_its_label_rests_on():
    """A 15-point mistake at 95% 11-19 on 512 paired deals was not drilled: the candidates' unpaired noise
    on 64 deals hid it."""
    from tutor.history.reviews import StoredMove

    def m(label, interval):
        return StoredMove(1, 35, "w", "d", label, (), 15.0, 0.5, 0.35, True, "",
                          ({"move": "d", "win": 0.5, "samples": 64}, {"move": "w", "win": 0.35, "samples": 64}),
                          interval)

    assert not drills.clear_mistake(m("mistake", None), 64)  # the old rule: 15 points within the noise of 64
    assert drills.clear_mistake(m("mistake", (11.0, 19.0)), 64)
    assert not drills.clear_mistake(m("mistake", (-1.0, 19.0)), 64)
    assert not drills.clear_mistake(m("good", (11.0, 19.0)), 64)


def test_the_drop_interval_is_stored_read_back_and_exported(db):
    from tutor.history.reviews import review_of

    with open_history() as h:
        gid = add_record(h, record(1, "d d"), key="g")
        data = _review([_move(1, "d", "w", "mistake", [], 18.0)])
        data["moves"][0]["drop_interval"] = [14.0, 21.0]
        store_review(h, gid, data)
        stored = review_of(h, gid)
    assert stored.moves[0].drop_interval == (14.0, 21.0)
    assert stored.to_json()["moves"][0]["drop_interval"] == [14.0, 21.0]


def test_the_accuracy_interval_is_stored_read_back_shown_and_a_review_from_before_has_none(db):
    """The review prints its accuracy with a 95% interval; the history keeps it, lists it and exports it."""
    from tutor.history.reviews import review_of
    from tutor.history.stats import summary

    old = History(db, upgrade_to=9)
    old_game = add_record(old, record(1, "d d"), key="old")
    with old.write() as conn:  # a review as schema 9 stored it: no interval
        conn.execute("INSERT INTO reviews (game_id, moves_reviewed, accuracy, graded, thresholds, hindsight, "
                     "reviewed_at) VALUES (?, 2, 50, 1, '{}', '{}', '2026-12-01T00:00:00Z')", (old_game,))
    old.close()
    with open_history() as h:
        assert h.version == hdb.VERSION
        assert review_of(h, old_game).accuracy_interval is None
        assert "accuracy_interval" not in review_of(h, old_game).to_json()
        gid = add_record(h, record(2, "d d"), key="g")
        data = _review([_move(1, "d", "w", "mistake", [], 18.0)])
        data["accuracy_interval"] = [41.5, 63.0]
        store_review(h, gid, data)
        stored = review_of(h, gid)
        exported = [json.loads(line) for line in export_text(h).splitlines()]
        recent = {g.id: g for g in summary(h).recent}
    assert stored.accuracy_interval == (41.5, 63.0)
    assert [e["review"].get("accuracy_interval") for e in exported] == [None, [41.5, 63.0]]
    assert recent[gid].to_json()["accuracy_interval"] == [41.5, 63.0]
    assert "accuracy_interval" not in recent[old_game].to_json()


def test_history_counts_reviewed_and_rated_games_apart_and_gives_the_mean_accuracy_an_interval(db):
    """history --json said "reviewed": 8 where the coach said 9 reviewed games: it counted the rated ones (a
    review of forced moves only rates nothing). The mean accuracy is a sampled figure: it carries an interval."""
    from tutor.history.stats import mean_interval, summary

    with open_history() as h:
        ids = [add_record(h, record(n, "d d"), key=f"g{n}") for n in (1, 2, 3)]
        for gid, acc, ci in ((ids[0], 80.0, [70.0, 90.0]), (ids[1], 60.0, [40.0, 70.0])):
            data = _review([_move(1, "d", "d")], accuracy=acc)
            data["accuracy_interval"] = ci
            store_review(h, gid, data)
        store_review(h, ids[2], _review([_move(1, "d", "d", graded=False)], accuracy=100.0))  # nothing graded
        data = summary(h).to_json()
    assert (data["reviewed"], data["rated"], data["accuracy"]) == (3, 2, 70.0)
    lo, hi = mean_interval([(80.0, (70.0, 90.0)), (60.0, (40.0, 70.0))])
    assert data["accuracy_interval"] == [round(lo, 1), round(hi, 1)]
    # below: 10 and 20 points added in squares (22.36), halved for the mean of two; above: 10 and 10 (14.14)
    assert lo == pytest.approx(70 - 11.18, abs=0.01) and hi == pytest.approx(70 + 7.07, abs=0.01)
    assert mean_interval([(0.5, (0.5, 9.2))]) == (0.5, 9.2)  # one game: its own interval


def test_the_deals_behind_the_drop_interval_are_kept_and_a_review_from_before_has_none(db):
    """A drill says a sampled drop with its deals ("95%: 14-21, 96 deals"): the count is kept with the interval."""
    from tutor.history.reviews import review_of

    old = History(db, upgrade_to=6)
    gid = add_record(old, record(1, "d d"), key="g")
    with old.write() as conn:  # a review as schema 6 stored it: an interval, no count
        conn.execute("INSERT INTO reviews (game_id, moves_reviewed, accuracy, graded, thresholds, hindsight, "
                     "reviewed_at) VALUES (?, 2, 50, 1, '{}', '{}', '2026-12-01T00:00:00Z')", (gid,))
        conn.execute("INSERT INTO review_moves (review_id, ply, move, best, label, tags, drop_points, win_before, "
                     "win_after, graded, comment, candidates, drop_interval) VALUES (1, 1, 'd', 'w', 'mistake', "
                     "'[]', 18, 0.5, 0.32, 1, '', '[]', '[14.0, 21.0]')")
    old.close()
    with open_history() as h:
        assert h.version == hdb.VERSION
        assert review_of(h, gid).moves[0].drop_samples is None
        data = _review([_move(1, "d", "w", "mistake", [], 18.0)])
        data["moves"][0].update(drop_interval=[14.0, 21.0], drop_samples=96)
        store_review(h, gid, data)
        stored = review_of(h, gid)
        exported = json.loads(export_text(h))
    assert stored.moves[0].drop_samples == 96 and stored.to_json()["moves"][0]["drop_samples"] == 96
    assert exported["review"]["moves"][0]["drop_samples"] == 96


def test_the_history_keeps_the_accuracy_the_review_printed():
    """A review that printed 31.0 (31.047) showed as 31.1 in the history: it kept 31.05 and printed that."""
    from tutor.history.reviews import review_data

    class Rev:  # the parts of tutor.review.Review that the history keeps
        def __init__(self, rec, accuracy):
            self.record, self.moves, self.accuracy, self.graded, self.samples = rec, [], accuracy, 0, 8
            self.thresholds, self.hindsight = {}, {}

    for accuracy in (31.047, 31.05, 64.96, 99.95, 0.04):
        stored = review_data(Rev(record(2, "d"), accuracy))["accuracy"]
        assert f"{stored:.1f}" == f"{accuracy:.1f}" and stored == round(accuracy, 1)


@pytest.mark.parametrize("damage", [
    "UPDATE games SET moves = 'many'",
    "UPDATE games SET record = '{not json'",
    "UPDATE games SET won = 'yes'",
])
def test_a_row_the_reader_cannot_take_sets_the_file_aside_with_one_warning(db, damage):
    with open_history() as h:
        add_record(h, record(3, "d d d"))
        h.conn.execute(damage)
    with open_history() as h:
        assert h.warning and "cannot be read" in h.warning and "\n" not in h.warning
        assert h.conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0
    assert list(db.parent.glob("history.sqlite3.damaged-*"))


def test_a_schema_version_that_is_not_a_number_sets_the_file_aside(db):
    with open_history() as h:
        h.conn.execute("UPDATE schema_version SET version = 'two'")
    with open_history() as h:
        assert h.warning and "schema version 'two'" in h.warning
        assert h.version == hdb.VERSION
    assert list(db.parent.glob("history.sqlite3.damaged-*"))


def test_junk_bytes_in_a_text_are_read_as_replacement_characters(db):
    with open_history() as h:
        add_record(h, record(3, "d d d"))
        h.conn.execute("UPDATE games SET source = CAST(X'2F746D702FFF2E6A736F6E' AS TEXT)")
    with open_history() as h:
        assert h.warning is None
        assert h.conn.execute("SELECT source FROM games").fetchone()[0] == "/tmp/\ufffd.json"


def test_a_review_tagged_by_older_rules_is_left_out_of_the_tag_counts_and_reviewed_again(db):
    from tutor.history.reviews import unreviewed

    clock = Clock()
    with open_history(clock=clock) as h:
        ids = []
        for n in range(2):
            clock.t += 10
            ids.append(add_record(h, record(n + 1, "d d"), key=f"g{n}"))
        old = {k: v for k, v in _review([_move(1, "d", "w", "blunder", ["early-start"], 30.0)]).items()
               if k != "tagging"}  # stored before the tagging rules were kept: the first rules
        store_review(h, ids[0], old)
        store_review(h, ids[1], _review([_move(1, "d", "w", "mistake", ["early-start"], 12.0)]))
        c = coach(h)
        assert [g.id for g in unreviewed(h)] == [ids[0]]  # coach reviews it again
        assert set(reviews(h)) == set(ids)  # the history's own figures (accuracy) still read both
        assert reviews(h)[ids[0]].tagging == 1 and reviews(h)[ids[1]].tagging == TAGGING
    early = next(t for t in c.tags if t.tag == "early-start")
    assert (early.count, early.games) == (1, 1) and c.games_reviewed == 1
    assert c.to_json()["review_samples"] == [8]  # the budget of the one review counted (_review's)


def test_a_coach_example_gives_its_variant_as_history_json_does():
    from tutor.history.coach import Example

    custom = Example(3, 22, '{"open_reserve":false,"passes":3,"reserve_piles":4,"turn":1}', "2026-12-05T07:00:00Z",
                     None, 19, "d", "w", "mistake", ("turned-past",), 12.0)
    assert custom.to_json()["variant"] == {"open_reserve": False, "passes": 3, "reserve_piles": 4, "turn": 1}
    assert Example(**{**custom.__dict__, "variant": "peek"}).to_json()["variant"] == "peek"


def test_a_game_stored_with_no_reserve_and_an_open_reserve_is_filed_as_bridesmaids_after_the_upgrade(db):
    """Schema 9: ``--variant peek --reserve-piles 0`` is Bridesmaids; such games stored before stayed a
    variant of their own in history, coach and --variant, and a finished one never changed."""
    from tutor.history.reviews import review_of

    rules = preset("peek").with_options(reserve_piles=0)  # as an older osmosis kept them
    old_game = Record(rules, deal_for(4, rules), ["d", "d"])
    old = History(db, upgrade_to=8)
    gid = add_record(old, old_game, key="games/old.json")
    other = add_record(old, record(2, "d"), key="games/other.json")
    stale_content = content_of(old_game)
    with old.write() as conn:
        conn.execute("INSERT INTO reviews (game_id, moves_reviewed, accuracy, graded, thresholds, hindsight, "
                     "reviewed_at, content, tagging) VALUES (?, 2, 90, 1, '{}', '{}', '2026-12-01T00:00:00Z', ?, ?)",
                     (gid, stale_content, TAGGING))
    assert json.loads(old.game(gid).variant)["open_reserve"] is True
    old.close()
    with open_history() as h:
        assert h.version == hdb.VERSION
        game = h.game(gid)
        assert game.variant == "bridesmaids" and game.record["variant"] == "bridesmaids"
        plain = Record(preset("bridesmaids"), deal_for(4, preset("bridesmaids")), ["d", "d"])
        assert h.query("SELECT content FROM games WHERE id = ?", (gid,))[0][0] == content_of(plain) != stale_content
        assert gid in reviews(h) and review_of(h, gid).accuracy == 90  # its review is still its current one
        assert h.game(other).variant == "osmosis"
        # the same game played now is the same row, not a second one
        assert add_record(h, plain) == gid


def test_a_drill_follows_its_game_reviewed_again(db):
    """A drill kept the old review's label, tags and cost after the game was reviewed again (by a newer
    osmosis): "lost 12 win points (mistake; 95%: 1-5)" for a move the coach no longer faulted."""
    clock = Clock()
    with open_history(clock=clock) as h:
        gid = add_record(h, record(3, "d d d d"), key="games/a.json")
        store_review(h, gid, _review([_move(2, "d", "r1", "mistake", ["talon-shift"], 12.0),
                                      _move(4, "d", "r2", "blunder", ["turned-past"], 30.0)], reviewed=4))
        assert drills.sync_drills(h) == 2
        four = next(d for d in drills.all_drills(h) if d.ply == 4)
        drills.answer(h, four, "r2", True)  # up a box
        # reviewed again: move 2 is now good, move 4 a mistake of another cost and kind
        store_review(h, gid, _review([_move(2, "d", "r1", "good", [], 2.7),
                                      _move(4, "d", "w", "mistake", ["no-progress"], 18.0)], reviewed=4))
        assert drills.sync_drills(h) == 0
        (left,) = drills.all_drills(h)
        assert (left.ply, left.best, left.label, left.tags, left.drop) == (4, "w", "mistake", ("no-progress",), 18.0)
        assert left.box == 1 and left.answers == 1  # its answers kept
        retired = h.query("SELECT retired FROM drills WHERE ply = 2")[0][0]
        assert retired == drills.NO_LONGER
        assert drills.sync_drills(h) == 0 and len(drills.all_drills(h)) == 1  # nothing comes back by itself
        # a third review calls move 2 a mistake again (a one-off review with other settings came between):
        # the drill comes back as it was, box and answers kept
        two = next(d for d in h.query("SELECT id FROM drills WHERE ply = 2"))[0]
        drills.answer(h, drills.drill(h, two), "r1", True)
        store_review(h, gid, _review([_move(2, "d", "r1", "mistake", ["talon-shift"], 11.0),
                                      _move(4, "d", "w", "mistake", ["no-progress"], 18.0)], reviewed=4))
        assert drills.sync_drills(h) == 0
        back = drills.drill(h, two)
        assert back is not None and back.drop == 11.0 and back.answers == 1
        assert sorted(d.ply for d in drills.all_drills(h)) == [2, 4]


def test_a_drill_whose_move_is_now_another_one_starts_again(db):
    """The game went another way at the drill's ply and was reviewed again: the box and answers were for
    another question (a drill kept box 3 for a move it no longer asks about)."""
    with open_history(clock=Clock()) as h:
        gid = add_record(h, record(3, "d d"), key="games/a.json")
        store_review(h, gid, _review([_move(2, "d", "w", "mistake", ["talon-shift"], 12.0)]))
        drills.sync_drills(h)
        (d,) = drills.all_drills(h)
        drills.answer(h, d, "w", True)
        h.conn.execute("UPDATE drills SET retired = 'the game changed after the review this drill came from'")
        store_review(h, gid, _review([_move(2, "w", "d", "blunder", ["turned-past"], 30.0)]))
        assert drills.sync_drills(h) == 0
        (again,) = drills.all_drills(h)
    assert (again.id, again.played, again.best, again.box, again.answers) == (d.id, "w", "d", 0, 0)


def test_the_coach_says_which_games_an_older_osmosis_reviewed(db):
    """After an upgrade the coach said "No reviewed game yet" while history counted 7 reviewed games, and
    "Reviewed 7 games not reviewed before" while it reviewed them again."""
    from rich.console import Console

    from tutor.cli.coach import reviewed_what
    from tutor.cli.history_render import render_coaching
    from tutor.history.reviews import outdated

    with open_history(clock=Clock()) as h:
        ids = [add_record(h, record(n, "d d"), key=f"g{n}") for n in (1, 2, 3)]
        for gid in ids[:2]:
            store_review(h, gid, {k: v for k, v in _review([_move(1, "d", "w")]).items() if k != "tagging"})
        assert outdated(h) == set(ids[:2])
        c = coach(h, unreviewed=3, outdated=2)
    assert c.to_json()["outdated"] == 2 and c.to_json()["review_samples"] == []  # none by the current rules
    console = Console(width=200, record=True)
    for part in render_coaching(c, {}):
        console.print(part)
    text = console.export_text()
    assert "No game reviewed by the current rules for the kinds of error yet: 2 games reviewed by an older " \
           "osmosis, and 1 game not reviewed yet. osmosis coach --review reviews them." in text
    assert reviewed_what(3, 2) == ("1 game not reviewed before, and 2 games again: their reviews were made by an "
                                   "older osmosis, with older rules for the kinds of error")
    assert reviewed_what(2, 0) == "2 games not reviewed before"


def test_the_coach_says_a_game_that_went_on_after_its_review_is_reviewed_again(db):
    """A game reviewed when it was saved unfinished, then resumed and finished: the coach said "Reviewed 1 game
    not reviewed before"."""
    from tutor.cli.coach import reviewed_what
    from tutor.history.reviews import outdated, unreviewed, went_on

    with open_history(clock=Clock()) as h:
        gid = add_record(h, record(1, "d d"), key="g1")
        other = add_record(h, record(2, "d d"), key="g2")
        store_review(h, gid, _review([_move(1, "d", "w")]))
        assert went_on(h) == set() and [g.id for g in unreviewed(h)] == [other]
        assert add_record(h, record(1, "d d d"), key="g1") == gid  # resumed: one move more
        assert went_on(h) == {gid} and outdated(h) == set()
        assert {g.id for g in unreviewed(h)} == {gid, other}
    assert reviewed_what(2, 0, 1) == ("1 game not reviewed before, and 1 game again: it went on (or moves were "
                                      "taken back) after the review")


def test_a_moved_data_folder_still_names_the_game_files_where_they_are(home, tmp_path, monkeypatch):
    """The coach's examples named the file by the absolute name stored in the old data folder, so
    ``osmosis replay`` of it failed after the folder moved (a new machine, a renamed home)."""
    from tutor.record import save_record

    first = tmp_path / "first"
    monkeypatch.setenv("OSMOSIS_HOME", str(first))
    (first / "games").mkdir(parents=True)
    save_record(record(3, "d d"), first / "games" / "deal-3-20261201-100000.json")
    with open_history(clock=Clock()) as h:
        gid = h.games()[0].id
        store_review(h, gid, _review([_move(2, "d", "w", "mistake", ["turned-past"], 12.0)]))
    moved = tmp_path / "moved"
    first.rename(moved)
    monkeypatch.setenv("OSMOSIS_HOME", str(moved))
    with open_history(clock=Clock()) as h:
        (example,) = coach(h).tags[0].examples
    assert example.to_json()["record"] == str(moved / "games" / "deal-3-20261201-100000.json")


def test_a_game_never_starts_after_it_was_last_saved(home, tmp_path, monkeypatch):
    """The autosave name's stamp is local time where it was saved: read in another time zone, a game
    began five hours after it ended."""
    import os

    from tutor.history.games import add_file
    from tutor.record import save_record

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    path = tmp_path / "deal-3-20261205-120000.json"
    save_record(record(3, "d d"), path)
    saved = 1_764_900_000  # 2025-12-05, a year before the stamp
    os.utime(path, (saved, saved))
    with open_history(clock=Clock()) as h:
        gid = add_file(h, path)
        game = h.game(gid)
    assert game.started_at == game.played_at == hdb.iso(saved)


def test_the_coach_counts_older_reviews_only_among_the_games_it_would_review(db, home):
    """Two 0-move games reviewed by an older osmosis and one game not reviewed: "and -1 games not
    reviewed yet" (the older reviews counted games the coach never reviews)."""
    from builders import osmosis

    with open_history(clock=Clock()) as h:
        for n in (1, 2):
            gid = add_record(h, record(n, ""), key=f"empty{n}")
            store_review(h, gid, {k: v for k, v in _review([], reviewed=0).items() if k != "tagging"})
        add_record(h, record(3, "d d"), key="played")
    result = osmosis(["coach", "--no-review", "--json"], home)
    data = json.loads(result.stdout)
    assert (data["unreviewed"], data["outdated"]) == (1, 0)
    text = osmosis(["coach", "--no-review"], home).stdout
    assert "-1" not in text and "osmosis coach --review reviews your 1 game." in " ".join(text.split())


def test_the_drill_list_fits_80_columns_and_breaks_no_tag(db, home):
    """At 80 columns the tags wrapped into "early-start" / "," / "reserve-dig" and "in 9" / "minutes"."""
    from builders import osmosis

    with open_history(clock=Clock()) as h:
        gid = add_record(h, record(5, "d d d d"), key="g1")
        store_review(h, gid, _review([_move(2, "d", "w", "mistake", ["early-start", "reserve-dig"], 12.0)],
                                     reviewed=4))
        drills.sync_drills(h)
        drills.answer(h, drills.all_drills(h)[0], "x", False)
    lines = osmosis(["drill", "--list"], home, env={"COLUMNS": "80"}).stdout.splitlines()
    assert lines[0].split() == ["drill", "game", "id", "move", "played", "best", "lost", "tags", "box", "answers",
                                "due"]
    due = lines[1].split()[-3:]  # "in 41 days": the history's clock is a fixed day, the command's today
    assert due[0] == "in" and due[1].isdigit() and due[2] in ("minutes", "hours", "days") and "early-start" in lines[1]
    assert lines[2].strip() == "reserve-dig" and all(len(line) <= 80 for line in lines)
