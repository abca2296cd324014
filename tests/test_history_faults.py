"""Faults in what the history is given or holds: an import line not as the review writes it, a row an older
import let in, a file name that is not UTF-8, control codes in stored text; and the words of the coach and
the drills (sampled figures with their basis, no loss where the review graded none, plurals)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from builders import CONTROL, osmosis

from tutor.deals import deal_for
from tutor.history import drill as drills
from tutor.history.coach import coach
from tutor.history.db import History
from tutor.history.games import add_record
from tutor.history.names import path_of, storable
from tutor.history.reviews import TAGGING, StoredMove, store_review
from tutor.history.transfer import export_text
from tutor.record import Record
from tutor.rules import preset

MOVES = "d d d"


def _record(n: int = 5, moves: str = MOVES) -> Record:
    rules = preset("osmosis")
    return Record(rules, deal_for(n, rules), moves.split())


def _cand(move: str, win: float, samples: int = 64) -> dict:
    return {"move": move, "win": win, "cards": 40.0, "samples": samples, "interval": [max(0.0, win - 0.1),
            min(1.0, win + 0.1)], "cards_interval": [38.0, 42.0]}


def _move(ply: int, move: str, best: str, label: str = "best", drop: float = 0.0, tags=(), cands=(), **extra) -> dict:
    return {"ply": ply, "move": move, "best": best, "label": label, "tags": list(tags), "drop": drop,
            "win_before": 0.6, "win_after": 0.6 - drop / 100, "graded": True, "comment": "",
            "candidates": list(cands), **extra}


def _review(moves: list[dict]) -> dict:
    return {"moves_reviewed": len(MOVES.split()), "accuracy": 70.0, "graded": len(moves), "samples": 64,
            "thresholds": {}, "hindsight": {}, "tagging": TAGGING, "moves": moves}


def _good_line(tmp_path: Path) -> dict:
    """One exported line: deal 5, three turns, move 2 a mistake (r1 was better) with its candidates."""
    with History(tmp_path / "source.sqlite3") as h:
        gid = add_record(h, _record(), key="games/deal-5.json", source=str(tmp_path / "games" / "deal-5.json"))
        store_review(h, gid, _review([
            _move(1, "d", "d", cands=[_cand("d", 0.6), _cand("r1", 0.55)]),
            _move(2, "d", "r1", "mistake", 40.0, ["talon-shift"], [_cand("r1", 0.7), _cand("d", 0.3)],
                  drop_interval=[25.0, 55.0], drop_samples=64),
            _move(3, "d", "d", cands=[_cand("d", 0.3)])]))
        return json.loads(export_text(h).splitlines()[0])


def _write(path: Path, line: dict) -> Path:
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


def _games(home: Path) -> int:
    return json.loads(osmosis(["history", "--json"], home).stdout)["games"]


# ---- 1. candidates checked at import, and rows an older import let in read as absent -----------------------

@pytest.mark.parametrize("candidates, said", [
    (5, "review.moves[1].candidates is 5: expected a list"),
    (True, "review.moves[1].candidates is true: expected a list"),
    (["x"], 'review.moves[1].candidates[0] is "x": expected an object'),
    ([{"move": "r1", "win": "high"}, {"move": "d", "win": 0.1}],
     'review.moves[1].candidates[0].win is "high": expected a number from 0 to 1'),
    ([{"move": "r1"}, {"move": "d"}], "review.moves[1].candidates[0].win is missing: expected a number"),
    ([{"move": "zz", "win": 0.5}], 'review.moves[1].candidates[0].move is "zz": expected r1-r4 (a reserve pile), w (the waste) or d'),
    ([{"move": "d", "win": 0.5, "samples": -1}], "review.moves[1].candidates[0].samples is -1: expected a whole"),
    ([{"move": "d", "win": 0.5, "interval": [0.9, 0.1]}], "review.moves[1].candidates[0].interval is [0.9, 0.1]"),
])
def test_import_refuses_candidates_not_as_the_review_writes_them(tmp_path, candidates, said):
    line = _good_line(tmp_path)
    line["review"]["moves"][1]["candidates"] = candidates
    home = tmp_path / "home"
    result = osmosis(["import", str(_write(tmp_path / "bad.jsonl", line))], home)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and "bad.jsonl' line 1: " in result.stderr and said in result.stderr, \
        result.stderr
    assert _games(home) == 0  # nothing of the line went in
    for command in (["coach", "--no-review"], ["drill", "--list"], ["export"]):
        assert osmosis(command, home).exit_code == 0


@pytest.mark.parametrize("interval, said", [
    ([90.0], "review.accuracy_interval is [90.0]: expected two numbers from 0 to 100"),
    ("60-80", 'review.accuracy_interval is "60-80": expected two numbers from 0 to 100'),
    ([60.0, 180.0], "review.accuracy_interval[1] is 180.0: expected a number from 0 to 100"),
    ([80.0, 60.0], "review.accuracy_interval is [80.0, 60.0]: expected its low end first"),
])
def test_import_refuses_an_accuracy_interval_not_as_the_review_writes_it(tmp_path, interval, said):
    line = _good_line(tmp_path)
    line["review"]["accuracy_interval"] = interval
    home = tmp_path / "home"
    result = osmosis(["import", str(_write(tmp_path / "bad.jsonl", line))], home)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and said in result.stderr, result.stderr
    assert _games(home) == 0
    line["review"]["accuracy_interval"] = [61.2, 78.0]  # as export writes it: taken, and listed
    assert osmosis(["import", str(_write(tmp_path / "good.jsonl", line))], home).exit_code == 0
    recent = json.loads(osmosis(["history", "--json"], home).stdout)["recent"]
    assert recent[0]["accuracy_interval"] == [61.2, 78.0]


@pytest.mark.parametrize("stored", ['5', 'true', '["x"]', '[{"move": "r1", "win": "high"}, {"move": "d", "win": 0.1}]',
                                    '[{"move": "r1"}, {"move": "d"}]', '{"move": "r1"}'])
def test_a_history_already_holding_malformed_candidates_still_works(tmp_path, stored):
    """A row an older import let in (it checked no candidates): read as if none were stored, never a crash."""
    home = tmp_path / "home"
    assert osmosis(["import", str(_write(tmp_path / "good.jsonl", _good_line(tmp_path)))], home).exit_code == 0
    with sqlite3.connect(home / "history.sqlite3") as conn:
        conn.execute("UPDATE review_moves SET candidates = ?, drop_interval = NULL WHERE ply = 2", (stored,))
    for command in (["history"], ["coach", "--no-review"], ["coach", "--json", "--no-review"], ["drill", "--list"],
                    ["drill", "--list", "--json"]):
        result = osmosis(command, home)
        assert result.exit_code == 0, (command, result.output)
    exported = osmosis(["export"], home)
    assert exported.exit_code == 0
    elsewhere = tmp_path / "elsewhere"  # and the export of it reads back
    assert osmosis(["import", str(_write(tmp_path / "again.jsonl", json.loads(exported.stdout)))],
                   elsewhere).exit_code == 0


def test_a_drill_is_asked_from_a_row_with_malformed_candidates(tmp_path):
    home = tmp_path / "home"
    assert osmosis(["import", str(_write(tmp_path / "good.jsonl", _good_line(tmp_path)))], home).exit_code == 0
    with sqlite3.connect(home / "history.sqlite3") as conn:
        conn.execute("UPDATE review_moves SET candidates = ?, drop_interval = NULL WHERE ply = 2",
                     ('[{"move": "r1", "win": "high"}, {"move": "d"}]',))
    result = osmosis(["drill", "--count", "1"], home, input="q\n")
    assert result.exit_code == 0, result.output


# ---- 2. a line with two rows of one move, and one transaction a line -----------------------------------------

def test_a_review_of_one_move_twice_is_refused_in_one_line_and_nothing_kept(tmp_path):
    line = _good_line(tmp_path)
    line["review"]["moves"][1]["ply"] = 1
    home = tmp_path / "home"
    result = osmosis(["import", str(_write(tmp_path / "dup.jsonl", line))], home)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and "review.moves[1].ply is 1, as in review.moves[0]" in result.stderr
    assert _games(home) == 0


def test_a_line_that_fails_while_it_is_written_leaves_nothing_of_it(tmp_path, monkeypatch):
    from tutor.errors import TutorError
    from tutor.history import transfer

    def broken(*args, **kwargs):
        raise ValueError("the disk went away")

    monkeypatch.setattr(transfer, "store_review", broken)
    with History(tmp_path / "h.sqlite3") as h:
        with pytest.raises(TutorError, match="the review is incomplete"):
            transfer.import_line(h, _good_line(tmp_path), "line 1")
        assert h.games() == []  # the game went out with its review
        with h.write():  # and the history is still writable
            pass


# ---- 3. a file name that is not UTF-8 --------------------------------------------------------------------------

def test_a_record_whose_name_is_not_utf8_is_imported_and_leads_back_to_its_file(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    text = json.dumps(_record().to_json())
    before, bad, after = folder / "before.json", Path(os.fsdecode(bytes(folder) + b"/bad\xffname.json")), \
        folder / "after.json"
    before.write_text(json.dumps(_record(6).to_json()))
    bad.write_text(text)
    after.write_text(json.dumps(_record(7).to_json()))
    home = tmp_path / "home"
    result = osmosis(["import", str(before), str(bad), str(after)], home)
    assert result.exit_code == 0 and "Imported 3 games" in result.stdout, result.output
    assert _games(home) == 3
    with History(home / "history.sqlite3") as h:
        (row,) = [g for g in h.games() if g.deal_number == 5]
    assert row.source is not None and Path(path_of(row.source)).read_text() == text  # the name comes back whole
    exported = osmosis(["export"], home).stdout
    again = osmosis(["import", str(bad)], home)  # the same file again: the same row
    assert again.exit_code == 0 and "Nothing new to import" in again.stdout
    assert osmosis(["export"], home).stdout == exported


def test_a_stored_name_is_itself_unless_it_holds_bytes_that_are_not_utf8():
    assert storable("/tmp/é/a.json") == "/tmp/é/a.json"
    for raw in (b"/tmp/bad\xffname.json", b"/a\\x41\xfe\\b", b"/\x1b[31m\xc3"):
        name = os.fsdecode(raw)
        kept = storable(name)
        kept.encode("utf-8")  # SQLite takes it
        assert kept.startswith("bytes:") and path_of(kept) == name
        assert storable(kept) == kept  # an exported key imported again names the same row


def test_the_replay_command_for_a_name_that_is_not_text_is_one_shell_word_for_that_file():
    from tutor.textsafe import shell_word

    assert shell_word("/tmp/a b.json") == "'/tmp/a b.json'"
    word = shell_word(os.fsdecode(b"/tmp/bad\xffname\x1b.json"))
    assert word == "$'/tmp/bad\\xffname\\x1b.json'" and word.isprintable()


# ---- 4. control codes ------------------------------------------------------------------------------------------

def test_import_refuses_a_tag_that_is_no_review_tag(tmp_path):
    line = _good_line(tmp_path)
    line["review"]["moves"][1]["tags"] = ["\x1b[31mevil"]
    home = tmp_path / "home"
    result = osmosis(["import", str(_write(tmp_path / "evil.jsonl", line))], home)
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert 'review.moves[1].tags[0] is "\\u001b[31mevil": expected a tag name (early-start' in result.stderr
    assert "\x1b" not in result.output and _games(home) == 0


def test_stored_text_an_older_import_let_in_is_printed_without_control_codes(tmp_path):
    home = tmp_path / "home"
    assert osmosis(["import", str(_write(tmp_path / "good.jsonl", _good_line(tmp_path)))], home).exit_code == 0
    assert osmosis(["drill", "--list"], home).exit_code == 0  # the drill is made
    evil = json.dumps(["\x1b[31mevil", "[bold]x[/bold]"])
    with sqlite3.connect(home / "history.sqlite3") as conn:
        conn.execute("UPDATE review_moves SET tags = ? WHERE ply = 2", (evil,))
        conn.execute("UPDATE drills SET tags = ?", (evil,))
    for command in (["coach", "--no-review"], ["drill", "--list"]):
        out = osmosis(command, home).output
        assert not CONTROL.search(out), (command, out)
        assert "evil" in out and "[bold]x[/bold]" in out  # shown, as text, not read as markup


def test_games_shows_a_data_folder_with_control_codes_quoted(tmp_path):
    home = tmp_path / "h_\x1b[31mred"
    out = " ".join(osmosis(["games"], home).output.split())  # wrapped at the terminal's width
    assert "\x1b" not in out and "No saved games yet in '" in out and "\\x1b[31mred" in out
    game = tmp_path / "deal.json"
    game.write_text(json.dumps(_record().to_json()))
    (home / "games").mkdir(parents=True)
    (home / "games" / "deal-5-20261201-100000.json").write_text(game.read_text())
    out = " ".join(osmosis(["games"], home).output.split())
    assert "\x1b" not in out and "In '" in out and "\\x1b[31mred" in out


# ---- 5. a drill's figures with what they rest on ---------------------------------------------------------------

def _stored(**extra) -> StoredMove:
    base = {"game_id": 1, "ply": 2, "move": "d", "best": "r1", "label": "mistake", "tags": (), "drop": 18.0,
            "win_before": 0.56, "win_after": 0.38, "graded": True, "comment": "", "candidates": ()}
    return StoredMove(**{**base, **extra})


@pytest.mark.parametrize("move, said", [
    (_stored(drop_interval=(12.0, 25.0), drop_samples=128), "lost 18 win points (mistake; 95%: 12-25, 128 deals)."),
    (_stored(drop_interval=(18.0, 18.0), drop_samples=6), "lost 18 win points (mistake; exact: every consistent"),
    (_stored(drop_interval=(12.0, 25.0)), "(mistake; sampled, 95%: 12-25; the number of deals was not kept)."),
    (_stored(drop_interval=(12.0, 25.0), candidates=({"move": "d", "win": 0.38, "drop": 0.18,
                                                      "drop_interval": [0.12, 0.25], "drop_samples": 96},)),
     "(mistake; 95%: 12-25, 96 deals)."),
    (_stored(candidates=({"move": "d", "win": 0.38, "samples": 64},)),
     "(mistake; sampled on 64 deals; its interval was not kept)."),
    (_stored(), "(mistake; a sampled figure; its interval and number of deals were not kept)."),
])
def test_the_drills_drop_says_what_it_rests_on(move, said):
    from tutor.cli.drill_words import drill_intro

    d = drills.Drill(1, 1, 2, "d", "r1", "mistake", (), 18.0, 0, "2026-12-01T00:00:00Z")
    assert said in drill_intro(d, 30, 22, drills.drop_figure(move))


def test_a_sampled_win_chance_in_a_drill_carries_its_interval_and_deals():
    from tutor.hints import Candidate
    from tutor.lessons.judge import hint_score
    from tutor.lessons.words import win_text
    from tutor.notation import Move

    sampled = Candidate(Move.parse("d"), 0.5625, 50.0, samples=128, interval=(0.48, 0.65))
    assert win_text(hint_score(sampled)) == "win 56% (95%: 48-65%, 128 deals)"
    assert win_text(hint_score(Candidate(Move.parse("d"), 1.0, 52.0, samples=6, exact=True))) == "win 100% (exact)"
    assert win_text(hint_score(Candidate(Move.parse("d"), 0.0, 30.0, samples=64, interval=(0.0, 0.0)))) == \
        "win 0% (in every consistent deal)"


# ---- 6. the coach's biggest losses -----------------------------------------------------------------------------

def test_the_biggest_losses_leave_out_moves_graded_best_and_never_name_the_played_move_better(tmp_path):
    with History(tmp_path / "h.sqlite3") as h:
        gid = add_record(h, _record(), key="games/deal-5.json")
        store_review(h, gid, _review([
            _move(1, "w", "w", "best", 1.0),          # graded best: its drop is noise, no loss
            _move(2, "d", "d", "good", 3.0),          # no better move named: no loss
            _move(3, "d", "r1", "good", 4.0)]))
        losses = coach(h).losses
    assert [(e.ply, e.move, e.best) for e in losses] == [(3, "d", "r1")]


# ---- 7. due times ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seconds, said", [
    (0, "now"), (-5, "now"), (30, "in under a minute"), (61, "in 1 minute"), (600, "in 10 minutes"), (3599, "in 1 hour"), (3600, "in 1 hour"),
    (7200, "in 2 hours"), (86400, "in 24 hours"), (86400 * 3, "in 3 days"), (86400 * 1.6, "in 2 days"),
])
def test_due_times_agree_in_number(seconds, said):
    """Only a drill that is due is "now" (drill asks exactly those): one due in 40 seconds said "due now"
    and then "No drill is due now"."""
    from tutor.cli.drill_words import when_text

    assert when_text(seconds) == said


def _history_file(run, home, tmp_path):
    from tutor.record import Record

    rules = preset("osmosis")
    path = tmp_path / "g.json"
    path.write_text(json.dumps(Record(rules, deal_for(3, rules), ["d"] * 5).to_json()), encoding="utf-8")
    assert run(["history"]).exit_code == 0  # the database made
    return path, home / "history.sqlite3"


def test_a_full_disk_while_importing_is_one_line_and_the_history_is_kept(run, home, tmp_path, monkeypatch):
    import sqlite3

    from tutor.history import db

    path, database = _history_file(run, home, tmp_path)
    connect = db.History._connect_once

    def full(self, upgrade_to):  # the disk fills up: SQLite says "database or disk is full"
        conn = connect(self, upgrade_to)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(db.History, "_connect_once", full)
    big = tmp_path / "big.jsonl"
    big.write_text("".join(json.dumps({"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": n},
                                       "moves": ["d"] * 5}) + "\n" for n in range(10, 110)), encoding="utf-8")
    result = run(["import", str(big)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "cannot be written: database or disk is full: free some disk space and run it again" in result.stderr
    assert "and the lines after it were not imported" in result.stderr and len(result.stderr.splitlines()) == 1
    monkeypatch.undo()
    assert sqlite3.connect(database).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_history_another_process_keeps_locked_is_one_line_not_a_traceback(run, home, tmp_path, monkeypatch):
    import sqlite3

    from tutor.history import db

    path, database = _history_file(run, home, tmp_path)
    monkeypatch.setattr(db, "BUSY_MS", 200)
    other = sqlite3.connect(database, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        result = run(["import", str(path)])
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "database is locked: another osmosis is writing it" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_import_takes_a_review_of_a_game_taken_back_since_and_refuses_a_pile_its_rules_lack(tmp_path):
    """An export keeps a game's review as the history holds it, also after the game was taken back below the
    reviewed moves, or played on another way ("review.moves_reviewed is 4: expected a whole number from 0 to 3"
    refused the whole line, game and drills, from a backup): such a line is read back as it was written. A
    Bridesmaids line was told "expected a move: r1-r4, w or d": its moves are named by the game's own piles."""
    home = tmp_path / "home"
    line = _good_line(tmp_path)
    line["review"]["moves"][0]["move"] = "r3"  # the game turned there since
    line["record"]["moves"] = line["record"]["moves"][:2]  # and was taken back below move 3
    line["record"].pop("result", None)
    result = osmosis(["import", str(_write(tmp_path / "old.jsonl", line))], home)
    assert result.exit_code == 0 and result.stdout.startswith("Imported 1 game, 1 review"), result.output
    again = json.loads(osmosis(["export"], home).stdout.splitlines()[0])
    assert again["review"]["moves"] == line["review"]["moves"] and len(again["record"]["moves"]) == 2
    rules = preset("bridesmaids")
    with History(tmp_path / "b.sqlite3") as h:
        gid = add_record(h, Record(rules, deal_for(5, rules), MOVES.split()), key="games/b.json")
        store_review(h, gid, _review([_move(1, "d", "d", cands=[_cand("d", 0.6)])]))
        bride = json.loads(export_text(h).splitlines()[0])
    bride["review"]["moves"][0]["best"] = "r1"
    result = osmosis(["import", str(_write(tmp_path / "bride.jsonl", bride))], home)
    assert result.exit_code == 1 and 'review.moves[0].best is "r1": expected w (the waste) or d (turn the talon)' \
        in result.stderr, result.stderr
    del bride["review"]["moves"][0]["best"]
    bride["review"]["moves"][0]["best"] = "d"
    assert osmosis(["import", str(_write(tmp_path / "bride.jsonl", bride))], home).exit_code == 0
