"""Game records: JSON round trips, atomic saving, replay, errors, and the Game helper."""

from __future__ import annotations

import json
import os

import pytest
from builders import make_deal

from tutor.cards import parse_card
from tutor.deals import deal_for
from tutor.errors import IllegalMoveError, MoveError, RecordError
from tutor.history.games import open_history
from tutor.notation import TURN, WASTE, parse_moves
from tutor.record import RECORD_FORMAT, Game, Record, load_record, loads_record, save_record
from tutor.rules import Rules, preset
from tutor.state import State

DEAL_ONE_LINE = "d d d d d w d w d w d d w r2"  # reaches 6 cards (see test_state)
HAND_DEAL = make_deal(["2H 3H 4H 5H", "2D 3D 4D 7H", "2C 3C 4C 7S", "6H 8H 9H KC"], "5S",
                      talon="6D 9C 5D JH QH 5C")


def deal_one_record(**kwargs) -> Record:
    rules = preset("osmosis")
    return Record(rules, deal_for(1, rules), parse_moves(DEAL_ONE_LINE), **kwargs)


def write(tmp_path, data, name="g.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_record_json_follows_the_spec():
    data = deal_one_record().to_json()
    assert data == {
        "format": "osmosis-record/1",
        "variant": "osmosis",
        "deal": {"number": 1},
        "moves": DEAL_ONE_LINE.split(),
        "result": {"cards": 6, "won": False},
    }
    assert RECORD_FORMAT == data["format"]


def test_record_round_trips_through_json():
    record = deal_one_record()
    back = Record.from_json(record.to_json())
    assert back.rules == record.rules and back.deal == record.deal and back.moves == record.moves
    assert back.replay() == record.replay()
    assert back.to_json() == record.to_json()


def test_record_round_trips_through_a_file(tmp_path):
    record = deal_one_record()
    save_record(record, tmp_path / "g.json")
    back = load_record(tmp_path / "g.json")
    assert back.to_json() == record.to_json()
    assert json.loads((tmp_path / "g.json").read_text())["moves"] == DEAL_ONE_LINE.split()


def test_inline_deal_and_option_variant_round_trip(tmp_path):
    rules = Rules(turn=1, passes=3)
    record = Record(rules, HAND_DEAL, parse_moves("r1 d d d w"))
    data = record.to_json()
    assert data["variant"] == {"turn": 1, "passes": 3, "open_reserve": False, "reserve_piles": 4}
    assert data["deal"]["base"] == "5S" and data["deal"]["format"] == "osmosis-deal/1"
    save_record(record, tmp_path / "hand.json")
    back = load_record(tmp_path / "hand.json")
    assert back.rules == rules and back.deal == HAND_DEAL and back.replay() == record.replay()
    assert back.replay().rows == (0, 1, 2)  # 5H from r1, then 5D from the waste


def test_preset_alias_and_options_object_with_preset_load():
    data = deal_one_record().to_json()
    data["variant"] = "treasure-trove"
    assert Record.from_json(data).rules == preset("osmosis")
    data["variant"] = {"preset": "osmosis", "passes": 3}
    assert Record.from_json(data).rules == preset("limited")


def test_bridesmaids_record_replays_its_own_deal():
    rules = preset("bridesmaids")
    record = Record(rules, deal_for(4, rules), [TURN, TURN])
    back = Record.from_json(record.to_json())
    assert back.deal.reserves == () and back.replay().pos == 6


def test_annotations_survive_a_round_trip_and_moves_stay_tokens(tmp_path):
    notes = [None, {"label": "best", "tags": [], "comment": "turn on"}, None,
             {"label": "mistake", "tags": ["hasty"], "comment": "wait for the 4S"}]
    record = deal_one_record(annotations=notes)
    assert len(record.annotations) == len(record.moves)
    save_record(record, tmp_path / "a.json")
    data = json.loads((tmp_path / "a.json").read_text())
    assert all(isinstance(m, str) for m in data["moves"])
    assert data["annotations"][:4] == notes and len(data["annotations"]) == len(data["moves"])
    back = load_record(tmp_path / "a.json")
    assert back.annotations == record.annotations


def test_record_without_annotations_writes_none():
    assert "annotations" not in deal_one_record(annotations=[None, None]).to_json()


def test_states_are_the_positions_before_each_move_and_the_last():
    record = deal_one_record()
    states = record.states()
    assert len(states) == len(record.moves) + 1
    assert states[0] == State.initial(record.deal, record.rules)
    assert all(states[i].apply(m) == states[i + 1] for i, m in enumerate(record.moves))
    assert states[-1] == record.replay() and record.final_result() == {"cards": 6, "won": False}


def test_empty_record_replays_to_the_layout():
    rules = preset("osmosis")
    record = Record.from_json({"format": RECORD_FORMAT, "variant": "osmosis", "deal": {"number": 9}, "moves": []})
    assert record.replay() == State.initial(deal_for(9, rules), rules)


def test_saved_file_is_readable_json_with_one_field_per_line(tmp_path):
    save_record(deal_one_record(annotations=[{"label": "best", "tags": [], "comment": "ok"}]), tmp_path / "g.json")
    text = (tmp_path / "g.json").read_text()
    assert text.startswith("{\n") and text.endswith("}\n")
    assert '  "moves": ["d", "d",' in text
    json.loads(text)


# ---- atomic saving ------------------------------------------------------------

@pytest.mark.parametrize("target", ["replace", "fsync"])
def test_failed_save_never_truncates_the_old_file(tmp_path, monkeypatch, target):
    path = tmp_path / "g.json"
    save_record(deal_one_record(), path)
    before = path.read_text()

    def fail(*args, **kwargs):
        raise OSError("no space left on device")

    monkeypatch.setattr(os, target, fail)
    rules = preset("osmosis")
    with pytest.raises(RecordError) as info:
        save_record(Record(rules, deal_for(2, rules), [TURN]), path)
    assert "g.json" in str(info.value) and "no space left" in str(info.value)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


def test_save_into_a_missing_directory_is_a_record_error(tmp_path):
    with pytest.raises(RecordError) as info:
        save_record(deal_one_record(), tmp_path / "no" / "g.json")
    assert "cannot be written" in str(info.value)


# ---- errors -------------------------------------------------------------------

def test_illegal_move_names_the_file_the_move_number_the_token_and_why(tmp_path):
    data = deal_one_record().to_json()
    data["moves"][6] = "r2"
    del data["result"]
    with pytest.raises(RecordError) as info:
        load_record(write(tmp_path, data))
    msg = str(info.value)
    assert msg.startswith(f"record '{tmp_path / 'g.json'}': move 7 'r2' is illegal: ")
    assert "QC cannot be played" in msg and "clubs have no row yet" in msg


def test_illegal_waste_move_says_the_waste_is_empty():
    data = deal_one_record().to_json()
    data["moves"] = ["w"]
    del data["result"]
    with pytest.raises(RecordError) as info:
        Record.from_json(data, source="record 'x.json'")
    assert str(info.value) == ("record 'x.json': move 1 'w' is illegal: the waste is empty "
                               "(turn the talon with d)")


def test_unknown_move_token_names_the_move_number(tmp_path):
    data = deal_one_record().to_json()
    data["moves"][2] = "r9"
    with pytest.raises(RecordError) as info:
        load_record(write(tmp_path, data))
    assert "move 3 'r9' is not a move: expected r1-r4 (a reserve pile), w (the waste) or d" in str(info.value)
    # what would be right is the record's own game: Bridesmaids has no reserve to name
    data = {"format": RECORD_FORMAT, "variant": "bridesmaids", "deal": {"number": 1}, "moves": ["d", "x"]}
    with pytest.raises(RecordError) as info:
        load_record(write(tmp_path, data))
    assert str(info.value).endswith("move 2 'x' is not a move: expected w (the waste) or d (turn the talon)")


def test_missing_file_is_named(tmp_path):
    with pytest.raises(RecordError) as info:
        load_record(tmp_path / "nothing.json")
    assert "nothing.json" in str(info.value) and "does not exist" in str(info.value)


def test_directory_is_not_a_record(tmp_path):
    with pytest.raises(RecordError) as info:
        load_record(tmp_path)
    assert "is a directory" in str(info.value)


def test_not_json_is_named(tmp_path):
    with pytest.raises(RecordError) as info:
        load_record(write(tmp_path, '{"format": "osmosis-record/1",'))
    assert "g.json" in str(info.value) and "not valid JSON" in str(info.value)


@pytest.mark.parametrize("fmt", ["osmosis-record/2", "osmosis-deal/1", 7])
def test_wrong_format_is_named(tmp_path, fmt):
    data = deal_one_record().to_json()
    data["format"] = fmt
    with pytest.raises(RecordError) as info:
        load_record(write(tmp_path, data))
    assert "is not supported" in str(info.value) and "osmosis-record/1" in str(info.value)


def test_deal_file_given_as_record_points_to_deal_file(tmp_path):
    with pytest.raises(RecordError) as info:
        load_record(write(tmp_path, deal_for(1, preset("osmosis")).to_json()))
    assert "--deal-file" in str(info.value)


def test_json_that_is_not_an_object_is_refused(tmp_path):
    with pytest.raises(RecordError) as info:
        load_record(write(tmp_path, ["d", "w"]))
    assert "expected a JSON object" in str(info.value)


@pytest.mark.parametrize("deal,words", [
    ({"number": 0}, "out of range"),
    ({"number": "7"}, "not a whole number"),
    ({"number": True}, "deal number true is not a whole number"),  # spelled as the file spells it
    ({"number": None}, "deal number null is not"),
    ({"format": "osmosis-deal/1", "reserves": [], "base": "2S", "talon": ["KS"]}, "missing card"),
    ({"format": "osmosis-deal/1", "reserves": [["1X"]], "base": "2S", "talon": []}, "unknown card '1X'"),
    ("deal 1", 'expected {"number": N} for a PySolFC deal number, or an inline deal'),
    (7, 'deal 7 is a bare number: write it as {"number": 7}'),  # was pointed at the inline form only
    ({"Number": 7}, 'expected {"number": N}'),
    ({**deal_for(8, preset("osmosis")).to_json(), "number": 7}, 'both "number": 7 and the cards of another deal'),
])
def test_bad_deal_is_named(tmp_path, deal, words):
    data = {"format": RECORD_FORMAT, "variant": "osmosis", "deal": deal, "moves": []}
    with pytest.raises(RecordError) as info:
        load_record(write(tmp_path, data))
    assert "bad deal" in str(info.value) and words in str(info.value)


def test_missing_deal_is_named():
    with pytest.raises(RecordError) as info:
        Record.from_json({"format": RECORD_FORMAT, "variant": "osmosis", "moves": []})
    assert "missing field 'deal'" in str(info.value)


def test_inline_deal_with_the_wrong_pile_count_for_the_variant_is_refused():
    data = Record(preset("osmosis"), HAND_DEAL, []).to_json()
    data["variant"] = "bridesmaids"
    with pytest.raises(RecordError) as info:
        Record.from_json(data)
    assert "bad deal" in str(info.value) and "reserve piles" in str(info.value)


@pytest.mark.parametrize("variant", ["klondike", {"turn": 2}, {"turns": 1}, 3])
def test_bad_variant_is_named(tmp_path, variant):
    data = deal_one_record().to_json()
    data["variant"] = variant
    with pytest.raises(RecordError) as info:
        load_record(write(tmp_path, data))
    assert "bad variant" in str(info.value)


def test_result_that_the_moves_do_not_reach_is_replaced_with_a_warning():
    data = deal_one_record().to_json()
    data["result"] = {"cards": 31, "won": False}
    record = Record.from_json(data)
    assert record.result == {"cards": 6, "won": False}
    assert "31 cards" in record.warnings[0] and "reach 6" in record.warnings[0]
    data["result"] = {"cards": 6, "won": True}
    assert "won=true" in Record.from_json(data).warnings[0]
    data["result"] = {"cards": "six"}
    with pytest.raises(RecordError):
        Record.from_json(data)


def test_annotated_move_objects_are_read_as_their_moves():
    data = deal_one_record().to_json()
    data["moves"] = [{"move": m, "label": "best"} for m in data["moves"]]
    assert Record.from_json(data).moves == deal_one_record().moves


def test_record_made_under_other_rules_is_caught_by_its_result():
    data = deal_one_record().to_json()
    data["variant"] = "single"
    with pytest.raises(RecordError):
        Record.from_json(data)


@pytest.mark.parametrize("notes", ["x", [1], [None] * 20, [{"tags": "hasty"}], [{"comment": 3}]])
def test_bad_annotations_are_refused(notes):
    data = deal_one_record().to_json()
    data["annotations"] = notes
    with pytest.raises(RecordError):
        Record.from_json(data)


def test_moves_must_be_a_list_of_tokens():
    data = deal_one_record().to_json()
    data["moves"] = {"1": "d"}
    with pytest.raises(RecordError) as info:
        Record.from_json(data)
    assert "'moves' must be a list" in str(info.value)


def test_loads_record_names_its_source():
    with pytest.raises(RecordError) as info:
        loads_record("nope", source="autosave")
    assert str(info.value).startswith("autosave is not valid JSON")



@pytest.mark.parametrize("text, said", [
    ("null", "not null"), ("[1]", "not a list"), ("7", "not a number"), ('"x"', "not text"),
    ('{"format": "osmosis-record/1", "moves": ["d', "Unterminated string starting at line 1 column"),
])
def test_a_record_that_is_not_an_object_is_named_in_json_words(text, said):
    with pytest.raises(RecordError) as info:
        loads_record(text, source="autosave")
    assert said in str(info.value) and "NoneType" not in str(info.value) and "at at" not in str(info.value)

# ---- the Game helper --------------------------------------------------------

def test_game_plays_and_undoes_any_number_of_moves():
    game = Game.new(1)
    for token in DEAL_ONE_LINE.split():
        game.push(token)
    assert game.ply == 14 and game.state.score == 6
    assert game.undo() == [parse_moves("r2")[0]]
    assert game.state == Record(game.rules, game.deal, parse_moves(DEAL_ONE_LINE)[:-1]).replay()
    game.undo(13)
    assert game.ply == 0 and game.state == State.initial(game.deal, game.rules) and not game.can_undo()


def test_game_undo_past_the_start_is_refused_and_changes_nothing():
    game = Game.new(1)
    game.push("d")
    with pytest.raises(IllegalMoveError) as info:
        game.undo(2)
    assert "only 1 played" in str(info.value) and game.ply == 1


def test_game_refuses_an_illegal_move_and_stays_put():
    game = Game.new(1)
    with pytest.raises(IllegalMoveError):
        game.push("w")
    with pytest.raises(MoveError):
        game.push("x")
    assert game.ply == 0 and len(game.states) == 1


def test_game_takes_a_typed_card():
    game = Game.new(1)
    for token in "d d d d d".split():
        game.push(token)
    game.push(parse_card("7S"))
    assert game.moves[-1] == WASTE and game.describe_last() == "w played 7S"
    with pytest.raises(IllegalMoveError) as info:
        game.push(parse_card("KH"))
    assert "KH cannot be played" in str(info.value)


def test_game_to_record_and_back():
    game = Game.new(1, "osmosis")
    for token in DEAL_ONE_LINE.split():
        game.push(token)
    game.annotate(3, {"label": "good", "tags": [], "comment": "fine"})
    record = game.to_record()
    assert record.result == {"cards": 6, "won": False}
    assert record.to_json()["annotations"][2]["label"] == "good"
    again = Game.from_record(Record.from_json(record.to_json()))
    assert again.states == game.states and again.annotations == game.annotations
    game.undo(12)
    assert game.annotations == [None, None]


def test_game_annotate_needs_a_played_move():
    game = Game.new(1)
    with pytest.raises(RecordError):
        game.annotate(1, {"label": "best"})
    assert Game.new(1).describe_last() == "no move yet"


def test_a_deal_number_with_other_fields_beside_it_is_still_the_numbered_deal():
    data = {"format": RECORD_FORMAT, "variant": "osmosis", "deal": {"number": 7, "note": "from the club"},
            "moves": ["d", "d"]}
    assert Record.from_json(data).deal == deal_for(7, preset("osmosis"))


def test_a_deal_number_with_its_own_cards_or_null_beside_them_is_the_deal_given_in_full():
    """Read as before (the deal given in full), so a record imported before is the same game when imported
    again; a null number beside the cards is no number."""
    cards = deal_for(8, preset("osmosis")).to_json()
    for number in (8, None):
        data = {"format": RECORD_FORMAT, "variant": "osmosis", "deal": {**cards, "number": number}, "moves": ["d"]}
        deal = Record.from_json(data).deal
        assert deal.number is None and deal.to_json() == cards


def test_a_deal_file_given_as_a_record_says_which_commands_take_it():
    deal = deal_for(7, preset("osmosis")).to_json()
    with pytest.raises(RecordError, match="osmosis play, solve and hint take it with --deal-file"):
        Record.from_json(deal)


def test_fields_the_tutor_does_not_read_are_kept_through_a_resumed_game_and_a_review(run, tmp_path):
    """A record's top-level fields added by hand ("notes") or by another tool were dropped the first time a
    resumed game was saved: they are written back as they were, after the tutor's own, which they never
    replace."""
    path = tmp_path / "res.json"
    path.write_text(json.dumps({"format": RECORD_FORMAT, "variant": "osmosis", "deal": {"number": 3},
                                "moves": ["r3", "d"], "notes": "my own notes", "tool": {"a": [1, 2]}}))
    record = load_record(path)
    assert record.extra == {"notes": "my own notes", "tool": {"a": [1, 2]}}
    assert loads_record(record.dumps()).extra == record.extra
    game = Game.from_record(record)
    game.push("d")
    assert game.to_record().to_json()["notes"] == "my own notes"
    carried = Record(record.rules, record.deal, record.moves, extra={"moves": ["d"], "result": 1, "x": 2})
    assert carried.to_json()["moves"] == ["r3", "d"] and carried.to_json()["result"]["cards"] == 2
    result = run(["play", "--resume", str(path), "--plain"], input="d\nq\n")
    assert result.exit_code == 0, result.output
    data = json.loads(path.read_text())
    assert data["moves"] == ["r3", "d", "d"] and data["notes"] == "my own notes" and data["tool"] == {"a": [1, 2]}
    assert run(["review", str(path), "--samples", "8", "--annotate", str(path)]).exit_code == 0
    data = json.loads(path.read_text())
    assert "annotations" in data and data["notes"] == "my own notes" and data["tool"] == {"a": [1, 2]}
    # another file of the same game keeps its own notes when this one is annotated into it or saved over it
    plain, other = tmp_path / "plain.json", tmp_path / "other.json"
    plain.write_text(json.dumps({"format": RECORD_FORMAT, "variant": "osmosis", "deal": {"number": 3},
                                 "moves": ["r3", "d"]}))
    other.write_text(json.dumps({**json.loads(plain.read_text()), "notes": "other's notes", "tool": 1}))
    assert run(["review", str(plain), "--samples", "8", "--annotate", str(other)]).exit_code == 0
    data = json.loads(other.read_text())
    assert "annotations" in data and data["notes"] == "other's notes" and data["tool"] == 1
    assert run(["play", "--resume", str(path), "--plain"], input=f"s {other}\nq\n").exit_code == 0
    data = json.loads(other.read_text())
    assert data["moves"] == ["r3", "d", "d"] and data["notes"] == "my own notes" and data["tool"] == {"a": [1, 2]}
    # a record may leave out its moves, and is still this game's file; a file that is no record at all is kept
    # from --annotate (it is no earlier annotated record), and gives the game none of its fields
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"format": RECORD_FORMAT, "variant": "osmosis", "deal": {"number": 5},
                                 "mynote": "keep me"}))
    assert run(["play", "5", "--save", str(empty), "--plain"], input="d\nd\nq\n").exit_code == 0
    assert json.loads(empty.read_text())["mynote"] == "keep me"
    stranger = tmp_path / "stranger.json"
    stranger.write_text(json.dumps({"moves": "whatever", "secret": "from another file"}))
    refused = run(["review", str(plain), "--samples", "8", "--annotate", str(stranger)])
    assert refused.exit_code == 1 and "holds something other than the annotated record" in refused.output
    assert json.loads(stranger.read_text()) == {"moves": "whatever", "secret": "from another file"}


