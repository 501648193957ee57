"""e-SOLO-e's cube faces and Miwin's die tops are enrolled as their readers cut them."""

import argparse

import cv2
import numpy as np
import pytest

from calibration import enrol, synthetic
from device import enrol_cmd
from vision import read_esoloe, read_miwin
from vision.board import CORNER_NAMES, BoardFix, find_board, geometry
from vision.classifier import shared
from vision.observe import predict
from vision.read_neunfeld import read as read_neunfeld
from vision.read_tyr import read as read_tyr
from vision.render.frame import render_scene
from vision.render.positions import random_position

# a cube on each e-SOLO-e field: (player, up face)
CUBES = [(0, "sakura"), (1, "fuji"), (0, "geisha"), (1, "blank"), (1, "sakura")]
TYR_DICE = {"blue": (9, [2, 3]), "red": (8, [5, 5]), "black": (4, [8, 1])}


def _fix_and_camera(truth):
    corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES], np.float64)
    return BoardFix(corners, corners.copy()), {"K": np.array(truth["camera"]["K"]),
                                               "dist": np.array(truth["camera"]["dist"])}


@pytest.fixture(scope="module")
def esoloe_frame():
    """An e-SOLO-e frame (dev seed 121) with ``CUBES``, its true fix and camera."""
    position = {"cells": [[{"player": p, "faces": {"up": up}}] for p, up in CUBES]}
    image, truth = render_scene("esoloe", position, 121)
    return (image, *_fix_and_camera(truth), truth)


def _spy(monkeypatch, module, name) -> list[np.ndarray]:
    """The crops ``module``'s reader gives the model ``name`` (its ``predict`` spied on:
    it reads them on as before)."""
    seen = []

    def spy(calibration, model_name, model, crops, top_k, turns=1):
        if model_name == name:
            seen.extend(crops)
        return predict(calibration, model_name, model, crops, top_k, turns)

    monkeypatch.setattr(module, "predict", spy)
    return seen


@pytest.mark.parametrize("with_camera", [False, True])
def test_enrolment_cuts_an_up_face_as_the_reader_does(monkeypatch, esoloe_frame, with_camera):
    model = shared("symbol")
    if model is None:
        pytest.skip("no symbol model: the reader cuts no faces")
    image, fix, camera, truth = esoloe_frame
    calibration = camera if with_camera else None
    names = [str(i) for i in range(len(CUBES))]
    ours = enrol.up_face_crops(image, fix, "esoloe", names, calibration)
    assert all(c is not None and c.shape == (read_esoloe.FACE_CROP,) * 2 + (3,) for c in ours)
    seen = _spy(monkeypatch, read_esoloe, "symbol")
    read_esoloe.read(image, fix, geometry("esoloe"), calibration)
    # each field's up face is byte for byte one of the crops the reader gave the model ...
    assert all(any(np.array_equal(c, s) for s in seen) for c in ours)
    # ... and that field's: the model reads the symbol placed there
    up = [cell[-1]["faces"]["up"] for cell in truth["position"]["cells"]]
    assert [p["symbol"].label for p in model.predict(ours)] == up
    with pytest.raises(enrol.EnrolError, match="no e-SOLO-e field '5'"):
        enrol.up_face_crops(image, fix, "esoloe", ["5"])


@pytest.mark.parametrize("game", ["tyr", "neunfeld"])
def test_enrolment_cuts_die_tops_as_the_reader_does(monkeypatch, game):
    if shared("pips") is None:
        pytest.skip("no pips model: the reader cuts no tops")
    position = random_position(game, 122)
    for colour, (top, cell) in TYR_DICE.items():
        position["dice"][colour]["top"] = top
        if game == "tyr":
            position["dice"][colour]["cell"] = cell
    image, truth = render_scene(game, position, 122)
    fix, camera = _fix_and_camera(truth)
    reader = {"tyr": read_tyr, "neunfeld": read_neunfeld}[game]
    seen = _spy(monkeypatch, read_miwin, "pips")
    for calibration in (None, camera):
        seen.clear()
        reading = reader(image, fix, geometry(game), calibration)
        ours = enrol.die_top_crops(game, image, fix, calibration)
        assert len(seen) == 2 * len(ours)  # the reader's run and enrolment's
        read = [c for c, d in reading.position["dice"].items() if d["top"] is not None]
        # the same dice, each top byte for byte the reader's crop
        assert list(ours) == read and len(read) >= 2
        assert all(np.array_equal(a, b) for a, b in zip(ours.values(), seen[:len(ours)],
                                                        strict=True))
        tops = shared("pips").predict(list(ours.values()))
        assert sum(p["pips"].label == str(TYR_DICE[c][0])
                   for p, c in zip(tops, ours, strict=True)) >= len(ours) - 1


