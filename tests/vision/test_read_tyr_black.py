"""vision.read_tyr: a black die found on its own side faces is read where its top is
(dev seeds only)."""

import numpy as np
import pytest

import vision.read_tyr as read_tyr
from vision.board import geometry
from vision.measure import truth_fix
from vision.read_miwin import Die
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position


def test_only_a_black_die_seen_at_a_slant_is_set_back_away_from_the_camera():
    camera = np.array([0.0, -400.0, 400.0])  # 45 degrees south of the board's middle
    back = read_tyr._set_back(Die("black", 10.0, 0.0, 1.0), camera)
    assert (back.u, back.v) == pytest.approx(
        (10.0, 0.0) + read_tyr.BACK_MM * np.array([10.0, 400.0]) / np.hypot(10.0, 400.0))
    assert read_tyr._set_back(Die("blue", 10.0, 0.0, 1.0), camera) is None
    assert read_tyr._set_back(None, camera) is None
    overhead = np.array([0.0, -50.0, 500.0])
    assert read_tyr._set_back(Die("black", 10.0, 0.0, 1.0), overhead) is None


def test_a_black_die_found_on_its_side_faces_is_read_on_its_field():
    # dev seed 183 (camera 51 degrees from vertical): the black die was found 13 mm
    # towards the camera, on the field before its own, its top read 6 (truly 8)
    seed = 183
    image, truth = render_scene("tyr", random_position("tyr", seed), seed,
                                options=RenderOptions(camera_mode="any"))
    reading = read_tyr.read(image, truth_fix(truth), geometry("tyr"), None)
    assert reading.position["dice"]["black"] == truth["position"]["dice"]["black"]
