"""The printed marks, drawn procedurally as ink masks: cube symbols, pips, digits.

Each function returns a float32 alpha mask (size x size, 1 = ink) drawn at four times
the size with anti-aliasing and reduced, so edges are smooth at any resolution. Shapes
are defined in unit coordinates (0..1, y down) of the face they are printed on.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from vision.render import glyphs

SS = 4  # supersampling factor
CUBE_SYMBOLS = ("sakura", "fuji", "geisha")
#: how a set draws its symbols: filled ink, or thick outlines of the same shapes only
STYLES = ("solid", "outline")


def _canvas(size: int) -> np.ndarray:
    return np.zeros((size * SS, size * SS), np.uint8)


def _pts(size: int, pts) -> np.ndarray:
    return np.round(np.asarray(pts, np.float64) * size * SS * 16).astype(np.int32)


def _poly(img, size, pts, value=255):
    cv2.fillPoly(img, [_pts(size, pts)], value, cv2.LINE_AA, shift=4)


def _ellipse(img, size, c, axes, angle, value=255, thickness=-1):
    s = size * SS * 16
    cv2.ellipse(img, (int(c[0] * s), int(c[1] * s)), (int(axes[0] * s), int(axes[1] * s)),
                angle, 0, 360, value, thickness if thickness < 0 else max(1, int(
                    thickness * size * SS)), cv2.LINE_AA, shift=4)


def _line(img, size, pts, width, value=255):
    cv2.polylines(img, [_pts(size, pts)], False, value, max(1, int(width * size * SS)),
                  cv2.LINE_AA, shift=4)


def _finish(img: np.ndarray, size: int) -> np.ndarray:
    return cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


def _sakura(size: int) -> np.ndarray:
    """A five-petal cherry blossom: notched round petals, a ring of stamens."""
    img = _canvas(size)
    c = np.array([0.5, 0.52])
    for k in range(5):
        a = math.radians(-90 + 72 * k)
        d = np.array([math.cos(a), math.sin(a)])
        n = np.array([-d[1], d[0]])
        # petal outline: narrow at the centre, round and wide outside, notched at the tip
        ts = np.linspace(0, 1, 24)
        wdt = 0.16 * np.sin(np.pi * (0.08 + 0.8 * ts)) ** 0.6
        r = 0.06 + 0.33 * ts
        left = c + r[:, None] * d - wdt[:, None] * n
        right = c + r[:, None] * d + wdt[:, None] * n
        tip_l = c + 0.41 * d - 0.07 * n
        tip_r = c + 0.41 * d + 0.07 * n
        notch = c + 0.34 * d
        outline = np.vstack([left, [tip_l, notch, tip_r], right[::-1]])
        _poly(img, size, outline)
    # the blossom's heart: a pale disc with stamen dots
    _ellipse(img, size, c, (0.085, 0.085), 0, value=0)
    for k in range(5):
        a = math.radians(-54 + 72 * k)
        p = c + 0.055 * np.array([math.cos(a), math.sin(a)])
        _ellipse(img, size, p, (0.018, 0.018), 0)
    _ellipse(img, size, c, (0.02, 0.02), 0)
    return _finish(img, size)


def _fuji(size: int) -> np.ndarray:
    """Mount Fuji: a wide mountain with concave flanks, a flat top and a jagged snow cap."""
    img = _canvas(size)
    ts = np.linspace(0, 1, 20)
    left = np.stack([0.06 + 0.36 * ts ** 1.6, 0.80 - 0.50 * ts], 1)
    right = np.stack([0.94 - 0.36 * ts ** 1.6, 0.80 - 0.50 * ts], 1)
    mountain = np.vstack([left, [[0.46, 0.27], [0.54, 0.27]], right[::-1]])
    _poly(img, size, mountain)
    # snow cap: unprinted, inside a thin ink outline, with a jagged lower edge
    cap = [[0.43, 0.32], [0.465, 0.305], [0.535, 0.305], [0.57, 0.32], [0.66, 0.45],
           [0.62, 0.43], [0.585, 0.49], [0.55, 0.44], [0.5, 0.51], [0.455, 0.44],
           [0.415, 0.49], [0.38, 0.43], [0.34, 0.45]]
    _poly(img, size, cap, value=0)
    # a ground line and a low sun
    _line(img, size, [[0.04, 0.87], [0.96, 0.87]], 0.035)
    _ellipse(img, size, (0.80, 0.2), (0.065, 0.065), 0)
    return _finish(img, size)


def _geisha(size: int) -> np.ndarray:
    """A geisha's head from the front: hair with a bun and side wings, a pale face."""
    img = _canvas(size)
    _ellipse(img, size, (0.5, 0.17), (0.17, 0.10), 0)  # top bun
    _ellipse(img, size, (0.5, 0.39), (0.27, 0.22), 0)  # crown of the hair
    _ellipse(img, size, (0.25, 0.47), (0.10, 0.14), -20)  # side wings
    _ellipse(img, size, (0.75, 0.47), (0.10, 0.14), 20)
    # kanzashi: a hairpin through the bun with a flower at its end
    _line(img, size, [[0.24, 0.26], [0.80, 0.10]], 0.025)
    _ellipse(img, size, (0.83, 0.09), (0.045, 0.045), 0)
    # the face: a pale oval cut out of the hair, with a widow's peak
    _ellipse(img, size, (0.5, 0.60), (0.17, 0.22), 0, value=0)
    _poly(img, size, [[0.36, 0.47], [0.5, 0.43], [0.64, 0.47], [0.6, 0.40], [0.4, 0.40]])
    _poly(img, size, [[0.44, 0.44], [0.5, 0.5], [0.56, 0.44]])
    # eyes, brows, lips
    for sx in (-1, 1):
        x = 0.5 + sx * 0.075
        _line(img, size, [[x - 0.04, 0.585], [x, 0.6], [x + 0.04, 0.585]], 0.02)
        _line(img, size, [[x - 0.04, 0.545], [x + 0.035, 0.54]], 0.012)
    _ellipse(img, size, (0.5, 0.73), (0.03, 0.017), 0)
    # neck and kimono collar
    _line(img, size, [[0.43, 0.80], [0.43, 0.88]], 0.02)
    _line(img, size, [[0.57, 0.80], [0.57, 0.88]], 0.02)
    _poly(img, size, [[0.18, 1.0], [0.36, 0.86], [0.5, 0.97], [0.64, 0.86], [0.82, 1.0]])
    _poly(img, size, [[0.42, 0.9], [0.5, 0.97], [0.58, 0.9], [0.5, 0.99]], value=0)
    return _finish(img, size)


