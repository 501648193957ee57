"""``tableref observe`` with calibration files and with a second camera."""

import json

import cv2
import numpy as np
import pytest

from calibration import files
from calibration.files import (
    BoardRegistration,
    CameraCalibration,
    ColourCalibration,
    EnrolmentProfile,
)
from device.cli import main
from tests.vision.test_calibration_dict import GAME, POSITION
from tests.vision.test_read_esoloe import GAME as FAMILY_GAME
from tests.vision.test_read_esoloe import POSITION as STACKS
from tests.vision.test_read_esoloe import given_faces, shoot
from vision.board import CORNER_NAMES
from vision.classifier import shared
from vision.render.frame import RenderOptions, render_scene


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A rendered frame and the four calibration files of its table (the camera's true
    intrinsics, its true board corners, neutral gains, a profile enrolling only geisha)."""
    d = tmp_path_factory.mktemp("table")
    image, truth = render_scene(GAME, POSITION, 101,
                                options=RenderOptions(camera_mode="overhead"))
    cv2.imwrite(str(d / "frame.png"), image)
    cam = truth["camera"]
    files.save(CameraCalibration(np.array(cam["K"]), np.array(cam["dist"]), (1280, 720), 0.2,
                                 12, {"squares": [7, 5]}), d / "camera.json")
    corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])
    H, _ = cv2.findHomography(np.array([[-1, 1], [1, 1], [1, -1], [-1, -1]], float) * 50,
                              corners)
    files.save(BoardRegistration(GAME, (1280, 720), corners, H, "manual", 1,
                                 {"rms_mm": 0.1, "max_mm": 0.2}), d / "board.json")
    files.save(ColourCalibration(np.ones(3), {"level": 170.0, "target": 180.0, "gain": 1.06},
                                 "board glaze", {}), d / "colour.json")
    model = shared("symbol")
    width = model.embed([image[:64, :64]]).shape[1] if model is not None else 4
    proto = np.ones((1, width)) / np.sqrt(width)
    files.save(EnrolmentProfile(GAME, {"symbol": {
        "head": "symbol", "method": "prototypes", "scale": 20.0, "model_weight": 0.0,
        "prototypes": {"geisha": proto.tolist()}, "captures": {"geisha": 5}}}),
        d / "profile.json")
    return d, corners


def _flags(d):
    return ["--camera-calibration", str(d / "camera.json"), "--board", str(d / "board.json"),
            "--colour", str(d / "colour.json"), "--profile", str(d / "profile.json")]


@pytest.mark.skipif(shared("symbol") is None, reason="models/symbol.onnx is missing")
def test_the_files_are_loaded_and_used(table, capsys):
    d, corners = table
    assert main(["observe", "--game", GAME, *_flags(d), str(d / "frame.png")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    obs = json.loads(lines[0])
    assert np.allclose([obs["board"][k] for k in CORNER_NAMES], corners, atol=1e-3)
    assert [bool(s) for s in obs["position"]["cells"]] == [bool(s) for s in POSITION["cells"]]
    ups = [s[-1]["faces"]["up"] for s in obs["position"]["cells"] if s]
    assert sum(u is not None for u in ups) >= 2 and set(ups) <= {None, "geisha"}


def _broken(d, name, edit):
    data = json.loads((d / name).read_text())
    edit(data)
    path = d / f"bad-{name}"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("flag, name, edit, key", [
    ("--board", "board.json", lambda b: b["corners"].pop("se"), "corners.se"),
    ("--board", "board.json", lambda b: b.update(game="neunfeld"), "game"),
    ("--camera-calibration", "camera.json", lambda c: c.update(dist=[1, 2]), "dist"),
    ("--colour", "colour.json", lambda c: c.update(wb_gains=[1, -1, 1]), "wb_gains"),
    ("--profile", "profile.json", lambda p: p["models"]["symbol"].pop("head"),
     "models.symbol.head"),
])
def test_a_bad_file_is_one_line_and_exit_2(table, capsys, flag, name, edit, key):
    d, _ = table
    bad = _broken(d, name, edit)
    assert main(["observe", "--game", GAME, flag, str(bad), str(d / "frame.png")]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert len(out.err.strip().splitlines()) == 1
    assert str(bad) in out.err and f"key '{key}'" in out.err


def test_arguments_that_do_not_fit_are_exit_2(table, capsys):
    d, _ = table
    frame = str(d / "frame.png")
    for args in (["--calibration", str(d / "camera.json"),
                  "--camera-calibration", str(d / "camera.json"), frame],
                 [frame, frame, "--second-camera", frame],
                 ["--second-calibration", str(d / "camera.json"), frame]):
        assert main(["observe", "--game", GAME, *args]) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(["observe", "--game", "neunfeld", frame, "--second-camera", frame]) == 2
    assert "fused" in capsys.readouterr().err


def test_a_second_camera_gives_one_fused_observation_per_pair(tmp_path, capsys):
    front, _ = shoot(STACKS, 45, 0)
    back, _ = shoot(STACKS, 45, 180)
    cv2.imwrite(str(tmp_path / "front.png"), front)
    cv2.imwrite(str(tmp_path / "back.png"), back)
    assert main(["observe", "--game", FAMILY_GAME, str(tmp_path / "front.png")]) == 0
    alone = json.loads(capsys.readouterr().out)
    pair = [str(tmp_path / "front.png"), str(tmp_path / "front.png"), "--second-camera",
            str(tmp_path / "back.png"), str(tmp_path / "back.png")]
    assert main(["observe", "--game", FAMILY_GAME, *pair]) == 0
    fused = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["seq"] for o in fused] == [0, 1]
    assert fused[0]["position"] == fused[1]["position"]
    cells = fused[0]["position"]["cells"]
    assert [len(s) for s in cells] == [len(s) for s in STACKS["cells"]]
    assert given_faces(cells) > given_faces(alone["position"]["cells"])


def test_camera_and_run_refuse_a_bad_file_in_one_line(table, capsys):
    from device.camera_service import options, serve

    d, _ = table
    bad = _broken(d, "board.json", lambda b: b["corners"].pop("se"))
    args = options(GAME, source="folder", path=str(d), board=str(bad),
                   publish="tcp://127.0.0.1:*")
    assert serve(args, systemd=False) == 2
    assert main(["run", "--game", GAME, "--source", "folder", "--path", str(d), "--board",
                 str(bad), "--observations", "tcp://127.0.0.1:*", "--quiet"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all(f"{bad}: key 'corners.se'" in line for line in lines)


class _Built(Exception):
    pass


def test_the_camera_passes_the_files_to_the_tracker(table, monkeypatch):
    import device.tracker
    from device.camera_service import options, serve
    from device.run_cmd import camera_args

    def tracker(config):
        raise _Built(config.calibration)

    monkeypatch.setattr(device.tracker, "Tracker", tracker)
    d, corners = table
    named = dict(zip(("camera_calibration", "board", "colour", "profile"), _flags(d)[1::2],
                     strict=True))
    with pytest.raises(_Built) as got:
        serve(options(GAME, source="folder", path=str(d), publish="tcp://127.0.0.1:*",
                      **named), systemd=False)
    calibration = got.value.args[0]
    assert set(calibration) == {"K", "dist", "board", "colour", "profile"}
    assert np.allclose(calibration["board"], corners)
    from device.cli import build_parser

    run = build_parser().parse_args(["run", "--game", GAME, *_flags(d)])
    assert {k: getattr(camera_args(run), k) for k in named} == named
