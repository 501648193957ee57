"""vision.grid: the board's pose from its corners."""

from __future__ import annotations

import numpy as np
import pytest

from vision.board import BoardFix, geometry
from vision.grid import assumed_camera, board_pose

SIZE = (1280, 720)


def _seen_face_on(game: str, height_mm: float) -> np.ndarray:
    """The board's corners in the image of the assumed camera straight above its centre,
    the image's x along the board's east and y along its south."""
    K = assumed_camera(SIZE)
    mm = geometry(game).corners_mm()
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
