"""Every ``uncertain`` path vision writes names an element of the position written, so
the referee's parser (``rules.observation``) takes the observation."""

import pytest

from rules.observation import parse_observation
from vision.observe import most_likely_valid, observe
from vision.read_esoloe import DIRECTIONS
from vision.reading import Reading
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position


def _cube(player: int, up: str | None = None) -> dict:
    return {"player": player, "faces": {**dict.fromkeys(DIRECTIONS), "up": up}}


def _observation(game: str, reading: Reading) -> dict:
    return {"schema": "tableref/observation/1", "table": "t1", "game": game, "seq": 1,
            "time": 0.0, "stable": True, "confidence": min(reading.confidences),
            "position": reading.position, "uncertain": reading.uncertain}


def test_a_stack_repaired_lower_takes_its_cubes_entries_with_it():
    """Seen in the demo (esoloe seed 11 overhead, seq 14): a stack read four high, each
    unseen cube's player listed, is repaired to the one cube its alternatives name; the
    entries of the levels gone named nothing and the referee refused the line."""
    tall = [_cube(1), _cube(0), _cube(0), _cube(0, "sakura")]  # a 9th and 10th cube of 0
    reading = Reading({"cells": [[_cube(1, "geisha")], [_cube(0, "sakura")],
                                 [_cube(0), _cube(0), _cube(1, "fuji")],
                                 [_cube(0), _cube(0), _cube(0), _cube(0, "geisha")], tall]})
    reading.add(0.46, "cells.4", 0.9, [[[_cube(0, "sakura")], 0.25], [[], 0.04]])
    for level in range(3):
        reading.add(0.5, f"cells.4.{level}.player")
    reading.add(0.6, "cells.4.3.faces.up")
    most_likely_valid("esoloe", reading)
    assert reading.position["cells"][4] == [_cube(0, "sakura")]
    assert [u["path"] for u in reading.uncertain] == ["cells.4"]
    assert reading.uncertain[0]["alternatives"] == [[[], 0.04], [tall, 0.46]]
    # the levels' doubts went with them: the stack's is the reading's least confidence
    assert min(reading.confidences) == 0.25
    parse_observation(_observation("esoloe", reading))


def test_entries_of_an_element_kept_stay():
    reading = Reading({"cells": [[_cube(0, "fuji"), _cube(1)], [], [], [], []]})
    reading.add(0.7, "cells.0.1.player", 0.9, [[0, 0.3]])
    reading.add(0.5, "cells.0.0.faces.up")
    reading.forget_under("cells.0.1")
    assert [u["path"] for u in reading.uncertain] == ["cells.0.0.faces.up"]
    assert reading.confidences == [0.5]


# esoloe seed 105: a stack repaired lower left cells.3.1.player, refused before 32d7fc1
@pytest.mark.parametrize(("game", "seeds"), [("esoloe", (100, 101, 105)),
                                             ("esoloe-tictactoe", (100, 101, 102))])
def test_overhead_observations_of_dev_renders_parse(game, seeds):
    for seed in seeds:
        image, _ = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(camera_mode="overhead"))
        obs = observe(image, game, seq=1, time=0.0)
        parse_observation(obs)
