"""What an output file may be written over, and the words when a path cannot be written (a CLI audit, stop 44).

An export laid out over several lines, an export with a note on top, a saved game that is no JSON any more or
cut short: each is somebody's data, and no output of the tutor replaces it. A pipe, a file where a folder should
be, a folder where the history should be: one line that says so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from builders import osmosis

from tutor.storage import atomic_write_text

MOVES = "r3\nr4\nd\nq\n"  # deal 5: two reserve plays and a turn, then quit


def _export(home, tmp_path):
    assert osmosis(["play", "5"], home, input=MOVES).exit_code == 0
    out = osmosis(["export"], home)
    assert out.exit_code == 0 and out.stdout.count("\n") == 1
    return json.loads(out.stdout)


def test_a_pretty_printed_export_is_a_backup_no_output_replaces(tmp_path):
    line = _export(tmp_path / "a", tmp_path)
    backup = tmp_path / "backup.json"
    backup.write_text(json.dumps(line, indent=4) + "\n")  # `osmosis export | python3 -m json.tool`
    kept = backup.read_bytes()
    fresh = tmp_path / "fresh"
    lost = osmosis(["export", str(backup)], fresh)  # from a history without that game: it replaced it with nothing
    assert lost.exit_code == 1 and backup.read_bytes() == kept
    assert "is an export of 1 game, and this history lacks 1 of it" in lost.stderr
    for args in (["solve", "4", "--graph", str(backup)], ["stats", "--deals", "1", "--per-deal", str(backup)]):
        refused = osmosis(args, fresh)
        assert refused.exit_code == 1 and backup.read_bytes() == kept
        assert "is an export of the history (1 game) and is kept as it is" in refused.stderr
    assert osmosis(["import", str(backup)], fresh).exit_code == 0  # import reads it: so it is a backup
    again = osmosis(["export", str(backup)], fresh)  # now the history keeps that game: written, as JSON lines
    assert again.exit_code == 0 and json.loads(backup.read_text())["key"] == line["key"]


def test_an_export_with_a_note_on_top_or_indented_games_is_kept(tmp_path):
    line = _export(tmp_path / "a", tmp_path)
    for name, text in (("noted.jsonl", "my backup of Sunday\n" + json.dumps(line) + "\n"),
                       ("two.json", json.dumps(line, indent=2) + "\n" + json.dumps(line, indent=2) + "\n")):
        path = tmp_path / name
        path.write_text(text)
        refused = osmosis(["export", str(path)], tmp_path / "a")
        assert refused.exit_code == 1 and path.read_text() == text
        assert "is an export that cannot be read line by line (laid out over several lines, or a note added" in refused.stderr
        graph = osmosis(["solve", "4", "--graph", str(path)], tmp_path / "a")
        assert graph.exit_code == 1 and path.read_text() == text
        assert "is an export of the history (a damaged or edited one" in graph.stderr


def test_a_saved_game_that_is_no_json_any_more_is_kept_by_every_output(tmp_path):
    home = tmp_path / "home"
    assert osmosis(["play", "5"], home, input=MOVES).exit_code == 0
    (saved,) = (home / "games").iterdir()
    text = saved.read_text()
    edited = tmp_path / "edited.json"
    edited.write_text(text[:text.rindex("]")] + ", " + text[text.rindex("]"):])  # a comma too many
    cut = tmp_path / "cut.json"
    cut.write_text(text[:60])  # the start of a record, the rest lost
    for path in (edited, cut):
        before = path.read_bytes()
        for args, what in ((["export", str(path)], "the export"), (["solve", "4", "--graph", str(path)], "the graph"),
                           (["stats", "--deals", "1", "--per-deal", str(path)], "the per-deal lines"),
                           (["review", str(saved), "--annotate", str(path), "--samples", "4"], "the annotated")):
            refused = osmosis(args, home)
            assert refused.exit_code == 1 and path.read_bytes() == before, (path.name, args)
            assert "holds a game record that cannot be read as it is (a hand edit?) and is kept as it is: " \
                   f"write {what}" in refused.stderr


def test_a_game_or_deal_file_edited_out_of_shape_is_still_kept_by_every_output(tmp_path):
    """A saved game whose format name was mistyped, saved again as UTF-16 by an editor, or made larger than a
    record is read (16 MB), and a deal file cut short or made larger than 1 MB: --graph, --per-deal and
    --annotate wrote over each of them (exit 0); save and play refused them already."""
    home = tmp_path / "home"
    assert osmosis(["play", "5"], home, input=MOVES).exit_code == 0
    (saved,) = (home / "games").iterdir()
    text = saved.read_text()
    record = json.loads(text)
    deal = osmosis(["deal", "8", "--json"], home).stdout
    files = {"typo.json": json.dumps({**record, "format": "osmosis-recrod/1"}).encode(),
             "utf16.json": text.encode("utf-16"),
             "padded.json": (text.rstrip()[:-1] + " " * (17 << 20) + "}").encode(),
             "deal-cut.json": deal[:200].encode(),
             "deal-padded.json": (deal.rstrip()[:-1] + " " * (2 << 20) + "}").encode()}
    for name, content in files.items():
        path = tmp_path / name
        path.write_bytes(content)
        for args in (["solve", "4", "--graph", str(path), "--graph-nodes", "20"],
                     ["stats", "--deals", "1", "--policy", "greedy", "--per-deal", str(path)],
                     ["review", str(saved), "--annotate", str(path), "--samples", "4"]):
            refused = osmosis(args, home)
            assert refused.exit_code == 1 and "is kept as it is" in refused.stderr, (name, args, refused.stderr)
            assert path.read_bytes() == content, (name, args)
            what = "a deal file" if name.startswith("deal") else "a game record that cannot be read"
            assert what in refused.stderr, (name, refused.stderr)
    graph, lines = tmp_path / "graph.xml", tmp_path / "deals.jsonl"  # an earlier output is written over still
    for args in (["solve", "4", "--graph", str(graph), "--graph-nodes", "20"],
                 ["stats", "--deals", "1", "--policy", "greedy", "--per-deal", str(lines)]):
        assert osmosis(args, home).exit_code == 0 and osmosis(args, home).exit_code == 0


def test_a_pipe_named_through_a_link_is_refused_as_a_pipe(tmp_path):
    # /dev/stdout on a pipe: the link's target is "pipe:[N]", no file, and the save said "No such file"
    read, write = os.pipe()
    try:
        link = tmp_path / "out"
        link.symlink_to(f"/proc/self/fd/{write}")
        try:
            atomic_write_text(link, "x")
        except OSError as exc:
            assert "not a regular file (a device or a pipe)" in str(exc)
        else:
            raise AssertionError("a pipe was taken for a file")
    finally:
        os.close(read)
        os.close(write)


def test_a_stream_name_leading_to_a_file_is_refused_and_the_file_kept(tmp_path):
    """`osmosis export /dev/stdout >> keep.txt`: the name led to the regular file the output went to, and the
    export replaced it, losing what it held and the append."""
    import subprocess
    import sys

    home = tmp_path / "home"
    assert osmosis(["play", "5"], home, input=MOVES).exit_code == 0
    keep = tmp_path / "keep.txt"
    keep.write_text("original\n")
    with keep.open("a") as out:
        done = subprocess.run([sys.executable, "-c", "from tutor.entry import run; run()", "export", "/dev/stdout"], stdout=out,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "OSMOSIS_HOME": str(home)})
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: cannot write '/dev/stdout': it is a device or a stream of this program, not a file: "
        "give a file name"]
    assert keep.read_text() == "original\n"


def test_export_to_a_dash_prints_it(tmp_path):
    home = tmp_path / "home"
    assert osmosis(["play", "5"], home, input=MOVES).exit_code == 0
    out = osmosis(["export", "-"], home)
    assert out.exit_code == 0 and json.loads(out.stdout)["format"].startswith("osmosis-history/")
    assert not (tmp_path / "-").exists() and not os.path.exists("-")


def test_a_file_where_a_folder_should_be_is_named(tmp_path):
    home = tmp_path / "home"
    blocker = tmp_path / "notes"
    blocker.write_text("not a folder\n")
    played = osmosis(["play", "5", "--save", str(blocker / "game.json")], home, input=MOVES)
    assert f"'{blocker}' is a file, not a folder: give a path in a folder" in played.output
    resumed = osmosis(["play", "--resume", str(blocker / "game.json")], home)
    assert resumed.exit_code == 1
    assert resumed.stderr == (f"error: record '{blocker / 'game.json'}' cannot be read: '{blocker}' is a file, not a "
                              "folder: expected a record file, 'last' or a number from osmosis games\n")


def test_a_folder_where_the_history_should_be_is_named(tmp_path):
    home = tmp_path / "home"
    (home / "history.sqlite3").mkdir(parents=True)
    shown = osmosis(["history"], home)
    assert shown.exit_code == 1
    assert shown.stderr == (f"error: the history database '{home / 'history.sqlite3'}' is a folder, not a file: move "
                            "that folder away (or set OSMOSIS_HOME to another folder)\n")


def test_one_game_named_twice_in_one_import_is_counted_once(tmp_path):
    home = tmp_path / "home"
    assert osmosis(["play", "5"], home, input=MOVES).exit_code == 0
    (saved,) = (home / "games").iterdir()
    record = tmp_path / "g5.json"
    record.write_bytes(saved.read_bytes())
    other = tmp_path / "other"
    assert osmosis(["import", str(record), str(record)], other).stdout == "Imported 1 game into your history.\n"
    again = osmosis(["import", str(record), str(record)], other)
    assert again.stdout == "Nothing new to import: the 1 game was in your history already, and each is kept once.\n"


def test_files_in_dev_shm_are_plain_files_and_may_be_written(tmp_path):
    """/dev/shm is a folder of plain files in memory, but every name under /dev was refused as "a device or a
    stream of this program": a results store, a game saved or per-deal lines there are files like any other."""
    import uuid

    import pytest

    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        pytest.skip("no writable /dev/shm here")
    home = tmp_path / "home"
    names = [shm / f"osmosis-test-{uuid.uuid4().hex}{suffix}" for suffix in (".sqlite3", ".json", ".jsonl")]
    store, save, lines = names
    try:
        result = osmosis(["stats", "--deals", "1-2", "--workers", "1", "--policy", "greedy", "--store", str(store),
                          "--per-deal", str(lines)], home)
        assert result.exit_code == 0, result.stderr
        assert store.is_file() and len(lines.read_text().splitlines()) == 2
        assert osmosis(["play", "5", "--save", str(save)], home, input="d\nq\n").exit_code == 0
        assert json.loads(save.read_text())["moves"] == ["d"]
    finally:
        for path in names:
            for extra in ("", "-wal", "-shm", "-journal"):
                Path(f"{path}{extra}").unlink(missing_ok=True)


