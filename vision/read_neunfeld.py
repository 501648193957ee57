"""Neunfeld's reader: the two pawns on the 1 x 9 board (or at their starts beside it) and
the three Miwin dice before their holders.

- *Pawns*: each field's centre is cut on three planes ``PAWN_PLANES_MM`` above the board
  (the pawn's foot, body and head; a ``PAWN_DISC_MM`` disc) and compared with the
  field's empty look, a straight line over the nine fields per pixel fitted without the
  two that depart most (the light falls off along the strip; at most two hold a pawn); a
  field's evidence is its smaller departure at the foot's and the body's height (from an
  oblique camera a pawn leans over its neighbour at some heights, never at all), those
  where a die stands before the disc left out; the head's only where a die covers both
  (a light head's disc departed least: the pose leans it off the head, or it matches the
  leather). Each pawn's start beside the board's end is compared with the table round it
  the same way (a wider disc, ``START_DISC_MM``: a light pawn's top on a light wooden
  table is the table's colour, its rim and foot are not). The reading is the pair of
  places (a field or its own start per pawn) with the most evidence, the lighter of two
  pawns on the board A's (natural wood), and from a camera leaning under
  ``LOOKS_LEAN_DEG`` A's the lighter than its field's empty look (from an oblique one a
  pawn's shaded side shows against the table behind it, no cue); each pawn's confidence
  is the lead over the best reading that places it elsewhere; its alternatives, the two
  likeliest other places, share that doubt with the rest in proportion to their evidence
  (``_elsewhere``).
- *Corners* (``refine``): the fix's corners moved onto the leather's own lines, its
  field separators and stitching, where they move 2 px or more (``MIN_MOVE_PX``):
  found corners are a few px off now and then, mostly across the strip, which puts the
  planes of the pawns and the dice tops off.
- *Dice*: ``vision.read_miwin`` over the table before and behind the board (the dice lie
  on the table: their tops are ``DIE_MM`` above it), not where the board and the pawns'
  heads show on that plane (where the calibration gives the dice's colours measured on
  the set, ``tableref calibrate colour`` with each die on a field of the strip, by
  those: ``find_dice``'s ``colours``); a die south of the board lies before A (holder
  0), north before B (holder 1). Three on one side are the opening roll (holder null) or its
  winner's: the rules let the winner take them only with a five showing and both pawns
  at their starts, so the tops read weigh the dice's distance from the board
  (``_holders``); the other reading is the alternative. A die not seen lies where the
  rules make likelier, at confidence 0.5 with the other readings. Tops by
  ``models/pips.onnx``; a top read against its centre pip (odd faces have one, even ones
  none) is listed uncertain at 0.5 (``read_miwin.dice_tops``, as Tyr's); a top in doubt is
  read again on crops moved towards and away from the camera (``dice_tops``' ``camera``:
  a black top placed off towards the board's dark edge showed only part of itself).
"""

from __future__ import annotations

from itertools import combinations

import cv2
import numpy as np

from rules.miwin import BY_COLOUR
from vision.board import LEATHER_LIP_MM, LEATHER_STITCH_MM, BoardFix, Geometry, homography
from vision.cube_geometry import boxes_mask
from vision.grid import BoardPose, board_pose, robust_lstsq, square_crop
from vision.own_lines import light_ridges, shifted
from vision.piece_colours import measured
from vision.read_miwin import (
    COLOURS,
    COVER_PLAY_MM,
    DIE_MM,
    dice_boxes,
    dice_tops,
    find_dice,
    pose_plane,
)
from vision.reading import Reading

