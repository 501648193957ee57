"""The registry's crop sources over the renderer: labels mapped per head, and the same
crops whatever the number of worker processes."""

import numpy as np
import pytest

from vision.train import registry, sources

pytest.importorskip("vision.render.crops", reason="the renderer's crop API is not present")


def test_die_faces_label_both_heads_and_do_not_depend_on_workers(monkeypatch):
    monkeypatch.setattr(sources, "CHUNK", 2)
    one, labels_one = sources.rendered("die", 3, seed=5, size=24, workers=1)
    two, labels_two = sources.rendered("die", 3, seed=5, size=24, workers=2)
    assert labels_one == labels_two
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    crops, labels = sources.die_faces(2, seed=5)
    spec = registry.get("pips")
    indices = registry.label_indices(spec, labels)  # every label is one of the head's
    assert len(crops) == 2 and crops[0].dtype == np.uint8
    assert (indices["pips"] >= 0).all() and (indices["colour"] >= 0).all()
