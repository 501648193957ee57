"""e-SOLO-e placement violations seen through the referee, each put back.

The other violation kinds are in the game files of tests/referee/games; these are the
ones about where a cube may go: a fourth level without a win, stacking on the 3x3
board, and TicTacToe's rule against a cube next to an identical symbol.
"""

from __future__ import annotations

import copy

from rules import Board, get_game
from rules.observation import ObservationReader
from rules.referee import Referee


def _observations(game_id: str, positions: list[dict]) -> list[dict]:
    return [
        {"schema": "tableref/observation/1", "table": "t", "game": game_id, "seq": i + 1,
         "time": 1763805600.0 + i, "stable": True, "confidence": 1.0, "position": p}
        for i, p in enumerate(positions)
    ]


def _judge(game_id: str, moves: list[str], wrong: dict) -> list[tuple]:
    """Events for: the start, each move, the wrong position, the last legal one again."""
    board = Board(get_game(game_id))
    positions = [board.state.to_json()]
    for text in moves:
        board.push_notation(text)
        positions.append(board.state.to_json())
    positions += [wrong, positions[-1]]
    referee, reader = Referee(), ObservationReader()
    events = [e for o in _observations(game_id, positions)
              for e in referee.feed(reader.parse(o))]
    return [(e["event"], e.get("player"), e.get("rule")) for e in events]


def _with_cube(position: dict, cell: int, cube: dict) -> dict:
    wrong = copy.deepcopy(position)
    wrong["cells"][cell].append(cube)
    return wrong


def test_a_fourth_level_without_a_win_is_announced_and_corrected():
    moves = ["0:a:S/fS", "1:a:F/sS", "0:a:G/sS"]
    board = Board(get_game("esoloe"))
    for m in moves:
        board.push_notation(m)
    top = board.state.to_json()["cells"][0][1]  # green's fuji-up cube, turned as it lies
    wrong = _with_cube(board.state.to_json(), 0, {"player": 1, "faces": top["faces"]})
    events = _judge("esoloe", moves, wrong)
    assert events[-2:] == [("violation", 1, "fourth-level"), ("corrected", None, None)]
    assert [e[0] for e in events[:-2]] == ["move"] * 3


def test_stacking_on_the_3x3_board_is_announced_and_corrected():
    moves = ["0:a3:S/fS"]
    board = Board(get_game("esoloe-tictactoe"))
    board.push_notation(moves[0])
    cube = board.state.to_json()["cells"][0][0]
    wrong = _with_cube(board.state.to_json(), 0, {"player": 1, "faces": cube["faces"]})
    assert _judge("esoloe-tictactoe", moves, wrong)[-2:] == [
        ("violation", 1, "no-stacking"), ("corrected", None, None)]


def test_tictactoe_cube_beside_an_identical_symbol_is_announced_and_corrected():
    moves = ["0:a3:S/fS"]
    board = Board(get_game("esoloe-tictactoe"))
    board.push_notation(moves[0])
    sakura_up = board.state.to_json()["cells"][0][0]["faces"]
    wrong = _with_cube(board.state.to_json(), 1, {"player": 1, "faces": sakura_up})
    assert _judge("esoloe-tictactoe", moves, wrong)[-2:] == [
        ("violation", 1, "adjacent-same-symbol"), ("corrected", None, None)]
