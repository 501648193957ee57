"""Drawn die faces for the vision tests: pip patterns 1..9 (Miwin 7 = six plus the centre,
8 = the 3x3 grid without its centre, 9 = the full grid) with OpenCV."""

from __future__ import annotations

import cv2
import numpy as np

_GRID = {
    1: [(1, 1)],
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (0, 2), (2, 0), (2, 2)],
    5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
    6: [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)],
    7: [(0, 0), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 2)],
    8: [(r, c) for r in range(3) for c in range(3) if (r, c) != (1, 1)],
    9: [(r, c) for r in range(3) for c in range(3)],
}


def face(
    pips: int,
    size: int = 64,
    die=(235, 235, 235),
    pip=(20, 20, 20),
    background=(120, 120, 120),
    angle: float = 0.0,
    noise: float = 0.0,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """A BGR crop of one die face seen from above: the die fills ~75 % of the crop."""
    big = size * 4
    image = np.full((big, big, 3), background, np.uint8)
    side = int(big * 0.75)
    lo = (big - side) // 2
    cv2.rectangle(image, (lo, lo), (lo + side, lo + side), die, -1)
    step = side / 4
    for r, c in _GRID[pips]:
        centre = (int(lo + step * (c + 1)), int(lo + step * (r + 1)))
        cv2.circle(image, centre, int(side * 0.08), pip, -1, cv2.LINE_AA)
    turn = cv2.getRotationMatrix2D((big / 2, big / 2), angle, 1.0)
    image = cv2.warpAffine(image, turn, (big, big), borderValue=background)
    image = cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA)
    if noise:
        rng = rng or np.random.default_rng(0)
        image = np.clip(image + rng.normal(0, noise, image.shape), 0, 255).astype(np.uint8)
    return image
