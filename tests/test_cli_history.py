"""``osmosis history``, ``coach``, ``drill``, ``import`` and ``export`` on games played through ``osmosis play``."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from builders import osmosis

from tutor.cards import NAMES
from tutor.deals import deal_for
from tutor.record import Record, save_record
from tutor.rules import preset
from tutor.state import State

# Peek games of the greedy player (any playable card, else turn): short, quick to review, and
# each but the won one opens a row too early (the review's early-start).
GAMES = (30, 20, 23, 11)


def greedy(n: int, variant: str = "peek") -> str:
    rules = preset(variant)
    s = State.initial(deal_for(n, rules), rules)
    moves = []
    while not s.over:
        legal = s.legal_moves()
        plays = [m for m in legal if m.is_play]
        move = plays[0] if plays else legal[0]
        moves.append(str(move))
        s = s.apply(move)
    return " ".join(moves)


def play(run, n: int):
    result = run(["play", str(n), "--variant", "peek"], input=greedy(n) + "\n")
    assert result.exit_code == 0, result.output
    return result


COACH = ["coach", "--json", "--samples", "8", "--workers", "1"]


@pytest.fixture(scope="module")
def played_home(tmp_path_factory):
    """A data folder after four games played through ``osmosis play`` with piped input (made once)."""
    home = tmp_path_factory.mktemp("played") / "home"
    outputs = []
    for n in GAMES:
        result = osmosis(["play", str(n), "--variant", "peek"], home, input=greedy(n) + "\n")
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    return home, outputs


@pytest.fixture(scope="module")
def coached_home(played_home, tmp_path_factory):
    """The same folder after ``osmosis coach`` reviewed the four games (made once)."""
    home = tmp_path_factory.mktemp("coached") / "home"
    shutil.copytree(played_home[0], home)
    result = osmosis(COACH, home)
    assert result.exit_code == 0, result.output
    return home, json.loads(result.stdout)


def _first_moves_to_the_end(number: int) -> tuple[State, list[str]]:
    """Osmosis deal ``number`` played to its end, always the first legal move: the final position and the moves."""
    rules = preset("osmosis")
    state, moves = State.initial(deal_for(number, rules), rules), []
    while not state.over:
        move = state.legal_moves()[0]
        moves.append(str(move))
        state = state.apply(move)
    return state, moves


def _copy(src, home) -> None:
    shutil.copytree(src, home)  # games are keyed by their name in the games folder, so a copy is the same history


@pytest.fixture
def played(played_home, home):
    _copy(played_home[0], home)
    return played_home[1]


@pytest.fixture
def coached(coached_home, home):
    _copy(coached_home[0], home)
    return coached_home[1]


def test_history_shows_the_games_played_through_play(run, played):
    result = run(["history", "--json", "--last", "2"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["games"], data["wins"], data["mean_cards"]) == (4, 1, 25.25)  # 9, 19, 52 and 21 cards
    assert data["accuracy"] is None  # nothing reviewed yet
    assert [(g["deal"], g["variant"], g["cards"], g["won"]) for g in data["recent"]] == \
        [(11, "peek", 21, False), (23, "peek", 52, True)]
    assert [g["moves"] for g in data["recent"]] == [len(greedy(11).split()), len(greedy(23).split())]
    assert all(g["played_at"].endswith("Z") for g in data["recent"])
    assert data["last"]["games"] == 2 and data["last"]["wins"] == 1
    assert data["variants"]["peek"]["games"] == 4 and data["streaks"] == \
        {"current": -1, "longest_wins": 1, "longest_losses": 2}
    text = run(["history"]).output
    assert "All games: 1 of 4 won (25%; 95% interval" in text and "Recent games" in text
    # the history's own number is headed "id", as in the JSON: not to be taken for a number of osmosis games
    header = next(line for line in text.splitlines() if "played (UTC)" in line)
    assert header.split()[0] == "id"
    ids = [line.split()[0] for line in text.splitlines()[text.splitlines().index(header) + 1:] if line.strip()]
    assert ids[:2] == [str(g["id"]) for g in data["recent"]]


def test_the_end_of_a_game_says_what_the_history_shows(played):
    assert "History:" not in played[0]  # one game: nothing to say yet
    assert "History: 2 games of peek, 0 of 2 won" in played[1]


def _without_records(tags: list[dict]) -> list[dict]:
    return [{**t, "examples": [{k: v for k, v in e.items() if k != "record"} for e in t["examples"]]} for t in tags]


def test_coach_reviews_the_games_and_finds_the_recurring_error(run, coached, home):
    data = coached
    assert data["games_reviewed"] == 4
    tags = {t["tag"]: t for t in data["tags"]}
    early = tags["early-start"]
    assert (early["count"], early["games"], early["lesson"]) == (3, 3, "waiting")
    assert early["mean_drop"] > 10
    worst = early["examples"][0]
    assert worst["deal"] in (30, 20, 11) and worst["move"] != worst["best"] and worst["record"].endswith(".json")
    assert data["losses"][0]["drop"] >= data["losses"][-1]["drop"]
    # kept: a second run reviews nothing and says the same
    again = json.loads(run(["coach", "--json"]).stdout)["tags"]
    assert _without_records(again) == _without_records(data["tags"])
    # the files named are this data folder's (the figures were made in another, copied here)
    assert all(e["record"].startswith(str(home / "games")) for t in again for e in t["examples"])
    text = run(["coach", "--tag", "early-start", "--no-review"]).output
    assert "early-start  3 times in 3 games\n" in text and "osmosis lesson waiting" in text
    assert "wrong-row  " not in text
    assert json.loads(run(["history", "--json"]).stdout)["accuracy"] is not None


def test_coach_prints_each_replay_command_whole_however_narrow_the_terminal(run, coached):
    # the command is for copying: a long path must neither be cut nor wrapped into pieces
    text = run(["coach", "--no-review"], env={"COLUMNS": "30"}).output
    lines = set(text.splitlines())
    examples = [e for t in json.loads(run(["coach", "--json", "--no-review"]).stdout)["tags"] for e in t["examples"]]
    assert examples
    for e in examples:
        assert f"    osmosis replay {e['record']} --at {e['ply']}" in lines


def test_coach_reviews_the_other_games_when_one_row_was_garbled_by_hand(run, home, tmp_path):
    """A stored record edited by hand so that it no longer replays stopped every coach run at that game, with
    the games after it never reviewed (games imported from files outside the games folder: nothing to restore
    them from)."""
    rules = preset("peek")
    for n in GAMES:
        save_record(Record(rules, deal_for(n, rules), greedy(n).split()), tmp_path / f"g{n}.json")
    assert run(["import", *(str(tmp_path / f"g{n}.json") for n in GAMES)]).exit_code == 0
    conn = sqlite3.connect(home / "history.sqlite3")
    (gid, text), *_ = conn.execute("SELECT id, record FROM games ORDER BY id").fetchall()
    data = json.loads(text)
    data["moves"][0] = "zz"
    conn.execute("UPDATE games SET record = ? WHERE id = ?", (json.dumps(data), gid))
    conn.commit()
    conn.close()
    result = run(COACH)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and f"game {gid} of the history cannot be read" in warnings[0]
    assert "'zz' is not a move" in warnings[0] and "Traceback" not in result.stderr
    reviewed = sqlite3.connect(home / "history.sqlite3").execute("SELECT COUNT(DISTINCT game_id) FROM reviews")
    assert reviewed.fetchone()[0] == len(GAMES) - 1  # every other game reviewed


def test_coach_without_review_leaves_games_unreviewed(run, played):
    data = json.loads(run(["coach", "--json", "--no-review"]).stdout)
    assert (data["games_reviewed"], data["unreviewed"], data["tags"]) == (0, 4, [])


def test_coach_rejects_an_unknown_tag(run, home):
    result = run(["coach", "--tag", "sloppy"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: unknown tag 'sloppy': expected one of early-start")


def test_review_stores_the_review_and_says_what_the_history_shows(run, played, home):
    files = sorted((home / "games").glob("*.json"))
    said = []
    for f in files[:3]:  # deals 11, 20, 23 (sorted by name): early-start in 11 and 20
        result = run(["review", str(f), "--samples", "8", "--workers", "1"])
        assert result.exit_code == 0
        at = result.stdout.find("History:")  # the last line, wrapped at the console's width
        said.append(" ".join(result.stdout[at:].split()) if at >= 0 else "")
    assert said[0] == ""  # the first review: nothing to compare with
    # early-start in both of the two games reviewed: two alike of two say little, so no recurring error yet
    assert said[1] == ("History: accuracy 1.8 here (95%: 0.5-30.6, 1 graded move) against 0.5 (95%: 0.5-8.3) in your one "
                        "other rated game of peek.")
    assert said[2].startswith("History: accuracy ") and "over your 2 other rated games of peek." in said[2]
    data = json.loads(run(["coach", "--json", "--no-review"]).stdout)
    assert data["games_reviewed"] == 3 and data["unreviewed"] == 1
    quiet = run(["review", str(files[3]), "--samples", "8", "--workers", "1", "--json"])
    json.loads(quiet.stdout)  # the history's line stays out of the JSON
    assert json.loads(run(["coach", "--json", "--no-review"]).stdout)["games_reviewed"] == 4


def test_drill_asks_the_players_own_mistakes_judged_by_the_engine(run, coached):
    listed = json.loads(run(["drill", "--list", "--json"]).stdout)
    assert len(listed) >= 3 and all(d["label"] in ("mistake", "blunder") for d in listed)
    # each loss with what it rests on, as the review kept it: the list gave "lost 18" with no interval
    sampled = [d for d in listed if d["drop_interval"] is not None and not d["drop_exact"]]
    assert sampled and all(lo <= d["drop"] <= hi for d in sampled for lo, hi in [d["drop_interval"]])
    table = run(["drill", "--list"]).stdout
    d = sampled[0]
    lo, hi = d["drop_interval"]
    assert f"{d['drop']:.0f} ({round(lo) + 0.0:.0f}-{round(hi) + 0.0:.0f})" in table
    first = listed[0]
    # the move played in the game is wrong, the review's better move is right
    result = run(["drill", "--json", "--count", "2"], input=f"{first['played']}\n{listed[1]['best']}\n")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [a["right"] for a in data["answers"]] == [False, True]
    wrong, right = data["answers"]
    assert wrong["judge"] in ("hint", "solver") and wrong["box"] == 0
    assert any("By the tutor (from the cards you have seen)" in line or "By the solver" in line
               for line in wrong["feedback"])
    assert any(line.startswith("Tip: ") for line in wrong["feedback"])
    assert right["box"] == 1 and right["due_at"] > wrong["due_at"]
    # the questions and their feedback went to stderr, where the player sees them (with --json they were not
    # shown at all): the position, the prompt, the verdict
    assert "Find a better move." in result.stderr and "answer (h hint, ? help, q stops)> " in result.stderr
    assert wrong["feedback"][0] in result.stderr and "Find a better move." not in result.stdout
    # the right one is not due again now; the wrong one waits ten minutes
    rest = json.loads(run(["drill", "--list", "--json"]).stdout)
    boxes = {d["id"]: (d["box"], d["answers"]) for d in rest}
    assert boxes[wrong["drill"]] == (0, 1) and boxes[right["drill"]] == (1, 1)


def test_a_right_drill_answer_is_named_among_the_moves_the_verdict_gives(run, coached):
    """"Right: w was the move here" for the answer d (a tie) told the player they were right and wrong at once."""
    listed = json.loads(run(["drill", "--list", "--json"]).stdout)
    result = run(["drill", "--json", "--count", str(len(listed))], input="".join(f"{d['best']}\n" for d in listed))
    assert result.exit_code == 0, result.output
    answers = json.loads(result.stdout)["answers"]
    assert answers
    best = {d["id"]: d["best"] for d in listed}
    for a in answers:
        first = a["feedback"][0]
        if a["right"]:
            assert first.startswith("Right: ") and f"{best[a['drill']]} (" in first, first


def test_a_drill_says_its_sampled_figures_with_their_interval_and_deals(run, coached):
    """"lost 18 win points (mistake)" and "(win 56%)" were sampled figures shown bare."""
    import re

    listed = json.loads(run(["drill", "--list", "--json"]).stdout)
    out = " ".join(run(["drill", "--count", "1"], input="q\n").output.split())
    assert re.search(r"lost \d+ win points \((mistake|blunder); (95%: \d+-\d+, \d+ deals|exact: every consistent "
                     r"deal solved)\)\.", out), out
    data = json.loads(run(["drill", "--json", "--count", str(len(listed))],
                          input="".join(f"{d['best']}\n" for d in listed)).stdout)
    assert data["answers"]
    for a in data["answers"]:
        first = a["feedback"][0]
        if a["judge"] == "hint":
            assert re.search(r"was (the move|right) here: win \d+% \((95%: \d+-\d+%, \d+ deals?|exact|in every "
                             r"consistent deal)\)", first), first


def test_drill_in_text_shows_the_position_as_the_player_saw_it(run, coached):
    result = run(["drill", "--count", "1"], input="q\n")
    assert result.exit_code == 0
    assert "Drill 1 of 1" in result.output and "Foundations" in result.output
    flat = " ".join(result.output.split())  # wrapped at word boundaries for the terminal's width
    assert "were still face down." in flat and "Find a better move." in result.output
    assert all(len(line) <= 100 for line in result.output.splitlines())  # the tests' COLUMNS
    assert "0 of 0 right" in result.output


def test_a_drill_in_a_later_pass_names_the_talon_the_player_had_seen_in_order(run, home):
    """Deal 17 move 56, pass 3: the drill showed only 'Waste 3 more, then TC (top) Stock 11', where the answer
    turns on the order of the 15 talon cards the player had seen (the board and a lesson name it)."""
    line = ("r1 r2 r2 r4 r4 d d w d d d d w r1 d w d w w d w d d w d d d d d d w d w d w w w d d w w w d w r1 r1 "
            "r2 w w d d d d w w w d d d d d d d d d d")
    assert run(["play", "17"], input=f"{line}\nq\n").exit_code == 0
    assert run(["review", "last"]).exit_code == 0
    out = " ".join(run(["drill", "--count", "1"], input="q\n").stdout.split())
    assert "before move 56" in out
    assert ("You have seen the whole talon in this order: on the waste from the bottom 2C 7D 9C TC (top), then in "
            "the stock, a turn of 3 at a time: 8H JD 7C, 3C JC QC, KC QS 9D, 8D 5C.") in out


def test_drill_explains_itself_on_question_mark_and_hints_without_giving_the_answer(run, coached):
    first = json.loads(run(["drill", "--list", "--json"]).stdout)[0]
    out = run(["drill", "--count", "1"], input="?\nh\nq\n").output
    assert "Answer with a move: r1-r4 (a reserve pile), w (the waste), d (turn the talon)" in out
    assert "unknown move '?'" not in out and "unknown move 'h'" not in out
    hint_line = next(line for line in out.splitlines() if line.startswith("Hint:"))
    assert "was the move here" not in hint_line  # a nudge, not the verdict
    if first["tags"]:
        assert len(hint_line) > len("Hint: ") + 20  # the tip of the error's kind
    data = json.loads(run(["drill", "--json", "--count", "1"], input=f"h\n{first['best']}\n").stdout)
    assert data["answers"][0]["hinted"] is True and data["answers"][0]["right"] is True
    data = json.loads(run(["drill", "--json", "--count", "1"], input=f"{first['best']}\n").stdout)
    assert not data["answers"] or data["answers"][0]["hinted"] is False


def test_drill_with_no_reviewed_games_says_how_to_get_some(run, home):
    result = run(["drill"])
    assert result.exit_code == 0 and "No drills yet" in result.output


def test_export_and_import_round_trip_through_the_cli(run, coached, home, tmp_path):
    out = tmp_path / "all.jsonl"
    assert run(["export", str(out)]).exit_code == 0
    first = out.read_text()
    assert len(first.splitlines()) == 4
    assert run(["export"]).stdout == first
    elsewhere = tmp_path / "elsewhere"
    result = osmosis(["import", str(out)], elsewhere)
    assert result.exit_code == 0 and "Imported 4 games, 4 reviews" in result.stdout
    assert osmosis(["export"], elsewhere).stdout == first
    again = json.loads(osmosis(["coach", "--json", "--no-review"], elsewhere).stdout)
    assert again["games_reviewed"] == 4 and _without_records(again["tags"]) == _without_records(coached["tags"])
    # every game keeps its id (the coach's examples and the history name games by it)
    assert json.loads(osmosis(["history", "--json"], elsewhere).stdout) == json.loads(run(["history", "--json"]).stdout)
    ids = [json.loads(line)["id"] for line in first.splitlines()]
    assert sorted(ids) == [1, 2, 3, 4]
    shuffled = tmp_path / "shuffled.jsonl"
    shuffled.write_text("".join(reversed(first.splitlines(keepends=True))))
    third = tmp_path / "third"
    assert osmosis(["import", str(shuffled)], third).exit_code == 0
    assert osmosis(["export"], third).stdout == first


def test_an_earlier_export_is_written_over_only_by_one_that_keeps_every_game(run, coached, home, tmp_path):
    """An export is a backup of whole games: `osmosis export b.jsonl` from a fresh home replaced a 4-game export
    with an empty file, and `solve --graph` or `stats --per-deal` wrote over it without a word."""
    out = tmp_path / "backup.jsonl"
    assert run(["export", str(out)]).exit_code == 0
    kept = out.read_bytes()
    assert run(["export", str(out)]).exit_code == 0 and out.read_bytes() == kept  # the same games: written
    elsewhere = tmp_path / "elsewhere"
    lost = osmosis(["export", str(out)], elsewhere)
    assert lost.exit_code == 1 and out.read_bytes() == kept
    assert lost.stderr.startswith(f"error: '{out}' is an export of 4 games, and this history lacks 4 of them or "
                                  "holds less (deal ")
    assert lost.stderr.count("\n") == 1 and f"osmosis import {out}" in lost.stderr
    for args, what in ((["solve", "5", "--graph", str(out)], "the graph"),
                       (["stats", "--deals", "1-2", "--policy", "greedy", "--per-deal", str(out)], "the per-deal lines")):
        refused = run(args)
        assert refused.exit_code == 1 and out.read_bytes() == kept
        assert refused.stderr == (f"error: '{out}' is an export of the history (4 games) and is kept as it is: "
                                  f"write {what} to another file\n")
    assert osmosis(["import", str(out)], elsewhere).exit_code == 0
    assert osmosis(["export", str(out)], elsewhere).exit_code == 0 and out.read_bytes() == kept  # now it keeps them


def test_an_export_that_would_lose_reviews_or_a_damaged_one_is_kept(run, coached, home, tmp_path):
    # the same games without their reviews replaced a backup that had them; a backup cut short (its last line
    # half written) or with a note added was no export any more, and anything wrote over it
    out = tmp_path / "backup.jsonl"
    assert run(["export", str(out)]).exit_code == 0
    kept = out.read_bytes()
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps({**json.loads(line), "review": None, "drills": []}) + "\n"
                            for line in kept.decode().splitlines()))
    elsewhere = tmp_path / "elsewhere"
    assert osmosis(["import", str(bare)], elsewhere).exit_code == 0
    lost = osmosis(["export", str(out)], elsewhere)
    assert lost.exit_code == 1 and out.read_bytes() == kept
    assert "this history lacks 4 of them or holds less (the review of deal " in lost.stderr
    for damaged in (kept[:-40], kept + b"# my notes\n"):
        out.write_bytes(damaged)
        refused = osmosis(["export", str(out)], elsewhere)
        assert refused.exit_code == 1 and out.read_bytes() == damaged
        assert "is an export with 1 line that cannot be read" in refused.stderr
        graph = run(["solve", "5", "--graph", str(out)])
        assert graph.exit_code == 1 and out.read_bytes() == damaged and "is an export of the history" in graph.stderr
    edited = b"\xef\xbb\xbf" + kept.replace(b"\n", b"\r\n")  # saved again by an editor: a BOM and CRLF
    out.write_bytes(edited)
    refused = osmosis(["export", str(out)], elsewhere)
    assert refused.exit_code == 1 and out.read_bytes() == edited and "holds less (the review of deal" in refused.stderr
    other = tmp_path / "notes.jsonl"
    other.write_text('{"a": 1}\n' + kept.decode())  # a line on top of an export: its games are still there
    noted = other.read_bytes()
    refused = run(["export", str(other)])
    assert refused.exit_code == 1 and other.read_bytes() == noted and "cannot be read" in refused.stderr
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"a": 1}\n')  # no export in it: not a backup, but somebody's file all the same, kept
    refused = run(["export", str(plain)])
    assert refused.exit_code == 1 and plain.read_text() == '{"a": 1}\n' and "is not an export" in refused.stderr


def test_a_copy_of_a_game_imported_from_another_file_changes_nothing(run, tmp_path):
    from tutor.record import Record

    rules = preset("osmosis")
    path = tmp_path / "a.json"
    path.write_text(json.dumps(Record(rules, deal_for(5, rules), ["d"] * 4).to_json()), encoding="utf-8")
    os.utime(path, (1_767_261_600, 1_767_261_600))  # 2026-01-01 10:00 UTC
    assert run(["import", str(path)]).exit_code == 0
    before = json.loads(run(["history", "--json"]).stdout)
    copy = tmp_path / "a_copy.json"
    copy.write_bytes(path.read_bytes())
    assert "Nothing new to import" in run(["import", str(copy)]).stdout
    assert json.loads(run(["history", "--json"]).stdout) == before
    assert before["recent"][0]["played_at"].startswith("2026-01-01T10:00")


def test_coach_offers_no_replay_command_for_a_game_file_that_is_gone(run, coached, home, tmp_path):
    """After an import on another machine (here: the games folder removed) 'osmosis replay PATH' would fail."""
    out = tmp_path / "all.jsonl"
    assert run(["export", str(out)]).exit_code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    gone = tmp_path / "other-machine" / "games"
    for line in lines:  # the game files stayed on the machine the history came from
        assert line["source"]
        line["source"] = str(gone / Path(line["source"]).name)
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    elsewhere = tmp_path / "elsewhere"
    assert osmosis(["import", str(out)], elsewhere).exit_code == 0
    text = osmosis(["coach", "--no-review"], elsewhere).stdout
    assert "osmosis replay" not in text.split("Biggest single losses")[0].replace("(open them with osmosis replay)", "")
    assert "to replay: it was moved or is another machine's; your history keeps the moves" in " ".join(text.split())


def test_import_names_a_bad_file_and_still_takes_the_good_ones(run, tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 1},
                                "moves": ["d", "d", "d", "d", "d"]}))
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    result = run(["import", str(bad), str(good)])
    assert result.exit_code == 1
    assert "Imported 1 game into your history." in result.stdout
    again = run(["import", str(good)])  # the same game again: said so, and still one game
    assert again.exit_code == 0
    assert "Nothing new to import: the 1 game was in your history already, and each is kept once." in again.stdout
    assert "Imported" not in again.stdout
    none = run(["import", str(bad)])  # nothing could be read: the error alone, no "Imported 0 games"
    assert none.exit_code == 1 and none.stdout == ""
    assert result.stderr.startswith("error: ") and "bad.json' is not valid JSON: expected" in result.stderr
    assert json.loads(run(["history", "--json"]).stdout)["games"] == 1


def _poisoned(line: dict, path: str, value) -> dict:
    out = json.loads(json.dumps(line))
    *keys, last = path.split(".")
    target = out
    for k in keys:
        target = target[int(k)] if k.isdigit() else target[k]
    target[int(last) if last.isdigit() else last] = value
    return out


@pytest.mark.parametrize("path, value, said", [
    ("drills.0.box", 10**20, "drills[0].box is 100000000000000000000: expected a whole number from 0 to 6"),
    ("drills.0.box", 7, "drills[0].box is 7: expected a whole number from 0 to 6"),  # the boxes are 0-6
    ("drills.0.label", "best", 'drills[0].label is "best": expected mistake or blunder'),  # drills come from these
    ("drills.0.due_at", "not a date", 'drills[0].due_at is "not a date": expected a UTC time'),
    ("drills.0.label", "weird", 'drills[0].label is "weird": expected one of best'),
    ("drills.0.ply", 9999, "drills[0].ply is 9999"),
    ("review.accuracy", "NaN", 'review.accuracy is "NaN": expected a number from 0 to 100'),
    ("source", ["x"], 'source is ["x"]: expected text'),
    ("played_at", "garbage", 'played_at is "garbage": expected a UTC time'),
])
def test_a_line_not_as_export_writes_it_is_refused_whole_and_the_history_kept(run, coached, tmp_path, path, value,
                                                                               said):
    run(["drill", "--list"])  # the drills are made from the reviewed errors
    line = next(d for d in map(json.loads, run(["export"]).stdout.splitlines()) if d["drills"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(_poisoned(line, path, value)) + "\n")
    elsewhere = tmp_path / "elsewhere"
    result = osmosis(["import", str(bad)], elsewhere)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and said in result.stderr, result.stderr
    assert json.loads(osmosis(["history", "--json"], elsewhere).stdout)["games"] == 0  # nothing half-written
    assert osmosis(["drill", "--list"], elsewhere).exit_code == 0
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(line) + "\n")
    assert "Imported 1 game, 1 review, " in osmosis(["import", str(good)], elsewhere).stdout


def test_another_game_imported_from_the_same_file_name_never_replaces_a_stored_one(run, tmp_path):
    """The history knows an imported game by its file; a file that now holds another game (another deal, or
    moves that do not go on from the stored ones) gets a row of its own, and the stored game stays. The same
    game gone further brings its row up to date; the same game with fewer moves (an undo) changes nothing."""
    from tutor.record import Record

    def save_record(record, where):  # as cp would: save_record itself keeps a finished game
        where.write_text(json.dumps(record.to_json()), encoding="utf-8")

    rules = preset("osmosis")
    state, moves = _first_moves_to_the_end(7)
    path = tmp_path / "P.json"

    def recent():
        data = json.loads(run(["history", "--json"]).stdout)
        return data["games"], sorted((r["deal"], r["moves"]) for r in data["recent"])

    save_record(Record(rules, deal_for(7, rules), moves[:5]), path)
    assert run(["import", str(path)]).exit_code == 0
    save_record(Record(rules, deal_for(7, rules), moves), path)  # the same game, finished since
    assert run(["import", str(path)]).exit_code == 0
    assert recent() == (1, [(7, len(moves))])
    save_record(Record(rules, deal_for(7, rules), moves[:3]), path)  # an undo's copy: nothing changes
    assert "Nothing new to import" in run(["import", str(path)]).stdout
    assert recent() == (1, [(7, len(moves))])
    save_record(Record(rules, deal_for(1, rules), ["d"] * 10), path)  # another game under the same name
    result = run(["import", str(path)])
    assert result.exit_code == 0 and "Imported 1 game into your history." in result.stdout
    assert recent() == (2, [(1, 10), (7, len(moves))])


def test_an_exported_line_whose_file_key_holds_another_game_here_gets_a_row_of_its_own(run, home, tmp_path):
    """An export line carries the key of its game's file on the machine that wrote it; here the same key
    may name another game (kept: the line's game gets a row of its own), or the same game further on
    (kept as it is: an older export never takes moves back)."""
    from tutor.record import Record

    rules = preset("osmosis")
    path = tmp_path / "shared.json"

    def recent():
        data = json.loads(run(["history", "--json"]).stdout)
        return data["games"], sorted((r["deal"], r["moves"]) for r in data["recent"])

    path.write_text(json.dumps(Record(rules, deal_for(1, rules), ["d"] * 6).to_json()), encoding="utf-8")
    assert run(["import", str(path)]).exit_code == 0
    exported = tmp_path / "a.jsonl"
    exported.write_text(run(["export"]).stdout, encoding="utf-8")
    shutil.rmtree(home)  # another machine: its own game under the same file name
    path.write_text(json.dumps(Record(rules, deal_for(2, rules), ["d"] * 4).to_json()), encoding="utf-8")
    assert run(["import", str(path)]).exit_code == 0
    result = run(["import", str(exported)])
    assert "Imported 1 game" in result.stdout, result.stdout
    assert recent() == (2, [(1, 6), (2, 4)])
    assert "Nothing new to import" in run(["import", str(exported)]).stdout  # a second import changes nothing
    assert recent() == (2, [(1, 6), (2, 4)])
    path.write_text(json.dumps(Record(rules, deal_for(1, rules), ["d"] * 9).to_json()), encoding="utf-8")
    shutil.rmtree(home)
    assert run(["import", str(path)]).exit_code == 0  # the game itself, gone on since the export
    run(["import", str(exported)])
    assert recent() == (1, [(1, 9)])


def test_import_refuses_a_file_no_reader_could_take_in_one_line(run, tmp_path):
    cases = {"deep.json": "[" * 100000 + "]" * 100000, "huge.json": '{"format": "osmosis-deal/1", "base": '
             + "9" * 5000 + "}", "lines.jsonl": "{ no\n{ no\n{ no\n"}
    said = {"deep.json": "nested too deep", "huge.json": "a number of 5000 digits is too large",
            "lines.jsonl": "is not valid JSON: expected"}  # an empty file is an empty export: test_import51
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        result = run(["import", str(tmp_path / name)])
        assert result.exit_code == 1 and "Traceback" not in result.output, name
        assert result.stderr.count("\n") == 1 and said[name] in result.stderr, (name, result.stderr)


def test_saved_games_are_imported_on_first_use(run, home):
    play(run, 30)
    (home / "history.sqlite3").unlink()
    for side in home.glob("history.sqlite3-*"):
        side.unlink()
    (home / "games" / "junk.json").write_text("[1, 2")
    result = run(["history", "--json"])
    assert json.loads(result.stdout)["games"] == 1
    assert result.stderr == ("Imported 1 saved game from the games folder into your history "
                             "(1 unreadable file left out).\n")


def test_the_first_use_import_numbers_the_games_in_the_order_they_were_played(run, home):
    """Ids followed the file names: deal 10, 11 and 3 came before deal 5, played first."""
    folder = home / "games"
    folder.mkdir(parents=True)
    order = [5, 3, 11, 10]
    for i, number in enumerate(order):
        record = Record(preset("osmosis"), deal_for(number, preset("osmosis")), ["d"])
        save_record(record, folder / f"deal-{number}-20261201-1{i}0000.json")
    data = json.loads(run(["history", "--json"]).stdout)
    by_id = sorted(data["recent"], key=lambda g: g["id"])
    assert [g["deal"] for g in by_id] == order, by_id


def damage(home):
    """Garbage over the history's file (its WAL side files gone first, as after a clean close)."""
    for side in home.glob("history.sqlite3-*"):
        side.unlink()
    (home / "history.sqlite3").write_bytes(b"\x00garbage" * 100)


def test_a_damaged_database_is_set_aside_with_one_line(run, home):
    play(run, 30)
    damage(home)
    result = run(["history", "--json"])
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "set aside" in warnings[0]
    assert list(home.glob("history.sqlite3.damaged-*"))
    assert json.loads(result.stdout)["games"] == 1  # the saved game came back from the games folder


@pytest.mark.parametrize("first", [["games"], ["games", "--json"], ["review", "last", "--samples", "4"]])
def test_whichever_command_sets_a_damaged_history_aside_says_so(run, home, first):
    """``games``, ``games --json`` and ``review`` opened the history without printing its warning: the first of
    them to meet a damaged file set it aside in silence, and the player's reviews and drills dropped out of
    view with no line ever saying why."""
    assert run(["play", "5"], input="d\nq\n").exit_code == 0
    damage(home)
    result = run(first)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "set aside" in warnings[0], result.stderr
    assert list(home.glob("history.sqlite3.damaged-*"))
    assert "warning:" not in run(["history"]).stderr  # said once, by the command that set it aside


def test_games_played_alike_stay_two_games_when_the_history_is_rebuilt(run, home):
    """Two games of deal 5 quit after the same move are two games (two rows, as play stored them); the
    history rebuilt from the games folder merged them into one, and said it had imported two."""
    for _ in range(2):
        assert run(["play", "5"], input="d\nq\n").exit_code == 0
    assert json.loads(run(["history", "--json"]).stdout)["games"] == 2
    damage(home)
    result = run(["history", "--json"])
    assert "Imported 2 saved games" in result.stderr
    assert json.loads(result.stdout)["games"] == 2


def test_a_game_played_on_from_a_file_of_ones_own_is_named_when_the_history_is_rebuilt(run, home, tmp_path):
    """Saved with --save after 5 moves and finished from that file, the game's first 5 moves stay in the games
    folder, and a damaged history rebuilt from the folder held only those, without a word. The warning says so
    and how to bring the whole game back; import adds it (no record links the two files, so the folder's
    copy is not merged into it: that took another game of the same deal over, on a shared first move)."""
    moves = greedy(17).split()
    mine = tmp_path / "mine.json"
    assert run(["play", "17", "--save", str(mine)], input=" ".join(moves[:5]) + "\nq\n").exit_code == 0
    assert run(["play", "--resume", str(mine)], input=" ".join(moves[5:]) + "\nq\n").exit_code == 0
    damage(home)
    rebuilt = run(["history", "--json"])
    assert "only as far as the folder's copy goes: osmosis import FILE adds the whole game" in " ".join(
        rebuilt.stderr.split())
    assert json.loads(rebuilt.stdout)["finished"] == 0
    assert "Imported 1 game" in run(["import", str(mine)]).stdout
    assert json.loads(run(["history", "--json"]).stdout)["finished"] == 1


def test_a_history_that_cannot_be_written_never_breaks_a_game(run, home):
    home.mkdir(parents=True)
    (home / "history.sqlite3").mkdir()  # a folder where the file should be
    result = run(["play", "30", "--variant", "peek"], input=greedy(30) + "\n")
    assert result.exit_code == 0
    assert result.stderr.count("could not be added to your history") == 1
    assert "could not be added" not in result.stdout  # a warning is stderr's, not mixed into the game on stdout
    assert "Blocked: 9 cards" in result.stdout


def test_the_review_offered_at_the_end_of_play_is_kept_in_the_history(home, monkeypatch):
    import io

    import click
    from rich.console import Console

    from tutor.cli import main
    from tutor.cli.review import review_after_play
    from tutor.record import Record

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    rules = preset("peek")
    rec = Record(rules, deal_for(30, rules), greedy(30).split())
    out = io.StringIO()
    with click.Context(main, obj={"console": Console(file=out, width=100)}) as ctx:
        review_after_play(ctx, rec)
    from tutor.history.coach import coach
    from tutor.history.games import open_history

    with open_history() as h:
        c = coach(h)
    assert c.games_reviewed == 1 and "early-start" in {t.tag for t in c.tags}
    assert "Review of deal 30" in out.getvalue()


def test_a_drill_the_engine_no_longer_calls_a_mistake_is_retired_not_asked(run, home, monkeypatch):
    """The stored label is not the judge: the lessons' engine, asked afresh, is."""
    from tutor.history.games import add_record, open_history
    from tutor.history.reviews import store_review
    from tutor.record import Record

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    rules = preset("osmosis")
    with open_history() as h:
        g = add_record(h, Record(rules, deal_for(2, rules), ["r2", "d"]), key="games/two.json")
        # a review that claims r2 at move 1 was a blunder; the engine rates r2, r3 and d alike there
        store_review(h, g, {"moves_reviewed": 2, "accuracy": 10.0, "graded": 1, "samples": 24, "thresholds": {},
                            "hindsight": {}, "moves": [
                                {"ply": 1, "move": "r2", "best": "d", "label": "blunder", "tags": ["reserve-dig"],
                                 "drop": 80.0, "win_before": 0.9, "win_after": 0.1, "graded": True, "comment": "",
                                 "candidates": [{"move": "d", "win": 0.9, "samples": 8},
                                                {"move": "r2", "win": 0.1, "samples": 8}]}]})
    result = run(["drill", "--json"], input="d\n")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["asked"] == 0
    assert json.loads(run(["drill", "--list", "--json"]).stdout) == []


def test_history_json_gives_a_custom_variant_as_an_object_like_the_records(run):
    assert run(["play", "5", "--passes", "2"], input="d d d\n").exit_code == 0
    data = json.loads(run(["history", "--json"]).stdout)
    record_variant = json.loads(run(["games", "--json"]).stdout)["games"][0]["variant"]
    assert data["recent"][0]["variant"] == record_variant == \
        {"turn": 3, "passes": 2, "open_reserve": False, "reserve_piles": 4}


def test_opening_a_finished_game_again_says_nothing_of_the_history(run, played, tmp_path):
    won = tmp_path / "won.json"
    finished = run(["play", "23", "--variant", "peek"], input=greedy(23) + f"\ns {won}\n")
    assert "History: 5 games of peek" in finished.output  # a game ended: the history has news
    again = run(["play", "--resume", str(won)], input="\n")
    assert again.exit_code == 0 and "Won!" in again.output
    assert "History:" not in again.output  # no game ended here


def test_coach_reviews_two_games_with_the_same_moves_once_each(run, home):
    """The review of the second was stored on the first (found by its content): coach reviewed it on every run."""
    for _ in range(2):
        assert run(["play", "12"], input="d d\nq\n").exit_code == 0
    first = run(["coach", "--samples", "4", "--workers", "1"])
    assert "Reviewed 2 games not reviewed before" in first.stdout
    again = run(["coach", "--samples", "4", "--workers", "1"])
    assert "Reviewed" not in again.stdout and "not reviewed yet" not in again.stdout
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 2 and data["reviewed"] == 2


def test_the_accuracy_line_compares_only_games_of_the_same_variant(run, home):
    """A Peek game's accuracy is no yardstick for an Osmosis game: with none of its variant, no line."""
    assert run(["play", "30", "--variant", "peek"], input=greedy(30) + "\n").exit_code == 0
    peek = sorted((home / "games").glob("*.json"))[0]
    assert run(["review", str(peek), "--samples", "4", "--workers", "1"]).exit_code == 0
    run(["play", "12"], input="d d\nq\n")
    other = next(p for p in (home / "games").glob("*.json") if p != peek)
    out = run(["review", str(other), "--samples", "4", "--workers", "1"]).stdout
    assert "History: accuracy" not in out


def test_a_drill_answer_echoes_no_control_codes_and_quotes_a_long_word_cut(run, coached):
    typed = b"\x1b[2J\x07x\n\xffy\n" + b"z" * 5000 + b"\nq\n"
    result = run(["drill", "--count", "1"], input=typed)
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert "\x07" not in result.output and "\x1b[2J" not in result.output
    assert "That line is not utf-8 text, so it was ignored" in result.output
    assert "(5000 characters)" in result.output and "z" * 100 not in result.output.replace("z" * 5000, "", 1)


def test_history_lines_read_as_sentences():
    from types import SimpleNamespace

    from tutor.cli.history_render import accuracy_line, streak_text

    streaks = SimpleNamespace(current=-2, longest_wins=0, longest_losses=5)
    assert streak_text(streaks) == ("Streaks: now 2 losses in a row; longest run of wins 0, of losses 5 "
                                    "(finished games).")
    one = SimpleNamespace(accuracy=90.7, rated=1)
    assert accuracy_line(80.0, one, "osmosis").startswith(
        "History: accuracy 80.0 here against 90.7 in your one other rated game of ")
    assert accuracy_line(100.0, one, "osmosis", 2).startswith(  # the moves it rests on beside it
        "History: accuracy 100.0 here (2 graded moves) against 90.7 in your one other rated game of ")


def test_the_cost_interval_of_few_errors_uses_students_t():
    from tutor.history.coach import TagFigures, t_quantile

    assert (t_quantile(1), t_quantile(3), t_quantile(30)) == (12.706, 3.182, 2.042)
    assert abs(t_quantile(60) - 2.000) < 0.002 and abs(t_quantile(120) - 1.980) < 0.002
    four = TagFigures("early-start", 4, 4, 12.5, 50.0, (2, 2), (2, 2), None, [], sd=3.27)
    lo, hi = four.interval
    assert round(lo, 1) == 7.3 and round(hi, 1) == 17.7  # 12.5 -/+ 3.182 * 3.27 / 2
    assert TagFigures("early-start", 1, 1, 100.0, 100.0, (1, 1), (0, 0), None, []).interval is None


def test_the_coach_says_when_it_lists_only_the_costliest_times(run, coached):
    tag = next(t for t in coached["tags"] if t["count"] >= 2)
    out = run(["coach", "--no-review", "--tag", tag["tag"], "--examples", "1"]).stdout
    assert f"The 1 costliest of the {tag['count']} times:" in out
    full = run(["coach", "--no-review", "--tag", tag["tag"], "--examples", str(tag["count"])]).stdout
    assert "costliest" not in full


def test_the_coachs_examples_name_the_cards_as_the_replay_does(run, coached):
    from tutor.notation import Move
    from tutor.record import load_record

    data = json.loads(run(["coach", "--no-review", "--json"]).stdout)
    examples = [e for t in data["tags"] for e in t["examples"]]
    assert examples
    for e in examples:
        state = load_record(e["record"]).states()[e["ply"] - 1]
        for key, move in (("card", e["move"]), ("best_card", e["best"])):
            card = state.card_of(Move.parse(move))
            assert e[key] == (NAMES[card] if card is not None else None)
    text = run(["coach", "--no-review"]).stdout
    e = next(e for e in examples if e["card"] is not None)
    assert f"move {e['ply']}: {e['move']} ({e['card']}) instead of {e['best']}" in text


def test_coach_compares_no_accuracy_with_a_game_that_has_none(run):
    """Peek 7 is lost from its first move, so its review grades nothing and has no accuracy. The next
    reviewed game of the variant compared its accuracy with that None and crashed (TypeError)."""
    assert run(["play", "7", "--variant", "peek"], input="r2 d d\nq\n").exit_code == 0
    assert run(["play", "3", "--variant", "peek"], input="r3 d d w d d w\nq\n").exit_code == 0
    result = run(COACH)
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    text = run(["coach", "--samples", "8", "--workers", "1"])
    assert text.exit_code == 0 and "Traceback" not in text.output


def test_a_game_reviewed_by_a_relative_path_is_found_from_another_folder(tmp_path, monkeypatch):
    """The history keeps where a reviewed file lies as an absolute path, so coach's replay command works
    wherever it is run; a path with a space is quoted for the shell."""
    from builders import osmosis
    from test_review import _greedy_record

    from tutor.record import save_record

    home, here = tmp_path / "home", tmp_path / "my games"
    here.mkdir()
    monkeypatch.chdir(here)
    save_record(_greedy_record("osmosis", 3), "g3.json")
    assert osmosis(["review", "g3.json", "--samples", "6"], home).exit_code == 0
    monkeypatch.chdir(tmp_path)
    data = json.loads(osmosis(["coach", "--json", "--no-review"], home).stdout)
    records = {e["record"] for t in data["tags"] for e in t["examples"]}
    assert records == {str(here / "g3.json")}
    text = osmosis(["coach", "--no-review"], home).output
    assert f"osmosis replay '{here / 'g3.json'}' --at " in text and "no game file at" not in text


def test_a_game_first_stored_by_its_review_keeps_the_files_dates_as_an_import_gives_them(tmp_path):
    """osmosis review of a file from a month ago stored its game as played at the review's moment, and an
    import of the same file in another history as played when the file was written: the recent list, its
    order and the streaks depended on which command came first."""
    game = tmp_path / "old.json"
    game.write_text('{"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 5}, '
                    '"moves": ["r3", "r4"]}', encoding="utf-8")
    moment = time.mktime((2026, 11, 1, 12, 0, 0, 0, 0, -1))
    os.utime(game, (moment, moment))
    assert osmosis(["review", str(game), "--samples", "6"], tmp_path / "a").exit_code == 0
    assert osmosis(["import", str(game)], tmp_path / "b").exit_code == 0
    dates = [json.loads(osmosis(["history", "--json"], tmp_path / home).stdout)["recent"][0]["played_at"]
             for home in ("a", "b")]
    assert dates[0] == dates[1] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


def test_importing_a_deal_file_says_what_it_is_and_how_to_play_it(run, tmp_path):
    deal = tmp_path / "d.json"
    deal.write_text(run(["deal", "5", "--json"]).stdout)
    result = run(["import", str(deal)])
    assert result.exit_code == 1 and result.stderr == (
        f"error: '{deal}' is a deal file (osmosis-deal/1), a deal to play, not a game: import takes game records "
        f"and what osmosis export writes (osmosis play --deal-file {deal} plays the deal)\n")


def test_import_reads_a_record_from_a_pipe(run, tmp_path):
    """``osmosis import /dev/stdin`` (or ``<(cat r.json)``): the file can be read once only, and import read
    it twice (once to see what it is, once to load it), so a piped record was 'not valid JSON'."""
    import os
    import threading

    from tutor.record import Record

    rules = preset("osmosis")
    text = json.dumps(Record(rules, deal_for(7, rules), ["d", "d"]).to_json())
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(text, encoding="utf-8"), daemon=True)
    writer.start()
    result = run(["import", str(fifo)])
    writer.join(timeout=10)
    assert result.exit_code == 0, result.output
    assert "Imported 1 game" in result.output
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 1 and data["recent"][0]["deal"] == 7 and data["recent"][0]["moves"] == 2