PAWN_PLANES_MM = (6.0, 12.0, 21.5)  # the pawn's foot, body and head above the board
PAWN_TOP_MM = 26.5  # a pawn's height (vision.render.pieces.pawn_solids) ...
PAWN_FOOT_MM = 9.0  # ... and its foot's radius
NO_DICE_MM = 4.0  # no die's top lies this close to the board and its pawns (the pawn's foot)
PAWN_DISC_MM = 4.0  # radius of the disc compared per field (inside the pawn at each)
PAWN_DEV = 14.0  # mean Lab distance from the empty field's look: a pawn stands there
START_MM = 0.75 * 230.0 / 9  # a pawn's start: this far beyond the board's end
START_RING_MM = 30.0  # the table round a start: discs this far from it
START_DISC_MM = 8.0  # radius of the discs compared at a start: the pawn's foot and its rim
START_DEV = 20.0  # mean Lab distance of a start from the table round it: a pawn there
HIDDEN_Z = -0.3  # the evidence of a field a die hides (a field's is 0 at PAWN_DEV)
LIGHT_SCALE = 20.0  # Lab L over the empty field's: A's (light) pawn, under: B's
LIGHT_W = 0.5  # the weight of that lightness against a place's evidence
LOOKS_LEAN_DEG = 15.0  # a pawn's lightness against its field counts from a camera leaning less
PAWN_MARGIN = 1.0  # the best reading's lead in evidence that makes it sure
ALT_SCALE = 0.25  # evidence that makes one place e (2.7) times as likely as another ...
ALTERNATIVES = 2  # ... for the alternatives of a pawn in doubt, this many listed
DICE_U_MM = 100.0  # dice are sought within this of the board's middle, east-west ...
DICE_V_MM = 100.0  # ... and this north and south of its centre line
OPENING_MM = 36.0  # mean distance of three dice on one side from the board: the opening roll
FIVE_BY_CHANCE = 1 - (5 / 6) ** 2  # a five shows on a random roll (blue and red have one)
CORNER_PX = 3.0  # how far off a found corner lies (px): the pose's fit to the corners ...
TILT_DEG = 5.0  # ... against a camera leaning from square onto the board (Cauchy, scale)
UPRIGHT_LEAN_DEG = 15.0  # a camera leaning more stands upright: no pose turns it over
#: the pose's fit ends where a step moves no coordinate this far (rad, mm): 1e-6 took twice
#: the steps (dev 200..239's tracked fixes: pose 3.6 -> 1.9 ms) for planes 0.0002 px apart
LM_STOP = 1e-4
REFINE_PX_PER_MM = 4.0  # the rectified view the board's lines are sought in
REFINE_REACH_MM = 2.5  # each line sought this far either way of where the corners put it
#: where the stitching does not show within that along a long side (found corners 3 to 5
#: mm too wide or narrow across the strip: dev 236, 331), it is sought this far, and
#: the corners moved across the strip onto it as far as ``WIDE_SHIFT_MM``
WIDE_REACH_MM, WIDE_SHIFT_MM = 6.0, 7.0
LIP_SIDE_MM = 1.1  # a field separator: its light band (two fields' lips) this far from the
# leather to its west and its dark groove to its east (the lips lie 0.35 mm west and north
# of the grooves: vision.board.LEATHER_LIP_MM)
STITCH_SIDE_MM = 0.55  # the stitching: a light thread between leather this far either side
# in the south the field's lip lies 0.45 mm outside the stitching (in the north its groove):
# the two show as one light band centred this far outside the stitching, leather and the
# edge this far either side
SOUTH_OUT_MM, SOUTH_SIDE_MM = 0.4, 1.2
LINE_RISE = 0.03  # least response of a line piece (of the board's median grey)
BAND_MM = ((1.0, 9.5), (-9.5, -1.0))  # the separators' pieces: these bands of v
REFINE_PASSES = 2  # moves of all four corners after the one across the strip
REFINE_SCALE_MM = 0.7  # the fit's residual scale (Cauchy weights; read_cubes' too)
MIN_PIECES = 8  # least line pieces found for the fix to be moved ...
MIN_SIDE = 3  # ... and of the stitching along each long side, and of the separators
MAX_SHIFT_MM = 4.0  # a move of a corner farther than this is not taken
MIN_MOVE_PX = 2.0  # corners the lines move less than this (px) are kept where they are
STILL_MM = 0.1  # a pass of all four corners that moves none this far ends the refinement
# (the lines are where the fix puts them; the third pass moved them 0.004..0.12 mm on dev
# 200..239, at a millisecond's cost)


def region(geom: Geometry) -> tuple[float, float, float, float]:
    """Where the pieces lie (u0, u1, v0, v1 board mm): the board, the pawns' starts
    beyond its ends and the dice before and behind it (the tracker watches it)."""
    u = max(geom.width / 2 + START_MM + PAWN_FOOT_MM, DICE_U_MM)
    return -u, u, -DICE_V_MM, DICE_V_MM


