"""Board localisation: exact synthetic quads, and renders measured against their truth."""

import cv2
import numpy as np
import pytest

from vision.board import CORNER_NAMES, find_board, geometry, homography, name_corners
from vision.grid import assumed_camera, board_pose, cell_polygons


def _synthetic(corners: np.ndarray, geom=None, seed: int = 0,
               tile=(225, 230, 232)) -> np.ndarray:
    """A wood-brown noisy table with a board quad of colour ``tile`` (white by default;
    and, given ``geom``, its fields' dark outlines and frame line), drawn 4x larger and
    averaged down (exact area coverage at the edges; pixel centres at integer
    coordinates)."""
    rng = np.random.default_rng(seed)
    big = np.full((720 * 4, 1280 * 4, 3), (60, 100, 150), np.uint8)
    big_corners = corners * 4 + 1.5
    cv2.fillConvexPoly(big, np.round(big_corners * 16).astype(np.int32), tile, cv2.LINE_8,
                       shift=4)
    if geom is not None:
        H = cv2.getPerspectiveTransform(geom.corners_mm().astype(np.float32),
                                        big_corners.astype(np.float32))
        fields = cell_polygons(H, geom)
        w, d = geom.width / 2 - 3.5, geom.depth / 2 - 3.5  # the frame line
        frame = cv2.perspectiveTransform(np.array([[(-w, d), (w, d), (w, -d), (-w, -d)]]), H)
        cv2.polylines(big, np.round(np.concatenate([fields, frame]) * 16).astype(np.int32),
                      True, (140, 70, 30), 4, cv2.LINE_8, shift=4)
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


def _render(game, seed, camera, **options):
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    image, truth = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(camera_mode=camera, **options))
    return image, np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])


# one render per game and camera mode (seeds from the tuning set 5000..5009, not the
# measured 100.., see docs/history/vision.md)
@pytest.mark.parametrize("game, camera, seed", [
    ("esoloe", "overhead", 5001), ("esoloe", "oblique", 5004),
    ("esoloe-tictactoe", "overhead", 5008), ("esoloe-tictactoe", "oblique", 5001),
    ("esoloe-3andc", "overhead", 5009), ("esoloe-3andc", "oblique", 5004),
    ("neunfeld", "overhead", 5002), ("neunfeld", "oblique", 5009),
    ("tyr", "overhead", 5005), ("tyr", "oblique", 5002),
    ("cubes", "overhead", 5009), ("cubes", "oblique", 5009),
])
def test_renders_board_found_subpixel(game, camera, seed):
    image, want = _render(game, seed, camera)
    fix = find_board(image, geometry(game))
    assert fix is not None
    err = np.linalg.norm(fix.corners - want, axis=1)
    assert err.max() < 1.5, err


@pytest.mark.parametrize("game, seed", [("esoloe-3andc", 5001), ("cubes", 5002)])
def test_marks_name_a_board_turned_a_quarter(game, seed):
    # turned 70 degrees on the table, north points left in the image: the camera rule
    # alone would name it a quarter turn off; 3andC's blue fields and Cubes' shaded
    # fields name it right
    image, want = _render(game, seed, "overhead", board_pose=(0.0, 0.0, 70.0))
    fix = find_board(image, geometry(game))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() < 1.5


def test_no_board_on_an_empty_table():
    from vision.render.frame import RenderOptions, camera_for, render_scene
    from vision.render.scene import build_scene

    # the camera that sees the board in the middle of the table; the board moved away
    game, seed, empty = "esoloe", 5001, {"cells": [[]] * 5}
    camera = camera_for(build_scene(game, empty, seed), seed, RenderOptions())
    image, truth = render_scene(game, empty, seed, camera,
                                RenderOptions(board_pose=(700.0, 500.0, 0.0)))
    corners = np.array(list(truth["board"]["corners"].values()))
    assert (corners[:, 0] > 1280).all() or (corners[:, 1] < 0).all()  # out of view
    assert find_board(image, geometry(game)) is None


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


# found (named right, mean corner error <= 10 px) of 10 renders a game, any camera
# (0..60 degrees from vertical), dev seeds 8_000_000..; floors a little under what the
# finder measured on its dev seeds 100..139 (docs/history/vision.md)
SWEEP_FLOORS = {"esoloe": 6, "esoloe-tictactoe": 7, "esoloe-3andc": 7, "neunfeld": 4,
                "tyr": 7, "cubes": 9}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SWEEP_FLOORS))
def test_renders_found_sweep(game):
    geom = geometry(game)
    found = 0
    for seed in range(8_000_000, 8_000_010):
        image, want = _render(game, seed, "any")
        fix = find_board(image, geom)
        found += fix is not None and np.linalg.norm(fix.corners - want, axis=1).mean() <= 10
    assert found >= SWEEP_FLOORS[game]


