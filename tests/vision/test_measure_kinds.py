"""vision.measure.error_kinds: an e-SOLO-e reading's errors by kind."""

from vision.measure import error_kinds

FACES = {"up": "sakura", "down": "blank", "north": "fuji", "south": "blank", "east": "geisha",
         "west": "blank"}


def _cube(player: int, **faces) -> dict:
    return {"player": player, "faces": {**FACES, **faces}}


def test_each_kind_counted_where_it_happens():
    want = {"cells": [[_cube(0)], [], [_cube(0), _cube(1)], [_cube(1)], [_cube(0), _cube(1)]]}
    got = {"cells": [[_cube(0, north=None, east=None)],  # faces left null: not wrong
                     [_cube(1)],  # a cube where there is none, listed
                     [_cube(1)],  # a stack read a cube low, sure
                     [_cube(0, up=None)],  # the wrong colour, its up face null
                     [_cube(1), _cube(1, west="fuji")]]}  # a lower colour and a face wrong
    kinds = error_kinds(want, got, [{"path": "cells.1"}])
    assert kinds["fields"] == 5 and kinds["stacks"] == 4
    assert kinds["occupancy wrong"] == kinds["occupancy extra"] == 1
    assert kinds["occupancy flagged"] == 1 and kinds["occupancy missed"] == 0
    assert kinds["height wrong"] == kinds["height sure wrong"] == 1
    assert kinds["top player wrong"] == 1
    assert kinds["up"] == 4 and kinds["up null"] == 1 and kinds["up wrong"] == 0
    assert kinds["lower cubes"] == 1 and kinds["lower player wrong"] == 1
    assert kinds["cubes"] == 4 and kinds["faces"] == 24
    assert kinds["face null"] == 3 and kinds["face wrong"] == 1
    assert kinds["cubes with a wrong face"] == 1 and kinds["cubes resolved"] == 2
