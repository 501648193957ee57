"""vision.board: which fit is taken for the board (``_shown``: a rigid view of it shows
more than a quad off one) and which views through three corners are aligned
(``_rebuilt``)."""

import cv2
import numpy as np
import pytest

from tests.vision.test_board import _projected_board, _render, _synthetic
from vision.board import (
    FOUND_MISFIT,
    MIN_SUPPORT,
    RIGID_WEIGHT,
    VIEW_MISFIT,
    _misfit,
    _sharp_shown,
    _shown,
    find_board,
    fit_grey,
    geometry,
    pattern_check,
    plausible_view,
)

SIZE = (1280, 720)


def _off_rigid(corners: np.ndarray, share: float) -> np.ndarray:
    """``corners`` with the north-west one moved out from the centre by ``share`` of the
    board's image size: no rigid view of the board."""
    size = np.sqrt(abs(cv2.contourArea(corners.astype(np.float32))))
    out = corners.copy()
    out[0] += share * size * (corners[0] - corners.mean(axis=0)) / np.linalg.norm(
        corners[0] - corners.mean(axis=0))
    return out


def test_misfit_is_the_view_checks_bar():
    geom = geometry("esoloe-tictactoe")
    rigid = _projected_board(geom)
    assert _misfit(rigid, geom, SIZE) < 0.002
    off = _off_rigid(rigid, 0.1)
    assert 0.4 * VIEW_MISFIT < _misfit(off, geom, SIZE) < VIEW_MISFIT
    assert plausible_view(off, geom, SIZE)
    far_off = _off_rigid(rigid, 0.2)
    assert _misfit(far_off, geom, SIZE) > VIEW_MISFIT and not plausible_view(far_off, geom,
                                                                               SIZE)


def test_a_quad_off_a_rigid_view_shows_less_than_the_board():
    # the board's pattern painted twice, once as a camera sees it and once with a corner
    # carried off (as a fit on the feet of stacks that hide the far edge may be): both
    # show their whole pattern; the second is no view of the board and shows less
    geom = geometry("esoloe-tictactoe")
    rigid = _projected_board(geom)
    off = _off_rigid(rigid, 0.1)
    on_rigid = _shown(fit_grey(_synthetic(rigid, geom)), rigid, geom, SIZE, stop=True)
    on_off = _shown(fit_grey(_synthetic(off, geom)), off, geom, SIZE, stop=True)
    assert min(on_rigid) > 0.9  # the pattern shows in full, in a rigid view
    weight = 1 - RIGID_WEIGHT * _misfit(off, geom, SIZE) / VIEW_MISFIT
    assert weight < 0.8
    # the choice and the search's end: the whole pattern, taken down by the misfit
    assert on_off[0] == pytest.approx(on_rigid[0] * weight, abs=0.05)
    assert on_off[1] == pytest.approx(on_rigid[1] * weight, abs=0.05)


# dev renders (seeds 100..199, tuned on) missed before issue #6's session 7: the
# prescore ranked views through three corners of a candidate on the stacks' printed
# faces first (118, 198: _rebuilt's REBUILT_LARGE); stacks hiding the far edge, a fit
# on their feet showed as well as the board (164: _shown's rigid view weighting); a fit
# one field short ended the search (250: the search's end weighted too)
@pytest.mark.parametrize("game, seed", [("esoloe", 118), ("esoloe", 198), ("esoloe", 164),
                                        ("esoloe", 250)])
def test_boards_behind_stacks_found(game, seed):
    image, want = _render(game, seed, "any")
    fix = find_board(image, geometry(game))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).mean() <= 10


# dev renders (seeds 0..299, tuned on) missed before session 13: a fit a field along the
# tile, its end on a field's outline, ended the search (e-SOLO-e 24, 154: ENDING_SIDE);
# 3.7..5.2 px off after 2f53734: a fit with a side 4..5 mm off did (3andC 104, 286:
# _past_weakest_side's PLACE_GAIN)
@pytest.mark.parametrize("game, seed", [("esoloe", 24), ("esoloe", 154), ("esoloe-3andc", 104),
                                        ("esoloe-3andc", 286)])
def test_a_fit_off_along_its_weakest_side_does_not_end_the_search(game, seed):
    image, want = _render(game, seed, "any")
    fix = find_board(image, geometry(game))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() <= 1.5


# dev renders (seeds 0..199, tuned on) whose board's own fit has a side stacks hide under
# ENDING_SIDE: the search went on through all its starts (session 13: 30..34 alignments,
# 4..12 times the time); the fit is aligned twice more from itself and ends it
@pytest.mark.parametrize("game, seed", [("esoloe", 67), ("esoloe", 79)])
def test_a_fit_with_a_side_under_stacks_ends_the_search(game, seed, monkeypatch):
    import vision.board_align

    aligned = []
    align = vision.board_align.align
    monkeypatch.setattr(vision.board_align, "align",
                        lambda *args, **kw: aligned.append(1) or align(*args, **kw))
    image, want = _render(game, seed, "any")
    fix = find_board(image, geometry(game))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() <= 1.5
    assert len(aligned) <= 12


