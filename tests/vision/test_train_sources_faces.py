"""The symbol model's crop sources: e-SOLO-e cube faces cut from whole frames as the
e-SOLO-e reader cuts them (``vision.train.sources.cube_face_cuts``), and their mix with the
rendered faces (``cube_faces_and_cuts``)."""

import numpy as np
import pytest

from vision.classifier import Classifier, resize
from vision.read_esoloe import FACE_CROP
from vision.train import registry, sources

pytest.importorskip("vision.render.frame", reason="the renderer is not present")


@pytest.fixture(scope="module")
def cuts():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sources, "FACE_FRAMES", 1)  # several frames, one job each
        one = sources.cube_face_cuts(48, seed=3, workers=1)
        two = sources.cube_face_cuts(48, seed=3, workers=2)
    return one, two


def test_cuts_depend_on_the_seed_only(cuts):
    (one, labels_one), (two, labels_two) = cuts
    assert labels_one == labels_two
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    other, _ = sources.cube_face_cuts(8, seed=4, workers=1)
    assert not all(np.array_equal(a, b) for a, b in zip(one, other, strict=False))


def test_cuts_are_the_readers_crops_with_their_labels(cuts):
    (crops, labels), _ = cuts
    spec = registry.get("symbol")
    indices = registry.label_indices(spec, labels)  # every label is one of the head's
    assert len(crops) == 48 and {c.shape for c in crops} == {(FACE_CROP, FACE_CROP, 3)}
    assert set(labels["symbol"]) == {*registry.CUBE_SYMBOLS, None}  # None: 3andC's cubes
    assert set(labels["cube"]) == set(registry.CUBE_PLAYERS)
    # a symbol has its quarter turns, a blank face (or 3andC's) none
    printed = np.isin(labels["symbol"], ["sakura", "fuji", "geisha"])
    assert ((indices["rotation"] >= 0) == printed).all()
    # the labels say what the shipped model reads where it is sure: the crops are cut and
    # turned as the reader's, and the quarter turns are the reader's convention
    model = Classifier.load("symbol")
    sure = agree = 0
    for pred, symbol, turns in zip(model.predict(crops), labels["symbol"], labels["rotation"],
                                   strict=True):
        if symbol is not None and pred["symbol"].probability >= 0.95:
            sure += 1
            agree += pred["symbol"].label == symbol and (
                turns is None or pred["rotation"].label == turns)
    assert sure >= 10 and agree >= 0.9 * sure


def test_the_mix_is_half_rendered_faces_half_cuts(cuts):
    crops, labels = sources.cube_faces_and_cuts(6, seed=3)
    faces, face_labels = sources.cube_faces(3, seed=3)
    (cut, cut_labels), _ = cuts
    # one size (the training cache stacks them): the rendered faces shrunk as the
    # classifier shrinks them
    assert {c.shape for c in crops} == {(FACE_CROP, FACE_CROP, 3)}
    assert np.array_equal(resize(crops[:3], FACE_CROP, 3), resize(faces, FACE_CROP, 3))
    assert all(np.array_equal(a, b) for a, b in zip(crops[3:], cut[:3], strict=True))
    assert labels == {h: face_labels[h] + cut_labels[h][:3] for h in face_labels}


def test_face_frames_are_not_the_bench_or_dev_seeds():
    # the bench's 7,000,000.., the dev seeds 100..999 and 8,000,000..8,999,999, and not
    # the stone model's field frames of the same seed
    for seed in (1, 1 + sources.TEST_SEED_OFFSET):
        first = sources.FACE_FRAME_BASE + sources.FACE_FRAME_STRIDE * seed
        last = first + sources.FACE_FRAME_STRIDE - 1
        assert first > 8_999_999 or last < 100
        fields = sources.FIELD_FRAME_BASE + sources.FIELD_FRAME_STRIDE * seed
        assert last < fields or first > fields + sources.FIELD_FRAME_STRIDE - 1
    # 8,000 crops (about 1,600 frames) of one seed never reach the next seed's frames
    assert sources.FACE_FRAME_STRIDE > 8000


def test_blurred_faces_are_the_rendered_faces_blurred_as_frames_blur_them(monkeypatch):
    # the frames' motion and defocus, at the scale of a face as small as a frame shows it:
    # the renders' own blur stops at 1 px of a face 30..70 px across (docs/vision.md: the
    # model left blurred tops null)
    def edges(image):  # the mean step between neighbouring 4 x 4 blocks (the noise averaged)
        x = image.astype(np.float32).reshape(16, 4, 16, 4, 3).mean((1, 3))
        return float(np.abs(np.diff(x, axis=0)).mean() + np.abs(np.diff(x, axis=1)).mean())

    sharp, labels = sources.cube_faces(3, seed=3)
    monkeypatch.setattr(sources, "FACE_BLUR_SHARES", (0.0, 0.0))
    same, _ = sources.cube_faces_blurred(3, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(sharp, same, strict=True))
    monkeypatch.setattr(sources, "FACE_BLUR_SHARES", (0.0, 1.0))
    monkeypatch.setattr(sources, "FACE_FRAME_PX", (12.0, 12.0))  # 5.3 crop px a frame px
    soft, again = sources.cube_faces_blurred(3, seed=3)
    assert labels == again  # the same faces, only blurred
    for a, b in zip(sharp, soft, strict=True):
        assert b.shape == a.shape and edges(b) < 0.6 * edges(a)


def test_frame_blur_scales_with_the_crops_pixels_per_frame_pixel():
    face = np.zeros((64, 64, 3), np.uint8)
    face[20:44, 20:44] = 230
    shares = (1.0, 1.0)  # moved and defocused
    once = sources.frame_blur(face, np.random.default_rng(5), 1.0, shares)
    larger = sources.frame_blur(face, np.random.default_rng(5), 4.0, shares)
    # the square's edge spreads about four times as far
    assert (larger[32, :20, 0] > 40).sum() > 2 * max((once[32, :20, 0] > 40).sum(), 1)