def test_import_warns_of_a_stated_result_the_moves_do_not_reach_and_stores_the_moves_result(run, tmp_path):
    from tutor.record import Record

    rules = preset("osmosis")
    data = Record(rules, deal_for(1, rules), ["d"] * 6).to_json()
    data["result"] = {"cards": 52, "won": True}
    path = tmp_path / "claimed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run(["import", str(path)])
    assert result.exit_code == 0 and "Imported 1 game" in result.stdout
    assert "warning: " in result.stderr and "the result says 52 cards but the moves reach" in result.stderr
    history = json.loads(run(["history", "--json"]).stdout)
    assert history["wins"] == 0 and history["recent"][0]["won"] is False


def test_an_older_copy_put_back_over_a_finished_game_never_takes_the_finished_game_out_of_history(run, home):
    state, moves = _first_moves_to_the_end(17)
    run(["play", "17"], input=" ".join(moves[:10]) + "\nq\n")
    path = sorted((home / "games").glob("*.json"))[0]
    old = path.read_bytes()
    run(["play", "--resume", str(path)], input=" ".join(moves[10:]) + "\n")

    def rows():
        data = json.loads(run(["history", "--json"]).stdout)
        return sorted((r["moves"], r["cards"]) for r in data["recent"])

    finished = rows()
    assert finished == [(len(moves), state.cards)]
    path.write_bytes(old)  # the player puts an older copy back, and plays on from it
    run(["play", "--resume", str(path)], input=f"{moves[10]}\nq\n")
    assert len(rows()) == 2 and finished[0] in rows() and any(m == 11 for m, _ in rows())
    run(["play", "--resume", str(path)], input=f"{moves[11]}\nq\n")  # and on again: the same row goes on
    assert len(rows()) == 2 and (len(moves), state.cards) in rows() and any(m == 12 for m, _ in rows())


