"""tableref enrol: the synthetic renderer as the user, a folder of captures as a camera."""

import json

import cv2
import pytest

from calibration import enrol, files, synthetic
from device.cli import main
from vision.classifier import Classifier
from vision.render.frame import RenderOptions, render_scene


def _run(capsys, *argv):
    status = main(["enrol", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_synthetic_enrolment_writes_a_profile(tmp_path, capsys):
    out_file = tmp_path / "profile.json"
    status, out, err = _run(capsys, "--game", "esoloe", "--captures", "2", "--more", "0",
                            "--seed", "5", "--out", str(out_file))
    assert status == 0, err
    assert "show a green cube with its blank face up (2 of 2)" in err
    summary = json.loads(out)
    assert summary["model"] == "symbol" and summary["captures"] == 16
    assert summary["turns"] == 4 and set(summary["methods"]) == set(enrol.AUTO_METHODS)
    assert summary["cross_validated_accuracy"] >= 0.75
    profile = enrol.load_profile(out_file)
    # up faces of another table, cut by the reader
    crops, keys = synthetic.render("up", 12, 77)
    got = profile.predict("symbol", Classifier.load("symbol"), crops)
    assert sum(p["symbol"].label == k[1] for p, k in zip(got, keys, strict=True)) >= 10
    assert files.load(out_file).game == "esoloe"


def test_a_set_of_ordinary_dice_is_enrolled_on_its_six_faces(tmp_path, capsys):
    """``--dice d6``: each of 1..6 on any die (the synthetic user: any of Tyr's dice
    showing it); every face captured, and the profile answers 1..6 only, whatever the
    method (here the model's own head, over the six)."""
    out_file = tmp_path / "d6.json"
    status, out, err = _run(capsys, "--game", "tyr", "--dice", "d6", "--captures", "2",
                            "--more", "0", "--seed", "3", "--out", str(out_file))
    assert status == 0, err
    assert "show a die with 6 up (2 of 2)" in err and "blue die" not in err
    summary = json.loads(out)
    assert list(summary["per_class"]) == ["1", "2", "3", "4", "5", "6"]
    assert summary["captures"] == 12
    assert enrol.load_profile(out_file).adaptations["pips"].labels == ("1", "2", "3", "4",
                                                                        "5", "6")


def test_folder_source_in_prompt_order(tmp_path, capsys):
    """Frames of the cube asked for on the field asked for (the default, the middle),
    in the order asked: the board found in each."""
    folder = tmp_path / "shots"
    folder.mkdir()
    n = 0
    for face in enrol.plan("esoloe").faces:
        cells = [[] for _ in range(5)]
        cells[2] = [{"player": int(face.piece.startswith("green")),
                     "faces": {"up": face.label}}]
        for k in range(2):
            image, _ = render_scene("esoloe", {"cells": cells}, 131,
                                    options=RenderOptions(camera_mode="overhead", frame=k))
            cv2.imwrite(str(folder / f"shot{n:02d}.png"), image)
            n += 1
    out_file = tmp_path / "p.json"
    status, out, err = _run(capsys, "--game", "esoloe", "--captures", "2", "--more", "0",
                            "--source", "folder", "--path", str(folder), "--out",
                            str(out_file))
    assert status == 0, err
    summary = json.loads(out)
    assert summary["captures"] == 16 and summary["cross_validated_accuracy"] >= 0.75
    # one face more than the folder holds: the source ends
    status, _, err = _run(capsys, "--game", "esoloe", "--captures", "3", "--source",
                          "folder", "--path", str(folder), "--out", str(tmp_path / "q.json"))
    assert status == 1 and "the source ended before" in err
    # the cube is not on the field asked for: not seen there
    status, _, err = _run(capsys, "--game", "esoloe", "--field", "0", "--source", "folder",
                          "--path", str(folder), "--out", str(tmp_path / "q.json"))
    assert status == 1 and "not seen on the field 0 in 10 frames" in err, err


@pytest.mark.parametrize("argv, message", [
    (["--game", "esoloe-3andc"], "nothing to enrol"),
    (["--game", "esoloe", "--dice", "d6"], "esoloe's set has no dice"),
    (["--game", "esoloe", "--captures", "1"], "at least 2"),
    (["--game", "esoloe", "--models-dir", "/nonexistent"], "symbol.onnx is missing"),
    (["--game", "esoloe", "--source", "folder", "--path", "/nonexistent"], "tableref enrol:"),
])
def test_bad_input_is_one_line(tmp_path, capsys, argv, message):
    status, out, err = _run(capsys, *argv, "--out", str(tmp_path / "p.json"))
    assert status in (1, 2) and message in err and out == ""
    assert "Traceback" not in err


@pytest.mark.slow
def test_cubes_stones_enrol(tmp_path, capsys):
    out_file = tmp_path / "stones.json"
    status, out, err = _run(capsys, "--game", "cubes", "--captures", "2", "--more", "0",
                            "--method", "prototypes", "--turns", "1", "--out", str(out_file))
    assert status == 0, err
    assert "show the orange 6 stone, inactive side up (black disc, white digit)" in err
    summary = json.loads(out)
    # 41 stone faces, and the empty field where the model has the kind "empty"; 2 each
    faces = 41 + ("empty" in Classifier.load("stone").heads["kind"])
    assert (summary["model"], summary["head"], summary["captures"]) == ("stone", "token",
                                                                        2 * faces)
    assert summary["cross_validated_accuracy"] >= 0.8
    assert enrol.load_profile(out_file).adaptations["stone"].turns == 1