def test_a_field_nested_too_deep_for_an_export_stays_in_the_file_and_leaves_the_history_copy(run, tmp_path):
    """A field 63 levels deep (the record 64, the most the tutor reads) cannot go into an export line, which
    holds the record one level down: it was once left out of the game file at the next save (the player's own
    notes lost). The game file keeps every field (the top level's, the deal's, an annotation's); the
    history's copy leaves out only what would nest too deep, with a warning when the record is read, so export
    and import still round-trip; fields nested less deep are kept everywhere."""
    deep: object = "my notes"
    for _ in range(63):
        deep = [deep]
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"format": RECORD_FORMAT, "variant": "osmosis", "deal": {"number": 3, "src": deep[0]},
                                "moves": ["r3", "d"], "deep": deep, "ok": [[1]],
                                "annotations": [{"comment": "c", "mine": deep[0][0]}, None]}))
    record = load_record(path)
    assert record.extra == {"deep": deep, "ok": [[1]]} and record.deal_extra == {"src": deep[0]}
    assert record.warnings == [f"record {str(path)!r}: the record nests 64 levels deep in fields 'deal', 'annotations' "
                               "and 'deep': the game file keeps all of it, and your history's copy leaves out what lies "
                               "deeper than 63 levels (an export of it could not be read back)"]
    result = run(["play", "--resume", str(path), "--plain"], input="d\nq\n")
    assert result.exit_code == 0 and "the record nests 64 levels deep in fields 'deal', 'annotations' and 'deep'" in \
        " ".join(result.output.split())
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"format": RECORD_FORMAT, "variant": "osmosis", "deal": {"number": 3}, "moves": [],
                               "deep": deep, "shallower": deep[0]}))
    assert load_record(one).warnings[0].startswith(f"record {str(one)!r}: the record nests 64 levels deep in field "
                                                   "'deep': ")
    data = json.loads(path.read_text())
    assert data["moves"] == ["r3", "d", "d"] and data["deep"] == deep and data["ok"] == [[1]]
    assert data["deal"]["src"] == deep[0] and data["annotations"][0]["mine"] == deep[0][0]
    with open_history() as history:
        kept = history.games()[0].record
    assert "deep" not in kept and "src" not in kept["deal"] and kept["annotations"][0] == {"comment": "c"}
    assert kept["ok"] == [[1]] and kept["moves"] == ["r3", "d", "d"]
    export = tmp_path / "ex.jsonl"
    assert run(["export", str(export)]).exit_code == 0
    other = {**os.environ, "OSMOSIS_HOME": str(tmp_path / "other-home")}
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", "from tutor.entry import run; run()", "import", str(export)],
                          env=other, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("Imported 1 game"), done.stdout + done.stderr