def test_lines_of_a_newer_export_format_are_refused_once_naming_the_format_this_version_reads(run, coached, tmp_path):
    newer = tmp_path / "newer.jsonl"
    newer.write_text(run(["export"]).stdout.replace('"osmosis-history/1"', '"osmosis-history/2"'), encoding="utf-8")
    result = osmosis(["import", str(newer)], tmp_path / "elsewhere")
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1
    assert ("line 1: format 'osmosis-history/2' is not supported: expected 'osmosis-history/1', the one this "
            "osmosis-tutor reads (another version of osmosis-tutor wrote it") in result.stderr


def test_two_games_played_alike_stay_two_games_through_an_export_and_a_restore(run, home, tmp_path):
    """Restoring an export matched a line whose file name was new by its moves: a deal played twice the same
    way came back as one game, with one review for both."""
    run(["play", "7"], input="d d d d d d\nq\n")
    run(["play", "7"], input="d d d d d d\nq\n")
    assert json.loads(run(["history", "--json"]).stdout)["games"] == 2
    exported = tmp_path / "all.jsonl"
    assert run(["export", str(exported)]).exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    assert osmosis(["import", str(exported)], elsewhere).exit_code == 0
    assert json.loads(osmosis(["history", "--json"], elsewhere).stdout) == json.loads(run(["history", "--json"]).stdout)
    assert osmosis(["export"], elsewhere).stdout == exported.read_text()


