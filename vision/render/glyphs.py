"""The renderer's own stroke font: the text it prints, drawn as anti-aliased polylines.

OpenCV's ``putText`` draws other glyphs on OpenCV 5.0 than on 4.11, so renders made with it
differed by OpenCV version; these glyphs are drawn with ``cv2.polylines`` only, which both
draw alike, so the same seed renders the same image on either.

A glyph is a few strokes, each a polyline in glyph units: x from the glyph's left edge, y
down from the cap line (0) to the baseline (1); one unit is the cap height. Curves are
polylines through points of ellipse arcs (``_arc``). The characters are those the renderer
prints: the digits (the stones, Neunfeld's field numbers), the capitals of "ABHAENGIGKEIT"
and "SOLO", a lower-case ``e`` and ``-`` (the e-SOLO-e maker's mark).

A style (``STYLES``) sets the stroke weight, the glyphs' width and the spacing: ``heavy``
(a bold, wide, round print: the default set's stones, with the weight and proportions of
the OpenCV 5 digits models/stone.onnx was trained on, and Neunfeld's field numbers) and
``light`` (thin and narrow: the other set's stones, the e-SOLO-e board's mark, the cards'
title).
``draw_text`` also takes a slant and a width and weight factor, for the small differences
between one print and another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float) -> list:
    """Points of an ellipse arc from angle ``a0`` to ``a1`` (degrees, y down: 90 is the
    bottom), every 10 degrees or less."""
    n = max(2, int(math.ceil(abs(a1 - a0) / 10)) + 1)
    return [(cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
            for a in np.linspace(a0, a1, n)]


def _turned(strokes: list, width: float) -> list:
    """The strokes turned half round in their box (a 9 from a 6)."""
    return [[(width - x, 1 - y) for x, y in s] for s in strokes]


_SIX = [[(0.44, 0.0), (0.08, 0.58)], _arc(0.31, 0.69, 0.27, 0.31, 0, 360)]

#: character -> (width, strokes); width and x in cap heights
GLYPHS: dict[str, tuple[float, list]] = {
    "0": (0.62, [_arc(0.31, 0.5, 0.29, 0.5, 0, 360)]),
    "1": (0.62, [[(0.14, 0.22), (0.36, 0.0), (0.36, 1.0)]]),
    "2": (0.62, [_arc(0.3, 0.27, 0.26, 0.26, 195, 375) + [(0.03, 1.0), (0.6, 1.0)]]),
    "3": (0.62, [[(0.06, 0.0), (0.56, 0.0), (0.26, 0.42)] + _arc(0.3, 0.71, 0.29, 0.29, 250, 510)]),
    "4": (0.62, [[(0.44, 1.0), (0.44, 0.0), (0.02, 0.68), (0.62, 0.68)]]),
    "5": (0.62, [[(0.54, 0.0), (0.13, 0.0)] + _arc(0.31, 0.68, 0.28, 0.3, 215, 510)]),
    "6": (0.62, _SIX),
    "7": (0.62, [[(0.02, 0.0), (0.6, 0.0), (0.22, 1.0)]]),
    "8": (0.62, [_arc(0.31, 0.25, 0.23, 0.24, 0, 360), _arc(0.31, 0.73, 0.28, 0.27, 0, 360)]),
    "9": (0.62, _turned(_SIX, 0.62)),
    "-": (0.4, [[(0.04, 0.64), (0.36, 0.64)]]),
    "e": (0.52, [[(0.02, 0.72), (0.5, 0.72)] + _arc(0.26, 0.72, 0.24, 0.28, 360, 45)]),
    "A": (0.66, [[(0.0, 1.0), (0.33, 0.0), (0.66, 1.0)], [(0.12, 0.66), (0.54, 0.66)]]),
    "B": (0.6, [[(0.04, 0.48), (0.32, 0.48)] + _arc(0.32, 0.24, 0.22, 0.24, 90, -90)
                + [(0.04, 0.0), (0.04, 1.0), (0.34, 1.0)] + _arc(0.34, 0.74, 0.24, 0.26, 90, -90)
                + [(0.32, 0.48)]]),
    "E": (0.52, [[(0.5, 0.0), (0.04, 0.0), (0.04, 1.0), (0.5, 1.0)],
                 [(0.04, 0.48), (0.42, 0.48)]]),
    "G": (0.64, [_arc(0.34, 0.5, 0.3, 0.5, 320, 20) + [(0.62, 0.56), (0.38, 0.56)]]),
    "H": (0.6, [[(0.04, 0.0), (0.04, 1.0)], [(0.56, 0.0), (0.56, 1.0)],
                [(0.04, 0.5), (0.56, 0.5)]]),
    "I": (0.1, [[(0.05, 0.0), (0.05, 1.0)]]),
    "K": (0.58, [[(0.04, 0.0), (0.04, 1.0)], [(0.56, 0.0), (0.04, 0.62)],
                 [(0.22, 0.44), (0.58, 1.0)]]),
    "L": (0.5, [[(0.04, 0.0), (0.04, 1.0), (0.5, 1.0)]]),
    "N": (0.6, [[(0.04, 1.0), (0.04, 0.0), (0.56, 1.0), (0.56, 0.0)]]),
    "O": (0.7, [_arc(0.35, 0.5, 0.33, 0.5, 0, 360)]),
    "S": (0.58, [_arc(0.29, 0.25, 0.25, 0.25, 330, 90) + _arc(0.29, 0.74, 0.27, 0.26, 270, 510)]),
    "T": (0.6, [[(0.0, 0.0), (0.6, 0.0)], [(0.3, 0.0), (0.3, 1.0)]]),
}


@dataclass(frozen=True)
class Style:
    weight: float  # stroke width in cap heights
    width: float  # glyph widths times this
    spacing: float  # space between glyphs in cap heights


STYLES = {
    "heavy": Style(0.32, 1.5, 0.2),
    "light": Style(0.085, 0.84, 0.16),
}


def style_of(name: str) -> Style:
    """The style called ``name`` (``STYLES``)."""
    if name not in STYLES:
        raise ValueError(f"unknown glyph style {name!r}; one of {', '.join(STYLES)}")
    return STYLES[name]


def _glyph(char: str) -> tuple[float, list]:
    if char not in GLYPHS:
        raise ValueError(f"the renderer's font has no glyph for {char!r}")
    return GLYPHS[char]


def text_width(text: str, height: float, style: str = "heavy", stretch: float = 1.0) -> float:
    """The width of ``text`` drawn ``height`` pixels tall (cap height), from the first
    glyph's left edge to the last one's right edge, strokes' own width left out."""
    s = style_of(style)
    widths = [_glyph(c)[0] * s.width * stretch for c in text]
    return height * (sum(widths) + s.spacing * max(0, len(text) - 1))


def draw_text(img: np.ndarray, text: str, origin: tuple[float, float], height: float,
              style: str = "heavy", value=255, *, weight: float = 1.0, slant: float = 0.0,
              stretch: float = 1.0) -> np.ndarray:
    """Draws ``text`` on ``img`` (in place, returned): ``origin`` is the left end of its
    baseline in pixels, ``height`` its cap height in pixels; the style's stroke weight
    times ``weight``, its widths times ``stretch``, and a lean of ``slant`` (x moved right
    by slant times the height above the baseline)."""
    s = style_of(style)
    thick = max(1, int(round(s.weight * weight * height)))
    x0, base = origin
    polys = []
    for char in text:
        width, strokes = _glyph(char)
        width *= s.width * stretch
        for stroke in strokes:
            p = np.asarray(stroke, np.float64)
            x = x0 + (p[:, 0] * s.width * stretch + slant * (1 - p[:, 1])) * height
            y = base - (1 - p[:, 1]) * height
            polys.append(np.round(np.stack([x, y], 1) * 16).astype(np.int32))
        x0 += (width + s.spacing) * height
    cv2.polylines(img, polys, False, value, thick, cv2.LINE_AA, shift=4)
    return img
