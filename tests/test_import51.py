"""``osmosis import`` of what another history exported: a file copy's line finds the game it is a copy of, and
an export laid out over several lines (``json.tool --json-lines``, ``jq .``) goes in whole."""

from __future__ import annotations

import calendar
import json
import os
import subprocess
import sys
import time
from pathlib import Path

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


# ---- a diff review of the fix above (stop 51b) ----------------------------------------------------------


def _moves(home) -> list[int]:
    return sorted(g["moves"] for g in json.loads(osmosis(["history", "--json"], home).stdout)["recent"])


def test_a_file_written_after_the_exported_game_was_last_played_is_another_game_in_either_order(tmp_path):
    """A --save file of deal 5 begun alike but written after the exported game was finished with is another
    game: imported before the export it was merged into that game (one game), imported after it, two."""
    assert osmosis(["play", "5", "--plain"], tmp_path / "a", input="r3 r4 d w\nq\n").exit_code == 0
    export, later = tmp_path / "a.jsonl", tmp_path / "f.json"
    assert osmosis(["export", str(export)], tmp_path / "a").exit_code == 0
    assert osmosis(["play", "5", "--plain", "--save", str(later)], tmp_path / "b", input="r3 r4\nq\n").exit_code == 0
    played = json.loads(export.read_text())["played_at"]
    moment = calendar.timegm(time.strptime(played, "%Y-%m-%dT%H:%M:%SZ")) + 3
    os.utime(later, (moment, moment))  # written three seconds after that game's last move
    for home, files in (("x", [later, export]), ("y", [export, later])):
        assert osmosis(["import", *map(str, files)], tmp_path / home).exit_code == 0
        assert _moves(tmp_path / home) == [2, 4], home


def test_a_copy_line_that_goes_on_from_an_imported_copy_takes_its_row_over_in_either_order(tmp_path):
    """Deal 5 played with --save s.json (2 moves), then on to 4 moves; one history imported the game's file,
    another s.json, each exported (both lines from_import). The 4-move line after the 2-move copy (its line
    or the file itself) made the game two, and one the other way round."""
    played, copy = tmp_path / "p", tmp_path / "s.json"
    assert osmosis(["play", "5", "--plain", "--save", str(copy)], played, input="r3 r4\nq\n").exit_code == 0
    assert osmosis(["play", "--resume", "last", "--plain"], played, input="d w\nq\n").exit_code == 0
    (game,) = (played / "games").iterdir()
    whole, part = tmp_path / "o.jsonl", tmp_path / "o2.jsonl"
    for source, out in ((game, whole), (copy, part)):
        assert osmosis(["import", str(source)], tmp_path / out.stem).exit_code == 0
        assert osmosis(["export", str(out)], tmp_path / out.stem).exit_code == 0
        assert json.loads(out.read_text())["from_import"] is True
    for home, files in (("a", [whole, part]), ("b", [part, whole]), ("c", [copy, whole])):
        assert osmosis(["import", *map(str, files)], tmp_path / home).exit_code == 0
        assert _moves(tmp_path / home) == [4], home
        again = osmosis(["import", str(part), str(whole), str(copy)], tmp_path / home)
        assert "Nothing new to import" in again.stdout and _moves(tmp_path / home) == [4], (home, again.output)
        line = json.loads(osmosis(["export"], tmp_path / home).stdout)
        assert line["from_import"] is True, home  # still a file copy: an export line of the game takes it over


def _three_lines(tmp_path) -> list[str]:
    return _three_games(tmp_path)[1].splitlines()


