"""vision.read_miwin: the pip mask's lines, a top's centre by its pips' symmetry, and the
enrolment profile on the dice tops through the whole observe path (a profile file loaded as
``tableref observe --profile`` loads it)."""

import cv2
import numpy as np
import pytest

from vision.classifier import shared
from vision.read_miwin import (
    DIE_MM,
    Die,
    _die_kernel,
    _no_lines,
    _top_and_faces,
    symmetric_centre,
)


def test_a_long_thin_light_line_is_no_pip_but_a_blurred_dies_patch_is():
    # Neunfeld's stitched board edge shows in the pip mask as a thread 2..5 px thick
    # beside the dice; a motion-blurred 7 as one patch of about 20 x 24 px
    side = int(DIE_MM)
    pip = np.zeros((120, 160), bool)
    pip[10:13, 5:155] = True  # the stitched edge, longer than a die's top
    pip[40:44, 20:24] = pip[40:44, 30:34] = True  # two pips
    pip[60:84, 60:80] = True  # a blurred die's pips merged
    pip[95:98, 100:100 + side - 2] = True  # a thin spot no longer than a top: kept
    out = _no_lines(pip)
    assert not out[10:13].any()
    assert (out == pip)[14:].all()
    assert _no_lines(np.zeros((30, 30), bool)).sum() == 0


def test_a_black_dies_side_faces_lie_towards_the_camera_beside_its_top():
    # the camera to the south (view px: y south), its side faces stretching 20 px that
    # way on the plane of its top: the faces' mask is the outline south of the square
    side = int(DIE_MM)
    top, faces = _top_and_faces(_die_kernel(side, np.array([0.0, 1.0]), 20.0, 600.0), side)
    top_rows, top_cols = np.nonzero(top.any(axis=1))[0], np.nonzero(top.any(axis=0))[0]
    assert len(top_rows) == len(top_cols) in (side, side + 1) and not (top * faces).any()
    rows, cols = np.nonzero(faces.any(axis=1))[0], np.nonzero(faces.any(axis=0))[0]
    assert rows.min() == top_rows.max() + 1 and rows.max() >= top_rows.max() + 18
    assert top_cols.min() <= cols.min() and cols.max() <= top_cols.max()


def test_a_top_placed_off_is_centred_on_its_pips_not_on_spots_of_the_table():
    # a black 2 (4 px per mm on its top's plane, north up) with its side faces towards a
    # camera in the south as dark as its top, placed 3 mm west and 9 mm south of its top's
    # centre (on the side face): one pip in its square. Three specks on the table west of
    # it, more symmetric than the 2's two pips, lie over a window of the table's colour
    px, size = 4.0, 320
    H = np.array([[px, 0, size / 2], [0, -px, size / 2], [0, 0, 1]])  # board mm -> px
    image = np.full((size, size, 3), (150, 190, 210), np.uint8)  # a light wooden table

    def at(u, v):
        return int(round(size / 2 + u * px)), int(round(size / 2 - v * px))

    half = DIE_MM / 2
    cv2.rectangle(image, at(-half, half), at(half, -half - 14), (25, 25, 25), -1)
    for u, v in ((-5.5, 5.5), (5.5, -5.5)):  # the 2's pips
        cv2.circle(image, at(u, v), int(1.8 * px), (235, 235, 235), -1)
    for v in (-2, -9, -16):  # specks on the table
        cv2.circle(image, at(-15, v), int(1.8 * px), (255, 255, 255), -1)
    centred = symmetric_centre(image, H, Die("black", -3.0, -9.0, 1.0))
    assert abs(centred.u) <= 1.0 and abs(centred.v) <= 1.0
    assert (centred.colour, centred.confidence) == ("black", 1.0)