# dev renders (seeds 0..99, tuned on) missed before session 14: small blurred tiles, about
# 1 px a mm, whose 1 mm painted lines fit_grey's blur leaves too shallow, so that not even
# the true corners showed MIN_SUPPORT of them (SHARP_BELOW_PPM: judged unblurred there)
@pytest.mark.parametrize("game, seed", [("esoloe-3andc", 78), ("esoloe-tictactoe", 78)])
def test_a_small_blurred_tile_is_found(game, seed):
    image, want = _render(game, seed, "any")
    geom = geometry(game)
    assert pattern_check(fit_grey(image), want, geom)[1] < MIN_SUPPORT
    assert pattern_check(fit_grey(image, 0.0), want, geom)[1] >= 2 * MIN_SUPPORT
    fix = find_board(image, geom)
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() <= 1.5


# the wrong quads that judging small fits unblurred took in session 14 (then held out,
# dev since): one over the stacks on a gingham cloth (e-SOLO-e 1637, 117 px off), one
# field's outline (1664, 160 px), one with two sides out on the table (3andC 1650, 11 px);
# each shows MIN_SUPPORT of the painted lines unblurred, none is the board
# (_sharp_shown), the board's own corners are
@pytest.mark.parametrize("game, seed, quad", [
    ("esoloe", 1637, [[765.46, 235.76], [795.54, 323.2], [725.22, 334.89], [680.52, 244.65]]),
    ("esoloe", 1664, [[648.49, 321.15], [722.35, 332.88], [711.85, 367.28], [636.05, 354.49]]),
    ("esoloe-3andc", 1650, [[618.44, 285.74], [703.14, 349.93], [639.9, 442.78], [550.6, 365.78]])])
def test_a_small_fit_judged_unblurred_must_show_a_rigid_board(game, seed, quad):
    image, want = _render(game, seed, "any")
    geom = geometry(game)
    sharp = fit_grey(image, 0.0)
    size = (image.shape[1], image.shape[0])
    quad = np.array(quad)
    assert pattern_check(sharp, quad, geom)[1] >= MIN_SUPPORT
    assert _shown(sharp, quad, geom, size) > 0
    assert _sharp_shown(sharp, quad, geom, size) == 0
    assert _sharp_shown(sharp, want, geom, size) > 0.5


# a dev render (seeds 0..199, tuned on) found wrong before session 15: a small blurred
# empty tile (0.84 px a mm) whose fit lay on its row of fields, 11.6 px off; no fine fit
# follows a small tile's alignment, aligned again from the fit it lies on the board
# (_small_tile_realigned)
def test_a_small_tiles_fit_is_aligned_again():
    image, want = _render("esoloe", 43, "any")
    fix = find_board(image, geometry("esoloe"))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() <= 1.5


# dev renders (1800..1899, session 15's held out) found wrong before session 16: a
# blurred e-SOLO-e tile fitted with its near side on the side face's foot and its far
# side on the far fields' outlines (12.6 px off), a 3andC tile fitted a field short (12.3
# px off); neither is a rigid view of the board (FOUND_MISFIT), the board itself is
# (its true corners within half of it)
@pytest.mark.parametrize("game, seed", [("esoloe", 1830), ("esoloe-3andc", 1852)])
def test_a_tiles_fit_off_a_rigid_view_is_no_board(game, seed):
    image, want = _render(game, seed, "any")
    geom = geometry(game)
    assert _misfit(want, geom, (image.shape[1], image.shape[0])) <= FOUND_MISFIT / 2
    assert find_board(image, geom) is None


# dev renders whose chosen fit, finished, lay off a rigid view (FOUND_MISFIT), so that
# no board was found before session 20, while another start's fit of the board finished
# as one (_runner_up): e-SOLO-e 2261 (found wrong before session 18, FOUND_MISFIT 0.022
# -> 0.013: a fit a field short beside a stack over the west field, 27.6 px off, 0.014
# off a rigid view; its runner-up 0.9 px off, 0.004) and 2750 (the board's own fit
# finished 3.1 px off and 0.018 off a rigid view; its runner-up 0.4 px off, 0.001)
@pytest.mark.parametrize("game, seed", [("esoloe", 2261), ("esoloe", 2750)])
def test_a_refused_fit_gives_way_to_a_runner_up_that_is_a_view(game, seed):
    image, want = _render(game, seed, "any")
    fix = find_board(image, geometry(game))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() <= 1.5
