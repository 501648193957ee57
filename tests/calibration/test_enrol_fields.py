"""Cubes enrolment cuts a stone from its field exactly as the Cubes reader does."""

import argparse

import cv2
import numpy as np
import pytest

from calibration import enrol, synthetic
from device import enrol_cmd
from rules.registry import get_game
from vision import read_cubes
from vision.board import CORNER_NAMES, BoardFix, geometry
from vision.classifier import shared
from vision.render.frame import render_scene
from vision.render.positions import random_position
from vision.render.scene import stone_turns

# stones on fields the reader reads with the model (a colour shows), at the board's middle
# and near its corners, where a slanted view turns and shrinks the crop most
STONES = {(4, 4): "B4", (0, 0): "r3", (0, 9): "K6", (9, 0): "O2", (9, 9): "b5", (2, 7): "R2"}


@pytest.fixture(scope="module")
def frame():
    """A Cubes frame (dev seed 120) with ``STONES``, its board's fix (the true corners),
    a calibration with the true camera and the position (four players seated as the rules
    seat four, as the reader takes them without a calibration's players)."""
    position = random_position("cubes", 120)
    position["players"] = get_game("cubes").initial_state(
        n_players=4).position.to_json()["players"]
    position["grid"] = [["."] * 10 for _ in range(10)]
    for (r, c), token in STONES.items():
        position["grid"][r][c] = token
    image, truth = render_scene("cubes", position, 120)
    corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES], np.float64)
    calibration = {"K": np.array(truth["camera"]["K"]), "dist": np.array(truth["camera"]["dist"])}
    return image, BoardFix(corners, corners.copy()), calibration, position


def _readers_crops(monkeypatch, image, fix, calibration) -> list[np.ndarray]:
    """The crops ``vision.read_cubes.read`` gives the stone model (its profile)."""
    seen = []

    def spy(calibration, name, model, crops, top_k):
        assert name == "stone"
        seen.extend(crops)
        return model.predict(crops, top_k=top_k)

    monkeypatch.setattr(read_cubes, "predict", spy)
    read_cubes.read(image, fix, geometry("cubes"), calibration)
    return seen


@pytest.mark.parametrize("with_camera", [False, True])
def test_enrolment_cuts_a_field_as_the_reader_does(monkeypatch, frame, with_camera):
    if shared("stone") is None:
        pytest.skip("no stone model: the reader cuts no stones")
    image, fix, camera, position = frame
    calibration = camera if with_camera else None
    seen = _readers_crops(monkeypatch, image, fix, calibration)
    names = [f"{r},{c}" for r, c in STONES]
    laid = stone_turns(position)
    ours = enrol.stone_field_crops(image, fix, names, calibration,
                                   [laid.get(token[0].upper(), 0) for token in STONES.values()])
    # every stone the reader gave the model is byte for byte enrolment's crop of its field
    # (each stone turned upright by the seat of its owner, as the renderer laid it)
    matched = [next((i for i, c in enumerate(ours) if np.array_equal(c, crop)), None)
               for crop in seen]
    assert sorted(m for m in matched if m is not None) == list(range(len(STONES))), matched
    assert ours[0].shape == (read_cubes.CROP_PX, read_cubes.CROP_PX, 3)


def test_a_field_capture_from_a_camera_is_the_readers_crop(monkeypatch, frame, tmp_path):
    """``tableref enrol --game cubes`` from a frame source: the registered board's field,
    white-balanced first, cut as the reader cuts it."""
    if shared("stone") is None:
        pytest.skip("no stone model: the reader cuts no stones")
    image, fix, camera, _ = frame
    cv2.imwrite(str(tmp_path / "frame.png"), image)

    class Balance:  # a white balance that shows whether it was applied
        def apply(self, img):
            return cv2.add(img, 9)

    calibration = dict(camera, board=fix.corners.tolist(), colour=Balance())
    args = argparse.Namespace(source="folder", path=str(tmp_path), device=0, game="cubes",
                              field="4,4")
    with enrol_cmd._Camera(args, print, enrol.plan("cubes"), calibration) as capture:
        crop = capture(enrol.plan("cubes").faces[0], 0)
    seen = _readers_crops(monkeypatch, Balance().apply(image), fix, calibration)
    assert any(np.array_equal(crop, c) for c in seen)


def test_a_bad_field_is_named():
    with pytest.raises(enrol.EnrolError, match="no Cubes field '10,1'"):
        enrol.field_centres(["4,4", "10,1"])
    assert enrol.field_centres(["0,0"]) == [(-135.0, 135.0)]


def test_the_empty_field_is_a_face_where_the_model_knows_it():
    kinds = ("white", "blue", "red", "black", "orange")
    heads = {"kind": kinds, "digit": tuple("23456"), "side": ("active", "inactive")}
    assert enrol.EMPTY_FACE not in enrol.plan("cubes", heads).faces
    faces = enrol.plan("cubes", dict(heads, kind=(*kinds, "empty"))).faces
    assert faces[-1] == enrol.EMPTY_FACE and len(faces) == 42
    assert enrol.plan("cubes").crop == "field"


def test_synthetic_fields_show_every_stone_once_a_frame():
    crops, keys = synthetic.field_frame(3, 0)
    labels = [label for _, label in keys]
    assert sorted(labels[:41]) == sorted(f.label for f in enrol.plan("cubes").faces)
    assert labels[41:] == ["."] * synthetic.FIELD_EMPTY
    assert all(c.shape == (read_cubes.CROP_PX, read_cubes.CROP_PX, 3) for c in crops)
    with pytest.raises(enrol.EnrolError, match="no other-set pieces on a board"):
        synthetic.field_frame(3, 0, "other-set")


@pytest.mark.parametrize("argv, message", [
    (["--game", "cubes", "--field", "10,1"], "no Cubes field '10,1'"),
    (["--game", "esoloe-tictactoe", "--field", "9"], "no tic-tac-toe field '9'"),
    (["--game", "tyr", "--field", "1,1"], "dice are found wherever they lie"),
    (["--game", "cubes", "--board", "/nonexistent.json"], "nonexistent.json"),
])
def test_field_arguments(capsys, tmp_path, argv, message):
    from device.cli import main

    status = main(["enrol", *argv, "--out", str(tmp_path / "p.json")])
    err = capsys.readouterr().err
    assert status == 2 and message in err and "Traceback" not in err, err


def test_corners_no_camera_fits_are_an_enrol_error(monkeypatch, frame):
    image, fix, _, _ = frame

    def no_pose(*args):
        raise ValueError("no camera pose fits the board corners")

    monkeypatch.setattr(read_cubes, "planes", no_pose)
    with pytest.raises(enrol.EnrolError, match="fit no camera .*show the whole board"):
        enrol.stone_field_crops(image, fix, ["4,4"])
