"""The e-SOLO-e family's reader (esoloe, esoloe-tictactoe, esoloe-3andc): per field,

- occupancy: the probability that the field's centre, rectified on the board plane, shows
  a cube, from how it compares with the board top's own look on the margin outside the
  fields (``_occupied``: a cube's wood is darker, more saturated and of another colour
  than glaze; a cube's shadow on the glaze only darker); on 3andC a field of two dots or
  more read unsure is empty where its dots show (``_dots_shown``: a cube covers them);
- the stack's height (``vision.stack_height``): the regions each further cube would cover
  in the image, seen as wood or as what lies behind, as probabilities of 1..4 cubes (the
  prior where no level is seen: a field right below an overhead camera);
- each cube's colour (player): natural wood or green stain, by the symbol model's colour
  head over every face seen of it, plus for the top cube the green-red axis of Lab on its
  top face (cut on the plane of the stack's top); without the model, Lab alone (3andC
  too reads the colour head, though not the symbols: its top players wrong 14 -> 9 of 420
  on held-out dev renders, seeds 300..399, any camera, true corners);
- the faces (not in 3andC, whose cubes carry no symbols): every face the camera sees whole
  (the top cube's up face; the side faces turned to the camera and not hidden by another
  stack) is cut from its own plane (``vision.cube_geometry``: the face's corners through the
  board's pose, ordered as the training crops are) and all crops of the frame are read by
  ONE run of ``models/symbol.onnx`` (symbol and rotation heads). The readings weigh the
  cube set's 24 orientations (option ``cube-set``, ``rules.cube``); a face is given where
  the orientations that fit hold ``FACE_DECIDE`` of the weight, else null: one up face and
  its rotation can fix a whole cube, a blank face fixes little (never a guess).

What is not known stays null; an element read with less than 0.9 confidence (a field's
stack, a player, a face) is listed in ``uncertain``; so is a field whose centre another
stack hides from the camera. A field's entry names the field's next most likely stacks as
alternatives (``_stack_readings``: empty, a cube lower, a cube taller), so that the
referee can take the one reading that makes a legal move; they are named down to
``ALTERNATIVE_MIN`` (0.01), so that with the reading's they hold the field's whole belief
(as far as ``MAX_ALTERNATIVES`` allows) and the referee can also weigh a violation on
them (docs/observation-extensions.md). A cube whose colour no face shows (a lower cube
seen from straight above) gets player 0 with confidence 0.5 and the other as alternative.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import cache

import cv2
import numpy as np

from rules.cube import BLANK
from vision import cube_geometry as cg
from vision import piece_colours
from vision.board import (
    BoardFix,
    Geometry,
    homography,
    material_score,
    three_and_c_blue,
    three_and_c_dots,
)
from vision.classifier import shared
from vision.grid import board_pose, rectify, square_crop
from vision.observe import predict
from vision.reading import Reading
from vision.stack_height import (
    BLUE_MIN_LIGHT,
    CUBE_DISTANCE,
    FLAT_PRIOR,
    MAX_LEVELS,
    PRIOR,
    at_most_one_full,
    background_models,
    bluer_than_glaze,
    measure_heights,
    project,
    stacks_mask,
    weigh_by_model,
)

CUBE_MM = cg.CUBE_MM  # vision.render.pieces.CUBE_MM, the publisher's size
# a field holds a cube with probability sigmoid(w0 + w1 ratio + w2 log(1 + chroma) + w3 L):
# ratio the field's material score over the margin's (a cube's wood is darker and more
# saturated than glaze), chroma the Lab (a, b) distance from the margin's glaze and L its
# lightness over the glaze's (a cube's shadow on the glaze darkens it a little and keeps
# its colour; a cube in shade is much darker); fitted on dev renders (seeds 200..239,
# esoloe and 3andC, overhead and oblique, 1120 fields: 95.3 % right against the old score
# threshold's 94.0 %, from above 96.8 % against 95.5 %; of the fields given 0.97 or more,
# 98.9 % right; obliquely a field behind a stack is judged on what is seen past it)
OCCUPANCY_WEIGHTS = (0.54, -2.77, 2.27, -4.91)
BLUE_FIELD_HUE = 85  # on 3andC's blue fields a pixel of hue 85..95 is blue glaze (besides
#   ``stack_height.bluer_than_glaze``'s; OpenCV's 0..180; cyan: the blue
#   glaze overexposed, Lab a far below the glaze's, b not); a cube's median hue is at most
#   63 (dev 100..199, 135 cubes on blue fields). Dev as above: 10 / 12 -> 10 / 7 (80: the
#   same), misses unchanged
GREEN_BELOW_A = -1.5  # Lab a of a cube top minus the glaze's (OpenCV units)
DOT_RADIUS_MM = 2.0  # 3andC's points: black dots this big, on a field's NW-SE diagonal,
DOT_SPACING_MM = 7.0  # ... this far apart (one on the centre; as vision.render.scene draws)
DOTS_SEEN = 0.75  # a 3andC field of two or more dots whose occupancy is unsure is empty where
#   each of its dots shows: its disc (1.4 mm) darker than the ring round it (2.8..4 mm) by
#   this share of the ring's lightness, at the best place within DOT_SEARCH_MM (a cube
#   covers them; a pale cube in a warm light or a shadow on the glaze does not show them).
#   Dev renders, 3andC, any camera, true corners, seeds 0..399, fields of two dots: 515 of
#   866 empty ones show them so, 3 of 734 occupied ones (a print's dark marks); of one dot
#   440 of 817 and 68 of 783, so a lone dot decides nothing (dev 212: a natural cube's print
#   over it). Seeds 0..199, fields with dots whose centre read under 0.9 (149): at 0.75 28
#   shown, all empty (0.6: 40, 7 occupied; 0.7: 32, 1); the same with each corner 2 px off
DOTS_MIN = 2  # ... (the fields of fewer dots are left as read)
DOT_SEARCH_MM = 1.5  # ... (the board found a little off)
DOTS_SURE = 0.85  # ... at this (listed: the cube its alternative)
PLAYER_DISPUTED = 0.85  # a top cube's player where the colour head and its top's Lab
#   disagree (listed): dev renders, the three games, any camera, true corners, seeds
#   100..299, top cubes at their height: 138 of 2070 disagree, the sum wrong on 18, 5 of
#   them at 0.9 or more (green cubes of 247 and 253 in their light); 68 right ones listed
HEAD_WEIGHT = 0.75  # ... whose colour head's log-odds count this much beside its top's Lab:
#   on the 3x3 games' top cubes the head (summed over the faces seen) was wrong 3..6 times as
#   often as Lab and outweighed it. Dev renders, any camera, true corners, top cubes at their
#   height, players wrong, 1 / 0.75 / 0.5: tic-tac-toe and 3andC 0..199 14 / 10 / 10,
#   tic-tac-toe 200..499 9 / 10 / 9, 3andC 200..499 18 / 12 / 10, esoloe 0..149 3 / 3 / 4
DIRECTIONS = ("up", "down", "north", "south", "east", "west")
FACE_PX_PER_MM = 4.0  # the rectified top-plane view in which a cube's top face is sought
FACE_CROP = 32  # models/symbol.onnx's input size
FACE_CONFIDENT = 0.9  # a face (or player) reading under this is listed in ``uncertain``
FACE_DECIDE = 0.9  # a face is given when orientations holding this much weight agree
UP_DECIDE = 0.8  # ... but the top cube's up face from this much, listed with the other
#   symbols as its alternatives below FACE_CONFIDENT (dev renders, true corners, any camera,
#   seeds 100..299, top cubes at their height whose up face 0.9 left null: esoloe 22 of 36
#   at 0.8 or more, all right (0.7: 29, all right); tic-tac-toe 35 of 45, all right (0.7:
#   38, 1 wrong at 0.80); the slow sweep's renders (overhead and oblique, 100..129): 0.8
#   gives 24, 1 wrong at 0.84, 0.7 30 with 4 wrong)
LABEL_FLOOR = 0.01  # the symbol head's probabilities are mixed with this much of uniform
ROTATION_FLOOR = 0.005  # ... the rotation head's with this much (0.02 -> 0.005: dev renders,
#   true corners, seeds 100..199 / 200..299, cubes resolved whole: tic-tac-toe overhead
#   184 -> 205 of 336 / -, any camera 220 -> 232 of 337 / 182 -> 194 of 307, esoloe any
#   207 -> 219 of 509 / 239 -> 254 of 544; faces given wrong 0 / 1 / 1 -> the same)
STEEP_DEG = 15.0  # a field seen within this of straight down: its top face is the blob
MAX_YAW_DEG = 24.0  # a top face is sought turned this much at most (cubes sit square)
MAX_OFFSET_MM = 2.5  # ... and this far off its field's centre
PLAY_MM = 1.75  # a cube stands at most 1.5 mm off its field's centre (plus the pose's error)
PAINT_BAND_MM = 1.0  # a field's painted outline lies this near its square
UP_FLOOR = 0.04  # the up face, the surest of several cuts, is discounted: its probability
#   mixed with this much of uniform (alone, 0.93 -> 0.9: on dev renders, seeds 100..199,
#   any camera, true corners, esoloe and tic-tac-toe stacks read at their height, the surest
#   cut's reading was right 21 of 23 times at 0.90..0.93, 26 of 27 at 0.93..0.95, 521 of
#   523 above; 0.07, i.e. 0.95, left 123 up faces null where this leaves 87)
DISPUTED = 0.01  # a top cube's faces are not read where the stack's levels, seen, give the
#   height the symbol probes chose less than this (``_probe_heights``), and its box hides
#   other faces as tall as the levels say: on a board found some px off the planes above
#   it are more off, and the probes' surest symbol was a side face's or the table's, read
#   as the up face at 0.98. Dev renders 100..299, esoloe, the true corners with two moved
#   10..20 px: faces given wrong 50 -> 44 (0.05: the same, with 3 more up faces left null
#   on the true corners); true corners 2 -> 2, up faces null 49 -> 50. Not where the
#   height model (``Height.model``) finds that height likelier than the levels' one: the
#   levels alone read wrong there (dev renders, esoloe, oblique, true corners, python -m
#   vision.measure --games esoloe --camera oblique --n 100 --start S --full --truth-board
#   --kinds: all 16 disputed stacks of S 0 were at their height; up null 27 -> 13, exact
#   79 -> 84 %; S 100 29 -> 22, 77 -> 81 %; faces wrong 1 -> 1, 0 -> 0; tests' dev 153
#   on corners 10..20 px off: the model sides with the levels, still not read)
HIDDEN_CONFIDENCE = 0.5  # occupancy of a field another stack hides from the camera
HIDDEN_SURE = 0.85  # ... at most, where only its top face is seen (``_behind``)
PAST_EMPTY = 0.8  # ... or where this share of its top face's points whose line of sight,
PAST_MIN = 8  # ... past an empty field, lands on the glaze or the table (at least this many
#   such points) looks like them. Dev renders, any camera, true corners, seeds 0..249,
#   fields read wrong, tic-tac-toe / 3andC: 34 / 39 -> 31 / 31 (0.7: 33 / 34, 0.9: 33 / 36);
#   the share of all its points that looked like the table (0.85, before) adds nothing to it
HIDDEN_SYMBOL = 0.9  # ... and in tic-tac-toe, whose cubes stand one high, symbol up, the field
#   holds a cube where the symbol model reads a symbol (not blank) this surely on the up face
#   of one cube cut there (``_top_symbols``), else it is empty: a cube's top shows above the
#   stack in front; where no cube is there the cut shows that stack's side face or what
#   lies behind. Dev renders, tic-tac-toe, any camera, true corners, seeds 0..499, fields
#   of which no footprint point is seen and which the colours left undecided (109): a
#   cube's top read 0.83..0.998, empty fields 0.01..0.99; 0.9 decides 19 of the fields
#   read wrong right and 2 right ones wrong (0.85: 17 / 1, 0.92: 20 / 3)
SYMBOL_EVEN = 0.95  # in tic-tac-toe a field whose occupancy is unsure (under FACE_CONFIDENT)
#   is weighed by the symbol on a one-cube up face cut on it (``_top_symbols``): its
#   log-odds over this one's are added to the occupancy's (a cube's top reads a symbol at
#   0.95..0.999, an empty field's cut mostly under 0.9: the glaze, a shadow, the painted
#   outline). Dev renders, tic-tac-toe, any camera, true corners, seeds 0..249 / 250..499,
#   such fields read wrong made right / right made wrong: 13 / 2, 14 / 1 (0.93: 13 / 2,
#   15 / 4; the log-odds x 0.75: 12 / 2, 13 / 1). In e-SOLO-e (every cube placed symbol
#   up) so are the fields seen within ``STEEP_DEG`` of straight down, the up face cut on
#   the planes of 1..4 cubes: dev renders, esoloe, overhead, true corners, 0..299, such
#   fields wrong 30 -> 15 (19 made right, 4 made wrong; the one-cube plane alone 35, 1..2
#   17); obliquely an empty field's cuts above it show the stacks behind it (not done)
TOP_CHROMA = 10.0  # ... or they show no cube: the glaze's colour (Lab a, b within this of
#   the glaze's; ``_peek_likelihood`` too: a pale natural cube top in strong light looks
#   as light as glaze)
STACKING = ("esoloe",)  # the games whose cubes stack (the 3x3 games' rules forbid it:
#   rules.esoloe, "no-stacking")
PROBE_MM = 0.75  # a top face is sought this far off its field's centre each way
PROBE_SHARPNESS = 0.5  # ... and a height's likelihood grows as exp(this x log-odds): on dev
#   renders 0.5 and 1 are the best of 0.25..3 (92 and 90 of 142 right); 1 read the demo's
#   single cubes 2..3 high on a board found 1.4 px off (0.5: none), so 0.5
SEEN_PROBE_SHARPNESS = 2.0  # ... where the levels are seen (obliquely; no outline weighed):
#   dev renders, esoloe, any camera, true corners, oblique stacks' heights wrong, seeds
#   100..199 / 200..299: without the probes 18 / 16; probes by the surest label, blank
#   too, 0.5: 15 / 14, 1: 13 / 11; by the surest symbol (not blank), 0.5: 11 / 10,
#   1: 6 / 8, 2: 4 / 4, 3: 5 / 2 (a pale cube's level that passes for glaze was read a
#   cube low at 0.99 by the levels; its top face's symbol shows where it is). Session
#   13, the renders since b07447b, seeds 0..299 / 300..599 (675 / 657 such stacks), wrong
#   (of them read at 0.9 or more): 2: 21 (8) / 42 (12), 2.5: 19 (10) / 37 (12), 3: 17
#   (14) / 36 (11), 3.5: 19 (14) / 34 (15). Of the 63 wrong at 2, 35 had the probes'
#   likeliest height right but the levels' outweighing it, 13 the levels right and the
#   probes flipping them (a cut on a plane inside the stack reads its upper cube's side
#   face; one above it, a stack behind); probes whose cut another stack hides counting for
#   nothing gained nothing (hidden over 0.05..0.7 of the cut: 63 -> 65..73). 2.5 held out
#   (1400..1599, camera any): true corners exact 114 -> 115 of 200, found corners 104 ->
#   103 (near-ties flipped both ways), so 2 stays
OUTLINE_PX_PER_MM = 6.0  # ``_outline_likelihood``: the first level's plane rectified so
OUTLINE_STEP_MM = 0.1  # ... each side's colour profiled in these steps
OUTLINE_BAND_MM = 1.0  # ... compared over a band this wide inside and outside the side
OUTLINE_GAP_MM = 0.4  # ... this far off it (the edge's blur)
OUTLINE_INSET_MM = 0.15  # ... the top face's edge sought this far inside the cube's 18 mm:
#   its rounded rim turns from the light, so the lit face looks smaller, and a top one
#   level higher (0.6 mm larger at 600 mm) was read a cube low. Dev renders, esoloe,
#   overhead, true corners, heights right of the stacks read occupied, seeds 100..199 /
#   200..299: 0 mm 109 / 91 of 161 / 126, 0.1 mm 116 / 97, 0.15 mm 119 / 95, 0.2 mm
#   119 / 94; all 287: 0 / 0.15 / 0.3 mm 200 / 214 / 203 (0.3: too small, read high)
OUTLINE_BLUR_PX = 0.25  # ... and this many image px (on the first level's plane, at the
#   field) outside it: the edge of a lit face against its shaded sides shows that much out,
#   so a camera far above, a level changing the top's size by under a px, read stacks a cube
#   high: the outline preferred the height one above the truth 39 % of the time, one below
#   5 %. Dev renders, esoloe, overhead, true corners, heights right of the stacks read
#   occupied, seeds 0..99 / 100..199: 267 / 262 of 369 / 346 -> 275 / 263 (0.5 px: 262 /
#   264, 1 px: 224 / 238)
OUTLINE_LIGHTNESS = 0.5  # ... Lab lightness counting this much (the top lit, the sides shaded)
OUTLINE_PLAY_MM = 4.0  # ... the top cube this far off where its height puts it: its play (1.5)
#   and the pose's error (from above, four corners 1 px off move the camera's foot some 50 mm,
#   so a tall stack's top by a few mm; dev renders, overhead, found corners, seeds 100..199 /
#   200..299: heights right with 1.5 / 2.5 / 4 / 6 mm 203 / 215 / 216 / 212 of 344 and
#   211 / 222 / 222 / - of 338; on the true corners 272 / 268 / 270 / 269 and 263 / 260 / 265)
OUTLINE_SHARPNESS = 0.1  # ... a height's likelihood exp(this x its score) (dev renders,
OUTLINE_FLOOR = 0.2  # ... plus this; overhead, seeds 100..199: 0.05..0.1 x 0.05..0.3 tried)
PEEK_BAND_MM = (10.0, 12.5)  # ``_peek_likelihood``: the band round the top face (from its
#   centre, on the first level's plane) where a lower cube's top shows if it sticks out
PEEK_AT = 0.02  # ... the share of the band lit like the top face that speaks for neither
PEEK_SLOPE = 10.0  # ... each 0.1 of share more multiplies a stack of two or more by e (at
#   most e either way). Dev renders, esoloe, overhead, true corners (the share: one cube's
#   median 0.002, 75 % under 0.02; two cubes' 0.03, 75 % under 0.11)
HIDDEN_KEEP = 0.5  # ... and the share of its height's evidence kept (the rest: the prior)
HIDDEN_SHARE = 0.3  # ... when this share of its centre is hidden (the occupancy test's median)
FOOTPRINT_MM = 7.0  # board points this near a field's centre lie under its cube, if any
MIN_SEEN = 6  # of the 64 such points, seen past the other stacks, to judge a field surely
MIN_FACING = 0.4  # cosine between a face's normal and the line to the camera (the training
#   crops' side faces were seen from 30..60 degrees of tilt: 0.5..0.87)
UP_MIN_FACING = 0.3  # ... and an up face's: its print still shows whole from a camera low
#   beside a tall stack (dev renders, esoloe, true corners, any camera, seeds 2400..2599:
#   up faces null 29 -> 27, the two tall stacks 312..350 mm from the camera at 0.39, read
#   right; none given wrong, oblique 2400..2499 and tic-tac-toe any 2400..2499 the same)
MAX_HIDDEN = 0.1  # share of a face's sample points another stack may hide
UP_MAX_HIDDEN = 0.16  # ... but 2 of the 13 of an up face: its print lies in its middle, a
#   corner behind a taller neighbour's box does not hide it (dev renders, esoloe, true
#   corners, seeds 100..299: up faces null 40 -> 37, none given wrong; two corners moved
#   10..20 px: faces given wrong 44 -> 44)
MIN_FACE_PX = 10.0  # a face whose shortest side in the image is shorter is not read
SMALL_FACE_PX = 24.0  # ... and one under this is read less surely (``_floor``)
SMALL_FLOOR = 0.2
AGREE_P = 0.85  # where every distinct cut of an up face (``_pick_tops``; at least
AGREE_CUTS = 3  # ... this many) reads the same symbol this surely, the small-face discount
#   is waived. Dev renders, any camera, true corners, esoloe and tic-tac-toe, seeds
#   100..299, top cubes read at their height: of the small up faces (under 24 px) read
#   at 0.9 or more, 280 had all cuts agreeing so, none misread, 37 of them left null by
#   the discount. Three cuts agreeing at 0.9 (not all) gave 44, also none misread, but
#   on the true corners with two moved 10..20 px faces given wrong 99 -> 102: a board
#   off misplaces every cut alike (a small fuji read 0.997 / 0.997 / 0.91 / 0.81 where
#   sakura was up; a right up symbol whose turn, read wrong, then fixed the sides)
BLURRED_READ = "fuji"  # ... and waived where the up face's surest symbol is another one,
#   read at FACE_CONFIDENT or more: the model reads a small blurred geisha or sakura as
#   fuji (the mountain's broad dark blob is what a blur leaves of either print), seldom
#   the other way. Dev renders, esoloe, true corners, seeds 2400..2599 any camera and
#   2400..2499 oblique and overhead, the surest cut of the small up faces (under 24 px)
#   of the 1,305 top cubes read at their height: fuji at 0.8..0.97 25 right, 13 wrong;
#   sakura or geisha at 0.9 or more 210 right, none wrong (at 0.8..0.9 15 right, 1 wrong;
#   waived from 0.8 on, tic-tac-toe dev 2423 gave a geisha read 0.89 where sakura was up)
ALTERNATIVE_MIN = 0.01  # an alternative less probable than this is not named (was: under
#   0.12 of the reading's, which left a field read empty at 0.86 with its 0.14 of a cube
#   unlisted, so the referee could not account for the doubt: the demo's illegal change)
MAX_ALTERNATIVES = 4  # other stacks named per field at most (the referee combines at most
#   256 readings, the least sure fields first: with 5 options a field, 3 fields; a field
#   with more leaves others' alternatives out)
HEIGHT_SURE = 0.9  # a stack read less surely may be a cube taller (``covered``)
BLANK_UP = 1 / 3  # prior of a blank face up against each symbol up (cg.face_masses)
CUBE_SET = "corner"  # rules.cube's default set (option cube-set)


def _margin_reference(image: np.ndarray, H: np.ndarray, geom: Geometry) -> tuple[
        float, np.ndarray]:
    """The board top's look outside the fields: median material score and median Lab
    (the glaze is white, so its a and b measure the white-balance error)."""
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
    lab = cv2.cvtColor(top, cv2.COLOR_BGR2Lab).astype(np.float64)
    return float(np.median(score[mask])), np.median(lab[mask], axis=0)


def _player(crop: np.ndarray, glaze_a: float, pieces: np.ndarray | None = None
            ) -> tuple[int, float]:
    """(player, confidence) of a cube top: 1 for green stain, 0 for natural wood, by the
    median of Lab's green-red axis relative to the white glaze's (measured on renders:
    natural wood above ``GREEN_BELOW_A``, green stain below); where the calibration
    measured the players' colours (``pieces``: ``vision.piece_colours.measured``), on
    the top's lighter half, halfway between theirs (``piece_colours.green_red``)."""
    if pieces is None:
        a = float(np.median(cv2.cvtColor(crop, cv2.COLOR_BGR2Lab)[..., 1])) - glaze_a
        below = GREEN_BELOW_A
    else:
        a, below = piece_colours.green_red(crop, glaze_a, pieces)
    conf = float(np.clip(0.5 + abs(a - below) / 12.0, 0.5, 1.0))
    return (1, conf) if a < below else (0, conf)


