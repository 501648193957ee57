"""The stone model's crop source: Cubes fields cut from whole frames as the Cubes reader
cuts them (``vision.train.sources.stone_fields``)."""

import numpy as np
import pytest

from vision.read_cubes import CROP_PX
from vision.train import registry, sources

pytest.importorskip("vision.render.frame", reason="the renderer is not present")


@pytest.fixture(scope="module")
def fields():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sources, "FIELD_FRAMES", 1)  # two frames, one job each
        one = sources.stone_fields(40, seed=3, workers=1)
        two = sources.stone_fields(40, seed=3, workers=2)
    return one, two


def test_fields_do_not_depend_on_workers(fields):
    (one, labels_one), (two, labels_two) = fields
    assert labels_one == labels_two
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


def test_fields_are_the_readers_crops_with_every_head_labelled(fields):
    (crops, labels), _ = fields
    spec = registry.get("stone")
    indices = registry.label_indices(spec, labels)  # every label is one of the head's
    assert len(crops) == 40 and crops[0].shape == (CROP_PX, CROP_PX, 3)
    kinds = set(labels["kind"])
    assert {"empty", "white"} <= kinds and len(kinds) >= 4
    coloured = indices["digit"] >= 0
    assert (coloured == (indices["side"] >= 0)).all()
    assert all((k in ("white", "empty")) != c for k, c in zip(labels["kind"], coloured,
                                                               strict=True))
    # the stone is where the reader looks: a crop of a blue stone is largely blue, of a
    # red or orange one largely red (a neighbour's side face shows only at the edge)
    for crop, kind in zip(crops, labels["kind"], strict=True):
        b, _, r = crop.reshape(-1, 3).astype(int).T
        if kind == "blue":
            assert np.mean(b > r + 25) > 0.15
        elif kind in ("red", "orange"):
            assert np.mean(r > b + 40) > 0.15


def test_field_frames_are_not_the_bench_or_dev_seeds():
    # the bench's 7,000,000.., the dev seeds 100..999 and 8,000,000..8,999,999
    for seed in (1, 1 + sources.TEST_SEED_OFFSET):
        first = sources.FIELD_FRAME_BASE + sources.FIELD_FRAME_STRIDE * seed
        last = first + sources.FIELD_FRAME_STRIDE - 1
        assert first > 8_999_999 or last < 100
    # 16,000 crops (about 640 frames) of one seed never reach the next seed's frames
    assert sources.FIELD_FRAME_STRIDE > 16000
