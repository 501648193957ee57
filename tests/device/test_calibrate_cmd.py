"""tableref calibrate camera|board|colour on rendered frames."""

import json

import cv2
import numpy as np
import pytest

from calibration import charuco_render, files, registration
from device.cli import main
from tests.device.image_files import write_images
from vision.render.effects import Effects
from vision.render.frame import RenderOptions, render_scene

FACES = {"up": "geisha", "down": "blank", "north": "sakura", "south": "blank",
         "east": "blank", "west": "fuji"}
EMPTY = {"cells": [[], [], [], [], []]}
TWO_CUBES = {"cells": [[{"player": 0, "faces": FACES}], [], [], [],
                       [{"player": 1, "faces": FACES}]]}


def _run(capsys, *argv):
    status = main(["calibrate", *argv])
    out, err = capsys.readouterr()
    return status, out, err




@pytest.fixture(scope="module")
def charuco_views():
    """Twelve rendered photos of the ChArUco board and their cameras."""
    return charuco_render.views(12, 4)


@pytest.fixture(scope="module")
def scene_frames():
    """Three frames (noise differs) of an empty esoloe board, overhead, and the truth."""
    frames, truth = [], None
    for k in range(3):
        image, t = render_scene("esoloe", EMPTY, 101,
                                options=RenderOptions(camera_mode="overhead", frame=k))
        frames.append(image)
        truth = truth or t
    return frames, truth


def test_print(tmp_path, capsys):
    status, out, err = _run(capsys, "camera", "--print", str(tmp_path / "b.pdf"))
    assert status == 0 and json.loads(out)["written"].endswith("b.pdf")
    assert "25 mm" in err
    status, _, err = _run(capsys, "camera", "--print", str(tmp_path / "b.gif"))
    assert status == 2 and ".png or .pdf" in err


def test_camera_from_photos(tmp_path, capsys, charuco_views):
    images, cams = charuco_views
    paths = write_images(tmp_path, images, "view")
    out_file = tmp_path / "camera.json"
    status, out, err = _run(capsys, "camera", *paths, "--out", str(out_file))
    assert status == 0, err
    summary = json.loads(out)
    assert summary["views"] == 12 and summary["rms_px"] < 0.5
    cal = files.load(out_file, "camera")
    f = cams[0].K[0, 0]
    assert abs(cal.K[0, 0] - f) / f < 0.01
    # the file is what tableref observe --calibration reads
    from device.observe_cmd import _calibration

    assert np.allclose(_calibration(str(out_file))["K"], cal.K)


def test_camera_from_a_live_source_with_guidance(tmp_path, capsys, charuco_views):
    images, cams = charuco_views
    folder = tmp_path / "live"
    folder.mkdir()
    # the first view twice: the board has not moved, the second is not kept
    write_images(folder, [images[0], *images], "frame")
    out_file = tmp_path / "camera.json"
    status, out, err = _run(capsys, "camera", "--source", "folder", "--path", str(folder),
                            "--views", "6", "--out", str(out_file))
    assert status == 0, err
    assert "still missing: 3 more view(s)" in err
    assert "coverage complete" in err
    assert "frame0.png: " in err and "frame1.png: " not in err  # the repeat was not kept
    views = json.loads(out)["views"]
    assert 6 <= views <= 12
    cal = files.load(out_file, "camera")
    assert abs(cal.K[0, 0] - cams[0].K[0, 0]) / cams[0].K[0, 0] < 0.02


def test_camera_needs_views(tmp_path, capsys, charuco_views):
    paths = write_images(tmp_path, charuco_views[0][:2], "view")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 90, np.uint8))
    status, _, err = _run(capsys, "camera", *paths, str(blank), str(tmp_path / "nope.png"),
                          "--out", str(tmp_path / "c.json"))
    assert status == 1
    assert "blank.png: board not found" in err and "nope.png: missing" in err
    assert "2 usable views; at least 4" in err
    assert not (tmp_path / "c.json").exists()
    status, _, err = _run(capsys, "camera", "--out", str(tmp_path / "c.json"))
    assert status == 2 and "no frames" in err


def test_board_auto_under_a_millimetre(tmp_path, capsys, scene_frames):
    frames, truth = scene_frames
    paths = write_images(tmp_path, frames, "frame")
    out_file = tmp_path / "board.json"
    status, out, err = _run(capsys, "board", "--game", "esoloe", *paths, "--frames", "3",
                            "--out", str(out_file))
    assert status == 0, err
    assert json.loads(out)["frames"] == 3
    reg = files.load(out_file, "board")
    assert reg.method == "auto" and reg.fit["checks"] == ["frames", "lines"]
    error = registration.error_against_truth(reg, truth)
    assert error["max_mm"] < 1.0


