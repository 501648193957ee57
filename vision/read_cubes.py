"""Cubes' reader: the 10 x 10 grid of white and numbered stones, and the dependency cards.

First the board's corners are refined on its printed lines (``refine``): corners a few
px off (a found board's, a tracked one's after a nudge) put white stones' tops and the
model's crops off their fields. Each line is sought, between two fields that show plain
paper, up to ``REFINE_REACH_MM`` either way of where the corners put it (an outer line
``OUTWARD_MM`` beyond it at most: the board's printed border lies 12 mm further); a
homography's small change is fitted to what is found (robustly), and the corners it moves
are taken where it puts a field's centre ``REFINE_MIN_MM`` or more off and the lines agree
better with them (``REFINE_GAIN``), twice at most.

The board is looked at twice, each time as one rectified top view of the 10 x 10 fields
(``PX_PER_MM``; one warp each): on the board's plane and on the plane of the stones' tops
(``STONE_TOP_MM`` above it). Seen at a slant, a stone's top lies in its field only on the
second; the first shows where the stone hides the printed lines. The camera's *shift*
(where a point of the top plane appears on the board plane, ``6 tan(tilt)`` mm away from
the camera) says where a stone's side faces and hidden lines lie. Per field, all fields at
once (array operations, no per-field loop):

- *player colour* (``_votes``): the share of pixels of each hue (blue, red, orange) and
  of black pixels, each pixel balanced on the paper's white (the fields' median look), in
  the stone's window (its top and near side face, not the far band where a neighbour's
  side face shows at a slant); named only on an uneven top (a white stone's is even): a
  hue by ``HUE_SHARE``, else black by ``DARK_SHARE``;
- *white stone or empty* (fields without a colour): a logistic model (``OCCUPANCY``,
  fitted on dev renders, see its comment) over six measures: the top's lightness and
  its spread, the dip of lightness along a stone's bevelled outline (the top's square
  against the ring round it, both placed where that dip is deepest, ``OUTLINE_OFFSETS_MM``;
  the top's lightness and spread are taken in that square too), the side faces
  (darker than the top, on the camera's side of it), the lightness at the field's centre
  on the board plane, and the printed lines a stone's top would hide; each measure also
  enters multiplied by the slant (``shift / 6 mm``), so that overhead views lean on the
  outline and slanted ones on the side faces and lines. Where it doubts (``DOUBT``), the
  stone model's white or empty is added to it (``_white_or_empty``; from above leaning
  towards empty, ``FROM_ABOVE``). The probability is the token's confidence, the other
  token its alternative. In play (a player's stone on the board) the rules' count of
  white stones holds: too few read are made up by the likeliest empty fields, read white
  in doubt, and too many give up the least likely, read empty in doubt
  (``_whites_in_play``; likeliest by the probability before ``SECOND_CAP``, and where
  too few are read, the empty fields the model has not read are read by it first, one
  more run, ``_white_or_empty``; where too many, the white ones);
- *side*: the central disc is white (active side up) or black (inactive);
- *digit*: read by ``models/stone.onnx`` (``vision.classifier.shared("stone")``, heads
  kind / digit / side, ``vision.classifier.stone_token``; crop: ``stone_crop``, rectified
  on the top plane) for the fields with a colour, and for those whose top is uneven
  without a colour seen (the model's colour is then taken at ``UNSEEN_COLOUR`` at most,
  with the empty field as an alternative), all in one run; where the model's colour or
  side disagrees with the classical one the token is the model's with confidence at most
  0.5 and the classical reading first among the alternatives; the other likely digits
  are the alternatives. A player lays a stone to read it from the own seat, so a stone's
  crop is first turned by its owner's seat (``upright``: the colour's player in
  ``players``; read again turned for the model's colour where that one's seat differs,
  ``_owner_turns``); where the digit read so is doubtful (under ``DIGIT_DOUBT``) the other
  three quarter turns are read too (one more run) and one whose digit is sure
  (``DIGIT_SURE``) is taken.
  Where the model reads the field empty (its kind ``empty``) it is
  left empty, at confidence 0.5 at most if a colour was seen there. Without the model a
  coloured stone's token is null (never a guess) and the field is listed in
  ``uncertain`` with confidence 0 and the five digits of the colour and side read as the
  alternatives.

The players: which colour sits where and in what order is the table's set-up, not seen
(the rules' default seating for the number of dependency cards seen and the stones'
colours, ``players`` of the calibration where it gives one; where the colours the model
reads seat other players than those seen, its seating holds, and where it seats a colour
elsewhere the stones are read again turned for it, ``_same_seats``); the dependency card
before each seat (a white card with a large coloured disc, on the table beside the
board) is found as the place, near where that seat's card lies, whose disc differs most
from a light ring of card around it (``_cards``), and named by the disc's colour
balanced on that ring. There is one card per playing colour: of two seats showing one
colour the surer keeps it (``_one_card_per_colour``), and one card not seen (beyond the
frame's edge) where all the others were is the playing colour they leave
(``_last_card``).
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from rules.cubes_position import WHITES, reading_turns
from vision import piece_colours
from vision.board import BoardFix, Geometry, homography
from vision.classifier import Prediction, shared, stone_token
from vision.grid import board_pose, robust_lstsq, square_crop
from vision.observe import predict
from vision.own_lines import shifted
from vision.reading import Reading

STONE_TOP_MM = 6.0  # vision.render.pieces.STONE_THICK_MM
STONE_MM = 24.0
FIELD_MM = 30.0
LETTERS = {"blue": "B", "red": "R", "black": "K", "orange": "O"}
SEAT_DIRECTIONS = {"south": (0.0, -1.0), "north": (0.0, 1.0), "east": (1.0, 0.0),
                   "west": (-1.0, 0.0)}
CARD_REACH_MM = 225.0  # a dependency card's centre from the board's centre (about)
CARD_MM_PX = 3.0  # mm a pixel of the card search views
MIN_SEEN = 0.5  # least share of a card's disc square, or of a ring side used, in the frame
#: most a card's ring (white card stock) may be darker than the board's paper (Lab L, 0..255):
#: dev renders 100..299, true and found corners: 66 at most on 1,215 cards read right; the
#: light squares of a checked cloth round a dark one (a blue card read at empty seats,
#: dev 140) 119..128
CARD_DARKER = 90.0
SATURATED = 0.3  # saturation (balanced on the paper's white) of a player's colour
DARK = 0.38  # brightness (1 = the paper's) under which an unsaturated patch is black
PX_PER_MM = 1.5  # of the rectified views of the fields
FIELD_PX = int(FIELD_MM * PX_PER_MM)
CROP_HALF_MM = 16.0  # the stone model's crop: 32 mm square (a stone is 24 mm)
CROP_PX = 40  # the stone model's input size
#: where a stone's outline is sought: its top's square (8 mm half side) against the ring
#: 11.5..13 mm out, centred this far off the field's centre each way (a stone lies up to
#: 3 mm off it); the deepest dip counts, and the top is measured in that square
OUTLINE_OFFSETS_MM = (-3.0, -1.5, 0.0, 1.5, 3.0)
UNEVEN = 0.15  # spread of a top (board grey units) over a white stone's (0.13 at 99.9 %)
EVEN = 0.1  # under this spread a top shows no colour (coloured stones: 0.14 and more)
#: a top this uneven without a colour seen is read by the stone model too (a stone whose
#: colour was not seen): dev renders, true corners (any 100..199, oblique and overhead
#: 100..129): 2 of 3,730 white stones' tops reach it; an orange stone in dim light seen
#: brown 0.097, read white at 1.0 before (UNEVEN was the bar). Session 18, 0.09 -> 0.08:
#: dev any 1000..1199, 1400..1599, 1800..1999, true and found corners (1,195 readings), the
#: colourless tops read white at 0.5 or more with a spread of 0.08..0.09: 17 white stones
#: (the model white on all), 3 empty fields (empty on all) and 1887's blue 5 seen off its
#: top (0.082, read white surely; the model blue at 0.95)
ASK_SPREAD = 0.08
HUE_SHARE = 0.2  # share of a stone window's pixels of one hue that names its colour
DARK_SHARE = 0.15  # share of black pixels that names an uneven top black
UNSEEN_COLOUR = 0.8  # most confidence in a stone whose colour only the model saw
#: a field without a colour whose white-or-empty probability lies in [DOUBT) is read by the
#: stone model too; where the model sees white or empty (their probabilities summing to
#: SEEN at least), the two are taken together (``_white_or_empty``: the log odds added,
#: the model's weighed by MODEL_WEIGHT, at SECOND_CAP at most either way). Session 6, dev renders,
#: true corners (any 100..199, oblique and overhead 100..129; 15,227 colourless fields):
#: the classical test alone wrong on 30 fields (3 at 0.9 or more); with the model
#: deciding where it was sure (0.9) in 0.1..0.98 (before) 16 (5 at 0.9 or more: the model
#: sure of white on empty white paper); together as then 17 (1), right but in doubt 30 -> 36.
#: From above (no side faces looked at: the shift under SLANTED_MM) the model calls white
#: empty fields amid white stones, and the classical test there leans on the outline,
#: which its neighbours' outlines mimic: FROM_ABOVE is added to the log odds (towards
#: empty). Dev renders any 100..199 / 200..299, true corners and corners moved 1.2 px (sd),
#: 18,961 / 19,100 colourless fields, session 6's OCCUPANCY: wrong 23 / 20 at MODEL_WEIGHT
#: 0.7 without it, 12 / 10 with it (from above 19 / 18 -> 8 / 7; wrong at 0.9 or more 9 /
#: 6 -> 4 / 6); with f3e02c7's OCCUPANCY (fitted on the other half) 25 -> 17 in all. With
#: OCCUPANCY as now (see its comment) FROM_ABOVE from 0 to -2.5 (MODEL_WEIGHT 1.0) took the
#: colourless fields wrong (fitted on one half, tried on the other, both ways) 21 -> 13
#: (cluttered any), 7 -> 5 (cluttered overhead), 32 -> 14 (clean overhead), 38 -> 17
#: (clean any), 4 -> 5 (the demo's frames, seeds 20..22). Session 12, dev renders any
#: 0..1199 and clean overhead 100..199, true corners, each frame's colourless fields
#: decided anew at other constants from what the reader measured (one-off
#: /work/frames/f2/collect.py, sweep2.py; the same readings at the old ones): MODEL_WEIGHT
#: 1.0 -> 1.5 and FROM_ABOVE -2.5 -> -2.0 took the white-or-empty fields wrong 31 -> 28
#: (frames 10 -> 8: from above 302's, the model 0.95 sure of white, and one of 515's) and
#: 2 -> 2 (clean); FROM_ABOVE -1.5 31 -> 27 but 2 -> 4, MODEL_WEIGHT 1.8 27 but 10
DOUBT = (0.03, 0.98)
SEEN = 0.5
MODEL_WEIGHT = 1.5
FROM_ABOVE = -2.0
SECOND_CAP = 0.97
SLANTED_MM = 2.5  # a shift (mm) from which the side faces are looked at
#: a digit read on the owner's turn less likely than DIGIT_DOUBT: the other quarter turns
#: are read too, and one whose digit is at least DIGIT_SURE is taken (a stone not laid
#: for its owner); a turned 3 can read as a likely 5, so a likelier turn alone is not enough
DIGIT_DOUBT = 0.5
DIGIT_SURE = 0.9
DIGIT_FLOOR = 1e-4  # least probability of a digit in the joint reading (``_one_of_each``)
#: the occupancy model: weights of the six measures (``_measures``), then of the same six
#: times the slant, then of the slant, then the bias; logit > 0: a white stone. Fitted by
#: L2-regularised logistic regression (lambda 1, standardised measures) on 119,096 fields
#: without a colour (27,075 white) of dev renders with noise and blur (any camera 100..299,
#: overhead 100..159) and in the demo's clean light (Effects.clean(): overhead 100..199,
#: any 100..299), each read on the true corners and on corners moved by 1.2 px (sd), and
#: of the frames the demo's scripted games 20..22 gave the reader (the tracker's corners,
#: up to 8 px off after a nudge); one-off scripts /work/frames/h_cubes8/collect8.py,
#: fit8.py, cvsum.py, not in the repository. f3e02c7's weights, fitted on the cluttered
#: any renders alone with the top measured at the field's centre, read white stones in the
#: demo's light empty where a stone lay off the centre of corners 3..4 px off (its edge in
#: the square: an uneven top). Fitted on even seeds and tried on odd ones and the other
#: way round, then with the stone model where it doubts (FROM_ABOVE -2.5), wrong fields
#: f3e02c7's -> these: cluttered any 14 -> 13 and overhead 3 -> 5 (f3e02c7's in-sample
#: there), clean overhead 20 -> 14, clean any 22 -> 17, the demo's 20..22 6 -> 5; the
#: demo's seed 10 (fitted on neither; 43 frames) 23 -> 4, at 0.9 or more 21 -> 2
OCCUPANCY = np.array([22.63, -43.57, 76.66, -18.05, -29.19, 11.5, -1.537, 11.84, -25.92,
                      -13.1, -2.406, 9.706, 1.56, -14.24])

#: the grid refined on the board's printed lines (``refine``): each line is sought up to
#: REFINE_REACH_MM either way of where the board's corners put it, in bands across the
#: middle of each field row or column (LINE_BAND_MM either way of it, clear of the lines'
#: crossings); a line is darker than both its sides (LINE_SIDE_MM away) by LINE_DEPTH of
#: the paper's grey at least (a stone's edge is darker on one side only)
REFINE_REACH_MM = 6.0
LINE_BAND_MM = 10.0
LINE_SIDE_MM = 2.0
LINE_DEPTH = 0.04
PLAIN = 0.1  # a field's grey spread (of the paper's grey) under which it is plain paper
MIN_LINES = 12  # least line pieces found each way for the grid to be refined
REFINE_SCALE_MM = 0.7  # the robust fit's residual scale (Cauchy weights)
MAX_REFINE_MM = 15.0  # a refinement moving a corner farther (mm) is not taken
REFINE_GAIN = 1.2  # how much better the lines must agree with a moved fix
REFINE_MIN_MM = 1.0  # a fix putting no field's centre this far off the lines is kept
REFINE_PASSES = 2
OUTWARD_MM = 3.0  # farthest an outer line is taken beyond where the fix puts it


def _colours(bgr: np.ndarray, white: np.ndarray) -> tuple[list[str | None], np.ndarray]:
    """(player colour or None, confidence) of each patch's median ``bgr`` (n, 3) seen
    beside a ``white`` one (paper, card stock) under the same light: the colour is balanced
    on the white (each channel divided by it), then named by saturation, brightness and hue
    (blue 180..260 degrees, red below 15 or from 330, orange 15..50, black: darker than
    ``DARK`` whatever its hue); None for an unsaturated light patch (white stone, paper).
    Balanced so, the blue, red and orange discs of the dependency cards of dev renders
    0..999 are 0.6 or lighter; black ones lit by a warm lamp, brownish at 0.22 and 0.28
    (dev 340, 592), were named orange when black had to be unsaturated too."""
    c = np.asarray(bgr, np.float32).reshape(-1, 3) / np.maximum(
        np.asarray(white, np.float32).reshape(-1, 3), 1.0)
    v = c.max(axis=1)
    s = 1.0 - c.min(axis=1) / np.maximum(v, 1e-6)
    hue = cv2.cvtColor(np.clip(c, 0, 1).reshape(-1, 1, 3), cv2.COLOR_BGR2HSV)[:, 0, 0]
    grey = (s < SATURATED) | (v < DARK / 2)  # dark hues are noise on black
    black = v < DARK
    hued = np.where((hue >= 180) & (hue < 260), "blue", np.where(
        (hue < 15) | (hue >= 330), "red", np.where(hue < 50, "orange", "")))
    names = np.where(black, "black", np.where(grey, "", hued))
    conf = np.where(black, 0.5 + (DARK - v) / DARK, np.where(
        grey, 0.5 + (SATURATED - s) / SATURATED,
        np.where(hued == "", 0.5, 0.5 + (s - SATURATED) / (2 * SATURATED))))
    return [str(n) or None for n in names], np.clip(conf, 0.5, 1.0)


def _view(image: np.ndarray, H: np.ndarray) -> np.ndarray:
    """The 10 x 10 fields on the plane of ``H`` (board mm -> px), north up,
    ``PX_PER_MM``."""
    s = 1.0 / PX_PER_MM
    half = 5 * FIELD_MM
    to_mm = np.array([[s, 0, -half + s / 2], [0, -s, half - s / 2], [0, 0, 1]])
    n = 10 * FIELD_PX
    return cv2.warpPerspective(image, H @ to_mm, (n, n),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _blocks(view: np.ndarray) -> np.ndarray:
    """A view of the fields as one block per field: (100, FIELD_PX, FIELD_PX, ...),
    row-major from the north-west."""
    shape = view.shape[2:]
    return view.reshape(10, FIELD_PX, 10, FIELD_PX, *shape).swapaxes(1, 2).reshape(
        100, FIELD_PX, FIELD_PX, *shape)


def _swept(x: np.ndarray, y: np.ndarray, half: float, sx: float, sy: float,
           t0: float = 0.0, t1: float = 1.0) -> np.ndarray:
    """Where the square |x|, |y| <= ``half`` goes when moved by t (``sx``, ``sy``) for t in
    [``t0``, ``t1``]."""
    lo, hi = np.full(x.shape, t0), np.full(x.shape, t1)
    for p, s in ((x, sx), (y, sy)):
        if abs(s) < 1e-6:
            hi = np.where(np.abs(p) <= half, hi, -1.0)
        else:
            a, b = (p - half) / s, (p + half) / s
            lo, hi = np.maximum(lo, np.minimum(a, b)), np.minimum(hi, np.maximum(a, b))
    return lo <= hi


def _means(values: np.ndarray, *masks: np.ndarray) -> np.ndarray:
    """Per field, the means of ``values`` (100, h, w[, channels]) under each of ``masks``
    ((h, w) each): (100, masks[, channels]), all in one matrix product; zeros for a mask
    of under four pixels."""
    weights = np.stack([m.ravel() / m.sum() if m.sum() >= 4 else np.zeros(m.size)
                        for m in masks], axis=1).astype(np.float32)
    if values.ndim == 3:
        return values.reshape(len(values), -1) @ weights
    flat = values.reshape(len(values), weights.shape[0], -1)
    return (flat.transpose(0, 2, 1) @ weights).transpose(0, 2, 1)


def _measures(L0: np.ndarray, L6: np.ndarray,
              shift: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(100, 6) per field, grey levels in units of the board's (75th percentile of the
    board plane's): the top's lightness and spread, the outline's dip, the side faces
    against the top, the board plane's centre, the hidden lines against the visible ones
    (see the module doc); and (100,) the spread of the top's square at the field's centre
    (whether a top is even enough to show no colour). ``L0``, ``L6``: (100, h, w) grey
    levels on the board and top planes; ``shift``: where a point of the top plane appears
    on the board plane (mm, u, v)."""
    c = (np.arange(FIELD_PX) + 0.5) / PX_PER_MM - FIELD_MM / 2
    x, y = np.meshgrid(c, -c)
    ax, ay = np.abs(x), np.abs(y)
    r_sq = np.maximum(ax, ay)
    sx, sy = shift
    ref = max(float(np.percentile(L0[:, ::4, ::4], 75)), 1.0)
    none = np.zeros_like(r_sq, dtype=bool)
    slanted = np.hypot(sx, sy) >= SLANTED_MM  # side faces: the top swept towards the camera
    side = _swept(x, y, 11.0, -sx, -sy) & (r_sq >= 13.0) if slanted else none
    # the top and the outline: the top's square (8 mm half side) and the ring 11.5..13 mm
    # round it, placed where the dip from the one to the other is deepest (a stone lies up
    # to 3 mm off its field's centre, turned up to 12 degrees, and the board's corners a
    # pixel or more off theirs); the top's lightness and spread are taken in that square
    # (a fixed one took a stone's edge for an uneven top; a fixed ring missed its far side)
    rings = []
    for du, dv in itertools.product(OUTLINE_OFFSETS_MM, repeat=2):
        r_off = np.maximum(np.abs(x - du), np.abs(y - dv))
        rings += [r_off <= 8.0, (r_off >= 11.5) & (r_off <= 13.0)]
    means = _means(np.concatenate([L6, L6 * L6]), *rings)  # the fields', then squared
    squares, around, squared = means[:100, 0::2], means[:100, 1::2], means[100:, 0::2]
    best = (np.arange(100), np.argmax(squares - around, axis=1))
    top, dip = squares[best], (squares - around)[best]
    spreads = np.sqrt(np.maximum(squared - squares * squares, 0.0))
    spread, centred = spreads[best], spreads[:, len(OUTLINE_OFFSETS_MM) ** 2 // 2]  # at (0, 0)
    sides = _means(L6, side)[:, 0]
    line = (np.abs(r_sq - FIELD_MM / 2) <= 0.7) & (np.minimum(ax, ay) <= 11.0)
    hidden = line & _swept(x, y, 10.5, sx, sy, 0.3, 1.0) & (r_sq > 13.0)
    seen = line & ~_swept(x, y, 13.5, sx, sy)
    if hidden.sum() < 4 or seen.sum() < 4:
        hidden = seen = none
    centre, hidden_L, seen_L = _means(L0, r_sq <= 4.0, hidden, seen).T
    return np.column_stack([top, spread, dip, sides - top if slanted else 0 * top,
                            centre, hidden_L - seen_L]) / ref, centred / ref


def white_probability(measures: np.ndarray, shift: tuple[float, float]) -> np.ndarray:
    """Per field, the probability that a field without a colour holds a white stone."""
    slant = min(float(np.hypot(*shift)) / STONE_TOP_MM, 1.5)
    x = np.column_stack([measures, measures * slant, np.full(len(measures), slant),
                         np.ones(len(measures))])
    return 1.0 / (1.0 + np.exp(-np.clip(x @ OCCUPANCY, -30, 30)))


def _shift(H0: np.ndarray, H6: np.ndarray) -> tuple[float, float]:
    """Where the top plane's centre appears on the board plane (mm)."""
    p = cv2.perspectiveTransform(np.zeros((1, 1, 2)), H6)
    u, v = cv2.perspectiveTransform(p, np.linalg.inv(H0))[0, 0]
    return float(u), float(v)


def _votes(top: np.ndarray, paper: np.ndarray, shift: tuple[float, float],
           pieces: np.ndarray | None = None) -> np.ndarray:
    """Per field given, the shares of its stone window's pixels (the top's square and the near
    side face, less the far band where a neighbour's side face shows at a slant) that
    look black, blue, red and orange: each pixel (every other row and column) balanced on
    the ``paper``'s white and named as ``_colours`` names a patch. ``top``: the fields'
    blocks on the top plane (n, FIELD_PX, FIELD_PX, 3). ``pieces``: the stones' measured
    colours (``piece_colours.measured``), which name those pixels instead
    (``piece_colours.stone_classes``)."""
    sub = top[:, ::2, ::2]
    n = sub.shape[1]
    balanced = np.clip(sub * (255.0 / np.maximum(paper.astype(np.float32), 1.0)), 0, 255)
    hsv = cv2.cvtColor(balanced.astype(np.uint8).reshape(-1, n, 3), cv2.COLOR_BGR2HSV)
    hue = hsv[..., 0].astype(np.float32) * 2.0  # degrees
    sat = hsv[..., 1] / 255.0
    v = hsv[..., 2] / 255.0
    hued = (sat >= SATURATED) & (v >= DARK / 2)
    classes = np.stack([~hued & (v < DARK), hued & (hue >= 180) & (hue < 260),
                        hued & ((hue < 15) | (hue >= 330)), hued & (hue >= 15) & (hue < 50)],
                       axis=2).astype(np.float32).reshape(len(top), n, n, 4)
    if pieces is not None:
        classes = piece_colours.stone_classes(sub, classes.any(axis=3), pieces)
    g = ((np.arange(FIELD_PX) + 0.5) / PX_PER_MM - FIELD_MM / 2)[::2]
    x, y = np.meshgrid(g, -g)
    sx, sy = shift
    d = float(np.hypot(sx, sy))
    far = (x * sx + y * sy) / max(d, 1e-6) > FIELD_MM / 2 - d - 1.0 if d > 1.0 \
        else np.zeros(x.shape, bool)
    window = (_swept(x, y, STONE_MM / 2, -sx, -sy) & (np.maximum(np.abs(x), np.abs(y))
                                                      <= FIELD_MM / 2 - 1.0) & ~far)
    return _means(classes, window)[:, 0]


def _fields(image: np.ndarray, grey: np.ndarray, H0: np.ndarray, H6: np.ndarray,
            pieces: np.ndarray | None = None) -> dict:
    """Per field (row-major): ``colour`` (None: none) and its ``confidence``, ``active``
    (the disc is light), ``measures`` and ``white`` (the occupancy model's probability);
    ``paper_L``: the board's paper (the fields' median look) in Lab L; ``shift`` (``_shift``).
    ``grey``: the image in grey levels (the board plane is only looked at in grey)."""
    top = _view(image, H6)
    top_bgr = _blocks(top)
    L6 = _blocks(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY)).astype(np.float32)
    L0 = _blocks(_view(grey, H0)).astype(np.float32)
    c = (np.arange(FIELD_PX) + 0.5) / PX_PER_MM - FIELD_MM / 2
    x, y = np.meshgrid(c, -c)
    r_sq, rr = np.maximum(np.abs(x), np.abs(y)), np.hypot(x, y)
    disc = (rr >= 3.0) & (rr <= 0.41 * STONE_MM - 1.5)
    centre = (r_sq <= 6.0) & (np.add.outer(np.arange(FIELD_PX), np.arange(FIELD_PX)) % 3 == 0)
    paper = np.median(top_bgr[:, centre].reshape(-1, 3), axis=0)
    paper_lab = cv2.cvtColor(paper.astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_BGR2Lab)
    paper_L = float(np.median(L6[:, centre]))
    shift = _shift(H0, H6)
    measures, spread = _measures(L0, L6, shift)
    votes = np.zeros((100, 4), np.float32)
    uneven = np.flatnonzero(spread >= EVEN)  # an even top shows no colour: not looked at
    if len(uneven):
        votes[uneven] = _votes(top_bgr[uneven], paper, shift, pieces)
    hue = votes[:, 1:].argmax(axis=1)
    share = votes[:, 1:].max(axis=1)
    hued = (share >= HUE_SHARE) & (spread >= EVEN)
    black = ~hued & (votes[:, 0] >= DARK_SHARE) & (spread >= UNEVEN)
    colours = [("blue", "red", "orange")[hue[i]] if hued[i] else "black" if black[i] else None
               for i in range(100)]
    conf = np.where(hued, 0.5 + (share - HUE_SHARE / 2) / 0.3,
                    0.5 + (votes[:, 0] - DARK_SHARE / 2) / 0.3)
    return {"colour": colours, "confidence": np.clip(conf, 0.5, 1.0),
            "active": _means(L6, disc)[:, 0] > 0.5 * paper_L, "dark": votes[:, 0],
            "paper_L": float(paper_lab[0, 0, 0]), "shift": shift,
            "measures": measures, "spread": spread,
            "white": white_probability(measures, shift)}


