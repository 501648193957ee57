"""Board registration: where the game board lies in the camera image, fixed once at
set-up (``tableref calibrate board``).

- Automatic: ``vision.board.find_board`` on the first frames of the still, empty board;
  on a ceramic tile with painted lines (``LINE_FIT``: e-SOLO-e's strip, tic-tac-toe)
  each frame's corners are then checked against those lines (``on_lines``: a side
  fitted on a line inside the edge is moved out to where the whole pattern lies on them); the
  registration is the mean of the largest group of frames whose corners all agree
  (within ``AGREE_PX`` of one of them), so a bad frame does not move it. On the ceramic
  tiles its sides are then fitted to the frame line painted ``CERAMIC_FRAME_MM`` inside
  the edge, on the mean of those frames (``fit_frame_lines``). It is refused
  (``RegistrationError``, saying why) rather than stored where the board was seen in too
  few frames (``MIN_AGREE``) or the frames do not agree, where a tile's frame line is
  blurred ``BLUR_REFUSE_MM`` or more (too few px a mm, focus or motion for 1 mm), and
  where its fit report (below) is off by more than ``REFUSE_MM`` (on Tyr and Cubes its
  rigid check by more than ``RIGID_REFUSE_MM``; on Tyr where its own lines sought across
  a smear would move it more than ``SMEAR_REFUSE_MM``): a board found wrongly, to be
  registered by hand.
- Manual: the four corners (nw, ne, se, sw: the board's north is away from the camera)
  given as numbers, or clicked on a saved frame where a display exists; with the frame
  snapped to the board's edges by ``vision.board.refine``, then fitted to a tile's frame
  line or to the other boards' painted lines, and refused where those do not follow
  them (``register_manual``).

Naming: the registration fixes which side of the board is north for as long as it is
used (``vision.observe`` reads every frame on the registered corners, never naming them
again). A board without marks (``vision.board.named_by_camera``: tic-tac-toe, Tyr) is
named automatically by the observation's camera convention (north the side farthest up
the image; docs/vision.md, *Naming*); ``turn`` renames it where the table's players have
agreed otherwise (Tyr's [1,1] corner). The fit report's ``naming`` says how it was named
and how near the camera rule was to naming it a quarter turn otherwise
(``camera_margin_deg``, under ``NAMING_MARGIN_DEG``: check it).

The fit report (millimetres on the board plane): every frame's corners mapped back
through the homography of the frames' mean and compared with the board's true corner
positions (how well the frames agree); on the ceramic tiles each frame line's offset from
where the registration puts it and its blur (``frame_lines``); with a camera calibration
also the corners predicted by the board's rigid pose (``vision.grid.board_pose``: the four
corners must form a rectangle of the board's size seen by that camera), which catches a
mis-clicked corner that four points alone always fit; with a lens that distorts, how far
the homography of the registered corners puts the board's corners and field centres off
where that lens shows them (``lens_*``, ``_lens_error``: what no four corners store; an
automatic registration over ``REFUSE_MM`` by it alone is refused naming the lens).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from enum import StrEnum

import cv2
import numpy as np

from calibration.files import CORNER_NAMES, BoardRegistration, CameraCalibration
from vision.board import (
    BoardFix,
    Geometry,
    apply_homography,
    camera_rule_margin,
    corners_homography,
    edge_model,
    find_board,
    geometry,
    named_by_camera,
    refine,
)

AGREE_PX = 3.0  # frames whose corners are all this near one another's agree
MIN_AGREE = 2  # frames that must agree (fewer where fewer are asked for)
AGREE_SHARE = 0.5  # ... and this share of the frames the board was found in
REFUSE_MM = 1.0  # an automatic registration whose fit report is off by more is refused
CHECKS = ("frames", "rigid", "lens", "lines")  # the fit report's checks, by their keys
#: ... and on these boards one whose rigid check (``fit_report``'s ``rigid_max_mm``, with a
#: camera) is off by more than this: dev Tyr and Cubes 1496..1543, Tyr 127, 1411, 1453,
#: Cubes 1450 (196 boards, the bench's way with the true camera) stored under 1 mm show
#: 0.01..0.54 mm (Tyr oblique 1523, 5.4 px of motion), the two stored over 1 mm 0.90 and
#: 0.85: Tyr oblique 1498 (1.62 mm: two of three frames put sw 4..5 px off, 5.1 px of
#: motion, and the vote kept them), Cubes oblique 1450 (2.33 mm: 6.6 px of motion, the
#: finder's north side 2 mm south in all three frames, the card's grid smeared)
RIGID_REFUSE_MM = 0.7
RIGID_REFUSED = frozenset({"tyr", "cubes"})
#: boards whose automatic registration is refused (the frames disagree) where a frame the
#: vote left out shows this much more of the board's painted lines in place on its own
#: corners (``vision.board.pattern_check``'s share within 1 px) than the registration,
#: refitted, shows on the first agreeing frame: the vote went to frames found off alike,
#: and the own lines' refit did not bring them back. Dev Neunfeld 1400..1591 (75 boards
#: a frame of which was outvoted, the bench's way): stored over 1 mm overhead 1576 0.35
#: more (3.16 mm off), oblique 1412 0.29 (6.88 mm), 1427 0.17 (4.40 mm), 1495 0.12 (1.03
#: mm), 1536 0.06 (1.26 mm); stored under 1 mm 0.08 at most (overhead 1525, 0.38 mm).
#: Against the agreeing frames' own corners instead, oblique 1472, whose two frames the
#: refit brought from 3.5 to 0.15 mm off, showed 0.27 more
OUTVOTED_SHOWN = 0.15
OUTVOTE_CHECKED = frozenset({"neunfeld"})
FRAMES = 5  # frames the automatic registration averages
NAMING_MARGIN_DEG = 10.0  # a camera rule's naming this near its ambiguity is to be checked
#: ceramic tiles whose edge model's painted lines (the frame line and the fields' outlines)
#: ``on_lines`` checks the found corners against. Not 3andC: on its blue fields and black
#: dots the lines' map shows a board shifted by most of a field better than the true one;
#: since b07447b's renders it made no 3andC frame of dev 100..115 better and 6 of 90
#: worse (0.5..1.6 -> 5.8..14.1 mm), where the finder alone was within 1.6 mm
LINE_FIT = frozenset({"esoloe", "esoloe-tictactoe"})
#: sides (0 north .. 3 west) ``on_lines`` may move, where not all four: e-SOLO-e's maker's
#: mark in the south margin draws its south side onto it
LINE_SIDES = {"esoloe": (0, 1, 3)}
LINE_KERNEL_MM = 5.0  # painted lines (and two fields' outlines run together) narrower
LINE_BLUR_MM = 0.5  # the lines' map smoothed so, that it rises towards them
SIDE_SCAN_MM = (-4.0, 16.0, 0.25)  # each side tried this far in (-) and out (+), in steps
SIDE_GAIN = 0.02  # a side moves where the lines show this much (relative) better
SIDE_MOVES = 4  # sides moved one at a time, the one the lines gain most by first
JOINT_STEPS_MM = (1.0, 0.5, 0.25, 0.1)  # then each corner moved so, while the lines gain
SIDE_NAMES = ("north", "east", "south", "west")
OUTWARD = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, -1.0], [-1.0, 0.0]])  # north east south west
#: on these tiles a side moved out further than ``OUT_CHECKED_MM`` is kept only where its
#: margin (``MARGIN_MM`` inside its moved edge) is at least ``GLAZE_SHARE`` as light as the
#: board's median grey: e-SOLO-e's strip, where a dark band (shadow) just outside the tile
#: otherwise passes for its frame line (overhead seed 103 1.9 -> 8 mm). Not tic-tac-toe,
#: whose right moves out show margins as dark (0.82 of its median: held out oblique 314)
GLAZE_CHECKED = frozenset({"esoloe"})
OUT_CHECKED_MM = 2.0
MARGIN_MM = (0.5, 1.5, 2.5)
GLAZE_SHARE = 0.9
#: on every tile a side where the grey steps down across it (``MARGIN_MM`` inside against as
#: far outside) by at least ``EDGE_SHARE`` of the board's median grey lies on the tile's
#: edge (its glaze against the table or its own side) and is not moved out further than
#: ``OUT_CHECKED_MM``: on blurred tiles seen at 1..1.3 px a mm the table or a shadow beside
#: the edge showed in the lines' map as a line, and right sides were moved 6 mm out (the
#: frame line onto the fields' outlines); a side the finder put on a painted line's flank
#: stepped down 0.3 of it at most (docs/history/calibration.md, Session 8)
EDGE_SHARE = 0.35
#: the frame line check (``frame_lines``; the ceramic tiles, whose frame line is painted
#: ``CERAMIC_FRAME_MM`` inside the edge): the mean of the frames across each frame line,
#: ``PROFILE_MM`` either side of where the registration puts it (in steps), fitted with the
#: painted lines there (1 mm wide, dark) and the tile's edge, blurred by each of ``BLUR_MM``
#: (Gaussian sigma, mm on the board) and shifted up to ``LINE_SHIFT_MM``
PROFILE_MM = (4.0, 0.1)
LINE_SHIFT_MM = 2.5
BLUR_MM = (0.4, 0.7, 1.0, 1.5, 2.0, 3.0)
#: a registration whose frame line is blurred this much or more is refused: there the
#: corners and the lines' check are both off by up to 2 mm at the true corners (dev
#: 100..115, tic-tac-toe: sharp boards 0.4..2 mm, the failures 3 mm: 0.76..1.06 px a mm
#: with 5 px of motion, or 0.78 px a mm at the far side out of focus)
BLUR_REFUSE_MM = 2.5
LINE_FITS = 2  # the corners fitted to the frame lines (``fit_frame_lines``) so many times
HAND = "register it by hand (--corners, or --click on a saved frame)"  # refusals' advice
#: the advice where the lens, not the corners, puts the fields off (``_lens_error``)
LENS_ADVICE = "put the board nearer the middle of the image or the camera farther away"
#: given corners on a ceramic tile (``register_manual`` with a frame): each half side's
#: frame line is looked for this far either side of where they put it, and fitted there
#: (then as automatic registration fits it); 1.5 px clicked at the far side of an oblique
#: view is up to 6.6 mm (dev tic-tac-toe oblique 111), a corner 20 mm off puts a half
#: side's line at the search's end or blurs it over ``BLUR_REFUSE_MM`` (dev 100..111)
GIVEN_SHIFT_MM = 6.0
#: ... and so wide a search also reaches the dark band just outside the tile's edge (its
#: side face or shadow, often darker than the frame line: held out e-SOLO-e overhead 1006's
#: west side fitted onto it, stored 5.5 mm off) and the maker's mark (dev e-SOLO-e
#: overhead 155, 8.9 mm): there, of the fit's local minima not smeared, the line is the one
#: the profile is fitted best at with that band ``OUTSIDE_MM`` wide too (``frame_lines``'
#: ``outside``; the band alone moved the near side of oblique views), the band taken where it
#: is dark and the frame line at least ``OUTSIDE_LINE`` as dark as it (a lone frame line
#: is not a band: held out e-SOLO-e oblique 1001's north side moved 4.5 mm in)
OUTSIDE_MM = 2.0
OUTSIDE_LINE = 0.25
#: ... and where they cannot be fitted there and the halves' median blur is this much,
#: they are refused as blurred; an automatic refusal (frames disagree, fit report) on a
#: frame line blurred so much advises the camera nearer (dev 103's far, moving tiles:
#: 1..3 mm, 0.7..1.1 px a mm; the 20 mm corners of dev 100..111's sharp tiles: 0.55)
ADVISE_BLUR_MM = 1.5
#: given corners on the leather boards and Cubes' card (``_fit_given_pattern``): refused
#: where under this share of the board's painted lines (``vision.board.pattern_check``:
#: within 1 px of where the fitted corners put them) show. Set on dev 100..103 (Neunfeld,
#: Tyr, Cubes, the bench's clicks): 15 of 24 boards show 0.92..1.0, all within 1 mm but
#: Cubes oblique 100 and 101 (2.6, 2.2 mm, at about 1 px a mm), 9 show 0.31..0.88, 5 of
#: them 1.05..5.9 mm off (4 within 0.5 mm, blurred); a corner given 20 mm off on
#: Neunfeld shows 0.04..0.4
GIVEN_LINES_SHOWN = 0.9
#: boards whose reader refits its corners onto the board's own printed lines every frame
#: (``refine`` of these modules: Cubes' grid, Neunfeld's stitching and separators, found
#: to a tenth of a mm along each line and fitted robustly): registration ends with the
#: same refit, automatic on the mean of the agreeing frames, by hand on the frame given
#: (``_on_own_lines``). The finder's fit, and the painted lines' fit of given corners,
#: kept whole sides 2..2.6 mm off on dev Cubes oblique 100, 101 (given) and Neunfeld
#: oblique 106 (automatic), the refit 0.1..0.8 mm; where the painted lines' fit is
#: refused, the refit from the given corners placed dev Neunfeld oblique 100, 101 and 106
#: within 0.7 mm (both refused before: automatic said the frames disagree). Tyr's
#: leather too (``read_tyr.refine``: its grid's lips and its stitching; its reader does
#: not refit every frame): dev Tyr 100..131 automatic oblique 29 -> 30 of 32 under 1 mm
#: (median 0.58 -> 0.38 mm; 111 0.98 -> 0.32), the bench's clicks refused 18 -> 14 of 64
OWN_LINES = {"cubes": "vision.read_cubes", "neunfeld": "vision.read_neunfeld",
             "tyr": "vision.read_tyr"}
#: ... the reader's refit so made (keywords of its ``refine``): on Neunfeld's strip every
#: move taken, where the reader keeps corners its lines move under
#: ``read_neunfeld.MIN_MOVE_PX`` (2 px, a frame's corners steady), which at the far side
#: of an oblique view is over a millimetre: dev Neunfeld oblique 1470 stored 1.25 ->
#: 0.32 mm; ``bench.calibration_bench boards 1448..1471 neunfeld``, automatic oblique
#: 16/6/2 -> 17/6/1 (under 1 mm / refused / over), median 0.39 -> 0.23 mm, overhead
#: 21/3/0 both, 0.30 both (worst 0.6 -> 0.7); clicked oblique 18/4/2 both, 0.29 -> 0.23,
#: overhead 21/2/1 both, 0.32 -> 0.31
REFIT_OPTIONS = {"neunfeld": {"min_move_px": 0.0}}
#: ... and on Cubes' card then moved by its grid's robust fit (``_on_grid``) up to
#: ``GRID_PASSES`` times, while the grid agrees no worse, until a corner moves under
#: ``GRID_STILL_MM``: the reader's refit moves only where the lines agree 1.2 times
#: better (``read_cubes.REFINE_GAIN``), which a board 1.4 mm off at a corner does not
#: reach (dev Cubes oblique 101, automatic; the grid's fit put it 1.5 mm off). Dev Cubes
#: 100..107: automatic oblique 101 1.37 -> 0.12 mm, 105 0.72 -> 0.12, overhead 106 0.61
#: -> 0.28, none worse by over 0.03 mm; by hand overhead 103, 104 refused -> 0.79, 0.82,
#: oblique 102 0.34 -> 0.39, overhead 100 0.68 -> 0.76
GRID_PASSES = 3
GRID_STILL_MM = 0.05
#: ... and then sides moved onto a line along them (``_on_sides``; game: the sides, and
#: whether the line is the stitching or else Cubes' band's inner edge): on Neunfeld's
#: strip each long side onto its stitching (light, ``vision.board.LEATHER_STITCH_MM``
#: inside the edge); on Cubes' card each side onto its printed band's inner edge
#: (``vision.board.CARD_BAND_MM`` inside the edge), which the grid's fit, 7.75 mm inside
#: it, left a whole side 0.75..0.85 mm off at the true corners' band on dev Cubes
#: overhead 103, oblique 128 (stored 1.44, 1.14 mm; the band at the true corners 0.0 mm
#: off on 10 sharp dev boards)
SIDES_FITTED = {"neunfeld": ((0, 2), True), "cubes": (range(4), False),
                "tyr": (range(4), True)}
#: ... on these boards only where the reader's refit left the corners as they were: Tyr,
#: whose refit keeps them where its lines do not place the board (``read_tyr.SPREAD_MM``,
#: ``_stitch_off``: blurred, or its stitching not shown), and there the finder's corners
#: were stored 1..4 mm off; each side onto its stitching (6 mm inside the edge) and the
#: edge's step (past the profile's reach but for the shift: fitted at its end, a rise
#: that places the far side of an oblique view, whose stitching barely shows; without it
#: no side moved). Dev Tyr 1496..1543, 127, 1411, 1453 (99 boards, both cameras, the
#: bench's way), automatic under 1 mm / refused / stored over 1 mm 91/3/5 -> 94/3/2 (oblique
#: 1411 1.94 -> 0.56 mm, 1.8 px of focus blur; overhead 1453 1.24 -> 0.77, 4 px of motion;
#: oblique 1526 1.85 -> 0.32; oblique 1498 3.72 -> 1.62, 5.1 px), none worse; clicked
#: 85/12/2 -> 93/1/5 (11 refused ``off the lines`` now stored, 8 of them 0.17..0.77 mm
#: off, oblique 1498, 1504, 1523 1.46, 1.11, 1.14 mm; 1498's and 1504's clicks alone lie
#: 2.27 and 2.54 mm off). Fitted on sharp boards too, after the refit, 13 of dev
#: 1496..1519's 48 moved 0.05..0.55 mm, 6 of them worse (overhead 1509 0.27 -> 0.82)
SIDES_IF_UNMOVED = frozenset({"tyr"})
#: each sought this far either side: the finder and the reader's refit held both long sides on the
#: stitching, the strip 3..4 mm too narrow (dev Neunfeld 108..115: overhead 109 1.62 ->
#: 0.65 mm, oblique 109 2.11 -> 0.53, 112 0.75 -> 0.53; 111 and 113, 2.3 and 3.5 mm
#: off, lie past it, and 4 mm reached them but moved sound sides onto the table: 108
#: 0.28 -> 4.9 mm, 114 0.25 -> 3.5 by hand; worse with 2.5 mm: oblique 108 0.40 -> 0.68,
#: none over 1 mm; dev 100..107 within 0.1 mm but oblique 103, 5.85 -> 7.64)
STITCH_SHIFT_MM = 2.5
#: given corners refitted on the own lines where the painted lines' fit was refused
#: (``_fit_given_pattern``) are kept only where this share of the painted lines then lie
#: in place: dev Neunfeld oblique 100, 101, 106 showed 0.88..0.96 (0.3..0.7 mm off),
#: Cubes overhead 103, 104 0.81, 0.82 (0.8 mm), Cubes oblique 115 0.61 (4.0 mm off)
OWN_LINES_SHOWN = 0.75
#: ... but on Tyr's leather wherever the refit moved them: its refit moves nothing where
#: its own lines do not lie within ``read_tyr.SPREAD_MM`` of where it puts them (there
#: its sides are fitted onto its stitching instead, ``SIDES_IF_UNMOVED``), and the
#: painted lines' share is no check there (at the true corners dev Tyr oblique 100, 106,
#: 113, 121 show 0.62..0.82; the refit of the bench's clicks put 100 and 106 0.73 and 0.35
#: mm off, showing 0.69 and 0.73)
SELF_CHECKED = frozenset({"tyr"})
#: ... and on all of them no fit is taken that moves a corner further than this from where
#: it was given (clicked: before the snap to the edges): a user's clicks are good to a few
#: px, the bench's to 1.5 px (4 sigma of it: a fit onto the truth lies so far from such
#: clicks at one corner of four once in 700), where a strip's fit can slide a whole side
#: onto another line its painted lines agree with as well. Dev Neunfeld oblique 1477: the
#: far long side moved 19 px onto the number row, stored 24.0 mm off, its pieces and
#: separators all in place; 1474 8.3 px, 6.5 mm; the own lines' refit of the clicks
#: instead stores them 0.22 and 0.24 mm off. On dev 1448..1495 no fit stored within 1 mm
#: moved a corner more than 5.3 px; Tyr overhead 1485's refit, 6.3 px and 2.3 mm off, is
#: refused. The cost: seed 1437's clicks lie 6.0 px off at one corner, and its Neunfeld
#: fits, 0.37 and 0.53 mm off, moved it 6.7 and 6.2 px: refused (docs/calibration.md)
GIVEN_TRUST_PX = 6.0
#: automatic registration keeps the finder's corners where the own lines' refit of them
#: (``_on_own_lines``) takes this share or more of the board's painted lines out of place
#: (``_refit_kept``): dev Neunfeld oblique 1485's refit moved its strip off them, 0.92 ->
#: 0.23 in place, 0.50 -> 1.51 mm off; Tyr overhead 1485 0.81 -> 0.49, 0.38 -> 2.96 mm.
#: No other refit of dev 1448..1495 (288 boards) lost 0.3: the most, Cubes overhead 1450
#: 0.26 (1.33 -> 0.54 mm: kept), Neunfeld overhead 1464 0.25 (0.53 -> 0.74), Cubes
#: overhead 1491 0.18 (1.03 -> 1.14), Tyr oblique 1476 0.15 (1.70 -> 0.33)
REFIT_LOST_SHOWN = 0.3
#: boards whose automatic registration is refused (``_smear_check``) where the board's own
#: lines, sought with sides wider than a line smeared by the camera's motion
#: (``read_tyr.smeared_shift``, ``read_tyr.SMEAR_SIDES_MM``), would move a corner farther
#: than ``SMEAR_REFUSE_MM``: the narrow ridges the refit is made on lie at one end of a
#: smeared line, all together, and the refit takes the board there as a whole (dev Tyr
#: overhead 1612, 3.8 px of motion: stored 1.69 mm off, its pieces a median 0.08 mm off
#: the refit, the wide ones calling for 1.60 mm). Dev Tyr 1400..1615 (432 boards, the
#: bench's way): the stored over 1 mm called for 0.91..1.73 mm, 1.40 or more on 5 of 8
#: (oblique 1424, 1453, 1602, 1612, overhead 1612); those under 1 mm 1.17 at most
#: (oblique 1523, 0.89 mm off; 1569 1.13, 1562 1.07)
SMEAR_CHECKED = frozenset({"tyr"})
SMEAR_REFUSE_MM = 1.3
#: strips whose far long side (the farther from the camera) automatic registration tries
#: farther out in each frame (``_far_side_out``, after ``vision.board.finished``): seen
#: obliquely, Neunfeld's far side shows a light stitching band at its edge, the finder's
#: fit held the side on its inner flank and its painted lines' fit carried it on into the
#: leather 3.6..6.7 mm inside the edge, where its pattern shows as well (dev oblique 1474
#: and 1560: two frames of three so, stored 6.6 and 7.8 mm off). The side is tried
#: ``FAR_PUSHES_MM`` out (each fitted, ``fit_model`` and ``finished``), only where the
#: colour just beyond it (``BEYOND_MM``, Lab) lies within ``LEATHER_NEAR`` of the
#: leather's (the fields' median): the leather goes on past it; a fit is taken where its
#: colour just beyond differs from the leather's by ``COLOUR_GAIN`` more (it left the
#: leather), its pattern shows better (``pattern_check``'s share: on a table as brown as
#: the leather, dev oblique 1550, 7 levels off, a push onto the table showed 0.69 ->
#: 0.54) and no corner moved farther than the farthest push. Session 18's push without
#: the colours (4487c08, reverted) moved sides the finder had put 0.9 mm in, the table
#: beyond them, 5 mm out (dev oblique 1562, 40 levels off the leather)
FAR_SIDE_CHECKED = frozenset({"neunfeld"})
FAR_PUSHES_MM = (2.0, 4.0, 6.0, 8.0)
BEYOND_MM = (0.5, 1.5)  # the band just beyond a side whose colour is compared
LEATHER_NEAR = 8.0  # Lab levels: the colour beyond a side this near the leather's is it
COLOUR_GAIN = 8.0  # Lab levels: a pushed side's beyond this much farther from it left it
#: tiles whose fields are painted another shade than the margin (3andC's blue fields), a
#: step inside the frame line's nearest parallel line in ``frame_lines``' fit: without it
#: 3andC oblique 115's north frame line was placed 0.85 mm out at the true corners; on the
#: other tiles it took the near side's face in oblique views for a blur of 3 mm
SHADED_FIELDS = frozenset({"esoloe-3andc"})


class Refusal(StrEnum):
    """Why no registration was made (``RegistrationError.reason``): the frames or corners
    did not give one (``NOT_FOUND`` .. ``OFF_LINES``), or the request itself was unusable
    (``ARGUMENTS``)."""

    NOT_FOUND = "not found"  # the board was not found in the frames
    DISAGREE = "frames disagree"  # too few frames agree on where it lies
    BLURRED = "blurred"  # a tile's frame line blurred ``BLUR_REFUSE_MM`` or more
    FIT = "fit report"  # the fit report is off by more than ``REFUSE_MM``
    OFF_LINES = "off the lines"  # given corners that the board's frame line does not follow
    CORNERS = "corners"  # given corners that make no board (shape, order)
    TURN = "turn"  # a quarter turn asked of a board that is not square
    NO_CLICK = "no click"  # no window to click in, or clicking stopped


#: the reasons that are the request's fault, not the frames': bad arguments
ARGUMENTS = frozenset({Refusal.CORNERS, Refusal.TURN, Refusal.NO_CLICK})


class RegistrationError(ValueError):
    """No registration could be made; the message says why and what to do, ``reason``
    (a ``Refusal``) says why in one word for programs."""

    def __init__(self, message: str, reason: Refusal):
        super().__init__(message)
        self.reason = reason


def to_board_mm(H: np.ndarray, px: np.ndarray) -> np.ndarray:
    """Image px (n, 2) -> board mm (n, 2) through the inverse of ``H``."""
    pts = np.asarray(px, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, np.linalg.inv(H)).reshape(-1, 2)


def _px_a_mm(corners: np.ndarray, geom: Geometry) -> float:
    """The board's scale in the image where ``corners`` put it (px a mm, by area)."""
    return math.sqrt(abs(cv2.contourArea(np.asarray(corners, np.float32)))
                     / (geom.width * geom.depth))


