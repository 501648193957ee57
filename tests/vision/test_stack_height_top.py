"""Overhead heights from where the top face shows (issue #6): ``parallax_likelihood`` and
the top face's locator ``read_esoloe._top_centre``."""

import cv2
import numpy as np
import pytest

from vision.board import geometry
from vision.measure import truth_fix
from vision.read_esoloe import _Frame, _top_centre
from vision.stack_height import CUBE_MM, TOP_FLOOR, parallax_likelihood

CAMERA = np.array([0.0, 0.0, 450.0])  # straight above the board's centre


def _seen(top, n, camera=CAMERA):
    """Where the top face of n cubes centred at ``top`` shows on the first level's plane."""
    foot, cz = camera[:2], camera[2]
    return foot + (np.asarray(top, float) - foot) * (cz - CUBE_MM) / (cz - n * CUBE_MM)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_the_height_whose_top_would_lie_on_the_field_is_likeliest(n):
    lik = parallax_likelihood(_seen((50.0, 10.0), n), (50.0, 10.0), CAMERA)
    assert int(np.argmax(lik)) + 1 == n
    assert lik.min() >= TOP_FLOOR  # a miss never rules a height out


def test_no_parallax_below_the_camera_decides_nothing():
    lik = parallax_likelihood((0.5, -0.3), (0.0, 0.0), CAMERA)
    assert np.allclose(lik, lik[0])


def test_the_play_of_a_cube_on_its_field_is_not_held_against_it():
    off = parallax_likelihood(_seen((50.9, 10.0), 1), (50.0, 10.0), CAMERA)
    on = parallax_likelihood(_seen((50.0, 10.0), 1), (50.0, 10.0), CAMERA)
    assert off[0] == pytest.approx(on[0])


def test_the_top_face_is_found_where_the_render_shows_it():
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    game, seed = "esoloe", 105  # dev seed: four stacks, overhead (0.5 degrees of tilt)
    geom = geometry(game)
    image, truth = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(camera_mode="any"))
    frame = _Frame(image, truth_fix(truth), geom, None)
    H1 = frame.pose.plane_homography(CUBE_MM)
    errors = []
    for i, (_, u, v, _) in enumerate(geom.cells):
        cubes = [p for p in truth["pieces"] if p["cell"] == i]
        if not cubes:
            continue
        top = max(cubes, key=lambda p: p["level"])
        poly = next(f["polygon"] for f in top["visible_faces"] if f["direction"] == "up")
        want = cv2.perspectiveTransform(np.array(poly, np.float64).reshape(-1, 1, 2),
                                        np.linalg.inv(H1)).reshape(-1, 2).mean(0)
        got = _top_centre(image, frame, u, v, np.radians(top["yaw_deg"]), 4)
        errors.append(float(np.linalg.norm(got - want)))
    assert len(errors) >= 4
    assert np.median(errors) < 0.75  # mm (the field centre: 2.2); a level's parallax here: 1..2 mm
