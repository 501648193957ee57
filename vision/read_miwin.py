"""Miwin's dice (Neunfeld, Tyr 3 gewinnt): where each of the three dice lies and its top.

``find_dice`` looks for the dice on the plane of their tops (``DIE_MM`` above the board
top, rectified north up at ``PX_PER_MM``) over the board and a margin round it:

- *colour*, classically: each pixel's Lab minus its background's (the board's own median
  look inside the board, a wide median of the table outside it), the bright pips left
  out: blue goes down Lab's blue-yellow axis, red up the green-red one, black down in
  lightness without hue (``colour_scores``); each colour's die is the die-sized window
  where that score is highest on average, if it is high enough (``PRESENT``);
- the die's centre is the centroid of the pips set in its colour round that window (pip
  layouts are symmetric about the top's centre; a shadow cannot pull it away), or of its
  colour's pixels where no pip is seen.

``read_tops`` cuts each die's top on its plane, centred and filling ~75 % of the crop as
``models/pips.onnx`` expects (``models/pips.md``), and reads all dice of a frame in ONE
run; the model's colour head must agree with the classical colour, or the die's colour is
reported with a low confidence. Without the model every top stays null.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.board import BoardFix, Geometry
from vision.classifier import Prediction, shared
from vision.grid import board_pose, square_crop
from vision.observe import predict

DIE_MM = 22.0  # vision.render.pieces.DIE_MM
COLOURS = ("blue", "red", "black")
PX_PER_MM = 1.0  # the rectified view the dice are sought in
PRESENT = 12.0  # mean colour score (OpenCV Lab units) over a die top: a die is there
PIP_KERNEL_MM = 7.0  # a pip is a light spot smaller than this ...
PIP_DL = 25.0  # ... this much lighter than round it (Lab L, 0..255) and ...
PIP_CHROMA = 40.0  # ... this unsaturated (|a| + |b|): a pip
MIN_PIP_SHARE = 0.004  # share of a die-sized window that pips must cover at least
ONE_PIP_SHARE = 0.025  # about the share of a die's top that one pip covers
CROP_FILL = 0.62  # the die's share of the crop side (models/pips.md: 60..90 %; best here)


@dataclass(frozen=True)
class Die:
    colour: str
    u: float  # centre of its top, board mm (u east, v north)
    v: float
    confidence: float  # of the colour and the place


def plane(fix: BoardFix, geom: Geometry, image: np.ndarray, calibration: dict | None,
          z_mm: float = DIE_MM):
    """The homography of the plane ``z_mm`` above the board top (board mm -> image px);
    by default that of the tops of dice standing on the board."""
    K = dist = None
    if calibration is not None:
        K, dist = calibration.get("K"), calibration.get("dist")
    pose = board_pose(fix, geom, (image.shape[1], image.shape[0]), K, dist)
    return pose.plane_homography(z_mm)


def _view(image: np.ndarray, H: np.ndarray, region: tuple[float, float, float, float]):
    """(view, inside-frame mask, to_mm): the plane of ``H`` over ``region`` (u0, u1, v0,
    v1 mm), north up, PX_PER_MM."""
    u0, u1, v0, v1 = region
    s = 1.0 / PX_PER_MM
    to_mm = np.array([[s, 0, u0 + s / 2], [0, -s, v1 - s / 2], [0, 0, 1]])
    size = (int(round((u1 - u0) * PX_PER_MM)), int(round((v1 - v0) * PX_PER_MM)))
    M = H @ to_mm
    view = cv2.warpPerspective(image, M, size, flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    inside = cv2.warpPerspective(np.full(image.shape[:2], 255, np.uint8), M, size,
                                 flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
    return view, inside > 0, to_mm


def _board_mask(shape, geom: Geometry, region, grow: float = 0.0) -> np.ndarray:
    u0, _, _, v1 = region
    m = np.zeros(shape, np.uint8)
    x0 = int((-geom.width / 2 - grow - u0) * PX_PER_MM)
    x1 = int((geom.width / 2 + grow - u0) * PX_PER_MM)
    y0 = int((v1 - geom.depth / 2 - grow) * PX_PER_MM)
    y1 = int((v1 + geom.depth / 2 + grow) * PX_PER_MM)
    m[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = 1
    return m.astype(bool)


def _background(lab: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Per pixel, the Lab look of what lies there without a piece: the board's median
    inside the board, outside it a wide median (twice a die) of the view with the board
    painted over by the table's own median (so the board's edge does not bleed out)."""
    k = int(2 * DIE_MM * PX_PER_MM) | 1
    outside = lab.copy()
    if board.any():
        outside[board] = np.median(lab[~board], axis=0) if (~board).any() else 0
    bg = cv2.medianBlur(outside, k).astype(np.float32)
    if board.any():
        bg[board] = np.median(lab[board], axis=0)
    return bg


def colour_scores(diff: np.ndarray, chroma: np.ndarray) -> np.ndarray:
    """(3, h, w): how far each pixel departs from its background towards blue (Lab's b
    down), red (a up) and black (L down, and itself without hue: a shadow keeps the hue
    of what it falls on; ``chroma``: |a| + |b| of the pixel itself), OpenCV Lab units."""
    dL, da, db = diff[..., 0], diff[..., 1], diff[..., 2]
    return np.stack([-db - 0.3 * np.abs(da), da - 0.3 * np.abs(db), -dL - chroma])