def pose(fix: BoardFix, geom: Geometry, image: np.ndarray,
         calibration: dict | None) -> BoardPose:
    """The board's pose from its corners, least tilted where the corners allow it.

    Four corners of a 230 x 25 mm strip seen from above hardly tell how the camera
    leans: found corners 1.5 px off make the best fitting pose (``grid.board_pose``)
    lean the camera 25 degrees along the strip (270 mm aside from where it is), which
    puts the planes a pawn's head and a die's top lie on a third of a field off. So the
    pose fits the corners (``CORNER_PX``) and a camera square onto the board together,
    the lean weighed as a Cauchy prior of scale ``TILT_DEG``: strong where the corners
    cannot tell 3 from 25 degrees, hardly a pull on a camera 30 to 60 degrees oblique,
    whose corners show the lean (Levenberg-Marquardt from a square-on start and from
    the best fit's; the lower cost wins). A camera at a table stands upright
    (``_upright``): corners a few px off can fit best a camera across the board, upside
    down, which reads every die's side and the planes above the board wrong; so the
    pose is the best upright fit, from IPPE's two poses too where a start reaches that
    one (the other of the two is then often the upright camera)."""
    K = dist = None
    if calibration is not None:
        K, dist = calibration.get("K"), calibration.get("dist")
    best = board_pose(fix, geom, (image.shape[1], image.shape[0]), K, dist)
    K, corners = best.K, fix.corners
    if dist is not None and best.calibrated:
        corners = cv2.undistortPoints(corners.reshape(-1, 1, 2), K,
                                      np.asarray(dist, np.float64), P=K).reshape(-1, 2)
    mm = geom.corners_mm()
    obj = np.column_stack([mm, np.zeros(4)])
    lean = np.sin(np.radians(TILT_DEG))

    def residuals(x: np.ndarray) -> np.ndarray:
        R = cv2.Rodrigues(x[:3])[0]
        cam = obj @ R.T + x[3:]
        px = (cam @ K.T)[:, :2] / cam[:, 2:]
        off = R[:2, 2]  # the board's normal off the camera's axis: sin(lean) a direction
        sin = float(np.hypot(*off))
        prior = off / lean if sin < 1e-9 else off * np.sqrt(np.log1p((sin / lean) ** 2)) / sin
        return np.concatenate([((px - corners) / CORNER_PX).ravel(), prior])

    # square on: the corners as a similarity of (u, -v) (the camera looks down)
    A = cv2.estimateAffinePartial2D((mm * [1, -1]).astype(np.float32),
                                    corners.astype(np.float32))[0]
    scale, turn = np.hypot(A[0, 0], A[1, 0]), np.arctan2(A[1, 0], A[0, 0])
    c, s = np.cos(turn), np.sin(turn)
    R0 = np.array([[c, s, 0.0], [s, -c, 0.0], [0.0, 0.0, -1.0]])
    depth = K[0, 0] / scale
    t0 = np.array([(A[0, 2] - K[0, 2]) * depth / K[0, 0],
                   (A[1, 2] - K[1, 2]) * depth / K[1, 1], depth])
    fits = [_least_squares(residuals, np.concatenate([cv2.Rodrigues(R)[0].ravel(), t]))
            for R, t in ((R0, t0), (best.R, best.t))]
    upright = [f for f in fits if _upright(cv2.Rodrigues(f[1][:3])[0], f[1][3:])]
    if len(upright) < len(fits):  # a fit reached the camera across the board, upside
        # down: IPPE's two poses (the other of a pair that fit the corners alike is then
        # often the upright camera, which the square-on start does not reach)
        _, rvecs, tvecs, _ = cv2.solvePnPGeneric(obj, corners.astype(np.float64), K, None,
                                                 flags=cv2.SOLVEPNP_IPPE)
        fits += [_least_squares(residuals, np.concatenate([r.ravel(), t.ravel()]))
                 for r, t in zip(rvecs, tvecs, strict=True)]
        upright = [f for f in fits if _upright(cv2.Rodrigues(f[1][:3])[0], f[1][3:])]
    cost, x = min(upright or fits, key=lambda f: f[0])
    return BoardPose(K, cv2.Rodrigues(x[:3])[0], x[3:], best.calibrated)