def _occupied(crop: np.ndarray, geom: Geometry, reference: float, glaze,
              blue_field: bool = False) -> float:
    """Probability that a field's crop (or a row of its pixels) shows a cube
    (``OCCUPANCY_WEIGHTS``): its median material score over the margin's ``reference``, its
    median Lab (a, b) distance from the glaze's (Lab ``glaze``) and its median lightness
    over the glaze's; on a ``blue_field`` (3andC's) the blue glaze counts as bare board (its
    own score is low): a pixel of hue ``BLUE_FIELD_HUE``..135 or ``BLUE_FIELD_B`` bluer
    than the glaze, not darker than ``BLUE_MIN_LIGHT`` of it. Elsewhere blue is no glaze:
    a natural cube's blue print, which filled a field's crop from above, was taken for
    glaze (the fields' painted outlines lie outside the crop). The medians ignore the black dots."""
    score = material_score(crop, geom.material).astype(np.float64)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab).astype(np.float64)
    blue = np.zeros(score.shape, bool)
    if blue_field:
        hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
        blue = (hsv[..., 0] >= BLUE_FIELD_HUE) & (hsv[..., 0] <= 135) & (hsv[..., 1] > 50)
        blue &= lab[..., 0] >= BLUE_MIN_LIGHT * glaze[0]
        blue |= bluer_than_glaze(lab, glaze)
    score[blue] = reference
    chroma = np.hypot(lab[..., 1] - glaze[1], lab[..., 2] - glaze[2])
    chroma[blue] = 0.0
    ratio = float(np.clip(np.median(score) / reference, 0.0, 1.5))
    light = float(np.clip(np.median(lab[..., 0]) / max(glaze[0], 1.0), 0.0, 1.5))
    w0, w1, w2, w3 = OCCUPANCY_WEIGHTS
    return float(1 / (1 + np.exp(-(w0 + w1 * ratio + w2 * np.log1p(np.median(chroma))
                                   + w3 * light))))




