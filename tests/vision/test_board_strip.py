"""vision.board on Neunfeld's strip: its pair of long edges among a wooden table's plank
seams (``_strip_pairs``), its long sides on its painted lines (``_on_lines``), a fit a
field along moved back (``_shifted_a_field``, ``_off_a_bare_end``, ``_past_an_end``) and a
fit off every view of the board, or short of the strip past an end, refused
(``STRIP_FOUND_MISFIT``, ``BEYOND_SHOWN``)."""

import cv2
import numpy as np
import pytest

from tests.vision.test_board import _render, _side_moved
from vision.board import (
    BEYOND_SHOWN,
    STRIPS,
    _beyond_ends_shown,
    _end_fields_shown,
    _ends_clear,
    _misfit,
    _off_a_bare_end,
    _on_lines,
    _past_an_end,
    _shifted_a_field,
    _shown,
    _small,
    _strip_candidates,
    find_board,
    finished,
    fit_grey,
    fit_model,
    geometry,
)


def test_a_strip_among_plank_seams_is_one_of_the_strips_tried():
    # dev 959: a wooden table of long planks; ranked by contrast and extent alone the
    # strip's pair of edges lay 6th, behind the seams' pairs, and the board was not found
    geom = geometry("neunfeld")
    image, want = _render("neunfeld", 959, "any")
    small, scale = _small(image)
    strips = _strip_candidates(small, cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), geom)[:STRIPS]
    want_small = (want + 0.5) * scale - 0.5
    assert min(np.linalg.norm(np.roll(q, k, axis=0) - want_small, axis=1).mean()
               for q in strips for k in range(4)) < 6.0
    fix = find_board(image, geom)
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() < 1.5


def test_a_long_side_on_the_stitching_is_moved_onto_the_lines():
    # dev 101 (1.8 px a mm): the stitching runs 1.6 mm inside the edge; from the north
    # side moved that far in, the fit's outline step takes the stitching's flank and
    # holds the side 4.6 px off; on the painted lines alone it is back within 1 px
    geom = geometry("neunfeld")
    image, want = _render("neunfeld", 101, "any")
    grey = fit_grey(image)
    fitted = fit_model(grey, _side_moved(want, geom, 0, -1.6), geom, wide=0.0)
    assert np.linalg.norm(fitted - want, axis=1).max() > 3.0
    assert np.linalg.norm(_on_lines(grey, fitted, geom) - want, axis=1).max() < 1.0
    # a fit on the board stays on it
    on = _on_lines(grey, fit_model(grey, want, geom, wide=0.0), geom)
    assert np.linalg.norm(on - want, axis=1).max() < 1.0


# dev renders (800..999, tuned on since session 11) missed before it: 857, a strip on
# planks whose fit from the best start kept its ends a field off (its ends searched
# again along the fitted sides, strip_ends, and fitted again); 908, whose north edge a
# die and a pawn break into pieces a third of the strip long (two long edges side by
# side over 0.25 of their extent now pair, STRIP_OVERLAP; 0.4 before); and dev
# 140 (found 1.5 px off before), whose painted lines show faintly: its ends searched again
# a field or so off showed more of its separators (0.44 against 0.35) and less of its
# whole pattern, and are taken only where both show as well
@pytest.mark.parametrize("seed, px", [(857, 1.5), (908, 1.5), (140, 2.5)])
def test_strips_found_with_their_ends_searched_again_or_one_edge_broken(seed, px):
    image, want = _render("neunfeld", seed, "any")
    fix = find_board(image, geometry("neunfeld"))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() < px


def test_a_fit_a_field_along_the_strip_shows_less_than_the_board():
    # dev 19: a pawn on the west end field hides its lines; a fit about a field west
    # showed its pattern better than the board did and was found 32 px off. Beyond its
    # east end lies the leather (_ends_clear), beyond the board's ends the table
    geom = geometry("neunfeld")
    image, want = _render("neunfeld", 19, "any")
    field = geom.width / len(geom.cells)
    shifted = _side_moved(_side_moved(want, geom, 3, field), geom, 1, -field)
    assert _ends_clear(image, want, geom) == 1.0
    assert _ends_clear(image, shifted, geom) < 0.8
    fix = find_board(image, geom)
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() < 1.5


@pytest.mark.parametrize("seed, side", [(58, 1), (308, 3)])
def test_a_fit_a_field_along_the_strip_is_moved_back_onto_it(seed, side):
    # dev 58 and 308: pawns on the end fields hide their lines; the fits near the board
    # were left a few px off, and a fit a field along it (58: east, 308: west), one end on
    # the table, showed more than they did (found 49 and 46 px off). The fit from a field
    # back shows more still and is taken (_shifted_a_field: back within a third of a
    # field; the last steps, finished, put it within 1.5 px); from the board's own fit
    # nothing moves
    geom = geometry("neunfeld")
    image, want = _render("neunfeld", seed, "any")
    grey, size = fit_grey(image), (image.shape[1], image.shape[0])
    field = geom.width / len(geom.cells)
    field_px = np.linalg.norm(want[1] - want[0]) / len(geom.cells)

    def shown(corners):
        return _shown(grey, corners, geom, size) * _ends_clear(image, corners, geom)

    along = fit_model(grey, _side_moved(_side_moved(want, geom, side, field), geom,
                                        (side + 2) % 4, -field), geom, wide=0.0)
    assert np.linalg.norm(along - want, axis=1).min() > field_px / 2
    got = _shifted_a_field(image, grey, along, shown(along), geom, size)
    assert np.linalg.norm(got - want, axis=1).max() < field_px / 3
    board = fit_model(grey, want, geom, wide=0.0)
    assert _shifted_a_field(image, grey, board, shown(board), geom, size) is board
    fix = find_board(image, geom)
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() < 1.5