def _leather_lines(grey: np.ndarray, H0: np.ndarray, geom: Geometry,
                   reach: float = REFINE_REACH_MM) -> np.ndarray:
    """Where the leather's own lines show against where the fix ``H0`` (board mm -> px)
    puts them, in a view rectified on the board: rows (u, v, axis, offset mm, response)
    as ``read_cubes._line_offsets`` gives them (axis 0: a north-south line at u, its
    offset east; 1: an east-west line at v, its offset north, its v where it was sought).
    The field separators (their light band, ``LIP_SIDE_MM``) in two bands each
    (``BAND_MM``, off the field numbers), and the stitching along each long side
    (``STITCH_SIDE_MM``; in the south with the lip beside it, ``SOUTH_OUT_MM``) per field,
    away from the separators: the strongest light ridge within ``reach`` (mm),
    sub-pixel (``vision.own_lines.light_ridges``), kept where it rises ``LINE_RISE`` and
    lies inside the reach; a piece where a pawn, a die or a hand hides the line is its
    own (the fit is robust)."""
    s = 1.0 / REFINE_PX_PER_MM
    half_u = geom.width / 2 + reach
    half_v = geom.depth / 2 + reach + SOUTH_SIDE_MM
    cu, cv = int(np.ceil(half_u * REFINE_PX_PER_MM)), int(np.ceil(half_v * REFINE_PX_PER_MM))
    to_mm = np.array([[s, 0, -cu * s], [0, -s, cv * s], [0, 0, 1]])
    view = cv2.warpPerspective(grey, H0 @ to_mm, (2 * cu + 1, 2 * cv + 1),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    u_mm, v_mm = (np.arange(2 * cu + 1) - cu) * s, (cv - np.arange(2 * cv + 1)) * s
    ref = max(float(np.median(view[::3, ::3])), 1.0)
    steps = np.arange(-round(reach * REFINE_PX_PER_MM), round(reach * REFINE_PX_PER_MM) + 1)

    pitch = geom.width / len(geom.cells)
    seps = -geom.width / 2 + pitch * np.arange(1, len(geom.cells))
    bands = np.stack([view[(v_mm >= v0) & (v_mm <= v1)].mean(axis=0) for v0, v1 in BAND_MM])
    at = np.repeat(seps + LEATHER_LIP_MM[0], len(BAND_MM)) + cu * s
    off, r, _ = light_ridges(np.tile(bands, (len(seps), 1)),
                             np.round(at / s).astype(int)[:, None],
                             round(LIP_SIDE_MM * REFINE_PX_PER_MM), steps)
    rows = [np.column_stack([np.repeat(seps, len(BAND_MM)),
                             np.tile([np.mean(b) for b in BAND_MM], len(seps)),
                             np.zeros(len(at)), off[:, 0] * s, r[:, 0] / ref])]
    stitch_v = geom.depth / 2 - LEATHER_STITCH_MM[geom.game]
    centres = np.array([u for _, u, _, _ in geom.cells])
    fields = np.stack([view[:, np.abs(u_mm - c) <= pitch / 2 - 2.0].mean(axis=1)
                       for c in centres])
    for sign, v, side in ((1.0, stitch_v, STITCH_SIDE_MM),  # the view's rows run south
                          (-1.0, stitch_v + SOUTH_OUT_MM, SOUTH_SIDE_MM)):
        at = np.full((len(centres), 1), round((cv * s - sign * v) / s))
        off, r, _ = light_ridges(fields, at, round(side * REFINE_PX_PER_MM), steps)
        rows.append(np.column_stack([centres, np.full(len(centres), sign * v),
                                     np.ones(len(centres)), -off[:, 0] * s, r[:, 0] / ref]))
    rows = np.concatenate(rows)
    # a piece at the end of its reach is none: its line shows nowhere within it
    inside = np.abs(rows[:, 3]) < reach - s
    return rows[(rows[:, 4] >= LINE_RISE) & inside]


def _agreement(found: np.ndarray) -> float:
    """How well a fix agrees with the line pieces ``found`` where it puts them: the sum of
    their responses, each by its Cauchy weight (1 where the fix puts its line, 1/2
    ``REFINE_SCALE_MM`` off)."""
    return float((found[:, 4] / (1.0 + (found[:, 3] / REFINE_SCALE_MM) ** 2)).sum())


def _corner_shift(found: np.ndarray, geom: Geometry, free: np.ndarray) -> np.ndarray | None:
    """The corners' move (mm, (4, 2)) that puts the lines' pieces ``found``
    (``_leather_lines``) where they show: the offset each piece's line takes as each
    ``free`` corner coordinate moves (the homography through the moved corners, to first
    order), fitted robustly (Cauchy weights, scale ``REFINE_SCALE_MM``); None
    where under ``MIN_PIECES`` show."""
    if len(found) < MIN_PIECES:
        return None
    mm = geom.corners_mm()
    pts = found[:, :2].reshape(-1, 1, 2)
    axis = found[:, 2].astype(int)
    J = np.zeros((len(found), len(free)))
    for j, k in enumerate(free):
        moved = mm.copy()
        moved.flat[k] += 1.0
        H = cv2.getPerspectiveTransform(mm.astype(np.float32), moved.astype(np.float32))
        J[:, j] = (cv2.perspectiveTransform(pts, H).reshape(-1, 2) - found[:, :2])[
            np.arange(len(found)), axis]
    shift = np.zeros(8)
    shift[free] = robust_lstsq(J, found[:, 3], REFINE_SCALE_MM)
    return shift.reshape(4, 2)


def _sides(found: np.ndarray) -> int:
    """The fewer of the stitching's pieces ``found`` along the two long sides."""
    stitch = found[found[:, 2] == 1]
    return int(min((stitch[:, 1] > 0).sum(), (stitch[:, 1] < 0).sum()))


def refine(grey: np.ndarray, fix: BoardFix, geom: Geometry,
           min_move_px: float = MIN_MOVE_PX) -> BoardFix:
    """``fix`` moved onto the leather's own lines (``_leather_lines``): first its corners
    across the strip onto the stitching alone (corners off across the strip shear the
    separators in the view), then all four corners onto every piece, ``REFINE_PASSES``
    times (until such a pass moves no corner ``STILL_MM``); where the stitching does not show
    along a side within ``REFINE_REACH_MM``, the first move onto it sought within
    ``WIDE_REACH_MM``; each move taken only where the lines agree with the moved fix
    better (``_agreement``), and the whole only where it moves a corner ``min_move_px``
    or more (corners on the lines are kept as they are; registration takes every move,
    ``calibration.registration.REFIT_OPTIONS``)."""
    start = fix
    found = _leather_lines(grey, homography(fix, geom), geom)
    seek, limit = found, MAX_SHIFT_MM  # the pieces the corners are moved onto
    if _sides(found) < MIN_SIDE:  # the stitching not within reach along a side
        seek, limit = _leather_lines(grey, homography(fix, geom), geom,
                                     WIDE_REACH_MM), WIDE_SHIFT_MM
    for k in range(REFINE_PASSES + 1):
        stitch = seek[:, 2] == 1
        if _sides(seek) < MIN_SIDE or (k > 0 and (~stitch).sum() < MIN_SIDE):
            break
        shift = _corner_shift(seek[stitch] if k == 0 else seek, geom,
                              np.arange(1, 8, 2) if k == 0 else np.arange(8))  # 0: v only
        if k > 0 and shift is not None and np.abs(shift).max() < STILL_MM:
            break
        if shift is not None and np.abs(shift).max() <= limit:
            moved = shifted(fix, geom, shift)
            again = _leather_lines(grey, homography(moved, geom), geom)
            if _agreement(again) > _agreement(found):
                fix, found = moved, again
        seek, limit = found, MAX_SHIFT_MM
    moved_px = float(np.linalg.norm(fix.corners - start.corners, axis=1).max())
    return fix if moved_px >= min_move_px else start


def _upright(R: np.ndarray, t: np.ndarray) -> bool:
    """Whether a camera of pose (R, t) stands upright, as one mounted at a table does:
    leaning ``UPRIGHT_LEAN_DEG`` or more, its picture's down points towards its foot (the
    board's far side at the top of the picture). Under that lean the direction means
    nothing (the camera is over the board)."""
    centre = -R.T @ t
    if np.degrees(np.arccos(np.clip(-R[2, 2], -1.0, 1.0))) < UPRIGHT_LEAN_DEG:
        return True
    return float(R[1, :2] @ centre[:2]) > 0


def _least_squares(residuals, x: np.ndarray, steps: int = 40) -> tuple[float, np.ndarray]:
    """(cost, x): Levenberg-Marquardt on ``residuals(x)`` (numeric Jacobian), until a step
    taken moves no coordinate ``LM_STOP``."""
    r = residuals(x)
    cost, damp = float(r @ r), 1e-3
    for _ in range(steps):
        J = np.stack([(residuals(x + e) - r) / 1e-6 for e in np.eye(len(x)) * 1e-6], axis=1)
        JJ = J.T @ J
        step = np.linalg.solve(JJ + damp * np.diag(np.diag(JJ) + 1e-12), -J.T @ r)
        r_new = residuals(x + step)
        if float(r_new @ r_new) < cost:
            x, r, cost, damp = x + step, r_new, float(r_new @ r_new), damp / 3
            if np.abs(step).max() < LM_STOP:
                break
        else:
            damp *= 4
    return cost, x


def _no_dice(geom: Geometry, camera: np.ndarray, z_mm: float) -> np.ndarray:
    """Where no die's top lies on the plane of the dice tops (``z_mm`` above the board
    top; ``camera`` its centre over that plane, from ``read_miwin.pose_plane``): the board's
    outline there, ``NO_DICE_MM`` round it, and the pawns on it as they show on that plane
    (their heads above it lean away from the camera, their feet below it towards it; a
    dark pawn on the light leather outscores a black die on a dark table) (board mm, a
    convex polygon)."""

    def seen(pts: np.ndarray, lift: float) -> np.ndarray:  # lift: mm above the plane
        return pts + (pts - camera[:2]) * lift / max(float(camera[2]) - lift, 1.0)

    corners = np.array([(x, y) for x in (-1, 1) for y in (-1, 1)], np.float64)
    box = corners * [geom.width / 2 + NO_DICE_MM, geom.depth / 2 + NO_DICE_MM]
    feet = corners * [geom.width / 2, PAWN_FOOT_MM]
    return cv2.convexHull(np.vstack([box, seen(box, max(PAWN_TOP_MM - z_mm, 0.0)),
                                     seen(feet, -z_mm)]).astype(np.float32)).reshape(-1, 2)


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


def _lab(crops: list[np.ndarray]) -> np.ndarray:
    """The BGR ``crops`` (each (size, size, 3) uint8) stacked, in Lab (float32): one
    conversion for them all."""
    stack = np.stack(crops)
    return cv2.cvtColor(stack.reshape(-1, *stack.shape[2:]), cv2.COLOR_BGR2Lab).reshape(
        stack.shape).astype(np.float32)


def _empty_look(crops: np.ndarray, use: np.ndarray) -> np.ndarray:
    """Per field, its crop's look without a pawn: per pixel and channel a straight line
    over the fields' index (the light falls off along the 23 cm strip), fitted to the
    fields ``use`` marks but two, the two whose leaving out fits the rest best (at most
    two hold a pawn; a pawn on an end field would tilt a line fitted to all)."""
    n, size, _, channels = crops.shape
    x = np.arange(n, dtype=np.float32)
    pairs = [p for p in combinations(np.flatnonzero(use), 2)] if use.sum() >= 6 else []
    keep = np.repeat(use[None].astype(np.float32), max(len(pairs), 1), axis=0)
    for k, pair in enumerate(pairs):
        keep[k, list(pair)] = 0.0

    def fit(flat: np.ndarray, keep: np.ndarray) -> np.ndarray:  # (fits, fields, pixels)
        w = keep / keep.sum(axis=1, keepdims=True)
        dx = x[None] - (w @ x)[:, None]
        slope = (w * dx) @ flat / (w * dx ** 2).sum(axis=1, keepdims=True)
        return (w @ flat)[:, None] + dx[..., None] * slope[:, None]

    # the pair chosen on the crops shrunk to 4 x 4 (all fits at once), the line on all
    cell = size // 4
    small = crops[:, :4 * cell, :4 * cell].reshape(n, 4, cell, 4, cell, channels).mean(
        axis=(2, 4)).reshape(n, -1)
    far = np.linalg.norm((small[None] - fit(small, keep)).reshape(len(keep), n, -1, channels),
                         axis=3)
    best = int(np.argmin((far.sum(axis=2) * keep).sum(axis=1)))
    return fit(crops.reshape(n, -1), keep[best:best + 1])[0].reshape(crops.shape)


def _pawns(image: np.ndarray, planes: list[np.ndarray], starts_planes: list[np.ndarray],
           geom: Geometry, hidden: np.ndarray, from_above: bool
           ) -> tuple[list[int], list[float], list]:
    """(pawns, confidences, alternatives per pawn); ``planes``: the homographies of the
    planes ``PAWN_PLANES_MM`` (the pawn's body at each height stands over its field's
    centre, its other heights lean over the neighbour fields from an oblique camera: the
    field that departs at its foot's and its body's height holds it; at its head's only
    where a die covers both); ``hidden``: per plane and field, a die stands between the
    camera and the field's disc on that plane (that height is not looked at there: a
    pawn's head shows over a die in front of its foot; a field hidden at every height
    holds a pawn not seen, maybe);
    ``from_above``: the camera leans under ``LOOKS_LEAN_DEG``, so a pawn is named by its
    lightness against its field's empty look too."""
    size = 12
    yy, xx = np.mgrid[:size, :size]
    disc = (xx - size / 2 + 0.5) ** 2 + (yy - size / 2 + 0.5) ** 2 <= (size / 2) ** 2
    devs, lights, leathers = [], [], []
    for H, covered in zip(planes, hidden, strict=True):
        use = ~covered if (~covered).sum() >= 5 else np.ones(9, bool)
        crops = _lab([square_crop(image, H, u, v, PAWN_DISC_MM, size)
                      for _, u, v, _ in geom.cells])
        empty = _empty_look(crops, use)
        devs.append(np.where(covered, np.inf,
                             np.linalg.norm(crops - empty, axis=3)[:, disc].mean(axis=1)))
        lights.append(crops[..., 0][:, disc].mean(axis=1))
        leathers.append(empty[..., 0][:, disc].mean(axis=1))
    hidden = hidden.all(axis=0)
    # the lesser departure of the foot and the body; the head's only where a die covers
    # both: on the head's plane a light pawn's field departed under PAWN_DEV (dev 1897:
    # 9.7, the foot's and body's 21; 1904: 9.5, the field next to it 23.5, the disc off
    # the head) and the smallest over the three heights lost it
    *below, head = devs
    low = np.min(below, axis=0)
    dev = np.where(np.isinf(low), head, low)
    light, leather = np.mean(lights, axis=0), np.mean(leathers, axis=0)
    # evidence per place, 0 at the threshold: fields 1..9, then each pawn's start
    field = np.where(hidden, HIDDEN_Z, (dev - PAWN_DEV) / PAWN_DEV)
    # A's pawn is the lighter: from above its lit head against the leather; from an
    # oblique camera the planes above the board show the table behind it and A's light
    # wood in its own shade is darker than a light table (dev 172, 211: A read on an
    # empty field), so there the start the other pawn stands on tells
    looks = np.clip((light - leather) / LIGHT_SCALE, -1.0, 1.0) * from_above
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
        pawns.append(start if mine < 0 else mine + 1)
        confs.append(conf)
        alts.append([[start if other < 0 else other + 1, round((1 - conf) * share, 4)]
                     for other, share in _elsewhere(ranked, k, mine)])
    return pawns, confs, alts


def _elsewhere(ranked: list[tuple[float, int, int]], k: int, mine: int
               ) -> list[tuple[int, float]]:
    """Where else pawn ``k`` may stand, and each place's share of the doubt: the best
    reading's score per other place (``ranked``: (score, a, b), best first), weighed
    ``exp(score / ALT_SCALE)``; the ``ALTERNATIVES`` likeliest places, their shares of all
    the other places' (the rest of the doubt is left unlisted: the reader does not know
    the pawn is at one of them: 23 of 99 pawns in doubt in the demo's Neunfeld games,
    seeds 1..12, stood at neither the place read nor the one listed, when that one was
    given all the doubt)."""
    top: dict[int, float] = {}
    for r in ranked:
        if r[1 + k] != mine and r[1 + k] not in top:
            top[r[1 + k]] = r[0]
    weights = {place: float(np.exp((score - ranked[0][0]) / ALT_SCALE))
               for place, score in top.items()}
    total = sum(weights.values())
    likeliest = sorted(weights.items(), key=lambda w: -w[1])[:ALTERNATIVES]
    return [(place, w / total) for place, w in likeliest]


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
            crops = _lab([square_crop(image, H, u, v, START_DISC_MM, size) for u, v in at])
            ref = np.median(crops[1:], axis=0)
            devs.append(float(np.linalg.norm(crops[0] - ref, axis=2)[disc].mean()))
        out.append(min(devs))
    return out


def _five(colour: str, top: tuple | None) -> float:
    """The probability that a die shows a five: from its top's reading (``top_reading``),
    else by chance (black, die V, has none)."""
    if 5 not in BY_COLOUR[colour].faces:
        return 0.0
    if top is None or top[0] is None:
        return 1 / 6
    return top[1] if top[0] == 5 else dict((n, p) for n, p in top[2]).get(5, 0.0)


def _holders(found: dict, tops: dict, pawns: list[int], geom: Geometry) -> dict:
    """Per colour (holder, confidence, alternatives). A die south of the board lies before
    A (0), north before B (1). All three on one side: taken by that player after the
    opening roll, or the roll itself (null). By the rules the roll's winner takes them
    only with a five showing and both pawns at their starts: the odds from the dice's
    distance from the board (the roll lies further out, ``OPENING_MM``) times how much
    likelier the tops read are with a five than by chance (``FIVE_BY_CHANCE``). A die not
    seen: the side the rules make likelier (a player holds two, the other one), at
    confidence 0.5 with the other readings as alternatives."""
    seen = {c: d for c, d in found.items() if d is not None}
    side = {c: 0 if d.v < 0 else 1 for c, d in seen.items()}
    out: dict[str, tuple] = {}
    if len(seen) == 3 and len(set(side.values())) == 1:
        s = next(iter(side.values()))
        dist = float(np.mean([abs(d.v) - geom.depth / 2 for d in seen.values()]))
        p = float(np.clip(0.5 + (OPENING_MM - dist) / 16.0, 0.05, 0.95))
        odds = p / (1 - p)
        if pawns == [0, 10]:
            five = 1 - np.prod([1 - _five(c, tops.get(c)) for c in seen])
            odds *= five / FIVE_BY_CHANCE
        taken = odds / (1 + odds)
        holder = s if taken >= 0.5 else None
        conf = max(taken, 1 - taken)
        for c, d in seen.items():
            out[c] = (holder, min(conf, d.confidence),
                      [[None if holder is not None else s, round(1 - conf, 4)]])
        return out
    for c, d in seen.items():
        out[c] = (side[c], d.confidence, [[1 - side[c], 0.1]] if d.confidence < 0.9 else None)
    held = sorted(side.values())
    for c in found:
        if c in seen:
            continue
        if len(held) == 2:  # the mover holds two dice, the other player one
            guess = 1 - held[0] if held[0] == held[1] else 0
            out[c] = (guess, 0.5, [[1 - guess, 0.3], [None, 0.2]])
        else:
            out[c] = (None, 0.0, [[0, 0.4], [1, 0.4]])
    return out


def _dice(image: np.ndarray, fix: BoardFix, geom: Geometry, calibration: dict | None
          ) -> tuple[BoardPose, np.ndarray, np.ndarray, dict]:
    """(the board's pose on the fix ``refine``d, the homography of the dice's tops' plane,
    the camera's centre over it, the dice ``find_dice`` finds by colour)."""
    fix = refine(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), fix, geom)
    board = pose(fix, geom, image, calibration)
    top = DIE_MM - geom.thickness  # the dice's tops, above the board's top
    H, camera = pose_plane(board, top)
    found = find_dice(image, H, fix.corners, (-DICE_U_MM, DICE_U_MM, -DICE_V_MM, DICE_V_MM),
                      camera, _no_dice(geom, camera, top),
                      colours=measured(calibration, "neunfeld"))
    return board, H, camera, found


