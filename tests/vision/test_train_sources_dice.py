"""The pip model's crops blurred as frames are (``sources.frame_blur``): the renderer's
die crops have no motion blur and a focus blur under 1 px, the frames up to 7 px and
1.8 px, where the model read blurred black 7s and blue 9s as 6 (models/pips.md)."""

import cv2
import numpy as np
import pytest

from vision.train import sources

pytest.importorskip("vision.render.crops", reason="the renderer's crop API is not present")


def _sharpness(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_32F).var())


def _pips_face() -> np.ndarray:
    image = np.full((80, 80, 3), 30, np.uint8)
    for x, y in [(25, 25), (55, 25), (40, 40), (25, 55), (55, 55)]:
        cv2.circle(image, (x, y), 4, (235, 235, 235), -1)
    return image


@pytest.mark.parametrize("motion, focus", [(1.0, 0.0), (0.0, 1.0)])
def test_a_blurred_crop_is_smoother_and_the_same_for_the_same_stream(monkeypatch, motion, focus):
    monkeypatch.setattr(sources, "MOTION_SHARE", motion)
    monkeypatch.setattr(sources, "FOCUS_SHARE", focus)
    face = _pips_face()
    blurred = sources.frame_blur(face, np.random.default_rng(3))
    assert blurred.dtype == np.uint8 and blurred.shape == face.shape
    assert _sharpness(blurred) < 0.5 * _sharpness(face)
    assert np.array_equal(blurred, sources.frame_blur(face, np.random.default_rng(3)))


def test_an_unblurred_crop_is_left_as_it_is(monkeypatch):
    monkeypatch.setattr(sources, "MOTION_SHARE", 0.0)
    monkeypatch.setattr(sources, "FOCUS_SHARE", 0.0)
    face = _pips_face()
    assert sources.frame_blur(face, np.random.default_rng(3)) is face


def test_die_tops_blur_the_rendered_die_before_it_is_cut(monkeypatch):
    monkeypatch.setattr(sources, "CHUNK", 2)
    monkeypatch.setattr(sources, "MOTION_SHARE", 0.0)
    monkeypatch.setattr(sources, "FOCUS_SHARE", 0.0)
    sharp, labels = sources.die_tops(2, seed=5, workers=1)
    monkeypatch.setattr(sources, "FOCUS_SHARE", 1.0)
    soft, again = sources.die_tops(2, seed=5, workers=1)
    assert labels == again  # the same dice, only blurred
    for a, b in zip(sharp, soft, strict=True):
        assert _sharpness(b) < _sharpness(a)