def test_a_game_imported_as_its_save_copy_and_again_in_an_export_is_one_game_in_either_order(run, home,
                                                                                             tmp_path):
    """A game played with --save, its copy imported elsewhere and then the export: the line's key (the games
    folder's file) was new there, so the game got a second row (the other order kept one). Two games played
    alike in the export still stay two."""
    copy = tmp_path / "x7.json"
    run(["play", "7", "--save", str(copy)], input="d d d d d d\nq\n")
    run(["play", "7"], input="d d d d d d\nq\n")  # the same moves again: another game
    exported = tmp_path / "all.jsonl"
    assert run(["export", str(exported)]).exit_code == 0
    for n, order in enumerate(([copy, exported], [exported, copy])):
        elsewhere = tmp_path / f"elsewhere{n}"
        for path in order:
            assert osmosis(["import", str(path)], elsewhere).exit_code == 0
        assert "Nothing new to import" in osmosis(["import", str(order[0])], elsewhere).stdout
        assert json.loads(osmosis(["history", "--json"], elsewhere).stdout)["games"] == 2
    # the claimed row keeps where its file lies here, so replay commands point at a file that exists
    rows = [json.loads(line) for line in osmosis(["export"], tmp_path / "elsewhere0").stdout.splitlines()]
    assert str(copy) in [row["source"] for row in rows]


