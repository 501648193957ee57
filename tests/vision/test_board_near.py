"""vision.board: views of an e-SOLO-e tile built on its near side (``_near_views``), where
stacks hide its far half and its glaze's region ends at their feet."""

import cv2
import numpy as np
import pytest

from tests.vision.test_board import _render, _synthetic
from vision.board import _near_views, _quad_distance, find_board, geometry
from vision.board_align import REACHES
from vision.grid import assumed_camera
from vision.render.camera import look_at

SIZE = (1280, 720)


def _seen(geom, tilt: float, azimuth: float, roll: float) -> np.ndarray:
    """The tile's corners (nw, ne, se, sw) as the assumed camera sees it from 400 mm,
    tilted ``tilt`` degrees from vertical (the renderer's camera)."""
    R, t = look_at((0.0, 0.0, 0.0), tilt, azimuth, 400.0, roll)
    obj = np.column_stack([geom.corners_mm(), np.zeros(4)])
    px, _ = cv2.projectPoints(obj, cv2.Rodrigues(R)[0], t, assumed_camera(SIZE), None)
    return px.reshape(4, 2)


@pytest.mark.parametrize("tilt, azimuth, roll", [(46.0, 0.0, 0.0), (55.0, 20.0, 2.0),
                                                 (35.0, -15.0, -3.0)])
def test_a_tile_whose_far_half_is_hidden_is_rebuilt_from_its_near_side(tilt, azimuth, roll):
    # the far half of the tile painted over (the stacks); the candidate is the near half
    # the glaze's region gives: one of the views built on its near side starts the
    # alignment within its first level's reach of the tile (REACHES[0] of its longer side)
    geom = geometry("esoloe")
    corners = _seen(geom, tilt, azimuth, roll)
    image = _synthetic(corners, geom)
    far = np.array([corners[0], corners[1], (corners[1] + corners[2]) / 2,
                    (corners[0] + corners[3]) / 2])
    cv2.fillConvexPoly(image, np.round(far).astype(np.int32), (40, 60, 50))
    near_half = np.array([far[3], far[2], corners[2], corners[3]])
    views = _near_views(image, [near_half], geom, [])
    longer = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).max()
    best = min(np.linalg.norm(np.roll(v, k, axis=0) - corners, axis=1).max()
               for v in views for k in range(4))
    assert best < REACHES[0] * longer


def test_the_late_near_views_lie_apart_from_each_other_and_from_those_aligned():
    # three candidates on one square tile give near sides that lie together, and its long
    # and short sides are one: the views ranked on them repeat; those added to the late
    # starts lie apart (more than 5 % of their size from any other)
    geom = geometry("esoloe-3andc")
    corners = _seen(geom, 40.0, 10.0, 0.0)
    later: list[np.ndarray] = []
    views = _near_views(_synthetic(corners, geom), [corners, corners + 1.0, corners - 1.0],
                        geom, later)
    assert views and later
    for i, view in enumerate(later):
        size = np.sqrt(cv2.contourArea(view.astype(np.float32)))
        assert all(_quad_distance(view, other) > 0.05 * size for other in views + later[:i])


# dev renders (seeds 100..299, tuned on) missed before session 8: stacks hid the tile's
# far half and no candidate's corners came within 12 % of the board's size of it (209,
# 249: the candidates were the stacks' and the table's; the near side a straight edge).
# Dev renders 807 and 861 (seeds 800..999, tuned on since session 11) missed before
# session 11: steep views of tall stacks over the tile's far half. Ranked on the whole
# board (_prescore) 861's view on its near side came 18th, behind views whose far half
# lay on the stacks' faces (NEAR is 12), 807's 5th (its alignment lost to one on the
# stacks); ranked on the near half alone (_near_half_prescore) both come 1st
# Dev renders missed before session 17, whose right near view came only after others on
# the same near side (the late near views, find_board's last starts where no fit shows
# LATE_BELOW): tic-tac-toe 80 (found on wood planks, 0.08 px), 3andC 1871 (0.24 px)
@pytest.mark.parametrize("game, seed, within_px", [
    ("esoloe", 209, 2.0), ("esoloe", 249, 2.0), ("esoloe", 807, 1.5), ("esoloe", 861, 1.5),
    pytest.param("esoloe-tictactoe", 80, 1.5, marks=pytest.mark.slow),
    pytest.param("esoloe-3andc", 1871, 1.5, marks=pytest.mark.slow),
])
def test_tiles_behind_stacks_found_from_their_near_side(game, seed, within_px):
    image, want = _render(game, seed, "any")
    fix = find_board(image, geometry(game))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).mean() <= within_px


# Neunfeld dev renders (seeds 100..299, tuned on) missed before session 8: strips on a
# gingham cloth (134) and on wood (278), whose rare colours' region (rarity, the frame's
# 4 commonest colours) merged with the cloth's squares or grain; with 8 colours the
# cloth's shades are among them and the strip (with the dice beside it) stands out
@pytest.mark.parametrize("seed", [134, 278])
def test_strips_on_cloths_found_among_eight_colours(seed):
    image, want = _render("neunfeld", seed, "any")
    fix = find_board(image, geometry("neunfeld"))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).mean() <= 2.0
