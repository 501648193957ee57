"""Neunfeld's reader: the two pawns on the 1 x 9 board (or at their starts beside it) and
the three Miwin dice before their holders.

- *Pawns*: each field's centre is cut on three planes ``PAWN_PLANES_MM`` above the board
  (the pawn's foot, body and head; a ``PAWN_DISC_MM`` disc) and compared with the
  field's empty look, a straight line over the nine fields per pixel fitted without the
  two that depart most (the light falls off along the strip; at most two hold a pawn);
  a field's evidence is its smallest departure over the three heights (from an oblique
  camera a pawn leans over its neighbour at some heights, never at all). Each pawn's
  start beside the board's end is compared with the table round it the same way. The
  reading is the pair of places (a field or its own start per pawn) with the most
  evidence, the lighter of two pawns on the board A's (natural wood), a single one A's
  when lighter than its field's empty look; each pawn's confidence is the lead over the
  best reading that places it elsewhere, which is its alternative.
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
from vision.board import BoardFix, Geometry
from vision.grid import square_crop
from vision.read_miwin import COLOURS, DIE_MM, find_dice, plane, read_tops, top_reading
from vision.reading import Reading

PAWN_PLANES_MM = (6.0, 12.0, 21.5)  # the pawn's foot, body and head above the board
PAWN_DISC_MM = 4.0  # radius of the disc compared per field (inside the pawn at each)
PAWN_DEV = 14.0  # mean Lab distance from the empty field's look: a pawn stands there
START_MM = 0.75 * 230.0 / 9  # a pawn's start: this far beyond the board's end
START_RING_MM = 30.0  # the table round a start: discs this far from it
START_DEV = 24.0  # mean Lab distance of a start from the table round it: a pawn there
HIDDEN_Z = -0.3  # the evidence of a field a die hides (a field's is 0 at PAWN_DEV)
LIGHT_SCALE = 20.0  # Lab L over the empty field's: A's (light) pawn, under: B's
LIGHT_W = 0.5  # the weight of that lightness against a place's evidence
PAWN_MARGIN = 1.0  # the best reading's lead in evidence that makes it sure
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


def _empty_look(crops: np.ndarray, use: np.ndarray) -> np.ndarray:
    """Per field, its crop's look without a pawn: per pixel and channel a straight line
    over the fields' index (the light falls off along the 23 cm strip), fitted to the
    fields ``use`` marks, then again without the two that depart most from it (at most
    two hold a pawn)."""
    x = np.arange(len(crops), dtype=np.float32)

    def fit(w: np.ndarray) -> np.ndarray:
        w = w.astype(np.float32) / w.sum()
        xm = float(w @ x)
        mean = np.tensordot(w, crops, 1)
        slope = np.tensordot(w * (x - xm), crops - mean, 1) / float(w @ (x - xm) ** 2)
        return mean + (x - xm)[:, None, None, None] * slope

    line = fit(use)
    far = np.linalg.norm(crops - line, axis=3).mean(axis=(1, 2))
    keep = use.copy()
    keep[np.argsort(-np.where(use, far, -1.0))[:2]] = False
    return fit(keep) if keep.sum() >= 4 else line


def _pawns(image: np.ndarray, planes: list[np.ndarray], starts_planes: list[np.ndarray],
           geom: Geometry, hidden: np.ndarray) -> tuple[list[int], list[float], list]:
    """(pawns, confidences, alternatives per pawn); ``planes``: the homographies of the
    planes ``PAWN_PLANES_MM`` (the pawn's body at each height stands over its field's
    centre, its other heights lean over the neighbour fields from an oblique camera: the
    field that departs at every height holds it); ``hidden``: per field, a die stands in
    front of it (no pawn is looked for there; a pawn not seen may stand there)."""
    size = 12
    yy, xx = np.mgrid[:size, :size]
    disc = (xx - size / 2 + 0.5) ** 2 + (yy - size / 2 + 0.5) ** 2 <= (size / 2) ** 2
    use = ~hidden if (~hidden).sum() >= 5 else np.ones(9, bool)
    devs, lights, leathers = [], [], []
    for H in planes:
        crops = np.stack([cv2.cvtColor(square_crop(image, H, u, v, PAWN_DISC_MM, size),
                                       cv2.COLOR_BGR2Lab).astype(np.float32)
                          for _, u, v, _ in geom.cells])
        empty = _empty_look(crops, use)
        devs.append(np.linalg.norm(crops - empty, axis=3)[:, disc].mean(axis=1))
        lights.append(crops[..., 0][:, disc].mean(axis=1))
        leathers.append(empty[..., 0][:, disc].mean(axis=1))
    dev = np.min(devs, axis=0)
    light, leather = np.mean(lights, axis=0), np.mean(leathers, axis=0)
    # evidence per place, 0 at the threshold: fields 1..9, then each pawn's start
    field = np.where(hidden, HIDDEN_Z, (dev - PAWN_DEV) / PAWN_DEV)
    looks = np.clip((light - leather) / LIGHT_SCALE, -1.0, 1.0)  # A's pawn is the lighter
    starts = [(s - START_DEV) / START_DEV for s in _start_devs(image, starts_planes, geom)]

    def score(a: int, b: int) -> float:  # a, b: 0..8 a field, -1 at its start
        sa = starts[0] if a < 0 else field[a] + LIGHT_W * looks[a]
        sb = starts[1] if b < 0 else field[b] - LIGHT_W * looks[b]
        if a >= 0 and b >= 0:  # of two pawns on the board, A's is the lighter
            sa += LIGHT_W * float(np.clip((light[a] - light[b]) / LIGHT_SCALE, -1.0, 1.0))
        return float(sa + sb)

    places = range(-1, 9)
    ranked = sorted(((score(a, b), a, b) for a in places for b in places if a < 0 or a != b),
                    reverse=True)
    best, a, b = ranked[0]
    pawns, confs, alts = [], [], []
    for k, (mine, start) in enumerate(((a, 0), (b, 10))):
        runner = next(r for r in ranked if r[1 + k] != mine)
        conf = float(np.clip(0.5 + (best - runner[0]) / (2 * PAWN_MARGIN), 0.5, 1.0))
        if mine >= 0 and hidden[mine]:
            conf = 0.5
        other = runner[1 + k]
        pawns.append(start if mine < 0 else mine + 1)
        confs.append(conf)
        alts.append([[start if other < 0 else other + 1, round(1 - conf, 4)]])
    return pawns, confs, alts


def _start_devs(image: np.ndarray, planes: list[np.ndarray], geom: Geometry) -> list[float]:
    """Per pawn (A west, B east), how far its start beside the board's end departs from
    the table round it at every height of ``planes`` (the planes ``PAWN_PLANES_MM`` above
    the table): a disc at the start against the median of discs ``START_RING_MM`` further
    out and to the sides (a pawn leans over at most one or two of them)."""
    size = 12
    yy, xx = np.mgrid[:size, :size]
    disc = (xx - size / 2 + 0.5) ** 2 + (yy - size / 2 + 0.5) ** 2 <= (size / 2) ** 2
    out = []
    for sign in (-1.0, 1.0):
        u0 = sign * (geom.width / 2 + START_MM)
        devs = []
        for H in planes:
            at = [(u0, 0.0)] + [(u0 + sign * START_RING_MM * np.cos(t), START_RING_MM * np.sin(t))
                                for t in np.radians([-90, -45, 0, 45, 90])]
            crops = np.stack([cv2.cvtColor(square_crop(image, H, u, v, PAWN_DISC_MM, size),
                                           cv2.COLOR_BGR2Lab).astype(np.float32)
                              for u, v in at])
            ref = np.median(crops[1:], axis=0)
            devs.append(float(np.linalg.norm(crops[0] - ref, axis=2)[disc].mean()))
        out.append(min(devs))
    return out


def read(image: np.ndarray, fix: BoardFix, geom: Geometry,
         calibration: dict | None = None) -> Reading:
    """The position of a Neunfeld board in ``image``."""
    H, camera = plane(fix, geom, image, calibration, DIE_MM - geom.thickness)
    found = find_dice(image, H, fix.corners, (-DICE_U_MM, DICE_U_MM, -DICE_V_MM, DICE_V_MM),
                      camera, on_board=False)
    seen = [found[c] for c in COLOURS if found[c] is not None]
    planes = [plane(fix, geom, image, calibration, z)[0] for z in PAWN_PLANES_MM]
    hidden = _hidden(planes[1], H, plane(fix, geom, image, calibration, -geom.thickness)[0],
                     seen, geom)
    starts = [plane(fix, geom, image, calibration, z - geom.thickness)[0]
              for z in PAWN_PLANES_MM]
    pawns, pconfs, palts = _pawns(image, planes, starts, geom, hidden)
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
