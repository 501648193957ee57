"""Neunfeld's reader: the two pawns on the 1 x 9 board (or at their starts beside it) and
the three Miwin dice before their holders.

- *Pawns*: each field's centre is cut on the plane ``PAWN_PLANE_MM`` above the board (the
  pawn's upper body and head; a ``PAWN_DISC_MM`` disc) and compared with the per-pixel
  median of all nine fields (at most two hold a pawn, so the median is the empty field's
  look, its printed number mostly too). Fields that differ by more than ``PAWN_DEV`` hold
  a pawn; of two, the lighter is A's (natural wood), the darker B's (stained); a single
  one is A's when it is lighter than the board's leather. A pawn not seen on the board is
  at its start (A 0, B 10).
- *Dice*: ``vision.read_miwin`` over the table before and behind the board (the dice lie
  on the table: their tops are ``DIE_MM`` above it); a die south of the board lies before
  A (holder 0), north before B (holder 1). While all three lie south, further than
  ``OPENING_MM`` from the board's edge on average, they are the opening roll's (holder
  null; the two readings are each other's alternative). Tops by ``models/pips.onnx``.
"""

from __future__ import annotations

import cv2
import numpy as np

from rules.miwin import BY_COLOUR
from vision.board import BoardFix, Geometry, homography
from vision.grid import square_crop
from vision.read_miwin import COLOURS, DIE_MM, find_dice, plane, read_tops, top_reading
from vision.reading import Reading

PAWN_PLANE_MM = 15.0
PAWN_DISC_MM = 6.0  # radius of the disc compared per field
PAWN_DEV = 14.0  # mean Lab distance from the empty field's look: a pawn stands there
DICE_U_MM = 100.0  # dice are sought within this of the board's middle, east-west ...
DICE_V_MM = 100.0  # ... and this north and south of its centre line
OPENING_MM = 36.0  # mean distance of three southern dice from the board: the opening roll


def _hidden(H: np.ndarray, H_top: np.ndarray, H_table: np.ndarray, dice: list,
            geom: Geometry) -> np.ndarray:
    """Per field, whether a die (on the table before the board) stands between the camera
    and the pawn's disc on the plane of ``H``: the die's box (its top on ``H_top``, its
    foot on ``H_table``) covers the disc's centre or comes within its radius."""
    out = np.zeros(len(geom.cells), bool)
    boxes = []
    for d in dice:
        square = np.array([(d.u + x, d.v + y) for x in (-DIE_MM / 2, DIE_MM / 2)
                           for y in (-DIE_MM / 2, DIE_MM / 2)]).reshape(-1, 1, 2)
        pts = np.vstack([cv2.perspectiveTransform(square, M).reshape(-1, 2)
                         for M in (H_top, H_table)])
        boxes.append(cv2.convexHull(pts.astype(np.float32)))
    for k, (_, u, v, _) in enumerate(geom.cells):
        c, e = cv2.perspectiveTransform(np.array([[[u, v]], [[u + PAWN_DISC_MM, v]]],
                                                 np.float64), H).reshape(2, 2)
        r = float(np.linalg.norm(e - c))
        out[k] = any(cv2.pointPolygonTest(b, (float(c[0]), float(c[1])), True) > -r
                     for b in boxes)
    return out


