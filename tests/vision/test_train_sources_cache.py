"""vision.train.sources.cached: crops cached by other code are rendered afresh."""

from __future__ import annotations

import numpy as np

from vision.classifier import InputSpec
from vision.train import sources
from vision.train.registry import ModelSpec


def test_the_digest_follows_the_code_that_makes_the_crops(tmp_path):
    render = tmp_path / "render"
    render.mkdir()
    (render / "glyphs.py").write_text("STROKES = 1\n")
    cut = tmp_path / "cut.py"
    cut.write_text("def cut(): pass\n")
    before = sources.crop_code_digest((render, cut))
    assert sources.crop_code_digest((render, cut)) == before
    (render / "glyphs.py").write_text("STROKES = 2\n")
    assert sources.crop_code_digest((render, cut)) != before
    (render / "glyphs.py").write_text("STROKES = 1\n")
    (render / "notes.txt").write_text("not code\n")
    assert sources.crop_code_digest((render, cut)) == before


def test_cached_crops_are_reused_until_the_code_changes(tmp_path, monkeypatch):
    calls = []

    def crops(n, seed):
        calls.append((n, seed))
        return [np.full((4, 4, 3), len(calls), np.uint8)] * n, {"kind": ["x"] * n}

    spec = ModelSpec("toy", {"kind": ("x",)}, InputSpec(4, 3, (0.5,) * 3, (0.25,) * 3), crops)
    monkeypatch.setattr(sources, "crop_code_digest", lambda: "aaaa")
    first, labels = sources.cached(spec, 2, 5, tmp_path)
    again, _ = sources.cached(spec, 2, 5, tmp_path)
    assert calls == [(2, 5)] and labels == {"kind": ["x", "x"]}
    assert (again[0] == first[0]).all()
    monkeypatch.setattr(sources, "crop_code_digest", lambda: "bbbb")
    fresh, _ = sources.cached(spec, 2, 5, tmp_path)
    assert calls == [(2, 5), (2, 5)] and int(fresh[0][0, 0, 0]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy-crops-5-2-aaaa.npz",
                                                          "toy-crops-5-2-bbbb.npz"]
