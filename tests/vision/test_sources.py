"""The registry's crop sources over the renderer: labels mapped per head, and the same
crops whatever the number of worker processes."""

import numpy as np
import pytest

from vision.train import registry, sources

pytest.importorskip("vision.render.crops", reason="the renderer's crop API is not present")


def test_renders_do_not_depend_on_workers(monkeypatch):
    monkeypatch.setattr(sources, "CHUNK", 2)
    one, labels_one = sources.rendered("die", 3, seed=5, size=24, workers=1)
    two, labels_two = sources.rendered("die", 3, seed=5, size=24, workers=2)
    assert labels_one == labels_two
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


def test_die_tops_are_cut_as_the_reader_cuts_them_and_label_both_heads(monkeypatch):
    monkeypatch.setattr(sources, "CHUNK", 2)
    crops, labels = sources.die_tops(3, seed=5, workers=1)
    again, _ = sources.die_tops(3, seed=5, workers=2)
    assert all(np.array_equal(a, b) for a, b in zip(crops, again, strict=True))
    spec = registry.get("pips")
    indices = registry.label_indices(spec, labels)  # every label is one of the head's
    assert len(crops) == 3 and crops[0].shape == (sources.RENDER_SIZE, sources.RENDER_SIZE, 3)
    assert (indices["pips"] >= 0).all() and (indices["colour"] >= 0).all()
    # the top fills the crop's middle: the middle is the die's colour, not the table's
    for crop, colour in zip(crops, labels["colour"], strict=True):
        b, g, r = crop[24:40, 24:40].reshape(-1, 3).mean(0)
        assert {"blue": b > r, "red": r > b, "black": max(b, g, r) < 110}[colour], colour
