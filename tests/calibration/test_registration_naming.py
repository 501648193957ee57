"""Board registration and the naming of a board without marks (docs/calibration.md)."""

import numpy as np
import pytest

from calibration import registration
from vision.board import BoardFix


def _square(turned_deg: float) -> np.ndarray:
    """A square seen from straight above, nw ne se sw, its north side ``turned_deg``
    degrees round from straight up the image."""
    a = np.radians(turned_deg + np.array([135, 45, -45, -135]))
    return np.column_stack([640 + 150 * np.cos(a), 360 - 150 * np.sin(a)])


def _register(monkeypatch, corners, game="esoloe-tictactoe", turn=0):
    fix = BoardFix(corners, corners)
    monkeypatch.setattr(registration, "find_board", lambda image, geom: fix)
    frames = [np.zeros((720, 1280, 3), np.uint8)] * 2
    return registration.register_auto(frames, game, n=2, turn=turn)


def test_a_board_without_marks_named_near_a_corner_is_flagged(monkeypatch):
    reg = _register(monkeypatch, _square(40.0))
    assert reg.fit["naming"] == {"by": "camera", "turn": 0, "camera_margin_deg": 5.0}
    assert "--turn" in registration.naming_warning(reg)
    square_on = _register(monkeypatch, _square(-8.0))
    assert square_on.fit["naming"]["camera_margin_deg"] == 37.0
    assert registration.naming_warning(square_on) is None
    # the players' own naming, given at set-up, is not the camera rule's to doubt
    turned = _register(monkeypatch, _square(40.0), turn=1)
    assert turned.fit["naming"]["by"] == "turn" and registration.naming_warning(turned) is None
    assert np.allclose(turned.corners, np.roll(_square(40.0), -1, axis=0))


def test_a_board_with_marks_has_no_camera_naming(monkeypatch):
    reg = _register(monkeypatch, _square(40.0), game="esoloe-3andc")
    assert "naming" not in reg.fit and registration.naming_warning(reg) is None


@pytest.mark.parametrize("game", ["esoloe-tictactoe", "tyr"])
def test_a_camera_round_from_the_south_side_registers_as_the_truth_names(game):
    # the camera 60 degrees round from the board's south side as built: named a quarter
    # turn on, in the truth and by the registration alike
    from vision.render.camera import make_camera
    from vision.render.frame import RenderOptions, render_scene

    # the empty board, as at set-up (Tyr's dice beside it)
    position = {"cells": [[] for _ in range(9)]} if game == "esoloe-tictactoe" else {
        "dice": {c: {"top": None, "cell": None} for c in ("blue", "red", "black")}}
    frames, truth = [], None
    for k in range(2):
        cam = make_camera([0.0, 0.0, 5.0], 45.0, 60.0, 600.0)
        image, t = render_scene(game, position, 8_000_011, cam,
                                RenderOptions(board_pose=(0.0, 0.0, 0.0), frame=k))
        frames.append(image)
        truth = truth or t
    assert truth["board"]["naming"]["quarter_turns"] == 1
    reg = registration.register_auto(frames, game, n=2)
    assert reg.fit["naming"]["by"] == "camera" and reg.fit["naming"]["camera_margin_deg"] > 8
    assert registration.error_against_truth(reg, truth)["max_mm"] < 1.0