def _box_means(img: np.ndarray, half_w: int, half_h: int) -> np.ndarray:
    """Mean of ``img`` over the box of half sides ``half_w``, ``half_h`` px round each
    pixel."""
    return cv2.boxFilter(img, -1, (2 * half_w + 1, 2 * half_h + 1), normalize=True,
                         borderType=cv2.BORDER_REPLICATE)


def _shifted(img: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """``img`` read ``dy``, ``dx`` px away from each pixel (edges repeated)."""
    h, w = img.shape[:2]
    m = max(abs(dy), abs(dx))
    padded = cv2.copyMakeBorder(img, m, m, m, m, cv2.BORDER_REPLICATE)
    return padded[m + dy:m + dy + h, m + dx:m + dx + w]


def _ring_sides(img: np.ndarray, inner: int, outer: int) -> list[np.ndarray]:
    """Means of ``img`` over the four sides (north, south, west, east) of the square ring
    between half sides ``inner`` and ``outer`` round each pixel (corners left out)."""
    t = (outer - inner) // 2  # half thickness of a side
    mid = (inner + outer + 1) // 2
    across = _box_means(img, inner, t)  # a north or south side, centred on the pixel
    down = _box_means(img, t, inner)
    return [_shifted(across, -mid, 0), _shifted(across, mid, 0), _shifted(down, 0, -mid),
            _shifted(down, 0, mid)]


def _cards(image: np.ndarray, H_table: np.ndarray,
           paper_L: float) -> dict[str, tuple[str | None, float]]:
    """Per seat, (colour of the dependency card's disc or None, confidence). Near where
    a card lies before that seat (a view of the table ``CARD_MM_PX`` mm a pixel), each
    place is scored by how much the square inside the disc there (Lab) differs from a
    square ring of card round the disc (every disc is darker than the card), less the
    unevenness of the ring's four sides, plus their lightness against the table's; the
    best place is the card if its disc differs enough and the ring's sides are alike (a
    ring more than ``CARD_DARKER`` darker than the board's paper, ``paper_L`` in Lab L, is
    no card stock: a checked cloth's light squares round a dark one); its colour is the
    disc's, balanced on the ring (which cancels the light's colour). No card or no colour
    seen: None (null in the position: not known, which the rules read as no news of that
    card, never as a card taken away), and ``read`` counts no confidence for it: no card
    is on the table before the deal, and a card not seen misleads nobody, so it must not
    leave every observation of a game in doubt (the referee announces no violation in an
    observation it doubts)."""
    out = {}
    s = CARD_MM_PX
    frame = np.full(image.shape[:2], 255, np.uint8)
    # half sides: a square inside the disc, a ring of card round it (inside the card's 62 mm)
    inside, ring = round(12.0 / s), (round(24.0 / s), round(30.0 / s))
    along, across = 160.0, 70.0  # half extents of the search view (mm; cards lie up to
    # 3 sd = 105 mm along their side from the seat's middle, vision.render.scene)
    for seat, (dx, dy) in SEAT_DIRECTIONS.items():
        u0, v0 = dx * CARD_REACH_MM, dy * CARD_REACH_MM
        hu, hv = (across, along) if dx else (along, across)
        w, h = int(2 * hu / s), int(2 * hv / s)
        to_mm = np.array([[s, 0, u0 - hu + s / 2], [0, -s, v0 + hv - s / 2], [0, 0, 1]])
        crop = cv2.warpPerspective(image, H_table @ to_mm, (w, h),
                                   flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
        # what of the view lies in the frame: a card partly beyond the frame's edge is
        # judged on its sides in the frame (the edge repeated is no card)
        seen = cv2.warpPerspective(frame, H_table @ to_mm, (w, h),
                                   flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=0) > 0
        if not seen.any():
            out[seat] = (None, 0.0)
            continue
        lab = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab).astype(np.float32)
        if seen.all():
            disc_cover, covers = np.ones((h, w), np.float32), np.ones((4, h, w), np.float32)
            disc, sides = _box_means(lab, inside, inside), np.stack(_ring_sides(lab, *ring))
        else:  # means over what lies in the frame
            m = seen.astype(np.float32)
            disc_cover, covers = _box_means(m, inside, inside), np.stack(_ring_sides(m, *ring))
            disc = _box_means(lab * m[..., None], inside, inside) / np.maximum(
                disc_cover, 1e-3)[..., None]
            sides = np.stack(_ring_sides(lab * m[..., None], *ring)) / np.maximum(
                covers, 1e-3)[..., None]
        usable = covers >= MIN_SEEN
        n_usable = usable.sum(axis=0)
        rim = (sides * usable[..., None]).sum(axis=0) / np.maximum(n_usable, 1)[..., None]
        side_L = sides[..., 0]
        side_hi = np.where(usable, side_L, -np.inf).max(axis=0)
        side_lo = np.where(usable, side_L, np.inf).min(axis=0)
        contrast = np.linalg.norm(disc - rim, axis=2)
        table_L = float(np.median(lab[..., 0][seen]))
        # the card: all four sides of the ring (those in the frame) light and alike
        with np.errstate(invalid="ignore"):
            score = contrast - 2.0 * (side_hi - side_lo) + 0.5 * (side_lo - table_L)
        score[(disc[..., 0] > rim[..., 0] - 10.0) | (disc_cover < MIN_SEEN)
              | (n_usable < 2) | (rim[..., 0] < paper_L - CARD_DARKER)
              ] = -np.inf  # every disc is darker than card, which is about as light as paper
        cy, cx = divmod(int(np.argmax(score)), w)
        if not np.isfinite(score[cy, cx]) or contrast[cy, cx] < 25.0 or (
                side_hi[cy, cx] - side_lo[cy, cx]) > 40.0:
            out[seat] = (None, 0.0)
            continue
        bgr = crop.astype(np.float32)
        dy0, dx0 = max(cy - inside, 0), max(cx - inside, 0)
        disc_bgr = bgr[dy0:cy + inside + 1, dx0:cx + inside + 1][
            seen[dy0:cy + inside + 1, dx0:cx + inside + 1]]
        y0, y1 = max(cy - ring[1], 0), cy + ring[1] + 1
        x0, x1 = max(cx - ring[1], 0), cx + ring[1] + 1
        yy, xx = np.mgrid[y0:min(y1, h), x0:min(x1, w)]
        dy, dx = np.abs(yy - cy), np.abs(xx - cx)
        on_ring = (np.maximum(dy, dx) > ring[0]) & (np.minimum(dy, dx) <= ring[0]) & seen[
            y0:y1, x0:x1]
        colours, conf = _colours(np.median(disc_bgr, axis=0),
                                 np.median(bgr[y0:y1, x0:x1][on_ring], axis=0))
        out[seat] = (colours[0], float(conf[0]) if colours[0] is not None else 0.0)
    return out


def stone_crop(image: np.ndarray, H: np.ndarray, u: float, v: float) -> np.ndarray:
    """The crop ``models/stone.onnx`` reads here (``models/stone.md``): the square of side
    2 ``CROP_HALF_MM`` centred at (u, v) on the plane of ``H`` (the stones' tops),
    rectified, north up, ``CROP_PX`` px. Rectified, a stone far off at a slant keeps its
    digit's proportions (digits right 0.93 against 0.89 for a square cut axis-aligned in
    the image, on 358 dev stones)."""
    return square_crop(image, H, u, v, CROP_HALF_MM, CROP_PX)


def upright(crop: np.ndarray, turns: int) -> np.ndarray:
    """A north-up crop of a stone laid ``turns`` quarter turns counter-clockwise from
    upright (``rules.cubes_position.reading_turns`` of the seat it was laid to be read
    from), turned back so that its digit stands upright."""
    return np.ascontiguousarray(np.rot90(crop, -turns))


def _owner_turns(calibration, model, crops: list[np.ndarray], predictions: list,
                 used: list[int], turns: dict[str, int]) -> None:
    """Reads again, turned by their owner's seat (``turns``: the colours' letters ->
    ``reading_turns``), the stones (the first ``len(used)`` of ``crops`` and
    ``predictions``, each crop turned ``used[k]`` quarter turns: its classical colour's
    owner's, 0 where no colour was seen) that the model reads as a player's colour whose
    seat wants another turn; where the model reads that colour again, the turned crop and
    its reading replace the first ones (one run for all). A 4 read as a 2 on a stone laid
    for the east seat and seen without its colour (dev 169) then reads 4; black stones seen
    orange in a warm light (dev 1167, four of them) were read turned for orange's seat."""
    again = []
    for k, t in enumerate(used):
        letter = LETTERS.get(predictions[k]["kind"].label, "")
        if letter in turns and (turns[letter] - t) % 4:
            again.append((k, (turns[letter] - t) % 4))
    if not again:
        return
    turned = [upright(crops[k], t) for k, t in again]
    for (k, _), crop, p in zip(again, turned, predict(calibration, "stone", model, turned, 5),
                               strict=True):
        if p["kind"].label == predictions[k]["kind"].label:
            crops[k], predictions[k] = crop, p


def _best_turns(calibration, model, crops: list[np.ndarray], predictions: list) -> None:
    """Replaces in ``predictions`` (their first ones are of ``crops``, read on their
    owner's turn; more may follow) each coloured stone's whose digit is doubtful
    (``DIGIT_DOUBT``) by the reading of the quarter turn of its crop whose digit is
    likeliest, if that one is sure (``DIGIT_SURE``; one run for all)."""
    unsure = [k for k, p in enumerate(predictions[:len(crops)]) if p["kind"].label not in
              ("white", "empty") and p["digit"].probability < DIGIT_DOUBT]
    if not unsure:
        return
    again = predict(calibration, "stone", model,
                    [upright(crops[k], t) for k in unsure for t in (1, 2, 3)], 5)
    for j, k in enumerate(unsure):
        best = max(again[3 * j:3 * j + 3], key=lambda p: p["digit"].probability)
        if best["digit"].probability >= DIGIT_SURE:
            predictions[k] = best


def _one_of_each(predictions: list, count: int, labels: tuple[str, ...]) -> None:
    """Each colour has one stone of each digit (``rules.cubes_position``: a second token
    is no position): per colour the model read among the first ``count`` predictions,
    the digits (``labels``: the digit head's) of its stones are read jointly, replacing
    each stone's digit head in ``predictions`` by the probabilities of each digit summed
    over all assignments without a digit twice (weighed by the product of the stones'
    own), read as each stone's likeliest digit, or where two would read the same, as the
    likeliest assignment. A 6 read as a 5 beside a surer 5 then reads 6, and the sure 5
    stays; a colour read on more stones than it has is left as read."""
    groups: dict[str, list[int]] = {}
    for k, p in enumerate(predictions[:count]):
        if p["kind"].label not in ("white", "empty"):
            groups.setdefault(p["kind"].label, []).append(k)
    for group in groups.values():
        if not 2 <= len(group) <= len(labels):
            continue
        probs = np.array([[max(dict(predictions[k]["digit"].top).get(d, 0.0), DIGIT_FLOOR)
                           for d in labels] for k in group])
        assign = np.array(list(itertools.permutations(range(len(labels)), len(group))))
        weight = probs[np.arange(len(group)), assign].prod(axis=1)
        marginals = np.stack([np.bincount(assign[:, j], weight, len(labels))
                              for j in range(len(group))]) / weight.sum()
        best = marginals.argmax(axis=1)
        if len(set(best)) < len(group):
            best = assign[int(np.argmax(weight))]
        for j, k in enumerate(group):
            top = tuple((labels[d], float(marginals[j, d])) for d in np.argsort(-marginals[j]))
            predictions[k] = {**predictions[k], "digit": Prediction(
                labels[best[j]], float(marginals[j, best[j]]), top)}


def _players(cards: dict, colours: set[str], calibration: dict | None) -> list[dict]:
    """The players: the calibration's ``players`` where given, else the rules' default
    seating for the number of players the table shows (cards seen, the seats they lie
    at: a card at the east side means four, at the west three; the colours of the stones
    on the board and on the cards are all playing, and the rules deal the colours in the
    order blue, red, black, orange); each seat's dependency card."""
    from rules.cubes_position import COLOURS  # the rules deal the colours in this order
    from rules.registry import get_game

    seen = {seat: colour for seat, (colour, _) in cards.items() if colour is not None}
    given = (calibration or {}).get("players")
    if given:
        players = [dict(p) for p in given]
    else:
        shown = colours | set(seen.values())
        n = max(2, len(seen), len(shown), 1 + max((COLOURS.index(c) for c in shown),
                                                  default=0),
                4 if "east" in seen else 3 if "west" in seen else 2)
        n = min(n, 4)
        state = get_game("cubes").initial_state(n_players=n)
        players = [{"colour": p["colour"], "seat": p["seat"]}
                   for p in state.position.to_json()["players"]]
    for p in players:
        p["dependency"] = seen.get(p["seat"])
    return players


def _other_players(players: list[dict], again: list[dict], read: set[str]) -> bool:
    """Whether the players ``again`` (``_players`` of the stones' colours the model read,
    ``read``) are other players than ``players`` (of the colours the classical look saw):
    a black stone seen orange in a warm light (dev 340) made orange a player who is not
    there, whose count of white stones (``_whites_in_play``) then gave up right ones;
    without the model (``read`` empty) or with the calibration's players nothing
    changes."""
    return bool(read) and [(p["colour"], p["seat"]) for p in again] != [
        (p["colour"], p["seat"]) for p in players]


def _same_seats(players: list[dict], again: list[dict], read: set[str]) -> bool:
    """Whether the players ``again`` seat every colour of ``read`` where ``players`` did,
    so that the stones were read turned for their seats (``upright``) either way; else
    ``read`` reads them again. Dev 2953, 2964 (two players, blue south and red north):
    an empty field seen black made black a third player, seated north, and red moved
    west; the red stones read a quarter turn off (R2 -> R3, R6 -> R5) and the count of
    white stones for three gave up two right ones."""
    seats = {p["colour"]: p["seat"] for p in players}
    return all(seats.get(p["colour"]) == p["seat"] for p in again if p["colour"] in read)


def _one_card_per_colour(cards: dict) -> dict:
    """``cards`` (seat -> (colour or None, confidence)) with each colour at one seat only:
    there is one dependency card of each colour, so of two seats showing one colour the
    surer keeps it, on a tie the seat fewer players take (south and north, then west,
    then east: ``rules.cubes_state.DEFAULT_SEATS``), and the other is no card seen. A
    cloth or a table read as a card at an empty seat makes a player who is not there
    (dev 1000..1399: 1028, 1137, 1177, 1213 read with one or two players too many)."""
    from rules.cubes_state import DEFAULT_SEATS

    order = dict.fromkeys(s for n in sorted(DEFAULT_SEATS) for s in DEFAULT_SEATS[n])
    out, holder = dict(cards), {}
    for seat in order:
        colour, conf = cards[seat]
        if colour is None:
            continue
        other = holder.get(colour)
        if other is None or conf > cards[other][1]:
            if other is not None:
                out[other] = (None, 0.0)
            holder[colour] = seat
        else:
            out[seat] = (None, 0.0)
    return out


def _last_card(players: list[dict], cards: dict) -> dict:
    """``cards`` with the one card of ``players`` not seen (its dependency None) named
    where all the others were: there is one dependency card per playing colour and every
    player holds one (dealt so, and the change cards only pass or swap them), so it is the
    playing colour no other card shows, at the confidence of the least sure card seen (it
    is right where they are). Dev renders 100..299: the three cards not read (beyond the
    frame's edge, 160, 254, 260) are all named right so. ``players``' entry is set too."""
    missing = [p for p in players if p["dependency"] is None]
    shown = [p["dependency"] for p in players if p["dependency"] is not None]
    left = {p["colour"] for p in players} - set(shown)
    if len(missing) != 1 or len(left) != 1 or len(set(shown)) != len(shown):
        return cards
    seat, colour = missing[0]["seat"], left.pop()
    missing[0]["dependency"] = colour
    return {**cards, seat: (colour, min(cards[p["seat"]][1] for p in players
                                        if p is not missing[0]))}


def _whites_in_play(grid: list[list], p_white: dict[int, float], n_players: int,
                    likely: dict[int, float] | None = None) -> dict[int, bool]:
    """The colourless fields (``p_white``: field -> white-or-empty probability, their
    tokens not yet in ``grid``) to read white (True) or empty (False) at 0.5, in doubt,
    the other their alternative, where the game is in play and the count of white stones
    read is not the rules': a player's stone lies on the board (``grid``: the stones
    read), so the setup is over and ``rules.cubes_position.WHITES`` white stones lie there
    for ``n_players`` (none is ever taken away, a shift only moves one); the likeliest
    fields read empty make up too few, the least likely read white give up too many.
    Dev 1000..1399 (true corners), too few alone: white stones missed 24 -> 2 (1187: 9
    missed on a lamp-lit board seen at 58 degrees, the side faces as light as the tops),
    2 empty fields read white instead, exact 386 -> 390 of 400, wrong and not in doubt 16
    -> 5. Too many too (a player seen who is not there lowers the count and takes right
    white stones away, in doubt; ``_one_card_per_colour`` keeps most such cards out): dev
    0..999, true corners, overhead boards in a dim light whose lighter checks read white
    (667: 6, 477: 4). ``likely``: the probabilities (``p_white``'s fields) that order the
    fields, where ``p_white`` holds capped ones (``SECOND_CAP``): two doubted fields both
    capped at 0.97, an empty one the stone model read white and a white stone that test
    and model both read sure, gave up the first in the field's order (dev 1993).
    """
    likely = p_white if likely is None else likely
    gap = _white_gap(grid, p_white, n_players)
    if gap >= 0:
        empty = sorted((i for i, p in p_white.items() if p < 0.5), key=lambda i: -likely[i])
        return dict.fromkeys(empty[:gap], True)
    white = sorted((i for i, p in p_white.items() if p >= 0.5), key=lambda i: likely[i])
    return dict.fromkeys(white[:-gap], False)


def _white_gap(grid: list[list], p_white: dict[int, float], n_players: int) -> int:
    """How many white stones the rules' count for ``n_players`` wants more than are read
    (``grid``'s, and ``p_white``'s at 0.5 or more; under 0: too many); 0 where no player's
    stone lies on the board (the setup may go on: any count)."""
    if not any(t not in (None, ".", "W") for row in grid for t in row):
        return 0
    read = sum(t == "W" for row in grid for t in row) + sum(p >= 0.5 for p in p_white.values())
    return WHITES[n_players] - read


def _line_offsets(grey: np.ndarray, H0: np.ndarray) -> np.ndarray:
    """Where the board's printed lines show against where the fix ``H0`` (board mm -> px)
    puts them: rows (u, v, axis, offset mm, depth) of the line pieces found, one per line
    and band (axis 0: a north-south line at u, its offset east; 1: an east-west line at v,
    its offset north)."""
    s = 1.0 / PX_PER_MM
    side = int(round(LINE_SIDE_MM * PX_PER_MM))
    reach = int(round(REFINE_REACH_MM * PX_PER_MM))
    c = 5 * FIELD_PX + reach + side + 2  # the centre's pixel: every line on a pixel's centre
    n = 2 * c + 1
    to_mm = np.array([[s, 0, -c * s], [0, -s, c * s], [0, 0, 1]])
    view = cv2.warpPerspective(grey, H0 @ to_mm, (n, n),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    mm = (np.arange(n) - c) * s  # a column's u, a row's -v
    # the fields that show plain paper (no stone, no side face, no shadow): a line is
    # sought between two of them only (a stone's dark side face is a line too)
    inner = int(round(3.0 * PX_PER_MM))
    blocks = view[c - 5 * FIELD_PX:c + 5 * FIELD_PX, c - 5 * FIELD_PX:c + 5 * FIELD_PX]
    blocks = blocks.reshape(10, FIELD_PX, 10, FIELD_PX).swapaxes(1, 2)[
        :, :, inner:-inner, inner:-inner]
    ref = max(float(np.percentile(blocks[:, :, ::3, ::3], 75)), 1.0)
    plain = np.pad(blocks.std(axis=(2, 3)) / ref < PLAIN, 1, constant_values=True)
    centres = (np.arange(10) - 4.5) * FIELD_MM
    steps = np.arange(-reach - 1, reach + 2)
    rows = []
    for axis, img, sign in ((0, view, 1.0), (1, view.T, -1.0)):
        # per band (its centre: v for axis 0, u for axis 1), the profile across the lines
        bands = np.stack([img[np.abs(mm + sign * b) <= LINE_BAND_MM].mean(axis=0)
                          for b in centres])
        idx = c + FIELD_PX * np.arange(-5, 6)[:, None] * int(sign) + steps  # (11, window)
        p = bands[:, idx]  # (10 bands, 11 lines, window)
        depth = (np.minimum(bands[:, idx - side], bands[:, idx + side]) - p) / ref
        j = np.argmax(depth[..., 1:-1], axis=2) + 1
        d0, d1, d2 = (np.take_along_axis(depth, (j + o)[..., None], 2)[..., 0]
                      for o in (-1, 0, 1))
        curv = np.minimum(d0 - 2 * d1 + d2, -1e-6)
        sub = np.clip(0.5 * (d0 - d2) / curv, -0.5, 0.5)
        off = sign * (steps[j] + sub) * s
        b_, k_ = np.meshgrid(np.arange(10), np.arange(11), indexing="ij")
        if axis == 0:  # band b: row 9 - b; line k between columns k - 1 and k
            clear = plain[10 - b_, k_] & plain[10 - b_, k_ + 1]
        else:  # band b: column b; line k between rows 9 - k and 10 - k
            clear = plain[10 - k_, b_ + 1] & plain[11 - k_, b_ + 1]
        # the board's outer lines: their darkest place beyond them may be the board's
        # printed border (where the fix takes the board several mm too large), not the line
        clear &= ~(((k_ == 0) & (off < -OUTWARD_MM)) | ((k_ == 10) & (off > OUTWARD_MM)))
        for b, k in zip(*np.nonzero(clear & (d1 >= LINE_DEPTH)), strict=True):
            line = (k - 5.0) * FIELD_MM
            u, v = (line, centres[b]) if axis == 0 else (centres[b], line)
            rows.append((u, v, axis, off[b, k], d1[b, k]))
    return np.array(rows, np.float64).reshape(-1, 5)


def _grid_shift(found: np.ndarray) -> np.ndarray | None:
    """The fix's error from the line pieces ``found`` (``_line_offsets``): the parameters of
    a homography's small change (shift, linear part, perspective; ``_displaced``) fitted to
    their offsets by least squares, robustly (Cauchy weights, scale ``REFINE_SCALE_MM``);
    None where too few pieces were found either way."""
    if min((found[:, 2] == a).sum() for a in (0, 1)) < MIN_LINES:
        return None
    x, y = found[:, 0] / 150.0, found[:, 1] / 150.0
    one, zero, east = np.ones(len(found)), np.zeros(len(found)), found[:, 2] == 0
    A = np.where(east[:, None],
                 np.column_stack([one, x, y, zero, zero, zero, -x * x, -x * y]),
                 np.column_stack([zero, zero, zero, one, x, y, -x * y, -y * y]))
    return robust_lstsq(A, found[:, 3], REFINE_SCALE_MM)


def _displaced(params: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Where the fix puts the board points ``uv`` (mm, (n, 2)) off where they show (mm):
    du = a0 + a1 x + a2 y - x (g x + h y), dv = b0 + b1 x + b2 y - y (g x + h y), x and y
    the point's u and v over 150 mm (a homography's first-order change)."""
    a0, a1, a2, b0, b1, b2, g, h = params
    x, y = uv[:, 0] / 150.0, uv[:, 1] / 150.0
    return np.column_stack([a0 + a1 * x + a2 * y - x * (g * x + h * y),
                            b0 + b1 * x + b2 * y - y * (g * x + h * y)])


def _agreement(found: np.ndarray) -> float:
    """How well a fix agrees with the line pieces ``found`` where it puts them: the sum of
    their Cauchy weights (1 for a piece where the fix puts its line, 1/2 at
    ``REFINE_SCALE_MM`` off)."""
    return float((1.0 / (1.0 + (found[:, 3] / REFINE_SCALE_MM) ** 2)).sum())


def _moved(fix: BoardFix, found: np.ndarray, geom: Geometry) -> BoardFix | None:
    """``fix`` moved by the fit to the line pieces ``found`` on it (``_grid_shift``); None
    where too few were found, where it puts no field's centre ``REFINE_MIN_MM`` off them or
    moves a corner over ``MAX_REFINE_MM``."""
    params = _grid_shift(found)
    if params is None:
        return None
    centres = np.array([(u, v) for _, u, v, _ in geom.cells])
    shift = _displaced(params, geom.corners_mm())
    if (np.abs(_displaced(params, centres)).max() < REFINE_MIN_MM
            or np.abs(shift).max() > MAX_REFINE_MM):
        return None
    return shifted(fix, geom, shift)


def refine(grey: np.ndarray, fix: BoardFix, geom: Geometry) -> BoardFix:
    """``fix`` moved to where the board's printed lines show (``_line_offsets``,
    ``_moved``): a found board's corners a few px off (or a tracked one's after a nudge)
    leave white stones' tops and the model's crops off their fields. A moved fix is taken
    only where the lines agree with it better (``_agreement``: by ``REFINE_GAIN`` at
    least), then moved again once the same way; ``fix`` itself where it agrees with the
    lines (most frames: one view and its profiles, about 2.5 ms) or too few show."""
    found = _line_offsets(grey, homography(fix, geom))
    for _ in range(REFINE_PASSES):
        moved = _moved(fix, found, geom)
        if moved is None:
            break
        again = _line_offsets(grey, homography(moved, geom))
        if _agreement(again) < REFINE_GAIN * _agreement(found):
            break
        fix, found = moved, again
    return fix


def planes(image: np.ndarray, fix: BoardFix, geom: Geometry, calibration: dict | None):
    """Homographies (board mm -> image px) of the board's top, the stones' tops and the
    table: the board's exactly through its four corners (``vision.board.homography``),
    the others that one moved by the parallax the board's pose gives (the pose's own
    planes are a few millimetres off inside the board when the corners are a pixel off,
    near overhead views most)."""
    K = dist = None
    if calibration is not None:
        K, dist = calibration.get("K"), calibration.get("dist")
    pose = board_pose(fix, geom, (image.shape[1], image.shape[0]), K, dist)
    H0 = homography(fix, geom)
    correct = H0 @ np.linalg.inv(pose.plane_homography(0.0))
    return (H0, correct @ pose.plane_homography(STONE_TOP_MM),
            correct @ pose.plane_homography(-geom.thickness))


def _white_or_empty(kind, white: float, from_above: bool) -> float | None:
    """The probability of a white stone on a field without a colour, from the classical
    test's (``white``) and the stone model's kind head together: their log odds added, the
    model's (white against empty) weighed by ``MODEL_WEIGHT``, and ``FROM_ABOVE`` where
    the camera looks ``from_above``; None where the model sees neither white nor empty
    (``SEEN``: the classical test stands). Not capped: the reading caps it at
    ``SECOND_CAP`` either way, the count of white stones orders the fields by it."""
    top = dict(kind.top)
    w, e = top.get("white", 0.0), top.get("empty", 0.0)
    if w + e < SEEN:
        return None
    p_model = float(np.clip(w / (w + e), 1e-4, 1 - 1e-4))
    p_test = float(np.clip(white, 1e-6, 1 - 1e-6))
    z = np.log(p_test / (1 - p_test)) + MODEL_WEIGHT * np.log(p_model / (1 - p_model)) + (
        FROM_ABOVE if from_above else 0.0)
    return float(1 / (1 + np.exp(-z)))


def _stone_predictions(image: np.ndarray, H6: np.ndarray, geom: Geometry, calibration,
                       model, fields: dict, fields_read: list[int], n_stones: int,
                       players: list[dict]) -> list:
    """The stone model's readings of ``fields_read`` (its first ``n_stones`` the fields
    read as stones, the rest the doubted white-or-empty ones), each stone's crop turned
    for the seat of its colour's player in ``players`` (``upright``, ``_owner_turns``,
    ``_best_turns``), the digits of each colour read jointly (``_one_of_each``)."""
    turns = {LETTERS[p["colour"]]: reading_turns(p["seat"]) for p in players}
    crops = [stone_crop(image, H6, geom.cells[i][1], geom.cells[i][2]) for i in fields_read]
    used = [0] * n_stones  # the quarter turns each stone's crop is read at
    for k, i in enumerate(fields_read[:n_stones]):
        colour = fields["colour"][i]
        if colour is not None and LETTERS[colour] in turns:
            used[k] = turns[LETTERS[colour]]
            crops[k] = upright(crops[k], used[k])
    predictions = predict(calibration, "stone", model, crops, 5)
    _owner_turns(calibration, model, crops, predictions, used, turns)
    _best_turns(calibration, model, crops[:n_stones], predictions)
    _one_of_each(predictions, n_stones, model.heads["digit"])
    return predictions


def read(image: np.ndarray, fix: BoardFix, geom: Geometry,
         calibration: dict | None = None) -> Reading:
    """The position of a Cubes board in ``image``."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    fix = refine(grey, fix, geom)
    H0, H6, H_table = planes(image, fix, geom, calibration)
    fields = _fields(image, grey, H0, H6, piece_colours.measured(calibration, "cubes"))
    seen_cards = _one_card_per_colour(_cards(image, H_table, fields["paper_L"]))
    grid = [["."] * 10 for _ in range(10)]
    colours = {c for c in fields["colour"] if c is not None}
    players = _players(seen_cards, colours, calibration)
    cards = _last_card(players, seen_cards)
    reading = Reading({"grid": grid, "players": players})
    white, spread = fields["white"], fields["spread"]
    model = shared("stone")
    # the model reads the fields with a colour, and those whose top is uneven and that
    # look like a white stone or show some black (a stone whose colour was not seen)
    stones = [i for i, c in enumerate(fields["colour"])
              if c is not None or (model is not None and spread[i] >= ASK_SPREAD and (
                  white[i] >= 0.5 or fields["dark"][i] >= DARK_SHARE / 2))]
    plain = sorted(set(range(100)) - set(stones))
    # fields the white-or-empty test doubts, asked of the model too (where it knows empty)
    knows_empty = model is not None and "empty" in model.heads["kind"]
    doubted = [i for i in plain if DOUBT[0] <= white[i] < DOUBT[1]] if knows_empty else []
    predictions = None
    if model is not None and stones + doubted:  # one run for all of the frame's crops
        predictions = _stone_predictions(image, H6, geom, calibration, model, fields,
                                         stones + doubted, len(stones), players)
        read = {p["kind"].label for p in predictions[:len(stones)]} - {"white", "empty"}
        again = _players(seen_cards, read, calibration)
        if _other_players(players, again, read):
            if not _same_seats(players, again, read):  # read again turned for the seats
                predictions = _stone_predictions(image, H6, geom, calibration, model, fields,
                                                 stones + doubted, len(stones), again)
            players, cards = again, _last_card(again, seen_cards)
            reading.position["players"] = players
    from_above = float(np.hypot(*fields["shift"])) < SLANTED_MM
    second = {i: _white_or_empty(predictions[len(stones) + k]["kind"], float(white[i]),
                                 from_above)
              for k, i in enumerate(doubted)}
    # the fields' white-or-empty probabilities as read (the doubted ones capped), and as
    # the count of white stones orders them (not capped: capped ones tie)
    likely = {i: second[i] if second.get(i) is not None else float(white[i]) for i in plain}
    p_white = {i: float(np.clip(p, 1 - SECOND_CAP, SECOND_CAP))
               if second.get(i) is not None else p
               for i, p in likely.items()}
    for k, i in enumerate(stones):
        r, c = divmod(i, 10)
        path = f"grid.{r}.{c}"
        colour = fields["colour"][i]
        letter = None if colour is None else LETTERS[colour]
        if letter is not None and not fields["active"][i]:
            letter = letter.lower()
        if predictions is None:
            grid[r][c] = None
            reading.add(0.0, path, 0.9, [[letter + d, 0.2] for d in "23456"])
            continue
        token, conf = stone_token(predictions[k])
        digits = predictions[k]["digit"].top
        if token == "W" and white[i] < 0.5:  # no colour, and not a white stone: empty
            reading.add(1 - float(white[i]), path, 0.9, [["W", round(float(white[i]), 4)]])
            continue
        if token == ".":  # the model sees no stone (a colour seen was a neighbour's side)
            alts = [[letter + digits[0][0], 0.5]] if letter else [
                ["W", round(float(white[i]), 4)]]
            reading.add(min(conf, 0.5) if letter else conf, path, 0.9, alts)
            continue
        if token == "W" and letter is None:  # a white stone: read with the count (below)
            p_white[i] = likely[i] = min(conf, float(white[i]))
            continue
        if token == "W":
            alts = [[".", round(1 - float(white[i]), 4)]]
            conf = min(conf, float(white[i]))
        else:  # the other digits of the colour and side read, most likely first
            alts = [[token[0] + d, round(p, 4)] for d, p in digits if token[0] + d != token][:3]
        if letter is None and token != "W":  # a colour only the model saw: not sure
            alts.append([".", round(1 - float(white[i]), 4) if white[i] >= 0.5 else 0.2])
            conf = min(conf, UNSEEN_COLOUR)
        if letter is not None and token[0] != letter:  # the classical colour / side differ
            alts.insert(0, [letter + (token[1] if token != "W" else digits[0][0]), 0.5])
            conf = min(conf, 0.5)
        grid[r][c] = token
        reading.add(min(conf, float(fields["confidence"][i])) if letter else conf, path, 0.9,
                    alts)
    # the count of white stones in play, where the players are known (the calibration's,
    # or every listed player's card read)
    counted = bool((calibration or {}).get("players")) or all(p["dependency"] for p in players)
    gap = _white_gap(grid, p_white, len(players)) if counted and knows_empty else 0
    ask = [i for i in plain if i not in second and (p_white[i] < 0.5) == (gap > 0)] if (
        gap) else []
    if ask:  # too few white stones: the empty fields the count chooses among that the
        # model has not read (the test surer than DOUBT) are read now (one more run), so
        # that they are ordered by test and model together; too many: the white ones
        # (dev 10067: two empty fields read white at 0.9995 and 0.99995 by the test alone
        # outranked two white stones at 0.983 and 0.996, which the count gave up)
        crops = [stone_crop(image, H6, geom.cells[i][1], geom.cells[i][2]) for i in ask]
        for i, p in zip(ask, predict(calibration, "stone", model, crops, 5), strict=True):
            both = _white_or_empty(p["kind"], float(white[i]), from_above)
            if both is not None:
                likely[i] = both
    made = _whites_in_play(grid, p_white, len(players), likely) if counted else {}
    for i, p in sorted(p_white.items()):
        r, c = divmod(i, 10)
        if i in made:  # the count of white stones in play: in doubt either way
            grid[r][c] = "W" if made[i] else "."
            reading.add(0.5, f"grid.{r}.{c}", 0.9, [["." if made[i] else "W", 0.5]])
        elif p >= 0.5:
            grid[r][c] = "W"
            reading.add(p, f"grid.{r}.{c}", 0.9, [[".", round(1 - p, 4)]])
        else:
            reading.add(1 - p, f"grid.{r}.{c}", 0.9, [["W", round(p, 4)]])
    for i, p in enumerate(reading.position["players"]):
        colour, conf = cards[p["seat"]]
        if colour is not None:  # a card not seen is null, a reading of nothing (see _cards)
            reading.add(conf, f"players.{i}.dependency", 0.9)
    return reading