def covered(image: np.ndarray, fix: BoardFix, geom: Geometry, reading: Reading,
            calibration: dict | None = None) -> np.ndarray:
    """Bool image mask of what the pieces of ``reading`` may cover: each pawn at its place
    and those its alternatives name where it is in doubt, and each die found (as ``read``
    found, ``reading.pieces``), as upright boxes grown by ``COVER_PLAY_MM``
    (``cube_geometry.boxes_mask``).
    ``vision.occlusion.edge_occlusion`` ignores the edge under it: a pawn or a die at the
    board's edge leans across it in an oblique image, and is no hand."""
    board, boxes = reading.pieces
    places = set(reading.position["pawns"])
    for entry in reading.uncertain:
        if entry["path"].startswith("pawns."):
            places.update(place for place, _ in entry.get("alternatives", ()))
    half = PAWN_FOOT_MM + COVER_PLAY_MM
    boxes = list(boxes)
    for place in places:
        if 1 <= place <= 9:
            boxes.append((geom.cells[place - 1][1], geom.cells[place - 1][2], half, 0.0,
                          PAWN_TOP_MM))
        else:  # at its start, on the table (A's west, B's east)
            u = (1 if place else -1) * (geom.width / 2 + START_MM)
            boxes.append((u, 0.0, half, -geom.thickness, PAWN_TOP_MM - geom.thickness))
    dist = None if calibration is None else calibration.get("dist")
    return boxes_mask(image.shape, board, boxes, dist if board.calibrated else None)


