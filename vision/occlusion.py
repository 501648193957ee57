"""Hands and arms over the board: the scene is not still enough to judge.

A hand that reaches over the board comes from outside it, so its arm crosses the board's
edge. ``edge_occlusion`` walks the board's border strip (``STRIP_MM`` inside the top's
edge, on the board plane, every ``STEP_MM``): nothing of a game lies there, so the strip
looks like the board's own material all round (its median look). A stretch of at least
``MIN_RUN_MM`` whose Lab differs from that look by more than the threshold (``MIN_LAB``,
or ``SPREAD`` times the spread of the strip's quieter part where the material is busier)
is something lying across the edge: a hand, an arm or a sleeve. Works for every game (the
strip is plain glaze, leather or printed band).

An arm hides the board's edge, light and what lies beside the board do not: a stretch
counts only where the edge's contrast (the strip against the table ``OUTSIDE_MM`` beyond
it) is at most ``HIDDEN`` of its median along the clear edge (``_edge_hidden``). On a
far board the strip is a pixel or two from the table, and a dependency card or a stone
lying against the edge blurs into it: the strip then differs from the look, but the
edge still stands out against the card.

The threshold's spread is the strip's quieter part's (its ``QUIET`` quantile of the
difference): a hand over a narrow board (Neunfeld's, 25 mm deep) covers a third of its
strip and more, and raised the median with it above its own difference from the leather.
On leather and card an arm also comes from outside: a run counts only where the table
beyond the edge (``TABLE_MM``, in the plane of the top) looks unlike the table within
``REACH_MM`` of the run along the edge (``_arm_beyond``): unlike its look all round or its
look along ``TABLE_WINDOW`` samples (a lamp's gradient), or out of view. Pawns and dice
standing at the edge and their shadows on the strip hide the edge and differ from the
leather as a hand does, but the table 25..40 mm out lies clear beside them, unless a die
lies there (Neunfeld's dice lie beside its board: its remaining false hands).

On a glazed (``ceramic``) board, the e-SOLO-e family's, the look is the median of the strip
samples that look most like glaze (the upper ``GLAZE_SHARE`` by ``material_score``): an arm
across half of the strip would otherwise become the look itself. Pieces that stand near
the edge and lean across it in the image (tall cube stacks seen obliquely) are no hand:
the caller passes their image mask as ``ignore`` (``vision.read_esoloe.covered``) and
the strip samples under it count as clear.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.board import BoardFix, Geometry, homography, material_score

STRIP_MM = (1.0, 2.5)  # the border strip: this far inside the top's edge
STEP_MM = 2.0
MIN_LAB = 28.0
MIN_GLAZE = 14.0  # on glaze, where shadows count for nothing (``_distance``)
GLAZE_SPREAD = 3.0  # times the quieter part's spread (``QUIET``) on glaze, ...
SPREAD = 4.0  # ... on leather and card
MIN_RUN_MM = 16.0
GLAZE_SHARE = 0.25
QUIET = 0.25  # the quantile of the strip's difference taken as its spread
TABLE_MM = (-25.0, -40.0)  # leather, card: the table a hand's arm crosses beyond the edge
TABLE_WINDOW = 81  # samples (about 160 mm along a side): the table's look near a sample
MIN_TABLE_LAB = 20.0  # the table differs from its look by this much, ...
TABLE_SPREAD = 3.0  # ... and by this many times its median difference, where an arm lies
REACH_MM = 32.0  # an arm lies beyond the edge this far along it from the run (it may slant)
SHADOW = 0.55
OUTSIDE_MM = (-2.0, -4.0)  # the table (or the board's side) just beyond the top's edge
HIDDEN = 0.5
HIDDEN_K = 5


@dataclass(frozen=True)
class Occlusion:
    """Stretches of the board's edge covered (each (start, end) mm along the perimeter,
    clockwise from the north-west corner) and the share of the edge they cover."""

    runs: tuple[tuple[float, float], ...]
    covered: float

    @property
    def occluded(self) -> bool:
        return bool(self.runs)

    def to_json(self) -> dict:
        return {"edge_runs_mm": [[round(a, 1), round(b, 1)] for a, b in self.runs],
                "edge_covered": round(self.covered, 3)}


def _strip_points(geom: Geometry, strip: tuple[float, float] = STRIP_MM) -> np.ndarray:
    """(depths, samples, 2) board mm along the perimeter, clockwise from nw, ``strip`` mm
    inside the top's edge (negative: outside it)."""
    out = []
    counts = [max(int(side / STEP_MM), 1) for side in (geom.width, geom.depth) * 2]
    for inset in np.linspace(*strip, 3):
        w, d = geom.width / 2 - inset, geom.depth / 2 - inset
        corners = [(-w, d), (w, d), (w, -d), (-w, -d), (-w, d)]
        pts = []
        for (u0, v0), (u1, v1), n in zip(corners, corners[1:], counts, strict=False):
            t = np.arange(n) / n
            pts.append(np.column_stack([u0 + (u1 - u0) * t, v0 + (v1 - v0) * t]))
        out.append(np.vstack(pts))
    return np.stack(out)


