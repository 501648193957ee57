"""Miwin's dice (Neunfeld, Tyr 3 gewinnt): where each of the three dice lies and its top.

``find_dice`` looks for the dice on the plane of their tops (``DIE_MM`` above the board
top, rectified north up at ``PX_PER_MM``) over the board and a margin round it:

- *colour*, classically: each pixel's Lab minus its background's (the board's own median
  look inside the board, a wide median of the table outside it), the bright pips left
  out: blue goes down Lab's blue-yellow axis, red up the green-red one, black down in
  lightness without hue (``colour_scores``); each colour's die is the die-sized window
  where that score is highest on average, if it is high enough (``PRESENT``; blue's and
  red's only where black's is lower: a black die on a yellow board is bluer than it, or
  far under its highest, ``BLACK_ELSEWHERE``: a dark blue die is blacker than blue); a
  die of the colour of what it stands on (red on red leather, black on dark brown) is then
  sought by its colour against neutral grey (``NEUTRAL``) where a whole top's pips show
  and no other die lies, at confidence 0.6 at most; where the set's dice colours were
  measured (``find_dice(colours=)``: the calibration's ``pieces``), each pixel scores for
  the die whose measured colour is nearest it, by how much nearer than its background
  (``measured_scores``) instead;
- *black*, by its pips too: light pips on a dark body, which a shadow or a dark board's
  edge does not show; the black die is the window where its colour plus ``BLACK_OFFSET``
  times the pips' contrast (their Lab L above round them, over the window) is highest,
  away from the blue and red dice, and its top is placed where that contrast holds (from
  above, where no side face shows pips, where it is highest) and where the whole die's
  outline on its top's plane (its top, and its side faces towards the camera) is black
  and round it is not (``_die_kernel``: its side faces are as black as its top and show
  pips too; the top's square alone was fitted onto them), not where that square is
  darker than those faces (``LIGHT_CAP``: a lit top is lighter than its side faces); a
  black die whose colour a warm light tints is found by its pips alone, at 0.6 at most;
- the die's centre is the centroid of the pips set in its colour round that window (pip
  layouts are symmetric about the top's centre; a shadow cannot pull it away), or of its
  colour's pixels where no pip is seen;
- a light spot longer than a die's top and thin (a board's stitched edge) is no pip
  (``_no_lines``): beside a die it pulled the die's top onto itself.

``top_crops`` cuts each die's top on its plane, centred and filling ~75 % of the crop as
``models/pips.onnx`` expects (``models/pips.md``), and ``read_tops`` reads all dice of a
frame in ONE run (and, given the camera, the tops in doubt once more on crops moved
towards and away from it and on one centred on their pips' symmetry: ``dice_tops``,
``symmetric_centre``); the model's colour head must agree with the
classical colour, or the die's colour is reported with a low confidence. Without the
model every top stays null.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from rules.miwin import BY_COLOUR
from vision.classifier import Prediction, shared
from vision.grid import BoardPose, square_crop
from vision.observe import predict

DIE_MM = 22.0  # vision.render.pieces.DIE_MM
COVER_PLAY_MM = 3.0  # a piece's box grown this much for the readers' ``covered`` masks (its
#   place read a little off: the renders' pawns up to 3 mm off theirs)
COLOURS = ("blue", "red", "black")
PX_PER_MM = 1.0  # the rectified view the dice are sought in
PRESENT = 12.0  # mean colour score (OpenCV Lab units) over a die top: a die is there
PIP_KERNEL_MM = 7.0  # a pip is a light spot smaller than this ...
PIP_DL = 25.0  # ... this much lighter than round it (Lab L, 0..255) and ...
PIP_CHROMA = 40.0  # ... this unsaturated (|a| + |b|): a pip
PIP_PALER = 0.8  # ... or, blurred into a coloured body, under this share of the chroma round it
#: a blue or red die not found otherwise is sought once more with pips paler than round them
#: by this share only (``find_dice``): a red 8's small pips at 980 mm blur pink into its
#: body (Tyr dev 2646: at its pips' lightest, chroma 62 against 73 round them; the blue
#: 9's in the same frame 9, so no lamp's cast), none showed as a pip and the die was not
#: found; it is found so (at 0.6 at most) and no other dev frame changed. Taken for every
#: die instead, 0.9 made pips of light specks beside the dice: Neunfeld dev (any camera,
#: true corners) 0..399 exact 389 -> 388 (108 and 218: black 2s read 3), dice moved over
#: 1.5 mm in 22 more frames (2600..2799: 12, exact 193 -> 193)
PIP_PALER_LOST = 0.9
#: a light spot longer than a die's top whose area over that length is under this share of
#: the top's side is a line (Neunfeld's stitched board edge beside a die), no pip: on
#: Neunfeld's dev renders (any camera, true corners, seeds 100..299) the black tops read
#: wrong went from 22 to 12 (not listed uncertain 7 -> 3), most of them placed 8..15 mm
#: onto the edge before; a motion-blurred black 7 (one spot of 20 x 24 px) is kept
LINE_WIDTH = 0.25
MIN_PIP_SHARE = 0.004  # share of a die-sized window that pips must cover at least
ONE_PIP_SHARE = 0.025  # about the share of a die's top that one pip covers
STRIP_MM = 4.0  # strips beyond a top's edges that must not be of the die's colour ...
GAP_MM = 3.0  # ... this far out (a blurred edge bleeds into its first millimetres)
MAX_PIP_SHIFT_MM = 6.0  # the pips' centroid moves a top's centre at most this far
#: a top's centre lies at least this many die sides from a die found surely before it (at
#: its colour's ``FOUND_FLOOR`` or more; two dice's tops lie a side apart at least, the
#: other found a few mm off), and the pips of that die's top (within half a side of its
#: centre) are not its own: they neither weigh a black top's fit nor pull its pips'
#: centroid. A black 2 beside a red 9 was placed on the red die's pips, 19 mm off on the
#: true corners, 14 mm off on the found ones (Neunfeld dev 2638, read 6 or 8 in doubt).
#: A die found in doubt may lie on another: a blue die on a blue cloth found (at 0.6) 14
#: mm beside the black one pushed that off its top (dev 379)
APART = 0.75
BG_SHRINK = 4  # the table's look round a die is taken on the view shrunk this many times
NEUTRAL = np.array([80.0, 128.0, 128.0], np.float32)  # OpenCV Lab: a die's colour against it
#: a dark blue die is blacker than blue against a light table: blue (or red) is sought
#: where black's window mean is under this share of its highest (the black die's), too
#: (Neunfeld dev 299: a navy die on grey, blue 22, black 35, the black die 109)
BLACK_ELSEWHERE = 0.5
BLACK_CAP = 1.5  # black's score capped at this many PRESENT where its top is placed
#: confidence of a die found where its colour shows at PRESENT (rising to 1 at twice that)
#: with no rival colour near: a blue or red die found so was in its place in every case
#: measured (dev renders, any camera, true corners: Tyr seeds 200..259 and 300..399, 480
#: dice, Neunfeld 300..359, 180), while black ones, whose score a shadow makes too, were
#: off in 2 of 3 such cases on Tyr's dev seeds
FOUND_FLOOR = {"blue": 0.9, "red": 0.9, "black": 0.5}
#: a die's top is read from its four quarter turns (a top lies any way round; ``Classifier.
#: predict``'s ``turns``): on the real dice the model was not trained on, 0.771 -> 0.798
#: (IMG2019, 1,256 crops), 0.749 -> 0.778 (other, 338), 0.845 -> 0.862 (IMGother, 58); on
#: dev renders (true corners, any camera, seeds 300..359 and 400..499) the readers' exact
#: rates equal within a frame (Tyr 88.3 / 93.0 both ways, Neunfeld 88.3 -> 86.7, 81 -> 81)
TOP_TURNS = 4
BLACK_OFFSET = 10.0  # black's window mean plus this, times the pips' contrast: black's place
BLACK_ENERGY = 8.0  # the pips' contrast (Lab L x share) of a black die whose colour is not seen
#: ... and of one whose colour is not seen against neutral grey either (a black die on
#: red leather under a warm cast, itself of 21 chroma and bluer than the board, its top a
#: 3: contrast 6.9; it was not found). Dev renders (any camera, true corners): Tyr
#: 0..399 that die found (dev 51) and nothing else changed (at 3 too), Neunfeld 0..199
#: unchanged; under the warm dim lamp (``bench.calibration_bench``, Tyr 100..139)
#: unchanged. Where its pips show less the die is not placed
BLACK_FAINT = 5.0
#: a black die's top is lighter than its side faces towards the camera (lit from above;
#: Neunfeld dev renders: by a median 10..15 L, in about 9 of 10): a top's fit loses how
#: much darker (Lab L, its pixels of black at ``LIGHT_DARK`` of ``PRESENT`` at least, pips
#: left out) its square is than those faces, up to ``LIGHT_CAP``. It does not gain where
#: lighter: a top's far edge bleeds into the lighter table, which pulled tops off it.
#: Dev renders 100..299 (any camera, true corners): black tops 5 mm or more off their
#: place Neunfeld 17 -> 14 (dev 218 and 289 no longer on their side face), Tyr 13 -> 11
LIGHT_CAP = 15.0
LIGHT_DARK = 0.5
LIGHT_SHARE = 0.15  # ... where black covers this share of the square and of the faces
TOP_ENERGY = 0.5  # a black top's window holds this share of the pips' contrast where it was picked
CROP_FILL = 0.62  # the die's share of the crop side (models/pips.md: 60..90 %; best here)
CROP_PX = 64  # the side of a top's crop
#: odd faces have a pip at the centre, even ones none: a top read even whose centre shows a
#: pip (``centre_pips`` at least the second), or read odd whose centre shows none (under
#: the first), is in doubt (confidence at most ``CENTRE_DOUBT``). On Tyr's dev renders
#: (any camera, true corners, seeds 100..299, 512 tops) it caught all 5 tops the model
#: read wrong at >= 0.9 (black 7s read 6, blue 9s read 6) and 0 of its 478 right ones
CENTRE_PIP = (0.1, 0.6)
CENTRE_DOUBT = 0.5
#: a top read under ``MOVED_BELOW`` (listed uncertain) is read again on crops moved
#: ``MOVED_MM`` along the line from the die to the camera's foot and ``MOVED_ACROSS_MM``
#: across it, and taken from the one that reads it most surely where that reaches
#: ``MOVED_SURE`` (``dice_tops``): a black top whose place the board's dark side face or
#: edge pulled 5..12 mm away from the camera cut off the top's near half and read 6 or 3
#: for a 2 at 0.2..0.6; others lay 5..7 mm off across that line too (a 2 read 3). Neunfeld
#: dev renders (any camera, true corners), exact of 200 without -> along the line only ->
#: across it too: 0..199 183 -> 189 -> 192, 1600..1799 186 -> 189 -> 189, 200..299 (of
#: 100) 95 -> 96 -> 96 (black tops wrong 11 -> 3, 9 -> 5, 1 -> 1; lost: 1754, an 8 read
#: 6; 225, a 6 read 3)
MOVED_BELOW = 0.9
MOVED_MM = (-12.0, -9.0, -6.0, -3.0, 3.0, 6.0, 9.0, 12.0)
MOVED_ACROSS_MM = (-9.0, -6.0, -3.0, 3.0, 6.0, 9.0)
MOVED_SURE = 0.9
#: ... and on one more crop, centred where the pips round the die are most symmetric about
#: a top's centre (every face's pips are symmetric under a half turn about it;
#: ``symmetric_centre``): sought every 1 mm within ``SYMMETRY_REACH_MM`` of the die's place
#: on a view of ``SYMMETRY_PX_PER_MM``, over top-sized windows whose body (pips left out)
#: lies within ``SYMMETRY_BODY`` (Lab, L weighted ``MEASURED_L``) of the placed window's
#: (not the table's, a board edge's or another die's pips). Neunfeld and Tyr dev renders
#: (true corners, any camera; Neunfeld 400..599 and 2000..2199, Tyr 400..499 and 2000..2199,
#: 2,016 tops of dice found): tops right 1,991 -> 1,995, none newly wrong (a black 2 and a
#: red 4 placed 9..13 mm off, blue 5s placed 8..13 mm off on their side faces); without
#: the body's colour a blue 5 was read 9 surely on its side face's pips
SYMMETRY_REACH_MM = 12.0
SYMMETRY_PX_PER_MM = 2.0
SYMMETRY_BODY = 20.0
#: a black top is light pips on a dark body, and the window where a black die was placed
#: off mixes its body with the lighter table: there a window darker than the placed one is
#: as alike as one of its colour (only its excess lightness counts against it), and only
#: the light spots whose neighbourhood (this side, spots left out) is darker than the
#: placed window's body are its pips (not the table's grain, a board's light lip or its
#: edge beside the die). Dev renders (true corners, any camera; the 2,016 tops above):
#: right 1,995 -> 1,998 (black 2s placed 8..10 mm off: Neunfeld 404 and 2060, Tyr 2123),
#: none newly wrong; Neunfeld and Tyr 800..899 (572 tops) 564 both ways
SYMMETRY_RING_MM = 6.0
#: Lab L's weight against a and b in ``measured_scores``' distances (a die's lightness
#: falls off with the lamp and its shade, its hue less). Dev Tyr tables under
#: ``bench.calibration_bench.COLOUR_LIGHTS`` (the dice measured on the table's other
#: frame, true corners; elements right without -> with the measured dice): warm dim lamp
#: 100..139 177 -> 208 of 222 at 0.5 (0.25: 204, 1.0: 210), cold light 110..169 332 ->
#: 334 of 339 (323 / 319 with the margin alone at 0.25 / 1.0, 330 at 0.5), as drawn
#: 110..169 335 -> 335 (332 with the margin alone)
MEASURED_L = 0.5


@dataclass(frozen=True)
class Die:
    colour: str
    u: float  # centre of its top, board mm (u east, v north)
    v: float
    confidence: float  # of the colour and the place


def pose_plane(pose: BoardPose, z_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """(H, camera) of the plane ``z_mm`` above the board top seen from ``pose``: its
    homography (board mm -> image px; at ``DIE_MM`` that of the tops of dice standing on
    the board) and the camera's centre (u, v mm, height above that plane mm)."""
    centre = -pose.R.T @ pose.t
    return pose.plane_homography(z_mm), np.array([centre[0], centre[1], centre[2] - z_mm])


