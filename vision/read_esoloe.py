"""The e-SOLO-e family's reader (esoloe, esoloe-tictactoe, esoloe-3andc): per field,

- occupancy: the field's centre, rectified on the board plane, compared with the board
  top's own look (the glaze's brightness-minus-saturation score measured on the margin
  outside the fields): a cube's wood is darker and more saturated than glaze;
- the stack's height (``vision.stack_height``): the regions each further cube would cover
  in the image, seen as wood or as what lies behind;
- each cube's colour (player): natural wood or green stain, by the symbol model's colour
  head over every face seen of it, plus for the top cube the green-red axis of Lab on its
  top face (cut on the plane of the stack's top); without the model, Lab alone;
- the faces (not in 3andC, whose cubes carry no symbols): every face the camera sees whole
  (the top cube's up face; the side faces turned to the camera and not hidden by another
  stack) is cut from its own plane (``vision.cube_geometry``: the face's corners through the
  board's pose, ordered as the training crops are) and all crops of the frame are read by
  ONE run of ``models/symbol.onnx`` (symbol and rotation heads). The readings weigh the
  cube set's 24 orientations (option ``cube-set``, ``rules.cube``); a face is given where
  the orientations that fit hold ``FACE_DECIDE`` of the weight, else null: one up face and
  its rotation can fix a whole cube, a blank face fixes little (never a guess).

What is not known stays null; an element read with less than 0.9 confidence (a field's
occupancy and height, a player, a face) is listed in ``uncertain``; so is a field whose
centre another stack hides from the camera. A cube whose colour no face shows (a lower cube
seen from straight above) gets player 0 with confidence 0.5 and the other as alternative.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from vision import cube_geometry as cg
from vision.board import BoardFix, Geometry, homography, material_score
from vision.classifier import shared
from vision.grid import board_pose, rectify, square_crop
from vision.observe import predict
from vision.reading import Reading
from vision.stack_height import measure_heights, project

CUBE_MM = cg.CUBE_MM  # vision.render.pieces.CUBE_MM, the publisher's size
OCCUPIED_BELOW = 0.72  # field score / margin score under which a field holds a cube
GREEN_BELOW_A = -1.5  # Lab a of a cube top minus the glaze's (OpenCV units)
DIRECTIONS = ("up", "down", "north", "south", "east", "west")
FACE_PX_PER_MM = 4.0  # the rectified top-plane view in which a cube's top face is sought
FACE_CROP = 32  # models/symbol.onnx's input size
FACE_CONFIDENT = 0.9  # a face (or player) reading under this is listed in ``uncertain``
FACE_DECIDE = 0.9  # a face is given when orientations holding this much weight agree
LABEL_FLOOR = 0.01  # the symbol head's probabilities are mixed with this much of uniform
ROTATION_FLOOR = 0.02  # ... the rotation head's with this much (it is the less sure one)
STEEP_DEG = 15.0  # a field seen within this of straight down: its top face is the blob
MAX_YAW_DEG = 24.0  # a top face is sought turned this much at most (cubes sit square)
MAX_OFFSET_MM = 2.5  # ... and this far off its field's centre
HIDDEN_CONFIDENCE = 0.5  # occupancy of a field another stack hides from the camera
HIDDEN_SHARE = 0.3  # ... when this share of its centre is hidden (the occupancy test's median)
MIN_FACING = 0.4  # cosine between a face's normal and the line to the camera (the training
#   crops' side faces were seen from 30..60 degrees of tilt: 0.5..0.87)
MAX_HIDDEN = 0.1  # share of a face's sample points another stack may hide
MIN_FACE_PX = 10.0  # a face whose shortest side in the image is shorter is not read
CUBE_SET = "corner"  # rules.cube's default set (option cube-set)


def _margin_reference(image: np.ndarray, H: np.ndarray, geom: Geometry) -> tuple[float, float]:
    """The board top's look outside the fields: median material score and median Lab a
    (the glaze is white, so its a measures the white-balance error)."""
    ppm = 2.0
    w, d = geom.width, geom.depth
    top = rectify(image, H, geom, ppm)
    score = material_score(top, geom.material)
    mask = np.zeros(score.shape, bool)
    inset = int(round(2.5 * ppm))
    mask[inset:-inset, inset:-inset] = True
    for _, u, v, half in geom.cells:
        h = half + 2.0
        x0, x1 = int((u - h + w / 2) * ppm), int((u + h + w / 2) * ppm)
        y0, y1 = int((d / 2 - v - h) * ppm), int((d / 2 - v + h) * ppm)
        mask[max(y0, 0):y1, max(x0, 0):x1] = False
    if not mask.any():
        mask[:] = True
    a = cv2.cvtColor(top, cv2.COLOR_BGR2Lab)[..., 1]
    return float(np.median(score[mask])), float(np.median(a[mask]))


def _player(crop: np.ndarray, glaze_a: float) -> tuple[int, float]:
    """(player, confidence) of a cube top: 1 for green stain, 0 for natural wood, by the
    median of Lab's green-red axis relative to the white glaze's (measured on renders:
    natural wood above ``GREEN_BELOW_A``, green stain below)."""
    a = float(np.median(cv2.cvtColor(crop, cv2.COLOR_BGR2Lab)[..., 1])) - glaze_a
    conf = float(np.clip(0.5 + abs(a - GREEN_BELOW_A) / 12.0, 0.5, 1.0))
    return (1, conf) if a < GREEN_BELOW_A else (0, conf)


def _field_score(crop: np.ndarray, geom: Geometry, reference: float) -> float:
    """Median material score of a field's crop; the blue glaze of 3andC's blue fields
    counts as bare board (its own score is low), and the median ignores the black dots."""
    score = material_score(crop, geom.material).astype(np.float64)
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    blue = (hsv[..., 0] >= 95) & (hsv[..., 0] <= 135) & (hsv[..., 1] > 50)
    score[blue] = reference
    return float(np.median(score))


@cache
def _outlines() -> list[tuple[float, np.ndarray, np.ndarray]]:
    """Per turn tried: the top face's outline sample points and their normals, in the
    rectified view's px (x east, y south), the cube centred at the origin."""
    r = CUBE_MM / 2 * FACE_PX_PER_MM
    t = np.linspace(-0.8, 0.8, 17) * r
    out = []
    for yaw in np.radians(np.arange(-MAX_YAW_DEG, MAX_YAW_DEG + 0.1, 3.0)):
        c, s = np.cos(yaw), np.sin(yaw)
        pts, normals = [], []
        for nx, ny in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = np.array([c * nx + s * ny, -s * nx + c * ny])  # turned anticlockwise on board
            along = np.array([-n[1], n[0]])
            pts.append(n * r + t[:, None] * along)
            normals.append(np.repeat(n[None], len(t), 0))
        out.append((float(yaw), np.vstack(pts), np.vstack(normals)))
    return out