def test_a_stream_reached_by_its_name_or_through_a_link_is_refused_for_every_output(tmp_path):
    """`stats --per-deal /dev/stdout >> out.txt` replaced out.txt (the per-deal file checked only the name the
    link resolved to, a regular file), and a link to /proc/self/fd/1 got past the /dev and /proc names for the
    graph too: the name as given and every link on the way are checked."""
    import subprocess
    import sys

    home = tmp_path / "home"
    link = tmp_path / "lnk"
    link.symlink_to("/proc/self/fd/1")
    keep = tmp_path / "out.txt"
    for args in (["stats", "--deals", "1", "--workers", "1", "--store", str(tmp_path / "s.sqlite3"),
                  "--per-deal", "/dev/stdout", "--json"],
                 ["stats", "--deals", "1", "--workers", "1", "--store", str(tmp_path / "s.sqlite3"),
                  "--per-deal", str(link)],
                 ["solve", "5", "--nodes", "200", "--graph", str(link)],
                 ["export", str(link)]):
        keep.write_text("precious line\n")
        with keep.open("a") as out:
            done = subprocess.run([sys.executable, "-c", "from tutor.entry import run; run()", *args], stdout=out,
                                  stderr=subprocess.PIPE, text=True, env={**os.environ, "OSMOSIS_HOME": str(home)})
        assert done.returncode == 1, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and "it is a device or a stream of this program, not a file" in done.stderr
        assert keep.read_text() == "precious line\n", args