def test_a_camera_capture_of_an_up_face_is_the_readers_crop(esoloe_frame, tmp_path):
    """``tableref enrol --game esoloe`` from a frame source: the registered board's field,
    white-balanced first, cut as the reader cuts it."""
    if shared("symbol") is None:
        pytest.skip("no symbol model")
    image, fix, camera, _ = esoloe_frame
    cv2.imwrite(str(tmp_path / "frame.png"), image)

    class Balance:
        def apply(self, img):
            return cv2.add(img, 9)

    calibration = dict(camera, board=fix.corners.tolist(), colour=Balance())
    args = argparse.Namespace(source="folder", path=str(tmp_path), device=0, game="esoloe",
                              field="1")
    plan = enrol.plan("esoloe")
    with enrol_cmd._Camera(args, print, plan, calibration) as capture:
        crop = capture(plan.faces[1], 0)
    expected = enrol.up_face_crops(Balance().apply(image), fix, "esoloe", ["1"], calibration)
    assert np.array_equal(crop, expected[0])


def test_synthetic_frames_key_each_crop_by_what_lies_there():
    model = shared("pips")
    crops, keys = synthetic.field_frame(1, 0, game="tyr")
    assert {piece for piece, _ in keys} <= {"blue die", "red die", "black die"}
    assert len(crops) == len(keys) >= 2
    if model is not None:
        assert [p["pips"].label for p in model.predict(crops)] == [k[1] for k in keys]
    crops, keys = synthetic.field_frame(1, 0, game="esoloe-tictactoe")
    assert len(crops) == 9 and {k[1] for k in keys} <= {"sakura", "fuji", "geisha", "blank"}
    with pytest.raises(enrol.EnrolError, match="no other-set pieces on a board"):
        synthetic.field_frame(1, 0, "other-set", "tyr")


def test_a_camera_capture_of_a_die_is_the_readers_crop(tmp_path):
    """``tableref enrol --game tyr`` from a frame source: the die asked for, wherever the
    reader finds it on the board found in the frame."""
    if shared("pips") is None:
        pytest.skip("no pips model")
    position = random_position("tyr", 123)
    for colour, (top, cell) in TYR_DICE.items():
        position["dice"][colour].update(top=top, cell=cell)
    image, _ = render_scene("tyr", position, 123)
    cv2.imwrite(str(tmp_path / "frame.png"), image)
    args = argparse.Namespace(source="folder", path=str(tmp_path), device=0, game="tyr",
                              field=None)
    plan = enrol.plan("tyr")
    red = next(f for f in plan.faces if f.piece == "red die")
    with enrol_cmd._Camera(args, print, plan, {}) as capture:
        crop = capture(red, 0)
    fix = find_board(image, geometry("tyr"))
    assert np.array_equal(crop, enrol.die_top_crops("tyr", image, fix)["red"])



def test_die_top_crops_of_the_renderer_are_cut_as_the_reader_cuts_a_die():
    """The other-set rows' die crops (``die top``): the renderer's die crops cut again by
    the pip reader's ``top_crops``, which the pip model (trained on that cut) reads."""
    model = shared("pips")
    crops, keys = synthetic.render("die top", 24, 5)
    assert crops[0].shape == (64, 64, 3) and keys[0][0].endswith(" die")
    if model is not None:
        right = sum(p["pips"].label == k[1] for p, k in zip(model.predict(crops), keys,
                                                             strict=True))
        assert right >= 21, right


def test_any_die_is_the_one_die_the_reader_read(monkeypatch):
    """Ordinary dice (``plan``'s d6) have no colour to ask for: a capture is the one die
    the reader read in the frame, none where it read several; the synthetic user gives
    a die of any colour showing the number asked for."""
    plan = enrol.plan("tyr", dice="d6")
    four = plan.faces[3]
    tops = {"red": np.ones((64, 64, 3), np.uint8)}
    monkeypatch.setattr(enrol, "die_top_crops", lambda game, image, fix, calibration: tops)
    assert enrol.board_crop(plan, "tyr", four, None, None) is tops["red"]
    tops["blue"] = np.zeros((64, 64, 3), np.uint8)
    assert enrol.board_crop(plan, "tyr", four, None, None) is None
    monkeypatch.undo()
    user = synthetic.RenderedCrops("die top", 5)
    crops = [user(four) for _ in range(3)]
    model = shared("pips")
    assert crops[0].shape == (64, 64, 3)
    if model is not None:
        assert sum(p["pips"].label == "4" for p in model.predict(crops)) >= 2