_SYMBOLS = {"sakura": _sakura, "fuji": _fuji, "geisha": _geisha}


@lru_cache(maxsize=64)
def symbol_mask(name: str, size: int, style: str = "solid") -> np.ndarray:
    """Ink mask of a cube symbol (``sakura``, ``fuji``, ``geisha``); ``blank`` is empty.

    ``style`` ``outline``: another maker's drawing of the same symbol, only the outlines
    of its shapes in a thick stroke (about 5 % of the face), nothing filled.
    """
    if style not in STYLES:
        raise ValueError(f"unknown symbol style {style!r} (known: {', '.join(STYLES)})")
    if name == "blank":
        return np.zeros((size, size), np.float32)
    if name not in _SYMBOLS:
        raise ValueError(f"unknown cube symbol {name!r} (known: {', '.join(CUBE_SYMBOLS)})")
    if style == "solid":
        m = _SYMBOLS[name](size)
    else:
        big = symbol_mask(name, size * SS) > 0.5
        r = max(1, round(0.026 * size * SS))
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        ring = cv2.morphologyEx(big.astype(np.uint8) * 255, cv2.MORPH_GRADIENT, k)
        m = _finish(ring, size)
    m.setflags(write=False)
    return m


# 3x3 grid cells (row, column) holding a pip, for 1..9; 7 is the six plus the centre,
# 8 is the grid without its centre, 9 the whole grid
PIP_CELLS = {
    1: [(1, 1)],
    2: [(0, 2), (2, 0)],
    3: [(0, 2), (1, 1), (2, 0)],
    4: [(0, 0), (0, 2), (2, 0), (2, 2)],
    5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
    6: [(0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2)],
    7: [(0, 0), (1, 0), (2, 0), (1, 1), (0, 2), (1, 2), (2, 2)],
    8: [(r, c) for r in range(3) for c in range(3) if (r, c) != (1, 1)],
    9: [(r, c) for r in range(3) for c in range(3)],
}


@lru_cache(maxsize=64)
def pip_mask(n: int, size: int, radius: float = 0.085) -> np.ndarray:
    """Pips 1..9 on a die face: dots on a 3x3 grid."""
    if n not in PIP_CELLS:
        raise ValueError(f"a Miwin die face has 1..9 pips, not {n!r}")
    img = _canvas(size)
    for r, c in PIP_CELLS[n]:
        _ellipse(img, size, (0.22 + 0.28 * c, 0.22 + 0.28 * r), (radius, radius), 0)
    m = _finish(img, size)
    m.setflags(write=False)
    return m


@lru_cache(maxsize=512)
def digit_mask(text: str, size: int, height: float = 0.6, style: str = "heavy",
               weight: float = 1.0, slant: float = 0.0, stretch: float = 1.0) -> np.ndarray:
    """A digit (or short text) centred on the face in the renderer's own glyphs
    (``glyphs.STYLES``; ``weight``, ``slant``, ``stretch`` as ``glyphs.draw_text``), its
    ink ``height`` of the face tall (the strokes' width included); 6 and 9 underlined."""
    img = _canvas(size)
    px = size * SS
    stroke = glyphs.style_of(style).weight * weight
    cap = height * px / (1 + stroke)
    tw = glyphs.text_width(text, cap, style, stretch)
    x, base = (px - tw - slant * cap) / 2, (px + cap) / 2
    glyphs.draw_text(img, text, (x, base), cap, style, weight=weight, slant=slant,
                     stretch=stretch)
    if text in ("6", "9"):  # an underline tells 6 from 9, as on real number tokens
        y = base + stroke * cap / 2 + 0.06 * px
        cv2.line(img, (int(x * 16), int(y * 16)), (int((x + tw) * 16), int(y * 16)), 255,
                 max(1, int(round(stroke * cap / 2))), cv2.LINE_AA, shift=4)
    m = _finish(img, size)
    m.setflags(write=False)
    return m
