"""Tyr 3 gewinnt's reader: the three Miwin dice on the 9 x 9 board or beside it.

The dice are found by ``vision.read_miwin`` over the board and ``MARGIN_MM`` round it; a
die whose top's centre lies on the board stands on the field under it (row 1 north,
column 1 west, as the spec says) and its top is read by ``models/pips.onnx``; a die beside
the board has ``cell`` and ``top`` null (the rules do not count a top beside the board).
A die read beside the board whose place is in doubt (just beyond its edge,
``EDGE_SLACK_MM``: the field nearest it is the cell's alternative; or the die itself found
in doubt) has its (null) top listed uncertain as well, at the cell's confidence, the top
read as its alternative. A die that is not seen at all is reported beside the board, its
cell and its top listed uncertain at confidence 0. A top read in doubt is read again on
crops moved towards and away from the camera and across that line
(``read_miwin.dice_tops``' ``camera``).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board import LEATHER_STITCH_MM, BoardFix, Geometry, homography
from vision.cube_geometry import boxes_mask
from vision.grid import BoardPose, board_pose
from vision.own_lines import light_ridges, shifted
from vision.piece_colours import measured
from vision.read_miwin import (
    COLOURS,
    DIE_MM,
    dice_boxes,
    dice_tops,
    find_dice,
    pose_plane,
)
from vision.read_neunfeld import (
    LIP_SIDE_MM,
    MAX_SHIFT_MM,
    REFINE_PX_PER_MM,
    STILL_MM,
    STITCH_SIDE_MM,
    _agreement,
    _corner_shift,
)
from vision.reading import Reading

MARGIN_MM = 60.0
FIELD_MM = 25.0  # vision.render.scene.board_spec("tyr"): 9 fields of 25 mm
EDGE_SLACK_MM = 4.0  # a centre this close to a field's edge: the neighbour is the alternative
#: ``refine``: each line sought this far either way of where the corners put it, first
#: ``WIDE_REACH_MM`` (given corners lie up to 6 mm off at the far side of an oblique view),
#: then ``REFINE_REACH_MM``, in pieces ``PIECE_MM`` either side of each field's centre along
#: it (clear of the lines' crossings); then up to ``REFINE_PASSES`` moves of all four
#: corners, each taken only where the lines agree with it better (``_agreement``)
WIDE_REACH_MM, REFINE_REACH_MM = 5.0, 2.5
PIECE_MM = 10.5
REFINE_PASSES = 3
#: the grid's light lips lie this far at most to one side of its borders' mean (0.35 mm
#: by the renderer's leather, ``vision.render.scene.board_texture``, and the ridge of a lip
#: with its groove beside it 0.15 mm farther: dev 101, 104, 109 at the true corners)
LIP_PLAY_MM = 0.6
MIN_STITCH = 6  # least pieces of the stitching across an axis to place the grid's lips by
#: ``refine`` keeps the fix as it was where the pieces lie a median of more than this off
#: where it moved it: dev 100..131, sharp boards 0.03..0.14 mm; blurred ones (the lines
#: rising under 0.05) 0.16..0.44, where 7 of 9 refits were worse (overhead 103 0.55 ->
#: 2.22 mm: 5 px of motion)
SPREAD_MM = 0.15
#: ... and where, across an axis whose stitching shows (``MIN_STITCH`` pieces), the
#: stitching's pieces lie a median of more than this off where it moved it: the grid's
#: lips, smeared by the camera's motion beside their grooves, show up to 2 mm off their
#: borders all at once, and the robust fit of their 90 pieces carried the board past the
#: stitching's 18 (dev Tyr overhead 1498, 5.1 px of motion: the finder's corners 0.47 mm
#: off, refitted 2.16 mm off with the stitching 0.87 mm off them; 1427, 3 px, 0.27 ->
#: 0.93 mm, 1.91); the refits of sharp boards end with it 0.22 mm off at most (dev Tyr
#: 100..131, 1400..1519)
STITCH_OFF_MM = 0.5
#: ``smeared_shift``: the lines sought with these sides (mm; the grid's lips', the
#: stitching's): 3 and 4 times ``LIP_SIDE_MM`` and ``STITCH_SIDE_MM``, wider than a line
#: smeared by the camera's motion (3.8 px, 3.2 mm at 1.2 px a mm: dev Tyr 1612), whose
#: light ridge the narrow sides find at one end of its smear (the stitching and the lips
#: all at once 1.5..1.7 mm off at the true corners, 0.0..0.5 mm with these); on sharp
#: boards both find the same (within 0.05 mm at the true corners of dev 1600, 1601, 1604)
SMEAR_SIDES_MM = (3.3, 2.2)
LINE_RISE = 0.01  # least response of a line piece (of the board's median grey): the
# stitching of a blurred board rises 0.01..0.03 (dev 104, 109), placed within 0.5 mm


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


def _grid_lines(geom: Geometry, axis: int) -> np.ndarray:
    """Where the grid's lines lie across ``axis`` (0: north-south lines, their u; 1:
    east-west lines, their v), mm: each field's border, two neighbouring fields' as one at
    their mean. Its light lip lies ``vision.board.LEATHER_LIP_MM`` off it towards the leather's own
    north-west, which a board without marks turned a quarter does not tell
    (``_lines`` takes it from the stitching)."""
    half = geom.cells[0][3]
    centres = np.unique([cell[1 + axis] for cell in geom.cells])
    edges = np.sort(np.concatenate([centres - half, centres + half]))
    groups = np.split(edges, np.flatnonzero(np.diff(edges) > FIELD_MM / 2) + 1)
    return np.array([g.mean() for g in groups])


def _lines(grey: np.ndarray, H0: np.ndarray, geom: Geometry, reach: float,
           sides: tuple[float, float] = (LIP_SIDE_MM, STITCH_SIDE_MM)) -> np.ndarray:
    """Where the leather's light lines show against where the fix ``H0`` (board mm -> px)
    puts them, in a view rectified on the board: rows (u, v, axis, offset mm, response) as
    ``read_neunfeld._leather_lines`` gives them. Per line (the grid's, ``_grid_lines``,
    with ``sides`` [0], and the stitching's, ``sides`` [1]; mm) and per piece
    along it, the profile across it averaged along the piece: the strongest light ridge
    within ``reach``, sub-pixel (``vision.own_lines.light_ridges``), kept where it rises
    ``LINE_RISE`` of the board's median grey and lies inside the reach (not at its end).
    The grid's lips lie up to ``LIP_PLAY_MM`` to one side of its lines, which side by the
    leather's turn: per axis the grid's offsets are taken less the median of theirs
    against the stitching's (where ``MIN_STITCH`` of its pieces show that way), else less
    their median: the grid alone does not place the board across its lines. Its lips
    beside their grooves, smeared by the camera's motion across them, show all at once
    off where the stitching across the motion vanishes (dev Tyr overhead 1464, 4.3 px of
    motion: the grid's north-south lines 1.0 mm west of the true corners' lines, and the
    refit moved the finder's corners 0.73 -> 1.28 mm off; 0.46 with this)."""
    s = 1.0 / REFINE_PX_PER_MM
    c = int(np.ceil((geom.width / 2 + reach + max(sides) + LIP_PLAY_MM) / s)) + 2
    n = 2 * c + 1
    to_mm = np.array([[s, 0, -c * s], [0, -s, c * s], [0, 0, 1]])
    view = cv2.warpPerspective(grey, H0 @ to_mm, (n, n),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    ref = max(float(np.median(view[::3, ::3])), 1.0)
    pieces = np.unique([u for _, u, _, _ in geom.cells])  # along each line: its fields
    stitch = geom.width / 2 - LEATHER_STITCH_MM[geom.game]
    rows = []
    for axis, sign in ((0, 1.0), (1, -1.0)):  # a view row's along, a column's across
        img = view if axis == 0 else view.T
        along = sign * (c - np.arange(n)) * s
        bands = np.stack([img[np.abs(along - t) <= PIECE_MM].mean(axis=0) for t in pieces])
        found = []
        for at, side_mm, play in ((_grid_lines(geom, axis), sides[0], LIP_PLAY_MM),
                                  (np.array([-stitch, stitch]), sides[1], 0.0)):
            wide = reach + play
            window = np.arange(-round(wide / s), round(wide / s) + 1)
            idx = c + np.round(sign * at / s).astype(int)[None, :]  # (1, lines)
            off, top, end = light_ridges(bands, idx, int(round(side_mm / s)), window)
            off, top = sign * off * s, top / ref  # (pieces, lines)
            keep = (top >= LINE_RISE) & (np.abs(off) < wide - s) & ~end
            p, k = np.nonzero(keep)
            uv = (at[k], pieces[p]) if axis == 0 else (pieces[p], at[k])
            found.append(np.column_stack([*uv, np.full(len(p), axis), off[keep], top[keep]]))
        grid, seam = found
        if len(seam) >= MIN_STITCH and len(grid):
            grid[:, 3] -= np.clip(np.median(grid[:, 3]) - np.median(seam[:, 3]),
                                  -LIP_PLAY_MM, LIP_PLAY_MM)
        elif len(grid):  # the grid alone does not place the board across its lines
            grid[:, 3] -= np.median(grid[:, 3])
        rows += [grid, seam]
    return np.concatenate(rows)


def refine(grey: np.ndarray, fix: BoardFix, geom: Geometry) -> BoardFix:
    """``fix`` moved onto the leather's own lines (``_lines``: the grid's lips and the
    stitching), sought first ``WIDE_REACH_MM`` then ``REFINE_REACH_MM`` either way, all
    four corners moved by their robust fit (``read_neunfeld._corner_shift``) up to
    ``REFINE_PASSES`` times, each move taken only where the lines agree with it better
    (``read_neunfeld._agreement``) and moves no corner over ``MAX_SHIFT_MM``; until a
    move is under ``STILL_MM``. ``fix`` itself where the pieces then lie a median of over
    ``SPREAD_MM`` off (a blurred board: its lines do not place it so finely), or the
    stitching's over ``STITCH_OFF_MM`` across an axis or shows across neither
    (``_stitch_off``: the grid's lips, smeared, carried the board off it)."""
    start = fix
    H = homography(fix, geom)
    found = _lines(grey, H, geom, REFINE_REACH_MM)
    for reach in (WIDE_REACH_MM,) + (REFINE_REACH_MM,) * REFINE_PASSES:
        shift = _corner_shift(_lines(grey, H, geom, reach), geom, np.arange(8))
        if shift is None or np.abs(shift).max() > MAX_SHIFT_MM:
            continue
        if np.abs(shift).max() < STILL_MM:
            break
        moved = shifted(fix, geom, shift)
        again = _lines(grey, homography(moved, geom), geom, REFINE_REACH_MM)
        if _agreement(again) > _agreement(found):
            fix, found, H = moved, again, homography(moved, geom)
    spread = float(np.median(np.abs(found[:, 3]))) if len(found) else np.inf
    return fix if spread <= SPREAD_MM and _stitch_off(found, geom) <= STITCH_OFF_MM else start


def smeared_shift(grey: np.ndarray, fix: BoardFix, geom: Geometry) -> float:
    """How far (mm, the largest corner coordinate) the board's lines sought with sides
    wider than a smear (``SMEAR_SIDES_MM``) would move ``fix``: their robust fit
    (``read_neunfeld._corner_shift``); 0 where too few show."""
    found = _lines(grey, homography(fix, geom), geom, REFINE_REACH_MM, SMEAR_SIDES_MM)
    shift = _corner_shift(found, geom, np.arange(8))
    return 0.0 if shift is None else float(np.abs(shift).max())


def _stitch_off(found: np.ndarray, geom: Geometry) -> float:
    """How far the stitching's pieces in ``found`` (``_lines``) lie off where the fix puts
    it: the larger of the two axes' median offsets, over the axes where ``MIN_STITCH`` of
    its pieces show; infinite where neither shows so many: the grid's lips alone, each
    axis taken less its median, do not place the board across its lines, and smeared by
    the camera's motion they moved it (dev Tyr oblique 1526, 3.5 px of motion, 5 pieces
    of stitching: the finder's corners 0.6 mm off, refitted 1.85 mm off with its pieces a
    median 0.10 mm off; registered 0.32 mm off without it, its sides then fitted,
    ``calibration.registration.SIDES_IF_UNMOVED``; no other board of dev Tyr 1496..1543
    changed, automatic or clicked)."""
    stitch = geom.width / 2 - LEATHER_STITCH_MM[geom.game]
    off = []
    for axis in (0, 1):
        seam = found[(found[:, 2] == axis) & np.isclose(np.abs(found[:, axis]), stitch)]
        if len(seam) >= MIN_STITCH:
            off.append(abs(float(np.median(seam[:, 3]))))
    return max(off, default=np.inf)


def _dice(image: np.ndarray, fix: BoardFix, geom: Geometry, calibration: dict | None
          ) -> tuple[BoardPose, np.ndarray, np.ndarray, dict]:
    """(the board's pose, the homography of the plane of the tops of dice on the board,
    the camera's centre over that plane, the dice ``find_dice`` finds by colour on it)."""
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
    return board, H, camera, found


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
    board, H, camera, found = _dice(image, fix, geom, calibration)
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
    # a top in doubt read again on crops moved towards and away from the camera (as
    # Neunfeld's): black tops placed 7..12 mm off read a 2 as 3, an 8 or a 7 as 3
    tops = dice_tops(image, H, on_board + [d for d, _ in near], calibration, camera)
    for die, (top, conf, alts) in zip(on_board, tops[:len(on_board)], strict=True):
        dice[die.colour]["top"] = top
        reading.add(conf, f"dice.{die.colour}.top", 0.9, alts)
    for (die, beside), (top, conf, _) in zip(near, tops[len(on_board):], strict=True):
        # its top is null as it lies beside the board, in doubt as its place is: on a
        # field the top read would count
        reading.add(beside, f"dice.{die.colour}.top", 0.9,
                    None if top is None else [[top, round((1 - beside) * conf, 4)]])
    return reading
