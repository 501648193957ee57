"""vision.read_neunfeld.refine: corners a few px off moved onto the leather's own lines
(its field separators and stitching) before the board is read (dev renders, camera any)."""

import numpy as np
import pytest

from vision.board import BoardFix, geometry


def _render(seed: int):
    from vision.measure import truth_fix
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    position = random_position("neunfeld", seed)
    image, truth = render_scene("neunfeld", position, seed,
                                options=RenderOptions(camera_mode="any"))
    return image, truth_fix(truth).corners, position


def _jittered(corners: np.ndarray, seed: int) -> np.ndarray:
    # each corner's coordinates off by N(0, 2.1 px): about 3 px a corner
    return corners + np.random.default_rng(seed).normal(0, 3 / np.sqrt(2), (4, 2))


@pytest.mark.parametrize("seed", [238, 260])
def test_corners_a_few_px_off_are_moved_onto_the_board_and_read_right(seed):
    import cv2

    from vision.measure import elements
    from vision.read_neunfeld import read, refine

    image, true, position = _render(seed)
    off = _jittered(true, seed)
    assert np.linalg.norm(off - true, axis=1).max() > 4.5
    geom = geometry("neunfeld")
    moved = refine(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), BoardFix(off, off), geom)
    assert np.linalg.norm(moved.corners - true, axis=1).max() < 1.5
    # unrefined, 238's A pawn was read on field 7 for 1; 260's (at its start) on 5, and the
    # opening roll's dice before A
    assert elements("neunfeld", read(image, BoardFix(off, off), geom).position) == elements(
        "neunfeld", position)


def test_corners_on_the_lines_are_kept():
    import cv2

    from vision.read_neunfeld import refine

    image, true, _ = _render(100)
    fix = refine(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), BoardFix(true, true),
                 geometry("neunfeld"))
    assert np.array_equal(fix.corners, true)


@pytest.mark.parametrize("seed, north, south", [(331, -4.8, 0.0), (236, 2.8, -1.6)])
def test_corners_too_wide_or_narrow_across_the_strip_are_moved_onto_its_stitching(
        seed, north, south):
    """Found corners a strip too narrow (dev 331: its north side 4.8 mm south) or too wide
    (236: 2.8 mm north and 1.6 mm south of it), the stitching beyond the first reach on a
    side: sought wider, the corners moved onto it within 1 px."""
    import cv2

    from vision.board import homography
    from vision.read_neunfeld import REFINE_REACH_MM, refine

    image, true, _ = _render(seed)
    geom = geometry("neunfeld")
    mm = geom.corners_mm() + [[0, north], [0, north], [0, south], [0, south]]  # nw ne se sw
    off = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), homography(BoardFix(true, true),
                                                                    geom)).reshape(4, 2)
    assert max(abs(north), abs(south)) > REFINE_REACH_MM
    moved = refine(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), BoardFix(off, off), geom)
    assert np.linalg.norm(moved.corners - true, axis=1).max() < 1.0