def dice_boxes(dice, z0: float, z1: float) -> list[tuple]:
    """The upright boxes (u, v, half side, z0, z1; board mm, ``cube_geometry.boxes_mask``'s)
    the ``dice`` found (None where not) may cover from ``z0`` to ``z1`` mm: each turned any
    way about its axis and grown ``COVER_PLAY_MM``."""
    half = DIE_MM / np.sqrt(2) + COVER_PLAY_MM
    return [(die.u, die.v, half, z0, z1) for die in dice if die is not None]


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


def _board_mask(shape, corners_px: np.ndarray, M: np.ndarray) -> np.ndarray:
    """The board top's pixels in the view (``M``: view px -> image px): its corners
    ``corners_px`` (image px) taken back onto the view's plane. Off that plane's height
    (the dice tops) the board shows shifted away from the camera, not under its outline
    at the dice's height."""
    pts = cv2.perspectiveTransform(np.asarray(corners_px, np.float64).reshape(-1, 1, 2),
                                   np.linalg.inv(M)).reshape(-1, 2)
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 1)
    return m.astype(bool)


def _background(lab: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Per pixel, the Lab look of what lies there without a piece: the board's median
    inside the board, outside it a wide median (twice a die) of the view with the board
    painted over by the table's own median (so the board's edge does not bleed out),
    taken on the view shrunk ``BG_SHRINK`` times (a smooth look; a sixteenth the work)."""
    k = int(2 * DIE_MM * PX_PER_MM / BG_SHRINK) | 1
    h, w = lab.shape[:2]
    size = (max(w // BG_SHRINK, 1), max(h // BG_SHRINK, 1))
    small = cv2.resize(lab, size, interpolation=cv2.INTER_AREA)
    on = cv2.resize(board.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST) > 0
    inner = np.median(small[on], axis=0) if on.any() else None
    if on.any() and (~on).any():
        small[on] = np.median(small[~on], axis=0)
    bg = cv2.resize(cv2.medianBlur(small, k), (w, h), interpolation=cv2.INTER_LINEAR
                    ).astype(np.float32)
    if inner is not None:
        bg[board] = inner
    return bg


def colour_scores(diff: np.ndarray, chroma: np.ndarray) -> np.ndarray:
    """(3, h, w): how far each pixel departs from its background towards blue (Lab's b
    down), red (a up) and black (L down, and itself without hue: a shadow keeps the hue
    of what it falls on; ``chroma``: |a| + |b| of the pixel itself), OpenCV Lab units."""
    dL, da, db = diff[..., 0], diff[..., 1], diff[..., 2]
    blue, red = -db - 0.3 * np.abs(da), da - 0.3 * np.abs(db)
    # a dark blue or red (a die's side face in shade, a blurred die) is not black
    return np.stack([blue, red, -dL - chroma - np.maximum(np.maximum(blue, red), 0)])


def measured_scores(lab: np.ndarray, background: np.ndarray, colours: np.ndarray,
                    fixed: np.ndarray) -> np.ndarray:
    """``colour_scores`` with the dice's colours measured on the set (``colours``: (3, 3)
    Lab of the blue, red and black dice in ``COLOURS``' order, ``vision.piece_colours.
    measured``): per pixel of ``lab`` and colour, where that die's measured colour is the
    nearest of the three to the pixel, the larger of its ``fixed`` score (``colour_scores``
    against the same background) and how much nearer the pixel lies to that colour than
    its ``background`` (Lab, per pixel or one) does; elsewhere that margin, not above 0
    (Lab distances, L weighted ``MEASURED_L``). The measured colours decide which die a
    pixel may be of (a black die bluer than an orange board is not blue), the fixed rule
    still finds a die lit unlike where it was measured (a lamp's fall-off: a top lit pale
    beside it, a red top darker and bluer across the board)."""
    scale = (MEASURED_L, 1.0, 1.0)
    px = cv2.split(lab.astype(np.float32))  # per channel: a quarter the time of whole pixels
    bg = np.asarray(background, np.float32)
    bgs = cv2.split(bg) if bg.ndim == 3 else bg

    def dist(channels, m):  # the distance of ``channels`` (or one colour) to ``m``
        return np.sqrt(sum(((ch - v) * w) ** 2 for ch, v, w in zip(channels, m, scale,
                                                                    strict=True)))

    dice = np.asarray(colours, np.float32)
    near = np.stack([dist(px, m) for m in dice])
    nearest = np.argmin(near, axis=0)
    out = []
    for c, m in enumerate(dice):
        margin = dist(bgs, m) - near[c]
        out.append(np.where(nearest == c, np.maximum(fixed[c], margin), np.minimum(margin, 0)))
    return np.stack(out)


def _top_kernel(side: int, toward: np.ndarray, stretch: float) -> np.ndarray:
    """A correlation kernel that peaks where a die's top lies: the mean over the top's
    square less the mean over strips just beyond its edges, except those facing the camera
    (``toward``: unit vector from the die to the camera's foot, view px; a die's side faces
    stretch ``stretch`` px that way on the plane of its top)."""
    gap, width = max(1, int(round(GAP_MM * PX_PER_MM))), max(2, int(round(STRIP_MM * PX_PER_MM)))
    r = side // 2 + gap + width
    kernel = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    h0, h1 = r - side // 2, r - side // 2 + side
    kernel[h0:h1, h0:h1] = 1.0 / (side * side)
    strips = {(1, 0): np.s_[h0:h1, h1 + gap:h1 + gap + width],
              (-1, 0): np.s_[h0:h1, h0 - gap - width:h0 - gap],
              (0, 1): np.s_[h1 + gap:h1 + gap + width, h0:h1],
              (0, -1): np.s_[h0 - gap - width:h0 - gap, h0:h1]}
    weights = {n: 1.0 if stretch < 2 * gap else max(0.0, -(n[0] * toward[0] + n[1] * toward[1]))
               for n in strips}
    total = sum(weights.values())
    for n, where in strips.items():
        kernel[where] -= weights[n] / (total * side * width)
    return kernel


def _die_kernel(side: int, toward: np.ndarray, stretch: float, height: float) -> np.ndarray:
    """A correlation kernel that peaks where a black die's top lies, by the whole die's
    outline on the plane of its top: the mean over that outline (the top's square and,
    towards the camera, its side faces down to its foot's square, which shows ``stretch``
    px that way and smaller by the die's share of ``height``, the camera's height over
    the plane, px) less the mean over a ring just round it. Placed on a side face (as
    black as the top, and showing pips too), the outline leaves the top in its ring and
    reaches past the die's foot."""
    gap, width = max(1, int(round(GAP_MM * PX_PER_MM))), max(2, int(round(STRIP_MM * PX_PER_MM)))
    foot = side * max(height - side, 1.0) / height
    r = int(np.ceil(side / 2 + stretch)) + gap + width + 1
    square = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float64) / 2
    pts = np.vstack([square * side, square * foot + np.asarray(toward) * stretch]) + r
    outline = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
    cv2.fillConvexPoly(outline, np.round(cv2.convexHull(pts.astype(np.float32))).astype(
        np.int32), 1)

    def grown(n: int) -> np.ndarray:
        return cv2.dilate(outline, cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                                             (2 * n + 1, 2 * n + 1)))

    ring = grown(gap + width) - grown(gap)
    return (outline / outline.sum() - ring / max(ring.sum(), 1)).astype(np.float32)


