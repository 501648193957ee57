"""One camera frame -> one observation (``../shared/spec/observation.md``), e-SOLO-e family.

``observe(image, game)`` finds the board (``vision.board``), builds the board-top
homography and the camera pose (``vision.grid``), then per field:

- occupancy: the field's centre, rectified on the board plane, compared with the board
  top's own look (the glaze's brightness-minus-saturation score measured on the margin
  outside the fields): a cube's wood is darker and more saturated than glaze;
- the top cube's colour (player): natural wood or green stain, by the green-red axis of
  Lab on the crop of the plane one cube up;
- faces: read by the ``symbol`` model when ``models/symbol.onnx`` exists; until then every
  face is null (never a guess).

Stack height is not measured yet: an occupied field is reported as one cube, and the
field is listed in ``uncertain`` with confidence ``HEIGHT_CONFIDENCE`` (a stack seen from
above looks the same at any height), so the referee treats such readings as unclear
instead of judging them.
"""

from __future__ import annotations

import time as _time

import cv2
import numpy as np

from vision.board import BoardFix, Geometry, find_board, geometry, homography, material_score
from vision.grid import board_pose, rectify, square_crop

SUPPORTED = ("esoloe", "esoloe-tictactoe", "esoloe-3andc")
FRAME_SIZE = (1280, 720)
CUBE_MM = 18.0  # vision.render.pieces.CUBE_MM, the publisher's size
OCCUPIED_BELOW = 0.72  # field score / margin score under which a field holds a cube
HEIGHT_CONFIDENCE = 0.5
GREEN_BELOW_A = -1.5  # Lab a of a cube top minus the glaze's (OpenCV units)
DIRECTIONS = ("up", "down", "north", "south", "east", "west")


class ObserveError(ValueError):
    """The frame cannot be turned into an observation; the message is one line."""


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


def read_fields(image: np.ndarray, fix: BoardFix, geom: Geometry,
                calibration: dict | None = None) -> list[dict]:
    """Per field: occupied, its confidence, and for an occupied one the top cube's player
    and that reading's confidence."""
    H = homography(fix, geom)
    size = (image.shape[1], image.shape[0])
    K = dist = None
    if calibration is not None:
        K, dist = calibration["K"], calibration.get("dist")
    pose = board_pose(fix, geom, size, K, dist)
    H_cube = pose.plane_homography(CUBE_MM)
    reference, glaze_a = _margin_reference(image, H, geom)
    reference = max(reference, 1.0)
    out = []
    for _, u, v, half in geom.cells:
        crop = square_crop(image, H, u, v, half * 0.6, 16)
        ratio = _field_score(crop, geom, reference) / reference
        occupied = ratio < OCCUPIED_BELOW
        # confidence grows with the distance from the threshold (0.5 on it, ~1 at 0.25 off)
        conf = float(np.clip(0.5 + abs(ratio - OCCUPIED_BELOW) * 2.0, 0.5, 1.0))
        field = {"occupied": occupied, "confidence": conf}
        if occupied:
            player, pconf = _player(square_crop(image, H_cube, u, v, CUBE_MM * 0.35, 16), glaze_a)
            field.update(player=player, player_confidence=pconf)
        out.append(field)
    return out


def observe(image: np.ndarray, game: str, *, calibration: dict | None = None,
            table: str = "t1", seq: int = 0, time: float | None = None) -> dict:
    """The observation of ``image`` (BGR uint8, 1280 x 720) for ``game``."""
    if game not in SUPPORTED:
        raise ObserveError(f"game {game!r} is not read by the vision pipeline yet "
                           f"(supported: {', '.join(SUPPORTED)})")
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ObserveError("not a colour 8-bit image")
    if (image.shape[1], image.shape[0]) != FRAME_SIZE:
        raise ObserveError(f"wrong size {image.shape[1]}x{image.shape[0]} "
                           f"(need {FRAME_SIZE[0]}x{FRAME_SIZE[1]})")
    if float(image.std()) < 2.0:
        raise ObserveError("the image is blank (no detail at all)")
    geom = geometry(game)
    fix = find_board(image, geom)
    if fix is None:
        raise ObserveError("no board in view")
    fields = read_fields(image, fix, geom, calibration)
    cells: list[list[dict]] = []
    uncertain: list[dict] = []
    confidences = []
    for i, field in enumerate(fields):
        confidences.append(field["confidence"])
        if not field["occupied"]:
            cells.append([])
            if field["confidence"] < 0.9:
                uncertain.append({"path": f"cells.{i}", "confidence": field["confidence"]})
            continue
        cube = {"player": field["player"], "faces": dict.fromkeys(DIRECTIONS)}
        cells.append([cube])
        confidences += [field["player_confidence"], HEIGHT_CONFIDENCE]
        uncertain.append({"path": f"cells.{i}", "confidence": HEIGHT_CONFIDENCE})
        if field["player_confidence"] < 0.9:
            uncertain.append({"path": f"cells.{i}.0.player",
                              "confidence": field["player_confidence"],
                              "alternatives": [[1 - field["player"],
                                                1 - field["player_confidence"]]]})
    return {"schema": "tableref/observation/1", "table": table, "game": game, "seq": seq,
            "time": _time.time() if time is None else time, "stable": True,
            "confidence": round(min(confidences), 4),
            "position": {"cells": cells}, "uncertain": uncertain,
            "board": fix.to_json()}