def _dots_shown(image: np.ndarray, H: np.ndarray, u: float, v: float, n: int) -> bool:
    """Whether the ``n`` dots of the 3andC field centred at (u, v) show on the board plane
    (``DOTS_SEEN``): each one's disc darker than the ring round it, the pattern sought
    within ``DOT_SEARCH_MM`` of where it belongs."""
    ppm = FACE_PX_PER_MM * 2
    reach = (n - 1) / 2 * DOT_SPACING_MM + 2 * DOT_RADIUS_MM + DOT_SEARCH_MM
    side = int(round(2 * reach * ppm))
    light = cv2.cvtColor(square_crop(image, H, u, v, reach, side),
                         cv2.COLOR_BGR2Lab)[..., 0].astype(np.float64)
    c = (np.arange(side) + 0.5) / ppm - reach
    x, y = np.meshgrid(c, -c)
    steps = np.round(np.arange(-DOT_SEARCH_MM, DOT_SEARCH_MM + 1e-6, 0.5) * ppm).astype(int)
    shifts = np.array(list(itertools.product(steps, steps)))  # (east, north) px

    def at(mask: np.ndarray) -> np.ndarray:
        """The lightness under ``mask`` moved by each shift ((shifts, pixels))."""
        rows, cols = np.nonzero(mask)
        return light[rows[None] - shifts[:, 1:], cols[None] + shifts[:, :1]]

    worst = np.full(len(shifts), np.inf)  # per shift: the least dark of the dots
    for k in range(n):
        off = (k - (n - 1) / 2) * DOT_SPACING_MM
        r = np.hypot(x - off, y + off)
        ring = np.median(at((r > 1.4 * DOT_RADIUS_MM) & (r < 2 * DOT_RADIUS_MM)), axis=1)
        disc = at(r < 0.7 * DOT_RADIUS_MM).mean(axis=1)
        worst = np.minimum(worst, (ring - disc) / np.maximum(ring, 1.0))
    return float(worst.max()) >= DOTS_SEEN

