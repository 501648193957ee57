"""The edge model's alignment (vision.board_align) on exactly drawn boards."""

import cv2
import numpy as np
import pytest

from tests.vision.test_board import _projected_board, _render, _synthetic
from vision.board import find_board, fit_grey, geometry
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


def test_a_view_projects_as_opencv_does():
    from vision.board_align import _Pose

    geom = geometry("esoloe")
    pose = _Pose(geom, (1280, 720), np.array([100.0, 50.0]), 0.5)
    rvec, tvec, f = np.array([2.9, 0.2, -0.3]), np.array([15.0, -8.0, 520.0]), 1100.0
    got = pose.corners(np.concatenate([rvec, tvec, [np.log(f)]])[None])[0]
    K = np.array([[f, 0, 639.5], [0, f, 359.5], [0, 0, 1]])
    obj = np.column_stack([geom.corners_mm(), np.zeros(4)])
    want = cv2.projectPoints(obj, rvec, tvec, K, None)[0].reshape(4, 2)
    assert np.abs(got - ((want - [100, 50] + 0.5) * 0.5 - 0.5)).max() < 1e-9
    # and the view found through the corners gives them back
    assert np.abs(pose.corners(pose.view(got)[None])[0] - got).max() < 0.05


def test_a_rigid_alignment_then_the_fit_lands_on_the_board():
    # from a start several px off, moved as a view (6 unknowns, the focal length the
    # start's, so a few px off), then freely at the last tolerance; the sub-pixel fit
    # then puts it on the drawn board
    from vision.board import fit_model

    geom = geometry("esoloe")
    corners = _projected_board(geom)
    grey = fit_grey(_synthetic(corners, geom))
    start = corners + np.array([[6, -4], [-5, 5], [4, 6], [-6, -3]])
    got, score, _ = align(grey, start, geom, -1.0, rigid=True)
    assert np.linalg.norm(got - corners, axis=1).max() < 5.0
    assert score > 0.6
    fitted = fit_model(grey, got, geom, wide=0.0)
    assert np.linalg.norm(fitted - corners, axis=1).max() < 0.5


# e-SOLO-e dev renders (seeds 100..299, tuned on): from the true corners the coarse
# levels moved the far side onto the stacks' feet or faces (136, 173: 59 and 63 px),
# where the pooled maps score it higher; at the pixel the true corners score higher, so
# the last level searches from the start as well
# The Cubes card likewise (from_start, which find_board asks for from its chosen start
# since session 10): dev 198 and 117 at about 1 px a mm (its grid's lines under a pixel
# wide) were carried 11.6 and 4.4 px off (found 3.6 and 2.1 px off); the pixel level from
# the start keeps them within 1..2 px (it moves whole px)
@pytest.mark.parametrize("game, seed, sign, px", [("esoloe", 136, -1.0, 4.0),
                                                  ("esoloe", 173, -1.0, 4.0),
                                                  ("cubes", 198, 0.0, 1.0),
                                                  ("cubes", 117, 0.0, 2.0)])
def test_an_alignment_from_the_true_corners_stays_there(game, seed, sign, px):
    image, want = _render(game, seed, "any")
    got, _, _ = align(fit_grey(image), want, geometry(game), sign, from_start=True)
    assert np.linalg.norm(got - want, axis=1).max() < px


# and e-SOLO-e dev 173, where no board was found before, is found (229, found 4.5 px off
# then, is not since session 9: at 1 px a mm with 5.5 px of motion blur 9 % of its lines
# show at the true corners, and that fit stood on the lines' response beside them)
@pytest.mark.parametrize("seed", [173])
def test_tiles_found_where_the_coarse_levels_drifted(seed):
    image, want = _render("esoloe", seed, "any")
    fix = find_board(image, geometry("esoloe"))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).mean() <= 6.0
