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


def _played(path, moves=("d", "d", "w")):
    return _record(path, list(moves))


def test_two_games_play_saved_alike_stay_two_when_imported(tmp_path):
    """A backup of the games folder imported into a new home merged two tries of a deal played move for move
    alike (the second file read as a copy of the first): the history lost a game."""
    home = tmp_path / "home"
    backup = tmp_path / "backup"
    backup.mkdir()
    first = _played(backup / "deal-5-20261206-104049.json")
    second = _played(backup / "deal-5-20261206-104052.json")
    result = osmosis(["import", str(first), str(second)], home)
    assert result.exit_code == 0, result.output
    assert "Imported 2 games into your history." in " ".join(result.output.split())
    assert json.loads(osmosis(["history", "--json"], home).output)["games"] == 2
    # a copy of one of them, under its own stamp or a name of the player's, is that game: nothing new
    again = tmp_path / "again"
    again.mkdir()
    for copy in (_played(again / "deal-5-20261206-104052.json"), _played(again / "mine.json")):
        said = " ".join(osmosis(["import", str(copy)], home).output.split())
        assert "Nothing new to import" in said
    assert json.loads(osmosis(["history", "--json"], home).output)["games"] == 2


def test_a_review_of_the_second_alike_game_is_stored_with_that_game(tmp_path):
    home = tmp_path / "home"
    first = _played(tmp_path / "deal-5-20261206-104049.json")
    second = _played(tmp_path / "deal-5-20261206-104052.json")
    assert osmosis(["import", str(first)], home).exit_code == 0
    result = osmosis(["review", str(second), "--samples", "16"], home)
    assert result.exit_code == 0, result.output
    shown = json.loads(osmosis(["history", "--json"], home).output)
    assert shown["games"] == 2  # the review's game is the second try, not the first one's row


# Peek deal 51, 30 moves of a random player: move 3, w where d was right, is a blunder the review drills.
RANDOM_51 = "r2 d w d w d r1 d d d d d d d d d d d w d d d d d d w r4 d d d".split()


def test_a_drill_stays_when_its_game_is_played_on(tmp_path):
    """A game resumed and played on after its review retired its drills for good, without a word (the review
    no longer covered the game's moves), though the move at the drill's ply was unchanged and still a
    blunder: box and answers lost. The drill is asked on the unchanged position instead."""
    from tutor.deals import deal_for
    from tutor.rules import preset
    from tutor.state import State

    home = tmp_path / "home"
    game = tmp_path / "game.json"
    record = {"format": "osmosis-record/1", "deal": {"number": 51}, "variant": "peek", "moves": RANDOM_51}
    game.write_text(json.dumps(record))
    assert osmosis(["import", str(game)], home).exit_code == 0
    assert osmosis(["review", str(game), "--samples", "16", "--workers", "1"], home).exit_code == 0
    third = [d for d in json.loads(osmosis(["drill", "--list", "--json"], home).output) if d["ply"] == 3]
    assert third and third[0]["played"] == "w"
    rules = preset("peek")
    state = State.initial(deal_for(51, rules), rules).play(RANDOM_51)
    more = []
    for _ in range(5):  # the game played on: five more moves, the first 30 as they were
        move = state.legal_moves()[0]
        more.append(str(move))
        state = state.apply(move)
    game.write_text(json.dumps({**record, "moves": RANDOM_51 + more}))
    assert osmosis(["import", str(game)], home).exit_code == 0
    kept = [d for d in json.loads(osmosis(["drill", "--list", "--json"], home).output) if d["ply"] == 3]
    assert kept and kept[0]["drop_interval"] == third[0]["drop_interval"]  # the review's interval, still shown
    asked = osmosis(["drill", "--count", "1"], home, input="d\n")
    assert asked.exit_code == 0, asked.output
    assert "Find a better move." in asked.output
    after = json.loads(osmosis(["drill", "--list", "--json"], home).output)
    assert [(d["ply"], d["answers"]) for d in after if d["ply"] == 3] == [(3, 1)]  # still a drill, answered once


def test_an_imported_better_review_says_so_and_the_export_gives_its_drill_costs(tmp_path):
    """A review on more samples imported over the history's own replaced it without a word, and the next export
    still gave the drills the old review's cost (until a drill command ran): two exports in a row differed."""
    game = tmp_path / "game.json"
    game.write_text(json.dumps({"format": "osmosis-record/1", "deal": {"number": 51}, "variant": "peek",
                                "moves": RANDOM_51}))
    exports = []
    for samples in ("16", "32"):
        home = tmp_path / f"home{samples}"
        assert osmosis(["import", str(game)], home).exit_code == 0
        assert osmosis(["review", str(game), "--samples", samples, "--workers", "1"], home).exit_code == 0
        out = tmp_path / f"export{samples}.jsonl"
        assert osmosis(["export", str(out)], home).exit_code == 0
        exports.append(out)
    home = tmp_path / "both"
    assert osmosis(["import", str(exports[0])], home).exit_code == 0
    said = " ".join(osmosis(["import", str(exports[1])], home).output.split())
    assert "The imported review of 1 game replaced your history's own: it was made with more samples." in said
    first = osmosis(["export"], home).output
    line = json.loads(first)
    drops = {m["ply"]: m["drop"] for m in line["review"]["moves"]}
    assert line["review"]["samples"] == 32 and line["drills"]
    for d in line["drills"]:
        assert d["drop"] == round(drops[d["ply"]], 1) or abs(d["drop"] - drops[d["ply"]]) < 0.06
    assert osmosis(["drill", "--list"], home).exit_code == 0
    assert osmosis(["export"], home).output == first  # nothing changed between them: the same export