def _finished_a_field_along(grey, want, geom, size, side):
    """The fit (``fit_model``, ``finished``) from the strip at ``want`` moved a field along
    it, out past its ``side`` (1 east, 3 west)."""
    field = geom.width / len(geom.cells)
    moved = _side_moved(_side_moved(want, geom, side, field), geom, (side + 2) % 4, -field)
    return finished(grey, fit_model(grey, moved, geom, wide=0.0), geom, size)


@pytest.mark.parametrize("seed", [1714, 1759])
def test_a_finished_fit_with_an_end_field_bare_is_moved_back_onto_the_strip(seed):
    # dev 1714 and 1759: a pawn on one end field; found a field along (31 and 46 px off),
    # the other end field over the table, where its long sides show nothing. Moved a
    # field away from that end and fitted again it shows as well and that end field
    # better (_off_a_bare_end), and finished within 1.5 px; either way along, and from
    # the board's own fit nothing moves
    geom = geometry("neunfeld")
    image, want = _render("neunfeld", seed, "any")
    grey, size = fit_grey(image), (image.shape[1], image.shape[0])
    field_px = np.linalg.norm(want[1] - want[0]) / len(geom.cells)
    for side in (1, 3):
        along = _finished_a_field_along(grey, want, geom, size, side)
        assert np.linalg.norm(along - want, axis=1).min() > field_px / 2
        assert _end_fields_shown(grey, along, geom).min() < 0.16
        got = _off_a_bare_end(image, grey, along, geom, size)
        assert np.linalg.norm(got - want, axis=1).max() < 1.5
    board = finished(grey, fit_model(grey, want, geom, wide=0.0), geom, size)
    assert _off_a_bare_end(image, grey, board, geom, size) is board
    fix = find_board(image, geom)
    assert fix is not None and np.linalg.norm(fix.corners - want, axis=1).max() < 1.5


def test_a_strip_found_off_every_view_of_the_board_is_no_board():
    # dev 1982: the best fit, finished, is too narrow at one end (12.7 px off), 0.043 of
    # the board's image size off the nearest rigid view of it (the true corners 0.003):
    # no board rather than a wrong one
    geom = geometry("neunfeld")
    image, want = _render("neunfeld", 1982, "any")
    size = (image.shape[1], image.shape[0])
    assert _misfit(want, geom, size) < 0.01
    assert find_board(image, geom) is None


@pytest.mark.parametrize("seed", [1986, 2329])
def test_a_fit_a_field_along_with_the_strip_going_on_past_an_end_is_moved_back(seed):
    # dev 1986 and 2329: found a field along (52 and 35 px off), its long sides showing
    # past one end (the strip goes on there), a pawn on the table past the other. From
    # either way along, the fit a field back is taken (_past_an_end); the board's own
    # finished fit shows little past its ends and stays
    geom = geometry("neunfeld")
    image, want = _render("neunfeld", seed, "any")
    grey, size = fit_grey(image), (image.shape[1], image.shape[0])
    board = finished(grey, fit_model(grey, want, geom, wide=0.0), geom, size)
    assert _beyond_ends_shown(grey, board, geom).max() < BEYOND_SHOWN
    assert _past_an_end(grey, board, geom, size) is board
    for side in (1, 3):
        along = _finished_a_field_along(grey, want, geom, size, side)
        assert _beyond_ends_shown(grey, along, geom).max() >= BEYOND_SHOWN
        got = _past_an_end(grey, along, geom, size)
        assert got is not None and np.linalg.norm(got - want, axis=1).max() < 1.5
    fix = find_board(image, geom)
    assert fix is not None and np.linalg.norm(fix.corners - want, axis=1).max() < 1.5


def test_a_strip_fit_short_of_the_strip_past_its_ends_is_no_board():
    # dev 1998: the best fit, finished, lies inside the strip, two to four fields short
    # (87 px off), its long sides showing past both ends; a field either way they still
    # do: no board rather than a wrong one
    geom = geometry("neunfeld")
    image, want = _render("neunfeld", 1998, "any")
    grey = fit_grey(image)
    assert _beyond_ends_shown(grey, fit_model(grey, want, geom, wide=0.0), geom).max() < \
        BEYOND_SHOWN
    assert find_board(image, geom) is None