def test_neunfeld_edge_model_lines_inside_the_board():
    # its fields reach its edge: their outlines there (whose light lip would lie past the
    # edge) are not modelled; the stitching 1.6 mm inside is, and support does not need it
    from vision.board import _along_edge, _pattern_points, edge_model

    geom = geometry("neunfeld")
    model = edge_model(geom)
    u, v = np.abs(model.points[model.line]).T
    assert (u < geom.width / 2 - 1.0).all() and (v < geom.depth / 2 - 1.0).all()
    stitch = _along_edge(geom, model)
    assert np.allclose(np.abs(model.points[stitch & (model.normals[:, 0] == 0), 1]),
                       geom.depth / 2 - 1.6)
    assert (model.line & ~stitch & _pattern_points(geom, model)).sum() > 0



def test_a_strip_of_its_own_colour_outranks_a_band_of_the_table():
    # the table's grain gives many pairs of long parallel edges; the board's strip is the
    # pair whose inside differs from both sides beside it
    from vision.board import _band_contrast

    image = np.full((200, 400, 3), (60, 100, 150), np.uint8)
    cv2.line(image, (20, 40), (380, 40), (40, 80, 130), 1)  # grain lines
    cv2.line(image, (20, 60), (380, 60), (40, 80, 130), 1)
    cv2.rectangle(image, (40, 120), (360, 140), (40, 50, 170), -1)  # the strip
    strip = np.array([[40, 120], [360, 120], [360, 140], [40, 140]], np.float64)
    grain = np.array([[20, 40], [380, 40], [380, 60], [20, 60]], np.float64)
    assert _band_contrast(image, strip) > 30 > 5 > _band_contrast(image, grain)


# dev seeds (100..199, tuned on) whose boards the finder missed before session 5 (issue
# #6): Neunfeld's candidates had the strip's ends off (strip_ends); on e-SOLO-e a stack
# carried a candidate's corner off (_rebuilt: 134) or the glaze's region did not show
# the tile (frame_candidates: 138, 160; 138's frame-line region notched by its stacks,
# and its right alignment once barred by the gingham's implausible ones, session 6).
# Missed before session 10: e-SOLO-e 211 (its right near view ranked 10th of them, NEAR
# was 6); Cubes 117 found 2.1 px off (its alignment carried off at 1 px a mm:
# test_board_align); Neunfeld 110 (on a gingham cloth) and 264 (28 px off), whose only
# start near the strip lay between its colour masks' straight edges (_mask_strips); 150
# kept where one of those, 136 px off, showed more than its right fit did (LATE_BELOW).
# Missed before session 13's late strips ranked after STRIPS (MORE_STRIPS): Neunfeld 95
# (68 px off) and 109 (136 px off), no candidate near the board. Found wrong before
# session 16 (dev 1800..1899, session 15's held out): e-SOLO-e 1891, a small empty tile on
# wooden planks whose region ranked under the planks' (BRIGHT: 367 px off, the planks).
# Missed before session 18: e-SOLO-e 2197 on a gingham cloth, stacks over its far half,
# whose glaze's brightest region was notched and ranked under the cloth's (BRIGHT's
# notched region)
@pytest.mark.parametrize("game, seed, px", [
    ("neunfeld", 124, 6.0), ("neunfeld", 130, 3.0), ("neunfeld", 110, 1.5),
    ("neunfeld", 264, 3.0), ("neunfeld", 150, 6.0), ("neunfeld", 95, 1.5),
    ("neunfeld", 109, 2.0),
    ("esoloe", 134, 1.0), ("esoloe", 138, 1.5), ("esoloe", 160, 1.0), ("esoloe", 211, 1.5),
    ("esoloe", 1891, 1.5), ("esoloe", 2197, 1.0),
    ("cubes", 117, 1.5),
])
def test_hard_renders_found(game, seed, px):
    image, want = _render(game, seed, "any")
    fix = find_board(image, geometry(game))
    assert fix is not None
    assert np.linalg.norm(fix.corners - want, axis=1).max() < px


def test_a_strips_ends_are_found_along_it():
    # its long sides right, its ends 20 % and 15 % of its length off: its separators and
    # stitching put them back within about 1 % of it
    from vision.board import strip_ends

    image, want = _render("neunfeld", 180, "any")
    along = np.array([want[1] - want[0], want[2] - want[3]])
    start = want.copy()
    start[[0, 3]] += 0.2 * along
    start[[1, 2]] += 0.15 * along
    got = strip_ends(image, start, geometry("neunfeld"))
    assert np.linalg.norm(got - want, axis=1).max() < 0.015 * np.linalg.norm(along[0])


def test_the_frame_line_shows_a_tile_the_colour_of_the_table():
    from vision.board import frame_candidates

    geom = geometry("esoloe")
    corners = _projected_board(geom)
    found = frame_candidates(_synthetic(corners, geom, tile=(60, 100, 150)), geom)
    assert min(np.linalg.norm(c - corners, axis=1).max() for c in found) < 8.0


