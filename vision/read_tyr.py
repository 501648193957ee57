"""Tyr 3 gewinnt's reader: the three Miwin dice on the 9 x 9 board or beside it.

The dice are found by ``vision.read_miwin`` over the board and ``MARGIN_MM`` round it; a
die whose top's centre lies on the board stands on the field under it (row 1 north,
column 1 west, as the spec says) and its top is read by ``models/pips.onnx``; a die beside
the board has ``cell`` and ``top`` null (the rules do not count a top beside the board).
A die read beside the board whose place is in doubt (just beyond its edge,
``EDGE_SLACK_MM``: the field nearest it is the cell's alternative; or the die itself found
in doubt) has its (null) top listed uncertain as well, at the cell's confidence, the top
read as its alternative. A die that is not seen at all is reported beside the board, its
cell and its top listed uncertain at confidence 0.
"""

from __future__ import annotations

import numpy as np

from vision.board import BoardFix, Geometry
from vision.cube_geometry import boxes_mask
from vision.grid import BoardPose, board_pose
from vision.piece_colours import measured
from vision.read_miwin import (
    COLOURS,
    DIE_MM,
    dice_boxes,
    dice_tops,
    find_dice,
    pose_plane,
)
from vision.reading import Reading

MARGIN_MM = 60.0
FIELD_MM = 25.0  # vision.render.scene.board_spec("tyr"): 9 fields of 25 mm
EDGE_SLACK_MM = 4.0  # a centre this close to a field's edge: the neighbour is the alternative


def _cell(u: float, v: float) -> tuple[list[int] | None, float, list | None]:
    """(cell, confidence, alternative cell) of a die top centred at (u, v) mm; beside the
    board, the alternative is the field nearest it."""
    half = 4.5 * FIELD_MM
    if not (-half <= u <= half and -half <= v <= half):
        out = min(abs(u) - half, abs(v) - half) if abs(u) > half and abs(v) > half \
            else max(abs(u) - half, abs(v) - half)
        inner = half - 1e-6
        nearest = _cell(float(np.clip(u, -inner, inner)), float(np.clip(v, -inner, inner)))[0]
        return None, float(np.clip(0.5 + out / (2 * EDGE_SLACK_MM), 0.5, 1.0)), nearest
    col = min(int((u + half) // FIELD_MM) + 1, 9)
    row = min(int((half - v) // FIELD_MM) + 1, 9)
    du = (u + half) - (col - 0.5) * FIELD_MM  # offset from the field's centre, mm
    dv = (half - v) - (row - 0.5) * FIELD_MM
    edge = FIELD_MM / 2 - max(abs(du), abs(dv))
    conf = float(np.clip(0.5 + edge / (2 * EDGE_SLACK_MM), 0.5, 1.0))
    alt_row, alt_col = row, col
    if abs(du) >= abs(dv):
        alt_col += 1 if du > 0 else -1
    else:
        alt_row += 1 if dv > 0 else -1
    alt = [alt_row, alt_col] if 1 <= alt_row <= 9 and 1 <= alt_col <= 9 else None
    return [row, col], conf, alt


def _dice(image: np.ndarray, fix: BoardFix, geom: Geometry, calibration: dict | None
          ) -> tuple[BoardPose, np.ndarray, dict]:
    """(the board's pose, the homography of the plane of the tops of dice on the board,
    the dice ``find_dice`` finds by colour on it)."""
    K = dist = None
    if calibration is not None:
        K, dist = calibration.get("K"), calibration.get("dist")
    board = board_pose(fix, geom, (image.shape[1], image.shape[0]), K, dist)
    H, camera = pose_plane(board, DIE_MM)
    w, d = geom.width / 2 + MARGIN_MM, geom.depth / 2 + MARGIN_MM
    half = 4.5 * FIELD_MM  # a die whose pips do not show is sought on the board only
    found = find_dice(image, H, fix.corners, (-w, w, -d, d), camera,
                      faint_on=np.array([[-half, -half], [half, -half], [half, half],
                                         [-half, half]]),
                      colours=measured(calibration, "tyr"))
    return board, H, found


def covered(image: np.ndarray, fix: BoardFix, geom: Geometry, reading: Reading,
            calibration: dict | None = None) -> np.ndarray:
    """Bool image mask of what the dice ``read`` found (``reading.pieces``) may cover: each
    an upright box from the table to a die's top over the board, turned any way about its
    axis and grown by ``read_miwin.COVER_PLAY_MM`` (``dice_boxes``, ``cube_geometry.boxes_mask``).
    ``vision.occlusion.edge_occlusion`` ignores the edge under it: a die at the board's
    edge leans across it in an oblique image, and is no hand."""
    board, boxes = reading.pieces
    dist = None if calibration is None else calibration.get("dist")
    return boxes_mask(image.shape, board, boxes, dist if board.calibrated else None)


def read(image: np.ndarray, fix: BoardFix, geom: Geometry,
         calibration: dict | None = None) -> Reading:
    """The position of a Tyr board in ``image``."""
    board, H, found = _dice(image, fix, geom, calibration)
    dice: dict[str, dict] = {}
    reading = Reading({"dice": dice},
                      pieces=(board, dice_boxes(found.values(), -geom.thickness, DIE_MM)))
    on_board, near = [], []  # near: beside the board, its place in doubt
    for colour in COLOURS:
        die = found[colour]
        if die is None:  # not seen: where it lies and its top are both unknown
            dice[colour] = {"top": None, "cell": None}
            reading.add(0.0, f"dice.{colour}.cell")
            reading.add(0.0, f"dice.{colour}.top")
            continue
        cell, conf, alt = _cell(die.u, die.v)
        dice[colour] = {"top": None, "cell": cell}
        reading.add(min(conf, die.confidence), f"dice.{colour}.cell", 0.9,
                    [[alt, round(1 - conf, 4)]] if alt is not None and conf < 0.9 else None)
        if cell is not None:
            on_board.append(die)
        elif min(conf, die.confidence) < 0.9:
            near.append((die, min(conf, die.confidence)))
    tops = dice_tops(image, H, on_board + [d for d, _ in near], calibration)
    for die, (top, conf, alts) in zip(on_board, tops[:len(on_board)], strict=True):
        dice[die.colour]["top"] = top
        reading.add(conf, f"dice.{die.colour}.top", 0.9, alts)
    for (die, beside), (top, conf, _) in zip(near, tops[len(on_board):], strict=True):
        # its top is null as it lies beside the board, in doubt as its place is: on a
        # field the top read would count
        reading.add(beside, f"dice.{die.colour}.top", 0.9,
                    None if top is None else [[top, round((1 - beside) * conf, 4)]])
    return reading
