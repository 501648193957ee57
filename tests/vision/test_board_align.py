"""The edge model's alignment (vision.board_align) on exactly drawn boards."""

import cv2
import numpy as np

from tests.vision.test_board import _projected_board, _synthetic
from vision.board import fit_grey, geometry
from vision.board_align import _homographies, _sound, align


def test_homographies_match_opencv():
    src = geometry("esoloe").corners_mm().astype(np.float32)
    quads = np.array([[[400, 300], [800, 320], [790, 500], [390, 480]],
                      [[100, 100], [300, 90], [320, 200], [90, 220]]], np.float64)
    got = _homographies(src, quads)
    for H, q in zip(got, quads, strict=True):
        want = cv2.getPerspectiveTransform(src, q.astype(np.float32))
        assert np.allclose(H, want, atol=1e-6 * np.abs(want).max())


def test_unsound_quads_are_refused():
    aspect = 130 / 60
    good = np.array([[400, 300], [800, 320], [790, 500], [390, 480]], np.float64)
    folded = good[[0, 2, 1, 3]]
    wedge = good.copy()
    wedge[3] = wedge[0] + (1, 2)  # one side shrunk to nothing
    turned = good[[1, 2, 3, 0]]  # the board's long sides running north-south
    assert _sound(np.array([good, folded, wedge, turned]), aspect).tolist() == [
        True, False, False, False]


def test_align_from_a_start_far_off():
    geom = geometry("esoloe")
    corners = _projected_board(geom)
    grey = fit_grey(_synthetic(corners, geom))
    size = np.linalg.norm(corners[1] - corners[0])
    rng = np.random.default_rng(3)
    for _ in range(3):  # each corner up to 6 % of the board's size off
        start = corners + rng.uniform(-0.06, 0.06, (4, 2)) * size
        got, score, _ = align(grey, start, geom, -1.0)
        assert np.linalg.norm(got - corners, axis=1).max() < 1.5
        assert score > 0.8


def test_align_gives_up_under_the_floor():
    geom = geometry("esoloe")
    corners = _projected_board(geom)
    grey = fit_grey(_synthetic(corners, geom))
    far = corners + (300, 0)  # on the plain table
    got, score, first = align(grey, far, geom, -1.0, floor=0.6)
    assert score == 0.0 and first < 0.6 and np.array_equal(got, far)


def test_a_quad_without_a_homography_scores_nothing():
    src = geometry("esoloe").corners_mm().astype(np.float32)
    good = np.array([[400, 300], [800, 320], [790, 500], [390, 480]], np.float64)
    line = np.array([[400, 300], [500, 300], [600, 300], [700, 300]], np.float64)
    got = _homographies(src, np.array([good, line]))
    assert np.isfinite(got[0]).all() and np.isnan(got[1]).any()


def test_lines_across_and_along_a_strip_weigh_alike():
    # Neunfeld: many points along the strip's stitching, few on its separators; each
    # direction gets half of the lines' share, so the separators fix the strip's length
    from vision.board_align import _Maps, _points

    geom = geometry("neunfeld")
    pts, nrm, is_line, outline = _points(geom)
    empty = np.zeros((50, 50), np.float32)
    maps = _Maps([empty] * 5, empty, 0, pts, np.where(outline, 0, 4), is_line,
                 nrm[:, 1] == 0, geom.width / geom.depth)
    weight = np.zeros(len(pts))
    for g, w in zip(maps.groups, maps.weights, strict=True):
        weight[g] = w
    across = is_line & (nrm[:, 1] == 0)
    assert 0 < across.sum() < (is_line & ~across).sum()
    assert np.isclose(weight[across].sum(), 0.25) and np.isclose(weight[is_line].sum(), 0.5)
