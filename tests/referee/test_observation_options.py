"""Rule options that decide what can lie on the table (e-SOLO-e's cube set)."""

from __future__ import annotations

import pytest

from rules import Board, get_game
from rules.observation import ObservationError, ObservationReader
from rules.referee import Referee


def _line(seq: int, position: dict, **extra) -> dict:
    return {"schema": "tableref/observation/1", "table": "t", "game": "esoloe", "seq": seq,
            "time": float(seq), "stable": True, "confidence": 1.0, "position": position,
            **extra}


def _strip_game_positions() -> list[dict]:
    board = Board(get_game("esoloe"), get_game("esoloe").initial_state({"cube-set": "strip"}))
    positions = [board.state.to_json()]
    for move in list(board.legal_moves)[:1]:
        board.push(move)
        positions.append(board.state.to_json())
    return positions


def test_options_given_once_hold_for_the_rest_of_the_table_stream():
    start, after = _strip_game_positions()
    reader, referee = ObservationReader(), Referee()
    events = referee.feed(reader.parse(_line(1, start, options={"cube-set": "strip"})))
    events += referee.feed(reader.parse(_line(2, after)))
    assert [e["event"] for e in events] == ["move"]


def test_a_strip_cube_is_impossible_under_the_default_set():
    _, after = _strip_game_positions()
    with pytest.raises(ObservationError) as err:
        ObservationReader().parse(_line(1, after))
    assert err.value.key.startswith("position.cells.")
