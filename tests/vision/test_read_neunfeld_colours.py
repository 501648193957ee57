"""vision.read_neunfeld with the dice's colours measured on the set (the calibration's
``pieces``: blue, red, black; ``vision.piece_colours.NAMES['neunfeld']``), under a lamp
unlike the training renders' (``bench.calibration_bench``'s warm dim lamp), and
``tableref calibrate colour`` measuring a Neunfeld die on a field of the strip."""

import cv2
import numpy as np

from bench import calibration_bench as cb
from calibration import colour, registration
from calibration.files import CORNER_NAMES, CameraCalibration
from vision import piece_colours
from vision.board import BoardFix, geometry
from vision.grid import board_pose
from vision.measure import elements
from vision.read_neunfeld import read
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position


def test_under_a_warm_dim_lamp_the_measured_dice_are_read_where_the_fixed_rule_misses_them():
    """Dev table 100 under the warm dim lamp (B/G/R 0.6/1/1.5, exposed to 0.22): the fixed
    rule puts the blue and the black dice on the wrong sides and reads their tops wrong;
    the three dice measured on the table's other frame (a row before the board, their
    tops' darker half) are read right, all of them. Without them the reader is the fixed
    rule's."""
    image, truth, base, pieces = cb._dice_table(100, cb.COLOUR_LIGHTS["warm lamp, dim"],
                                                "neunfeld")
    fix = BoardFix(base["board"], base["board"])
    geom = geometry("neunfeld")
    want = elements("neunfeld", truth["position"])
    fixed = elements("neunfeld", read(image, fix, geom, base).position)
    assert fixed["dice.blue.holder"] != want["dice.blue.holder"]  # the premise
    assert fixed["dice.black.holder"] != want["dice.black.holder"]
    assert piece_colours.measured({"pieces": pieces}, "neunfeld") is not None
    got = elements("neunfeld", read(image, fix, geom, {**base, "pieces": pieces}).position)
    assert got == want


def test_a_neunfeld_row_counts_the_truth_s_elements():
    (row,) = cb.colour_rows(range(100, 101), ("neunfeld",), ("warm lamp, dim",))
    n = len(elements("neunfeld", random_position("neunfeld", 100)))
    assert row["n"] == n == 8
    assert row["before"].endswith(f"/{n}") and row["after"] == f"{n}/{n}"


def test_a_die_on_a_field_is_measured_on_its_top_and_on_its_body():
    """``calibrate colour`` for Neunfeld: a die lying on field 5 is measured on its top,
    ``read_miwin.DIE_MM`` above the board (an oblique camera: the board's own plane
    there shows the sheet beside the die), on its darker half (its light pips, 40 % of
    the top measured, left out)."""
    _, truth = render_scene("neunfeld", random_position("neunfeld", 203), 203,
                            options=RenderOptions(camera_mode="oblique"))
    corners = np.array([truth["board"]["corners"][n] for n in CORNER_NAMES], np.float64)
    camera = CameraCalibration(np.array(truth["camera"]["K"]),
                               np.array(truth["camera"]["dist"]), (1280, 720), 0.0, 0, {})
    geom = geometry("neunfeld")
    reg = registration.register_manual(corners, "neunfeld", (1280, 720))
    pose = board_pose(BoardFix(corners, corners), geom, (1280, 720), camera.K, camera.dist)
    top = pose.plane_homography(colour.TOP_MM["neunfeld"])
    _, u, v, _ = geom.cells[4]

    def paint(image, u0, u1, v0, v1, bgr):
        mm = np.array([[u + u0, v + v0], [u + u1, v + v0], [u + u1, v + v1], [u + u0, v + v1]],
                      np.float64).reshape(-1, 1, 2)
        px = cv2.perspectiveTransform(mm, top).reshape(-1, 2)
        cv2.fillConvexPoly(image, np.round(px).astype(np.int32), bgr)

    image = np.full((720, 1280, 3), colour.TARGET_LEVEL, np.uint8)  # a white sheet
    paint(image, -11, 11, -11, 11, (90, 30, 20))  # a navy die's top ...
    paint(image, -8, 8, 1.5, 8, (230, 230, 230))  # ... and its pips
    cal = colour.calibrate_colour([image], reg, {"blue": "5"}, white_box=(0, 0, 200, 100),
                                  camera=camera)
    want = cv2.cvtColor(np.array([[[90, 30, 20]]], np.uint8), cv2.COLOR_BGR2Lab)[0, 0]
    assert np.allclose(cal.pieces["blue"]["lab"], want, atol=2)
    board = colour.calibrate_colour([image], reg, {"blue": "5"}, white_box=(0, 0, 200, 100),
                                    height_mm=0.0, camera=camera)
    assert not np.allclose(board.pieces["blue"]["lab"], want, atol=10)  # the board's plane
