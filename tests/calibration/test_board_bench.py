"""bench.calibration_bench's board rows name each refusal by its reason, read from the
registration's own messages: a message reworded there must still be named here."""
import numpy as np
import pytest

from bench.calibration_bench import _listed, _why
from calibration import registration
from calibration.registration import RegistrationError
from vision.board import BoardFix

SQUARE = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], float)


def _refusal(monkeypatch, corner_sets, **kw) -> str:
    fixes = iter([None if c is None else BoardFix(c, c) for c in corner_sets])
    monkeypatch.setattr(registration, "find_board", lambda image, geom: next(fixes))
    frames = [np.zeros((720, 1280, 3), np.uint8)] * len(corner_sets)
    with pytest.raises(RegistrationError) as refused:
        registration.register_auto(frames, "esoloe-tictactoe", n=len(corner_sets), **kw)
    return str(refused.value)


def test_each_refusal_is_named_by_its_reason(monkeypatch):
    assert _why(_refusal(monkeypatch, [None, None])) == "not found"
    assert _why(_refusal(monkeypatch, [SQUARE, SQUARE + 10, SQUARE - 10])) == "frames disagree"
    monkeypatch.setattr(registration, "frame_lines",
                        lambda images, corners, geom, parts=1: [(s, 0.0, 0.0, 3.0)
                                                                for s in range(4)])
    assert _why(_refusal(monkeypatch, [SQUARE, SQUARE])) == "blurred"
    monkeypatch.setattr(registration, "frame_lines",
                        lambda images, corners, geom, parts=1: [(s, 0.0, 1.5, 1.0)
                                                                for s in range(4)])
    assert _why(_refusal(monkeypatch, [SQUARE, SQUARE])) == "fit report"
    assert _listed([]) == "0" and _listed(["103 blurred", "104 2.10 mm"]) == (
        "2 (103 blurred, 104 2.10 mm)")
