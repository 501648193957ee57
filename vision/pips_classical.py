"""A classical pip counter: OpenCV blob counting on a die-face crop, no learned model.

It is the baseline the ONNX pip model is measured against (bench/vision_bench.py), and a
fallback that needs no model file. Pips may be dark on a light die or light on a dark die:
both are tried on a morphological top-hat of the face (black-hat for dark pips, white
top-hat for light ones), the blobs are found with ``cv2.SimpleBlobDetector`` (area,
circularity, inertia and convexity filters, sizes relative to the crop), and the polarity
whose blobs stand out more (mean contrast times the square root of their number) wins.

Only API that OpenCV 4.11 and 5.0 both have is used.

The settings (``Params``) were tuned on the real-dice crops that the pip model is adapted
on (``vision.real_dice.parse_adapt("IMG2019:0.3,other:0.3")``, 680 crops; a coordinate
search over each setting, see docs/training.md): kernel 0.25 -> 0.35, blur 1.0 -> 1.5,
margin 0.08 -> 0.16 (side faces of oblique dice lie at the crop's edge). On the other
crops (never tuned on) accuracy went from 0.564 / 0.385 / 0.483 to 0.576 / 0.544 / 0.586
(IMG2019 / other / IMGother).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

SIZE = 96  # crops are resized to SIZE x SIZE before counting


@dataclass(frozen=True)
class Params:
    """The counter's settings (sizes are fractions of SIZE)."""

    kernel: float = 0.35  # top-hat kernel diameter (a pip is well under it)
    blur: float = 1.5  # Gaussian sigma in pixels at SIZE
    min_contrast: float = 30.0  # response below this is not stretched to full range
    margin: float = 0.16  # blob centres closer than this to the edge are ignored
    min_area: float = 0.004
    max_area: float = 0.05
    min_circularity: float = 0.6
    min_inertia: float = 0.3
    min_convexity: float = 0.75
    min_distance: float = 0.08


DEFAULT = Params()


@dataclass(frozen=True)
class PipCount:
    pips: int  # blobs found (0 when none)
    polarity: str  # "dark" (dark pips on a light die) or "light"
    centres: tuple[tuple[float, float], ...]  # blob centres, fractions of the crop side


@cache
def _detector(params: Params) -> cv2.SimpleBlobDetector:
    p = cv2.SimpleBlobDetector_Params()
    p.minThreshold, p.maxThreshold, p.thresholdStep = 20, 240, 10
    p.minRepeatability = 2
    p.filterByColor, p.blobColor = True, 255
    p.filterByArea = True
    p.minArea, p.maxArea = params.min_area * SIZE**2, params.max_area * SIZE**2
    p.filterByCircularity, p.minCircularity = True, params.min_circularity
    p.filterByInertia, p.minInertiaRatio = True, params.min_inertia
    p.filterByConvexity, p.minConvexity = True, params.min_convexity
    p.minDistBetweenBlobs = params.min_distance * SIZE
    return cv2.SimpleBlobDetector_create(p)


@cache
def _kernel(kernel: float) -> np.ndarray:
    side = int(SIZE * kernel) | 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))


def _grey(crop: np.ndarray, blur: float) -> np.ndarray:
    if crop.ndim == 3:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    if crop.dtype != np.uint8 or crop.ndim != 2 or min(crop.shape) < 4:
        raise ValueError(f"need a BGR or grey uint8 crop, got {crop.dtype} {crop.shape}")
    grey = cv2.resize(crop, (SIZE, SIZE), interpolation=cv2.INTER_CUBIC)
    return cv2.GaussianBlur(grey, (0, 0), blur)


def _blobs(grey: np.ndarray, op: int, params: Params) -> tuple[list[tuple[float, float]], float]:
    response = cv2.morphologyEx(grey, op, _kernel(params.kernel)).astype(np.float32)
    scale = 255.0 / max(float(response.max()), params.min_contrast)
    stretched = np.clip(response * scale, 0, 255).astype(np.uint8)
    lo, hi = params.margin * SIZE, (1 - params.margin) * SIZE
    points = [k.pt for k in _detector(params).detect(stretched)
              if lo < k.pt[0] < hi and lo < k.pt[1] < hi]
    if not points:
        return [], 0.0
    contrast = float(np.mean([response[int(y), int(x)] for x, y in points]))
    return points, contrast * len(points) ** 0.5


def count_pips(crop: np.ndarray, params: Params = DEFAULT) -> PipCount:
    """Count the pips on a square-ish crop of one die face (BGR or grey, uint8)."""
    grey = _grey(crop, params.blur)
    dark, dark_score = _blobs(grey, cv2.MORPH_BLACKHAT, params)
    light, light_score = _blobs(grey, cv2.MORPH_TOPHAT, params)
    points, polarity = (dark, "dark") if dark_score >= light_score else (light, "light")
    centres = tuple((x / SIZE, y / SIZE) for x, y in points)
    return PipCount(len(points), polarity, centres)