def find_dice(image: np.ndarray, H: np.ndarray, geom: Geometry,
              region: tuple[float, float, float, float]) -> dict[str, Die | None]:
    """The three dice by colour on the plane of ``H`` (the dice tops) within ``region``;
    None for a colour no place shows.

    Per colour, the mean of its score (``colour_scores``, pips left out) over a die-sized
    window; the best window holds the die when that mean reaches ``PRESENT``; the die's
    centre is the centroid of the colour's pixels round it (its shadow and side faces are
    not of its colour)."""
    view, inside, to_mm = _view(image, H, region)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2Lab)
    board = _board_mask(lab.shape[:2], geom, region)
    diff = lab.astype(np.float32) - _background(lab, board)
    chroma = np.abs(lab[..., 1].astype(np.float32) - 128) + np.abs(
        lab[..., 2].astype(np.float32) - 128)
    k = int(round(PIP_KERNEL_MM * PX_PER_MM)) | 1
    tophat = cv2.morphologyEx(lab[..., 0], cv2.MORPH_TOPHAT,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    pip = (tophat > PIP_DL) & (chroma < PIP_CHROMA) & inside
    scores = colour_scores(diff, chroma) * (~pip & inside)
    side = max(3, int(round(DIE_MM * PX_PER_MM)))
    # a die top shows at least one pip: windows without any are no die (a shadow)
    # (a window half on the die holds fewer of its pips: the whole top scores highest)
    pips = cv2.blur(pip.astype(np.float32), (side, side), borderType=cv2.BORDER_CONSTANT)
    weight = np.where(pips >= MIN_PIP_SHARE, np.minimum(1.0, pips / ONE_PIP_SHARE), 0.0)
    means = [cv2.blur(np.maximum(s, 0), (side, side), borderType=cv2.BORDER_CONSTANT)
             * weight for s in scores]
    found: dict[str, Die | None] = dict.fromkeys(COLOURS)
    for c, colour in enumerate(COLOURS):
        mean = means[c]
        y, x = np.unravel_index(int(np.argmax(mean)), mean.shape)
        if mean[y, x] < PRESENT:
            continue
        r = side
        y0, y1, x0, x1 = max(y - r, 0), y + r + 1, max(x - r, 0), x + r + 1
        win = np.maximum(scores[c], 0)[y0:y1, x0:x1]
        body = (win > 0.5 * win.max()).astype(np.uint8)
        # the pips set in this die's colour: their layouts are symmetric about the top's
        # centre, which a shadow beside the die cannot pull away
        k = max(3, int(round(PIP_KERNEL_MM * PX_PER_MM / 2)) * 2 + 1)
        near = cv2.morphologyEx(body, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)) > 0
        ys, xs = np.nonzero(pip[y0:y1, x0:x1] & near)
        if len(ys) < MIN_PIP_SHARE * side * side:
            ys, xs = np.nonzero(body)
        cx, cy = float(xs.mean() + x0), float(ys.mean() + y0)
        u, v, w = to_mm @ np.array([cx, cy, 1.0])
        conf = 0.5 + 0.5 * float(np.clip((mean[y, x] - PRESENT) / PRESENT, 0.0, 1.0))
        rival = max(float(means[k][y, x]) for k in range(3) if k != c)
        if rival > 0.5 * mean[y, x]:  # another colour's score nearly as high here
            conf = min(conf, 0.6)
        found[colour] = Die(colour, float(u / w), float(v / w), conf)
    return found


def read_tops(image: np.ndarray, H: np.ndarray, dice: list[Die],
              calibration: dict | None = None) -> list[dict[str, Prediction] | None]:
    """The pips model's reading of each die's top (one run for all; through the
    calibration's enrolment profile where it has one); None per die without the model."""
    model = shared("pips")
    if model is None or not dice:
        return [None] * len(dice)
    half = DIE_MM / 2 / CROP_FILL
    crops = [square_crop(image, H, d.u, d.v, half, 64) for d in dice]
    return predict(calibration, "pips", model, crops, 9)


def top_reading(die: Die, prediction: dict[str, Prediction] | None,
                faces: tuple[int, ...]) -> tuple[int | None, float, list]:
    """(top, confidence, alternatives) of a die from the model's heads: the pips among the
    die's own ``faces`` (probabilities renormalised over them), the confidence lowered to
    the colour head's probability of the classical colour when that is lower."""
    if prediction is None:
        return None, 0.0, []
    pips = prediction["pips"]
    allowed = [(int(label), p) for label, p in pips.top if int(label) in faces]
    if not allowed:
        return None, 0.0, [[f, round(1 / len(faces), 4)] for f in faces]
    total = sum(p for _, p in allowed) or 1.0
    ranked = sorted(((n, p / total) for n, p in allowed), key=lambda t: -t[1])
    colour = dict(prediction["colour"].top).get(die.colour, 0.0)
    top, conf = ranked[0]
    return top, float(min(conf, max(colour, 0.0))), [[n, round(p, 4)] for n, p in ranked[1:]]
