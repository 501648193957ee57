"""Property tests of the e-SOLO-e family: random legal games, round trips, symmetry."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Judgement, get_game
from rules.cube import CUBE_SETS, FACES, mirror_east_west, turn_half
from rules.esoloe import Cube, EsoloePosition, Place

GAME_IDS = ("esoloe", "esoloe-tictactoe", "esoloe-3andc")
LIMIT = {"esoloe": 16, "esoloe-tictactoe": 9, "esoloe-3andc": 9}
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def random_game(data, game, options=None):
    """A random legal game: the list of (state before, move) and the final state."""
    state = game.initial_state(options)
    steps = []
    while state.outcome() is None:
        moves = list(state.legal_moves)
        assert moves, state.to_json()
        move = data.draw(st.sampled_from(moves))
        steps.append((state, move))
        state = state.apply(move)
    return steps, state


@SETTINGS
@given(data=st.data(), game_id=st.sampled_from(GAME_IDS),
       cube_set=st.sampled_from(sorted(CUBE_SETS)))
def test_random_games_stay_valid_round_trip_and_end_in_time(data, game_id, cube_set):
    game = get_game(game_id)
    options = {"cube-set": cube_set}
    steps, final = random_game(data, game, options)
    assert len(steps) <= LIMIT[game_id]
    for before, move in steps:
        assert game.parse_move(move.notation()) == move
        after = before.apply(move)
        if before.position.heights[game.grid.index[move.cell]] == 3:
            assert after.outcome() is not None  # a 4th level is offered only to win
        text = json.dumps(after.to_json())
        position = game.position_from_json(json.loads(text), options)
        assert position == after.position and position.to_json() == json.loads(text)
        verdict = game.judge(before, position)
        assert verdict.kind == Judgement.MOVES and verdict.moves == (move,)
        assert hash(verdict.state) == hash(after) and verdict.state == after
    # what the camera shows at the end is a position some legal game reaches
    resumed = game.state_from_position(final.position, options)
    assert resumed.position == final.position
    assert resumed.to_move == final.to_move


def _mirror_cell(game, name: str) -> str:
    grid = game.grid
    i = grid.index[name]
    x, y = i % grid.cols, i // grid.cols
    return grid.names[grid.cell(grid.cols - 1 - x, y)]


def _turn_cell(game, name: str) -> str:
    return game.grid.names[len(game.grid.names) - 1 - game.grid.index[name]]


SWAP_EW = {"east": "west", "west": "east", "north": "north", "south": "south"}
HALF = {"east": "west", "west": "east", "north": "south", "south": "north"}


def _map_position(game, position, cell_map, faces_map):
    cells = [()] * len(position.cells)
    for i, stack in enumerate(position.cells):
        j = game.grid.index[cell_map(game, game.grid.names[i])]
        cells[j] = tuple(Cube(c.player, faces_map(c.faces) if c.faces else None)
                         for c in stack)
    return EsoloePosition(tuple(cells))


@SETTINGS
@given(data=st.data(), game_id=st.sampled_from(GAME_IDS),
       cube_set=st.sampled_from(sorted(CUBE_SETS)), standing=st.booleans())
def test_a_game_mirrored_east_west_is_legal_with_mirrored_views_and_outcome(
        data, game_id, cube_set, standing):
    """Mirrored east-west, each cube turned to match (east and west faces swap, which
    makes it a cube of the mirror-image set), every move stays legal, every view is
    the mirror image and the outcome is the same."""
    game = get_game(game_id)
    options = {"cube-set": cube_set}
    if game_id == "esoloe":
        options["standing-set"] = standing
    steps, final = random_game(data, game, options)
    mirror_options = dict(options, **{"cube-set": CUBE_SETS[cube_set].mirror_name})
    state = game.initial_state(mirror_options)
    for before, move in steps:
        mirrored = Place(move.player, _mirror_cell(game, move.cell), move.up, move.side,
                         move.facing and SWAP_EW[move.facing])
        assert state.why_illegal(mirrored) is None
        state = state.apply(mirrored)
        original = before.apply(move)
        assert state.position == _map_position(game, original.position, _mirror_cell,
                                               mirror_east_west)
        assert state.outcome() == original.outcome()
    views, seen = game.views(final.position), game.views(state.position)
    flip = {"top": "top", "front": "front", "back": "back", "left": "right", "right": "left"}
    for name, grid in views.items():
        assert seen[flip[name]] == tuple(tuple(reversed(row)) for row in grid), name


@SETTINGS
@given(data=st.data(), game_id=st.sampled_from(GAME_IDS))
def test_a_game_turned_half_round_is_the_same_game(data, game_id):
    """The board turned half round with its cubes: the same set, front <-> back."""
    game = get_game(game_id)
    steps, final = random_game(data, game)
    state = game.initial_state()
    for before, move in steps:
        turned = Place(move.player, _turn_cell(game, move.cell), move.up, move.side,
                       move.facing and HALF[move.facing])
        state = state.apply(turned)
        assert state.outcome() == before.apply(move).outcome()
    assert state.position == _map_position(game, final.position, _turn_cell, turn_half)
    views, seen = game.views(final.position), game.views(state.position)
    assert seen["front"] == views["back"] and seen["left"] == views["right"]
    assert seen["top"] == tuple(tuple(reversed(row)) for row in reversed(views["top"]))


def test_faces_order_is_the_spec_order():
    assert FACES == ("up", "down", "north", "south", "east", "west")