def test_json_lines_with_a_laid_out_game_and_a_damaged_line_take_every_good_game_and_name_the_bad_one(tmp_path):
    """Line 1 as export writes it, game 2 from ``jq .``, line 3 cut short: game 2 was lost and the file made
    a flood of fragment errors, none naming the cut line."""
    lines = _three_lines(tmp_path)
    laid = json.dumps(json.loads(lines[1]), indent=2)
    mixed = tmp_path / "mix.json"
    mixed.write_text(lines[0] + "\n" + laid + "\n" + lines[2][:60] + "\n")
    result = osmosis(["import", str(mixed)], tmp_path / "h")
    assert "Imported 2 games" in result.stdout and result.exit_code == 1
    cut = 2 + laid.count("\n") + 1
    assert result.stderr.count("\n") == 1 and f"mix.json' line {cut} is not valid JSON" in result.stderr, result.stderr
    middle = tmp_path / "middle.json"  # the damage first: the games after it still go in, in one error line
    middle.write_text(lines[0][:60] + "\n" + laid + "\n" + lines[2] + "\n")
    result = osmosis(["import", str(middle)], tmp_path / "m")
    assert "Imported 2 games" in result.stdout and result.stderr.count("\n") == 1, result.output
    assert "middle.json' line 1 is not valid JSON" in result.stderr


