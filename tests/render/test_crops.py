"""Training crops: deterministic per item whatever the chunking, labels consistent."""

import numpy as np
import pytest

from rules.miwin import BY_COLOUR
from vision.render.crops import KINDS, render_crops


@pytest.mark.parametrize("kind", KINDS)
def test_items_do_not_depend_on_chunking(kind):
    a, la = render_crops(kind, 3, 5, size=48)
    b, lb = render_crops(kind, 2, 5, size=48, start=1)
    assert a.shape == (3, 48, 48, 3) and a.dtype == np.uint8
    assert a[1:].tobytes() == b.tobytes()
    assert la[1:] == lb
    assert a[0].tobytes() != a[1].tobytes()


def test_labels_agree_with_the_pieces():
    _, cubes = render_crops("cube", 6, 5, start=100)
    for lab in cubes:
        assert lab["up"] == lab["faces"]["up"] != "blank"
        assert "up" in lab["visible"] and "down" not in lab["visible"]
    _, dice = render_crops("die", 6, 5, start=100)
    for lab in dice:
        die = BY_COLOUR[lab["colour"]]
        assert lab["faces"]["up"] == lab["top"]
        assert die.opposite(lab["top"]) == lab["faces"]["down"]
    _, faces = render_crops("face", 6, 5, start=100)
    assert {lab["label"] for lab in faces} <= {"sakura", "fuji", "geisha", "blank"}
    assert all(0 <= lab["rotation"] < 4 for lab in faces)


def test_unknown_kind():
    with pytest.raises(ValueError, match="unknown crop kind"):
        render_crops("meeple", 1, 1)


def test_other_set_has_the_same_labels_and_other_looks():
    default = {kind: render_crops(kind, 2, 5, size=48, start=200) for kind in KINDS}
    for kind in KINDS:  # (one pool per variant: the default crops first)
        a, la = default[kind]
        b, lb = render_crops(kind, 2, 5, size=48, start=200, variant="other-set")
        assert la == lb, kind  # same pieces, same crop geometry
        assert b.shape == a.shape
        # another set under another lamp: clearly other pixels, not noise
        assert np.abs(a.astype(int) - b.astype(int)).mean() > 8, kind


def test_unknown_variant():
    with pytest.raises(ValueError, match="unknown crop variant"):
        render_crops("die", 1, 1, variant="plastic")


@pytest.mark.parametrize("kind", KINDS)
def test_crops_draw_small_canvases_from_the_pool(kind, monkeypatch):
    # what keeps crops cheap (their speed is measured by bench/render_bench.py): no
    # texture is made per crop once the pool exists, every crop is painted once by the
    # lean crop painter, at crop size (a face is cut from a window round its cube of a
    # render at three times the size), and the general scene painter is not used
    from vision.render import crop_paint, crops, draw, materials, pieces

    crops.pool_for(5)
    render_crops(kind, 12, 5, size=32, start=500)  # the pool's lazily made stone tops

    def no(*args, **kwargs):
        raise AssertionError("a texture was made, or the scene painter used, for a crop")

    for module, name in ((materials, "wood"), (materials, "table_texture"),
                         (pieces, "cube_textures"), (pieces, "die_textures"),
                         (draw.Painter, "__init__")):
        monkeypatch.setattr(module, name, no)
    sizes = []
    init = crop_paint.CropPainter.__init__

    def painter(self, cam, light):
        sizes.append(cam.size)
        init(self, cam, light)

    monkeypatch.setattr(crop_paint.CropPainter, "__init__", painter)
    render_crops(kind, 4, 5, size=32, start=520)
    assert len(sizes) == 4
    limit = 32 if kind != "face" else 3 * 32
    assert all(w <= limit and h <= limit for w, h in sizes), sizes
