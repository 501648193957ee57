"""Board localisation: exact synthetic quads, and renders measured against their truth."""

import cv2
import numpy as np
import pytest

from vision.board import CORNER_NAMES, find_board, geometry, homography, name_corners
from vision.grid import assumed_camera, board_pose, cell_polygons
from vision.measure import measure


def _synthetic(corners: np.ndarray, geom=None, seed: int = 0) -> np.ndarray:
    """A wood-brown noisy table with a white board quad (and, given ``geom``, its fields'
    dark outlines), drawn 4x larger and averaged down (exact area coverage at the edges;
    pixel centres at integer coordinates)."""
    rng = np.random.default_rng(seed)
    big = np.full((720 * 4, 1280 * 4, 3), (60, 100, 150), np.uint8)
    big_corners = corners * 4 + 1.5
    cv2.fillConvexPoly(big, np.round(big_corners * 16).astype(np.int32),
                       (225, 230, 232), cv2.LINE_8, shift=4)
    if geom is not None:
        H = cv2.getPerspectiveTransform(geom.corners_mm().astype(np.float32),
                                        big_corners.astype(np.float32))
        fields = cell_polygons(H, geom)
        cv2.polylines(big, np.round(fields * 16).astype(np.int32), True, (140, 70, 30), 4,
                      cv2.LINE_8, shift=4)
    img = cv2.resize(big, (1280, 720), interpolation=cv2.INTER_AREA)
    return cv2.add(img, rng.integers(0, 12, img.shape, dtype=np.uint8))


def _projected_board(geom) -> np.ndarray:
    """The board's corners as the assumed camera sees it 450 mm away, tilted 20 degrees."""
    R, _ = cv2.Rodrigues(np.array([np.radians(200.0), 0.05, 0.3]))
    t = np.array([10.0, -5.0, 450.0])
    obj = np.column_stack([geom.corners_mm(), np.zeros(4)])
    px, _ = cv2.projectPoints(obj, cv2.Rodrigues(R)[0], t, assumed_camera((1280, 720)), None)
    return px.reshape(4, 2)


def test_synthetic_board_corners_subpixel():
    geom = geometry("esoloe")
    corners = _projected_board(geom)
    fix = find_board(_synthetic(corners, geom), geom)
    assert fix is not None
    err = np.linalg.norm(fix.corners - corners, axis=1)
    assert err.max() < 0.5, err


def test_a_plain_rectangle_is_not_the_board():
    # the board's size and shape, but no fields painted on it
    geom = geometry("esoloe")
    assert find_board(_synthetic(_projected_board(geom)), geom) is None


def test_no_board_in_a_plain_table():
    rng = np.random.default_rng(1)
    img = np.full((720, 1280, 3), (60, 100, 150), np.uint8)
    img = cv2.add(img, rng.integers(0, 20, img.shape, dtype=np.uint8))
    assert find_board(img, geometry("esoloe")) is None


def test_corners_are_named_by_aspect_and_the_camera_side():
    # a 1x5 board seen from the south, corners given in a scrambled order
    nw, ne, se, sw = (400, 300), (800, 320), (790, 500), (390, 480)
    quad = np.array([se, nw, sw, ne], np.float64)
    named = name_corners(quad, geometry("esoloe"))
    assert named.tolist() == [list(nw), list(ne), list(se), list(sw)]
    # a square board: the side nearest the image bottom is south
    quad = np.array([(600, 100), (700, 110), (690, 210), (590, 200)], np.float64)
    named = name_corners(quad, geometry("esoloe-tictactoe"))
    assert named.tolist() == [[600, 100], [700, 110], [690, 210], [590, 200]]


def test_pose_homography_matches_the_corner_homography():
    geom = geometry("esoloe")
    fix = find_board(_synthetic(_projected_board(geom), geom), geom)
    H = homography(fix, geom)
    H0 = board_pose(fix, geom, (1280, 720)).plane_homography(0.0)
    assert np.abs(cell_polygons(H, geom) - cell_polygons(H0, geom)).max() < 0.5


@pytest.mark.parametrize("game, floor_found, ceiling_median", [
    # measured on seeds 100..109 (python -m vision.measure --n 10 --camera overhead):
    # esoloe 8/10 found, median 0.36 px; esoloe-tictactoe 6/10 (9/10 located, the rest
    # named a quarter turn off), median 0.32 px
    ("esoloe", 0.8, 0.6),
    ("esoloe-tictactoe", 0.6, 0.6),
])
def test_renders_overhead(game, floor_found, ceiling_median):
    tally = measure(game, "overhead", 10)
    assert tally.found_rate >= floor_found, tally.line()
    assert float(np.median(tally.errors)) < ceiling_median, tally.line()


def test_cells_project_onto_the_rendered_fields():
    from vision.render.frame import RenderOptions, render_scene

    game = "esoloe-tictactoe"
    geom = geometry(game)
    image, truth = render_scene(game, {"cells": [[]] * 9}, 101,
                                options=RenderOptions(camera_mode="overhead"))
    fix = find_board(image, geom)
    want = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])
    assert np.linalg.norm(fix.corners - want, axis=1).max() < 3
    got = cell_polygons(homography(fix, geom), geom)
    cells = np.array([c["polygon"] for c in truth["cells"]])
    assert np.abs(got - cells).max() < 4