def _pawns(image: np.ndarray, H: np.ndarray, H_board: np.ndarray, geom: Geometry,
           hidden: np.ndarray) -> tuple[list[int], list[float], list]:
    """(pawns, confidences, alternatives per pawn); ``hidden``: per field, a die stands
    in front of it (no pawn is looked for there; a pawn not seen may stand there)."""
    size = 16
    half = PAWN_DISC_MM
    crops = np.stack([cv2.cvtColor(square_crop(image, H, u, v, half, size),
                                   cv2.COLOR_BGR2Lab).astype(np.float32)
                      for _, u, v, _ in geom.cells])
    yy, xx = np.mgrid[:size, :size]
    disc = (xx - size / 2 + 0.5) ** 2 + (yy - size / 2 + 0.5) ** 2 <= (size / 2) ** 2
    empty = np.median(crops[~hidden] if (~hidden).sum() >= 5 else crops, axis=0)
    dev = np.array([np.linalg.norm(c - empty, axis=2)[disc].mean() for c in crops])
    dev[hidden] = 0.0
    light = np.array([c[..., 0][disc].mean() for c in crops])
    # the leather's own lightness: the board plane between the fields' centres
    lab = cv2.cvtColor(square_crop(image, H_board, 0.0, 0.0, geom.depth / 2, 16),
                       cv2.COLOR_BGR2Lab)
    leather = float(np.median(lab[..., 0]))
    occupied = [i for i in np.argsort(-dev)[:2] if dev[i] > PAWN_DEV]
    conf_of = {i: float(np.clip(0.5 + (dev[i] - PAWN_DEV) / (2 * PAWN_DEV), 0.5, 1.0))
               for i in range(9)}
    a = b = None
    if len(occupied) == 2:
        i, j = sorted(occupied, key=lambda k: -light[k])
        a, b = i, j
    elif len(occupied) == 1:
        i = occupied[0]
        if light[i] >= leather:
            a = i
        else:
            b = i
    # the strongest field not taken: how near it came to holding a pawn
    rest = [k for k in np.argsort(-dev) if k not in occupied]
    empty_conf = float(np.clip(0.5 + (PAWN_DEV - dev[rest[0]]) / (2 * PAWN_DEV), 0.5, 1.0)) \
        if rest else 1.0
    if hidden.any():  # a pawn not seen may stand behind a die
        empty_conf = min(empty_conf, 0.5)
        rest = [k for k in np.flatnonzero(hidden)] + rest
    pawns, confs, alts = [], [], []
    for idx, start in ((a, 0), (b, 10)):
        if idx is None:
            pawns.append(start)
            confs.append(empty_conf)
            alts.append([[int(rest[0]) + 1, round(1 - empty_conf, 4)]] if rest else None)
        else:
            pawns.append(int(idx) + 1)
            confs.append(conf_of[idx])
            alts.append([[start, round(1 - conf_of[idx], 4)]])
    return pawns, confs, alts


def read(image: np.ndarray, fix: BoardFix, geom: Geometry,
         calibration: dict | None = None) -> Reading:
    """The position of a Neunfeld board in ``image``."""
    H_board = homography(fix, geom)
    H, camera = plane(fix, geom, image, calibration, DIE_MM - geom.thickness)
    found = find_dice(image, H, fix.corners, (-DICE_U_MM, DICE_U_MM, -DICE_V_MM, DICE_V_MM),
                      camera, on_board=False)
    seen = [found[c] for c in COLOURS if found[c] is not None]
    H_pawn = plane(fix, geom, image, calibration, PAWN_PLANE_MM)[0]
    hidden = _hidden(H_pawn, H, plane(fix, geom, image, calibration, -geom.thickness)[0],
                     seen, geom)
    pawns, pconfs, palts = _pawns(image, H_pawn, H_board, geom, hidden)
    dice: dict[str, dict] = {}
    reading = Reading({"pawns": pawns, "dice": dice})
    for i in range(2):
        reading.add(pconfs[i], f"pawns.{i}", 0.9, palts[i])
    south = [d for d in seen if d.v < 0]
    edge = geom.depth / 2
    opening = len(south) == 3 and np.mean([-d.v - edge for d in south]) > OPENING_MM
    margin = abs(np.mean([-d.v - edge for d in south]) - OPENING_MM) if len(south) == 3 else 0
    for colour in COLOURS:
        die = found[colour]
        if die is None:
            dice[colour] = {"top": None, "holder": None}
            reading.add(0.0, f"dice.{colour}.holder")
            continue
        holder = None if opening else (0 if die.v < 0 else 1)
        dice[colour] = {"top": None, "holder": holder}
        if len(south) == 3:  # held by A, or still the opening roll: by the distance
            conf = float(np.clip(0.5 + margin / 16.0, 0.5, 1.0))
            reading.add(min(conf, die.confidence), f"dice.{colour}.holder", 0.9,
                        [[0 if opening else None, round(1 - conf, 4)]])
        else:
            reading.add(die.confidence, f"dice.{colour}.holder", 0.9, [[1 - holder, 0.1]]
                        if die.confidence < 0.9 else None)
    for die, pred in zip(seen, read_tops(image, H, seen, calibration), strict=True):
        top, conf, alts = top_reading(die, pred, BY_COLOUR[die.colour].faces)
        dice[die.colour]["top"] = top
        reading.add(conf, f"dice.{die.colour}.top", 0.9, alts)
    return reading
