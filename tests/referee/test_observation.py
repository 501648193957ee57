"""Observation parsing: every key checked, errors name the key at fault."""

from __future__ import annotations

import json

import pytest

from rules.observation import (
    EVENT_KEYS,
    ObservationError,
    ObservationReader,
    corrected_event,
    draw_event,
    move_event,
    parse_observation,
    unclear_event,
    violation_event,
    win_event,
)
from tests.referee.fakegame import games, obs


def parse(data):
    text = data if isinstance(data, str | bytes) else json.dumps(data)
    return parse_observation(text, games)


def key_of(data) -> str:
    with pytest.raises(ObservationError) as err:
        parse(data)
    return err.value.key


def test_a_valid_line_parses_to_its_parts():
    o = parse(obs(3, "A.B..", player_names=["Ann", "Bob"], options={"colour": "fancy"}))
    assert (o.table, o.game_id, o.seq, o.stable, o.confidence) == ("t1", "line", 3, True, 1.0)
    assert o.position.cells == ("A", ".", "B", ".", ".")
    assert o.player_names == ("Ann", "Bob")
    assert o.options == {"colour": "fancy"}
    assert "position" not in o.extra and o.extra["seq"] == 3


def test_extra_keys_are_ignored():
    assert parse({**obs(1, "....."), "camera": {"id": 7}}).seq == 1


def test_unread_scenes_are_counted():
    assert parse(obs(1, ".....")).unread == 0
    assert parse({**obs(1, "....."), "unread": 2}).unread == 2


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"schema": "tableref/observation/2"}, "schema"),
        ({"table": 5}, "table"),
        ({"game": "chess"}, "game"),
        ({"game": None}, "game"),
        ({"seq": 1.5}, "seq"),
        ({"seq": True}, "seq"),
        ({"seq": "3"}, "seq"),
        ({"time": "now"}, "time"),
        ({"stable": 1}, "stable"),
        ({"confidence": 1.2}, "confidence"),
        ({"confidence": -0.1}, "confidence"),
        ({"player_names": "Ann"}, "player_names"),
        ({"player_names": ["Ann", 3]}, "player_names.1"),
        ({"options": []}, "options"),
        ({"options": {"speed": 1}}, "options"),
        ({"options": {"colour": "pink"}}, "options.colour"),
        ({"position": {"cells": [".", ".", "X", ".", "."]}}, "position.cells.2"),
        ({"position": [1]}, "position.cells"),
        ({"unread": -1}, "unread"),
        ({"unread": 1.5}, "unread"),
        ({"unread": True}, "unread"),
    ],
)
def test_each_bad_value_names_its_key(change, key):
    assert key_of({**obs(1, "....."), **change}) == key


@pytest.mark.parametrize(
    "key", ["schema", "table", "game", "seq", "time", "stable", "confidence", "position"]
)
def test_a_missing_key_is_named(key):
    data = obs(1, ".....")
    del data[key]
    with pytest.raises(ObservationError) as err:
        parse(data)
    assert err.value.key == key
    assert "missing" in str(err.value)


@pytest.mark.parametrize(
    "text", ['{"schema": ', "[1, 2]", "17", "", "null", '{"a": NaN}', b"\xff\xfe{}"]
)
def test_bad_json_is_reported_as_such(text):
    with pytest.raises(ObservationError) as err:
        parse(text)
    assert err.value.key == ""
    assert err.value.message


def test_nan_time_is_not_a_number():
    text = json.dumps(obs(1, ".....")).replace('"time": 1763805601.0', '"time": NaN')
    assert "NaN" in text
    with pytest.raises(ObservationError, match="JSON"):
        parse(text)


def test_seq_must_strictly_increase_per_table():
    reader = ObservationReader(games)
    reader.parse(json.dumps(obs(5, ".....")))
    reader.parse(json.dumps(obs(2, ".....", table="t2")))  # another table counts apart
    for seq in (5, 4):
        with pytest.raises(ObservationError) as err:
            reader.parse(json.dumps(obs(seq, ".....")))
        assert err.value.key == "seq"
    assert reader.parse(json.dumps(obs(6, "....."))).seq == 6


def test_a_malformed_line_does_not_advance_seq():
    reader = ObservationReader(games)
    reader.parse(json.dumps(obs(1, ".....")))
    with pytest.raises(ObservationError):
        reader.parse(json.dumps({**obs(9, "....."), "stable": "yes"}))
    assert reader.parse(json.dumps(obs(2, "....."))).seq == 2