@cache
def _outline(yaw_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """The top face's outline sample points and their normals per side ((4, 17, 2) each)
    for a cube turned ``yaw_deg``, in the rectified view's px (x east, y south), the cube
    centred at the origin."""
    r = CUBE_MM / 2 * FACE_PX_PER_MM
    t = np.linspace(-0.8, 0.8, 17) * r
    yaw = np.radians(yaw_deg)
    c, s = np.cos(yaw), np.sin(yaw)
    pts, normals = [], []
    for nx, ny in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        n = np.array([c * nx + s * ny, -s * nx + c * ny])  # turned anticlockwise on board
        along = np.array([-n[1], n[0]])
        pts.append(n * r + t[:, None] * along)
        normals.append(np.repeat(n[None], len(t), 0))
    return np.stack(pts), np.stack(normals)


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


def _outline_fit(gray: np.ndarray, u: float, v: float, max_offset: float, step: float,
                 max_yaw: float, yaw_step: float, weakest: tuple[int, ...] = (4,),
                 refine: bool = False) -> list[tuple[float, float, float]]:
    """(u, v, yaw) of the 18 mm square whose outline lies on the strongest brightness
    edge of ``gray`` (the rectified view round (u, v), north up, ``FACE_PX_PER_MM``):
    turns of +-``max_yaw`` and offsets of +-``max_offset`` mm are tried (``refine``: then
    half steps round the best); a fit's score is the mean over its ``weakest`` sides of
    the edge strength across the side (2: a square with only two sides on edges, such as
    a painted field outline, scores low). One fit per entry of ``weakest``."""
    ppm = FACE_PX_PER_MM
    side = gray.shape[0]
    view = cv2.GaussianBlur(gray, (5, 5), 0)
    gx = cv2.Sobel(view, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(view, cv2.CV_32F, 0, 1, ksize=3)

    def edges(offsets, yaws) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per yaw and shift, each side's mean edge strength ((yaws, shifts, 4)), with the
        shifts ((shifts, 2) px) and the yaws: all of the grid in one gather."""
        shifts = np.stack(np.meshgrid(offsets[0], offsets[1]), -1).reshape(-1, 2)
        pts, normals = zip(*(_outline(round(float(yaw), 3)) for yaw in yaws), strict=True)
        pts, normals = np.stack(pts)[:, None], np.stack(normals)[:, None]
        at = np.clip(np.round(pts + shifts[None, :, None, None] + side / 2).astype(int), 0,
                     side - 1)
        x, y = at[..., 0], at[..., 1]
        strength = np.abs(gx[y, x] * normals[..., 0] + gy[y, x] * normals[..., 1])
        return strength.mean(-1), shifts, np.asarray(yaws, float)

    def best(grid, k: int) -> tuple[float, float, float]:
        """(dx px, dy px, yaw degrees) of the best fit: the mean of its ``k`` weakest
        sides (ties: the first yaw, then the first shift)."""
        per_side, shifts, yaws = grid
        scores = np.sort(per_side, axis=-1)[..., :k].mean(-1)
        j, i = np.unravel_index(int(np.argmax(scores)), scores.shape)
        return float(shifts[i, 0]), float(shifts[i, 1]), float(yaws[j])

    grid = np.arange(-max_offset, max_offset + 1e-6, step) * ppm
    coarse = edges((grid, grid), np.arange(-max_yaw, max_yaw + 1e-6, yaw_step))
    out = []
    for k in weakest:
        dx, dy, yaw = best(coarse, k)
        if refine:
            fine = np.array([-0.5, 0.0, 0.5]) * step * ppm
            dx, dy, yaw = best(edges((dx + fine, dy + fine), yaw + np.array(
                [-0.5, -0.25, 0, 0.25, 0.5]) * yaw_step), k)
        out.append((u + dx / ppm, v - dy / ppm, float(np.radians(yaw))))
    return out


def _without_paint(view: np.ndarray, H_top: np.ndarray, H_board: np.ndarray, to_mm: np.ndarray,
                   geom: Geometry) -> np.ndarray:
    """Lab of a rectified top-plane view with the fields' painted outlines (seen on the
    board plane through ``H_board``) set to the glaze's colour where they look painted
    (darker and bluer than the view's bright pixels): a cube's outline fit then finds the
    cube, not the line 1.5 mm outside it."""
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2Lab).astype(np.float32)
    side = view.shape[0]
    ys, xs = np.mgrid[0:side, 0:side]
    q = np.linalg.inv(H_board) @ H_top @ to_mm @ np.stack(
        [xs.ravel(), ys.ravel(), np.ones(side * side)])
    bu, bv = (q[:2] / q[2]).reshape(2, side, side)
    near = np.full((side, side), np.inf)
    for _, cu, cv_, h in geom.cells:
        near = np.minimum(near, np.abs(np.maximum(np.abs(bu - cu), np.abs(bv - cv_)) - h))
    band = near < PAINT_BAND_MM
    light = lab[..., 0] >= np.percentile(lab[..., 0], 80)
    pick = light & ~band if (light & ~band).sum() > 10 else light
    glaze = np.median(lab[pick], axis=0)
    paint = band & (lab[..., 2] < glaze[2] - 6) & (lab[..., 0] < glaze[0] - 10)
    lab[paint] = glaze
    return lab


def _top_candidates(image: np.ndarray, H_top: np.ndarray, H_board: np.ndarray, geom: Geometry,
                    u: float, v: float, half: float, steep: bool,
                    every: bool = True, first: tuple | None = None) -> list[tuple]:
    """Where the top face of the stack on the field centred at (u, v) may lie, as
    (u, v, yaw) on its plane ``H_top``, the likeliest first (the symbol model picks
    among them: ``_pick_tops``):

    - seen from above (``steep``), the cube's blob (``_blob_square``); otherwise, or
      without a plausible blob, the 18 mm square whose outline is an edge all round (the
      bevel, and the change to the shaded side faces or to what lies behind), +-
      ``MAX_YAW_DEG`` and +-``MAX_OFFSET_MM``;
    - the field's centre, unturned (the cube as placed: at most 1.5 mm and a few degrees
      off);
    - the same outline fit on the view without the painted field outlines (which in a
      view from above lie 1.5 mm outside a centred cube and compete), within the cube's
      play (``PLAY_MM``), scored over all four sides and over the weakest two.

    ``every`` False: the first only (no model to pick with: 3andC's cubes). ``first``: the
    first where it was already found (``_probe_heights``).
    """
    ppm = FACE_PX_PER_MM
    reach = half + 4.0
    side = int(round(2 * reach * ppm))
    s = 2 * reach / side
    to_mm = np.array([[s, 0, u - reach + s / 2], [0, -s, v + reach - s / 2], [0, 0, 1]])
    view = cv2.warpPerspective(image, H_top @ to_mm, (side, side),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    if first is None and steep:
        first = _blob_square(image, H_top, u, v, half, geom.material)
    if first is None:
        gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
        first = _outline_fit(gray, u, v, MAX_OFFSET_MM, 0.5, MAX_YAW_DEG, 3.0)[0]
    if not every:
        return [first]
    clean = _without_paint(view, H_top, H_board, to_mm, geom)[..., 0]
    return [first, (u, v, 0.0)] + _outline_fit(clean, u, v, PLAY_MM, 0.5, 18.0, 3.0, (4, 2),
                                               refine=True)


def _pick_tops(image: np.ndarray, stacks: list, calibration: dict | None, model) -> None:
    """Per stack, the candidate top face (``_top_candidates``) whose crop the symbol model
    reads with the highest probability: a cut off the face reads less surely (measured
    on dev renders: the first candidate alone, 221 of 302 up faces read at >= 0.9 with
    1 wrong; the best of four, 249 at >= 0.95, none wrong). Without the model, the first.
    ``agree``: whether every one of the distinct cuts, ``AGREE_CUTS`` at least, reads that
    cut's symbol at ``AGREE_P`` or more (which waives the small-face discount: ``_floor``)."""
    crops, owners = [], []
    for k, stack in enumerate(stacks):
        for c in dict.fromkeys(stack["candidates"]):  # the same cut read once
            crops.append(_up_cut(image, stack["H_top"], *c))
            owners.append((k, c))
    best: dict[int, tuple[float, tuple]] = {}
    read: dict[int, list] = {}
    if model is not None and crops:
        for (k, c), pred in zip(owners, predict(calibration, "symbol", model, crops, 1),
                                strict=True):
            label, p = pred["symbol"].label, pred["symbol"].probability
            read.setdefault(k, []).append((label, p))
            if k not in best or p > best[k][0]:
                best[k] = (p, c, label)
    for k, stack in enumerate(stacks):
        stack["top"] = best[k][1] if k in best else stack["candidates"][0]
        cuts = read.get(k, [])
        stack["agree"] = len(cuts) >= AGREE_CUTS and all(
            label == best[k][2] and p >= AGREE_P for label, p in cuts)


def _floor(direction: str, across: float, agreed: bool = False) -> float:
    """How much of uniform a face's symbol reading is mixed with: ``LABEL_FLOOR``, for the
    up face (the best of several cuts) ``UP_FLOOR``, plus up to ``SMALL_FLOOR`` more as the
    face's shortest side in the image shrinks from ``SMALL_FACE_PX`` to ``MIN_FACE_PX``
    (measured on dev renders: the symbol model's sure misreadings were faces under 25 px),
    unless the face's cuts ``agreed`` (an up face that ``AGREE_CUTS`` distinct cuts read
    alike: ``_pick_tops``)."""
    small = np.clip((SMALL_FACE_PX - across) / (SMALL_FACE_PX - MIN_FACE_PX), 0.0, 1.0)
    return (UP_FLOOR if direction == "up" else LABEL_FLOOR) + (
        0.0 if agreed else SMALL_FLOOR * float(small))


def _surely_printed(symbol) -> bool:
    """Whether the symbol model's reading of an up face (a Prediction) is another symbol
    than ``BLURRED_READ`` at ``FACE_CONFIDENT`` or more: its print then decides the up
    face without the small-face discount (``_floor``), but not its turn the side faces (a
    small face's turn read wrong fixed three sides wrong: dev 2478, corners 5 px off)."""
    return symbol.label not in (BLURRED_READ, BLANK) and symbol.probability >= FACE_CONFIDENT


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
        facing = UP_MIN_FACING if direction == "up" else MIN_FACING
        if cg.turned(direction, yaw) @ ray / np.linalg.norm(ray) < facing:
            return None
        img = project(self.pose, pts, self.dist)
        h, w = self.image.shape[:2]
        if img.min() < 1 or img[:, 0].max() > w - 2 or img[:, 1].max() > h - 2:
            return None
        across = float(np.min(np.linalg.norm(img - np.roll(img, 1, axis=0), axis=1)))
        limit = UP_MAX_HIDDEN if direction == "up" else MAX_HIDDEN
        if across < MIN_FACE_PX or cg.hidden_fraction(pts, self.camera, boxes) > limit:
            return None
        order = cg.crop_order(img)
        return cg.warp(self.image, img, order, FACE_CROP), cg.crop_up(pts, order), across


def read_fields(image: np.ndarray, fix: BoardFix, geom: Geometry,
                calibration: dict | None = None, cube_set: str = CUBE_SET) -> list[dict]:
    """Per field: ``occupied`` and its ``confidence``; for an occupied one ``height`` and
    its ``height_confidence``, ``cubes`` (bottom first: ``player``, ``player_confidence``,
    ``faces`` by direction, None where not known, ``face_probability`` of the given ones),
    and for the top cube ``player``, ``player_confidence`` and ``up`` (the symbol model's
    Prediction of the up face, None when not read) and ``up_crop`` (the crop of it the
    model read: what ``calibration.enrol`` captures). All faces of a frame go through one
    model run."""
    H = homography(fix, geom)
    frame = _Frame(image, fix, geom, calibration)
    model = shared("symbol")
    symbols = model is not None and _has_symbols(geom.game)  # else the colour head only
    reference, glaze = _margin_reference(image, H, geom)
    reference, glaze_a = max(reference, 1.0), float(glaze[1])
    pieces = piece_colours.measured(calibration, geom.game)
    out = []
    blue_fields = set(three_and_c_blue()) if geom.game == "esoloe-3andc" else set()
    stacking = geom.game in STACKING
    tops_read = symbols and not stacking  # tic-tac-toe: one high, symbol up
    levels = MAX_LEVELS if stacking else 1
    top_symbols: dict[int, float] = {}  # field -> _top_symbols' reading, cut and read once

    def top_symbol(i: int) -> float:
        if i not in top_symbols:
            top_symbols[i] = _top_symbols(image, frame, [geom.cells[i]], calibration, model,
                                          levels)[0]
        return top_symbols[i]

    crops = [square_crop(image, H, u, v, half * 0.6, 16) for _, u, v, half in geom.cells]
    occupied = [_occupied(crop, geom, reference, glaze, i in blue_fields)
                for i, crop in enumerate(crops)]
    if geom.game == "esoloe-3andc":  # an unsure field whose dots show is empty
        occupied = [min(p, 1 - DOTS_SURE) if max(p, 1 - p) < FACE_CONFIDENT
                    and n >= DOTS_MIN and _dots_shown(image, H, u, v, n) else p
                    for p, n, (_, u, v, _) in zip(occupied, three_and_c_dots(), geom.cells,
                                                  strict=True)]
    unsure = [i for i, ((_, u, v, _), p) in enumerate(zip(geom.cells, occupied, strict=True))
              if max(p, 1 - p) < FACE_CONFIDENT
              and (tops_read or (model is not None and _steep(frame, u, v, 0.0)))]
    if unsure:  # their up faces all in one run
        top_symbols.update(zip(unsure, _top_symbols(image, frame, [geom.cells[i] for i in unsure],
                                                    calibration, model, levels), strict=True))
    for i, (crop, p) in enumerate(zip(crops, occupied, strict=True)):
        # e-SOLO-e and 3andC: a stack's top seen from above. 3andC's cubes carry the prints
        # its rules ignore, so a cube may stand blank up: there a print read says a cube is
        # there (a pale natural cube in strong light passes for glaze), none says nothing
        # (``blank_counts``); obliquely the cut catches the prints of the stacks round an
        # empty field. Dev renders, 3andC, any camera, true corners, seeds 0..399, with
        # stack_height.BlueHue: occupancy missed 25 -> 10, extra 23 -> 23, exact 351 ->
        # 361 of 400 (the fields' centres alone, of those under 0.9: from above 15 made
        # right, none wrong; all of them, obliquely too, 17 and 2)
        if i in top_symbols:
            p = _weighed_by_symbol(p, top_symbols[i], blank_counts=symbols)
        field = {"occupied": p >= 0.5, "confidence": max(p, 1 - p)}
        if field["confidence"] < FACE_CONFIDENT:  # a cube missed would be this player's
            field["player"], field["player_confidence"] = _player(crop, glaze_a, pieces)
        out.append(field)
    prior = PRIOR if stacking else FLAT_PRIOR
    heights = measure_heights(image, frame.pose, geom, [f["occupied"] for f in out],
                              frame.dist, prior=prior)
    if _behind(image, frame, geom, out, heights, reference, glaze, blue_fields,
               top_symbol if tops_read else None):
        heights = measure_heights(image, frame.pose, geom, [f["occupied"] for f in out],
                                  frame.dist, prior=prior)
    firsts: dict[int, tuple] = {}  # the top face found on the first level's plane
    disputed: dict[int, int] = {}  # fields whose top cube's faces are not read
    #   (``DISPUTED``): the height their levels give
    if stacking and symbols:
        levels = heights
        heights = at_most_one_full(weigh_by_model(image, frame.pose, geom, _probe_heights(
            image, frame, H, geom, out, heights, calibration, model, firsts, glaze),
            shared("height")))
        disputed = {id(out[i]): a.cubes for i, (a, b) in enumerate(zip(levels, heights,
                                                                        strict=True))
                    if a is not None and not a.unseen
                    and a.probabilities[b.cubes - 1] < DISPUTED
                    and (b.model is None or b.model[b.cubes - 1] < b.model[a.cubes - 1])}
    found = []  # per occupied field: where its top face may be
    for i, (field, (_, u, v, half), height) in enumerate(zip(out, geom.cells, heights,
                                                             strict=True)):
        if not field["occupied"]:
            continue
        n = height.cubes
        H_top = frame.pose.plane_homography(n * CUBE_MM)
        steep = _steep(frame, u, v, n * CUBE_MM)
        found.append({"field": field, "u": u, "v": v, "n": n, "height": height,
                      "H_top": H_top, "candidates": _top_candidates(
                          image, H_top, H, geom, u, v, half, steep, symbols,
                          firsts.get(i) if n == 1 else None)})
    _pick_tops(image, found, calibration, model if symbols else None)
    stacks = []  # per occupied field: (field, u, v, top face u, v, yaw, height)
    agreed: set[int] = set()  # fields whose top's cuts agree (``AGREE_CUTS``)
    for f in found:
        field, n, (tu, tv, yaw) = f["field"], f["n"], f["top"]
        player, pconf = _player(square_crop(image, f["H_top"], tu, tv, CUBE_MM * 0.35, 16),
                                glaze_a, pieces)
        height = f["height"].flattened(HIDDEN_KEEP) if field.get("hidden") else f["height"]
        field.update(height=n, height_confidence=height.probabilities[n - 1],
                     heights=height.probabilities, player=player,
                     player_confidence=pconf, up=None, up_crop=None,
                     cubes=[{"player": 0, "player_confidence": 0.5, "faces":
                             dict.fromkeys(DIRECTIONS), "face_probability": {}}
                            for _ in range(n)])
        field["cubes"][-1].update(player=player, player_confidence=pconf)
        stacks.append((field, f["u"], f["v"], tu, tv, yaw, n))
        if f["agree"]:
            agreed.add(id(field))
    boxes = [(u - CUBE_MM / 2, u + CUBE_MM / 2, v - CUBE_MM / 2, v + CUBE_MM / 2, 0.0,
              max(n, disputed.get(id(field), 0)) * CUBE_MM)  # the levels' cubes may hide
             for field, u, v, _, _, _, n in stacks]
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
    _colours_from_sides(crops, seen, glaze_a, pieces)
    if model is None or not crops:
        return out
    evidence: dict[tuple[int, int], list] = {}
    printed: dict[int, tuple] = {}  # field -> its up face's evidence undiscounted
    colour: dict[tuple[int, int], float] = {}  # log-odds of green stain from the cube head
    readings = predict(calibration, "symbol", model, crops, 4)
    for (field, level, d, up, across), crop, pred in zip(seen, crops, readings, strict=True):
        if symbols and not (id(field) in disputed and level == field["height"] - 1):
            if d == "up":
                field["up"], field["up_crop"] = pred["symbol"], crop
            labels = _tempered(pred["symbol"], _floor(d, across, d == "up"
                                                      and id(field) in agreed))
            normal = cg.VECTORS[d]
            tops = {cg.rotation_top(up, normal, int(k)): p
                    for k, p in _tempered(pred["rotation"], ROTATION_FLOOR).items()}
            evidence.setdefault((id(field), level), []).append((d, labels, tops))
            if d == "up" and _surely_printed(pred["symbol"]):  # its print, not its turn
                printed[id(field)] = (d, _tempered(pred["symbol"], _floor(d, across, True)),
                                      tops)
        green = float(np.clip(dict(pred["cube"].top)["green"], 0.03, 0.97))
        colour[(id(field), level)] = colour.get((id(field), level), 0.0) + np.log(
            green / (1 - green))
    for field, *_ in stacks:
        for level, cube in enumerate(field["cubes"]):
            if (id(field), level) in colour:
                _colour(cube, colour[(id(field), level)], level == field["height"] - 1)
            if (id(field), level) in evidence:
                masses, _ = cg.face_masses(evidence[(id(field), level)], cube_set, BLANK_UP)
                cube["faces"], cube["face_probability"] = cg.given(masses, FACE_DECIDE)
                if level == field["height"] - 1:
                    if id(field) in printed:  # the up face alone, the sides as they were
                        masses, _ = cg.face_masses([printed[id(field)] if e[0] == "up" else e
                                                    for e in evidence[(id(field), level)]],
                                                   cube_set, BLANK_UP)
                    _unsure_up(cube, masses["up"])
    return out


def _unsure_up(cube: dict, mass: dict) -> None:
    """A top cube's up face left null under ``FACE_DECIDE``: given where one symbol holds
    ``UP_DECIDE`` of the weight, the other symbols its ``up_alternatives`` (a blank face
    up, which the rules forbid, named as neither)."""
    value, p = max(mass.items(), key=lambda kv: kv[1])
    if cube["faces"]["up"] is not None or value == BLANK or p < UP_DECIDE:
        return
    cube["faces"]["up"], cube["face_probability"]["up"] = value, p
    cube["up_alternatives"] = [[v, round(m, 4)] for v, m in sorted(
        mass.items(), key=lambda kv: -kv[1]) if v not in (value, BLANK)
        and m >= ALTERNATIVE_MIN]


def _steep(frame: _Frame, u: float, v: float, z: float) -> bool:
    """Whether the camera sees the point (u, v, z) within ``STEEP_DEG`` of straight down."""
    ray = frame.camera - np.array([u, v, z])
    return bool(np.hypot(ray[0], ray[1]) < np.tan(np.radians(STEEP_DEG)) * ray[2])


def _probe_heights(image: np.ndarray, frame: _Frame, H: np.ndarray, geom: Geometry,
                   fields: list, heights: list, calibration: dict | None, model,
                   firsts: dict, glaze: np.ndarray) -> list:
    """The heights of the stacks weighed by where their top face shows: the top face of a
    stack of n cubes lies on the plane 18 n mm up, on its field's centre (within the cubes'
    play), larger and, off the camera's axis, shifted outwards the taller the stack.
    For each n, the up face is cut on that plane at the field's centre and ``PROBE_MM``
    off it along both diagonals (turned as the face found on the first level's plane), all
    cuts of the frame in one model run; n's likelihood grows as exp(``PROBE_SHARPNESS`` x
    the log-odds of its surest symbol reading); a blank reading counts for nothing (every
    cube is placed with a symbol up: a cut of a side face or of the board read as blank is
    no top face). Measured on dev renders (esoloe, overhead, seeds 200..239, 142 stacks):
    the most likely height right 92 times against the prior's 59, the truth's mean
    log-probability -0.99 against -1.23. Where no level above the first was seen (a field
    below an overhead camera) each n is then weighed too by how well the top face of n
    cubes, its size and place, fits the stack's outline (``_outline_likelihood``): dev
    renders, overhead, true corners, seeds 100..199 / 200..299, heights right 213 -> 270
    of 344 / 215 -> 265 of 338 against the top face's centre alone (session 5's locator),
    the truth's mean log-probability -0.86 -> -0.64 / -0.83 -> -0.64. Where levels were
    seen (obliquely) the probes alone weigh in, as exp(``SEEN_PROBE_SHARPNESS`` x the
    log-odds): a level's colour can pass for what lies behind it, its top face's symbol
    does not (session 7; the outline weighed in there lost some, session 6). ``firsts``
    gets each probed field's top face found on the first level's plane (its turn is the
    outline's and the probes')."""
    nudges = [(0.0, 0.0)] + [(du, dv) for du in (-PROBE_MM, PROBE_MM)
                             for dv in (-PROBE_MM, PROBE_MM)]
    crops, owners = [], []
    for i, (field, (_, u, v, half), height) in enumerate(zip(fields, geom.cells, heights,
                                                              strict=True)):
        if not field["occupied"] or height is None:
            continue
        firsts[i] = _top_candidates(image, frame.pose.plane_homography(CUBE_MM), H, geom, u,
                                    v, half, _steep(frame, u, v, CUBE_MM), False)[0]
        yaw = firsts[i][2]
        for n in range(1, len(height.probabilities) + 1):
            plane = frame.pose.plane_homography(n * CUBE_MM)
            for du, dv in nudges:
                crops.append(_up_cut(image, plane, u + du, v + dv, yaw))
                owners.append((i, n))
    if not crops:
        return heights
    surest: dict[int, np.ndarray] = {}
    for (i, n), pred in zip(owners, predict(calibration, "symbol", model, crops, 4),
                            strict=True):
        got = surest.setdefault(i, np.zeros(len(heights[i].probabilities)))
        got[n - 1] = max(got[n - 1], max((p for label, p in pred["symbol"].top
                                          if label != BLANK), default=0.0))
    out = list(heights)
    for i, p in surest.items():
        p = np.clip(p, 1e-4, 1 - 1e-4)
        odds = np.log(p / (1 - p))
        _, u, v, _ = geom.cells[i]
        if heights[i].unseen:
            like = np.exp(PROBE_SHARPNESS * (odds - odds.max())) * _outline_likelihood(
                image, frame, u, v, firsts[i][2], len(p)) * _peek_likelihood(
                image, frame, u, v, firsts[i], len(p), glaze)
        else:
            like = np.exp(SEEN_PROBE_SHARPNESS * (odds - odds.max()))
        out[i] = heights[i].weighed(like)
    return out


def _outline_likelihood(image: np.ndarray, frame: _Frame, u: float, v: float, yaw: float,
                        levels: int) -> np.ndarray:
    """Per height n (1..``levels``): how well the outline of the top face of n cubes fits the
    stack on the field centred at (u, v), the top cube turned ``yaw`` (radians). On the first
    level's plane, rectified (``OUTLINE_PX_PER_MM``), the top face of n cubes is an exact
    square 18 mm x s_n, s_n = (camera z - 18) / (camera z - 18 n), centred where n puts the
    field's centre (scaled by s_n about the camera's foot point) within the cube's play
    (``OUTLINE_PLAY_MM``): so n fixes its size and, within the pose's error, where it lies.
    Its edge is sought ``OUTLINE_INSET_MM`` inside that square (the cube's rounded rim
    turns from the light, so the lit face shows a little smaller) and ``OUTLINE_BLUR_PX``
    image px outside it (the lit face's edge shows that much out against its shaded sides).
    Each side is scored by how unlike the top face's colour (the median Lab over a ring
    5.5..7.5 mm x s_n round where n puts its centre, lightness counted
    ``OUTLINE_LIGHTNESS``: the top lit, its sides shaded) the band just outside it is, less
    how unlike the band just inside it (``OUTLINE_BAND_MM`` wide, ``OUTLINE_GAP_MM`` off
    the side; each a median along the side's middle 10 mm): a square too large has the
    shaded side faces inside its inner sides, one too small the top face outside. n's score
    is its best placement's sum over the four sides; its likelihood exp(``OUTLINE_SHARPNESS``
    x score, the best 1) plus ``OUTLINE_FLOOR``."""
    ppm, step = OUTLINE_PX_PER_MM, OUTLINE_STEP_MM
    foot, cz = frame.camera[:2], float(frame.camera[2])
    scales = np.array([(cz - CUBE_MM) / (cz - n * CUBE_MM) for n in range(1, levels + 1)])
    shifts = [(np.array([u, v]) - foot) * (s - 1) for s in scales]  # the centres' offsets
    prof = (CUBE_MM / 2 + OUTLINE_PLAY_MM) * scales[-1] + OUTLINE_GAP_MM + OUTLINE_BAND_MM + 0.5
    reach = prof + max(np.abs(d).max() for d in shifts) + 1.5  # the view's, round the field
    side = int(round(2 * reach * ppm))
    px = 2 * reach / side
    to_mm = np.array([[px, 0, u - reach + px / 2], [0, -px, v + reach - px / 2], [0, 0, 1]])
    plane = frame.pose.plane_homography(CUBE_MM)
    near = cv2.perspectiveTransform(np.array([[[u, v], [u + 1, v], [u, v + 1]]], np.float64),
                                    plane)[0]  # image px per mm there: the blur's mm
    px_per_mm = (np.linalg.norm(near[1] - near[0]) + np.linalg.norm(near[2] - near[0])) / 2
    view = cv2.warpPerspective(image, plane @ to_mm,
                               (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2Lab).astype(np.float32)
    lab[..., 0] *= OUTLINE_LIGHTNESS
    c, s = np.cos(yaw), np.sin(yaw)
    normals = [np.array([c * nx + s * ny, -s * nx + c * ny])  # view px: x east, y south
               for nx, ny in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    along = np.linspace(-5.0, 5.0, 21)

    def sample(at: np.ndarray, n: np.ndarray, ts: np.ndarray) -> np.ndarray:
        """Lab at distances ``ts`` mm from ``at`` (view mm off the field's centre) along
        ``n``, over the side's middle (T, along, 3)."""
        p = side / 2 + (at + n * ts[:, None, None] + np.array([-n[1], n[0]]) *
                        along[None, :, None]) * ppm
        return cv2.remap(lab, p[..., 0].astype(np.float32), p[..., 1].astype(np.float32),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    half = CUBE_MM / 2 - OUTLINE_INSET_MM + OUTLINE_BLUR_PX / px_per_mm  # the edge as it shows
    ts = np.arange(0.0, prof, step)  # a side's distances from the top face's centre
    band, gap = int(round(OUTLINE_BAND_MM / step)), int(round(OUTLINE_GAP_MM / step))
    last = len(ts) - gap - band  # the sides' positions scored: ts[:last]
    i = np.arange(last)
    play = np.arange(-OUTLINE_PLAY_MM, OUTLINE_PLAY_MM + 1e-6, step)
    got = []
    for scale, shift in zip(scales, shifts, strict=True):
        at = shift * (1, -1)  # the centre n puts the top face at, view mm from the field's
        ref = np.median(np.concatenate([sample(at, n, np.arange(5.5, 7.5, 0.25) * scale)
                                        .reshape(-1, 3) for n in normals]), axis=0)
        scores = []  # per side: the score of its edge at each of ts[:last]
        for n in normals:
            unlike = np.median(np.linalg.norm(sample(at, n, ts) - ref, axis=-1), axis=1)
            total = np.concatenate([[0.0], np.cumsum(unlike)])
            inner = (total[np.maximum(i - gap, 0)] - total[np.maximum(i - gap - band, 0)]) / band
            outer = (total[i + gap + band] - total[i + gap]) / band
            scores.append(np.where(i >= band + gap, outer - inner, -np.inf))
        total = 0.0
        for a, b in ((0, 1), (2, 3)):
            ia = np.round((half + play) * scale / step).astype(int).clip(0, last - 1)
            ib = np.round((half - play) * scale / step).astype(int).clip(0, last - 1)
            total += float(np.max(scores[a][ia] + scores[b][ib]))
        got.append(total)
    got = np.asarray(got)
    return np.exp(OUTLINE_SHARPNESS * (got - got.max())) + OUTLINE_FLOOR


def _peek_likelihood(image: np.ndarray, frame: _Frame, u: float, v: float,
                     top: tuple[float, float, float], levels: int, glaze: np.ndarray
                     ) -> np.ndarray:
    """Per height n (1..``levels``), seen from above: whether a lower cube sticks out from
    under the top face found on the first level's plane (``top``: u, v, yaw). The cubes of
    a stack stand each up to 1.5 mm off and a few degrees turned, so a lower cube's lit top
    often shows just outside the top face, in the top face's colour and light; round a
    single cube lie its shaded side faces, the glaze and shadow. The share s of the band
    ``PEEK_BAND_MM`` round the top that looks like the top face (lightness within 15 % of
    its 70th percentile, Lab a and b within 8 of its lighter half's median) weighs every
    n >= 2 by exp(clip(``PEEK_SLOPE`` (s - ``PEEK_AT``), -1, 1)) against n = 1. Left
    out (1 for every n) where the top face is in the glaze's colour (a pale natural cube
    in a strong light: the band's glaze would pass for it) or its fit lies at the edge of
    its search (``MAX_OFFSET_MM``: the band would cut the top face itself)."""
    tu, tv, yaw = top
    if max(abs(tu - u), abs(tv - v)) > MAX_OFFSET_MM - 0.25:  # the fit at its search's edge
        return np.ones(levels)
    reach = PEEK_BAND_MM[1] + 1.0
    side = int(round(2 * reach * FACE_PX_PER_MM))
    view = square_crop(image, frame.pose.plane_homography(CUBE_MM), tu, tv, reach, side)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2Lab).astype(np.float64)
    c = (np.arange(side) + 0.5) / FACE_PX_PER_MM - reach
    x, y = np.meshgrid(c, -c)
    cos, sin = np.cos(yaw), np.sin(yaw)
    cheb = np.maximum(np.abs(cos * x + sin * y), np.abs(-sin * x + cos * y))
    face = lab[cheb < CUBE_MM / 2 - 2.0]
    light = np.percentile(face[:, 0], 70)
    lit = face[face[:, 0] >= np.median(face[:, 0])]
    a, b = np.median(lit[:, 1]), np.median(lit[:, 2])
    band = lab[(cheb > PEEK_BAND_MM[0]) & (cheb < PEEK_BAND_MM[1])]

    def like(lab: np.ndarray, ref: np.ndarray, chroma: float) -> np.ndarray:
        """Whether Lab colours look like ``ref``: lightness within 15 %, a and b within
        ``chroma``."""
        return ((np.abs(lab[..., 0] - ref[0]) < 0.15 * ref[0])
                & (np.hypot(lab[..., 1] - ref[1], lab[..., 2] - ref[2]) < chroma))

    if like(np.array([light, a, b]), glaze, TOP_CHROMA):
        return np.ones(levels)
    share = float(np.mean(like(band, np.array([light, a, b]), 8.0)
                          & ~like(band, glaze, TOP_CHROMA)))
    w = float(np.exp(np.clip(PEEK_SLOPE * (share - PEEK_AT), -1.0, 1.0)))
    return np.array([1.0] + [w] * (levels - 1))


def _behind(image: np.ndarray, frame: _Frame, geom: Geometry, fields: list, heights: list,
            reference: float, glaze, blue_fields: set,
            top_symbol: Callable[[int], float] | None = None) -> bool:
    """A field whose centre on the board (where occupancy is judged) another stack hides
    from the camera (the 3x3 games' far rows) reads that stack, not itself: it is judged
    again on the points of the board within its cube's footprint that the camera sees
    past the other stacks (each grown by the cubes' play): a cube there covers them, else
    they show the glaze. With fewer than ``MIN_SEEN`` of them seen (``hidden``; for an
    occupied field its height keeps ``HIDDEN_KEEP`` of its evidence) the few seen still
    decide, their confidence shrunk towards 0.5 by their number; with none seen, the points
    of a one-cube top face seen past the other stacks (a cube's top shows above the stack
    in front of it): where they show no cube, lighter than a cube and in the glaze's colour
    (``TOP_CHROMA``), or where ``PAST_EMPTY`` of those whose line of sight past it lands on
    the board or the table where no other stack stands in front (``PAST_MIN``, at least)
    look like the glaze or the table (``stack_height.background_models``), the field is
    empty (at most ``HIDDEN_SURE``); else, given ``top_symbol`` (field -> ``_top_symbols``'
    reading; tic-tac-toe: cubes one high, symbol up) where that top face is seen (but
    ``UP_MAX_HIDDEN`` of it), it holds a cube where the model reads a symbol on the up face
    of one cube cut there (at least ``HIDDEN_SYMBOL``) and is empty where it does not, at
    ``HIDDEN_SURE``; else it stays as read at ``HIDDEN_CONFIDENCE``, so a second
    camera's view or the referee's caution takes over (a line of sight past it that lands
    on another stack tells nothing by colour: a cube's top and that stack's side face both
    look like wood). Measured on dev renders (3x3 games, seeds 100..199, any camera, 106 such
    fields): the few points seen were right 16 of 17 times. Returns whether an
    occupancy changed (the heights are then measured again)."""
    grow = CUBE_MM / 2 + PLAY_MM
    boxes = {i: (u - grow, u + grow, v - grow, v + grow, 0.0, h.cubes * CUBE_MM)
             for i, ((_, u, v, _), h) in enumerate(zip(geom.cells, heights, strict=True))
             if h is not None}
    grid = np.linspace(-FOOTPRINT_MM, FOOTPRINT_MM, 8)
    h_img, w_img = image.shape[:2]

    def pixels(points: np.ndarray) -> np.ndarray:
        """The image pixels (1, N, 3) the board points project to."""
        px = np.round(project(frame.pose, points, frame.dist)).astype(int)
        px = np.clip(px, 0, (w_img - 1, h_img - 1))
        return image[px[:, 1], px[:, 0]][None]

    models: list = []  # the background's colour models, sampled once needed

    def past_share(tops: np.ndarray, others: list) -> tuple[float, int]:
        """(the share that looks like the glaze or the table, their number) of the points
        ``tops`` whose line of sight past them lands on the board or the table, not on one
        of the ``others``."""
        ray = tops - frame.camera
        land = frame.camera - (frame.camera[2] / ray[:, 2])[:, None] * ray
        off = (np.abs(land[:, 0]) > geom.width / 2) | (np.abs(land[:, 1]) > geom.depth / 2)
        land[off] = frame.camera - ((frame.camera[2] + geom.thickness)
                                    / ray[off, 2])[:, None] * ray[off]
        tops = tops[~cg.hidden(land, frame.camera, others)]
        if not len(tops):
            return 0.0, 0
        if not models:
            occupied = [f["occupied"] for f in fields]
            models.append(background_models(
                cv2.cvtColor(image, cv2.COLOR_BGR2Lab), frame.pose, geom,
                stacks_mask(image.shape[:2], frame.pose, geom, occupied, frame.dist),
                frame.dist, occupied))
        if not models[0]:
            return 0.0, len(tops)
        lab = cv2.cvtColor(pixels(tops), cv2.COLOR_BGR2Lab)[0].astype(np.float64)
        return float(np.mean(np.min([m.distance(lab) for m in models[0]], axis=0)
                             <= CUBE_DISTANCE)), len(tops)

    changed = False
    for i, (field, (_, u, v, half)) in enumerate(zip(fields, geom.cells, strict=True)):
        others = [b for j, b in boxes.items() if j != i]
        r = half * 0.6
        centre = np.array([(u - r, v + r, 0.5), (u + r, v + r, 0.5), (u + r, v - r, 0.5),
                           (u - r, v - r, 0.5)])
        if cg.hidden_fraction(centre, frame.camera, others) <= HIDDEN_SHARE:
            continue
        pts = np.array([(u + a, v + b, 0.5) for a in grid for b in grid])
        seen = pts[~cg.hidden(pts, frame.camera, others)]
        if len(seen):
            p = _occupied(pixels(seen), geom, reference, glaze, i in blue_fields)
            sure = max(p, 1 - p)
            occupied = p >= 0.5
            confidence = 0.5 + (sure - 0.5) * min(1.0, len(seen) / MIN_SEEN)
        else:
            tops = np.array([(u + a, v + b, CUBE_MM - 0.5) for a in grid for b in grid])
            tops = tops[~cg.hidden(tops, frame.camera, others)]
            top_seen = len(tops) / len(grid) ** 2
            share, count = past_share(tops, others)
            p, bare = 1.0, count >= PAST_MIN and share >= PAST_EMPTY
            if len(tops):
                tops = pixels(tops)
                p = _occupied(tops, geom, reference, glaze, bool(blue_fields))  # past
                #   an empty field the line of sight may land on a blue field
                lab = cv2.cvtColor(tops, cv2.COLOR_BGR2Lab).astype(np.float64)
                chroma = np.median(np.hypot(lab[..., 1] - glaze[1], lab[..., 2] - glaze[2]))
                bare |= bool(p < 0.5 and chroma < TOP_CHROMA)
            occupied = field["occupied"] and not bare
            confidence = (float(np.clip(max(1 - p, share), HIDDEN_CONFIDENCE, HIDDEN_SURE))
                          if bare else HIDDEN_CONFIDENCE)
            if not bare and top_symbol is not None and top_seen >= 1 - UP_MAX_HIDDEN:
                occupied = top_symbol(i) >= HIDDEN_SYMBOL
                confidence = HIDDEN_SURE
        changed |= occupied != field["occupied"]
        field.update(occupied=occupied, confidence=confidence)
        if len(seen) < MIN_SEEN:
            field["hidden"] = True
    return changed


def _top_symbols(image: np.ndarray, frame: _Frame, cells: list, calibration: dict | None,
                 model, levels: int = 1) -> list[float]:
    """Per field of ``cells`` (``Geometry.cells``' entries), the surest probability of a
    symbol (not blank) the symbol model reads on the up face of a stack of 1..``levels``
    cubes on it, cut unturned on its centre and ``PROBE_MM`` off it along both diagonals
    (as ``_probe_heights`` cuts a height's up face); all in one run."""
    cuts = [(n, du, dv) for n in range(1, levels + 1)
            for du, dv in [(0.0, 0.0)] + list(itertools.product((-PROBE_MM, PROBE_MM),
                                                               repeat=2))]
    planes = [frame.pose.plane_homography(n * CUBE_MM) for n in range(1, levels + 1)]
    crops = [_up_cut(image, planes[n - 1], u + du, v + dv, 0.0)
             for _, u, v, _ in cells for n, du, dv in cuts]
    symbol = [max(p for label, p in pred["symbol"].top if label != BLANK)
              for pred in predict(calibration, "symbol", model, crops, 4)]
    return [max(symbol[k:k + len(cuts)]) for k in range(0, len(symbol), len(cuts))]


def _weighed_by_symbol(p: float, symbol: float, blank_counts: bool = True) -> float:
    """A field's probability of a cube ``p`` with the log-odds of ``symbol`` (the surest
    symbol read on the up face of one cube there: ``_top_symbols``) over ``SYMBOL_EVEN``'s
    added; without ``blank_counts`` only where they are more (3andC, whose cubes may stand
    blank up: a print read says a cube is there, none says nothing)."""
    p, symbol = (float(np.clip(x, 1e-4, 1 - 1e-4)) for x in (p, symbol))
    gain = np.log(symbol / (1 - symbol)) - np.log(SYMBOL_EVEN / (1 - SYMBOL_EVEN))
    odds = np.log(p / (1 - p)) + (gain if blank_counts else max(gain, 0.0))
    return float(1 / (1 + np.exp(-odds)))


def _up_cut(image: np.ndarray, plane: np.ndarray, u: float, v: float,
            yaw: float) -> np.ndarray:
    """The model's crop of the up face of a cube centred at (u, v) turned ``yaw`` (radians),
    its top on the plane whose homography is ``plane``."""
    pts = cg.face_points(u, v, 0, yaw, "up")[:, :2]
    img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), plane).reshape(-1, 2)
    return cg.warp(image, img, cg.crop_order(img), FACE_CROP)


def _colour(cube: dict, log_odds: float, top: bool) -> None:
    """A cube's player from the symbol model's colour head over its faces seen (log-odds of
    green), with the top cube's Lab reading of its top face added, the head's counting
    ``HEAD_WEIGHT`` there (measured on renders: the head is right more often on side faces
    in shade, Lab on lit top faces); where the two name different players, at
    ``PLAYER_DISPUTED`` at most."""
    disputed = False
    if top:
        p = min(cube["player_confidence"], 0.97)
        disputed = (log_odds > 0) != (cube["player"] == 1)
        log_odds = HEAD_WEIGHT * log_odds + (1 if cube["player"] == 1 else -1) * np.log(
            p / (1 - p))
    cube["player"] = int(log_odds > 0)
    cube["player_confidence"] = float(1 / (1 + np.exp(-abs(log_odds))))
    if disputed:  # the head and the top's Lab name different players: listed
        cube["player_confidence"] = min(cube["player_confidence"], PLAYER_DISPUTED)


def _colours_from_sides(crops: list, seen: list, glaze_a: float,
                        pieces: np.ndarray | None = None) -> None:
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
        player, conf = _player(crop[8:24, 8:24], glaze_a, pieces)
        field["cubes"][level].update(player=player, player_confidence=conf)


def covered(image: np.ndarray, fix: BoardFix, geom: Geometry, reading: Reading,
            calibration: dict | None = None) -> np.ndarray:
    """Bool image mask of what the stacks of ``reading`` may cover: each occupied field's
    stack as a box grown by the cubes' play, one cube taller than read where the field is
    not read surely (``HEIGHT_SURE``; a field read empty but not surely as one cube).
    ``vision.occlusion.edge_occlusion`` ignores the edge under it: a tall stack leaning
    across the board's edge in the image is no hand."""
    frame = _Frame(image, fix, geom, calibration)
    sure = {u["path"]: u["confidence"] for u in reading.uncertain}
    grow = CUBE_MM / 2 + PLAY_MM
    boxes = []
    for i, (stack, (_, u, v, _)) in enumerate(zip(reading.position["cells"], geom.cells,
                                                  strict=True)):
        n = len(stack) + (sure.get(f"cells.{i}", 1.0) < HEIGHT_SURE)
        if n:
            boxes.append((u, v, grow, 0.0, min(n, 4) * CUBE_MM))
    return cg.boxes_mask(image.shape, frame.pose, boxes, frame.dist)


def read(image: np.ndarray, fix: BoardFix, geom: Geometry,
         calibration: dict | None = None, cube_set: str = CUBE_SET) -> Reading:
    """The position of an e-SOLO-e family board in ``image``."""
    fields = read_fields(image, fix, geom, calibration, cube_set)
    _balance(fields, geom.game)
    cells: list[list[dict]] = []
    reading = Reading({"cells": cells})
    for i, field in enumerate(fields):
        cubes = field["cubes"] if field["occupied"] else []
        stack = [{"player": got["player"], "faces": dict(got["faces"])} for got in cubes]
        confidence, alternatives = _stack_readings(
            field, stack, [got["player_confidence"] for got in cubes])
        reading.add(confidence, f"cells.{i}", FACE_CONFIDENT, alternatives)
        listed = bool(alternatives) and confidence < FACE_CONFIDENT
        for level, got in enumerate(cubes):
            path = f"cells.{i}.{level}"
            # where the stack's alternatives are listed, its cubes' other colours are among
            # them: the referee puts a stack in before what lies in it, so an alternative of
            # a cube's player would land on a cube of the other stack
            reading.add(got["player_confidence"], f"{path}.player", 0.9, None if listed
                        else [[1 - got["player"], round(1 - got["player_confidence"], 4)]])
            for d, p in got["face_probability"].items():
                reading.add(p, f"{path}.faces.{d}", FACE_CONFIDENT,
                            got.get("up_alternatives") if d == "up" else None)
        cells.append(stack)
    return reading


def _balance(fields: list[dict], game: str) -> None:
    """The players of the cubes no face of which was seen (``player_confidence`` 0.5: a
    lower cube seen from straight above) chosen so that the players' counts are those that
    placing in turn gives (``rules.next_player``), where the cubes seen allow it. Player 0
    for all of them gave a player more than its 8 cubes where stacks are tall, which the
    rules reject, and ``observe.most_likely_valid`` then swapped in alternatives until the
    position was valid, an empty field among them (dev renders, esoloe, seeds 100..199,
    any camera, true corners: 6 stacks read empty so)."""
    from rules.registry import get_game

    cubes = [c for f in fields if f["occupied"] for c in f["cubes"]]
    unseen = [c for c in cubes if c["player_confidence"] <= 0.5]
    if not unseen:
        return
    rules, expected = get_game(game), [0, 0]
    for _ in cubes:
        player = rules.next_player(tuple(expected))
        if player is None:
            return
        expected[player] += 1
    need = expected[0] - sum(c["player"] == 0 and c["player_confidence"] > 0.5 for c in cubes)
    if 0 <= need <= len(unseen) and len(cubes) - expected[0] >= len(unseen) - need:
        for k, cube in enumerate(unseen):
            cube["player"] = 0 if k < need else 1


def _unseen(player: int) -> dict:
    """A cube no face of which was seen."""
    return {"player": player, "faces": dict.fromkeys(DIRECTIONS)}


def _stack_readings(field: dict, stack: list[dict], players: list[float] = ()) -> tuple[
        float, list]:
    """(probability of ``stack`` as read, the next most likely stacks of the field as
    ``uncertain`` alternatives [[stack, probability], ...]): the field empty or holding
    one cube (of the player its colour suggests) where its occupancy is unsure, the stack
    with its least sure cube (``players``: each cube's player confidence) of the other
    colour, the stack lower (the cubes right under the top one taken out) or one or two
    cubes taller (cubes of either player, unseen, put under the top one) as its heights'
    probabilities say.
    Each at its probability, so that with the reading's they hold the field's whole belief
    (``observation.doubts_combined``); left out: those under ``ALTERNATIVE_MIN``, and past
    ``MAX_ALTERNATIVES`` (taken by height from the most likely), what does not fit."""
    p_cube = field["confidence"] if field["occupied"] else 1 - field["confidence"]
    if not stack:
        player, sure = field.get("player", 0), field.get("player_confidence", 0.5)
        options = [([_unseen(player)], p_cube * sure), ([_unseen(1 - player)],
                                                        p_cube * (1 - sure))]
        return 1 - p_cube, _kept(options)
    heights = field["heights"]
    n = len(stack)
    groups = [[([], 1 - p_cube)]]
    confidence = p_cube * heights[n - 1]
    if players and min(players) < FACE_CONFIDENT:
        k = int(np.argmin(players))
        flipped = [dict(c) for c in stack]
        flipped[k]["player"] = 1 - flipped[k]["player"]
        groups.append([(flipped, confidence * (1 - players[k]) / players[k])])
    for m in sorted(range(1, len(heights) + 1), key=lambda m: -heights[m - 1]):
        if m == n or m > n + 2:
            continue
        if m < n:
            variants = [stack[:m - 1] + [stack[-1]]]
        else:
            variants = [stack[:-1] + [_unseen(p) for p in players] + [stack[-1]]
                        for players in itertools.product((0, 1), repeat=m - n)]
        groups.append([(v, p_cube * heights[m - 1] / len(variants)) for v in variants])
    options: list = []
    for group in groups:
        group = [g for g in group if g[1] >= ALTERNATIVE_MIN]
        if len(options) + len(group) <= MAX_ALTERNATIVES:
            options += group
    return confidence, _kept(options)


def _kept(options: list) -> list:
    """The options worth naming as alternatives, most probable first, rounded."""
    kept = [(v, p) for v, p in options if p >= ALTERNATIVE_MIN]
    return [[v, round(float(p), 4)] for v, p in sorted(kept, key=lambda o: -o[1])]