def _sample_lab(blurred: np.ndarray, H: np.ndarray, pts: np.ndarray):
    """Lab of ``blurred`` at board points ``pts`` (..., 2), and whether each is in view."""
    px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(pts.shape)
    h, w = blurred.shape[:2]
    x = np.clip(np.round(px[..., 0]).astype(int), 0, w - 1)
    y = np.clip(np.round(px[..., 1]).astype(int), 0, h - 1)
    seen = (px[..., 0] >= 0) & (px[..., 0] < w) & (px[..., 1] >= 0) & (px[..., 1] < h)
    lab = cv2.cvtColor(blurred[y, x].reshape(-1, 1, 3), cv2.COLOR_BGR2Lab).reshape(
        *pts.shape[:-1], 3).astype(np.float32)
    return lab, seen, blurred[y, x], (y, x)


def _along(values: np.ndarray, k: int) -> np.ndarray:
    """``values`` along the perimeter, averaged over ``k`` neighbouring samples."""
    return np.convolve(np.pad(values, k // 2, mode="wrap"), np.ones(k) / k, mode="valid")


def _edge_hidden(lab: np.ndarray, outside: np.ndarray, seen: np.ndarray,
                 off: np.ndarray) -> np.ndarray:
    """Where along the perimeter the board's edge is hidden: its contrast (the strip
    against just beyond, over ``HIDDEN_K`` samples) is at most ``HIDDEN`` of that along
    the edge where the strip looks like the board (not ``off``), or of that along the
    whole edge seen where it is lower: on a glazed board under a lamp's gradient the strip
    may differ from its look nearly all round, and the few samples left clear, the
    edge's most contrasted, made a plain stretch of an empty board's edge look hidden
    (tic-tac-toe seed 101 overhead, once its corners were found to 0.05 px)."""
    contrast = np.linalg.norm(np.median(lab, axis=0) - np.median(outside, axis=0), axis=-1)
    clear = ~off & seen
    if not clear.any():
        return np.ones_like(off)
    return _along(contrast, HIDDEN_K) <= HIDDEN * min(np.median(contrast[clear]),
                                                      np.median(contrast[seen]))


def _look(lab: np.ndarray, pixels: np.ndarray, seen: np.ndarray, material: str) -> np.ndarray:
    """The board's own look on the strip: the median Lab of the samples seen (on glaze,
    of those that look most like glaze)."""
    if not seen.any():
        return np.zeros(3, np.float32)
    if material != "ceramic":
        return np.median(lab[seen], axis=0)
    score = material_score(pixels.reshape(-1, 1, 3), material).reshape(seen.shape)
    cut = np.quantile(score[seen], 1 - GLAZE_SHARE)
    return np.median(lab[seen & (score >= cut)], axis=0)


def _distance(lab: np.ndarray, look: np.ndarray, material: str) -> np.ndarray:
    """Lab distance of each sample from the board's look. On glaze a shadow (a stack's, a
    lamp's) only darkens: darkening down to ``SHADOW`` of the glaze's lightness counts
    for nothing, colour and what is darker still count in full (skin, sleeves)."""
    diff = lab - look
    if material == "ceramic":
        darker = np.maximum(-diff[..., 0] - SHADOW * look[0], 0.0)
        diff[..., 0] = np.where(diff[..., 0] < 0, darker, diff[..., 0])
    return np.linalg.norm(diff, axis=2)


def _runs(off: np.ndarray) -> list[tuple[int, int]]:
    """(first sample, length) of each run of ``off`` along the perimeter (runs may wrap)."""
    n = len(off)
    if off.all():
        return [(0, n)]
    runs = []
    start = int(np.argmin(off))  # begin the walk on a clear sample
    i = 0
    while i < n:
        j = (start + i) % n
        length = 0
        while length < n and off[(j + length) % n]:
            length += 1
        if length:
            runs.append((j, length))
        i += max(length, 1)
    return runs


def _arm_beyond(blurred: np.ndarray, H: np.ndarray, geom: Geometry) -> np.ndarray:
    """Where along the perimeter something lies on the table ``TABLE_MM`` beyond the edge
    (or the table there is out of view): it differs from the table's look all round or
    from its look along ``TABLE_WINDOW`` samples, by ``MIN_TABLE_LAB`` and
    ``TABLE_SPREAD`` times the median difference."""
    lab, seen, _, _ = _sample_lab(blurred, H, _strip_points(geom, TABLE_MM))
    lab, seen = np.median(lab, axis=0), seen.any(axis=0)
    if not seen.any():
        return np.ones(len(seen), bool)
    half = TABLE_WINDOW // 2
    near = (np.arange(len(lab))[:, None] + np.arange(-half, half + 1)) % len(lab)
    odd = ~seen
    for look in (np.median(lab[seen], axis=0), np.median(lab[near], axis=1)):
        dist = np.linalg.norm(lab - look, axis=-1)
        odd |= _along(dist, 3) > max(MIN_TABLE_LAB, TABLE_SPREAD * np.median(dist[seen]))
    return odd


def edge_occlusion(image: np.ndarray, fix: BoardFix, geom: Geometry,
                   ignore: np.ndarray | None = None) -> Occlusion:
    """Where something lies across the board's edge in ``image`` (``ignore``: a bool
    image mask of pixels that pieces on the board may cover)."""
    H = homography(fix, geom)
    blurred = cv2.GaussianBlur(image, (5, 5), 0)
    lab, seen, pixels, (y, x) = _sample_lab(blurred, H, _strip_points(geom))
    if ignore is not None:
        seen &= ~ignore[y, x]
    look = _look(lab, pixels, seen, geom.material)
    dist = _distance(lab, look, geom.material)
    dist = np.median(np.where(seen, dist, 0.0), axis=0)  # over the strip's depths
    # the spread of the strip's quieter part (a hand over much of the edge would raise it)
    glaze = geom.material == "ceramic"
    threshold = max(MIN_GLAZE if glaze else MIN_LAB,
                    (GLAZE_SPREAD if glaze else SPREAD) * float(np.quantile(dist, QUIET)))
    # a short smoothing along the edge: stitching and print do not make a run
    off = _along(dist, 3) > threshold
    if off.any():  # and only where the edge itself is hidden (not where light tints the
        # strip, or a card or stone just beyond the edge blurs into it)
        outside, _, _, _ = _sample_lab(blurred, H, _strip_points(geom, OUTSIDE_MM))
        off &= _edge_hidden(lab, outside, seen.any(axis=0), off)
    if off.any() and not glaze:  # and where an arm comes from outside
        reach = int(REACH_MM / STEP_MM)
        arm = _arm_beyond(blurred, H, geom)
        for j, length in _runs(off):
            if not arm[np.arange(j - reach, j + length + reach) % len(off)].any():
                off[np.arange(j, j + length) % len(off)] = False
    n = len(off)
    runs = [(j * STEP_MM, (j + length) * STEP_MM) for j, length in _runs(off)
            if length * STEP_MM >= MIN_RUN_MM]
    covered = sum(b - a for a, b in runs) / (n * STEP_MM)
    return Occlusion(tuple(runs), covered)
