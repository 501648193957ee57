"""e-SOLO-e TicTacToe and 3andC (3x3): placing, the adjacency rule, wins, the 3andC
board and its file option."""

from __future__ import annotations

import json

import pytest

from rules import Board, InvalidPosition, Judgement, get_game
from rules.core import resolve_options
from rules.esoloe import Cube, EsoloePosition, load_board
from rules.miwin import perft

TTT = get_game("esoloe-tictactoe")
TAC = get_game("esoloe-3andc")


def play(game, moves: str, **options) -> Board:
    board = Board(game, options=options or None)
    for text in moves.split():
        assert board.outcome() is None, f"game over before {text}"
        board.push_notation(text)
    return board


def seen(state, cell: str, cube: Cube) -> EsoloePosition:
    cells = list(state.position.cells)
    i = state.game.grid.index[cell]
    cells[i] = (*cells[i], cube)
    return EsoloePosition(tuple(cells))


# --------------------------------------------------------------------------- TicTacToe


@pytest.mark.parametrize("depth, count", [(1, 108), (2, 9216)])
def test_tictactoe_perft(depth, count):
    assert perft(TTT.initial_state(), depth) == count


@pytest.mark.slow
def test_tictactoe_perft_depth_3():
    assert perft(TTT.initial_state(), 3) == 605_952


def test_cells_are_named_like_a_chess_board_seen_from_the_front():
    board = play(TTT, "0:a3:S/fS")  # a3 = north-west = index 0
    assert board.position.cells[0] and board.position.heights == (1,) + (0,) * 8
    board = play(TTT, "0:c1:S/fS")  # c1 = south-east = index 8
    assert board.position.heights[8] == 1


def test_no_cube_next_to_an_identical_top_symbol():
    state = play(TTT, "0:b2:S/fS").state
    beside = TTT.parse_move("1:a2:S/fE")
    illegal = state.why_illegal(beside)
    assert illegal.rule == "adjacent-same-symbol" and illegal.player == 1
    assert "sakura" in illegal.message
    assert state.why_illegal(TTT.parse_move("1:a2:F/sE")) is None  # another symbol
    assert state.why_illegal(TTT.parse_move("1:a1:S/fE")) is None  # corners touch only
    diagonal = play(TTT, "0:b2:S/fS", adjacency="diagonal").state
    assert diagonal.why_illegal(TTT.parse_move("1:a1:S/fE")).rule == "adjacent-same-symbol"
    # every move offered keeps the rule
    assert all(not m.cell.startswith(("a2", "b1", "b3", "c2")) or m.up != "sakura"
               for m in state.legal_moves)


def test_when_no_cube_can_be_placed_by_the_rule_any_free_field_is_allowed():
    # the four free edge fields each touch a sakura, a geisha and the fuji in the middle
    state = play(TTT, "0:c1:S/fW 1:a3:S/fN 0:c3:G/sE 1:a1:G/sE 0:b2:F/sE").state
    assert not state.compliant_exists
    assert len(state.legal_moves) == 4 * 12
    assert state.why_illegal(TTT.parse_move("1:b3:S/fN")) is None


def test_the_second_player_makes_the_8th_and_9th_placements():
    board = play(TTT, "0:c3:G/sE 1:b2:F/sE 0:b1:S/fW 1:c1:G/sW 0:a3:G/sW 1:a2:S/fW "
                      "0:c2:S/fN")
    assert board.state.turn == 1
    board.push_notation("1:b3:S/fW")
    assert board.state.turn == 1
    # player 0 has used all 4 cubes
    illegal = board.state.why_illegal(TTT.parse_move("0:a1:F/sS"))
    assert illegal.rule == "no-cubes-left" and illegal.player == 0
    verdict = TTT.judge(board.state, seen(board.state, "a1", Cube(0, (
        "fuji", "blank", "blank", "sakura", "blank", "geisha"))))
    assert (verdict.illegal.rule, verdict.illegal.player) == ("no-cubes-left", 0)
    board.push_notation("1:a1:F/sS")
    assert board.outcome().condition == "board-full" and board.outcome().is_draw


TTT_WINS = [
    ("0:a1:F/sS 1:c3:S/fW 0:c1:S/fS 1:b2:F/sN 0:b1:G/sS", "three-colour-line", "top"),
    ("0:b2:S/fE 1:a1:S/fW 0:c3:S/fN", "three-symbol-line", "top"),
    # from the sides: three blanks, the cubes in different rows
    ("0:c3:S/fE 1:b3:F/sW 0:a2:S/fN", "side-view-line", "front"),
    ("0:b1:S/fW 1:c1:F/sE 0:a3:G/sW", "side-view-line", "back"),
    ("0:b2:S/fE 1:a1:F/sE 0:a3:S/fS", "side-view-line", "left"),
    ("0:b1:G/sN 1:b3:F/sW 0:a2:S/fN", "side-view-line", "right"),
]


@pytest.mark.parametrize("moves, condition, view", TTT_WINS)
def test_tictactoe_wins(moves, condition, view):
    board = play(TTT, moves)
    assert board.outcome().condition == condition
    assert board.outcome().winners == (board.move_stack[-1].player,)
    assert {(line.view, line.kind) for line in TTT.lines_made(board.state)} == {
        (view, condition)}
    row = TTT.views(board.position)[view]
    if view != "top":
        faces = [entry[1] for entry in row[0]]
        assert len(set(faces)) == 1