def test_a_candidate_with_a_corner_carried_off_is_rebuilt_from_the_other_three():
    # the board as the assumed camera sees it; one corner of the candidate 70 px off
    from vision.board import _rebuilt

    geom = geometry("esoloe")
    corners = _projected_board(geom)
    quad = corners.copy()
    quad[1] += (60, -40)
    views = _rebuilt(_synthetic(corners, geom), [quad], geom)
    best = min(np.linalg.norm(np.roll(v, k, axis=0) - corners, axis=1).max()
               for v in views for k in range(4))
    assert best < 0.05


def test_view_check_recovers_the_cameras_tilt():
    # the Pi cameras' lenses (53..66 degrees wide) seen through the assumed 60-degree one
    from vision.board import MAX_TILT_DEG, plausible_view, view_check

    geom = geometry("esoloe-tictactoe")
    obj = np.column_stack([geom.corners_mm(), np.zeros(4)])
    for hfov in (53.0, 66.0):
        f = 640 / np.tan(np.radians(hfov) / 2)
        K = np.array([[f, 0, 639.5], [0, f, 359.5], [0, 0, 1]])
        for tilt in (30.0, 60.0, MAX_TILT_DEG + 8):
            px = cv2.projectPoints(obj, np.array([np.radians(180 + tilt), 0.0, 0.0]),
                                   np.array([30.0, -20.0, 400.0]), K, None)[0].reshape(4, 2)
            got, misfit = view_check(px, geom, (1280, 720))
            assert abs(got - tilt) < 1.0 and misfit < 3.0, (hfov, tilt, got, misfit)
            assert plausible_view(px, geom, (1280, 720)) == (tilt < MAX_TILT_DEG)


def test_a_board_no_camera_over_a_table_sees_so_is_not_taken():
    # the tic-tac-toe tile's pattern painted on a trapezoid: its pattern shows in full,
    # but no view of a square board has its near side twice its far one at this
    # height (the camera would stand 46 degrees over and a corner 39 px off)
    geom = geometry("esoloe-tictactoe")
    quad = np.array([(540, 260), (740, 260), (840, 460), (440, 460)], np.float64)
    assert find_board(_synthetic(quad, geom), geom) is None
    # seen as a camera sees it, the same tile is found
    assert find_board(_synthetic(_projected_board(geom), geom), geom) is not None


def test_a_strip_merged_with_the_pieces_beside_it_is_found_in_its_region():
    # a strip of its own colour with dice touching both long sides: its region's hull
    # is no strip, the lines most of its edges follow are
    from vision.board import _banded_strips

    mask = np.zeros((360, 640), np.uint8)
    strip = np.array([[100, 150], [500, 170], [499, 190], [99, 170]], np.float64)
    cv2.fillConvexPoly(mask, strip.round().astype(np.int32), 255)
    for x, y in ((180, 136), (300, 175), (420, 146), (140, 160)):  # dice over its sides
        cv2.rectangle(mask, (x, y), (x + 28, y + 28), 255, -1)
    found = _banded_strips(mask, geometry("neunfeld"), float(mask.size))
    assert found
    best = max(found, key=lambda f: f[0])[1]
    # (a line through all of each side's edge points lies 4.8 px off)
    assert min(np.abs(np.roll(best, k, axis=0) - strip).max() for k in range(4)) < 1.5


def test_a_long_side_fitted_on_the_side_faces_foot_is_moved_to_the_top():
    # dev 118 (Neunfeld, oblique, 2.4 px a mm): the dark leather's near side face shows
    # below its top's edge and the lighter table beyond the face's foot; a fit with its
    # south side on the foot (2.5 mm out: the board is 3 mm thick) sought the table's
    # step there (found 3.4 px off before session 10); fitted again seeking the darker
    # face beyond, it lies on the top's edge
    from vision.board import _off_side_face, fit_grey, fit_model

    geom = geometry("neunfeld")
    image, want = _render("neunfeld", 118, "any")
    grey = fit_grey(image)
    size = (image.shape[1], image.shape[0])
    foot = _side_moved(want, geom, 2, 2.5)
    assert np.linalg.norm(foot - want, axis=1).max() > 4.0
    got = _off_side_face(grey, foot, geom, size)
    assert np.linalg.norm(got - want, axis=1).max() < 1.5
    # a fit on the top's edge stays there
    top = fit_model(grey, want, geom, wide=0.0)
    assert np.linalg.norm(top - want, axis=1).max() < 1.5
    assert np.abs(_off_side_face(grey, top, geom, size) - top).max() < 0.5


