"""A classical pip counter: OpenCV blob counting on a die-face crop, no learned model.

It is the baseline the ONNX pip model is measured against (bench/vision_bench.py), and a
fallback that needs no model file. Pips may be dark on a light die or light on a dark die:
both are tried on a morphological top-hat of the face (black-hat for dark pips, white
top-hat for light ones), the blobs are found with ``cv2.SimpleBlobDetector`` (area,
circularity, inertia and convexity filters, sizes relative to the crop), and the polarity
whose blobs stand out more (mean contrast times the square root of their number) wins.

Only API that OpenCV 4.11 and 5.0 both have is used; on the 2,332 real-dice crops both
versions (4.11.0, 5.0.0) give the same accuracy per group: IMG2019 0.569, other 0.397,
IMGother 0.483.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

SIZE = 96  # crops are resized to SIZE x SIZE before counting
_KERNEL = 0.25  # top-hat kernel diameter, fraction of SIZE (a pip is well under it)
_BLUR = 1.0  # Gaussian sigma in pixels at SIZE
_MIN_CONTRAST = 30.0  # response below this is not stretched to full range (flat faces)
_MARGIN = 0.08  # blob centres closer than this (fraction of SIZE) to the edge are ignored


@dataclass(frozen=True)
class PipCount:
    pips: int  # blobs found (0 when none)
    polarity: str  # "dark" (dark pips on a light die) or "light"
    centres: tuple[tuple[float, float], ...]  # blob centres, fractions of the crop side


@cache
def _detector() -> cv2.SimpleBlobDetector:
    p = cv2.SimpleBlobDetector_Params()
    p.minThreshold, p.maxThreshold, p.thresholdStep = 20, 240, 10
    p.minRepeatability = 2
    p.filterByColor, p.blobColor = True, 255
    p.filterByArea, p.minArea, p.maxArea = True, 0.004 * SIZE**2, 0.05 * SIZE**2
    p.filterByCircularity, p.minCircularity = True, 0.6
    p.filterByInertia, p.minInertiaRatio = True, 0.3
    p.filterByConvexity, p.minConvexity = True, 0.75
    p.minDistBetweenBlobs = 0.08 * SIZE
    return cv2.SimpleBlobDetector_create(p)


@cache
def _kernel() -> np.ndarray:
    side = int(SIZE * _KERNEL) | 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))


def _grey(crop: np.ndarray) -> np.ndarray:
    if crop.ndim == 3:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    if crop.dtype != np.uint8 or crop.ndim != 2 or min(crop.shape) < 4:
        raise ValueError(f"need a BGR or grey uint8 crop, got {crop.dtype} {crop.shape}")
    grey = cv2.resize(crop, (SIZE, SIZE), interpolation=cv2.INTER_CUBIC)
    return cv2.GaussianBlur(grey, (0, 0), _BLUR)


def _blobs(grey: np.ndarray, op: int) -> tuple[list[tuple[float, float]], float]:
    response = cv2.morphologyEx(grey, op, _kernel()).astype(np.float32)
    scale = 255.0 / max(float(response.max()), _MIN_CONTRAST)
    stretched = np.clip(response * scale, 0, 255).astype(np.uint8)
    lo, hi = _MARGIN * SIZE, (1 - _MARGIN) * SIZE
    points = [
        k.pt for k in _detector().detect(stretched) if lo < k.pt[0] < hi and lo < k.pt[1] < hi
    ]
    if not points:
        return [], 0.0
    contrast = float(np.mean([response[int(y), int(x)] for x, y in points]))
    return points, contrast * len(points) ** 0.5


def count_pips(crop: np.ndarray) -> PipCount:
    """Count the pips on a square-ish crop of one die face (BGR or grey, uint8)."""
    grey = _grey(crop)
    dark, dark_score = _blobs(grey, cv2.MORPH_BLACKHAT)
    light, light_score = _blobs(grey, cv2.MORPH_TOPHAT)
    points, polarity = (dark, "dark") if dark_score >= light_score else (light, "light")
    centres = tuple((x / SIZE, y / SIZE) for x, y in points)
    return PipCount(len(points), polarity, centres)
