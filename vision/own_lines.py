"""The board's own printed lines sought where a fix puts them, in a view rectified on the
board: the pieces the readers' refits share (``read_neunfeld.refine``, ``read_tyr.refine``,
``read_cubes.refine``), and the fix moved by a refit."""

from __future__ import annotations

import cv2
import numpy as np

from vision.board import BoardFix, Geometry, homography


def light_ridges(profiles: np.ndarray, at: np.ndarray, side: int,
                 steps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The strongest light ridge near each line on each profile: ``profiles`` (P, L) grey
    across the lines; ``at`` (P, K), or broadcast so, the pixel where the fix puts each
    of K lines on its profile; each line sought ``steps`` (px, ascending, either way of
    it), its rise there over the mean of the profile ``side`` px either side; the
    strongest of the steps but their two ends, sub-pixel by the parabola through it and
    its two neighbours. (offset px off ``at``, rise, at the end) each (P, K); at the end:
    the strongest of all the steps is one of the two ends (the line may lie beyond
    them: ``read_tyr._lines`` drops such a piece, ``read_neunfeld._leather_lines`` drops
    those whose offset lies at the end)."""
    n = np.arange(len(profiles))[:, None, None]
    i = np.asarray(at)[..., None] + steps
    r = profiles[n, i] - 0.5 * (profiles[n, i - side] + profiles[n, i + side])
    j = np.argmax(r[..., 1:-1], axis=-1)[..., None] + 1
    d0, d1, d2 = (np.take_along_axis(r, j + k, axis=-1)[..., 0] for k in (-1, 0, 1))
    sub = np.clip(0.5 * (d0 - d2) / np.minimum(d0 - 2 * d1 + d2, -1e-6), -0.5, 0.5)
    end = np.isin(np.argmax(r, axis=-1), (0, len(steps) - 1))
    return steps[j[..., 0]] + sub, d1, end


def shifted(fix: BoardFix, geom: Geometry, shift: np.ndarray) -> BoardFix:
    """``fix`` with its corners where it puts the board's corners moved by ``shift`` (mm
    on the board, (4, 2): a refit's move)."""
    corners = cv2.perspectiveTransform((geom.corners_mm() + shift).reshape(-1, 1, 2),
                                       homography(fix, geom)).reshape(4, 2)
    return BoardFix(corners, fix.coarse)