def test_only_a_record_file_imported_is_taken_over_by_an_export_line_of_the_same_game(run, tmp_path):
    """The line took over any row of that game under a file's name: a restored export lost one of two games
    played alike (the first imported from a file where it was played), and a game played here from a record
    file swallowed another game played alike elsewhere. A --save copy read through a pipe, then the export,
    made two games, and a claimed row kept the copy's later start."""
    record = json.dumps({"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 7},
                         "moves": ["d"] * 6})
    played = tmp_path / "x7.json"
    played.write_text(record)
    assert run(["import", str(played)]).exit_code == 0  # a game imported where it was played ...
    run(["play", "7", "--plain"], input="d d d d d d\nq\n")  # ... and one played alike
    exported = tmp_path / "all.jsonl"
    assert run(["export", str(exported)]).exit_code == 0
    restored = tmp_path / "restored"
    assert "Imported 2 games" in osmosis(["import", str(exported)], restored).stdout
    assert "Nothing new to import" in osmosis(["import", str(exported)], restored).stdout
    assert json.loads(osmosis(["history", "--json"], restored).stdout)["games"] == 2
    own = tmp_path / "own"  # a game played here from a record file, then another's export alike: two games
    mine = tmp_path / "mine.json"
    mine.write_text(record)
    osmosis(["play", "--resume", str(mine), "--plain"], own, input="q\n")
    osmosis(["play", "--resume", str(mine), "--plain"], own, input="d\nu\nq\n")
    one = tmp_path / "one.jsonl"
    one.write_text(exported.read_text().splitlines()[-1] + "\n")
    assert "Imported 1 game" in osmosis(["import", str(one)], own).stdout
    piped = tmp_path / "piped"  # the copy through a pipe, then the export line of that game: one game
    child = subprocess.run([sys.executable, "-c", "from tutor.cli import main; main()", "import", "/dev/stdin"],
                           input=record, capture_output=True, text=True, env={**os.environ, "OSMOSIS_HOME": str(piped)})
    assert child.returncode == 0, child.stderr
    assert "Nothing new to import" in osmosis(["import", str(one)], piped).stdout
    dated = tmp_path / "dated"  # the copy's file time long after the game was played: the earlier start is kept
    copy = tmp_path / "copy.json"
    copy.write_text(record)
    os.utime(copy, (1_800_000_000, 1_800_000_000))
    assert osmosis(["import", str(copy)], dated).exit_code == 0
    assert "Nothing new to import" in osmosis(["import", str(one)], dated).stdout
    (line,) = [json.loads(x) for x in osmosis(["export"], dated).stdout.splitlines()]
    assert line["started_at"] <= line["played_at"]


