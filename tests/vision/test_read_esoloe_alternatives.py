"""The e-SOLO-e reader's doubts: occupancy and stack heights with their next most likely
readings (the ``uncertain`` extension), so that the referee can pick the legal one."""

import json

import numpy as np
import pytest

from rules.observation import ObservationReader
from rules.referee import Referee
from vision.board import CORNER_NAMES, BoardFix, geometry
from vision.read_esoloe import _stack_readings, read
from vision.render.camera import make_camera
from vision.render.effects import Effects
from vision.render.frame import RenderOptions, photograph
from vision.render.scene import build_scene
from vision.stack_height import PRIOR, _decide

SAKURA = {"up": "sakura", "down": "blank", "north": "fuji", "south": "blank", "east": "blank",
          "west": "geisha"}


def _cube(player: int) -> dict:
    return {"player": player, "faces": dict(SAKURA)}


def test_unseen_levels_give_the_prior_and_seen_ones_decide():
    h = _decide([1.0, None, None, None], [1.0, 0.0, 0.0, 0.0])
    assert h.cubes == 1 and h.probabilities == pytest.approx(PRIOR)
    h = _decide([1.0, 0.95, 0.9, 0.05], [1.0, 1.0, 1.0, 1.0])
    assert h.cubes == 3 and h.confidence > 0.9
    assert sum(h.probabilities) == pytest.approx(1.0)
    flat = h.flattened(0.5)
    assert flat.confidence == pytest.approx(0.5 * h.confidence + 0.5 * PRIOR[2])


def test_a_stack_of_unsure_height_names_lower_and_taller_stacks():
    field = {"occupied": True, "confidence": 0.98, "heights": (0.2, 0.5, 0.25, 0.05)}
    stack = [_cube(0), _cube(1)]
    confidence, alternatives = _stack_readings(field, stack)
    assert confidence == pytest.approx(0.98 * 0.5)
    values = [v for v, _ in alternatives]
    probs = [p for _, p in alternatives]
    assert probs == sorted(probs, reverse=True)
    # one lower: the top cube alone; one taller: an unseen cube of either player under it
    assert [_cube(1)] in values
    taller = [v for v in values if len(v) == 3]
    assert sorted(v[1]["player"] for v in taller) == [0, 1]
    assert all(v[-1] == _cube(1) and v[0] == _cube(0) for v in taller)
    assert all(set(v[1]["faces"].values()) == {None} for v in taller)
    # the empty field (0.02) is named too: with the reading's, the whole belief
    assert [p for v, p in alternatives if v == []] == [pytest.approx(0.02)]
    assert confidence + sum(probs) == pytest.approx(0.98 * 0.95 + 0.02, abs=1e-3)


def test_an_unseen_cube_colour_is_named_as_a_whole_stack():
    """The referee puts a stack in before what lies in it: the other colour of a cube is
    named as the stack with that cube turned, not as an alternative of the cube alone."""
    field = {"occupied": True, "confidence": 0.99, "heights": (0.1, 0.8, 0.08, 0.02)}
    stack = [_cube(0), _cube(1)]
    confidence, alternatives = _stack_readings(field, stack, [0.5, 0.95])
    flipped = [v for v, _ in alternatives if len(v) == 2]
    assert flipped == [[_cube(1), _cube(1)]]
    # as likely as the stack as read: the lower cube's colour was read at 0.5
    assert [p for v, p in alternatives if v == flipped[0]] == [pytest.approx(confidence,
                                                                              abs=1e-4)]


def test_an_unsure_empty_field_names_a_cube_of_the_likely_player():
    field = {"occupied": False, "confidence": 0.7, "player": 1, "player_confidence": 0.8}
    confidence, alternatives = _stack_readings(field, [])
    assert confidence == 0.7
    assert alternatives[0][0][0]["player"] == 1
    assert alternatives[0][1] == pytest.approx(0.3 * 0.8)


def test_a_field_read_empty_in_doubt_names_a_cube_of_either_player_at_its_probability():
    """The demo's illegal change: field b read empty at 0.86; its 0.14 of a cube, whichever
    player's, is listed (under a tenth of the reading each), so no doubt is unaccounted."""
    field = {"occupied": False, "confidence": 0.86, "player": 0, "player_confidence": 0.5}
    confidence, alternatives = _stack_readings(field, [])
    assert confidence == 0.86
    assert sorted(v[0]["player"] for v, _ in alternatives) == [0, 1]
    assert all(len(v) == 1 and set(v[0]["faces"].values()) == {None} for v, _ in alternatives)
    assert confidence + sum(p for _, p in alternatives) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def overhead():
    """A stack of two and single cubes seen from straight above (heights unseen)."""
    position = {"cells": [[_cube(0), _cube(1)], [], [_cube(0)], [], [_cube(1)]]}
    scene = build_scene("esoloe", position, 3, table="cloth")
    cam = make_camera(scene.target, 0.0, 0.0, 450.0)
    image, truth = photograph(scene, cam, Effects.clean(), RenderOptions(distortion=False))
    corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])
    return position, read(image, BoardFix(corners, corners), geometry("esoloe"))


def test_overhead_occupancy_is_sure_and_heights_carry_alternatives(overhead):
    position, reading = overhead
    cells = reading.position["cells"]
    assert [bool(s) for s in cells] == [True, False, True, False, True]
    doubts = {u["path"]: u for u in reading.uncertain}
    for i in (1, 3):  # empty fields read surely: not listed
        assert f"cells.{i}" not in doubts
    stack = doubts["cells.0"]  # the two-stack: its true height is among the alternatives
    assert len(cells[0]) == 2 or any(len(v) == 2 for v, _ in stack["alternatives"])


def test_no_cube_alternative_inside_a_stack_with_alternatives(overhead):
    _, reading = overhead
    stacks = {u["path"] for u in reading.uncertain if u.get("alternatives")
              and u["path"].count(".") == 1}
    for u in reading.uncertain:
        parent = ".".join(u["path"].split(".")[:2])
        if u["path"] != parent and parent in stacks:
            assert not u.get("alternatives"), u


def test_the_referee_takes_the_legal_height(overhead):
    """From the position before (the lower cube of field 0 placed, player 1 to move...) the
    reading whose field 0 holds two cubes is the only legal one: the move is announced."""
    position, reading = overhead
    before = {"cells": [[_cube(0)], [], [_cube(0)], [], [_cube(1)]]}
    reader, referee = ObservationReader(), Referee()
    lines = [{"schema": "tableref/observation/1", "table": "t", "game": "esoloe", "seq": 1,
              "time": 1.0, "stable": True, "confidence": 1.0, "position": {"cells": [[]] * 5}}]
    for k, (cell, cube) in enumerate([(2, _cube(0)), (4, _cube(1)), (0, _cube(0))]):
        cells = [list(s) for s in lines[-1]["position"]["cells"]]
        cells[cell] = cells[cell] + [cube]
        lines.append({**lines[0], "seq": k + 2, "time": k + 2.0, "position": {"cells": cells}})
    assert lines[-1]["position"] == before
    for line in lines:
        referee.feed(reader.parse(json.dumps(line)))
    obs = {**lines[0], "seq": 9, "time": 9.0, "confidence": min(reading.confidences),
           "position": reading.position, "uncertain": reading.uncertain}
    events = referee.feed(reader.parse(json.dumps(obs)))
    assert [e["event"] for e in events] == ["move"]
    assert events[0]["move"].startswith("1:a")
