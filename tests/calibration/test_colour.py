"""The colour file in use: its exposure gain applied with the white balance, its piece
colours measured as the readers see the frame and handed to vision as plain data."""

import json

import numpy as np
import pytest

from calibration import colour, files, registration
from calibration.files import CalibrationError, ColourCalibration


def _dim_frame():
    """A dim frame with a warm cast: a white sheet at B G R 60 90 120 in the top left."""
    image = np.full((720, 1280, 3), 30, np.uint8)
    image[:100, :100] = (60, 90, 120)
    return image


def test_the_exposure_gain_brings_the_reference_to_its_target():
    cal = colour.calibrate_colour([_dim_frame()], None, white_box=(0, 0, 100, 100))
    assert cal.exposure["level"] == pytest.approx(90)
    assert cal.exposure["gain"] == pytest.approx(colour.TARGET_LEVEL / 90, rel=1e-3)
    white = cal.apply(_dim_frame())[50, 50]
    # grey and at the target level: the gains and the exposure applied, each once
    assert white.tolist() == [round(colour.TARGET_LEVEL)] * 3


def test_pieces_are_measured_in_the_frame_as_it_is_read():
    """A piece's colour is that of its top in ``apply``'s frame (gains and exposure), of
    its lighter half: a dark print on it does not count."""
    image = np.full((720, 1280, 3), (60, 90, 120), np.uint8)  # the board top: the sheet
    corners = np.array([[240, 160], [1040, 160], [1040, 560], [240, 560]], float)
    reg = registration.register_manual(corners, "esoloe", (1280, 720))
    cx, cy = 640, 360  # field 2, the board's centre (seen from above: no height)
    image[cy - 60:cy + 60, cx - 60:cx + 60] = (40, 80, 70)  # a greenish piece
    image[cy - 23:cy + 23, cx - 60:cx + 60] = (5, 5, 5)  # its print: 60 % of the middle
    cal = colour.calibrate_colour([image], reg, {"green": "2"}, height_mm=0.0,
                                  white_box=(0, 0, 100, 100))
    seen = cal.apply(image)[cy + 40, cx]  # the piece's top as a reader sees it
    assert cal.pieces["green"]["bgr"] == pytest.approx(seen.tolist(), abs=1)
    assert cal.pieces["green"]["lab"][1] < 128 - 10  # green: Lab a well below grey's


def test_the_calibration_dict_gets_the_pieces_as_plain_data(tmp_path):
    cal = ColourCalibration(np.array([1.2, 1.0, 0.8]), {"level": 120.0, "target": 180.0,
                                                        "gain": 1.5}, "board top",
                            {"player 0": {"field": "0", "bgr": [80, 150, 190],
                                          "lab": [170.0, 138.0, 160.0]},
                             "player 1": {"field": "4", "bgr": [70, 130, 60],
                                          "lab": [125.0, 112.0, 150.0]}})
    path = files.save(cal, tmp_path / "colour.json")
    got = files.for_vision(colour=path)
    assert got["pieces"] == {"player 0": [170.0, 138.0, 160.0],
                             "player 1": [125.0, 112.0, 150.0]}
    assert got["colour"].gains == pytest.approx([1.8, 1.5, 1.2])
    without = files.save(ColourCalibration(cal.wb_gains, cal.exposure, "board top", {}),
                         tmp_path / "plain.json")
    assert "pieces" not in files.for_vision(colour=without)


def test_a_zero_exposure_gain_is_refused(tmp_path):
    data = json.loads(files.dumps(ColourCalibration(np.ones(3), {"level": 100.0,
                                                                 "target": 180.0,
                                                                 "gain": 1.8},
                                                    "board top", {})))
    data["exposure"]["gain"] = 0
    (tmp_path / "c.json").write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match=r"key 'exposure.gain': must be positive"):
        files.load(tmp_path / "c.json", "colour")


def test_calibrate_colour_says_which_names_the_reader_uses(capsys):
    from device.calibrate_cmd import _pieces_warning

    _pieces_warning("esoloe", {"player 0": "0", "green": "4"})
    err = capsys.readouterr().err
    assert "without 'player 1' it keeps its fixed rule" in err
    assert "'green' stored, not used by esoloe's reader" in err
    _pieces_warning("esoloe", {"player 0": "0", "player 1": "4"})
    assert capsys.readouterr().err == ""


def test_a_stone_is_measured_on_its_corners_not_its_white_disc():
    """A Cubes stone's top: a white disc of 9.7 mm radius on its colour, 24 mm square.
    Its measured colour is the colour round the disc (the field's central square would be
    mostly the disc)."""
    import cv2

    image = np.full((720, 1280, 3), 200, np.uint8)  # the board's white card
    corners = np.array([[475, 195], [805, 195], [805, 525], [475, 525]], float)  # 1 px a mm
    reg = registration.register_manual(corners, "cubes", (1280, 720))
    cx, cy = 640 - 15, 360 - 15  # field 4,4's centre: u -15, v 15 mm
    image[cy - 12:cy + 12, cx - 12:cx + 12] = (150, 60, 40)  # a blue stone
    cv2.circle(image, (cx, cy), 10, (200, 200, 200), -1)
    cal = colour.calibrate_colour([image], reg, {"blue": "4,4"}, height_mm=0.0)
    seen = cal.apply(image)[cy - 11, cx - 11]  # a corner of the stone as read
    assert cal.pieces["blue"]["bgr"] == pytest.approx(seen.tolist(), abs=2)
    # its disc left out: not the white stone's colour measured on the same field
    image[cy - 12:cy + 12, cx - 12:cx + 12] = 200
    white = colour.calibrate_colour([image], reg, {"white": "4,4"}, height_mm=0.0)
    assert white.pieces["white"]["lab"][2] - cal.pieces["blue"]["lab"][2] > 30
