"""Output a terminal cannot encode, and input a file or a pipe brings: never a traceback.

A C locale or ``PYTHONIOENCODING=ascii`` leaves stdout unable to write the
card backs, the empty cells, the sparkline or a suit symbol: each is written
as its ASCII stand-in. JSON is ASCII whatever the encoding, so it stays valid.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from rich.console import Console

from tutor.render import use_symbols
from tutor.textsafe import STAND_INS

OSMOSIS = [sys.executable, "-c", "from tutor.entry import run; run()"]


def osmosis(args: list[str], home, encoding: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONUTF8", "LC_ALL", "LANG")}
    env.update(OSMOSIS_HOME=str(home), PYTHONIOENCODING=encoding, COLUMNS="100")
    return subprocess.run([*OSMOSIS, *args], input=stdin, capture_output=True, env=env, timeout=300)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_layout_on_a_terminal_that_cannot_show_card_backs_spells_them_in_ascii(home, encoding):
    done = osmosis(["deal", "1"], home, encoding)
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    assert b"r1  ## ## ## AD" in done.stdout


def test_a_game_and_its_review_under_ascii_end_without_a_traceback(home, tmp_path):
    save = tmp_path / "g.json"
    played = osmosis(["play", "1", "--variant", "peek", "--save", str(save)], home, "ascii",
                     "d\n7\u2660\n".encode() + b"\xe97\n?\nd\nq\n")
    assert played.returncode == 0 and b"Traceback" not in played.stderr
    # a suit symbol is UTF-8 whatever the locale says; bytes that are not are ignored, said in one line
    assert b"7S cannot be played now" in played.stdout
    assert b"That line is not ascii text, so it was ignored" in played.stdout
    assert b"## " not in played.stdout and b"(2 moves" in played.stdout  # Peek: no backs; both turns played
    review = osmosis(["review", str(save)], home, "ascii")
    assert review.returncode == 0 and b"Traceback" not in review.stderr
    review.stdout.decode("ascii")  # every character written is ASCII


def test_a_card_with_its_suit_symbol_in_a_c_locale_is_that_card(home):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING",)}
    env.update(OSMOSIS_HOME=str(home), LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    # --moves on argv: Python keeps the bytes of the symbol as surrogate escapes in this locale
    done = subprocess.run([*OSMOSIS, "hint", "10", "--moves", "d d 5\u2663"], capture_output=True, env=env,
                          timeout=300)
    assert done.returncode == 1 and b"move 3 of --moves (5C): 5C cannot be played now" in done.stderr
    symbol, letter = (subprocess.run([*OSMOSIS, "hint", "10", "--moves", f"r2 9{suit}", "--json"],
                                     capture_output=True, env=env, timeout=300) for suit in ("\u2663", "C"))
    assert symbol.returncode == 0, symbol.stderr
    assert json.loads(symbol.stdout) == json.loads(letter.stdout)  # the same position, the same hint


def test_typed_non_ascii_under_latin_1_is_echoed_and_the_game_goes_on(home):
    done = osmosis(["play", "1", "--variant", "peek"], home, "latin-1", "\u2603\nd\nq\n".encode())
    assert b"Traceback" not in done.stderr and done.stdout.count(b"move> ") >= 3


def test_a_byte_order_mark_opening_piped_moves_is_no_part_of_the_first_move(run):
    result = run(["play", "1"], input="\ufeffd\r\nd\r\nq\r\n")
    assert "unknown move" not in result.stdout
    assert "2 moves" in result.stdout or "(2 moves" in result.stdout


def test_json_is_ascii_and_valid_whatever_the_encoding(tmp_path):
    home = tmp_path / "h\u00f6m\u00e9"
    done = osmosis(["games", "--json"], home, "latin-1")
    assert done.returncode == 0
    data = json.loads(done.stdout.decode("ascii"))
    assert data["folder"] == str(home / "games")


def test_every_stand_in_is_ascii_and_keeps_json_strings_closed():
    assert all(v.isascii() and '"' not in v and "\\" not in v for v in STAND_INS.values())


def test_plain_asks_for_two_letter_cards_even_on_a_terminal():
    console = Console(force_terminal=True, file=open(os.devnull, "w", encoding="utf-8"))
    assert use_symbols(console)
    console.two_letters = True  # type: ignore[attr-defined]
    assert not use_symbols(console)


@pytest.mark.parametrize("args", [["hint", "51", "--moves", "r2 d"], ["lesson"], ["variants"]])
def test_a_narrow_terminal_folds_table_cells_and_cuts_no_figure_or_name(run, args):
    out = run(args, env={"COLUMNS": "40"}).stdout
    assert "\u2026" not in out
    if args[0] == "lesson":
        assert "osmosis-filter" in out  # the name to type, whole


def test_a_character_with_no_stand_in_is_escaped_not_replaced_by_a_lookalike():
    import codecs

    from tutor.textsafe import ERRORS

    assert codecs.encode("\u2603 7\u2660\ufe0f", "ascii", ERRORS) == b"\\u2603 7S"


def test_an_export_is_ascii_json_whatever_the_folder_is_called(tmp_path):
    home = tmp_path / "h\u00f6m\u2014e"
    osmosis(["play", "1"], home, "utf-8", b"d\nq\n")
    out = tmp_path / "all.jsonl"
    done = osmosis(["export", str(out)], home, "latin-1")
    assert done.returncode == 0, done.stderr
    text = out.read_bytes().decode("ascii")  # ASCII: the folder's name as \u escapes, read back whole
    assert "\\u2014" in text and any("h\u00f6m\u2014e" in json.dumps(json.loads(line), ensure_ascii=False)
                                     for line in text.splitlines())


def test_a_suit_symbol_piped_or_typed_under_latin_1_is_the_card(home, monkeypatch):
    """Latin-1 decodes any bytes, so trying the locale's encoding first read 7\u2660 as '7\u00e2\\x99\u00a0'."""
    done = osmosis(["play", "1", "--variant", "peek"], home, "latin-1", "d\n7\u2660\nq\n".encode())
    assert b"7S cannot be played now" in done.stdout and b"unknown move" not in done.stdout
    import sys

    from tutor.textsafe import utf8_argument

    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "latin-1")
    assert utf8_argument("5\u2663".encode().decode("latin-1")) == "5\u2663"  # a Latin-1 locale's argv
    assert utf8_argument("caf\u00e9") == "caf\u00e9"  # Latin-1 text that is no UTF-8 stays as it is
