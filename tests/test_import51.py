"""``osmosis import`` of what another history exported: a file copy's line finds the game it is a copy of, and
an export laid out over several lines (``json.tool --json-lines``, ``jq .``) goes in whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from builders import osmosis


def _games(home) -> int:
    return json.loads(osmosis(["history", "--json"], home).stdout)["games"]


def _homes(tmp_path):
    """Deal 5 played in ``played`` with a --save copy, that copy imported in ``other``, and each exported:
    ``other``'s line is marked from_import (a record file imported there)."""
    played, other, copy = tmp_path / "played", tmp_path / "other", tmp_path / "s5.json"
    assert osmosis(["play", "5", "--plain", "--save", str(copy)], played, input="r3 r4 d w\nq\n").exit_code == 0
    mine, theirs = tmp_path / "a.jsonl", tmp_path / "e.jsonl"
    assert osmosis(["export", str(mine)], played).exit_code == 0
    assert osmosis(["import", str(copy)], other).exit_code == 0
    assert osmosis(["export", str(theirs)], other).exit_code == 0
    assert json.loads(theirs.read_text())["from_import"] is True
    return played, mine, theirs


def test_a_copys_export_line_after_the_game_it_copies_adds_no_second_game(tmp_path):
    """The line of a --save copy imported elsewhere, imported after the export of the game played (or where
    it was played) made the game two; imported before it, one. Either order is one game now."""
    played, mine, theirs = _homes(tmp_path)
    after = osmosis(["import", str(mine), str(theirs)], tmp_path / "after")
    assert after.exit_code == 0 and "Imported 1 game into your history." in after.stdout, after.stdout
    assert _games(tmp_path / "after") == 1
    assert osmosis(["import", str(theirs), str(mine)], tmp_path / "before").exit_code == 0
    assert _games(tmp_path / "before") == 1
    back = osmosis(["import", str(theirs)], played)  # where the game was played: the copy is that game
    assert "Nothing new to import: the 1 game was in your history already" in back.stdout, back.stdout
    assert _games(played) == 1
    osmosis(["play", "--resume", "last", "--plain"], played, input="d d\nq\n")  # played on past the copy
    assert "Nothing new to import" in osmosis(["import", str(theirs)], played).stdout
    assert [g["moves"] for g in json.loads(osmosis(["history", "--json"], played).stdout)["recent"]] == [6]


def test_two_copy_lines_alike_in_one_export_stay_two_games(tmp_path):
    """Only a copy is merged: two rows the exporting history kept as two games, alike, are two here too."""
    _, _, theirs = _homes(tmp_path)
    line = json.loads(theirs.read_text())
    twice = tmp_path / "twice.jsonl"
    twice.write_text(json.dumps(line) + "\n" + json.dumps({**line, "id": 2, "key": line["key"] + "-2"}) + "\n")
    home = tmp_path / "fresh"
    assert "Imported 2 games" in osmosis(["import", str(twice)], home).stdout
    assert "Nothing new to import" in osmosis(["import", str(twice)], home).stdout
    assert _games(home) == 2


def _three_games(tmp_path):
    home = tmp_path / "three"
    for n in (1, 2, 3):
        assert osmosis(["play", str(n), "--plain"], home, input="d d w\nq\n").exit_code == 0
    return home, osmosis(["export"], home).stdout


def test_an_export_of_several_games_laid_out_over_several_lines_imports_whole(tmp_path):
    """Read line by line, the fragments of such a file were eight misleading errors and no game."""
    home, text = _three_games(tmp_path)
    laid = subprocess.run([sys.executable, "-m", "json.tool", "--json-lines"], input=text, capture_output=True,
                          text=True, check=True).stdout
    for name, body in (("tool.json", laid), ("jq.json", "".join(json.dumps(json.loads(x), indent=2) + "\n"
                                                                for x in text.splitlines()))):
        (tmp_path / name).write_text(body)
        fresh = tmp_path / name.replace(".", "-")
        result = osmosis(["import", str(tmp_path / name)], fresh)
        assert result.exit_code == 0 and result.stderr == "", result.output
        assert "Imported 3 games into your history." in result.stdout
        assert osmosis(["export"], fresh).stdout == text
    cut = tmp_path / "cut.json"  # cut short in the third game: the two before go in, and one line says where
    cut.write_text(laid[:-300])
    third = laid.count("\n", 0, laid.rindex("\n{")) + 2
    result = osmosis(["import", str(cut)], tmp_path / "cut")
    assert result.exit_code == 1 and "Imported 2 games" in result.stdout
    assert result.stderr.count("\n") == 1 and f"is not valid JSON from line {third} on (" in result.stderr


def test_a_file_that_is_no_json_lines_is_one_error_line_and_json_lines_keep_their_numbers(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("hello\n5\n")
    result = osmosis(["import", str(plain)], tmp_path / "h")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert "plain.txt' is not valid JSON: expected" in result.stderr
    _, text = _three_games(tmp_path)
    lines = text.splitlines()
    damaged = tmp_path / "damaged.jsonl"  # a line cut short among good ones: named by its line, the rest in
    damaged.write_text("\n".join([lines[0], lines[1][:40], lines[2]]) + "\n")
    result = osmosis(["import", str(damaged)], tmp_path / "d")
    assert "Imported 2 games" in result.stdout and result.stderr.count("\n") == 1
    assert "damaged.jsonl' line 2 is not valid JSON" in result.stderr


def test_a_copy_imported_before_the_export_of_its_game_played_on_stays_one_game(tmp_path):
    """A --save copy imported first, then the export of the game it copies, played on since: two games (the
    copy's row took only a line of the same moves over)."""
    played, copy = tmp_path / "played", tmp_path / "s5.json"
    assert osmosis(["play", "5", "--plain", "--save", str(copy)], played, input="r3 r4 d w\nq\n").exit_code == 0
    osmosis(["play", "--resume", "last", "--plain"], played, input="d d\nq\n")  # on past the copy
    export = tmp_path / "a.jsonl"
    assert osmosis(["export", str(export)], played).exit_code == 0
    home = tmp_path / "elsewhere"
    assert "Imported 1 game" in osmosis(["import", str(copy)], home).stdout
    assert osmosis(["import", str(export)], home).exit_code == 0
    assert [g["moves"] for g in json.loads(osmosis(["history", "--json"], home).stdout)["recent"]] == [6]
    # a file of the deal written before that game began is no copy of it: a game of its own
    early = tmp_path / "early"
    old = tmp_path / "old.json"
    assert osmosis(["play", "5", "--plain", "--save", str(old)], early, input="r3\nq\n").exit_code == 0
    os.utime(old, (1_000_000_000, 1_000_000_000))  # written in 2001, long before the exported game began
    other = tmp_path / "other"
    assert "Imported 1 game" in osmosis(["import", str(old)], other).stdout
    assert osmosis(["import", str(export)], other).exit_code == 0
    assert sorted(g["moves"] for g in json.loads(osmosis(["history", "--json"], other).stdout)["recent"]) == [1, 6]
