"""The renderer's own stroke glyphs (vision/render/glyphs.py): every text it prints, the same
pixels on every OpenCV (make test-pi-deps runs these on OpenCV 4.11, make test on 5.0)."""

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from vision.render import glyphs, symbols
from vision.render.scene import board_spec

RENDER = Path(glyphs.__file__).parent


def _masks() -> list[np.ndarray]:
    out = [symbols.digit_mask(d, 96, 0.375, style) for style in glyphs.STYLES for d in "23456"]
    out.append(symbols.digit_mask("9", 64, 0.4, "heavy", weight=1.1, slant=0.05, stretch=0.92))
    out.append(glyphs.draw_text(np.zeros((24, 200), np.uint8), "e-SOLO-e-ABHAENGIGKEIT",
                                (2, 20), 12, "light"))
    return out


def test_the_same_pixels_on_opencv_4_11_and_5():
    # the digest was computed with OpenCV 5.0.0 (numpy 2.4) and 4.11.0 (numpy 1.24): the
    # same; a change to the glyphs changes it (then recompute it, in both venvs)
    digest = hashlib.sha1(b"".join(m.tobytes() for m in _masks())).hexdigest()
    assert digest == "36d60ed4eebad5cae2e4f32ffdd00a9e701d7e2f"


def test_masks_are_deterministic():
    a = _masks()
    symbols.digit_mask.cache_clear()
    assert all(x.tobytes() == y.tobytes() for x, y in zip(a, _masks(), strict=True))


def test_no_opencv_font_is_used_by_the_renderer():
    for path in RENDER.glob("*.py"):
        assert not re.search(r"cv2\.(putText|getTextSize|FONT_)", path.read_text()), path


def test_every_text_the_renderer_prints_has_its_glyphs():
    names = [c.name for c in board_spec("neunfeld").cells]  # its fields' numbers
    for text in ["e-SOLO-e", "ABHAENGIGKEIT", "23456", *names]:
        for style in glyphs.STYLES:
            img = glyphs.draw_text(np.zeros((40, 400), np.uint8), text, (5, 30), 20, style)
            assert img.any()


def test_glyphs_lie_in_their_box():
    for char, (width, strokes) in glyphs.GLYPHS.items():
        p = np.concatenate([np.asarray(s) for s in strokes])
        assert p[:, 0].min() >= -0.01 and p[:, 0].max() <= width + 0.01, char
        assert p[:, 1].min() >= -0.01 and p[:, 1].max() <= 1.01, char


def test_text_lies_where_its_width_says():
    height, style = 40, "light"
    img = glyphs.draw_text(np.zeros((80, 800), np.uint8), "ABHAENGIGKEIT", (10, 60), height,
                           style)
    cols = np.nonzero(img.max(0) > 127)[0]
    rows = np.nonzero(img.max(1) > 127)[0]
    stroke = glyphs.style_of(style).weight * height
    assert abs((cols[-1] - cols[0]) - glyphs.text_width("ABHAENGIGKEIT", height, style)) \
        <= stroke + 2
    assert abs(rows[0] - (60 - height)) <= stroke and abs(rows[-1] - 60) <= stroke


def test_digits_differ_from_each_other_and_6_from_a_turned_9():
    for style in glyphs.STYLES:
        masks = {d: symbols.digit_mask(d, 64, 0.5, style) for d in "0123456789"}
        for a in masks:
            for b in masks:
                if a < b:
                    assert np.abs(masks[a] - masks[b]).mean() > 0.02, (style, a, b)
        # the underline stays below: a 9 turned half round is not a 6
        assert np.abs(masks["6"] - masks["9"][::-1, ::-1]).mean() > 0.02


def test_the_heavy_style_is_bolder():
    heavy = symbols.digit_mask("4", 64, 0.5, "heavy")
    light = symbols.digit_mask("4", 64, 0.5, "light")
    assert heavy.sum() > 2 * light.sum()


@pytest.mark.parametrize("call", [lambda: glyphs.draw_text(np.zeros((9, 9), np.uint8), "x",
                                                           (0, 8), 6),
                                  lambda: symbols.digit_mask("4", 32, 0.5, "gothic")])
def test_what_it_cannot_draw_is_said(call):
    with pytest.raises(ValueError, match="glyph for 'x'|unknown glyph style 'gothic'"):
        call()