def test_a_restored_backup_keeps_a_copy_imported_for_the_export_line_of_its_game(run, tmp_path):
    """A history holding a --save copy imported, backed up and restored elsewhere, then the export of the
    home the game was played in: the restored row had forgotten it came from a record file, and the game
    became two."""
    played, copy = tmp_path / "played", tmp_path / "x7.json"
    osmosis(["play", "7", "--plain", "--save", str(copy)], played, input="d d d d d d\nq\n")
    first, backup, restored = tmp_path / "first.jsonl", tmp_path / "backup.jsonl", tmp_path / "restored"
    assert osmosis(["export", str(first)], played).exit_code == 0
    assert run(["import", str(copy)]).exit_code == 0
    assert run(["export", str(backup)]).exit_code == 0
    assert json.loads(backup.read_text())["from_import"] is True
    assert osmosis(["import", str(backup)], restored).exit_code == 0
    assert "Nothing new to import" in osmosis(["import", str(first)], restored).stdout
    assert json.loads(osmosis(["history", "--json"], restored).stdout)["games"] == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**json.loads(backup.read_text()), "from_import": 1}) + "\n")
    refused = osmosis(["import", str(bad)], tmp_path / "other")
    assert refused.exit_code == 1 and "from_import is 1: expected true or false" in refused.stderr


def test_a_first_use_import_the_history_refuses_is_tried_again_next_time(run, home, monkeypatch):
    """A locked or full history during the first-use import of the games folder counted its games as
    unreadable files, marked the folder imported, and the games never went in."""
    from tutor.history import games as hgames
    from tutor.history.db import HistoryError

    run(["play", "7"], input="d d\nq\n")
    (home / "history.sqlite3").unlink()  # as if the games folder had never been imported
    for extra in home.glob("history.sqlite3-*"):
        extra.unlink()
    add_file = hgames.add_file

    def refused(*args, **kwargs):
        raise HistoryError("your history cannot be written: database is locked")

    monkeypatch.setattr(hgames, "add_file", refused)
    result = run(["history", "--json"])
    assert result.exit_code == 1 and "database is locked" in result.stderr
    monkeypatch.setattr(hgames, "add_file", add_file)
    assert json.loads(run(["history", "--json"]).stdout)["games"] == 1


def test_a_drill_tag_none_of_the_drills_carries_says_so_not_another_kinds_due_time(run, coached):
    from tutor.review import TAGS

    listed = json.loads(run(["drill", "--list", "--json"]).stdout)
    have = {t for d in listed for t in d["tags"]}
    missing = next(str(t) for t in TAGS if str(t) not in have)
    out = " ".join(run(["drill", "--tag", missing]).stdout.split())
    assert f"No drill of {missing} yet" in out and "is due" not in out


def test_coach_help_names_every_tag_in_the_order_of_its_tag_option(run):
    from tutor.review import TAGS

    text = "".join(run(["coach", "--help"]).stdout.split())  # help wraps at the hyphens too
    listed = ",".join(t.value for t in TAGS)
    assert f"({listed})" in text and f"Onlyonekindoferror:{listed}." in text


def test_the_history_catches_up_with_a_game_file_it_lags_behind(run, home):
    # play saves the file first and the history second: a game stopped in between (a Ctrl-C, a kill, a
    # refused write) left the history a move behind, until the next command that opens it
    from tutor.notation import parse_moves
    from tutor.record import Record, load_record, save_record

    assert run(["play", "3", "--plain"], input="d\nd\nq\n").exit_code == 0
    path = next((home / "games").glob("*.json"))
    played = load_record(path)
    save_record(Record(played.rules, played.deal, list(played.moves) + parse_moves("d d")), path)
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 1 and data["recent"][0]["moves"] == 4
    again = json.loads(run(["history", "--json"]).stdout)
    assert again["games"] == 1 and again["recent"][0]["moves"] == 4
    # a game file the history never got at all goes in too, once
    rules = preset("osmosis")
    save_record(Record(rules, deal_for(5, rules), parse_moves("d w")), home / "games" / "deal-5-lost.json")
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 2 and sorted(g["deal"] for g in data["recent"]) == [3, 5]


def test_the_history_catches_up_after_the_clock_went_back(run, home, monkeypatch):
    """The last look stored while the clock was a day ahead: every file saved after the clock was put right
    is older than it, and a game the history missed was never looked at again."""
    import time

    from tutor.history.db import iso
    from tutor.history.games import SYNCED_FLAG, open_history
    from tutor.notation import parse_moves
    from tutor.record import Record, save_record

    assert run(["play", "3", "--plain"], input="d\nq\n").exit_code == 0
    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    with open_history() as history, history.write():
        history.set_meta(SYNCED_FLAG, iso(time.time() + 86400))
    rules = preset("osmosis")
    save_record(Record(rules, deal_for(5, rules), parse_moves("d w")), home / "games" / "deal-5-missed.json")
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 2 and sorted(g["deal"] for g in data["recent"]) == [3, 5]


def test_copies_of_one_game_imported_at_once_make_one_row(home, tmp_path, monkeypatch):
    import threading

    from tutor.history.games import add_file, open_history
    from tutor.notation import parse_moves
    from tutor.record import Record, save_record

    monkeypatch.setenv("OSMOSIS_HOME", str(home))
    rules = preset("osmosis")
    copies = []
    for i in range(4):
        copies.append(tmp_path / f"copy{i}.json")
        save_record(Record(rules, deal_for(3, rules), parse_moves("d d w")), copies[-1])
    open_history().close()
    start = threading.Barrier(len(copies))

    def add(path):
        history = open_history()
        try:
            start.wait()
            add_file(history, path)
        finally:
            history.close()

    threads = [threading.Thread(target=add, args=(p,)) for p in copies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open_history() as history:
        assert len(history.games()) == 1


def test_a_game_gone_on_another_way_from_an_older_copy_stays_one_row_when_the_history_catches_up(run, home):
    # the history catching up with the file must use the row play uses (the file's key with #2), not add one
    from tutor.notation import Move
    from tutor.record import load_record, save_record

    state, moves = _first_moves_to_the_end(17)
    rules = preset("osmosis")
    at = State.initial(deal_for(17, rules), rules)
    k = 0
    while k < 5 or len(at.legal_moves()) < 2:  # a position after 5 moves or more with another way to go
        at = at.apply(Move.parse(moves[k]))
        k += 1
    other = next(m for m in at.legal_moves() if str(m) != moves[k])
    run(["play", "17"], input=" ".join(moves[:k]) + "\nq\n")
    path = sorted((home / "games").glob("*.json"))[0]
    old = path.read_bytes()
    run(["play", "--resume", str(path)], input=" ".join(moves[k:]) + "\n")
    path.write_bytes(old)
    run(["play", "--resume", str(path)], input=f"{other}\nq\n")

    def rows():
        return sorted(r["moves"] for r in json.loads(run(["history", "--json"]).stdout)["recent"])

    assert rows() == [k + 1, len(moves)]
    played = load_record(path)  # the file one move ahead of the history, as a kill between the two leaves it
    after = played.replay()
    save_record(type(played)(played.rules, played.deal, list(played.moves) + [after.legal_moves()[0]]), path)
    assert rows() == [k + 2, len(moves)]
    run(["play", "--resume", str(path)], input="d\nq\n")
    assert len(rows()) == 2 and len(moves) in rows()


def test_import_counts_only_its_own_new_games_while_another_process_adds_some(run, home, tmp_path, monkeypatch):
    from tutor.history import transfer
    from tutor.history.games import add_record
    from tutor.record import Record

    rules = preset("osmosis")
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(Record(rules, deal_for(5, rules), ["d", "d"]).to_json()), encoding="utf-8")
    real = transfer.import_file

    def with_another_writer(history, f):
        # another osmosis stores two games while this import runs
        for n in (8, 9):
            add_record(history, Record(rules, deal_for(n, rules), ["d"]), key=f"games/other-{n}.json")
        return real(history, f)

    monkeypatch.setattr(transfer, "import_file", with_another_writer)
    result = run(["import", str(path)])
    assert result.exit_code == 0
    assert result.stdout.strip() == "Imported 1 game into your history."


def test_history_variant_takes_a_combination_of_options_as_the_history_names_it(run, home):
    run(["play", "3", "--turn", "1", "--passes", "3"], input="d\nq\n")
    run(["play", "4"], input="d\nq\n")
    data = json.loads(run(["history", "--variant", "Turn 1, 3 passes, 4 piles", "--json"]).stdout)
    assert data["games"] == 1 and data["recent"][0]["deal"] == 3
    wrong = run(["history", "--variant", "nope"])
    assert wrong.exit_code == 1 and wrong.stderr.count("\n") == 1
    assert "or a combination of options your history holds: 'turn 1, 3 passes, 4 piles'" in wrong.stderr


def test_a_one_off_review_with_other_settings_leaves_the_kept_one(run, home, tmp_path):
    """``review --thresholds 2,3,4`` (or fewer samples) rewrote the history's review: the coach's counts and
    the drill queue changed, and a plain review changed them back."""
    from tutor.history.games import open_history
    from tutor.history.reviews import reviews

    path = tmp_path / "g.json"
    rules = preset("osmosis")
    state, moves = State.initial(deal_for(7, rules), rules), []
    while not state.over and len(moves) < 14:
        moves.append(state.legal_moves()[0])
        state = state.apply(moves[-1])
    save_record(Record(rules, deal_for(7, rules), moves), path)

    def kept() -> tuple:
        os.environ["OSMOSIS_HOME"] = str(home)
        try:
            with open_history() as h:
                (r,) = reviews(h, with_moves=False).values()
                return r.samples, r.thresholds
        finally:
            del os.environ["OSMOSIS_HOME"]

    assert run(["review", str(path), "--samples", "16", "--workers", "1"]).exit_code == 0
    first = kept()
    assert first[0] == 16
    other = run(["review", str(path), "--samples", "16", "--workers", "1", "--thresholds", "2,3,4"])
    assert "Not kept in your history: the coach and drills count labels by the thresholds 5,10,15" in \
        " ".join(other.stdout.split())
    rougher = run(["review", str(path), "--samples", "8", "--workers", "1"])
    assert "it keeps its review of this game made with 16 samples a move, and this one used 8" in \
        " ".join(rougher.stdout.split())
    assert kept() == first
    assert run(["review", str(path), "--samples", "24", "--workers", "1"]).exit_code == 0
    assert kept()[0] == 24  # a finer review replaces it