def test_a_black_top_placed_half_on_the_table_is_centred_on_its_pips_on_its_dark_body():
    # a black 2 placed 10 mm south of its top's centre, onto a light table: the placed
    # window's body is half table, so the top's own window (all dark) is far darker; the
    # table's grain beside it (light specks, symmetric about a window half on the table)
    # lies on no dark body
    px, size = 4.0, 320
    H = np.array([[px, 0, size / 2], [0, -px, size / 2], [0, 0, 1]])  # board mm -> px
    image = np.full((size, size, 3), (150, 190, 210), np.uint8)

    def at(u, v):
        return int(round(size / 2 + u * px)), int(round(size / 2 - v * px))

    half = DIE_MM / 2
    cv2.rectangle(image, at(-half, half), at(half, -half), (25, 25, 25), -1)
    for u, v in ((-5.5, 5.5), (5.5, -5.5)):  # the 2's pips
        cv2.circle(image, at(u, v), int(1.8 * px), (235, 235, 235), -1)
    for u, v in ((-6, -15), (6, -15), (-6, -25), (6, -25)):  # specks on the table
        cv2.circle(image, at(u, v), int(1.8 * px), (255, 255, 255), -1)
    centred = symmetric_centre(image, H, Die("black", 0.0, -10.0, 1.0))
    assert abs(centred.u) <= 1.0 and abs(centred.v) <= 1.0


def _spy(profile):
    class Spy:
        def __init__(self):
            self.asked = []

        def predict(self, name, model, crops, top_k, turns=1):
            self.asked.append((name, len(crops)))
            return profile.predict(name, model, crops, top_k, turns)

    return Spy()


@pytest.mark.skipif(shared("pips") is None, reason="models/pips.onnx is missing")
@pytest.mark.parametrize("game, seed", [("tyr", 106), ("neunfeld", 102)])
def test_an_enrolled_d6_profile_reads_the_dice_tops_at_runtime(tmp_path, game, seed):
    """A profile of ordinary dice (``tableref enrol --dice d6``: the model answering 1..6
    only) loaded from its file as ``observe --profile`` loads it: the pips model's run
    goes through it (once a frame, and once more for the crops moved where a
    top is in doubt: ``read_miwin.dice_tops``), and the tops the plain model reads 7..9 (all three
    dice of these frames show 7..9) are no longer read so."""
    from calibration import enrol, files
    from vision.measure import truth_fix
    from vision.observe import observe
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    plan = enrol.plan(game, dice="d6")
    labels = [f.label for f in plan.faces]
    ad = enrol.Adaptation.fit("pips", "pips", np.eye(len(labels), 8), labels,
                              [f.piece for f in plan.faces], method="model", classes=labels)
    ad.turns = plan.turns
    path = files.save(files.EnrolmentProfile(game, {"pips": ad.to_json()}),
                      tmp_path / "profile.json")
    position = random_position(game, seed)
    assert all(d["top"] >= 7 for d in position["dice"].values())
    image, truth = render_scene(game, position, seed,
                                options=RenderOptions(camera_mode="overhead"))
    board = truth_fix(truth).corners  # registered: the board finder plays no part

    plain = observe(image, game, calibration={"board": board})["position"]["dice"]
    assert sum(d["top"] == position["dice"][c]["top"] for c, d in plain.items()) >= 2

    calibration = files.for_vision(profile=path, game=game)
    spy = _spy(calibration["profile"])
    calibration.update(profile=spy, board=board)
    dice = observe(image, game, calibration=calibration)["position"]["dice"]
    assert spy.asked[0] == ("pips", 3) and all(name == "pips" for name, _ in spy.asked)
    assert len(spy.asked) <= 2
    assert all(d["top"] is None or d["top"] <= 6 for d in dice.values())
    assert any(d["top"] is not None for d in dice.values())


def test_a_red_die_whose_small_pips_blur_pink_into_its_body_is_found():
    # Tyr dev 2646 (any camera, 980 mm, 55 degrees): a red 8's pips at their lightest of
    # chroma 62 against 73 round them, so none was a pip (``PIP_PALER``) and the die was
    # not found (its cell null); sought again with pips paler by ``PIP_PALER_LOST`` only
    from vision.board import geometry
    from vision.measure import truth_fix
    from vision.read_tyr import read
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    image, truth = render_scene("tyr", random_position("tyr", 2646), 2646,
                                options=RenderOptions(camera_mode="any"))
    red = read(image, truth_fix(truth), geometry("tyr"), None).position["dice"]["red"]
    assert red["cell"] == truth["position"]["dice"]["red"]["cell"] is not None
