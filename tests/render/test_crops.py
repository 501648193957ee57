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


def test_the_crop_painter_draws_a_face_where_it_projects():
    # one warp of a face's texture gives its colour and coverage: the pixels it covers
    # are where the face's corners project, and a box nearer the camera hides it
    import cv2

    from vision.render.camera import Camera, look_at
    from vision.render.crop_paint import Box, CropPainter, Light, Plane, material, mips, plain
    from vision.render.scene import Lamp

    R, t = look_at(np.array([0.0, 0.0, 20.0]), 0.0, 0.0, 400.0)
    K = np.array([[900.0, 0, 31.5], [0, 900.0, 31.5], [0, 0, 1]])
    cam = Camera(K, R, t, (64, 64))
    light = Light([Lamp(np.array([100.0, 50.0, 600.0]), np.ones(3, np.float32), 20.0)],
                  np.full(3, 0.3, np.float32), (0.0, 0.0, 0.0), cam.center)
    grey = mips(np.full((64, 64, 3), 0.5, np.float32))
    board = Box(np.array([0.0, 0.0, 1.0]), np.eye(3), (100.0, 100.0, 1.0), [plain()] * 6,
                material(0.0, 10.0), 0.0, group="board", skip=(0,))
    top = Plane(1.0, 0.1, 20.0, pyramid=grey, quad=board.quads[0])
    table = Plane(1.0, 0.0, 12.0, texture=grey[0])

    def paint(*boxes):
        p = CropPainter(cam, light)
        p.paint(table, board, top, [], list(boxes), list(boxes), boxes[0], list(boxes[1:]))
        return p

    cube = Box(np.array([0.0, 0.0, 11.0]), np.eye(3), (9.0, 9.0, 9.0), [plain()] * 6,
               material(0.1, 25.0, (0.2, 0.4, 0.9)), 2.0, group=1)
    p = paint(cube)
    (face, seen, drawn), = p.seen()  # seen from straight above: the top face only
    assert face == 0 and seen == drawn
    area = cv2.contourArea(cam.project(cube.quads[0], distort=False).astype(np.float32))
    assert abs(drawn - area) < 0.05 * area
    image = p.image()
    assert image.shape == (64, 64, 3) and image.dtype == np.float32
    centre = image[28:36, 28:36].mean((0, 1))
    assert centre[2] > centre[1] > centre[0]  # the tint: red over green over blue
    cover = Box(np.array([6.0, 0.0, 31.0]), np.eye(3), (9.0, 9.0, 9.0), [plain()] * 6,
                material(0.1, 25.0), 2.0, group=2)
    (_, seen, drawn), = paint(cube, cover).seen()
    assert 0.2 * drawn < seen < 0.5 * drawn  # two thirds of it under the nearer box
