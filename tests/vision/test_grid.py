"""vision.grid: the board's pose from its corners."""

from __future__ import annotations

import numpy as np
import pytest

from vision.board import BoardFix, geometry
from vision.grid import assumed_camera, board_pose

SIZE = (1280, 720)


def _seen_face_on(game: str, height_mm: float, off_mm: tuple = (0.0, 0.0)) -> np.ndarray:
    """The board's corners in the image of the assumed camera looking straight down, the
    board's centre ``off_mm`` (east, north) from the point under the camera, the image's
    x along the board's east and y along its south."""
    K = assumed_camera(SIZE)
    mm = geometry(game).corners_mm() + np.asarray(off_mm)
    pts = np.column_stack([mm[:, 0], -mm[:, 1], np.full(4, height_mm)])
    px = (K @ pts.T).T
    return px[:, :2] / px[:, 2:]


@pytest.mark.parametrize("game", ["esoloe", "esoloe-tictactoe", "cubes"])
def test_a_board_seen_exactly_face_on_has_a_finite_pose(game):
    corners = _seen_face_on(game, 540.0)
    pose = board_pose(BoardFix(corners, corners), geometry(game), SIZE)
    assert np.isfinite(pose.R).all() and np.isfinite(pose.t).all()
    camera = -pose.R.T @ pose.t  # the camera's centre in the board's frame
    assert camera == pytest.approx([0.0, 0.0, 540.0], abs=0.5)


@pytest.mark.parametrize("game", ["esoloe", "esoloe-tictactoe", "neunfeld", "cubes"])
@pytest.mark.parametrize("off_mm", [(-150.0, -80.0), (200.0, 100.0)])
def test_a_board_face_on_away_from_the_image_centre_gets_the_exact_pose(game, off_mm):
    # IPPE alone put such a board's corners 2..3 px (3x3, 1x5), 40..50 px (10x10) off
    corners = _seen_face_on(game, 600.0, off_mm)
    pose = board_pose(BoardFix(corners, corners), geometry(game), SIZE)
    mm = geometry(game).corners_mm()
    seen = pose.plane_homography(0.0) @ np.column_stack([mm, np.ones(4)]).T
    assert np.abs((seen[:2] / seen[2]).T - corners).max() < 0.01
    camera = -pose.R.T @ pose.t
    assert camera == pytest.approx([-off_mm[0], -off_mm[1], 600.0], abs=0.5)
