"""Each registration refusal carries its reason (``RegistrationError.reason``), and
bench.calibration_bench's board rows name every refusal by it."""
import numpy as np
import pytest

from bench import calibration_bench
from bench.calibration_bench import _listed
from calibration import registration
from calibration.files import CORNER_NAMES
from calibration.registration import Refusal, RegistrationError
from vision.board import BoardFix

SQUARE = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], float)


def _refusal(monkeypatch, corner_sets, **kw) -> RegistrationError:
    fixes = iter([None if c is None else BoardFix(c, c) for c in corner_sets])
    monkeypatch.setattr(registration, "find_board", lambda image, geom: next(fixes))
    frames = [np.zeros((720, 1280, 3), np.uint8)] * len(corner_sets)
    with pytest.raises(RegistrationError) as refused:
        registration.register_auto(frames, "esoloe-tictactoe", n=len(corner_sets), **kw)
    return refused.value


def test_each_refusal_carries_its_reason(monkeypatch):
    assert _refusal(monkeypatch, [None, None]).reason == Refusal.NOT_FOUND
    assert _refusal(monkeypatch, [SQUARE, SQUARE + 10, SQUARE - 10]).reason == (
        Refusal.DISAGREE)
    monkeypatch.setattr(registration, "frame_lines",
                        lambda images, corners, geom, parts=1, **kw: [(s, 0.0, 0.0, 3.0)
                                                                for s in range(4)])
    assert _refusal(monkeypatch, [SQUARE, SQUARE]).reason == Refusal.BLURRED
    monkeypatch.setattr(registration, "frame_lines",
                        lambda images, corners, geom, parts=1, **kw: [(s, 0.0, 1.5, 1.0)
                                                                for s in range(4)])
    assert _refusal(monkeypatch, [SQUARE, SQUARE]).reason == Refusal.FIT
    with pytest.raises(RegistrationError) as refused:
        registration.register_auto([], "esoloe", turn=1)
    assert refused.value.reason == Refusal.TURN and refused.value.reason in (
        registration.ARGUMENTS)
    assert _listed([]) == "0" and _listed(["103 blurred", "104 2.10 mm"]) == (
        "2 (103 blurred, 104 2.10 mm)")


def test_the_board_rows_name_each_refusal_by_its_reason(monkeypatch):
    """Whatever a refusal's message says, the bench's note gives its reason."""
    import vision.render.frame as frame

    corners = {n: list(map(float, c)) for n, c in zip(CORNER_NAMES, SQUARE, strict=True)}
    truth = {"board": {"corners": corners},
             "camera": {"K": np.eye(3).tolist(), "dist": [0.0] * 5}}
    monkeypatch.setattr(frame, "render_scene", lambda game, position, seed, options:
                        (np.zeros((720, 1280, 3), np.uint8), truth))

    def refuse(reason):
        def raising(*args, **kw):
            raise RegistrationError("words the bench does not read", reason)
        return raising

    monkeypatch.setattr(registration, "register_auto", refuse(Refusal.BLURRED))
    monkeypatch.setattr(registration, "register_manual", refuse(Refusal.OFF_LINES))
    rows = calibration_bench.board_rows(seeds=range(7, 9), games=("esoloe",))
    auto, clicked = rows[0]["note"], rows[1]["note"]
    assert "refused 2 (7 blurred, 8 blurred)" in auto
    assert "refused 2 (7 off the lines, 8 off the lines), stored over 1 mm 0" in clicked
    assert rows[0]["after"] == rows[1]["after"] == "-"
    monkeypatch.setattr(registration, "register_manual", lambda *args, **kw: None)
    monkeypatch.setattr(registration, "error_against_truth",
                        lambda reg, truth: {"max_mm": 2.5})
    clicked = calibration_bench.board_rows(seeds=range(7, 9), games=("esoloe",))[1]
    assert "0/2 under 1 mm" in clicked["note"] and clicked["after"] == "2.50"
    assert "refused 0, stored over 1 mm 2 (7 2.50 mm, 8 2.50 mm)" in clicked["note"]


def test_every_registered_game_is_drawn_at_set_up():
    """``boards FIRST..LAST GAME,...`` registers the leather boards and Cubes' card too,
    each as it lies at set-up: no piece on the board but Tyr's dice (always on it)."""
    from vision.render.frame import render_scene

    assert set(calibration_bench.BOARD_GAMES) < set(calibration_bench.REGISTERED_GAMES)
    for game in ("neunfeld", "tyr", "cubes"):
        position = calibration_bench._set_up(game, 5)
        _, truth = render_scene(game, position, 5)
        assert set(truth["board"]["corners"]) == set(CORNER_NAMES)
        seen = truth["position"]
        if game == "cubes":
            assert all(field == "." for row in seen["grid"] for field in row)
        elif game == "neunfeld":
            assert seen["pawns"] == [0, 10]
        else:
            assert len(seen["dice"]) == 3


def test_the_board_rows_refuse_a_game_they_cannot_register():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "bench.calibration_bench", "boards", "1..2",
                           "esoloe,chess"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("usage:") and "neunfeld,tyr,cubes" in done.stderr
    assert done.stderr.count("\n") == 1
