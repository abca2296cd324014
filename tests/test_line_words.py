"""Line mode's words: a reserve pile the game lacks stops a line before any of it is played, the help says what
may be typed as it is typed, a typed suit symbol is echoed as the output can show it, and `games --json` gives
every field for a file it cannot read."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tutor.record import load_record

OSMOSIS = [sys.executable, "-c", "from tutor.entry import run; run()"]


def test_a_reserve_pile_the_game_lacks_stops_the_line_before_any_of_it_is_played(run, home):
    """`d r3` in a game of two piles played d and then refused r3, where `d r5` refused the whole line; in
    Bridesmaids `d r1` played d first."""
    out = run(["play", "11", "--reserve-piles", "2", "--plain"], input="d r3\nq\n").stdout
    assert ("r3 is no move here: reserve pile 3 does not exist; this game has 2 reserve piles (r1-r2); "
            "nothing of the line was played") in out
    assert "Move 1:" not in out and not list((home / "games").glob("*.json"))  # nothing played, nothing saved
    out = run(["play", "9", "--variant", "bridesmaids", "--plain"], input="d r1\nd\nq\n").stdout
    assert "r1 is no move here: reserve pile 1 does not exist; this game has no reserve; nothing of the line" in out
    saved = list((home / "games").glob("deal-9-*.json"))
    assert len(saved) == 1 and [str(m) for m in load_record(saved[0]).moves] == ["d"]  # the second line's d only
    # alone, the move is the game's to refuse, in the same words
    out = run(["play", "11", "--reserve-piles", "2", "--plain"], input="r3\nq\n").stdout
    assert "r3 is not possible: reserve pile 3 does not exist; this game has 2 reserve piles (r1-r2)" in out


def test_the_help_shows_the_spellings_it_offers_as_they_are_typed(run):
    """'a card name (also 10H, 7♥)' came out as '(also TH, 7♥)': respelt as the engine's card names are."""
    out = run(["play", "1", "--plain"], input="?\nq\n").stdout
    assert "a card name (also 10h, 7\u2665) plays that card" in out


def _c_locale(home) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING",)}
    env.update(OSMOSIS_HOME=str(home), LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    return env


def test_a_typed_suit_symbol_is_echoed_in_ascii_where_the_output_is_ascii(home):
    """In a C locale the transcript's echo of `7♠` was the symbol's raw UTF-8 bytes; the rest of the output is
    ASCII there (its stand-ins)."""
    done = subprocess.run([*OSMOSIS, "play", "1"], input="d d d d d\n7\u2660\nq\n".encode(), capture_output=True,
                          env=_c_locale(home), timeout=300)
    assert done.returncode == 0, done.stderr
    assert b"move> 7S\n" in done.stdout
    done.stdout.decode("ascii")  # every byte written is ASCII


def test_games_json_gives_every_field_for_a_file_it_cannot_read(run, home):
    run(["play", "1"], input="d\nq\n")
    (home / "games" / "zz.json").write_text("{broken", encoding="utf-8")
    games = json.loads(run(["games", "--json"]).stdout)["games"]
    fields = {"number", "path", "date", "deal", "variant", "moves", "cards", "won", "over"}
    assert len(games) == 2 and all(fields <= set(g) for g in games)
    broken = [g for g in games if g["path"].endswith("zz.json")]
    assert len(broken) == 1 and broken[0]["error"] and broken[0]["moves"] is None and broken[0]["won"] is None