def test_two_games_begun_in_the_same_second_stay_two_when_imported(tmp_path):
    """Play names the second game of a second ``...-104049-2.json``: the same stamp, another game."""
    home = tmp_path / "home"
    first = _played(tmp_path / "deal-5-20261206-104049.json")
    second = _played(tmp_path / "deal-5-20261206-104049-2.json")
    assert osmosis(["import", str(first), str(second)], home).exit_code == 0
    assert json.loads(osmosis(["history", "--json"], home).output)["games"] == 2


def _peek_51(tmp_path, moves):
    game = tmp_path / "game.json"
    game.write_text(json.dumps({"format": "osmosis-record/1", "deal": {"number": 51}, "variant": "peek",
                                "moves": moves}))
    return game


def _played_on(moves, more=5):
    from tutor.deals import deal_for
    from tutor.rules import preset
    from tutor.state import State

    rules = preset("peek")
    state = State.initial(deal_for(51, rules), rules).play(moves)
    out = list(moves)
    for _ in range(more):
        move = state.legal_moves()[0]
        out.append(str(move))
        state = state.apply(move)
    return out


def test_a_game_played_on_before_any_drill_command_still_has_its_drills(tmp_path):
    """Drills are made from the reviews; one whose game went on before a drill command ran made none."""
    home = tmp_path / "home"
    game = _peek_51(tmp_path, RANDOM_51)
    assert osmosis(["import", str(game)], home).exit_code == 0
    assert osmosis(["review", str(game), "--samples", "16", "--workers", "1"], home).exit_code == 0
    _peek_51(tmp_path, _played_on(RANDOM_51))
    assert osmosis(["import", str(game)], home).exit_code == 0
    listed = json.loads(osmosis(["drill", "--list", "--json"], home).output)
    assert [(d["ply"], d["played"]) for d in listed if d["ply"] == 3] == [(3, "w")]


def test_a_review_that_no_longer_fit_its_game_is_not_said_to_be_replaced(tmp_path):
    """The history's review of a game played on since is no rival: the file's review of the game as it stands
    goes in without "replaced ... made with more samples" (it had fewer)."""
    game = _peek_51(tmp_path, RANDOM_51)
    home_a, home_b = tmp_path / "a", tmp_path / "b"
    assert osmosis(["import", str(game)], home_a).exit_code == 0
    assert osmosis(["review", str(game), "--samples", "16", "--workers", "1"], home_a).exit_code == 0
    _peek_51(tmp_path, _played_on(RANDOM_51))
    assert osmosis(["import", str(game)], home_b).exit_code == 0
    assert osmosis(["review", str(game), "--samples", "8", "--workers", "1"], home_b).exit_code == 0
    export_b = tmp_path / "b.jsonl"
    assert osmosis(["export", str(export_b)], home_b).exit_code == 0
    assert osmosis(["import", str(game)], home_a).exit_code == 0  # home a's game played on too
    said = " ".join(osmosis(["import", str(export_b)], home_a).output.split())
    assert "replaced" not in said


def test_export_does_not_wait_behind_another_writer(tmp_path, monkeypatch):
    """The drills' sync before an export waited out the lock of another process writing the history (15 s);
    a read never waits, so neither does the export: it writes what the history holds."""
    import sqlite3
    import threading

    import tutor.history.db as db

    home = tmp_path / "home"
    game = _peek_51(tmp_path, RANDOM_51)
    assert osmosis(["import", str(game)], home).exit_code == 0
    monkeypatch.setattr(db, "BUSY_MS", 3_600_000)  # a lock held for an hour: the export must not wait for it
    holder = sqlite3.connect(home / "history.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    done: dict[str, object] = {}
    worker = threading.Thread(target=lambda: done.update(result=osmosis(["export"], home)), daemon=True)
    try:
        worker.start()
        worker.join(120)  # a guard against a hang, not a speed figure
        assert not worker.is_alive(), "export waited for the other writer's lock"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    result = done["result"]
    assert result.exit_code == 0 and json.loads(result.output.splitlines()[0])["record"]["moves"] == RANDOM_51