def test_a_copy_saved_with_s_and_resumed_goes_on_in_the_same_history_row(run, tmp_path):
    """``s FILE`` then ``play --resume FILE`` made a second row: 2 moves unfinished and 3 moves, one game."""
    copy = tmp_path / "copy.json"
    assert run(["play", "11", "--plain"], input=f"d\nd\ns {copy}\nq\n").exit_code == 0
    for _ in range(2):
        assert run(["play", "--resume", str(copy), "--plain"], input="d\nq\n").exit_code == 0
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 1 and [g["moves"] for g in data["recent"]] == [4]
    # another game of the same deal with the same opening is another game
    assert run(["play", "11", "--plain"], input="d\nd\nd\nq\n").exit_code == 0
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 2 and sorted(g["moves"] for g in data["recent"]) == [3, 4]


def test_a_resumed_copy_taken_back_a_move_stays_the_same_history_row(run, tmp_path):
    """A copy resumed and taken back a move: the next command read the games folder's file (2 moves) into the
    row again, and the copy's next session (its file now 1 move) found no row holding it and made a second
    one: 2 unfinished games for one."""
    copy = tmp_path / "copy.json"
    assert run(["play", "1", "--plain"], input=f"d d\ns {copy}\nq\n").exit_code == 0
    assert run(["play", "--resume", str(copy), "--plain"], input="u\nq\n").exit_code == 0
    assert [g["moves"] for g in json.loads(run(["history", "--json"]).stdout)["recent"]] == [1]
    assert run(["play", "--resume", str(copy), "--plain"], input="d d\nq\n").exit_code == 0
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 1 and [g["moves"] for g in data["recent"]] == [3]


def test_a_copy_saved_in_the_games_folder_is_the_same_game(run, home):
    """--save into the games folder itself, then --resume that copy: the folder's look made the copy a game
    of its own (2 unfinished games for one), and the session read the file it had just saved as another."""
    mine = home / "games" / "mine.json"
    mine.parent.mkdir(parents=True, exist_ok=True)
    assert run(["play", "22", "--plain", "--save", str(mine)], input="d d\n").exit_code == 0
    assert json.loads(run(["history", "--json"]).stdout)["games"] == 1
    assert run(["play", "--plain", "--resume", str(mine)], input="d\nq\n").exit_code == 0
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 1 and [g["moves"] for g in data["recent"]] == [3]


def _copy_gone_on(run, home, tmp_path):
    """Deal 2: d, saved as copy.json and quit; the copy resumed and played on to 3 moves. (copy, the games
    folder's file it left at 1 move)."""
    copy = tmp_path / "copy.json"
    assert run(["play", "2", "--plain"], input=f"d\ns {copy}\nq\n").exit_code == 0
    time.sleep(1.1)
    assert run(["play", "--resume", str(copy), "--plain"], input="d d\nq\n").exit_code == 0
    time.sleep(1.1)
    (left,) = (home / "games").glob("*.json")
    return copy, left


def test_the_file_a_game_left_for_its_copy_is_never_set_back_over_the_copys_game(run, home, tmp_path):
    """s copy.json, the copy resumed and played on: (1) resuming the games folder's file, an older copy played
    on as a game of its own (as play says), wrote over the copy's row, so the copy's game was lost from the
    history; (2) importing or reviewing that file after the copy took a move back set the row back to it."""
    copy, left = _copy_gone_on(run, home, tmp_path)
    own = run(["play", "--resume", str(left), "--plain"], input="r2\nq\n")
    assert "going on here plays this older copy on as a game of its own" in " ".join(own.stdout.split())
    moves = lambda: sorted(g["moves"] for g in json.loads(run(["history", "--json"]).stdout)["recent"])  # noqa: E731
    assert moves() == [2, 3]
    assert run(["play", "--resume", str(left), "--plain"], input="d\nq\n").exit_code == 0
    assert moves() == [3, 3]  # the same two games, each further on


def test_importing_or_reviewing_the_file_a_copy_went_on_from_keeps_the_copys_game(run, home, tmp_path):
    copy = tmp_path / "copy.json"
    assert run(["play", "1", "--plain"], input=f"d d\ns {copy}\nq\n").exit_code == 0
    time.sleep(1.1)
    assert run(["play", "--resume", str(copy), "--plain"], input="u\nq\n").exit_code == 0
    (left,) = (home / "games").glob("*.json")
    assert run(["import", str(left)]).stdout.startswith("Nothing new to import")
    reviewed = " ".join(run(["review", str(left), "--samples", "4", "--workers", "1"]).stdout.split())
    assert "Not kept in your history: game 1 went on from a copy of this file (1 move, not finished)" in reviewed
    assert f"osmosis review {copy}" in reviewed
    assert run(["play", "--resume", str(copy), "--plain"], input="d d\nq\n").exit_code == 0
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 1 and [g["moves"] for g in data["recent"]] == [3]


def test_a_game_finished_from_its_save_copy_keeps_its_win_when_the_left_behind_autosave_is_reviewed(run, home,
                                                                                                   tmp_path):
    """Quit with --save my.json, resume my.json and win: the games folder's autosave still holds the first 40
    moves. Reviewing it (review last) stored it over the won game, and the history lost its only win; a
    quick resume also gave the copy a row of its own (two games for one)."""
    rules = preset("osmosis")
    state, moves = State.initial(deal_for(23, rules), rules), []
    while state.legal_moves():
        move = state.legal_moves()[0]
        moves.append(str(move))
        state = state.apply(move)
    assert state.won and len(moves) == 83
    mine = tmp_path / "my.json"
    assert run(["play", "23", "--save", str(mine)], input="\n".join(moves[:40]) + "\n").exit_code == 0
    assert run(["play", "--resume", str(mine)], input="\n".join(moves[40:]) + "\n").exit_code == 0
    figures = json.loads(run(["history", "--json"]).stdout)
    assert [(g["moves"], g["won"]) for g in figures["recent"]] == [(83, True)]
    reviewed = run(["review", "last", "--samples", "8"])
    assert reviewed.exit_code == 0
    said = " ".join(reviewed.stdout.split())
    assert "Not kept in your history: this file holds the first 40 of the 83 moves of game 1 (won)" in said
    assert f"osmosis review {mine}" in said
    again = json.loads(run(["history", "--json"]).stdout)
    assert [(g["moves"], g["won"]) for g in again["recent"]] == [(83, True)]
    # the games list says which file that is, and resuming it says what it does
    (left,) = json.loads(run(["games", "--json"]).stdout)["games"]
    assert left["moves"] == 40 and left["went_on"] == {"game_id": 1, "moves": 83, "won": True, "over": True,
                                                       "source": str(mine)}
    assert "an older copy: the game went on to 83 moves (won) in" in " ".join(run(["games"]).stdout.split())
    resumed = " ".join(run(["play", "--resume", "1"], input="q\n").stdout.split())
    assert "Note: this file is an older copy: the game went on to 83 moves (won) in" in resumed


def test_a_drill_answer_the_position_does_not_allow_is_asked_again_not_judged(run, coached):
    """In a Bridesmaids drill "r3" (no pile 3) was judged a wrong answer, the drill sent back to box 0, and the
    reason came after the verdict."""
    from tutor.notation import Move
    from tutor.record import Record

    first = json.loads(run(["drill", "--list", "--json"]).stdout)[0]
    line = next(json.loads(x) for x in run(["export"]).stdout.splitlines() if json.loads(x)["id"] == first["game"])
    record = Record.from_json(line["record"])
    state = State.initial(record.deal, record.rules).play(record.moves[:first["ply"] - 1])
    illegal = next(m for m in ("r1", "r2", "r3", "r4", "w") if not state.is_legal(Move.parse(m)))
    result = run(["drill", "--json", "--count", "1"], input=f"{illegal}\n{first['best']}\n")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(a["answer"], a["right"]) for a in data["answers"]] == [(first["best"], True)]
    after = {d["id"]: d for d in json.loads(run(["drill", "--list", "--json"]).stdout)}[first["id"]]
    assert (after["answers"], after["right"], after["box"]) == (1, 1, 1)  # one answer, the legal one


def test_history_of_options_written_as_the_help_shows_them_says_none_yet(run):
    """The help's own example, "turn 1, 3 passes, 4 piles", was an unknown variant until such a game was
    stored."""
    result = run(["history", "--variant", "turn 1, 5 passes, 4 piles"])
    assert result.exit_code == 0
    assert "No games of turn 1, 5 passes, 4 piles in your history yet" in " ".join(result.stdout.split())
    assert json.loads(run(["history", "--variant", "Turn 3, unlimited passes, 4 piles, open", "--json"]).stdout)
    bad = run(["history", "--variant", "turn 2, 3 passes, 4 piles"])
    assert bad.exit_code == 1 and "unknown variant 'turn 2, 3 passes, 4 piles'" in bad.output


def test_the_history_line_after_a_review_wraps_between_words_like_the_review(played, home):
    """"History: accuracy 52.0 here against 86.5 ..." was printed as one line of 97 columns at any width."""
    files = sorted((home / "games").glob("*.json"))
    for f in files[:2]:
        result = osmosis(["review", str(f), "--samples", "8", "--workers", "1"], home, env={"COLUMNS": "60"})
        assert result.exit_code == 0
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("History: accuracy"))
    assert all(len(line) <= 60 for line in lines[start:])
    assert " ".join(" ".join(lines[start:]).split()).startswith(
        "History: accuracy 1.8 here (95%: 0.5-30.6, 1 graded move) against 0.5 (95%: 0.5-8.3) in your one")


def test_history_variant_takes_the_options_as_the_history_json_gives_them(run):
    """A custom variant was named three ways (a JSON string key in history --json, an object in games --json,
    words in the text) and --variant took only the words: a script could not feed a key back."""
    assert run(["play", "5", "--turn", "1", "--passes", "3"], input="d\nd\nq\n").exit_code == 0
    data = json.loads(run(["history", "--json"]).stdout)
    (key,) = data["variants"]
    as_object = json.dumps(data["recent"][0]["variant"])
    for name in (key, as_object, "turn 1, 3 passes, 4 piles"):
        result = run(["history", "--variant", name, "--json"])
        assert result.exit_code == 0 and json.loads(result.stdout)["games"] == 1, (name, result.output)
    bad = run(["history", "--variant", '{"turn": 7}'])
    assert bad.exit_code == 1 and bad.stderr.count("\n") == 1 and "turn 7 is not allowed" in bad.stderr