def _side_moved(corners: np.ndarray, geom, side: int, mm: float) -> np.ndarray:
    """``corners`` with one side (0 north, 1 east, 2 south, 3 west) moved ``mm`` out."""
    out = geom.corners_mm().copy()
    out[[side, (side + 1) % 4]] += mm * np.array([(0, 1), (1, 0), (0, -1), (-1, 0)])[side]
    H = cv2.getPerspectiveTransform(geom.corners_mm().astype(np.float32),
                                    corners.astype(np.float32))
    return cv2.perspectiveTransform(out[None].astype(np.float64), H)[0]


@pytest.mark.parametrize("game", ["esoloe", "esoloe-tictactoe"])
def test_a_side_fitted_on_a_line_inside_the_edge_is_pushed_out_to_it(game):
    # a tile the colour of its table: its edge shows no step, its painted lines do; a
    # fit whose north side lies on the frame line's inner flank (4 mm in) or on the
    # fields' (tic-tac-toe: 10 mm in) is moved out to the edge (within a pixel of it:
    # it is tried every 2 px, and an edge without a step gives the fit nothing to take)
    from vision.board import _pushed_out, fit_grey

    geom = geometry(game)
    corners = _projected_board(geom)
    grey = fit_grey(_synthetic(corners, geom, tile=(60, 100, 150)))
    for inside in (4.0, 10.0) if game == "esoloe-tictactoe" else (4.0,):
        start = _side_moved(corners, geom, 0, -inside)
        got = _pushed_out(grey, start, geom, (1280, 720))
        assert np.linalg.norm(got - corners, axis=1).max() < 1.1, (inside, got - corners)


def test_a_fit_on_the_edge_is_not_pushed_out():
    from vision.board import _pushed_out, fit_grey

    geom = geometry("esoloe-tictactoe")
    corners = _projected_board(geom)
    got = _pushed_out(fit_grey(_synthetic(corners, geom)), corners, geom, (1280, 720))
    assert np.abs(got - corners).max() < 0.5


@pytest.mark.parametrize("width, centre, ramp", [(1.0, 40.3, 0.0), (2.0, 40.5, 0.0),
                                                 (3.3, 40.2, 0.0), (1.0, 40.3, 2.0)])
def test_a_dark_line_is_found_on_it_not_beside_it(width, centre, ramp):
    """A dark line (20 grey levels, ``width`` px, blurred a little; on a ramp of ``ramp``
    levels a px) is found at its centre from anywhere within 2.5 px of it, within 0.2
    px, and nowhere 3..4 px beside it. The line's response took the larger of its two
    flanks until session 9, so it answered beside a line as well: from 2 px off, a 3 px
    line was found 0.5 px off its centre."""
    from vision.board import MIN_LINE, _search

    x = np.arange(96, dtype=np.float64)
    cover = np.clip(np.minimum(x + 0.5, centre + width / 2)
                    - np.maximum(x - 0.5, centre - width / 2), 0, 1)
    row = cv2.GaussianBlur((150 + ramp * (x - centre) - 20 * cover)[None], (0, 0), 0.7)[0]
    grey = np.repeat(row[None], 16, axis=0).astype(np.float32)
    starts = np.array([[centre + d, 8.0] for d in np.arange(-2.0, 2.1, 0.5)])
    n = np.tile([1.0, 0.0], (len(starts), 1))
    on = np.ones(len(starts), bool)
    off, strength = _search(grey, starts, n, 3.0, on, -np.ones(len(starts)), 2)
    assert np.abs(starts[:, 0] + off - centre).max() < 0.2
    assert strength.min() >= MIN_LINE
    beside = np.array([[centre + d, 8.0] for d in (-4.0, -3.5, -3.0, 3.0, 3.5, 4.0)])
    _, strength = _search(grey, beside, n[:6], 0.5, on[:6], -np.ones(6), 2)
    assert (strength < MIN_LINE).all(), strength


def test_a_small_board_keeps_its_alignment_where_the_fine_fit_would_drift():
    # the 3andC demo's first frame (seed 3, overhead, 1.56 px a mm): the fit on the fields'
    # lines, from the true corners, lands 1.5..2.4 px off; the alignment is within 0.6 px
    from device.camera_service import _synthetic_script, options
    from device.sources import SourceConfig, open_source

    args = options("esoloe-3andc", table="demo", seed=3, plies=12, view="overhead",
                   lighting="even", fps=4.0, settle_s=1.0, second_camera=None,
                   second_view=None)
    with open_source(SourceConfig("synthetic", fps=4.0, script=_synthetic_script(args))) as src:
        frame = src.read()
    truth = frame.metadata["truth"]["board"]["corners"]
    fix = find_board(frame.image, geometry("esoloe-3andc"))
    assert fix is not None
    err = np.linalg.norm(fix.corners - np.array([truth[n] for n in CORNER_NAMES]), axis=1)
    assert err.max() < 1.0, err