def test_tictactoe_illegal_placements_seen_by_the_referee():
    state = play(TTT, "0:b2:S/fS").state
    on_top = seen(state, "b2", Cube(1, ("fuji", "blank", "blank", "sakura", "blank", "geisha")))
    assert TTT.judge(state, on_top).illegal.rule == "no-stacking"
    blank_up = seen(state, "a1", Cube(1, ("blank", None, None, None, None, None)))
    assert TTT.judge(state, blank_up).illegal.rule == "blank-up"
    beside = seen(state, "a2", Cube(1, ("sakura", None, None, None, None, None)))
    assert TTT.judge(state, beside).illegal.rule == "adjacent-same-symbol"
    fine = seen(state, "a1", Cube(1, ("sakura", None, None, None, None, None)))
    assert TTT.judge(state, fine).kind == Judgement.MOVES
    with pytest.raises(InvalidPosition) as err:
        TTT.state_from_position(on_top)
    assert err.value.key == "cells.4"


# --------------------------------------------------------------------------- 3andC


@pytest.mark.parametrize("depth, count", [(1, 9), (2, 72), (3, 504)])
def test_3andc_perft(depth, count):
    assert perft(TAC.initial_state(), depth) == count


def test_3andc_moves_name_only_the_cell_and_faces_may_be_left_out():
    assert str(TAC.parse_move("1:b2")) == "1:b2"
    board = play(TAC, "0:b2 1:a1")
    assert board.state.to_json()["cells"][4] == [{"player": 0}]
    data = {"cells": [[], [], [], [], [{"player": 0}], [], [{"player": 1}], [], []]}
    assert TAC.position_from_json(data) == board.position
    # faces, where the camera gives them, only need to be possible; the judge ignores them
    faces = dict.fromkeys(("up", "down", "north", "south", "east", "west"), "blank") | {
        "up": "sakura", "south": "fuji", "east": "geisha"}
    with_faces = TAC.position_from_json({"cells": [
        [], [], [], [], [{"player": 0}], [], [{"player": 1, "faces": faces}], [], []]})
    assert TAC.judge(board.state, with_faces).kind == Judgement.SAME
    assert TAC.judge(board.state, seen(board.state, "b2", Cube(0, None))).illegal.rule == (
        "no-stacking")


def test_3andc_line_of_three_colours_wins():
    board = play(TAC, "0:a1 1:a3 0:b1 1:b3 0:c1")
    assert board.outcome().condition == "three-colour-line"
    assert board.outcome().winners == (0,)


#: a full board without a line:  north row 1 0 1 / middle 0 0 1 / south row 1 1 0
FULL = "0:b3 1:a3 0:a2 1:c3 0:b2 1:b1 0:c1 1:c2 1:a1"


def test_3andc_points_then_blue_fields():
    board_data = load_board("default")
    assert sum(board_data.points) == 12 and len(board_data.blue) == 3
    # default board: corners 1, edges 2, centre 0; blue a3, b2, c1
    full = play(TAC, FULL)
    # player 0: b3 2 + a2 2 + b2 0 + c1 1 = 5; player 1: a3 1 + c3 1 + b1 2 + c2 2 + a1 1
    assert full.state.position.counts == (4, 5)
    assert full.outcome().condition == "points" and full.outcome().winners == (1,)


def test_3andc_custom_board_file(tmp_path):
    path = tmp_path / "board.json"
    path.write_text(json.dumps({"points": [[0, 0, 0], [0, 0, 0], [0, 0, 0]],
                                "blue": ["a2", "b2", "c1"]}))
    options = {"board": str(path)}
    board = play(TAC, FULL, **options)
    # no points anywhere; player 0 holds all three blue fields
    assert board.outcome().condition == "blue-fields" and board.outcome().winners == (0,)
    assert dict(board.state.options)["board"] == str(path)


@pytest.mark.parametrize("content, words", [
    ("not json", "not JSON"),
    (json.dumps({"points": [[1, 2], [1, 2]], "blue": []}), "3 rows"),
    (json.dumps({"points": [[1, 2, 1]] * 3, "blue": ["a1", "a1", "b2"]}), "twice"),
    (json.dumps({"points": [[1, 2, 1]] * 3, "blue": ["a1", "d4", "b2"]}), "blue.1"),
    (json.dumps({"points": [[1, -2, 1]] * 3, "blue": ["a1", "c3", "b2"]}), "points.0.1"),
])
def test_3andc_bad_board_files_are_named(tmp_path, content, words):
    path = tmp_path / "board.json"
    path.write_text(content)
    with pytest.raises(InvalidPosition) as err:
        TAC.initial_state({"board": str(path)})
    assert err.value.key == "options.board" and words in err.value.message


def test_3andc_board_option_values():
    with pytest.raises(InvalidPosition) as err:
        TAC.initial_state({"board": "/nowhere/board.json"})
    assert "cannot read" in err.value.message
    with pytest.raises(InvalidPosition) as err:
        resolve_options(TAC.rule_options, {"board": 3})
    assert err.value.key == "options.board"
    assert dict(resolve_options(TAC.rule_options, None))["board"] == "default"


def test_both_3x3_games_end_after_nine_cubes():
    for game in (TTT, TAC):
        state = game.initial_state()
        assert [game.next_player(c) for c in ((0, 0), (3, 3), (4, 3), (4, 4), (4, 5))] == [
            0, 0, 1, 1, None]
        assert state.turn == 0