def _blob_square(image: np.ndarray, H_top: np.ndarray, u: float, v: float, half: float,
                 material: str) -> tuple[float, float, float] | None:
    """(u, v, yaw) of the cube as the dark blob (wood against the glaze, by
    ``material_score`` and Otsu) holding the field's centre in the rectified view of the
    field on the top plane (north up), by its ``minAreaRect``; None when the blob's size
    is implausible. For a camera looking (nearly) straight down on the field only: seen
    obliquely the side faces join the blob, which the field's window then cuts.)"""
    ppm = FACE_PX_PER_MM
    reach = half
    side = int(round(2 * reach * ppm))
    view = square_crop(image, H_top, u, v, reach, side)
    score = cv2.GaussianBlur(material_score(view, material), (5, 5), 0)
    _, dark = cv2.threshold(score, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    count, labels = cv2.connectedComponents(dark)
    centre = labels[side // 2, side // 2]
    if count < 2 or centre == 0:
        return None
    ys, xs = np.nonzero(labels == centre)
    (x, y), (w, h), a = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
    expected = CUBE_MM * ppm
    if not (0.8 * expected <= min(w, h) and max(w, h) <= 1.5 * expected):
        return None
    # the view's y runs south: its clockwise angle is the board's anticlockwise yaw
    yaw = (-float(np.radians(a)) + np.pi / 4) % (np.pi / 2) - np.pi / 4
    return u - reach + (x + 0.5) / ppm, v + reach - (y + 0.5) / ppm, yaw


def _top_face(image: np.ndarray, H_top: np.ndarray, u: float, v: float, half: float,
              material: str, steep: bool) -> tuple[float, float, float]:
    """(u, v, yaw) of the top cube of the stack on the field centred at (u, v), whose top
    face lies on the plane ``H_top``.

    Seen from above (``steep``), the cube's blob (``_blob_square``). Otherwise, or without
    a plausible blob, in the rectified view
    of the field on that plane (north up) the top face is an 18 mm square whose outline is
    an edge all round (the bevel, and the change to the shaded side faces or to what lies
    behind): the square is fitted by brightness gradient across its outline over turns of
    +-``MAX_YAW_DEG`` and offsets of +-``MAX_OFFSET_MM`` (in a view from above the field's
    painted outline, 1.5 mm outside a centred cube, would compete).
    """
    blob = _blob_square(image, H_top, u, v, half, material) if steep else None
    if blob is not None:
        return blob
    ppm = FACE_PX_PER_MM
    reach = half + 4.0
    side = int(round(2 * reach * ppm))
    view = cv2.cvtColor(square_crop(image, H_top, u, v, reach, side), cv2.COLOR_BGR2GRAY)
    view = cv2.GaussianBlur(view.astype(np.float32), (5, 5), 0)
    gx = cv2.Sobel(view, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(view, cv2.CV_32F, 0, 1, ksize=3)
    steps = np.arange(-MAX_OFFSET_MM, MAX_OFFSET_MM + 0.1, 0.5) * ppm
    shifts = np.stack(np.meshgrid(steps, steps), -1).reshape(-1, 1, 2) + side / 2
    best, best_score = (0.0, 0.0, 0.0), -1.0
    for yaw, pts, normals in _outlines():
        at = np.clip(np.round(pts[None] + shifts).astype(int), 0, side - 1)  # (shift, pt, 2)
        x, y = at[..., 0], at[..., 1]
        scores = np.abs(gx[y, x] * normals[:, 0] + gy[y, x] * normals[:, 1]).mean(1)
        k = int(np.argmax(scores))
        if scores[k] > best_score:
            dx, dy = shifts[k, 0] - side / 2
            best, best_score = (dx / ppm, dy / ppm, float(yaw)), float(scores[k])
    dx, dy, yaw = best
    return u + dx, v - dy, yaw


def _has_symbols(game: str) -> bool:
    """Whether the game's cubes carry symbols (3andC's carry none)."""
    from rules.registry import get_game

    return bool(get_game(game).symbols)


def _tempered(prediction, floor: float) -> dict:
    """A head's probabilities mixed with ``floor`` of uniform (the model is sure of wrong
    crops too), by label."""
    n = len(prediction.top)
    return {label: (1 - floor) * p + floor / n for label, p in prediction.top}


class _Frame:
    """What the faces of one frame need: the pose, the camera's centre, the stacks."""

    def __init__(self, image, fix, geom, calibration):
        size = (image.shape[1], image.shape[0])
        K = dist = None
        if calibration is not None:
            K, dist = calibration.get("K"), calibration.get("dist")
        self.image = image
        self.dist = dist
        self.pose = board_pose(fix, geom, size, K, dist)
        self.camera = -self.pose.R.T @ self.pose.t  # board frame

    def face(self, u, v, level, yaw, direction, boxes):
        """(crop, board direction of the crop's top, pixels across) of a face the camera
        sees whole, else None."""
        pts = cg.face_points(u, v, level, yaw, direction)
        centre = pts.mean(0)
        ray = self.camera - centre
        if cg.turned(direction, yaw) @ ray / np.linalg.norm(ray) < MIN_FACING:
            return None
        img = project(self.pose, pts, self.dist)
        h, w = self.image.shape[:2]
        if img.min() < 1 or img[:, 0].max() > w - 2 or img[:, 1].max() > h - 2:
            return None
        across = float(np.min(np.linalg.norm(img - np.roll(img, 1, axis=0), axis=1)))
        if across < MIN_FACE_PX or cg.hidden_fraction(pts, self.camera, boxes) > MAX_HIDDEN:
            return None
        order = cg.crop_order(img)
        return cg.warp(self.image, img, order, FACE_CROP), cg.crop_up(pts, order), across


def read_fields(image: np.ndarray, fix: BoardFix, geom: Geometry,
                calibration: dict | None = None, cube_set: str = CUBE_SET) -> list[dict]:
    """Per field: ``occupied`` and its ``confidence``; for an occupied one ``height`` and
    its ``height_confidence``, ``cubes`` (bottom first: ``player``, ``player_confidence``,
    ``faces`` by direction, None where not known, ``face_probability`` of the given ones),
    and for the top cube ``player``, ``player_confidence`` and ``up`` (the symbol model's
    Prediction of the up face, None when not read). All faces of a frame go through one
    model run."""
    H = homography(fix, geom)
    frame = _Frame(image, fix, geom, calibration)
    model = shared("symbol") if _has_symbols(geom.game) else None
    reference, glaze_a = _margin_reference(image, H, geom)
    reference = max(reference, 1.0)
    out = []
    for _, u, v, half in geom.cells:
        crop = square_crop(image, H, u, v, half * 0.6, 16)
        ratio = _field_score(crop, geom, reference) / reference
        # confidence grows with the distance from the threshold (0.5 on it, ~1 at 0.25 off)
        conf = float(np.clip(0.5 + abs(ratio - OCCUPIED_BELOW) * 2.0, 0.5, 1.0))
        out.append({"occupied": bool(ratio < OCCUPIED_BELOW), "confidence": conf})
    heights = measure_heights(image, frame.pose, geom, [f["occupied"] for f in out],
                              frame.dist)
    stacks = []  # per occupied field: (field, u, v, yaw of the top cube, height)
    for field, (_, u, v, half), height in zip(out, geom.cells, heights, strict=True):
        if not field["occupied"]:
            continue
        n = height.cubes
        H_top = frame.pose.plane_homography(n * CUBE_MM)
        ray = frame.camera - np.array([u, v, n * CUBE_MM])
        steep = np.hypot(ray[0], ray[1]) < np.tan(np.radians(STEEP_DEG)) * ray[2]
        tu, tv, yaw = _top_face(image, H_top, u, v, half, geom.material, steep)
        player, pconf = _player(square_crop(image, H_top, tu, tv, CUBE_MM * 0.35, 16), glaze_a)
        field.update(height=n, height_confidence=height.confidence, player=player,
                     player_confidence=pconf, up=None,
                     cubes=[{"player": 0, "player_confidence": 0.5, "faces":
                             dict.fromkeys(DIRECTIONS), "face_probability": {}}
                            for _ in range(n)])
        field["cubes"][-1].update(player=player, player_confidence=pconf)
        stacks.append((field, u, v, tu, tv, yaw, n))
    boxes = [(u - CUBE_MM / 2, u + CUBE_MM / 2, v - CUBE_MM / 2, v + CUBE_MM / 2, 0.0,
              n * CUBE_MM) for _, u, v, _, _, _, n in stacks]
    _hidden_fields(out, geom, stacks, boxes, frame.camera)
    crops, seen = [], []  # seen: (field, level, direction, crop top, pixels across)
    for s, (field, u, v, tu, tv, yaw, n) in enumerate(stacks):
        others = boxes[:s] + boxes[s + 1:]
        for level in range(n):
            top = level == n - 1
            cu, cv_, cyaw = (tu, tv, yaw) if top else (u, v, 0.0)
            for d in (("up",) if top else ()) + cg.SIDE_FACES:
                got = frame.face(cu, cv_, level, cyaw, d, others)
                if got is not None:
                    crops.append(got[0])
                    seen.append((field, level, d, got[1], got[2]))
    _colours_from_sides(crops, seen, glaze_a)
    if model is None or not crops:
        return out
    evidence: dict[tuple[int, int], list] = {}
    colour: dict[tuple[int, int], float] = {}  # log-odds of green stain from the cube head
    for (field, level, d, up, _), pred in zip(seen, predict(calibration, "symbol", model, crops, 4),
                                              strict=True):
        if d == "up":
            field["up"] = pred["symbol"]
        labels = _tempered(pred["symbol"], LABEL_FLOOR)
        normal = cg.VECTORS[d]
        tops = {cg.rotation_top(up, normal, int(k)): p
                for k, p in _tempered(pred["rotation"], ROTATION_FLOOR).items()}
        evidence.setdefault((id(field), level), []).append((d, labels, tops))
        green = float(np.clip(dict(pred["cube"].top)["green"], 0.03, 0.97))
        colour[(id(field), level)] = colour.get((id(field), level), 0.0) + np.log(
            green / (1 - green))
    for field, *_ in stacks:
        for level, cube in enumerate(field["cubes"]):
            if (id(field), level) in colour:
                _colour(cube, colour[(id(field), level)], level == field["height"] - 1)
            if (id(field), level) in evidence:
                faces, probs, _ = cg.decide(evidence[(id(field), level)], cube_set,
                                            FACE_DECIDE)
                cube["faces"], cube["face_probability"] = faces, probs
    return out


def _hidden_fields(fields: list, geom: Geometry, stacks: list, boxes: list,
                   camera: np.ndarray) -> None:
    """A field whose centre on the board (where occupancy is judged) another stack hides
    from the camera (the 3x3 games' far rows) reads that stack, not itself: its occupancy
    (and for an occupied one its height) drops to ``HIDDEN_CONFIDENCE``, so a second
    camera's view or the referee's caution takes over."""
    stack_of = {id(s[0]): k for k, s in enumerate(stacks)}
    for field, (_, u, v, half) in zip(fields, geom.cells, strict=True):
        k = stack_of.get(id(field))
        others = [b for j, b in enumerate(boxes) if j != k]
        r = half * 0.6
        centre = np.array([(u - r, v + r, 0.5), (u + r, v + r, 0.5), (u + r, v - r, 0.5),
                           (u - r, v - r, 0.5)])
        if cg.hidden_fraction(centre, camera, others) > HIDDEN_SHARE:
            field["confidence"] = min(field["confidence"], HIDDEN_CONFIDENCE)
            if k is not None:
                field["height_confidence"] = min(field["height_confidence"], HIDDEN_CONFIDENCE)


def _colour(cube: dict, log_odds: float, top: bool) -> None:
    """A cube's player from the symbol model's colour head over its faces seen (log-odds of
    green), with the top cube's Lab reading of its top face added (measured on renders:
    the head is right more often on side faces in shade, Lab on lit top faces)."""
    if top:
        p = min(cube["player_confidence"], 0.97)
        log_odds += (1 if cube["player"] == 1 else -1) * np.log(p / (1 - p))
    cube["player"] = int(log_odds > 0)
    cube["player_confidence"] = float(1 / (1 + np.exp(-abs(log_odds))))


def _colours_from_sides(crops: list, seen: list, glaze_a: float) -> None:
    """The player of each lower cube from the widest side face seen of it, by Lab (the
    colour head, where the model is there, replaces this: ``_colour``)."""
    best: dict = {}
    for crop, (field, level, d, _, across) in zip(crops, seen, strict=True):
        if d == "up" or level == field["height"] - 1:
            continue
        key = (id(field), level)
        if key not in best or across > best[key][0]:
            best[key] = (across, field, level, crop)
    for _, field, level, crop in best.values():
        player, conf = _player(crop[8:24, 8:24], glaze_a)
        field["cubes"][level].update(player=player, player_confidence=conf)


def read(image: np.ndarray, fix: BoardFix, geom: Geometry,
         calibration: dict | None = None, cube_set: str = CUBE_SET) -> Reading:
    """The position of an e-SOLO-e family board in ``image``."""
    fields = read_fields(image, fix, geom, calibration, cube_set)
    cells: list[list[dict]] = []
    reading = Reading({"cells": cells})
    for i, field in enumerate(fields):
        if not field["occupied"]:
            cells.append([])
            reading.add(field["confidence"], f"cells.{i}")
            continue
        reading.add(min(field["confidence"], field["height_confidence"]), f"cells.{i}")
        stack = []
        for level, got in enumerate(field["cubes"]):
            stack.append({"player": got["player"], "faces": dict(got["faces"])})
            path = f"cells.{i}.{level}"
            reading.add(got["player_confidence"], f"{path}.player", 0.9,
                        [[1 - got["player"], round(1 - got["player_confidence"], 4)]])
            for d, p in got["face_probability"].items():
                reading.add(p, f"{path}.faces.{d}", FACE_CONFIDENT)
        cells.append(stack)
    return reading
