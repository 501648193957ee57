import json

import numpy as np
import pytest

from calibration import files
from calibration.files import (
    BoardRegistration,
    CalibrationError,
    CameraCalibration,
    ColourCalibration,
    EnrolmentProfile,
)

K = np.array([[1000.0, 0, 640], [0, 1000.0, 360], [0, 0, 1]])


def camera():
    return CameraCalibration(K, np.array([-0.1, 0.02, 0, 0, 0]), (1280, 720), 0.31, 12,
                             {"squares": [7, 5], "square_mm": 30.0})


def examples():
    H = np.array([[2.0, 0.1, 640], [0.05, -2.0, 360], [0, 0, 1]])
    corners = np.array([[100, 100], [300, 100], [300, 200], [100, 200]], float)
    return [
        camera(),
        BoardRegistration("esoloe", (1280, 720), corners, H, "auto", 5,
                          {"rms_mm": 0.2, "max_mm": 0.4}),
        ColourCalibration(np.array([1.1, 1.0, 0.9]), {"level": 180.0, "target": 200.0,
                                                      "gain": 1.11}, "board glaze",
                          {"player 0": {"bgr": [90, 140, 190], "lab": [60, 10, 30]}}),
        EnrolmentProfile("esoloe", {"symbol": {"head": "symbol", "method": "prototypes",
                                               "scale": 10.0, "model_weight": 1.0,
                                               "prototypes": {"fuji": [[0.6, 0.8]],
                                                              "blank": [[1.0, 0.0]]},
                                               "captures": {"fuji": 5, "blank": 5}}}),
    ]


@pytest.mark.parametrize("obj", examples(), ids=lambda o: o.KIND)
def test_round_trip(tmp_path, obj):
    path = files.save(obj, tmp_path / "c.json")
    data = json.loads(path.read_text())
    assert data["schema"] == f"tableref/calibration/{obj.KIND}/1"
    back = files.load(path, obj.KIND)
    assert type(back) is type(obj)
    assert files.dumps(back) == files.dumps(obj)


def test_camera_file_is_what_observe_reads(tmp_path):
    from device.observe_cmd import _calibration

    path = files.save(camera(), tmp_path / "camera.json")
    got = _calibration(str(path))
    assert np.allclose(got["K"], K)
    assert got["dist"].tolist() == [-0.1, 0.02, 0, 0, 0]


def _broken(tmp_path, edit, kind="camera"):
    obj = next(o for o in examples() if kind == o.KIND)
    data = json.loads(files.dumps(obj))
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError) as err:
        files.load(path)
    assert str(path) in str(err.value)
    return str(err.value)


def test_errors_name_the_key(tmp_path):
    assert "key 'K'" in _broken(tmp_path, lambda d: d.update(K=[[1, 2], [3, 4]]))
    assert "key 'dist'" in _broken(tmp_path, lambda d: d.update(dist=[1, 2, 3]))
    assert "key 'rms_px': missing" in _broken(tmp_path, lambda d: d.pop("rms_px"))
    assert "key 'date'" in _broken(tmp_path, lambda d: d.update(date="yesterday"))
    assert "version 2" in _broken(tmp_path,
                                  lambda d: d.update(schema="tableref/calibration/camera/2"))
    assert "key 'corners.se'" in _broken(tmp_path, lambda d: d["corners"].pop("se"), "board")
    assert "key 'fit.rms_mm'" in _broken(tmp_path, lambda d: d["fit"].update(rms_mm="x"),
                                         "board")
    assert "key 'wb_gains'" in _broken(tmp_path, lambda d: d.update(wb_gains=[1, 0, 1]),
                                       "colour")
    assert "key 'models.symbol.prototypes'" in _broken(
        tmp_path, lambda d: d["models"]["symbol"]["prototypes"].update(fuji=[[1, 2, 3]]),
        "profile")
    assert "key 'models.symbol.weights': missing" in _broken(
        tmp_path, lambda d: d["models"]["symbol"].update(method="linear"), "profile")


def test_wrong_kind_and_unreadable(tmp_path):
    path = files.save(camera(), tmp_path / "camera.json")
    with pytest.raises(CalibrationError, match="is a camera calibration, a board"):
        files.load(path, "board")
    (tmp_path / "x.json").write_text("{nope")
    with pytest.raises(CalibrationError, match="not JSON"):
        files.load(tmp_path / "x.json")
    with pytest.raises(CalibrationError, match="cannot read it"):
        files.load(tmp_path / "missing.json")
    (tmp_path / "old.json").write_text(json.dumps({"K": K.tolist()}))
    with pytest.raises(CalibrationError, match="key 'schema': missing"):
        files.load(tmp_path / "old.json")


def test_colour_apply():
    """The white balance and the exposure gain (1.11), both once."""
    colour = examples()[2]
    image = np.full((2, 2, 3), 100, np.uint8)
    assert colour.apply(image)[0, 0].tolist() == [122, 111, 100]