def test_a_first_line_that_is_json_but_not_usable_is_named_and_the_rest_goes_in(tmp_path):
    """NaN, a 100,000-digit number or nesting too deep on the first line refused the whole file, unnamed;
    on any other line it was named and the rest went in."""
    lines = _three_lines(tmp_path)
    for n, bad in enumerate(('{"format": "osmosis-history/1", "id": 9, "x": NaN}', '{"x": ' + "7" * 100_000 + "}",
                             '{"x": ' + "[" * 70 + "]" * 70 + "}", '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}")):
        path = tmp_path / f"first{n}.jsonl"
        path.write_text(bad + "\n" + "\n".join(lines[:2]) + "\n")
        result = osmosis(["import", str(path)], tmp_path / f"h{n}")
        assert result.exit_code == 1 and "Imported 2 games" in result.stdout, (n, result.output)
        assert result.stderr.count("\n") == 1 and f"first{n}.jsonl' line 1 is not usable: " in result.stderr, n


def test_a_line_separator_inside_a_string_is_text_and_lines_are_counted_alike(tmp_path):
    """A raw U+2028 in a player's name (as ``jq -c`` writes it) split the line it is in: that game was lost,
    and the damaged line after it was given the wrong number. So with CR LF or a lone CR between lines."""
    lines = _three_lines(tmp_path)
    first = json.loads(lines[0])
    first["record"]["player"] = "Ann\u2028Lee\u0085\u2029"
    body = [json.dumps(first, ensure_ascii=False, sort_keys=True), lines[1], lines[2][:50]]
    for n, end in enumerate(("\n", "\r\n", "\r")):
        path = tmp_path / f"u{n}.jsonl"
        path.write_bytes((end.join(body) + end).encode())
        result = osmosis(["import", str(path)], tmp_path / f"h{n}")
        assert "Imported 2 games" in result.stdout and result.stderr.count("\n") == 1, (n, result.output)
        assert f"u{n}.jsonl' line 3 is not valid JSON" in result.stderr, (n, result.stderr)
        assert osmosis(["export"], tmp_path / f"h{n}").stdout.splitlines()[0] == json.dumps(first, sort_keys=True)


def test_a_file_of_json_values_none_an_object_is_one_error_line(tmp_path):
    """``5 6 7`` said "expected a JSON object" once a value; ``5 hello`` once: no file of them is an export."""
    for name, text in (("numbers.txt", "5\n6\n7\n"), ("lists.txt", "[1]\n[2]\n"), ("mixed.txt", '5\n"d"\nnull\n')):
        (tmp_path / name).write_text(text)
        result = osmosis(["import", str(tmp_path / name)], tmp_path / "h")
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, (name, result.stderr)
        assert f"{name}' holds JSON that is not an object: expected an osmosis-record/1 file" in result.stderr


def test_the_readme_gives_a_move_lost_in_every_deal_its_known_interval():
    """The practical figure of a move lost in every consistent deal is [0, 0] and not exact (review, 849b43b);
    the README said every interval not exact was a Wilson one."""
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    said = " ".join(readme[readme.index("Each figure has its games, `won`"):].split("`cards`")[0].split())
    assert "`[0, 0]` for a move lost in every consistent deal, `exact` or not" in said, said


def test_export_over_an_export_with_a_laid_out_game_among_its_lines_says_what_it_is(tmp_path):
    """Read line by line, the laid-out game was "26 lines that cannot be read (a damaged or edited export)";
    read as import reads it, it is an export laid out over several lines (kept, as every such export is), and
    one damaged line in it is one line."""
    home = tmp_path / "three"
    lines = _three_lines(tmp_path)
    laid = json.dumps(json.loads(lines[1]), indent=2)
    for name, last, said in (("mix.json", lines[2], "is an export that cannot be read line by line (laid out"),
                             ("cut.json", lines[2][:60], "is an export with 1 line that cannot be read")):
        path = tmp_path / name
        path.write_text(lines[0] + "\n" + laid + "\n" + last + "\n")
        kept = path.read_bytes()
        result = osmosis(["export", str(path)], home)
        assert result.exit_code == 1 and path.read_bytes() == kept
        assert said in result.stderr and result.stderr.count("\n") == 1, (name, result.stderr)


def test_a_cut_line_at_the_margin_before_indented_games_keeps_the_games_after_it(tmp_path):
    """Reading went on only at an object no further in than the damaged value: a cut first line at the margin
    and the games after it indented dropped every game, with an error that named no line."""
    _, text = _three_games(tmp_path)
    lines = text.splitlines()
    body = lines[0][:100] + "\n" + "".join(f"  {line}\n" for line in lines[1:])
    (tmp_path / "d.jsonl").write_text(body)
    result = osmosis(["import", str(tmp_path / "d.jsonl")], tmp_path / "fresh")
    assert "Imported 2 games" in result.stdout, result.output
    assert result.stderr.count("\n") == 1 and "line 1" in result.stderr


def test_export_never_writes_over_a_file_that_holds_a_game_further_on_under_a_repeated_key(tmp_path):
    """Two backups joined in one file (the game at 4 moves, then at 2): only the last line of a key was kept,
    so an export holding the 2 wrote over the 4."""
    played, other = tmp_path / "played", tmp_path / "other"
    osmosis(["play", "5", "--plain"], played, input="r3 r4\nq\n")
    old = osmosis(["export"], played).stdout
    osmosis(["play", "--resume", "last", "--plain"], played, input="d w\nq\n")
    new = osmosis(["export"], played).stdout
    (tmp_path / "old.jsonl").write_text(old)
    osmosis(["import", str(tmp_path / "old.jsonl")], other)
    backup = tmp_path / "backup.jsonl"
    backup.write_text(new + old)
    result = osmosis(["export", str(backup)], other)
    assert result.exit_code == 1 and "4 moves" in result.stderr, result.output
    assert backup.read_text() == new + old


def test_export_over_an_export_with_lone_cr_line_ends_reads_it_as_import_does(tmp_path):
    """A CR-only export was refused as "laid out over several lines, or a note added", though import reads it."""
    home, text = _three_games(tmp_path)
    crs = tmp_path / "cr.jsonl"
    crs.write_bytes(text.replace("\n", "\r").encode())
    result = osmosis(["export", str(crs)], home)
    assert result.exit_code == 0 and "cannot be read line by line" not in result.output, result.output
    assert crs.read_text() == text  # every game kept: written over, as an export of the same history


def test_a_game_laid_out_at_the_margin_reads_whole_and_a_line_ending_in_a_bracket_before_a_brace_is_no_cut(tmp_path):
    """A game laid out with no indentation (`json.tool --indent 0`), whose nested objects begin lines at the
    margin too, reads whole; and a valid value whose first line ends with `[` before a line that begins with
    `{` (a first version read such a line as cut short) is read whole too."""
    home, text = _three_games(tmp_path)
    flat = subprocess.run([sys.executable, "-m", "json.tool", "--json-lines", "--indent", "0"], input=text,
                          capture_output=True, text=True, check=True).stdout
    (tmp_path / "flat.json").write_text(flat)
    fresh = tmp_path / "flat"
    assert "Imported 3 games" in osmosis(["import", str(tmp_path / "flat.json")], fresh).stdout
    assert osmosis(["export"], fresh).stdout == text
    record = tmp_path / "rec.json"
    record.write_text('{"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 1}, "moves": ["d"], '
                      '"x": [\n{"y": 1}]}\n')
    result = osmosis(["import", str(record)], tmp_path / "rec")
    assert result.exit_code == 0 and "Imported 1 game" in result.stdout, result.output


def test_export_never_writes_over_another_deal_s_game_under_the_same_key(tmp_path):
    """Two record files of one name imported in two histories (deal 1 in one, deal 2 in the other), their
    exports joined: both lines have the key of that name, and export over the joined file kept deal 1's 3 moves
    and lost deal 2's game, since its 1 move started the other's."""
    for deal, keys, name in ((1, "d d d", "x"), (2, "d", "y")):
        osmosis(["play", str(deal), "--plain", "--save", str(tmp_path / f"{name}.json")], tmp_path / f"p{name}",
                input=f"{keys}\nq\n")
    shared = tmp_path / "shared"
    shared.mkdir()
    for name in ("x", "y"):
        (shared / "g.json").write_bytes((tmp_path / f"{name}.json").read_bytes())
        osmosis(["import", str(shared / "g.json")], tmp_path / f"h{name}")
        osmosis(["export", str(tmp_path / f"{name}.jsonl")], tmp_path / f"h{name}")
    joined = tmp_path / "joined.jsonl"
    joined.write_text((tmp_path / "x.jsonl").read_text() + (tmp_path / "y.jsonl").read_text())
    assert "Imported 2 games" in osmosis(["import", str(joined)], tmp_path / "both").stdout
    before = joined.read_text()
    result = osmosis(["export", str(joined)], tmp_path / "hx")
    assert result.exit_code == 1 and "deal 2" in result.stderr, result.output
    assert joined.read_text() == before
    alone = tmp_path / "y-only.jsonl"  # the other deal's line alone under that key: kept too
    alone.write_text((tmp_path / "y.jsonl").read_text())
    assert osmosis(["export", str(alone)], tmp_path / "hx").exit_code == 1


def test_two_tries_of_a_deal_copied_without_their_times_stay_two_games_in_either_order(tmp_path):
    """The games folder copied with cp -r (every file as new as the copy): a 1-move try of deal 5 begun an
    hour after a 6-move game that its move begins was merged into it when the longer file came first (one
    game, and a second import said both were there already). Play names each file for when its game began,
    and a game goes on in newer files, never back to an older one."""
    record = {"format": "osmosis-record/1", "variant": "osmosis", "deal": {"number": 5}}
    folder = tmp_path / "backup"
    folder.mkdir()
    first, second = folder / "deal-5-20261101-100000.json", folder / "deal-5-20261101-110000.json"
    first.write_text(json.dumps({**record, "moves": ["r3", "r4", "d", "w", "d", "d"]}), encoding="utf-8")
    second.write_text(json.dumps({**record, "moves": ["r3"]}), encoding="utf-8")
    now = time.time()
    for path in (first, second):
        os.utime(path, (now, now))
    for home, files in (("a", [first, second]), ("b", [second, first])):
        result = osmosis(["import", *map(str, files)], tmp_path / home)
        assert result.exit_code == 0 and "Imported 2 games" in result.stdout, (home, result.output)
        assert _moves(tmp_path / home) == [1, 6], home
    # a copy left behind still is one: the game's own file began first, and went on past the copy
    copy = folder / "s.json"
    copy.write_text(json.dumps({**record, "moves": ["r3", "r4"]}), encoding="utf-8")
    os.utime(copy, (now, now))
    result = osmosis(["import", str(copy)], tmp_path / "a")
    assert result.exit_code == 0 and _moves(tmp_path / "a") == [1, 6], result.output


def test_the_export_of_a_history_with_no_game_imports_as_nothing_and_no_error(tmp_path):
    """An export of an empty history (an empty file) was refused by import ('is empty', exit 1): a backup and
    restore of a new player's history failed on what export itself wrote."""
    export = tmp_path / "none.jsonl"
    assert osmosis(["export", str(export)], tmp_path / "new").exit_code == 0 and export.read_text() == ""
    result = osmosis(["import", str(export)], tmp_path / "other")
    assert result.exit_code == 0 and result.stderr == "", result.output
    assert result.stdout.startswith(f"'{export}' holds no game (an export of a history with none is an empty file)")
    assert _games(tmp_path / "other") == 0
