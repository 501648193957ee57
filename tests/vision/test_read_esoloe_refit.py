"""The board's corners refitted to the tile's painted lines (``read_esoloe._refined``)."""

import numpy as np
import pytest

from vision.board import BoardFix, geometry
from vision.measure import truth_fix
from vision.read_esoloe import _refined
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position


# dev renders: a near tile seen from above and obliquely, and a far one (3andC 111, the
# tile some 100 px wide: its lines too faint to refit, so the corners are left alone)
@pytest.mark.parametrize("game,camera,seed,refit", [("esoloe-tictactoe", "overhead", 105, True),
                                                    ("esoloe", "overhead", 114, True),
                                                    ("esoloe-3andc", "oblique", 105, True),
                                                    ("esoloe-3andc", "oblique", 111, False)])
def test_a_corner_found_off_is_brought_back_and_true_corners_stay(game, camera, seed,
                                                                    refit):
    image, truth = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(camera_mode=camera))
    true = truth_fix(truth)
    geom = geometry(game)
    assert np.abs(_refined(image, true, geom).corners - true.corners).max() < 0.5
    off = true.corners.copy()
    off[2] += (5.0, -4.0)  # the south-east corner found 6.4 px off
    got = _refined(image, BoardFix(off, off), geom).corners
    if refit:
        assert np.linalg.norm(got - true.corners, axis=1).max() < 1.5
    else:
        assert np.array_equal(got, off)


@pytest.mark.parametrize("corners", [[[100, 100], [200, 100], [300, 100], [400, 100]],
                                     [[-5000, -5000], [9000, -5000], [9000, 9000], [-5000, 9000]],
                                     [[500, 300], [700, 300], [700, 400], [500, 400]]])
def test_no_lines_no_refit(corners):
    """A plain picture (no painted lines), degenerate or far-off corners: left as given."""
    image = np.full((720, 1280, 3), 200, np.uint8)
    fix = BoardFix(np.array(corners, float), np.array(corners, float))
    assert np.array_equal(_refined(image, fix, geometry("esoloe")).corners, fix.corners)
