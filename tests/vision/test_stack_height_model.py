"""The height model's cut and its crop source (issue #6): ``stack_height.height_crop`` turns
each field's crop so that the camera's foot lies below it, and ``sources.stack_fields``
cuts rendered e-SOLO-e stacks the same way."""

import cv2
import numpy as np
import pytest

from vision.grid import BoardPose, square_crop
from vision.stack_height import CROP_HALF_MM, CROP_LEVELS, CROP_PX, CUBE_MM, height_crop
from vision.train import registry, sources

U, V = 24.0, 0.0  # a field's centre, board mm


def _looking_down(foot: tuple[float, float]) -> BoardPose:
    """A camera 800 mm above the board, looking straight down, its foot at ``foot``."""
    K = np.array([[1200.0, 0, 640], [0, 1200.0, 360], [0, 0, 1]])
    R = np.diag([1.0, -1.0, -1.0])  # board x -> image x, board y -> image up
    centre = np.array([*foot, 800.0])
    return BoardPose(K, R, -R @ centre, False)


@pytest.fixture(scope="module")
def picture() -> np.ndarray:
    rng = np.random.default_rng(5)
    return cv2.GaussianBlur(rng.integers(0, 256, (720, 1280, 3), np.uint8), (0, 0), 3)


@pytest.mark.parametrize(("foot", "turns"), [((U, V - 300.0), 0), ((U - 300.0, V), 1),
                                             ((U, V + 300.0), 2), ((U + 300.0, V), 3)])
def test_the_direction_away_from_the_cameras_foot_is_up_in_the_crop(picture, foot, turns):
    pose = _looking_down(foot)
    north_up = square_crop(picture, pose.plane_homography(CROP_LEVELS * CUBE_MM), U, V,
                           CROP_HALF_MM, CROP_PX)
    got = height_crop(picture, pose, U, V)
    assert got.shape == (CROP_PX, CROP_PX, 3)
    # a camera west of the field: east (the crop's right, north up) is turned up
    want = np.rot90(north_up, turns)
    assert np.abs(got.astype(int) - want).max() <= 2
    if turns:
        assert np.abs(got.astype(int) - north_up).mean() > 4


@pytest.fixture(scope="module")
def stacks():
    pytest.importorskip("vision.render.frame", reason="the renderer is not present")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sources, "HEIGHT_FRAMES", 1)  # one frame a job
        one = sources.stack_fields(12, seed=3, workers=1)
        two = sources.stack_fields(12, seed=3, workers=2)
    return one, two


@pytest.mark.slow
def test_stacks_do_not_depend_on_workers_and_are_labelled_1_to_4(stacks):
    (one, labels_one), (two, labels_two) = stacks
    assert labels_one == labels_two
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    registry.label_indices(registry.get("height"), labels_one)  # every label is a height
    assert len(one) == 12 and one[0].shape == (CROP_PX, CROP_PX, 3)
    assert len(set(labels_one["height"])) >= 2


def test_height_frames_are_not_the_bench_or_dev_seeds():
    # the bench's 7,000,000.., the dev seeds 100..999 and 8,000,000..8,999,999
    for seed in (0, sources.TEST_SEED_OFFSET):
        first = sources.HEIGHT_FRAME_BASE + sources.HEIGHT_FRAME_STRIDE * seed
        assert first > 8_999_999
    # 8,000 crops (some 2,000 frames) of one seed never reach the next seed's frames
    assert sources.HEIGHT_FRAME_STRIDE > 8000


def test_the_shipped_model_reads_heights_1_to_4_and_weighs_the_stacks_seen(picture):
    from vision.board import geometry
    from vision.classifier import shared
    from vision.stack_height import PRIOR, Height, weigh_by_model

    model = shared("height")
    assert model is not None and model.heads == {"height": ("1", "2", "3", "4")}
    geom = geometry("esoloe")
    pose = _looking_down((0.0, -200.0))
    heights = [Height(1, PRIOR[0], [1.0, None, None, None]), None] + [
        Height(2, 0.6, [1.0, 0.9, 0.1, None], (0.2, 0.6, 0.15, 0.05))] * 3
    got = weigh_by_model(picture, pose, geom, heights, model)
    assert got[:2] == heights[:2]  # no level seen (from above): not weighed; empty
    for before, after in zip(heights[2:], got[2:], strict=True):
        assert np.isclose(sum(after.probabilities), 1.0)
        assert not np.allclose(after.probabilities, before.probabilities)
        assert after.model is not None and len(after.model) == 4  # the model's likelihood
    assert weigh_by_model(picture, pose, geom, heights, None) == heights


def test_the_reader_weighs_esoloe_heights_by_the_model(monkeypatch):
    pytest.importorskip("vision.render.frame", reason="the renderer is not present")
    from vision import read_esoloe
    from vision.board import geometry
    from vision.classifier import shared
    from vision.measure import truth_fix
    from vision.render.frame import RenderOptions, render_scene

    position = {"cells": [[{"player": 0, "faces": {"up": "fuji"}}] * 2, [], [], [], []]}
    image, truth = render_scene("esoloe", position, 11,
                                options=RenderOptions(camera_mode="oblique"))
    calls = []
    real = read_esoloe.weigh_by_model

    def spy(image, pose, geom, heights, model):
        calls.append(model)
        return real(image, pose, geom, heights, model)

    monkeypatch.setattr(read_esoloe, "weigh_by_model", spy)
    read_esoloe.read_fields(image, truth_fix(truth), geometry("esoloe"))
    assert calls == [shared("height")] and calls[0] is not None