def test_uncertain_elements_are_parsed_and_paths_checked():
    o = parse(obs(1, "A.B..", uncertain=[
        {"path": "cells.2", "confidence": 0.6, "alternatives": [["A", 0.3], [".", 0.1]]}]))
    assert o.uncertain[0].path == ("cells", 2)
    assert o.least_confidence == 0.6
    readings = [(p, r.cells) for p, r in o.readings()]
    assert readings == [(0.6, ("A", ".", "B", ".", ".")), (0.3, ("A", ".", "A", ".", ".")),
                        (0.1, ("A", ".", ".", ".", "."))]
    for bad, key in [
        ([{"path": "cells.7", "confidence": 0.5}], "uncertain.0.path"),
        ([{"path": "cells.1"}], "uncertain.0.confidence"),
        ([{"path": "cells.1", "confidence": 2}], "uncertain.0.confidence"),
        ([{"path": "cells.1", "confidence": 0.5, "alternatives": [["A"]]}],
         "uncertain.0.alternatives.0"),
        ({"path": "cells.1"}, "uncertain"),
    ]:
        assert key_of(obs(1, "A.B..", uncertain=bad)) == key


def test_alternatives_that_make_no_position_are_skipped():
    o = parse(obs(1, "A....", uncertain=[
        {"path": "cells.0", "confidence": 0.5, "alternatives": [["Z", 0.4], ["B", 0.1]]}]))
    assert [r.cells[0] for _, r in o.readings()] == ["A", "B"]


def test_event_constructors_have_exactly_the_spec_keys():
    events = [
        move_event("t1", 3, 1, 0, "@2"),
        violation_event("t1", 4, 1, "cell-taken", "That cell is taken."),
        corrected_event("t1", 5),
        win_event("t1", 6, [0], "two-in-a-row"),
        draw_event("t1", 7, "board-full"),
        unclear_event("t1", 8, "low confidence"),
    ]
    for e in events:
        assert list(e) == ["event", "table", *EVENT_KEYS[e["event"]]]
        assert e["table"] == "t1"
    assert [e["event"] for e in events] == [
        "move", "violation", "corrected", "win", "draw", "unclear"]


CUBE = {"player": 0, "faces": {d: None for d in ("up", "down", "north", "south", "east", "west")}}


def one_cube_observation(uncertain: list) -> dict:
    """A tic-tac-toe observation: player 0's cube on field 0, ``uncertain`` as given."""
    return {"schema": "tableref/observation/1", "table": "t1", "game": "esoloe-tictactoe",
            "seq": 1, "time": 0.0, "stable": True, "confidence": 0.5,
            "position": {"cells": [[CUBE]] + [[] for _ in range(8)]}, "uncertain": uncertain}


def test_nested_alternatives_combine_or_are_skipped_where_the_parent_removed_the_child():
    data = one_cube_observation([
        {"path": "cells.0.0.player", "confidence": 0.5, "alternatives": [[1, 0.5]]},
        {"path": "cells.0", "confidence": 0.6, "alternatives": [[[], 0.4]]}])
    o = parse_observation(json.dumps(data))
    stacks = [(round(p, 2), [c.player for c in r.cells[0]]) for p, r in o.readings()]
    assert stacks == [(0.3, [0]), (0.3, [1]), (0.2, [])]
    data["uncertain"][1]["confidence"] = 0.4  # the stack now less sure than its cube
    data["uncertain"][1]["alternatives"] = [[[], 0.6]]
    o = parse_observation(json.dumps(data))
    stacks = [(round(p, 2), [c.player for c in r.cells[0]]) for p, r in o.readings()]
    assert stacks == [(0.2, [0]), (0.3, []), (0.2, [1])]  # the written reading first


def test_an_alternative_taken_into_one_reading_is_not_changed_for_the_next():
    data = one_cube_observation([
        {"path": "cells.0", "confidence": 0.5, "alternatives": [[[CUBE], 0.5]]},
        {"path": "cells.0.0.player", "confidence": 0.6, "alternatives": [[1, 0.4]]}])
    o = parse_observation(json.dumps(data))
    stacks = [(round(p, 2), [c.player for c in r.cells[0]]) for p, r in o.readings()]
    # the stack's alternative (a cube of player 0) stays player 0 in the reading that
    # takes it alone, after the reading that took it with the inner player alternative
    assert sorted(stacks) == sorted([(0.3, [0]), (0.3, [0]), (0.2, [1]), (0.2, [1])])
    assert o.uncertain[0].alternatives[0][0] == [CUBE]