def test_the_cards_average_says_it_takes_the_unfinished_games_too():
    """"0 of 1 finished won (0%; ...), 2 unfinished, 18.0 cards on average": the win rate is of the finished
    game, the cards of all three, and the line did not say so."""
    from types import SimpleNamespace

    from tutor.cli.history_render import figures_line, results_line

    fig = SimpleNamespace(games=3, finished=1, wins=0, win_rate=0.0, interval=(0.0, 0.79), mean_cards=18.0,
                          rated=0, accuracy=None)
    assert "2 unfinished, 18.0 cards on average over all 3." in figures_line("All games", fig).plain
    assert "18.0 cards on average over all 3 (osmosis history" in results_line(fig, "osmosis")
    done = SimpleNamespace(**{**vars(fig), "finished": 3})
    assert "18.0 cards on average." in figures_line("All games", done).plain


def test_drill_list_and_next_due_keep_to_the_tag_asked_for(run, coached):
    # --list --tag listed every drill, and a --tag run ended naming the due time of a drill of another kind
    from tutor.review import TAGS

    listed = json.loads(run(["drill", "--list", "--json"]).stdout)
    have = sorted({t for d in listed for t in d["tags"]})
    assert have
    for tag in have:
        only = json.loads(run(["drill", "--list", "--json", "--tag", tag]).stdout)
        assert only and all(tag in d["tags"] for d in only)
        assert len(only) == sum(tag in d["tags"] for d in listed)
    missing = next(str(t) for t in TAGS if str(t) not in have)
    assert json.loads(run(["drill", "--list", "--json", "--tag", missing]).stdout) == []
    assert f"No drill of {missing} yet" in " ".join(run(["drill", "--list", "--tag", missing]).stdout.split())
    tag = have[0]
    answered = json.loads(run(["drill", "--tag", tag, "--count", "1", "--json"], input="d\n").stdout)
    assert answered["asked"] == 1
    of_tag = {d["id"]: d for d in json.loads(run(["drill", "--list", "--json", "--tag", tag]).stdout)}
    due = sorted(d["due_at"] for d in of_tag.values())
    assert answered["next_due"] == (due[0] if due else None)


def test_a_late_start_example_names_the_row_opening_move_when_the_best_one_waits_too(run):
    """Limited deal 46, d d: the coach's late-start example read "d instead of r2 (KC)" under "You waited while
    opening the row ... was better", but KC opens no row: the row-opening move it means is w (7S)."""
    assert run(["play", "46", "--variant", "limited", "--plain"], input="d\nd\nq\n").exit_code == 0
    out = run(["coach", "--samples", "16", "--workers", "1"]).stdout
    text = " ".join(out.split())
    assert "late-start" in text
    assert ("move 2: d instead of r2 (KC), 11 points lost (95%: 5-17, 128 deals) (opening the next row with w (7S) "
            "was better than d too)") in text  # the figure with what it rests on, as every sampled one
    data = json.loads(run(["coach", "--json", "--no-review"]).stdout)
    (late,) = [t for t in data["tags"] if t["tag"] == "late-start"]
    assert (late["examples"][0]["opening"], late["examples"][0]["opening_card"]) == ("w", "7S")


def test_an_empty_import_name_and_an_export_to_no_folder_say_what_would_be_right(tmp_path):
    """`osmosis import ''` named the current folder ("record or export '.' is a directory"), and an export to a
    folder that is not there gave the system's "No such file or directory" alone."""
    home = tmp_path / "home"
    game = tmp_path / "g.json"
    save_record(Record(preset("osmosis"), deal_for(5, preset("osmosis")), ["d"]), game)
    empty = osmosis(["import", "", str(game)], home)
    assert empty.exit_code == 1 and "Imported 1 game" in empty.stdout
    assert empty.stderr == "error: an empty file name was given: give a record file or an export, like game.json\n"
    long = tmp_path / ("x" * 300 + ".jsonl")
    too_long = osmosis(["export", str(long)], home)
    assert too_long.exit_code == 1 and too_long.stderr.rstrip().endswith("give osmosis export a shorter file name")
    missing = tmp_path / "no" / "x.jsonl"
    nowhere = osmosis(["export", str(missing)], home)
    assert nowhere.exit_code == 1 and nowhere.stderr == (f"error: cannot write '{missing}': there is no folder "
                                                         f"'{missing.parent}'; give osmosis export a file in a folder "
                                                         "that exists\n")


def test_import_refuses_a_record_larger_than_any_command_reads(tmp_path):
    """A record padded past 16 MB: replay, review and play say it is not a record; import stored it (a win
    counted in the history)."""
    game = tmp_path / "g.json"
    save_record(Record(preset("osmosis"), deal_for(5, preset("osmosis")), ["d"]), game)
    text = game.read_text().rstrip()
    game.write_text(text[:-1] + " " * (17 << 20) + "}")
    result = osmosis(["import", str(game)], tmp_path / "home")
    assert result.exit_code == 1 and result.stderr == f"error: record '{game}' is larger than 16 MB: this is not a record\n"
    assert json.loads(osmosis(["history", "--json"], tmp_path / "home").stdout)["games"] == 0


def test_a_save_copy_the_game_went_on_from_elsewhere_is_imported_as_that_game(tmp_path):
    """--save mine.json, quit at move 20, `play --resume last` finished the game in the games folder's file:
    mine.json still held the first 20 moves, and `osmosis import mine.json` made it a second game (history 2
    games, the coach counting its errors twice). A file of another game, or of this game's start written after
    the game was last played, is still a game of its own."""
    from test_cli_play import greedy_line

    home = tmp_path / "home"
    moves = [str(m) for m in greedy_line(8)[0]]
    mine = tmp_path / "mine.json"
    elsewhere = tmp_path / "elsewhere.json"  # the same deal's start, played on another machine an hour before
    save_record(Record(preset("osmosis"), deal_for(8, preset("osmosis")), moves[:12]), elsewhere)
    os.utime(elsewhere, (time.time() - 3600, time.time() - 3600))
    assert osmosis(["play", "8", "--plain", "--save", str(mine)], home,
                   input=" ".join(moves[:20]) + "\nq\n").exit_code == 0
    assert osmosis(["play", "--plain", "--resume", "last"], home, input=" ".join(moves[20:]) + "\n").exit_code == 0
    result = osmosis(["import", str(mine)], home)
    assert result.exit_code == 0 and result.stdout.startswith("Nothing new to import"), result.output
    data = json.loads(osmosis(["history", "--json"], home).stdout)
    assert data["games"] == 1 and [(g["deal"], g["moves"]) for g in data["recent"]] == [(8, len(moves))]
    other = tmp_path / "other.json"  # the same deal's start, saved after the game ended: a game of its own
    save_record(Record(preset("osmosis"), deal_for(8, preset("osmosis")), moves[:10]), other)
    os.utime(other, (time.time() + 5, time.time() + 5))
    assert "Imported 1 game" in osmosis(["import", str(other)], home).stdout
    assert "Imported 1 game" in osmosis(["import", str(elsewhere)], home).stdout  # written before this game began
    assert json.loads(osmosis(["history", "--json"], home).stdout)["games"] == 3


def test_a_copy_the_game_went_past_is_never_a_second_game(run, home, tmp_path):
    """s FILE (in the games folder, or outside it) and play went on: the folder's look, and a review of the
    copy, each made it a second game (import already found it one)."""
    folder_copy = home / "games" / "mine.json"
    assert run(["play", "5", "--plain"], input=f"d\ns {folder_copy}\nd\nq\n").exit_code == 0
    assert json.loads(run(["history", "--json"]).stdout)["games"] == 1
    outside = tmp_path / "c8.json"
    assert run(["play", "8", "--plain"], input=f"d\ns {outside}\nd d\nq\n").exit_code == 0
    reviewed = " ".join(run(["review", str(outside), "--samples", "4", "--workers", "1"]).stdout.split())
    assert "Not kept in your history: this file holds the first 1 of the 3 moves of game 2" in reviewed
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 2 and sorted(g["moves"] for g in data["recent"]) == [2, 3]


def test_an_older_copy_played_on_as_its_own_game_is_reviewed_as_that_game(run, home, tmp_path):
    """The games folder's file played on as a game of its own (row KEY#2), the copy's game played on since:
    its review said it held "the first 2 of the 4 moves of game 1", which it does not, and was not kept."""
    copy, left = _copy_gone_on(run, home, tmp_path)
    assert run(["play", "--resume", str(left), "--plain"], input="r2\nq\n").exit_code == 0
    time.sleep(1.1)
    assert run(["play", "--resume", str(copy), "--plain"], input="d\nq\n").exit_code == 0
    reviewed = " ".join(run(["review", str(left), "--samples", "4", "--workers", "1"]).stdout.split())
    assert "Not kept" not in reviewed
    data = json.loads(run(["history", "--json"]).stdout)
    assert data["games"] == 2 and data["reviewed"] == 1
    assert sorted(g["moves"] for g in data["recent"]) == [2, 4]


def test_a_copy_is_put_down_to_the_game_in_play_when_it_was_written(run, home, tmp_path):
    """Two games of deal 5 on the same opening, the first resumed after the second copied b.json: the review
    of b.json named game 1 (begun first, played last) and sent the player to review the other game."""
    assert run(["play", "5", "--plain"], input="d\nq\n").exit_code == 0
    time.sleep(1.1)
    (first,) = (home / "games").glob("*.json")
    copy = tmp_path / "b.json"
    assert run(["play", "5", "--plain"], input=f"d\ns {copy}\nd\nq\n").exit_code == 0
    time.sleep(1.1)
    assert run(["play", "--resume", str(first), "--plain"], input="d d\nq\n").exit_code == 0
    reviewed = " ".join(run(["review", str(copy), "--samples", "4", "--workers", "1"]).stdout.split())
    assert "this file holds the first 1 of the 2 moves of game 2" in reviewed


def test_an_import_counts_the_games_it_added_not_those_it_found(run, tmp_path):
    """"Imported 2 games ... (1 new, the others were in your history already)": the headline counted every
    game of the file, against the README's word that an import counts only the rows it added itself."""
    run(["play", "5", "--plain"], input="d\nq\n")
    run(["play", "6", "--plain"], input="d d\nq\n")
    exported = tmp_path / "all.jsonl"
    assert run(["export", str(exported)]).exit_code == 0
    first = tmp_path / "first.jsonl"
    first.write_text(exported.read_text().splitlines()[0] + "\n")
    elsewhere = tmp_path / "elsewhere"
    assert osmosis(["import", str(first)], elsewhere).stdout == "Imported 1 game into your history.\n"
    said = osmosis(["import", str(exported)], elsewhere).stdout
    assert said == "Imported 1 game into your history (1 other game was in it already).\n", said
