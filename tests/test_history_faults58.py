"""History faults found at stop 57: what import says it did must be what the history then shows."""

from __future__ import annotations

import json

from builders import osmosis


def _record(path, moves):
    path.write_text(json.dumps({"format": "osmosis-record/1", "deal": {"number": 5}, "variant": "osmosis",
                                "moves": moves}))
    return path


def test_a_record_with_no_move_is_not_imported_as_a_game(tmp_path):
    """A game saved before its first move was counted "Imported 1 game" and then shown nowhere (the history,
    the coach and the review count a game from its first move): it is said so, and nothing is stored."""
    home = tmp_path / "home"
    unbegun = _record(tmp_path / "new.json", [])
    result = osmosis(["import", str(unbegun)], home)
    assert result.exit_code == 0, result.output
    assert "Imported" not in result.output
    said = " ".join(result.output.split())
    assert "holds a game with no move played yet: nothing to import" in said
    assert f"osmosis play --resume '{unbegun}' plays it" in said
    shown = osmosis(["history", "--json"], home)
    assert json.loads(shown.output)["games"] == 0
    exported = osmosis(["export"], home)
    assert exported.output.strip() == ""


def test_a_game_not_begun_beside_one_played(tmp_path):
    home = tmp_path / "home"
    unbegun = _record(tmp_path / "new.json", [])
    played = _record(tmp_path / "played.json", ["d"])
    result = osmosis(["import", str(unbegun), str(played)], home)
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "Imported 1 game into your history." in said
    assert "new.json' holds a game with no move played yet" in said
    assert json.loads(osmosis(["history", "--json"], home).output)["games"] == 1