def read(image: np.ndarray, fix: BoardFix, geom: Geometry,
         calibration: dict | None = None) -> Reading:
    """The position of a Neunfeld board in ``image``."""
    board, H, camera, found = _dice(image, fix, geom, calibration)
    seen = [found[c] for c in COLOURS if found[c] is not None]
    planes = [board.plane_homography(z) for z in PAWN_PLANES_MM]
    hidden = np.array([_hidden(P, H, board.plane_homography(-geom.thickness), seen, geom)
                       for P in planes])
    starts = [board.plane_homography(z - geom.thickness) for z in PAWN_PLANES_MM]
    lean = float(np.degrees(np.arccos(np.clip(-board.R[2, 2], -1.0, 1.0))))
    pawns, pconfs, palts = _pawns(image, planes, starts, geom, hidden, lean < LOOKS_LEAN_DEG)
    dice: dict[str, dict] = {}
    reading = Reading({"pawns": pawns, "dice": dice}, pieces=(
        board, dice_boxes(seen, -geom.thickness, DIE_MM - geom.thickness)))
    for i in range(2):
        reading.add(pconfs[i], f"pawns.{i}", 0.9, palts[i])
    tops = dict(zip([d.colour for d in seen], dice_tops(image, H, seen, calibration, camera),
                    strict=True))
    holders = _holders(found, tops, pawns, geom)
    for colour in COLOURS:
        holder, conf, alts = holders[colour]
        top = tops.get(colour)
        if top is None or top[0] is None:  # not seen, or its pips not read
            top = _unseen_top(colour)
        dice[colour] = {"top": top[0], "holder": holder}
        reading.add(conf, f"dice.{colour}.holder", 0.9, alts)
        reading.add(top[1], f"dice.{colour}.top", 0.9, top[2])
    return reading


def _unseen_top(colour: str) -> tuple[int, float, list]:
    """A die not seen (or its pips not read): any of its faces up, each at a sixth (the
    spec has no null top for Neunfeld: an observation with one was refused as malformed,
    demo seed 24)."""
    first, *rest = BY_COLOUR[colour].faces
    return first, round(1 / 6, 4), [[face, round(1 / 6, 4)] for face in rest]
