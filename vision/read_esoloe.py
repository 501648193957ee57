"""The e-SOLO-e family's reader (esoloe, esoloe-tictactoe, esoloe-3andc): per field,

- occupancy: the field's centre, rectified on the board plane, compared with the board
  top's own look (the glaze's brightness-minus-saturation score measured on the margin
  outside the fields): a cube's wood is darker and more saturated than glaze;
- the top cube's colour (player): natural wood or green stain, by the green-red axis of
  Lab on the crop of the plane one cube up;
- the up face: the top face of a one-cube stack (the plane one cube up), its outline found
  in the rectified view (``_face_corners``), warped to a 32 px crop as the model's training
  crops are cut, all crops of the frame read by ONE run of ``models/symbol.onnx``; without
  that model (or in 3andC, whose cubes carry no symbols) it stays null. The side faces are
  always null (the rotation head is not used yet: never a guess).

Stack height is not measured yet: an occupied field is reported as one cube, and the
field is listed in ``uncertain`` with confidence ``HEIGHT_CONFIDENCE`` (a stack seen from
above looks the same at any height), so the referee treats such readings as unclear
instead of judging them.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board import BoardFix, Geometry, homography, material_score
from vision.classifier import shared
from vision.grid import board_pose, rectify, square_crop
from vision.reading import Reading

CUBE_MM = 18.0  # vision.render.pieces.CUBE_MM, the publisher's size
OCCUPIED_BELOW = 0.72  # field score / margin score under which a field holds a cube
HEIGHT_CONFIDENCE = 0.5
GREEN_BELOW_A = -1.5  # Lab a of a cube top minus the glaze's (OpenCV units)
DIRECTIONS = ("up", "down", "north", "south", "east", "west")
FACE_PX_PER_MM = 4.0  # the rectified top-plane view in which a cube's top face is sought
FACE_CROP = 32  # models/symbol.onnx's input size
FACE_CONFIDENT = 0.9  # a face reading under this is listed in ``uncertain``


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


def _face_corners(image: np.ndarray, H_top: np.ndarray, u: float, v: float, half: float,
                  material: str) -> np.ndarray:
    """The four corners (u, v mm, clockwise from the north-west-most one as seen north up)
    of the top face of the cube on the field centred at (u, v), on the plane ``H_top``.

    In the rectified view of the field (north up) the cube is the dark blob (wood against
    the glaze, by ``material_score`` and Otsu) that holds the field's centre; its
    ``minAreaRect`` gives the cube's turn. The face is the ``CUBE_MM`` square at the
    rectangle's centre with that turn (the blob can include a sliver of side face, so its
    size is not trusted). Without a plausible blob: the field-centred square, unturned.
    """
    ppm = FACE_PX_PER_MM
    side = int(round(2 * half * ppm))
    view = square_crop(image, H_top, u, v, half, side)
    score = cv2.GaussianBlur(material_score(view, material), (5, 5), 0)
    _, dark = cv2.threshold(score, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    count, labels = cv2.connectedComponents(dark)
    centre = labels[side // 2, side // 2]
    cu, cv_, angle = u, v, 0.0
    if count > 1 and centre != 0:
        ys, xs = np.nonzero(labels == centre)
        (x, y), (w, h), a = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
        expected = CUBE_MM * ppm
        if 0.8 * expected <= min(w, h) and max(w, h) <= 1.5 * expected:
            cu = u - half + (x + 0.5) / ppm
            cv_ = v + half - (y + 0.5) / ppm
            angle = float(np.radians(a))
    # corners in the view's orientation (x east, y south), then ordered clockwise from the
    # top-left as the training crops are (vision.render.crops: the face's corners in image
    # order), which makes the crop's "up" north
    r = CUBE_MM / 2
    c, s = np.cos(angle), np.sin(angle)
    pts = [(cu + c * dx - s * dy, cv_ - (s * dx + c * dy)) for dx, dy in
           ((-r, -r), (r, -r), (r, r), (-r, r))]
    pts = np.asarray(pts, np.float64)
    # start at the view's top-left: the smallest x + y, i.e. u - v
    first = int(np.argmin(pts[:, 0] - pts[:, 1]))
    return np.roll(pts, -first, axis=0)


def face_crop(image: np.ndarray, H_top: np.ndarray, corners_mm: np.ndarray) -> np.ndarray:
    """The face with ``corners_mm`` (on the plane of ``H_top``) warped to a FACE_CROP square,
    first corner to the crop's top-left, clockwise."""
    src = cv2.perspectiveTransform(corners_mm.reshape(-1, 1, 2), H_top).reshape(4, 2)
    n = FACE_CROP - 1
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    M = cv2.getPerspectiveTransform(src.astype(np.float32), dst)
    return cv2.warpPerspective(image, M, (FACE_CROP, FACE_CROP), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def _has_symbols(game: str) -> bool:
    """Whether the game's cubes carry symbols (3andC's carry none)."""
    from rules.registry import get_game

    return bool(get_game(game).symbols)


def read_fields(image: np.ndarray, fix: BoardFix, geom: Geometry,
                calibration: dict | None = None) -> list[dict]:
    """Per field: occupied, its confidence, and for an occupied one the top cube's player
    and that reading's confidence, and its up face (``up``: the symbol model's Prediction,
    None without the model). All faces of a frame go through one model run."""
    H = homography(fix, geom)
    size = (image.shape[1], image.shape[0])
    K = dist = None
    if calibration is not None:
        K, dist = calibration["K"], calibration.get("dist")
    pose = board_pose(fix, geom, size, K, dist)
    H_cube = pose.plane_homography(CUBE_MM)
    model = shared("symbol") if _has_symbols(geom.game) else None
    reference, glaze_a = _margin_reference(image, H, geom)
    reference = max(reference, 1.0)
    out = []
    crops: list[np.ndarray] = []
    for _, u, v, half in geom.cells:
        crop = square_crop(image, H, u, v, half * 0.6, 16)
        ratio = _field_score(crop, geom, reference) / reference
        occupied = ratio < OCCUPIED_BELOW
        # confidence grows with the distance from the threshold (0.5 on it, ~1 at 0.25 off)
        conf = float(np.clip(0.5 + abs(ratio - OCCUPIED_BELOW) * 2.0, 0.5, 1.0))
        field = {"occupied": occupied, "confidence": conf}
        if occupied:
            player, pconf = _player(square_crop(image, H_cube, u, v, CUBE_MM * 0.35, 16), glaze_a)
            field.update(player=player, player_confidence=pconf, up=None)
            if model is not None:  # the top face of a one-cube stack (no height is measured)
                crops.append(face_crop(image, H_cube, _face_corners(image, H_cube, u, v, half,
                                                                   geom.material)))
        out.append(field)
    if crops:  # one model run for the whole frame
        readings = iter(model.predict(crops, top_k=4))
        for field in out:
            if field["occupied"]:
                field["up"] = next(readings)["symbol"]
    return out


def read(image: np.ndarray, fix: BoardFix, geom: Geometry,
         calibration: dict | None = None) -> Reading:
    """The position of an e-SOLO-e family board in ``image``."""
    fields = read_fields(image, fix, geom, calibration)
    cells: list[list[dict]] = []
    reading = Reading({"cells": cells})
    for i, field in enumerate(fields):
        if not field["occupied"]:
            cells.append([])
            reading.add(field["confidence"], f"cells.{i}")
            continue
        reading.add(field["confidence"])
        cube = {"player": field["player"], "faces": dict.fromkeys(DIRECTIONS)}
        cells.append([cube])
        up = field["up"]
        if up is not None:
            cube["faces"]["up"] = up.label
            reading.add(up.probability, f"cells.{i}.0.faces.up", FACE_CONFIDENT,
                        [[label, round(p, 4)] for label, p in up.top[1:]])
        reading.add(HEIGHT_CONFIDENCE, f"cells.{i}")
        reading.add(field["player_confidence"], f"cells.{i}.0.player", 0.9,
                    [[1 - field["player"], round(1 - field["player_confidence"], 4)]])
    return reading