def test_board_manual_and_errors(tmp_path, capsys, scene_frames):
    frames, truth = scene_frames
    true = np.array([truth["board"]["corners"][n] for n in files.CORNER_NAMES])
    clicked = true + np.random.default_rng(1).normal(0, 1.5, (4, 2))
    text = " ".join(f"{x:.1f},{y:.1f}" for x, y in clicked)
    camera = files.CameraCalibration(np.array(truth["camera"]["K"]),
                                     np.array(truth["camera"]["dist"]), (1280, 720), 0.1, 10,
                                     {})
    cam_file = files.save(camera, tmp_path / "camera.json")
    frame = write_images(tmp_path, frames[:1], "frame")[0]
    status, out, err = _run(capsys, "board", "--game", "esoloe", "--corners", text, frame,
                            "--camera", str(cam_file), "--out", str(tmp_path / "b.json"))
    assert status == 0, err
    reg = files.load(tmp_path / "b.json")
    assert reg.method == "manual" and reg.fit["checks"] == ["rigid pose", "lens", "lines"]
    assert registration.error_against_truth(reg, truth)["max_mm"] < 1.0
    assert "fitted to the board's frame line" in err
    off = true.copy()
    off[1, 0] += 60  # ne 20 mm and more out along the north side
    text_off = " ".join(f"{x:.1f},{y:.1f}" for x, y in off)
    status, out, err = _run(capsys, "board", "--game", "esoloe", "--corners", text_off,
                            frame, "--out", str(tmp_path / "x.json"))
    assert status == 1 and json.loads(out) == {"refused": "off the lines"}
    assert "does not follow the corners given" in err and err.count("\n") == 1
    status, _, err = _run(capsys, "board", "--game", "esoloe", "--corners", "1,2 3,4",
                          "--out", str(tmp_path / "x.json"))
    assert status == 2 and "need 4 corners" in err
    status, _, err = _run(capsys, "board", "--game", "esoloe",
                          "--corners", "0,0 10,10 10,0 0,10", "--out", str(tmp_path / "x.json"))
    assert status == 2 and "convex" in err
    status, _, err = _run(capsys, "board", "--game", "chess", "--corners", text,
                          "--out", str(tmp_path / "x.json"))
    assert status == 2 and "--game" in err
    blank = write_images(tmp_path, [np.full((720, 1280, 3), 90, np.uint8)], "blank")
    status, _, err = _run(capsys, "board", "--game", "esoloe", *blank,
                          "--out", str(tmp_path / "x.json"))
    assert status == 1 and "not found in 1 frame" in err and "--corners" in err
    (tmp_path / "bad.json").write_text("{}")
    status, _, err = _run(capsys, "board", "--game", "esoloe", "--corners", text,
                          "--camera", str(tmp_path / "bad.json"), "--out", str(tmp_path / "x"))
    assert status == 2 and "bad.json: key 'schema': missing" in err


def test_colour_undoes_a_white_balance_error(tmp_path, capsys, scene_frames):
    _, truth = scene_frames
    true = np.array([truth["board"]["corners"][n] for n in files.CORNER_NAMES])
    reg = registration.register_manual(true, "esoloe", (1280, 720))
    board_file = files.save(reg, tmp_path / "board.json")
    measured = []
    for wb in ((1.0, 1.0, 1.0), (1.25, 1.0, 0.8)):
        image, _ = render_scene("esoloe", TWO_CUBES, 101, options=RenderOptions(
            camera_mode="overhead", effects=Effects(wb=wb, exposure=0.3, read_noise=0.01)))
        path = write_images(tmp_path, [image], f"wb{wb[0]}")
        out_file = tmp_path / f"colour{wb[0]}.json"
        status, out, err = _run(capsys, "colour", "--board", str(board_file), *path,
                                "--piece", "player 0=0", "--piece", "player 1=4",
                                "--out", str(out_file))
        assert status == 0, err
        measured.append((files.load(out_file, "colour"), np.array(wb)))
    (a, wb_a), (b, wb_b) = measured
    # the gains cancel the camera's white balance error: gains x error is the same
    assert np.allclose(a.wb_gains * wb_a, b.wb_gains * wb_b, rtol=0.02)
    for cal in (a, b):  # green stain has the lower Lab a
        assert cal.pieces["player 1"]["lab"][1] < cal.pieces["player 0"]["lab"][1] - 5
    lab_a = np.array(a.pieces["player 0"]["lab"])
    lab_b = np.array(b.pieces["player 0"]["lab"])
    assert np.abs(lab_a - lab_b).max() <= 3
    status, _, err = _run(capsys, "colour", "--board", str(board_file), *path,
                          "--piece", "x=9", "--out", str(tmp_path / "c.json"))
    assert status == 1 and "no field '9'" in err


def test_a_fit_over_1_mm_warns_of_the_lens_where_its_check_is_the_worst():
    from device.calibrate_cmd import fit_warning

    assert fit_warning({"max_mm": 0.8, "lens_max_mm": 0.8}) is None
    lens = fit_warning({"max_mm": 1.3, "rigid_max_mm": 0.4, "lens_max_mm": 1.3})
    assert "lens" in lens and "1.30 mm" in lens and "check the corners" not in lens
    corners = fit_warning({"max_mm": 2.1, "lines_max_mm": 2.1, "lens_max_mm": 0.5})
    assert "check the corners" in corners and "2.10 mm" in corners