def _blur_advice(blur: float, corners: np.ndarray, geom: Geometry) -> str:
    """What to do where a tile's frame line is blurred ``blur`` mm, ``ADVISE_BLUR_MM`` or
    more (else nothing): the camera nearer, focused, still."""
    if blur < ADVISE_BLUR_MM:
        return ""
    return (f"its frame line is blurred {blur:g} mm at {_px_a_mm(corners, geom):.1f} px a "
            "mm: bring the camera nearer, focus it and hold it still")


def _blurred(blur: float, corners: np.ndarray, geom: Geometry) -> RegistrationError:
    """The refusal where a tile's frame line is blurred ``blur`` mm: neither the finder's
    corners nor given ones can be placed or checked to 1 mm there, automatic or by hand."""
    return RegistrationError(f"the board's frame line is blurred over {blur:.1f} mm (out of "
                             f"focus, moving, or the board too small: "
                             f"{_px_a_mm(corners, geom):.1f} px a mm): it cannot be "
                             "registered to 1 mm, automatically or by hand; bring the camera "
                             "closer, focus it and hold it still", Refusal.BLURRED)


def _line_map(image: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """float32: how strongly a painted line of the board's polarity lies at each pixel (a
    black-hat, or top-hat for light lines, ``LINE_KERNEL_MM`` across at the board's scale
    where ``corners`` put it, blurred ``LINE_BLUR_MM``)."""
    ppm = _px_a_mm(corners, geom)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    k = max(3, int(round(LINE_KERNEL_MM * ppm)) | 1)
    hat = cv2.MORPH_BLACKHAT if edge_model(geom).polarity < 0 else cv2.MORPH_TOPHAT
    lines = cv2.morphologyEx(grey, hat, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return cv2.GaussianBlur(lines.astype(np.float32), (0, 0), max(LINE_BLUR_MM * ppm, 0.3))


def _sampled(image: np.ndarray, H: np.ndarray, mm: np.ndarray) -> np.ndarray:
    """``image`` (one channel) at the board points ``mm`` seen through ``H``."""
    px = apply_homography(H, mm).astype(np.float32)
    return cv2.remap(image, px[None, :, 0], px[None, :, 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT)[0]


def _lines_shown(lines: np.ndarray, corners: np.ndarray, geom: Geometry) -> float:
    """The line map's mean at the painted lines' points (``edge_model``) where
    ``corners`` put them."""
    model = edge_model(geom)
    H = corners_homography(corners, geom)
    return float(_sampled(lines, H, model.points[model.line]).mean())


def _along(grey: np.ndarray, H: np.ndarray, mm: np.ndarray, side: int, offsets) -> float:
    """The mean grey along ``side`` of the board at ``mm`` (its corners on the board plane
    of ``H``), at each of ``offsets`` mm out from it (negative: inside)."""
    a, b = mm[side], mm[(side + 1) % 4]
    t = np.linspace(0.05, 0.95, 40)[:, None]
    strip = np.concatenate([a + t * (b - a) + m * OUTWARD[side] for m in offsets])
    return float(_sampled(grey, H, strip).mean())


def _glazed(grey: np.ndarray, H: np.ndarray, mm: np.ndarray, side: int,
            board: float) -> bool:
    """Whether the margin inside ``side`` of the board at ``mm`` is at least
    ``GLAZE_SHARE`` of ``board``'s grey."""
    return _along(grey, H, mm, side, -np.array(MARGIN_MM)) >= GLAZE_SHARE * board


def _on_edge(grey: np.ndarray, H: np.ndarray, mm: np.ndarray, side: int,
             board: float) -> bool:
    """Whether the grey steps down across ``side`` of the board at ``mm`` (``MARGIN_MM``
    inside against as far outside) by at least ``EDGE_SHARE`` of ``board``'s grey."""
    step = (_along(grey, H, mm, side, -np.array(MARGIN_MM))
            - _along(grey, H, mm, side, MARGIN_MM))
    return step >= EDGE_SHARE * board


def on_lines(image: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """``corners`` (nw, ne, se, sw px) moved where the board's painted lines show they are
    off: each side tried ``SIDE_SCAN_MM`` in and out (the others kept), and the one side
    whose move shows the lines best (``_lines_shown``) moved if they show ``SIDE_GAIN``
    better, one side at a time, up to ``SIDE_MOVES`` (with one side off, another moved
    the other way shows them a little better too); where a side moved, then every corner
    moved by ``JOINT_STEPS_MM`` on the board plane while the lines gain. Only the sides
    ``LINE_SIDES`` names are tried; no side on the tile's edge (``_on_edge``: the grey
    steps down across it) is moved out over ``OUT_CHECKED_MM``, nor on a ``GLAZE_CHECKED``
    tile a side whose margin there does not show the glaze (``_glazed``), each against
    the board's median grey.

    Why: on the empty board at set-up every field's outline shows, and the finder, made
    for boards with pieces, does not count them (``vision.board.support`` checks the
    outline and the frame line). Where a tile's far margin lies in shadow or on a table
    as light as its glaze, the finder's outline can land on the inner flank of a painted
    line (the frame line, 4..7 mm in, or the far fields' outline, 12 mm in), where the
    frame line and the outline then find a line and a step; every line across the board
    is then off by up to that much, which the lines' map shows."""
    corners = np.asarray(corners, np.float64)
    lines = _line_map(image, corners, geom)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    u, v = np.meshgrid(np.linspace(-0.45, 0.45, 19) * geom.width,
                       np.linspace(-0.45, 0.45, 9) * geom.depth)
    inside = np.column_stack([u.ravel(), v.ravel()])
    lo, hi, step = SIDE_SCAN_MM
    moved = False
    for _ in range(SIDE_MOVES):
        base = _lines_shown(lines, corners, geom)
        H = corners_homography(corners, geom)
        board = float(np.median(_sampled(grey, H, inside)))
        tried = []
        for side in LINE_SIDES.get(geom.game, range(4)):
            edge = _on_edge(grey, H, geom.corners_mm(), side, board)
            for d in np.arange(lo, hi + step / 2, step):
                mm = geom.corners_mm()
                mm[[side, (side + 1) % 4]] += d * OUTWARD[side]
                if d > OUT_CHECKED_MM and (edge or (geom.game in GLAZE_CHECKED and not
                                                    _glazed(grey, H, mm, side, board))):
                    continue
                c = apply_homography(H, mm)
                tried.append((_lines_shown(lines, c, geom), abs(d) > 1e-9, c))
        shown, off, c = max(tried, key=lambda t: t[0])
        if not (off and shown > base * (1 + SIDE_GAIN)):
            break
        corners, moved = c, True
    if not moved:
        return corners
    best = _lines_shown(lines, corners, geom)
    for step in JOINT_STEPS_MM:
        improved = True
        while improved:
            improved = False
            for k in range(4):
                for axis in (0, 1):
                    for sign in (1.0, -1.0):
                        mm = geom.corners_mm()
                        mm[k, axis] += sign * step
                        c = apply_homography(corners_homography(corners, geom), mm)
                        shown = _lines_shown(lines, c, geom)
                        if shown > best + 1e-6:
                            best, corners, improved = shown, c, True
    return corners


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _part_bounds(geom: Geometry, side: int, parts: int) -> np.ndarray:
    """Where ``frame_lines``' ``parts`` of ``side``'s frame line begin and end, mm along
    it (1.5 mm short of where the frame lines cross)."""
    from vision.board import CERAMIC_FRAME_MM

    span = (geom.width if side % 2 == 0 else geom.depth) / 2 - CERAMIC_FRAME_MM
    return np.linspace(-span + 1.5, span - 1.5, parts + 1)


def frame_lines(images: list[np.ndarray], corners: np.ndarray, geom: Geometry,
                parts: int = 1, shift_mm: float = LINE_SHIFT_MM, outside: bool = False
                ) -> list[tuple[int, float, float, float]]:
    """Where a ceramic tile's frame line lies against where ``corners`` put it, on the mean
    of ``images`` (one still board): per side (all four: e-SOLO-e's maker's mark lies 4 mm
    inside its south frame line) and each of ``parts`` equal lengths of it,
    ``(side, along, offset, blur)`` in mm on the board plane (``along``: the
    part's centre along the side, turning clockwise; ``offset`` outward). The profile across
    the line (``PROFILE_MM``, averaged along the part) is fitted with the painted lines
    parallel to it there (each as much as it runs beside the frame line), the tile's edge
    and on ``SHADED_FIELDS`` the fields' shade, each blurred by ``BLUR_MM`` and all shifted
    by up to ``shift_mm`` (the profile reaching ``PROFILE_MM`` or 1.5 mm past the shift);
    the least squares fit with a dark line wins. With ``outside`` (given corners' wide first
    search) the line is, of the shifts where that fit is best locally and blurred less than
    ``BLUR_REFUSE_MM``, the one best fitted with a dark band ``OUTSIDE_MM`` wide outside the
    edge too (taken where the frame line is at least ``OUTSIDE_LINE`` as dark); a half
    whose best fit is smeared more is left so (a side tilted across its line)."""
    from vision.board import CERAMIC_FRAME_MM

    grey = np.mean([cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(np.float32)
                    for im in images], axis=0)
    H = corners_homography(corners, geom)
    model = edge_model(geom)
    reach, step = PROFILE_MM
    reach = max(reach, shift_mm + 1.5)
    off = np.arange(-reach, reach + step / 2, step)
    shifts = np.arange(-shift_mm, shift_mm + 1e-9, 0.05)
    x = off[None, :] - shifts[:, None]  # the profile's offsets from the line shifted
    out = []
    for side in range(4):
        normal = OUTWARD[side]
        along = np.array([-normal[1], normal[0]])
        half = (geom.depth if side % 2 == 0 else geom.width) / 2
        c = half - CERAMIC_FRAME_MM
        parallel = model.line & (np.abs(model.normals @ normal) > 0.99)
        rel_all = np.round(model.points[parallel] @ normal - c, 2)
        at_all = model.points[parallel] @ along
        bounds = _part_bounds(geom, side, parts)
        for lo, hi in zip(bounds, bounds[1:], strict=False):
            t = np.arange(lo, hi + 1e-9, 1.0)
            pts = (c + off)[:, None, None] * normal + t[None, :, None] * along
            prof = _sampled(grey, H, pts.reshape(-1, 2)).reshape(len(off), len(t)).mean(axis=1)
            inside = (at_all >= lo) & (at_all <= hi)
            rel = rel_all[inside]
            frame = max(int(np.sum(rel == 0)), 1)
            near = {r: np.sum(rel == r) / frame for r in np.unique(rel)
                    if abs(r) < reach + shift_mm + 2 * max(BLUR_MM)}
            inner = (max((r for r in near if r < 0), default=None)
                     if geom.game in SHADED_FIELDS else None)
            plain = np.full((len(BLUR_MM), len(shifts)), np.inf)  # residuals, dark lines
            banded = plain.copy()  # ... with the band outside the edge, where it is dark
            for i, blur in enumerate(BLUR_MM):
                z = math.sqrt(2) * blur
                dark = sum(share * 0.5 * (_erf((x - r + geom.line_mm / 2) / z)
                                          - _erf((x - r - geom.line_mm / 2) / z))
                           for r, share in near.items())
                edge = 0.5 * (1 + _erf((x - CERAMIC_FRAME_MM) / z))
                # the fields inside the nearest line in, another shade (3andC's blue)
                fields = (0.5 * (1 + _erf((inner - x) / z)) if inner is not None
                          else np.zeros_like(x))
                # the band just outside the tile's edge (its side face, its shadow)
                band = 0.5 * (_erf((x - CERAMIC_FRAME_MM) / z)
                              - _erf((x - CERAMIC_FRAME_MM - OUTSIDE_MM) / z))
                for k in range(len(shifts)):
                    A = np.column_stack([np.ones_like(off), dark[k], edge[k], fields[k]])
                    coef = np.linalg.lstsq(A, prof, rcond=None)[0]
                    if coef[1] < 0:  # a light line is not the painted one
                        plain[i, k] = banded[i, k] = float(np.sum((A @ coef - prof) ** 2))
                    if outside:
                        A = np.column_stack([A, band[k]])
                        coef = np.linalg.lstsq(A, prof, rcond=None)[0]
                        if coef[1] < 0 and coef[4] <= 0 and coef[1] <= OUTSIDE_LINE * coef[4]:
                            banded[i, k] = float(np.sum((A @ coef - prof) ** 2))
            if np.isinf(plain).all():
                continue
            i, k = np.unravel_index(np.argmin(plain), plain.shape)
            if outside and BLUR_MM[i] < BLUR_REFUSE_MM:
                # of the fit's local minima not smeared, the one the band explains best
                curve = plain.min(axis=0)
                low = (np.isfinite(curve) & (curve <= np.r_[np.inf, curve[:-1]])
                       & (curve <= np.r_[curve[1:], np.inf])
                       & (np.array(BLUR_MM)[np.argmin(plain, axis=0)] < BLUR_REFUSE_MM))
                k = np.flatnonzero(low)[np.argmin(banded.min(axis=0)[low])]
                i = int(np.argmin(plain[:, k]))
            out.append((side, float((lo + hi) / 2), round(float(shifts[k]), 2), BLUR_MM[i]))
    return out


def fit_frame_lines(images: list[np.ndarray], corners: np.ndarray, geom: Geometry,
                    shift_mm: float = LINE_SHIFT_MM,
                    measured: list[tuple[int, float, float, float]] | None = None
                    ) -> np.ndarray:
    """``corners`` moved so that each frame line (``frame_lines``, each side in two
    halves, searched ``shift_mm`` either side; or ``measured`` so) lies where the tile
    has it, ``CERAMIC_FRAME_MM`` inside its edge: each side's edge is the line through
    its two halves' frame line moved out so far, and the corners are where the sides
    meet. Unchanged where a half is not found, is blurred ``BLUR_REFUSE_MM`` or more or
    lies at the end of the search."""
    if measured is None:
        measured = frame_lines(images, corners, geom, parts=2, shift_mm=shift_mm)
    if (len(measured) < 8 or max(b for *_, b in measured) >= BLUR_REFUSE_MM
            or max(abs(o) for *_, o, _ in measured) >= shift_mm - 0.05):
        return corners
    lines = []  # each side's edge: a point and a direction, mm on the board plane
    for side in range(4):
        normal = OUTWARD[side]
        along = np.array([-normal[1], normal[0]])
        half = (geom.depth if side % 2 == 0 else geom.width) / 2
        (a, oa), (b, ob) = [(t, o) for s, t, o, _ in measured if s == side]
        pa = (half + oa) * normal + a * along
        pb = (half + ob) * normal + b * along
        lines.append((pa, pb - pa))
    new = []
    for k in range(4):
        (p, d), (q, e) = lines[(k - 1) % 4], lines[k]
        s = np.linalg.solve(np.column_stack([d, -e]), q - p)
        new.append(p + s[0] * d)
    return apply_homography(corners_homography(corners, geom), np.array(new))


def fit_report(H: np.ndarray, observations: list[np.ndarray], geom: Geometry,
               camera: CameraCalibration | None, size: tuple[int, int],
               lines: list[tuple[int, float, float, float]] | None = None,
               frames_lines: list[list[tuple[int, float, float, float]]] | None = None
               ) -> dict:
    """Reprojection errors in mm on the board plane (see the module doc): ``frames_*``
    each frame's frame lines' offsets (``frames_lines``: ``frame_lines`` on each frame
    alone) or else the frames' own corners against their mean (automatic registration),
    ``rigid_*`` against the rigid pose (with a camera), ``lines_*`` the frame lines'
    offsets and ``lines_blur_mm`` their largest blur (``lines``: ``frame_lines`` on the
    frames' mean); ``rms_mm`` and ``max_mm`` are the largest of them (0 for four given
    corners without a camera: they always fit, ``checks`` is then empty)."""
    truth = geom.corners_mm()
    report: dict = {"checks": []}
    if len(observations) > 1:
        if frames_lines:
            err = np.abs([o for one in frames_lines for *_, o, _ in one])
        else:
            mean = corners_homography(np.mean(observations, axis=0), geom)
            err = np.concatenate([np.linalg.norm(to_board_mm(mean, obs) - truth, axis=1)
                                  for obs in observations])
        _add_check(report, "frames", "frames", err)
    if camera is not None:
        from vision.grid import board_pose

        corners = apply_homography(H, truth)
        pose = board_pose(BoardFix(corners, corners), geom, size, camera.K, camera.dist)
        rigid = cv2.projectPoints(np.column_stack([truth, np.zeros(4)]),
                                  cv2.Rodrigues(pose.R)[0], pose.t, camera.K,
                                  camera.dist)[0].reshape(-1, 2)
        err = np.linalg.norm(to_board_mm(H, rigid) - truth, axis=1)
        _add_check(report, "rigid pose", "rigid", err)
        if np.any(camera.dist):
            _add_check(report, "lens", "lens", _lens_error(H, geom, camera))
    if lines:
        _add_check(report, "lines", "lines", np.abs([o for *_, o, _ in lines]))
        report["lines_blur_mm"] = max(b for *_, b in lines)
    report["rms_mm"] = max([report.get(f"{c}_rms_mm", 0.0) for c in CHECKS])
    report["max_mm"] = max([report.get(f"{c}_max_mm", 0.0) for c in CHECKS])
    return report


def _add_check(report: dict, check: str, key: str, err: np.ndarray) -> None:
    """``report`` with the check ``check`` listed and the rms and largest of its errors
    ``err`` (mm) under ``key``: ``KEY_rms_mm``, ``KEY_max_mm``."""
    report["checks"].append(check)
    report[f"{key}_rms_mm"] = round(float(np.sqrt(np.mean(err ** 2))), 3)
    report[f"{key}_max_mm"] = round(float(err.max()), 3)


def _lens_error(H: np.ndarray, geom: Geometry, camera: CameraCalibration) -> np.ndarray:
    """How far (mm on the board plane) the homography ``H`` of the registered corners
    puts the board's corners and field centres off where the camera's lens shows them,
    their place by the homography of the corners undistorted, distorted again by the
    lens: what no four corners can store (a homography of a distorted image puts the
    fields between the corners off). On renders with the true camera it is the error the
    true corners themselves are stored with (``error_against_truth``)."""
    K, dist = np.asarray(camera.K, np.float64), np.asarray(camera.dist, np.float64)
    mm = np.vstack([geom.corners_mm(), [(u, v) for _, u, v, _ in geom.cells]])
    corners = apply_homography(H, geom.corners_mm())
    flat = cv2.undistortPoints(corners.reshape(-1, 1, 2), K, dist, P=K).reshape(4, 2)
    ray = cv2.undistortPoints(
        apply_homography(corners_homography(flat, geom), mm).reshape(-1, 1, 2), K, None
    ).reshape(-1, 2)
    seen = cv2.projectPoints(np.column_stack([ray, np.ones(len(ray))]), np.zeros(3),
                             np.zeros(3), K, dist)[0].reshape(-1, 2)
    return np.linalg.norm(to_board_mm(H, seen) - mm, axis=1)


def _registration(game: str, corners: np.ndarray, observations: list[np.ndarray],
                  method: str, size: tuple[int, int], camera: CameraCalibration | None,
                  lines: list[tuple[int, float, float, float]] | None = None,
                  frames_lines: list[list[tuple[int, float, float, float]]] | None = None
                  ) -> BoardRegistration:
    geom = geometry(game)
    H = corners_homography(corners, geom)
    fit = fit_report(H, observations, geom, camera, size, lines, frames_lines)
    return BoardRegistration(game, size, np.asarray(corners, np.float64), H, method,
                             len(observations), fit)


def register_auto(frames: Iterable[np.ndarray], game: str, n: int = FRAMES,
                  camera: CameraCalibration | None = None, turn: int = 0) -> BoardRegistration:
    """Registration from the first ``n`` frames in which ``find_board`` sees the board
    (at most ``4 n`` frames are looked at; on a ``LINE_FIT`` board each frame's corners
    checked against its painted lines, ``on_lines``), refused (``RegistrationError``)
    where fewer than half of them or than ``MIN_AGREE`` agree, or its fit is off by more than
    ``REFUSE_MM`` (``RIGID_REFUSE_MM`` its rigid check on ``RIGID_REFUSED`` boards;
    ``_smear_check`` on ``SMEAR_CHECKED`` boards; module doc). ``turn``: quarter turns
    by which to rename the found corners (nw becomes the found ne for 1), for a square board that
    the table's players have named otherwise (docs/vision.md, *Naming*); 2 for any
    board. A board without marks gets ``fit["naming"]`` (see the module doc)."""
    geom = geometry(game)
    if turn % 2 and geom.width != geom.depth:
        raise RegistrationError("only a square board can be renamed by a quarter turn",
                                Refusal.TURN)
    found, images, size, looked = [], [], None, 0
    for image in frames:
        looked += 1
        size = (image.shape[1], image.shape[0])
        fix = find_board(image, geom)
        if fix is not None:
            corners = fix.corners
            if game in LINE_FIT:
                corners = on_lines(image, corners, geom)
            elif game in FAR_SIDE_CHECKED:
                corners = _far_side_out(image, corners, geom)
            found.append(np.roll(corners, -turn, axis=0))
            images.append(image)
        if len(found) >= n or looked >= 4 * n:
            break
    if not found:
        raise RegistrationError(f"the board was not found in {looked} frame(s): {HAND}",
                                Refusal.NOT_FOUND)
    stack = np.array(found)
    agree = max((np.all(np.linalg.norm(stack - one, axis=2) <= AGREE_PX, axis=1)
                 for one in stack), key=np.sum)  # the largest group, the first on a tie
    if agree.sum() < max(min(MIN_AGREE, n), math.ceil(AGREE_SHARE * len(found))):
        seen = "" if len(found) >= n else f"; found in {len(found)} of {looked}"
        advice = ""
        if geom.material == "ceramic":  # blurred where the largest group put it?
            group = [im for im, a in zip(images, agree, strict=True) if a]
            at = np.roll(stack[agree].mean(axis=0), turn, axis=0)
            advice = _blur_advice(max((b for *_, b in frame_lines(group, at, geom)),
                                      default=0.0), at, geom)
        raise RegistrationError(f"the board was found at different places ({int(agree.sum())} "
                                f"of {len(found)} frames agree within {AGREE_PX} px{seen}): "
                                f"{advice or 'keep camera and board still, or ' + HAND}",
                                Refusal.DISAGREE)
    kept = stack[agree]
    corners = kept.mean(axis=0)
    lines = frames_lines = None
    if geom.material == "ceramic":
        still = [im for im, a in zip(images, agree, strict=True) if a]
        named = np.roll(corners, turn, axis=0)  # as the finder named them
        for _ in range(LINE_FITS):
            named = fit_frame_lines(still, named, geom)
        lines = frame_lines(still, named, geom)
        if len(lines) == 4 and not np.array_equal(named, np.roll(corners, turn, axis=0)):
            # fitted to the lines: the frames' own corners no longer place it
            frames_lines = [frame_lines([im], named, geom) for im in still]
        corners = np.roll(named, -turn, axis=0)
    else:  # refitted on the own lines as its reader refits them, on the frames' mean
        still = [im for im, a in zip(images, agree, strict=True) if a]
        grey = np.mean([cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(np.float32)
                        for im in still], axis=0)
        found_at = np.roll(corners, turn, axis=0)  # as the finder named them
        refit = _refit_kept(still[0], found_at, _on_own_lines(grey, found_at, geom, camera),
                            geom)
        if game in OUTVOTE_CHECKED and not agree.all():
            _outvoted_check(images, np.roll(stack, turn, axis=1), agree, refit, geom)
        if game in SMEAR_CHECKED:
            _smear_check(grey, refit, geom, camera)
        corners = np.roll(refit, -turn, axis=0)
    reg = _registration(game, corners, list(kept), "auto", size, camera, lines, frames_lines)
    blur = reg.fit.get("lines_blur_mm", 0.0)
    if blur >= BLUR_REFUSE_MM:
        raise _blurred(blur, corners, geom)
    if reg.fit["max_mm"] > REFUSE_MM:
        checks = ", ".join(f"{c} {reg.fit[c.split()[0] + '_max_mm']:.1f} mm"
                           for c in reg.fit["checks"])
        advice = _blur_advice(blur, corners, geom)
        if max(reg.fit.get(f"{c}_max_mm", 0.0) for c in CHECKS if c != "lens"
               ) <= REFUSE_MM:  # only the lens: the corners found fit, the fields cannot
            raise RegistrationError(
                f"the camera's lens bends the board up to {reg.fit['lens_max_mm']:.2f} mm "
                f"off any registration by its four corners (over {REFUSE_MM} mm, at the "
                f"fields between them): {LENS_ADVICE}, or {HAND} to store it so",
                Refusal.FIT)
        raise RegistrationError(f"the board found does not fit its own check ({checks} at "
                                f"worst, over {REFUSE_MM} mm): "
                                f"{advice or 'it was probably found wrongly; ' + HAND}",
                                Refusal.FIT)
    rigid = reg.fit.get("rigid_max_mm", 0.0)
    if game in RIGID_REFUSED and rigid > RIGID_REFUSE_MM:
        raise RegistrationError(f"the board found is no rigid board of its size seen by this "
                                f"camera (its corners up to {rigid:.2f} mm off such a board's, "
                                f"over {RIGID_REFUSE_MM} mm): a corner was probably found off "
                                f"in a blurred or moving image; keep the camera still, or "
                                f"{HAND}", Refusal.FIT)
    if named_by_camera(geom):
        reg.fit["naming"] = {"by": "turn" if turn % 4 else "camera", "turn": turn % 4,
                             "camera_margin_deg": round(camera_rule_margin(reg.corners,
                                                                           geom), 1)}
    return reg


def _outvoted_check(images: list[np.ndarray], found: np.ndarray, agree: np.ndarray,
                    corners: np.ndarray, geom: Geometry) -> None:
    """Refused (``DISAGREE``) where a frame the vote left out (not ``agree``) shows
    ``OUTVOTED_SHOWN`` more of the board's painted lines in place where it ``found``
    them than ``corners`` (the registration, refitted) show on the first agreeing frame
    (``vision.board.pattern_check``, the share within 1 px): the vote went to frames
    found off alike."""
    from vision.board import fit_grey, pattern_check

    shown = [pattern_check(fit_grey(image), at, geom)[1] if not a else -1.0
             for image, at, a in zip(images, found, agree, strict=True)]
    best = int(np.argmax(shown))
    stored = pattern_check(fit_grey(images[int(np.argmax(agree))]), corners, geom)[1]
    if shown[best] - stored >= OUTVOTED_SHOWN:
        raise RegistrationError(
            f"the board was found at different places: frame {best + 1} of {len(found)}, "
            f"outvoted, shows {shown[best]:.0%} of its painted lines in place where the "
            f"registration of the {int(agree.sum())} that agree shows {stored:.0%}: keep "
            f"camera and board still, or {HAND}", Refusal.DISAGREE)


def _refit_kept(image: np.ndarray, found: np.ndarray, refit: np.ndarray,
                geom: Geometry) -> np.ndarray:
    """``refit`` (the own lines' refit of the finder's ``found`` corners), or ``found``
    where the refit takes ``REFIT_LOST_SHOWN`` or more of the board's painted lines out of
    place in ``image`` (``vision.board.pattern_check``, their share within 1 px)."""
    from vision.board import fit_grey, pattern_check

    grey = fit_grey(image)
    lost = pattern_check(grey, found, geom)[1] - pattern_check(grey, refit, geom)[1]
    return found if lost >= REFIT_LOST_SHOWN else refit


def _beyond_colour(lab: np.ndarray, corners: np.ndarray, geom: Geometry,
                   outward: float) -> np.ndarray:
    """The median colour of ``lab`` (float Lab) on the band ``BEYOND_MM`` beyond the long
    side ``outward`` (+1 north, -1 south) where ``corners`` put it, along the side's
    middle 0.8 (its corners' own fit is the least sure)."""
    u = np.linspace(-0.4 * geom.width, 0.4 * geom.width, 200)
    mm = np.concatenate([np.column_stack([u, np.full_like(u, outward * (geom.depth / 2 + o))])
                         for o in np.linspace(*BEYOND_MM, 5)])
    H = corners_homography(corners, geom)
    return np.median([_sampled(lab[..., c], H, mm) for c in range(3)], axis=1)


def _far_side_out(image: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """A strip's found ``corners``, or the fit with its far long side tried farther out
    (``FAR_SIDE_CHECKED``: each of ``FAR_PUSHES_MM``, fitted by ``fit_model`` and
    ``vision.board.finished`` as the finder ends) where the colour just beyond that side
    is the leather's and beyond the fit's is not, its pattern shows better
    (``pattern_check``'s share) and no corner moved farther than the farthest push."""
    from vision.board import _cell_samples, convex_fit, finished, fit_grey, pattern_check

    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    H = corners_homography(corners, geom)
    # the far side: on the board's plane the depth of a point (u, v) goes as H's last row
    # times (u, v, 1); north (+v) is the farther where it grows with v
    outward = 1.0 if H[2, 1] * H[2, 2] > 0 else -1.0
    leather = np.median(_cell_samples(lab, corners, geom, k=7).reshape(-1, 3), axis=0)
    beyond = float(np.linalg.norm(_beyond_colour(lab, corners, geom, outward) - leather))
    if beyond > LEATHER_NEAR:  # the side's edge: the table (or its face) beyond it
        return corners
    grey = fit_grey(image)
    size = (image.shape[1], image.shape[0])
    farthest = FAR_PUSHES_MM[-1] * _px_a_mm(corners, geom)
    best = (pattern_check(grey, corners, geom)[0], corners)
    w, d = geom.width / 2, geom.depth / 2
    for mm in FAR_PUSHES_MM:
        v = np.array([d, d, -d, -d])
        v[v * outward > 0] += outward * mm
        fitted = convex_fit(grey, apply_homography(H, np.column_stack([[-w, w, w, -w], v])), geom)
        if fitted is None:
            continue
        fitted = finished(grey, fitted, geom, size)
        if (np.linalg.norm(fitted - corners, axis=1).max() > farthest
                or np.linalg.norm(_beyond_colour(lab, fitted, geom, outward) - leather)
                < beyond + COLOUR_GAIN):
            continue  # run off along the strip, or still on the leather
        shown = pattern_check(grey, fitted, geom)[0]
        if shown > best[0]:
            best = (shown, fitted)
    return best[1]


def naming_warning(reg: BoardRegistration) -> str | None:
    """Advice when an automatic registration named a board without marks by the camera
    rule within ``NAMING_MARGIN_DEG`` of naming it a quarter turn otherwise, else None."""
    naming = reg.fit.get("naming") or {}
    margin = naming.get("camera_margin_deg")
    if naming.get("by") != "camera" or margin is None or margin >= NAMING_MARGIN_DEG:
        return None
    return (f"the camera looks at the board nearly from a corner (the camera rule named it "
            f"by {margin:.1f} degrees): north is now the side from corner nw to ne; if the "
            "players have it at another side, register again with --turn 1..3")


def _half_corner(geom: Geometry, side: int, along: float) -> str:
    """The corner (``CORNER_NAMES``) at the end of ``side`` nearer the point ``along``
    it (``frame_lines``' parts)."""
    normal = OUTWARD[side]
    half = (geom.depth if side % 2 == 0 else geom.width) / 2
    point = half * normal + along * np.array([-normal[1], normal[0]])
    ends = (side, (side + 1) % 4)
    return CORNER_NAMES[min(ends, key=lambda k: np.linalg.norm(geom.corners_mm()[k]
                                                               - point))]


def _fit_given(image: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """Given corners on a ceramic tile fitted to its frame line (``fit_frame_lines``:
    once searched ``GIVEN_SHIFT_MM`` either side with the band outside the edge fitted
    too, ``frame_lines``' ``outside``, then ``LINE_FITS`` times as automatic
    registration). Where the first fit cannot be made because a half side's line is not
    found so near or is blurred ``BLUR_REFUSE_MM`` or more: on a blurred board (the
    halves' median blur ``ADVISE_BLUR_MM`` or more) refused as blurred (``_blurred``),
    else the corners do not lie on the board: ``RegistrationError`` (``OFF_LINES``)
    naming those sides and the corners to give again (the one two such sides meet at, or
    their ends)."""
    measured = frame_lines([image], corners, geom, parts=2, shift_mm=GIVEN_SHIFT_MM,
                           outside=True)
    fitted = fit_frame_lines([image], corners, geom, GIVEN_SHIFT_MM, measured)
    if not np.array_equal(fitted, corners):
        for _ in range(LINE_FITS):
            fitted = fit_frame_lines([image], fitted, geom)
        return fitted
    found = {(s, t): (o, b) for s, t, o, b in measured}
    blur = float(np.median([b for _, b in found.values()])) if found else 0.0
    if blur >= ADVISE_BLUR_MM:  # a blurred board: nothing to check them against
        raise _blurred(max(b for _, b in found.values()), corners, geom)
    wrong, said = [], []  # the sides whose line does not follow
    for s in range(4):
        ends = _part_bounds(geom, s, 2)
        halves = []
        for t in ((ends[:-1] + ends[1:]) / 2).tolist():
            o, b = found.get((s, t), (None, None))
            where = _half_corner(geom, s, t)
            if o is None or abs(o) >= GIVEN_SHIFT_MM - 0.05:
                halves.append(f"by {where} not within {GIVEN_SHIFT_MM:g} mm")
            elif b >= BLUR_REFUSE_MM:
                halves.append(f"by {where} {o:+.1f} mm smeared over {b:g} mm")
        if halves:
            wrong.append(s)
            said.append(f"{SIDE_NAMES[s]} side {' and '.join(halves)}")
    if len(wrong) == 2 and (wrong[1] - wrong[0]) % 2:  # two sides meeting at a corner
        named = [CORNER_NAMES[wrong[1] if wrong[1] == wrong[0] + 1 else wrong[0]]]
    else:  # each side runs from corner ``side`` to the next
        named = [c for k, c in enumerate(CORNER_NAMES)
                 if any(k in (s, (s + 1) % 4) for s in wrong)]
    raise RegistrationError(
        f"the board's frame line does not follow the corners given ({'; '.join(said)}): "
        f"give {' and '.join(named)} again (clockwise nw ne se sw, north away from "
        "the camera, on the board top's outer corners); if they were right, bring the camera "
        f"nearer and focus it (the board at {_px_a_mm(corners, geom):.1f} px a mm)",
        Refusal.OFF_LINES)


def _smear_check(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
                 camera: CameraCalibration | None) -> None:
    """Refused (``FIT``) where the board's own lines in ``grey`` sought across a smear
    (``read_tyr.smeared_shift``; with ``camera`` on ``grey`` undistorted) would move
    ``corners`` more than ``SMEAR_REFUSE_MM``: its lines are smeared, and the
    registration lies where one end of their smear does."""
    from vision.read_tyr import smeared_shift

    grey, corners = _undistorted(grey, corners, camera)
    shift = smeared_shift(grey, BoardFix(corners, corners), geom)
    if shift > SMEAR_REFUSE_MM:
        raise RegistrationError(
            f"the board's own lines, sought across a smear, place it up to {shift:.2f} mm "
            f"off the registration (over {SMEAR_REFUSE_MM} mm): the image is blurred or "
            f"moving and its lines cannot place the board to 1 mm; keep the camera still "
            f"and focused, or {HAND}", Refusal.FIT)


def _undistorted(grey: np.ndarray, corners: np.ndarray, camera: CameraCalibration | None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``grey`` and ``corners`` undistorted by ``camera``'s lens (as they are where it
    has none)."""
    if camera is None or not np.any(camera.dist):
        return grey, corners
    K, dist = np.asarray(camera.K, np.float64), np.asarray(camera.dist, np.float64)
    return (cv2.undistort(np.asarray(grey), K, dist),
            cv2.undistortPoints(corners.reshape(-1, 1, 2), K, dist, P=K).reshape(4, 2))


def _on_own_lines(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
                  camera: CameraCalibration | None = None) -> np.ndarray:
    """``corners`` refitted onto the board's own printed lines in ``grey`` (one channel)
    as its reader refits them every frame (``_refitted``); as they are on the other
    boards. With ``camera`` (a lens that distorts) the refit is made on ``grey``
    undistorted and its corners distorted back: no homography of the distorted image puts
    all of a board's lines in place, and the refit's compromise between them left the
    corners off (dev Tyr 100..131, the median of the largest error, automatic overhead
    0.36 -> 0.28 mm, oblique 0.38 -> 0.27; oblique 112 0.89 -> 0.41, where the true
    corners' homography is 0.45 off); where the refit does not move them, they are
    returned as given."""
    if geom.game not in OWN_LINES:
        return corners
    if camera is None or not np.any(camera.dist):
        return _refitted(grey, corners, geom)
    K, dist = np.asarray(camera.K, np.float64), np.asarray(camera.dist, np.float64)
    flat_grey, flat = _undistorted(grey, corners, camera)
    fitted = _refitted(flat_grey, flat, geom)
    if np.array_equal(fitted, flat):
        return corners
    ray = cv2.undistortPoints(fitted.reshape(-1, 1, 2), K, None).reshape(4, 2)
    return cv2.projectPoints(np.column_stack([ray, np.ones(4)]), np.zeros(3), np.zeros(3),
                             K, dist)[0].reshape(4, 2)


def _refitted(grey: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """``corners`` refitted as ``OWN_LINES``' reader refits them (``refine``: unchanged
    where the lines do not agree better with a move; ``REFIT_OPTIONS``), on Cubes' card
    then on its grid's fit (``_on_grid``); then, twice, on Neunfeld's strip its long
    sides onto its stitching, on Cubes' card each side onto its printed band's inner
    edge and, where its refit left them as they were (``SIDES_IF_UNMOVED``), on Tyr's
    leather each side onto its stitching (``_on_sides``)."""
    import importlib

    reader = importlib.import_module(OWN_LINES[geom.game])
    refit = reader.refine(grey, BoardFix(corners, corners), geom,
                          **REFIT_OPTIONS.get(geom.game, {})).corners
    if geom.game == "cubes":
        refit = _on_grid(grey, refit, geom)
    if geom.game in SIDES_FITTED and (geom.game not in SIDES_IF_UNMOVED
                                      or np.array_equal(refit, corners)):
        for _ in range(LINE_FITS):
            refit = _on_sides(grey, refit, geom)
    return refit


def _on_sides(grey: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """``corners`` with each of ``SIDES_FITTED``' sides moved to where the profile across
    it (``PROFILE_MM`` about its line there, the mean along the side) is fitted best by
    least squares, blurred by each of ``BLUR_MM`` and shifted by up to
    ``STITCH_SHIFT_MM``: on the leather (Neunfeld's strip, Tyr) its stitching (a line of
    the board's polarity ``LEATHER_STITCH_MM`` inside the edge) and the edge (a step), on
    Cubes' card its band's
    inner edge (``CARD_BAND_MM`` inside the edge: the paper's step down to the band); a
    side is kept where that is blurred ``BLUR_REFUSE_MM`` or more or lies at the search's
    end."""
    from vision.board import CARD_BAND_MM, LEATHER_STITCH_MM

    sides, stitched = SIDES_FITTED[geom.game]
    inset = LEATHER_STITCH_MM[geom.game] if stitched else CARD_BAND_MM
    polarity = edge_model(geom).polarity
    grey = np.asarray(grey, np.float32)
    H = corners_homography(corners, geom)
    reach, step = PROFILE_MM
    off = np.arange(-reach, reach + step / 2, step)
    shifts = np.arange(-STITCH_SHIFT_MM, STITCH_SHIFT_MM + 1e-9, 0.05)
    x = off[None, :] - shifts[:, None]  # the profile's offsets from the line shifted
    mm = geom.corners_mm()
    for side in sides:
        normal = OUTWARD[side]
        along = np.array([-normal[1], normal[0]])
        across, span = ((geom.depth, geom.width) if side % 2 == 0
                      else (geom.width, geom.depth))
        t = np.arange(-span / 2 + inset + 1.5, span / 2 - inset - 1.5, 1.0)
        pts = (across / 2 - inset + off)[:, None, None] * normal + t[None, :, None] * along
        prof = _sampled(grey, H, pts.reshape(-1, 2)).reshape(len(off), len(t)).mean(axis=1)
        best = (np.inf, 0.0, 0.0)  # residual, shift, blur
        for blur in BLUR_MM:
            z = math.sqrt(2) * blur
            if stitched:  # the stitching, and the edge's step outside it
                terms = [0.5 * (_erf((x + geom.line_mm / 2) / z)
                                - _erf((x - geom.line_mm / 2) / z)),
                         0.5 * (1 + _erf((x - inset) / z))]
            else:  # the band's edge: the paper inside steps down to it
                terms = [-0.5 * (1 + _erf(x / z))]
            for k, shift in enumerate(shifts):
                A = np.column_stack([np.ones_like(off)] + [term[k] for term in terms])
                coef = np.linalg.lstsq(A, prof, rcond=None)[0]
                residual = float(np.sum((A @ coef - prof) ** 2))
                if coef[1] * (polarity if stitched else 1) > 0 and residual < best[0]:
                    best = (residual, float(shift), blur)
        _, shift, blur = best
        if blur < BLUR_REFUSE_MM and abs(shift) < STITCH_SHIFT_MM - 0.05:
            mm[[side, (side + 1) % 4]] += shift * normal
    return apply_homography(H, mm)


def _on_grid(grey: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """Cubes' ``corners`` moved by the robust fit of its grid's line pieces where they put
    them (``read_cubes._line_offsets``, ``_grid_shift``) up to ``GRID_PASSES`` times,
    each move kept where the pieces agree with it no worse (``read_cubes._agreement``),
    until one moves no corner ``GRID_STILL_MM``."""
    from vision import read_cubes

    H = corners_homography(corners, geom)
    found = read_cubes._line_offsets(grey, H)
    for _ in range(GRID_PASSES):
        params = read_cubes._grid_shift(found)
        if params is None:
            break
        shift = read_cubes._displaced(params, geom.corners_mm())
        if not GRID_STILL_MM <= np.abs(shift).max() <= read_cubes.MAX_REFINE_MM:
            break
        moved = apply_homography(H, geom.corners_mm() + shift)
        again = read_cubes._line_offsets(grey, corners_homography(moved, geom))
        if read_cubes._agreement(again) < read_cubes._agreement(found):
            break
        corners, found, H = moved, again, corners_homography(moved, geom)
    return corners


def _moved_px(corners: np.ndarray, given: np.ndarray) -> float:
    """How far (px) ``corners`` lie from ``given`` at the corner furthest off."""
    return float(np.linalg.norm(np.asarray(corners) - given, axis=1).max())


def _fit_given_pattern(image: np.ndarray, corners: np.ndarray, geom: Geometry,
                       camera: CameraCalibration | None = None,
                       given: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Given corners on a board with painted lines but no frame line (the leather boards,
    Cubes' card) fitted to its pattern as ``vision.board.find_board`` fits a candidate
    (``board_align.align`` from them, ``fit_model``, and the last steps its finding ends
    with, ``vision.board.finished``: on a strip its near side face told from its edge,
    then its painted lines alone), then refitted on its own lines as its reader refits
    them (``_on_own_lines``: with ``camera`` on the image undistorted), and the share
    of its painted lines that then lie in place (``pattern_check``). Where under
    ``GIVEN_LINES_SHOWN`` of them do after the first fit, the corners given are refitted
    on the own lines alone instead, and kept where
    that moved them and ``OWN_LINES_SHOWN`` of them then lie in place (on ``SELF_CHECKED``
    boards, where it moved them). No fit is taken that moves a corner over
    ``GIVEN_TRUST_PX`` from ``given`` (the corners as clicked, before any snap; else
    ``corners``): the painted lines' fit so far off is passed over for the own lines'
    refit of the corners given, and that one so far off refused. Else refused
    (``OFF_LINES``): the lines do not follow the corners given, or the board is too
    blurred or small to show them; the refusal says to give them again or bring the
    camera nearer, or else to store them as given, unchecked, with the numbers to do so
    (``--corners`` without a frame: ``register_manual`` without ``image``)."""
    from vision.board import finished, fit_grey, fit_model, pattern_check
    from vision.board_align import align

    given = corners if given is None else np.asarray(given, np.float64)
    grey = fit_grey(image)
    fitted = finished(grey, fit_model(grey, align(grey, corners, geom)[0], geom, wide=0.0),
                      geom, (image.shape[1], image.shape[0]))
    plain = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    shown = pattern_check(grey, fitted, geom)[1]
    if shown >= GIVEN_LINES_SHOWN:
        fitted = _on_own_lines(plain, fitted, geom, camera)
        if _moved_px(fitted, given) <= GIVEN_TRUST_PX:
            return fitted, pattern_check(grey, fitted, geom)[1]

    def too_far(fit: np.ndarray) -> str:
        return (f"a corner moved {_moved_px(fit, given):.1f} px from where it was given, "
                f"over {GIVEN_TRUST_PX:g} px")

    why = [f"fitted, {shown:.0%} of them lie in place, under {GIVEN_LINES_SHOWN:.0%}"
           if shown < GIVEN_LINES_SHOWN else f"fitted, {too_far(fitted)}"]
    own = _on_own_lines(plain, corners, geom, camera)
    own_shown = pattern_check(grey, own, geom)[1]
    if not np.array_equal(own, corners):
        if _moved_px(own, given) > GIVEN_TRUST_PX:
            why.append(f"refitted on its own lines, {too_far(own)}")
        elif own_shown >= OWN_LINES_SHOWN or geom.game in SELF_CHECKED:
            return own, own_shown
    numbers = " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)
    raise RegistrationError(
        f"the board's painted lines do not follow the corners given ({'; '.join(why)}): "
        "give them again (clockwise nw ne se sw, north away from the camera, on the board "
        "top's outer corners); if they were right, bring the camera nearer and focus it (the board "
        f"at {_px_a_mm(fitted, geom):.1f} px a mm), or store them as given, unchecked (a "
        f"pixel off is about {1 / _px_a_mm(corners, geom):.1f} mm there), with no frame: "
        f"--corners '{numbers}'", Refusal.OFF_LINES)


def register_manual(corners: np.ndarray, game: str, size: tuple[int, int],
                    camera: CameraCalibration | None = None,
                    image: np.ndarray | None = None) -> BoardRegistration:
    """Registration from four corners (nw, ne, se, sw px, clockwise in the image). With
    ``image`` they are first snapped to the board's edges (``vision.board.refine``), the
    given ones kept when the snap moves any corner by more than a fiftieth of the board's
    size; on a ceramic tile then fitted to its frame line (``_fit_given``: refused where
    the line does not follow them or is blurred), with the fit report's ``lines_*`` as
    automatic registration has them and ``given_max_mm``, how far the given corners lay
    from the registered ones; refused, as automatic registration is, where the fitted
    frame line is blurred ``BLUR_REFUSE_MM`` or more or off by more than ``REFUSE_MM``.
    On the leather boards and Cubes' card fitted to their painted lines instead
    (``_fit_given_pattern``: refused where they do not show), the fit report's
    ``lines_shown`` the share of them in place, and ``given_max_mm``."""
    corners = np.asarray(corners, np.float64)
    if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
        raise RegistrationError("four corners are needed, nw ne se sw, each x,y in pixels",
                                Refusal.CORNERS)
    if not cv2.isContourConvex(corners.astype(np.float32)):
        raise RegistrationError("the four corners do not form a convex quadrilateral (give "
                                "them in the order nw ne se sw, north away from the camera)",
                                Refusal.CORNERS)
    x, y = corners.T
    if np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y) < 0:
        raise RegistrationError("the four corners go round the board anticlockwise in the "
                                "image: give them clockwise, nw ne se sw (north away from "
                                "the camera; a mirrored camera image cannot be registered)",
                                Refusal.CORNERS)
    geom = geometry(game)
    lines = given = shown = None
    clicked = corners
    if image is not None:
        snapped = refine(image, corners, geom)
        span = np.sqrt(cv2.contourArea(corners.astype(np.float32)))
        if np.linalg.norm(snapped - corners, axis=1).max() <= span / 50:
            corners = snapped
        given = corners
        if geom.material == "ceramic":
            corners = _fit_given(image, corners, geom)
            lines = frame_lines([image], corners, geom)
        else:
            corners, shown = _fit_given_pattern(image, corners, geom, camera, clicked)
    reg = _registration(game, corners, [corners], "manual", size, camera, lines)
    if shown is not None:
        reg.fit["lines_shown"] = round(shown, 3)
    if given is not None:
        reg.fit["given_max_mm"] = round(float(np.linalg.norm(
            to_board_mm(reg.homography, given) - geom.corners_mm(), axis=1).max()), 3)
    if lines and reg.fit["lines_blur_mm"] >= BLUR_REFUSE_MM:
        raise _blurred(reg.fit["lines_blur_mm"], corners, geom)
    if lines and reg.fit["lines_max_mm"] > REFUSE_MM:
        raise RegistrationError(f"the corners fitted to the board's frame line still miss "
                                f"it by {reg.fit['lines_max_mm']:.1f} mm (over {REFUSE_MM} "
                                "mm): give them again on the board top's outer corners",
                                Refusal.FIT)
    return reg


def parse_corners(text: str) -> np.ndarray:
    """``"x,y x,y x,y x,y"`` (nw ne se sw) -> (4, 2) array; ValueError naming the problem."""
    parts = text.replace(";", " ").split()
    if len(parts) != 4:
        raise ValueError(f"need 4 corners 'x,y' (nw ne se sw), got {len(parts)}")
    out = []
    for name, part in zip(CORNER_NAMES, parts, strict=True):
        try:
            x, y = (float(v) for v in part.split(","))
        except ValueError:
            raise ValueError(f"corner {name}: {part!r} is not x,y") from None
        out.append((x, y))
    return np.array(out)


def click_corners(image: np.ndarray) -> np.ndarray:
    """Four corners clicked in a window (nw, ne, se, sw). RegistrationError where OpenCV
    has no display (headless builds, no X/Wayland)."""
    import os

    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise RegistrationError("no display to click on: give the corners with --corners",
                                Refusal.NO_CLICK)
    clicks: list[tuple[float, float]] = []
    title = "click the board's corners: nw ne se sw (north away from the camera); q quits"

    def on_mouse(event, x, y, *_):
        if event == cv2.EVENT_LBUTTONDOWN and len(clicks) < 4:
            clicks.append((float(x), float(y)))

    try:
        cv2.namedWindow(title)
        cv2.setMouseCallback(title, on_mouse)
        while len(clicks) < 4:
            shown = image.copy()
            for (x, y), name in zip(clicks, CORNER_NAMES, strict=False):
                cv2.circle(shown, (int(x), int(y)), 5, (0, 0, 255), 2)
                cv2.putText(shown, name, (int(x) + 6, int(y) - 6), cv2.FONT_HERSHEY_SIMPLEX,
                            0.6, (0, 0, 255), 2)
            cv2.imshow(title, shown)
            if cv2.waitKey(30) & 0xFF == ord("q"):
                raise RegistrationError("clicking was stopped before four corners",
                                        Refusal.NO_CLICK)
        cv2.destroyWindow(title)
    except cv2.error as err:
        raise RegistrationError(f"OpenCV cannot open a window here ({str(err).strip()[:80]}):"
                                " give the corners with --corners", Refusal.NO_CLICK) from None
    return np.array(clicks)


def error_against_truth(reg: BoardRegistration, truth: dict) -> dict:
    """On a render: the registration's error in mm on the board plane, at the corners and
    the field centres (the truth's pixels mapped back through the registered homography,
    compared with where they lie on the board)."""
    geom = geometry(reg.game)
    px = [truth["board"]["corners"][n] for n in CORNER_NAMES]
    mm = list(geom.corners_mm())
    for cell, (_, u, v, _) in zip(truth["cells"], geom.cells, strict=True):
        px.append(cell["center"])
        mm.append((u, v))
    err = np.linalg.norm(to_board_mm(reg.homography, np.array(px)) - np.array(mm), axis=1)
    return {"corners_mm": float(err[:4].mean()), "fields_mm": float(err[4:].mean()),
            "max_mm": float(err.max())}