def _top_and_faces(die_kernel: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray]:
    """(top, faces): masks of a black die's top's square (``side`` px) and of its side
    faces towards the camera on the plane of its top (the outline of ``die_kernel``, a
    ``_die_kernel``, less the square), both centred as it."""
    k = die_kernel
    r = k.shape[0] // 2
    top = np.zeros(k.shape, np.uint8)
    square = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float64) * side / 2 + r
    cv2.fillConvexPoly(top, np.round(square).astype(np.int32), 1)  # as the outline's
    return top.astype(np.float32), ((k > 0) & (top == 0)).astype(np.float32)


def _no_lines(pip: np.ndarray) -> np.ndarray:
    """``pip`` without its thin long spots: a light line (a board's stitched edge, a
    painted line) longer than a die's top and, over that length, thinner than
    ``LINE_WIDTH`` of it is no die's pips (a blurred die's pips merge into a thick patch;
    a stitched edge beside a die pulled its top onto the edge)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(pip.astype(np.uint8),
                                                           connectivity=8)
    side = DIE_MM * PX_PER_MM
    extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    line = (extent > side) & (stats[:, cv2.CC_STAT_AREA] < LINE_WIDTH * side * extent)
    line[0] = False  # the background
    return pip & ~line[labels] if line.any() else pip


def _light_spots(lab: np.ndarray, px_per_mm: float, paler: float = PIP_PALER
                 ) -> tuple[np.ndarray, ...]:
    """(pips, tophat, chroma) of a Lab view at ``px_per_mm``: its light spots smaller than
    ``PIP_KERNEL_MM``, ``PIP_DL`` lighter than round them (``tophat``: how much, Lab L) and
    unsaturated (``chroma``: |a| + |b|), or, blurred into a coloured body, under ``paler``
    of the chroma round them."""
    chroma = np.abs(lab[..., 1].astype(np.float32) - 128) + np.abs(
        lab[..., 2].astype(np.float32) - 128)
    k = int(round(PIP_KERNEL_MM * px_per_mm)) | 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    tophat = cv2.morphologyEx(lab[..., 0], cv2.MORPH_TOPHAT, disc)
    round_it = cv2.dilate(chroma, disc)
    return (tophat > PIP_DL) & ((chroma < PIP_CHROMA) | (chroma < paler * round_it)), tophat, chroma


def find_dice(image: np.ndarray, H: np.ndarray, corners: np.ndarray,
              region: tuple[float, float, float, float],
              camera: np.ndarray | None = None, no_dice: np.ndarray | None = None,
              faint_on: np.ndarray | None = None, colours: np.ndarray | None = None
              ) -> dict[str, Die | None]:
    """The three dice by colour on the plane of ``H`` (the dice tops) within ``region``;
    None for a colour no place shows. ``corners``: the board top's corners, image px (the
    board fix's). ``camera``: the camera's centre (u, v, height above the plane, mm; from
    ``pose_plane``), None for straight above the region's middle. ``no_dice``: a polygon
    (board mm on this plane) where no die's top lies (Neunfeld's board and the pawns on
    it as seen on this plane): no window, top's fit or pips' centroid puts a top there
    (a black die's fit and its pips' centroid did: dev 179, A's pawn on field 9), and its
    light spots do not pick the black die's window.
    ``faint_on``: a polygon (board mm) where a blue or red die whose pips do not show is
    sought by its colour alone (Tyr's board: a red die on red leather, its one blurred pip
    too faint for the pip mask), at 0.6 at most. ``colours``: the dice's colours measured
    on the set ((3, 3) Lab, ``COLOURS``' order): the colour scores are taken from them
    (``measured_scores``) instead of the fixed ``colour_scores``.

    Per colour, the mean of its score (``colour_scores``, pips left out) over a die-sized
    window; the best window holds the die when that mean reaches ``PRESENT``. The die's
    side faces, of its colour too, lie beside its top on this plane, stretched towards the
    camera: the top is where its square is of the colour and the strips beyond its edges
    away from the camera are not (``_top_kernel``), near that best window; its centre is
    then the centroid of the pips inside that square (pip layouts are symmetric about the
    top's centre). The black die is picked and placed by its pips' contrast as well
    (``BLACK_OFFSET``, ``BLACK_ENERGY``, ``TOP_ENERGY``): its colour alone scores its
    shadow and a dark board's edge as high."""
    view, inside, to_mm = _view(image, H, region)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2Lab)
    board = _board_mask(lab.shape[:2], corners, H @ to_mm)
    background = _background(lab, board)
    k = int(round(PIP_KERNEL_MM * PX_PER_MM)) | 1
    spots, tophat, chroma = _light_spots(lab, PX_PER_MM)
    pip = _no_lines(spots & inside)

    def against(bg) -> np.ndarray:  # the colour scores against the background ``bg``
        fixed = colour_scores(lab.astype(np.float32) - bg, chroma)
        return fixed if colours is None else measured_scores(lab, bg, colours, fixed)

    scores = np.maximum(against(background) * (~pip & inside), 0)
    side = max(3, int(round(DIE_MM * PX_PER_MM)))

    def pip_windows(pip: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(weight, body share) of each die-sized window by the pips of ``pip`` in it: a
        die top shows at least one pip, windows without any are no die (a shadow; a window
        half on the die holds fewer of its pips: the whole top scores highest); the mean
        is taken over the window's body (pips left out: a 9 covers a third of the top)."""
        pips = cv2.blur(pip.astype(np.float32), (side, side), borderType=cv2.BORDER_CONSTANT)
        return (np.where(pips >= MIN_PIP_SHARE, np.minimum(1.0, pips / ONE_PIP_SHARE), 0.0),
                np.maximum(cv2.blur((~pip & inside).astype(np.float32), (side, side),
                                    borderType=cv2.BORDER_CONSTANT), 0.5))

    weight, body_share = pip_windows(pip)
    def polygon(mm: np.ndarray) -> np.ndarray:  # board mm -> a mask of the view
        pts = cv2.perspectiveTransform(np.asarray(mm, np.float64).reshape(-1, 1, 2),
                                       np.linalg.inv(to_mm)).reshape(-1, 2)
        mask = np.zeros(weight.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1)
        return mask.astype(bool)

    barred = np.zeros(weight.shape, bool)  # where no top's centre lies
    if no_dice is not None:
        barred = polygon(no_dice)
        weight = weight * ~barred
    faint_where = None if faint_on is None else polygon(faint_on)

    def window_mean(score: np.ndarray) -> np.ndarray:
        return cv2.blur(score, (side, side), borderType=cv2.BORDER_CONSTANT) / body_share \
            * weight

    means = [window_mean(s) for s in scores]

    def pale_window(c: int, taken: list[np.ndarray]) -> tuple | None:
        """(y, x, score, mean, pip, weight) of colour ``c``'s best window where pips paler
        than round them by ``PIP_PALER_LOST`` only count as pips, away from the dice
        ``taken``; None where its mean is under ``PRESENT``."""
        pale = _no_lines(_light_spots(lab, PX_PER_MM, PIP_PALER_LOST)[0] & inside)
        pale_weight, body = pip_windows(pale)
        pale_weight = pale_weight * ~barred
        score = np.maximum(against(background)[c] * (~pale & inside), 0)
        mean = cv2.blur(score, (side, side), borderType=cv2.BORDER_CONSTANT) / body \
            * pale_weight * free
        mean = np.where(means[2] < mean, mean, 0)  # not where black is more likely
        mean[within(side, taken)] = 0
        y, x = np.unravel_index(int(np.argmax(mean)), mean.shape)
        return (y, x, score, mean, pale, pale_weight) if mean[y, x] >= PRESENT else None

    # a black die's top is light pips on a dark body: the pips' contrast over the window
    # (Lab L above round them, mean over the window) picks the black die among the dark
    # places (a shadow, a dark board's edge show no such pips)
    energy = cv2.blur(tophat.astype(np.float32) * pip, (side, side),
                      borderType=cv2.BORDER_CONSTANT)
    # its window is picked on the spots where a top may lie (``no_dice``: Neunfeld's
    # leather grain and field dots beside a pawn at the board's near edge picked a window
    # over the pawn's foot and the board's dark side face, 55..90 mm off the die: dev 469,
    # 2042, 2170; 521 stays); its top is fitted on all (off the true corners, a black 2
    # beside the board lost a pip to ``no_dice`` and was placed off: dev 2021, 2123)
    energy_free = energy if no_dice is None else cv2.blur(
        tophat.astype(np.float32) * (pip & ~barred), (side, side),
        borderType=cv2.BORDER_CONSTANT)
    free = np.ones(weight.shape, bool)  # where no blue or red die or its shade lies
    # (``weight``: 0 where no top's pips show and in ``no_dice``)
    # towards the camera's foot (view px: x east, y south) and how far side faces stretch
    u0, u1, v0, v1 = region
    mid = np.array([(u0 + u1) / 2, (v0 + v1) / 2])
    if camera is None:
        camera = np.array([mid[0], mid[1], 1e6])
    off = np.array([camera[0] - mid[0], -(camera[1] - mid[1])])
    reach = float(np.linalg.norm(off))
    toward = off / reach if reach > 0 else np.zeros(2)
    stretch = DIE_MM * reach / max(float(camera[2]), DIE_MM) * PX_PER_MM
    above = stretch < 2 * GAP_MM * PX_PER_MM  # from above: no side face's pips seen
    kernel = _top_kernel(side, toward, stretch)
    die_kernel = _die_kernel(side, toward, stretch, float(camera[2]) * PX_PER_MM)
    top_mask, faces_mask = _top_and_faces(die_kernel, side)
    found: dict[str, Die | None] = dict.fromkeys(COLOURS)
    taken: list[np.ndarray] = []  # the tops found, view px
    sure_tops: list[np.ndarray] = []  # ... of those found surely (``APART``)
    grid_y, grid_x = np.mgrid[:scores.shape[1], :scores.shape[2]]

    def within(radius: float, centres: list[np.ndarray]) -> np.ndarray:
        """The view's pixels within ``radius`` of any of ``centres`` (view px)."""
        near = np.zeros(grid_x.shape, bool)
        for fx, fy in centres:
            near |= np.hypot(grid_x - fx, grid_y - fy) < radius
        return near

    for c, colour in enumerate(COLOURS):  # black last: blue and red are masked out of it
        mean, score = means[c], scores[c]
        # a black die on a yellow or red board is bluer or greener than the board: not
        # where it is blacker still, unless a place far blacker is the black die's
        pick = np.where((means[2] < mean) | (means[2] < BLACK_ELSEWHERE * means[2].max()),
                        mean, 0)
        if colour == "black":
            mean = means[c] = window_mean(scores[c])
            pick = (mean + BLACK_OFFSET) * energy_free * (free & (weight > 0))
        y, x = np.unravel_index(int(np.argmax(pick)), pick.shape)
        sure = mean[y, x] >= PRESENT
        faint = False  # found by its colour alone, its pips not seen
        die_pip, die_weight = pip, weight  # the pips taken as this die's, their windows' weight
        if not sure and colour != "black" and faint_where is not None:
            # its pips too faint to show: its colour alone over a die-sized window where
            # no die already found lies (a shadow keeps the hue of what it falls on)
            bare = cv2.blur(score, (side, side), borderType=cv2.BORDER_CONSTANT) \
                / body_share * (faint_where & free)
            bare = np.where(means[2] < bare, bare, 0)
            bare[within(side, taken)] = 0
            by, bx = np.unravel_index(int(np.argmax(bare)), bare.shape)
            if bare[by, bx] >= PRESENT:
                y, x, mean, faint = by, bx, bare, True
        if not sure and not faint and not (colour == "black"
                                           and energy[y, x] >= BLACK_ENERGY):
            # a die of the colour of what it stands on (a red die on red leather): the
            # colour against neutral grey, where the pips of a whole top show and no die
            # already found lies
            neutral = np.maximum(against(NEUTRAL)[c] * (~pip & inside), 0)
            grey = window_mean(neutral) * (weight >= 1.0)
            grey[within(side, taken)] = 0
            gy, gx = np.unravel_index(int(np.argmax(grey)), grey.shape)
            pale = None if colour == "black" or grey[gy, gx] >= PRESENT \
                else pale_window(c, taken)
            if grey[gy, gx] >= PRESENT:
                y, x, score, mean = gy, gx, neutral, grey
            elif pale is not None:  # its pips blurred into its colour (``PIP_PALER_LOST``)
                y, x, score, mean, die_pip, die_weight = pale
            elif not (colour == "black" and energy[y, x] >= BLACK_FAINT):
                continue
            # else the black die at its pick, by its pips alone (``BLACK_FAINT``)
        # the dice found surely before it and their pips are not this die's (``APART``)
        near = within(APART * side, sure_tops)
        own_pips = die_pip & ~within(side / 2, sure_tops)
        # the top near the best window: up to its own size away from the camera and the
        # side faces' stretch towards it
        r = int(side + stretch) + kernel.shape[0]
        y0, y1 = max(y - r, 0), min(y + r + 1, mean.shape[0])
        x0, x1 = max(x - r, 0), min(x + r + 1, mean.shape[1])
        # the pips belong to the die: filled with the colour round them
        part, body = score[y0:y1, x0:x1], (~die_pip[y0:y1, x0:x1]).astype(np.float32)
        if colour == "black":  # its shaded side faces are blacker than its lit top: as
            part = np.minimum(part, BLACK_CAP * PRESENT)  # black, the far strips place it
        filled = np.where(body > 0, part, cv2.blur(part, (k, k)) / np.maximum(
            cv2.blur(body, (k, k)), 0.05))
        fit = cv2.filter2D(filled, -1, die_kernel if colour == "black" else kernel,
                           borderType=cv2.BORDER_CONSTANT) \
            * (faint_where[y0:y1, x0:x1] if faint else die_weight[y0:y1, x0:x1])
        # black: its top holds its pips (the capped colour does not place it); from above
        # (no side face seen) the most of them, at a slant its side faces' pips count too
        if colour == "black":
            own = cv2.blur(tophat[y0:y1, x0:x1].astype(np.float32) * own_pips[y0:y1, x0:x1],
                           (side, side), borderType=cv2.BORDER_CONSTANT)
            share = own / (TOP_ENERGY * energy[y, x])
            if not above:  # not darker than its side faces, over the die's pixels
                dark = ((part >= LIGHT_DARK * PRESENT) & (body > 0)).astype(np.float32)
                light = lab[y0:y1, x0:x1, 0].astype(np.float32) * dark
                over = []  # (mean L, enough black) of the square, of the faces
                for m in (top_mask, faces_mask):
                    n = cv2.filter2D(dark, -1, m, borderType=cv2.BORDER_CONSTANT)
                    over.append((cv2.filter2D(light, -1, m, borderType=cv2.BORDER_CONSTANT)
                                 / np.maximum(n, 1.0), n >= LIGHT_SHARE * m.sum()))
                (top_l, top_ok), (faces_l, faces_ok) = over
                fit = fit + np.where(top_ok & faces_ok,
                                     np.clip(top_l - faces_l, -LIGHT_CAP, 0.0), 0.0)
            fit = (fit + BLACK_CAP * PRESENT) * (share if above else np.minimum(share, 1)) \
                * ~barred[y0:y1, x0:x1]  # a constant added: ``no_dice`` holds it again
        yy, xx = np.mgrid[y0:y1, x0:x1]
        fit[np.hypot(yy - y, xx - x) > side / 2 + stretch] = -np.inf
        if np.isfinite(fit[~near[y0:y1, x0:x1]]).any():  # not on a die already found
            fit[near[y0:y1, x0:x1]] = -np.inf
        ty, tx = np.unravel_index(int(np.argmax(fit)), fit.shape)
        cx, cy = float(tx + x0), float(ty + y0)
        # the centroid of the pips inside that square, twice, if that moves the top only a
        # little (light specks of the table round a die are no pips of it); for a blue or
        # red die only from above: at a slant its side faces' pips pull it off
        h, start = side / 2 - 1, np.array([cx, cy])
        for _ in range(2):
            sy0, sx0 = max(int(round(cy - h)), 0), max(int(round(cx - h)), 0)
            ys, xs = np.nonzero(own_pips[sy0:int(round(cy + h)), sx0:int(round(cx + h))])
            if len(ys) < MIN_PIP_SHARE * side * side:
                break
            cx, cy = float(xs.mean() + sx0), float(ys.mean() + sy0)
        shift = np.array([cx, cy]) - start
        limit = MAX_PIP_SHIFT_MM * PX_PER_MM if colour == "black" or above else 0.0
        cx, cy = start + shift * min(1.0, limit / max(float(np.linalg.norm(shift)), 1e-6))
        if barred[min(int(round(cy)), barred.shape[0] - 1),
                  min(int(round(cx)), barred.shape[1] - 1)]:
            cx, cy = start  # not pulled where no top lies (a pawn's head on Neunfeld's board)
        u, v, w = to_mm @ np.array([cx, cy, 1.0])
        floor = FOUND_FLOOR[colour]
        conf = floor + (1 - floor) * float(np.clip((mean[y, x] - PRESENT) / PRESENT, 0.0, 1.0))
        rival = max(float(means[j][y, x]) for j in range(3) if j != c)
        if rival > 0.5 * mean[y, x] or not sure:  # another colour nearly as likely here
            conf = min(conf, 0.6)
        found[colour] = Die(colour, float(u / w), float(v / w), conf)
        taken.append(np.array([cx, cy]))
        if conf >= floor:
            sure_tops.append(taken[-1])
        if colour != "black":
            # its side faces and shade are dark, without much hue: no place for black
            along = np.clip((grid_x - cx) * toward[0] + (grid_y - cy) * toward[1], 0, stretch)
            gap = np.hypot(grid_x - cx - along * toward[0], grid_y - cy - along * toward[1])
            scores[2][gap < 0.6 * side] = 0
            free[gap < side] = False
    return found


def top_crops(image: np.ndarray, H: np.ndarray, dice: list[Die]) -> list[np.ndarray]:
    """Each die's top as the pips model is given it: cut on the plane of ``H`` (the dice
    tops), north up, centred on the die and filling ``CROP_FILL`` of 64 px."""
    half = DIE_MM / 2 / CROP_FILL
    return [square_crop(image, H, d.u, d.v, half, CROP_PX) for d in dice]


def centre_pips(crops: list[np.ndarray]) -> list[float]:
    """Per die's top crop (``top_crops``), how far its centre shows a pip: the lightness of
    a 1.7 mm disc at the crop's centre over the top's body (its 30th percentile), as a
    share of its pips' (the 97th): about 0 where the centre is body, 1 on a pip (pips
    lighter than the body, as ``find_dice`` takes them)."""
    px_mm = CROP_FILL * CROP_PX / DIE_MM
    yy, xx = np.mgrid[:CROP_PX, :CROP_PX] - (CROP_PX - 1) / 2
    centre = np.hypot(yy, xx) < 1.7 * px_mm
    top = np.maximum(np.abs(yy), np.abs(xx)) < 0.9 * DIE_MM / 2 * px_mm
    out = []
    for crop in crops:
        light = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab)[..., 0].astype(np.float32)
        body, pips = np.percentile(light[top], [30, 97])
        out.append(float((light[centre].mean() - body) / max(pips - body, 1.0)))
    return out


def read_tops(crops: list[np.ndarray], calibration: dict | None = None
              ) -> list[dict[str, Prediction] | None]:
    """The pips model's reading of each die's top crop (``top_crops``; one run for all;
    through the calibration's enrolment profile where it has one); None per crop without
    the model."""
    model = shared("pips")
    if model is None or not crops:
        return [None] * len(crops)
    return predict(calibration, "pips", model, crops, 9, TOP_TURNS)


def top_reading(die: Die, prediction: dict[str, Prediction] | None,
                faces: tuple[int, ...], centre: float | None = None
                ) -> tuple[int | None, float, list]:
    """(top, confidence, alternatives) of a die from the model's heads: the pips among the
    die's own ``faces`` (probabilities renormalised over them), the confidence lowered to
    the colour head's probability of the classical colour when that is lower, and to
    ``CENTRE_DOUBT`` where ``centre`` (``centre_pips``) says the other parity."""
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
    conf = min(conf, max(colour, 0.0))
    if centre is not None and (centre >= CENTRE_PIP[1] if top % 2 == 0
                               else centre < CENTRE_PIP[0]):
        conf = min(conf, CENTRE_DOUBT)
    return top, float(conf), [[n, round(p, 4)] for n, p in ranked[1:]]


def symmetric_centre(image: np.ndarray, H: np.ndarray, die: Die) -> Die:
    """``die`` moved to where the light spots round it (``_light_spots``) are most symmetric
    under a half turn about a top's centre, over a top-sized window (the pips of any face
    are), within ``SYMMETRY_REACH_MM`` of its place on the plane of ``H`` (the tops) and
    where the window's body (its spots left out) is of the colour of the window at its
    place (``SYMMETRY_BODY``); the nearest of equals. A black die's window may be darker,
    and only the spots on a body darker than its placed window's count (``SYMMETRY_RING_MM``)."""
    px, reach = SYMMETRY_PX_PER_MM, SYMMETRY_REACH_MM
    w = int(round(DIE_MM / 2 * px))  # half a window, px
    size = 2 * (w + int(round(reach * px)))
    patch = cv2.cvtColor(square_crop(image, H, die.u, die.v, size / px / 2, size),
                         cv2.COLOR_BGR2Lab)
    spots = _light_spots(patch, px)[0]
    body = (~spots).astype(np.float32)

    def window_sum(x: np.ndarray) -> np.ndarray:  # over [y - w, y + w) x [x - w, x + w)
        return cv2.boxFilter(x, -1, (2 * w, 2 * w), normalize=False, anchor=(w, w),
                             borderType=cv2.BORDER_CONSTANT)

    looks = np.stack([window_sum(patch[..., i].astype(np.float32) * body) for i in range(3)],
                     axis=-1) / np.maximum(window_sum(body), 1.0)[..., None]
    middle = size // 2
    away = looks - looks[middle, middle]
    light = spots.astype(np.float32)
    if die.colour == "black":  # darker is more of it; its pips lie on its dark body
        away[..., 0] = np.maximum(away[..., 0], 0.0)
        k = int(round(SYMMETRY_RING_MM * px)) | 1
        lightness = patch[..., 0].astype(np.float32) * body
        round_spots = cv2.blur(lightness, (k, k)) / np.maximum(cv2.blur(body, (k, k)), 1e-3)
        light *= round_spots < looks[middle, middle, 0]
    scale = np.array([MEASURED_L, 1.0, 1.0], np.float32)
    alike = np.sqrt(((away * scale) ** 2).sum(axis=-1)) <= SYMMETRY_BODY
    best, move = 0.0, (0, 0)
    steps = range(-int(round(reach)), int(round(reach)) + 1)
    for dy in steps:
        for dx in steps:
            y, x = middle + int(round(dy * px)), middle + int(round(dx * px))
            if not alike[y, x]:
                continue
            window = light[y - w:y + w, x - w:x + w]
            paired = float((window * window[::-1, ::-1]).sum()) - 0.01 * np.hypot(dx, dy)
            if paired > best:
                best, move = paired, (dx, dy)
    return Die(die.colour, die.u + move[0], die.v - move[1], die.confidence)  # y is south


def dice_tops(image: np.ndarray, H: np.ndarray, dice: list[Die],
              calibration: dict | None = None, camera: np.ndarray | None = None
              ) -> list[tuple[int | None, float, list]]:
    """Per die, its top's (top, confidence, alternatives): ``read_tops`` taken through
    ``top_reading`` among the die's own faces, with its ``centre_pips`` cue (both on the
    same crops, cut once). With ``camera`` (its centre over the plane of ``H``, mm, as
    ``pose_plane`` gives it), a top read under ``MOVED_BELOW`` is read again on crops
    moved ``MOVED_MM`` towards and away from the camera's foot and ``MOVED_ACROSS_MM``
    across that line and on one centred where its pips are most symmetric
    (``symmetric_centre``; all in one more run), and the surest of those readings taken
    where it reaches ``MOVED_SURE`` and is surer: a black top placed off towards the
    board's dark edge shows only part of itself."""
    out = _top_readings(image, H, dice, calibration)
    if camera is None:
        return out
    moved, whose = [], []
    for i, (die, (top, conf, _)) in enumerate(zip(dice, out, strict=True)):
        toward = np.array([camera[0] - die.u, camera[1] - die.v])
        reach = float(np.linalg.norm(toward))
        if top is None or conf >= MOVED_BELOW or reach == 0.0:
            continue
        along = toward / reach
        across = np.array([-along[1], along[0]])
        for shift in [along * mm for mm in MOVED_MM] + [across * mm for mm in MOVED_ACROSS_MM]:
            moved.append(Die(die.colour, die.u + float(shift[0]), die.v + float(shift[1]),
                             die.confidence))
            whose.append(i)
        moved.append(symmetric_centre(image, H, die))
        whose.append(i)
    for i, reading in zip(whose, _top_readings(image, H, moved, calibration), strict=True):
        if reading[0] is not None and reading[1] >= MOVED_SURE and reading[1] > out[i][1]:
            out[i] = reading
    return out


def _top_readings(image: np.ndarray, H: np.ndarray, dice: list[Die],
                  calibration: dict | None) -> list[tuple[int | None, float, list]]:
    """``dice_tops`` where each die lies (no crops moved)."""
    crops = top_crops(image, H, dice)
    return [top_reading(d, pred, BY_COLOUR[d.colour].faces, centre)
            for d, pred, centre in zip(dice, read_tops(crops, calibration),
                                       centre_pips(crops), strict=True)]
