"""Board localisation without markers: the four corners of the board's top face.

Steps (``find_board``):

1. At reduced resolution (``FIND_WIDTH`` pixels wide), candidate regions: the Otsu
   threshold of ``material_score`` and the regions Canny edges enclose (or form) at a
   few thresholds (``_candidate_masks``). A region whose convex hull reduces to a
   plausible convex quadrilateral (size, fill, side ratio within what the board's aspect
   allows under perspective, gradient along its outline) is a candidate
   (``coarse_candidates``, the best ``CANDIDATES``); on a strip (Neunfeld, whose region
   merges with the dice beside it) also the regions of colours rare in the frame
   (``rarity``), the quads between two long, nearly parallel straight edges
   (``_strip_candidates``) and the strips that the colour regions merged with the
   pieces beside them hold (``_banded_strips``); last the best ``NOTCHED`` regions that
   fill under
   ``MIN_FILL`` of their quad (stacks over the board's far edge cut it away).
2. Each candidate (for Cubes, where none taken as the board's edge shows the board,
   also grown from the band or grid it may be) is aligned
   (``vision.board_align.align``: the whole edge model scored on feature maps at three
   tolerances, the corners moved by a pattern search); after them (``_starts``), on a
   strip each candidate with its ends searched along its long sides (``strip_ends``),
   on the other boards the e-SOLO-e tiles' frame line's regions (``frame_candidates``),
   views of the board through three corners of any candidate (``_rebuilt``) and, on the
   tiles, views built on a candidate's side or a straight edge as the board's near side
   (``_near_views``: stacks hide the far half); last
   the ``RIGID_TRIES`` starts whose fits showed most aligned again as a rigid view of
   the board (``align``'s ``rigid``: 6 unknowns, so that pieces over the far edge
   cannot pull it in alone; ``_attempts``). Each alignment is then fitted sub-pixel
   (``fit_model``): the game's edge model (``edge_model``: the board's outline, its
   painted field outlines, frame line, grid, band, all known in millimetres) is moved,
   by robust Gauss-Newton steps on the four corners (the 8 unknowns of the
   homography), onto the steps and thin lines found along each model point's normal
   within less than half the painted lines' spacing. Pieces hide part of the model;
   the robust weights leave those points out, the rest still fixes all four corners.
3. A start, an alignment or a fit that no camera over a table can see so is dropped
   (``plausible_view``: the view ``view_check`` recovers tilted over ``MAX_TILT_DEG``, or
   the quad off the nearest rigid view of the board); an alignment dropped so neither
   raises the bar for the others nor ends the search. The fit (or, where the sub-pixel
   fit lost the pattern, the alignment) whose pattern shows best where it puts it
   (``support``; on a strip the lesser of its pattern's share and its painted lines',
   taken down where the table beyond an end looks like the strip, ``_ends_clear``;
   on the other boards taken down as it is off a rigid view of the board, ``_shown``)
   wins, if at least ``MIN_SUPPORT`` of its painted lines do (on the tiles, where none
   does, their fits under ``SHARP_BELOW_PPM`` judged again on the frame without the
   fits' blur, each only where nearly a rigid view of the board showing
   ``SHARP_SHARE`` of its pattern, ``_sharp_shown``): no board otherwise. The search
   ends at the first
   fit that shows ``GOOD_SUPPORT`` (on a strip: its pattern and its painted lines
   ``STRIP_SUPPORT``; on the tiles, where a side of it shows under ``ENDING_SIDE``, it
   is first aligned and fitted again from itself twice, that side moved a field out and
   as a rigid view, and the best of the three taken, ``_past_weakest_side``); an
   alignment scoring under ``ALIGNED_SHARE`` of the best one so
   far is not fitted; on a strip also each fit with its ends searched again along its
   fitted sides (``strip_ends``) and fitted again, where its pattern and its painted
   lines both show as well (``pattern_check``). On a strip whose best fit then shows
   under ``LATE_BELOW``, last the
   strips ranked after ``STRIPS`` up to ``MORE_STRIPS`` (their ends also searched along
   them), then the strips between its colour masks' straight edges (``_mask_strips``; on
   a gingham cloth no other start lies near it) are aligned and fitted
   (``_late_strips``), under no bar and raising none; one wins only where it shows
   ``LATE_BELOW`` or more. On the tiles so, last the near views that lie apart from those
   aligned (``_near_views``: the best of them repeat), likewise. On a strip whose search
   did not end so, the chosen fit is
   then moved a field along the strip either way and fitted again, and taken so where
   it shows better and its whole pattern ``SHIFT_GAIN`` better (``_shifted_a_field``: a
   fit a field along shows the repeating separators as well as the board). On the tiles
   each side of the
   chosen fit is then tried farther out (``_pushed_out``); on a strip it is fitted again
   with each outline side's step sought the other way (``_off_side_face``: a near side
   on its side face's foot moves to the top's edge), then moved onto its painted lines
   alone (``_on_lines``: its outline's step also answers on the stitching's flank 1.6 mm
   inside), and where an end field then shows bare, moved a field away from it
   (``_off_a_bare_end``); where its long sides show past an end the fit a field towards
   it is taken, or none (``_past_an_end``); and taken only within ``STRIP_FOUND_MISFIT`` of
   a rigid view of the board (no board otherwise); on Cubes, where it shows under
   ``GOOD_SUPPORT``, it is aligned again with the last level from it too (``align``'s
   ``from_start``); on the tiles, where it shows under ``GOOD_SUPPORT`` on the blurred
   frame under ``FINE_FIT_PPM`` (no fine fit followed its alignment), it is aligned
   again from itself and finished, and that taken where it then shows
   ``REALIGNED_GAIN`` better (``_small_tile_realigned``).
4. The corners are named (``orient``): the turns the board's shape allows, narrowed by
   its marks where it has them (``mark_turn``: 3andC's blue fields, Cubes' shaded
   fields), then the one that puts north farthest up the image (a board without marks
   has no other north: docs/vision.md, *Naming*).

Sizes come from the renderer's board specification (``vision.render.scene.board_spec``),
the one source of the games' board geometry; nothing is rendered at run time.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

FIND_WIDTH = 640  # pixels; finding works on a frame scaled to this width
CORNER_NAMES = ("nw", "ne", "se", "sw")
PERSPECTIVE_RATIO = 1.15  # opposite sides this unequal: the longer one is nearer
MIN_FILL = 0.68  # region area / its quad area (pieces on the edge notch the region)
NOTCHED_FILL = 0.4  # a region this full, tried after the others (stacks over its edge)
NOTCHED = 4  # such notched quads fitted per frame, best first (4, not 3: on a gingham
# cloth the squares' notched regions rank over the board's, 4th at dev 3andC 2769, found
# 0.31 px off so; of dev 0..199 and 2600..2799's 1200 tile frames it found 1 board more,
# none wrong, the find's CPU time per frame 1.00..1.01 of before at the median)
ADAPTIVE_BLOCKS = (61, 151)  # px at FIND_WIDTH: neighbourhoods of the local thresholds
BRIGHTEST = (2.0, 5.0, 10.0)  # per cent of the frame: the glaze's candidate masks
ADAPTIVE_C = 8  # material score levels above (below) the neighbourhood's mean
CANDIDATES = 6  # coarse quads fitted per frame, best first
# and on the tiles the best full region of the fewest BRIGHTEST % that hold one, apart
# from those: a small tile's region ranks under a table's larger plausible ones (dev
# e-SOLO-e 1891, wooden planks: found 367 px off on them; 0.09 px so; of 1200 dev frames
# of the three tile games it added a start to 171 and changed no other's board); then
# likewise the best notched region (stacks over the far half cut the glaze: dev e-SOLO-e
# 2197 on a gingham cloth, none found -> 0.20 px; of dev 2000..2399, 1200 frames, it
# added a start to 39 and found 3 boards more, none wrong)
BRIGHT = 1
STRIP_ASPECT = 4.0  # a board this long for its width is found as a strip too
STRIP_LINES = 40  # the longest straight edges paired into a strip's sides
STRIP_PIECES = 120  # the longest pieces of straight edges joined into them
STRIP_GAP = 0.08  # of the frame's width: a straight edge's pieces joined across this
# of their joint extent: a strip's two long edges run side by side this far at least (a
# die or a pawn on the strip breaks one; 0.4 before session 11)
STRIP_OVERLAP = 0.25
STRIPS = 4  # strips fitted per frame
MASK_STRIPS = 1  # strips between each colour mask's edges fitted, last (_mask_strips)
# a strip's chosen fit moved a field along it (_shifted_a_field) is taken only where the
# share of its whole pattern in place grows by this too: dev 0..399, 0.06..0.14 where
# the moved fit was the board (55, 58, 303, 308, 371), at most 0.03 where the chosen one
# was and a fit a field along showed more (14 frames, lost without it)
SHIFT_GAIN = 0.04
# a strip's finished fit whose end field shows under BARE_END of its long sides' outline
# and stitching in place (_end_fields_shown: the table, or a pawn) is moved a field away
# from that end and fitted again, and taken so where it shows as well (_shown times
# _ends_clear) and its barer end field shows END_GAIN more of them (_off_a_bare_end):
# where a pawn hides one end field a fit a field along, one end over the table, shows
# the repeating separators as well as the board (dev 1600..2199 at e4f4207: 4 of the
# 10 such fits found wrong, 28..46 px off, 0.2..4.6 px so; of the 15 right boards with
# an end field so bare none moved; the right fit's barer end gained 0.15..0.46, a right
# board's moved fit at most 0.15 where it showed 0.03 less)
BARE_END = 0.16
END_GAIN = 0.1
# a strip's found board (find_board's fit, finished) is no board farther than this off a
# rigid view of it (_misfit): its four corners tell the view less than a tile's do (of
# dev 1600..2199's 425 boards found within 1.5 px at e4f4207 none lay over 0.012 off),
# but a fit a long side off or sheared across the strip is no view of it (7 of the 26
# found wrong lay 0.035..0.043 off or were tilted past MAX_TILT_DEG; of the 554 found 4,
# 6.9..9.2 px off)
STRIP_FOUND_MISFIT = 0.035
# a strip's finished fit whose long sides' outline and stitching show under this share in
# place a field beyond each of its ends (_beyond_ends_shown: over the table they show
# nothing) is the board; where more show past one end the strip goes on there, and the fit
# a field towards it is taken where it shows so under this at both ends and shows as well,
# else no board (_past_an_end: dev 1800..2399 at b02770f, of the 550 boards found none
# showed over 0.27 a field past an end; of the 19 found wrong 10 showed 0.31..0.69, a field
# along with a pawn on the table beyond its other end, 3 of them moved onto the board, or
# a few fields short, or on a gingham's lines)
BEYOND_SHOWN = 0.3
LATE_BELOW = 0.4  # and only where the best fit before them shows under this (_shown),
# and one of them wins only where it shows this or more
MORE_STRIPS = 8  # there first the strips ranked after STRIPS up to this (_late_strips:
# found 4 of dev 0..199's 13 boards not found, all 4 found wrong before; 6 found 2)
BANDED = 1  # strips of colour regions merged with pieces fitted per frame (_banded_strips)
BANDED_AREA = (0.0005, 0.2)  # of the frame: such regions' sizes
RARE_COLOURS = (4, 8)  # a table's commonest colours (rarity), each count's own mask
ENDS_REACH = 0.5  # of a strip's length: how far strip_ends moves each of its ends
SEPARATOR_MM = 1.5  # a strip's field separator stands out from the leather this far off
ENDS_SHORTEST = 0.7  # of its length: a strip's ends come no nearer (half would show half
# its separators, the others on its fields' numbers)
ENDS_STRIDE = 0.01  # of a strip's length: strip_ends' step
REBUILT = 3  # views through three corners of a candidate aligned per frame
REBUILT_LARGE = 1  # then those best by prescore times their size to the power 1/4 (a
# small view on a stack's printed faces finds edges wherever it puts the board's)
REBUILT_GROWTH = 2.0  # of these, none larger than this many times their candidate's size
NEAR = 12  # views of the board from a candidate's near side aligned per frame (_near_views)
NEAR_HALF = 4  # then those best on the board's near half alone (_near_half_prescore)
NEAR_EDGES = 20  # straight edges taken as a near side too
NEAR_EDGE_LONGEST = 0.5  # of the frame's width: longer straight edges are not
NEAR_TILTS_DEG = np.arange(10.0, 71.0, 4.0)  # the camera's tilts from vertical they assume
NEAR_ROLLS_DEG = (-4.0, 0.0, 4.0)  # and its rolls (a camera mounted level, give or take)
PRESCORE_CHUNK = 512  # views _prescore maps at once (thousands at once held ~80 MiB)
RIGID_TRIES = 3  # free alignments fitted that are aligned again as a rigid view
ENDS_MOVED = 0.05  # of its length: corners this near ones tried are not aligned again
ENDS_PERSPECTIVE = (0.85, 1.0, 1.18)  # its first gap over its last, square root
END_MM = 4.0  # a strip's end: the colours this far inside and outside it compared
END_LEVELS = 10.0  # colour levels: a smaller step at an end counts for less
BEYOND_LEVELS = 12.0  # Lab levels: a strip fit's shown measure is taken down where the
# table beyond an end lies nearer the strip's colour than this (_ends_clear)
MODEL_POINTS_PER_SIDE = 60  # edge model: points along the board's longer side
MIN_STEP = 6.0  # grey levels: weakest outline step the fit uses
MIN_LINE = 3.0  # grey levels: weakest painted line the fit uses
LINE_FLANK_PX = 1.0  # a painted line is compared with its sides this far past its half width
MAX_HALF_PX = 6  # and at most this far from its centre
PEAK_SHARE = 0.5  # an edge this share of the strongest one near it counts (nearest wins)
GOOD_SUPPORT = 0.7  # a fit whose pattern shows this well ends the search
# on the tiles, where a side of it shows under this (_past_weakest_side), only after two
# more fits from it: a fit a field short along the tile, its end on a field's outline,
# showed 73..81 % and ended the search (dev e-SOLO-e 24, 154: that end 0.07..0.28, the
# board's ends 0.57..0.65); stacks hide a side of the board's own fit as far (dev 67, 79)
ENDING_SIDE = 0.3
# and only where that side, moved up to PLACE_SIDE_MM in or out (1 px steps), shows the
# board under PLACE_GAIN better (_shown): a side a few mm off (dev 3andC 104, 286: 5 mm
# out, 4 mm in; 0.14, 0.03..0.04 better) ends no search; one stacks hide showed at most
# 0.02 better (dev e-SOLO-e 67, 79, 111). 8 mm: under the 9.5 mm to the fields' outlines
PLACE_SIDE_MM = 8.0
PLACE_GAIN = 0.025
# each side's outward normal in board mm (north, east, south, west: _side_points' order;
# a side's corners are its index and the next one's in corners_mm's)
SIDE_OUTWARD = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, -1.0], [-1.0, 0.0]])
# on a strip its painted lines too must show this well (a fit with its short ends off
# still shows most of the pattern)
STRIP_SUPPORT = 0.9
ALIGNED_SHARE = 0.8  # an alignment scoring under this share of the best is not fitted
MIN_SHARE = 0.25  # of the whole pattern (outline and lines) in place, below: not the board
# on the tiles, the fit's fine points (fields' lines 1 mm wide, 2..3 mm apart) only where
# the board shows at least this many px a mm: below it their sides run into the next line
# and the fit drifts (fitted from the true corners, tile games, dev 100..299 at b07447b:
# mean corner error median 0.96 px under 1.6 px a mm, 0.73 at 1.6..2, 0.35 at 3..4);
# the alignment's own corners (to the pixel) stand there
FINE_FIT_PPM = 2.0
MIN_SUPPORT = 0.2  # share of the painted lines seen in place, below: not the board
FIT_BLUR_PX = 1.0  # the Gaussian that smooths the frame the fits read (fit_grey)
# on the e-SOLO-e tiles where no fit shows the board, those whose board shows under this
# many px a mm are judged (_shown) again on the frame without that blur (they were fitted
# on the blurred one): there the 1 mm painted lines are about a pixel wide and blurred
# they lay too shallow for MIN_LINE, so that even the true corners showed under
# MIN_SUPPORT (dev 0..199, the three tile games: 8 of the 17 boards not found, at 0.96..
# 1.16 px a mm). Not every fit judged so: fits judged unblurred beside others judged
# blurred lost boards found before (e-SOLO-e 168, 3andC 169), and under 1.6 px a mm
# chose one 4 px off (e-SOLO-e 63)
SHARP_BELOW_PPM = 1.3
# and is the board only where it is nearly a rigid view of it (``_misfit`` within
# SHARP_MISFIT, not VIEW_MISFIT) and its whole pattern shows SHARP_SHARE of it in place
# there (not MIN_SHARE): unblurred, a quad over the stacks on a gingham cloth (held-out
# e-SOLO-e 1637 of session 14: 0.36 shown, 0.027 off a rigid view), one field's outline
# (1664: 0.27), a quad sheared across an empty 3andC tile (dev overhead 115: 0.31) and
# one two sides out on the table (3andC 1650: 0.41, 0.028) showed MIN_SUPPORT of the
# painted lines too; the boards found so showed 0.40..0.82 of it, at most 0.020 off (dev
# 0..199 and 1600..1699, the three tile games)
SHARP_SHARE = 0.38
SHARP_MISFIT = 0.022
# a tile's found board (find_board's finished fit, however it was judged) is no board
# farther than this off a rigid view of it (_misfit): a fit a field short, on the side
# face's foot or on the stacks' feet is no view of the board, but shows as much of the
# pattern as the boards found at all on small blurred tiles (dev 0..199, 1600..1699 and
# 1800..1899 at 96ab58b, the three tile games, 1200 frames: 9 of the 19 boards found
# wrong, 12..340 px off, lay 0.022..0.053 off a rigid view; of the 1161 found 3, 4.7..8.7
# px off, none within 1.5 px); and the wrong boards found nearer a rigid view lay 0.0135..
# 0.0203 off it, the right ones mostly under 0.01 (session 18, dev 2000..2399, the three
# tile games, 1200 frames at b02770f: of the 22 boards between 0.013 and 0.022 off, 11
# were found wrong, 10..28 px off or named wrong, 5 found 5.5..9.4 px off, 6 within
# 1.3..2.4 px)
FOUND_MISFIT = 0.013
# where a tile's finished fit is refused so, the search's next fits (_runner_up): at most
# this many, none showing under this share of the refused one (dev 2600..2799, the three
# tile games, and e-SOLO-e 2261: the six taken were the first or second tried and showed
# 0.84..1.0 of it)
RUNNERS = 4
RUNNER_SHARE = 0.8
# a small tile's chosen fit aligned again from itself is taken where it then shows the
# board this much better (_shown, both finished; _small_tile_realigned): on dev 0..199
# and 1600..1699 (tuned there) the fits it brought onto the board gained 0.14 and 0.30
# (one 3.9 px nearer: 0.07), those it carried 0.9..4.7 px farther off 0.008..0.075
REALIGNED_GAIN = 0.1
# a found board's view (view_check): the camera's tilt from the board's normal at most
# this (the system's cameras stand 0..60 degrees from vertical; the rest for the
# assumed focal length and the lens), and no corner farther than VIEW_MISFIT of the
# board's image size from the nearest rigid view of it (a quad of another aspect)
MAX_TILT_DEG = 70.0
VIEW_MISFIT = 0.05
RIGID_WEIGHT = 0.5  # a fit off a rigid view by VIEW_MISFIT shows this much less (_shown)
START_MISFIT = 0.3  # a start's (a stack may carry a corner off; the alignment moves it)
CERAMIC_FRAME_MM = 3.5  # the e-SOLO-e tiles' frame line, inside the edge
PUSH_MM = 14.0  # a tile's side is tried this far out (its fields' outlines: 9.5 mm inside)
PUSH_GAIN = 0.25  # of a side's points: shown this much better farther out, the side moves
POLISH_STEP = 0.5  # px: the tiles' last fit (_polished) samples its profiles this finely,
POLISH_BOX = 1  # px: its steps' boxes (3 px boxes reach the frame line 3.5 mm inside),
POLISH_REACH = 1.5  # px: how far it seeks each edge or line,
POLISH_ROUNDS = 3
POLISH_SCALE = 0.5  # px: its Cauchy weights' scale (vision.grid.robust_lstsq)
FRAME_INNER_MM = 4.0  # the frame line's inner edge, inside the tile's edge
FRAME_KERNELS = (3, 5)  # px at FIND_WIDTH: black-hats that show the frame line
FRAME_LEVELS = (8, 16)  # grey levels: the black-hat taken as a line from these
FRAME_CANDIDATES = 3  # regions inside the frame line aligned per frame
FRAME_NOTCHED = 1  # after them, regions filling under MIN_FILL of their quad (stacks)
CARD_BAND_MM = 7.25  # the Cubes board's printed band, inside the edge
CARD_PITCH_MM = 30.0  # the Cubes board's grid
LEATHER_LIP_MM = np.array([-0.35, 0.35])  # the light lip beside a leather groove
# the light stitching inside the edge (a line of its own)
LEATHER_STITCH_MM = {"tyr": 6.0, "neunfeld": 1.6}
LINES_REACH_PX = (6.0, 3.0, 1.5, 1.5)  # a strip's last steps on its painted lines alone
LINES_MOVED_PX = 6.0  # (_on_lines), kept where no corner moved farther
LINES_SHOWN = 0.5  # and where this share of the lines along its edge shows in place
# a leather field's outline this close to the board's edge is not modelled: its light lip
# lies past the edge (not drawn) or on the outline's own step (Neunfeld's fields reach
# its edge)
LEATHER_EDGE_MM = 1.0
# the weakest mark difference (mark_turn) that names a quarter turn, in each board's own
# units: Cubes grey levels; 3andC per cent of its blue corner fields' samples glazed, less
# those of the two other corners (one sample net: 0.41). A white field seldom shows glaze
# where a blue one under cubes still shows a little. Dev renders 0..149 and 2000..2599,
# camera any, true corners, 4.0 -> 0.8 (two samples net): named wrong 7 -> 2 (2030, 2047,
# 2085, 2232, 2520 named right: the cubes leave 1.2..3.3, the camera 53..69 degrees
# round; left 2450 at 0.41 and 2174, 97 degrees round: a half turn), none newly wrong
# (one sample net would name 2118 wrong: -0.41, the camera 49 degrees round)
MARK_MIN = {"cubes": 4.0, "esoloe-3andc": 0.8}
# 3andC's blue glaze is counted (mark_turn) only where it can be glaze:
BLUE_GLAZE_SHRINK = 0.9  # inside this share of a field's half side, off its painted
#   outline (blue ink, which at 0.95 counted as blue on every field it showed on: a blue
#   field whose outline a cube hid came out less blue than an empty white one)
BLUE_MIN_CHROMA = 10.0  # and in pixels at least this colourful (HSV S * V / 255, the
#   spread of B, G, R in levels): a cube's face in shade is near grey, its hue anything.
#   Dev renders 0..199, camera any, the finder's corners: named a quarter turn off 2 (49,
#   92) -> 0, none newly wrong (shrink 0.9 alone: 1; 0.85 or chroma 15: 0 too)
MARKED = frozenset(MARK_MIN)  # square boards whose marks mark_turn reads


@dataclass(frozen=True)
class Geometry:
    """A game's board in millimetres: board frame origin at the centre, u east, v north."""

    game: str
    material: str
    width: float
    depth: float
    thickness: float
    cells: tuple[tuple[str, float, float, float], ...]  # (name, u, v, half side)
    line_mm: float = 1.0  # the painted lines' width

    @property
    def aspect(self) -> float:
        return max(self.width, self.depth) / min(self.width, self.depth)

    def corners_mm(self) -> np.ndarray:
        """Top face corners (u, v) in the order nw, ne, se, sw."""
        w, d = self.width / 2, self.depth / 2
        return np.array([(-w, d), (w, d), (w, -d), (-w, -d)], np.float64)


def geometry(game: str) -> Geometry:
    """The board geometry of ``game`` (raises ``InvalidPosition`` for an unknown game)."""
    from vision.render.scene import LINE_MM, board_spec

    s = board_spec(game)
    return Geometry(game, s.material, s.width, s.depth, s.thickness,
                    tuple((c.name, c.u, c.v, c.half) for c in s.cells), LINE_MM[s.material])


@dataclass(frozen=True)
class BoardFix:
    corners: np.ndarray  # (4, 2) float64 image px of the top face: nw, ne, se, sw
    coarse: np.ndarray  # the same before refinement

    def to_json(self) -> dict:
        return {n: [round(float(x), 3), round(float(y), 3)]
                for n, (x, y) in zip(CORNER_NAMES, self.corners, strict=True)}


def material_score(image: np.ndarray, material: str) -> np.ndarray:
    """uint8 image: high where a pixel looks like the board top's material."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    v = hsv[..., 2].astype(np.int16)
    s = hsv[..., 1].astype(np.int16)
    # white glaze: bright, unsaturated; leather and card: brightness counts more
    score = v - s if material == "ceramic" else v - s // 2
    return np.clip(score, 0, 255).astype(np.uint8)


def _quad_from_hull(hull: np.ndarray) -> np.ndarray | None:
    """Four corners of a convex hull: the polygon approximation that has four vertices;
    failing that (cut or rounded corners), the hull with the vertex that spans the least
    triangle with its neighbours dropped until four are left (the side fits in
    ``refine`` restore the sharp corners)."""
    perimeter = cv2.arcLength(hull, True)
    for frac in (0.01, 0.015, 0.02, 0.03, 0.05):
        approx = cv2.approxPolyDP(hull, frac * perimeter, True).reshape(-1, 2)
        if len(approx) == 4:
            return approx.astype(np.float64)
    pts = hull.reshape(-1, 2).astype(np.float64)
    if len(pts) < 4:
        return None
    while len(pts) > 4:
        i = np.arange(len(pts))
        prev, nxt = pts[i - 1], pts[(i + 1) % len(pts)]
        a, b = pts - prev, nxt - prev
        area = np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])
        pts = np.delete(pts, int(np.argmin(area)), axis=0)
    return pts


def _plausible(quad: np.ndarray, contour_area: float, geom: Geometry, frame_area: float):
    """(A score, bigger is better; the region's fill of the quad) or None when the quad
    cannot be the board (its fill under ``NOTCHED_FILL`` included)."""
    area = cv2.contourArea(quad.astype(np.float32))
    if area < frame_area * 0.002 or area > frame_area * 0.8:
        return None
    if not cv2.isContourConvex(quad.astype(np.float32)):
        return None
    fill = contour_area / area
    if fill < NOTCHED_FILL:
        return None
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    a = (sides[0] + sides[2]) / 2
    b = (sides[1] + sides[3]) / 2
    ratio = max(a, b) / max(min(a, b), 1e-6)
    # perspective foreshortens one direction by up to ~1/cos(65 deg)
    if ratio > geom.aspect * 2.6 or ratio < geom.aspect / 2.6:
        return None
    return float(np.sqrt(area)) * fill, fill


def _candidate_masks(small: np.ndarray, geom: Geometry):
    """(binary mask whose regions may be the board top, whether it is of the board's
    colour, whether it is of the glaze's brightest pixels): the material's colour (Otsu
    on ``material_score``; on a strip also of ``rarity``; on the tiles its ``BRIGHTEST``
    few %), and the regions that Canny edges enclose at a few thresholds."""
    score = cv2.GaussianBlur(material_score(small, geom.material), (5, 5), 0)
    _, mask = cv2.threshold(score, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    yield cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel),
                           cv2.MORPH_OPEN, kernel), True, False
    for colours in RARE_COLOURS if geom.aspect >= STRIP_ASPECT else ():
        # a strip of its own colour on a cloth of a few
        _, rare = cv2.threshold(rarity(small, colours), 0, 255,
                                cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        yield cv2.morphologyEx(cv2.morphologyEx(rare, cv2.MORPH_OPEN, kernel),
                               cv2.MORPH_CLOSE, kernel), True, False
    if geom.material == "ceramic":  # the white glaze: often the frame's brightest few %
        for share in BRIGHTEST:
            level = np.percentile(score, 100 - share)
            yield cv2.morphologyEx((score >= level).astype(np.uint8) * 255, cv2.MORPH_CLOSE,
                                   kernel), True, True
    for block in ADAPTIVE_BLOCKS:  # lighter or darker than round about
        for kind in (cv2.THRESH_BINARY, cv2.THRESH_BINARY_INV):
            local = cv2.adaptiveThreshold(score, 255, cv2.ADAPTIVE_THRESH_MEAN_C, kind, block,
                                          -ADAPTIVE_C if kind == cv2.THRESH_BINARY else ADAPTIVE_C)
            yield cv2.morphologyEx(local, cv2.MORPH_CLOSE, kernel), False, False
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    for lo in (12, 24, 48):
        edges = cv2.dilate(cv2.Canny(grey, lo, lo * 2.5), np.ones((3, 3), np.uint8))
        yield cv2.bitwise_not(edges), False, False
        yield edges, False, False


def _side_line(a: np.ndarray, b: np.ndarray):
    """(slope, offset, points kept) of the line b = slope a + offset through most of the
    points, the farthest left out in turn (pieces beside a strip stand out of its side)."""
    keep = np.ones(len(a), bool)
    for _ in range(4):
        if keep.sum() < 5:
            return None
        m, c = np.polyfit(a[keep], b[keep], 1)
        off = np.abs(b - (m * a + c))
        keep = off <= max(1.0, 2.0 * float(np.median(off[keep])))
    return m, c, keep


def _banded_strips(mask: np.ndarray, geom: Geometry, frame_area: float) -> list:
    """(score, quad) of the strips that regions of a colour mask hold (a strip with dice
    and pawns merged into its region, whose hull is no quad): per elongated region, the
    lines its edges across its long axis (``cv2.minAreaRect``) follow at most places
    (``_side_line``), from the first to the last place both do; scored by that length
    times the share of places where both do (``coarse_candidates`` ranks them, all colour
    masks' together, with the board's pattern where they put it, ``_on_pattern``: by
    their score alone a region of dice and a pawn outranked the strip's own)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats((mask > 0).astype(np.uint8))
    out = []
    for i in range(1, n):
        if not frame_area * BANDED_AREA[0] <= stats[i, cv2.CC_STAT_AREA] <= \
                frame_area * BANDED_AREA[1]:
            continue
        x, y, w, h = stats[i, :4]
        ys, xs = np.nonzero(labels[y:y + h, x:x + w] == i)
        pts = np.column_stack([xs + x, ys + y]).astype(np.float64)
        _, (rw, rh), angle = cv2.minAreaRect(pts.astype(np.float32))
        if max(rw, rh) < STRIP_ASPECT / 2 * min(rw, rh):
            continue
        t = np.radians(angle if rw >= rh else angle + 90)
        d, nrm = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
        along = np.round(pts @ d).astype(int)
        first = along.min()
        top = np.full(along.max() - first + 1, np.inf)
        bottom = np.full(len(top), -np.inf)
        np.minimum.at(top, along - first, pts @ nrm)
        np.maximum.at(bottom, along - first, pts @ nrm)
        a = np.arange(len(top), dtype=np.float64) + first
        sides = _side_line(a, top), _side_line(a, bottom)
        if sides[0] is None or sides[1] is None:
            continue
        both = sides[0][2] & sides[1][2]
        if both.sum() < 5:
            continue
        a0, a1 = a[both].min(), a[both].max()
        quad = np.array([e * d + (m * e + c) * nrm for (m, c, _), e in
                         ((sides[0], a0), (sides[0], a1), (sides[1], a1), (sides[1], a0))])
        width = float(np.linalg.norm((quad[2] + quad[3] - quad[0] - quad[1]) / 2))
        if width >= 2 and geom.aspect * 0.5 <= (a1 - a0) / width <= geom.aspect * 2.6:
            out.append((float(both.mean() * (a1 - a0)), quad))
    return out


def _edge_support(grad: np.ndarray, quad: np.ndarray) -> float:
    """Share of points along the quad's sides that lie on a strong gradient."""
    pts = []
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        t = np.linspace(0.05, 0.95, 24)[:, None]
        pts.append(p + (q - p) * t)
    pts = np.concatenate(pts).round().astype(int)
    h, w = grad.shape
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    pts = pts[inside]
    if len(pts) == 0:
        return 0.0
    return float(np.mean(grad[pts[:, 1], pts[:, 0]] > 0.25))


def _small(image: np.ndarray) -> tuple[np.ndarray, float]:
    """(the frame scaled to ``FIND_WIDTH`` wide, the scale), what finding works on."""
    h, w = image.shape[:2]
    scale = FIND_WIDTH / w
    return cv2.resize(image, (FIND_WIDTH, int(round(h * scale))),
                      interpolation=cv2.INTER_AREA), scale


def _region_quads(mask: np.ndarray, geom: Geometry, frame_area: float):
    """(quad, (plausibility, fill)) of each region of ``mask`` (uint8, at ``FIND_WIDTH``)
    whose convex hull reduces to a plausible quadrilateral (``_plausible``)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < frame_area * 0.002 or area > frame_area * 0.8:
            continue
        quad = _quad_from_hull(cv2.convexHull(contour))
        plausible = None if quad is None else _plausible(quad, area, geom, frame_area)
        if plausible is not None:
            yield quad, plausible


def _distinct(quads, most: int, out: list[np.ndarray]) -> None:
    """Adds to ``out`` the ``quads`` (best first) that lie apart from those in it (corners
    more than 5 % of their size off), until it holds ``most``."""
    for quad in quads:
        if len(out) >= most:
            break
        size = np.sqrt(cv2.contourArea(quad.astype(np.float32)))
        if all(_quad_distance(quad, q) > 0.05 * size for q in out):
            out.append(quad)


def coarse_candidates(image: np.ndarray, geom: Geometry
                      ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(quadrilaterals (4, 2) in full-resolution px, unordered corners, that may be the
    board or its printed field block: the regions' best first (at most ``CANDIDATES``),
    then a strip's (the best ``STRIPS`` of ``_strip_candidates``), then the regions that
    fill under ``MIN_FILL`` of their quad (at most ``NOTCHED``); the strips ranked after
    ``STRIPS``, best first, for ``_late_strips``)."""
    small, scale = _small(image)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    grad = cv2.dilate(cv2.magnitude(gx, gy), np.ones((5, 5), np.uint8))
    grad /= max(float(np.percentile(grad, 99)), 1e-6)
    frame_area = float(grey.shape[0] * grey.shape[1])
    found: list[tuple[float, np.ndarray]] = []
    notched: list[tuple[float, np.ndarray]] = []  # fill under MIN_FILL
    banded: list[tuple[float, np.ndarray]] = []  # a strip's, its region merged with pieces
    # the glaze's brightest regions, full ones and notched ones (by whether they fill
    # MIN_FILL): of each the fewest % with one (a plank's highlight: the 10 % held one
    # 200 px off whose size ranked it first, dev 1891)
    bright: dict[bool, list[np.ndarray]] = {True: [], False: []}
    for mask, colour, brightest in _candidate_masks(small, geom):
        kept = {full: [] for full in bright if brightest and not bright[full]}
        if colour and geom.aspect >= STRIP_ASPECT:
            banded += _banded_strips(mask, geom, frame_area)
        for quad, (s, fill) in _region_quads(mask, geom, frame_area):
            support = _edge_support(grad, quad)
            if support < 0.5:
                continue
            full = fill >= MIN_FILL
            (found if full else notched).append((s * support, (quad + 0.5) / scale - 0.5))
            if full in kept:
                kept[full].append((found if full else notched)[-1])
        for full, regions in kept.items():
            bright[full] += [q for _, q in sorted(regions, key=lambda f: -f[0])[:BRIGHT]]
    found.sort(key=lambda f: -f[0])
    notched.sort(key=lambda f: -f[0])
    out: list[np.ndarray] = []
    strips = [(q + 0.5) / scale - 0.5 for q in _strip_candidates(small, grey, geom)]
    for quads, most in (((q for _, q in found), CANDIDATES), (strips[:STRIPS], STRIPS),
                        (((q + 0.5) / scale - 0.5 for q in _on_pattern(small, banded, geom)),
                         BANDED),
                        ((q for _, q in notched), NOTCHED), (bright[True], BRIGHT),
                        (bright[False], BRIGHT)):
        _distinct(quads, most + len(out), out)
    return out, strips[STRIPS:]


def frame_candidates(image: np.ndarray, geom: Geometry) -> list[np.ndarray]:
    """On the e-SOLO-e tiles: named corners of the boards whose frame line's inner edge
    (``FRAME_INNER_MM`` inside the edge) is a region that dark thin lines enclose (a
    black-hat of the frame at ``FIND_WIDTH``, ``FRAME_KERNELS`` and ``FRAME_LEVELS``):
    the glaze often stands out from the table less than its printing does; the
    ``FRAME_CANDIDATES`` plausible quads (``_plausible``, fill at least ``MIN_FILL``)
    of the largest regions, best first, then the ``FRAME_NOTCHED`` best that fill less
    (stacks on the fields cut the region)."""
    if geom.material != "ceramic":
        return []
    small, scale = _small(image)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    frame_area = float(grey.shape[0] * grey.shape[1])
    found, notched = [], []
    for k in FRAME_KERNELS:
        dark = cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT,
                                cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        for level in FRAME_LEVELS:
            inside = cv2.bitwise_not(cv2.dilate((dark > level).astype(np.uint8) * 255,
                                                np.ones((2, 2), np.uint8)))
            for quad, (s, fill) in _region_quads(inside, geom, frame_area):
                (found if fill >= MIN_FILL else notched).append((s, (quad + 0.5) / scale - 0.5))
    out: list[np.ndarray] = []
    for quads, most in ((found, FRAME_CANDIDATES), (notched, FRAME_NOTCHED)):
        _distinct((quad for _, quad in sorted(quads, key=lambda f: -f[0])), most + len(out),
                  out)
    return [_grown(name_corners(q, geom), geom, FRAME_INNER_MM) for q in out]


def rarity(small: np.ndarray, colours: int = RARE_COLOURS[0]) -> np.ndarray:
    """uint8 image: how far each pixel's colour (Lab) lies from the nearest of the
    frame's ``colours`` commonest colours (k-means on every fourth pixel), 255 at
    the 99th percentile: a board of its own colour on a table of a few (a gingham
    cloth's squares, whose many straight edges outnumber the board's) stands out."""
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
    cv2.setRNGSeed(0)  # k-means++ seeds: the same frame, the same answer
    _, _, centres = cv2.kmeans(lab[::4, ::4].reshape(-1, 3), colours, None, criteria,
                               1, cv2.KMEANS_PP_CENTERS)
    far = None  # squared distance to the nearest centre (OpenCV's ops: 3x numpy's speed)
    for centre in centres:
        off = cv2.subtract(lab, (*map(float, centre), 0.0))
        square = cv2.transform(cv2.multiply(off, off), np.ones((1, 3), np.float32))
        far = square if far is None else cv2.min(far, square)
    far = np.sqrt(far)
    return np.clip(far * (255 / max(float(np.percentile(far, 99)), 1.0)), 0, 255).astype(np.uint8)


def _strip_candidates(small: np.ndarray, grey: np.ndarray, geom: Geometry) -> list[np.ndarray]:
    """On a strip of a board (Neunfeld's, whose region merges with the dice and pawns
    beside it): quads between two long straight edges (``_straight_edges``) nearly
    parallel, as far apart as the strip's aspect allows, ranked by how far their colour
    lies from both sides beside them (``_band_contrast``: the table's grain gives many
    long pairs) and by the board's pattern where they put it (``_strip_pairs``), best
    first (``coarse_candidates`` takes the first ``STRIPS``, ``_late_strips`` more)."""
    if geom.aspect < STRIP_ASPECT:
        return []
    return _strip_pairs(small, _straight_edges(grey), geom)


def _mask_strips(image: np.ndarray, quads: list[np.ndarray], geom: Geometry) -> list[np.ndarray]:
    """Quads between two long straight edges of the strip's colour masks
    (``_candidate_masks``: on a gingham cloth the cloth's squares give the grey frame's
    longest edges, the masks hold the strip's), apart from ``quads``, the best
    ``MASK_STRIPS`` of each mask: tried after all other starts (their strong wrong
    alignments raised the bar that kept the right ones from being fitted)."""
    small, scale = _small(image)
    out = list(quads)
    for mask, colour, _ in _candidate_masks(small, geom):
        if not colour:
            break
        pairs = _strip_pairs(small, _straight_edges(mask), geom)
        _distinct(((q + 0.5) / scale - 0.5 for q in pairs), len(out) + MASK_STRIPS, out)
    return out[len(quads):]


def _late_strips(image: np.ndarray, quads: list[np.ndarray], later: list[np.ndarray],
                 geom: Geometry):
    """(candidate, named corners to align from): of ``later`` (the strips ranked after
    ``STRIPS``, best first: ``coarse_candidates``) those apart from ``quads``, up to
    ``MORE_STRIPS`` in all, each also with its ends searched along it (``strip_ends``),
    then the ``_mask_strips``."""
    more = list(quads)
    _distinct(later, len(more) + MORE_STRIPS - STRIPS, more)
    for quad in more[len(quads):]:
        named = name_corners(quad, geom)
        yield quad, named
        ends = strip_ends(image, named, geom)
        if np.abs(ends - named).max() > ENDS_MOVED * np.linalg.norm(named[1] - named[0]):
            yield quad, ends
    for quad in _mask_strips(image, quads, geom):
        yield quad, name_corners(quad, geom)


def _strip_pairs(small: np.ndarray, edges: list, geom: Geometry) -> list[np.ndarray]:
    """``_strip_candidates``' quads between pairs of ``edges`` (of ``small``, the frame at
    ``FIND_WIDTH``), best first: by how far the colour between them lies from beside
    them (``_band_contrast``), the share of their extent both edges run along, and the
    square of how strongly the frame shows the board's outline and painted lines where
    the pair puts them (``_prescore``; ranked by their contrast and extent alone, the
    strip's pair lay 5th..21st behind a wooden table's plank seams on 10 of 18 frames
    where it was not found, dev 100..299 and 800..999)."""
    found = []
    for i, (d, off_a, a0, a1) in enumerate(edges):
        n = np.array([-d[1], d[0]])
        for e, off_b, b0, b1 in edges[i + 1:]:
            if abs(d @ e) < np.cos(np.radians(6)):
                continue
            if d @ e < 0:  # the same direction, its extent along it too
                e, off_b, b0, b1 = -e, -off_b, -b1, -b0
            gap = off_b - off_a  # both along n (e is within 6 degrees of d)
            lo, hi = min(a0, b0), max(a1, b1)
            long = hi - lo
            if abs(gap) < 2 or not geom.aspect * 0.7 <= long / abs(gap) <= geom.aspect * 2.6:
                continue
            overlap = (min(a1, b1) - max(a0, b0)) / long
            if overlap < STRIP_OVERLAP:
                continue
            quad = np.array([lo * d + off_a * n, hi * d + off_a * n,
                             hi * d + off_b * n, lo * d + off_b * n])
            found.append((_band_contrast(small, quad) * overlap, quad))
    return _on_pattern(small, found, geom)


def _on_pattern(small: np.ndarray, scored: list, geom: Geometry) -> list[np.ndarray]:
    """The quads of ``scored`` ((score, quad) at ``FIND_WIDTH``), best first by their
    score times the square of how strongly ``small`` shows the board's pattern where
    each puts it (``_prescore``): the table's grain gives strips of contrast and extent
    too, a strip's pattern shows only where the strip lies."""
    if not scored:
        return []
    pattern = _prescore(small, np.array([name_corners(q, geom) for _, q in scored]), geom)
    rank = np.argsort(-np.array([f[0] for f in scored]) * pattern ** 2, kind="stable")
    return [scored[i][1] for i in rank]


def _band_contrast(small: np.ndarray, quad: np.ndarray) -> float:
    """How far (BGR levels) the mean colour inside a strip's ``quad`` (its long sides
    0-1 and 3-2) lies from the nearer of the means of the bands as wide beside it."""
    a, b = quad[:2], quad[[3, 2]]
    src = np.concatenate([2 * a - b, (2 * b - a)[::-1]]).astype(np.float32)
    dst = np.float32([[0, 0], [96, 0], [96, 24], [0, 24]])
    band = cv2.warpPerspective(small, cv2.getPerspectiveTransform(src, dst), (96, 24),
                               flags=cv2.INTER_AREA).astype(np.float32)
    inner = band[9:15].mean(axis=(0, 1))
    return float(min(np.linalg.norm(inner - band[1:7].mean(axis=(0, 1))),
                     np.linalg.norm(inner - band[17:23].mean(axis=(0, 1)))))


def _straight_edges(grey: np.ndarray) -> list[tuple[np.ndarray, float, float, float]]:
    """The longest straight edges (``cv2.HoughLinesP`` on Canny edges), pieces of one
    line joined across gaps (a die standing on a strip's edge breaks it): (direction,
    offset along its normal (-d_y, d_x), extent from, to along the direction), at most
    ``STRIP_LINES``, of the ``STRIP_PIECES`` longest pieces."""
    edges = cv2.Canny(cv2.GaussianBlur(grey, (3, 3), 0), 30, 75)
    w = grey.shape[1]
    lines = cv2.HoughLinesP(edges, 1, np.pi / 180, 20, minLineLength=0.05 * w,
                            maxLineGap=0.02 * w)
    if lines is None:
        return []
    segs = lines.reshape(-1, 2, 2).astype(np.float64)
    segs = segs[np.argsort(-np.linalg.norm(segs[:, 1] - segs[:, 0], axis=1))][:STRIP_PIECES]
    joined: list[list] = []  # [direction, offset, from, to]
    for p, q in segs:
        d = (q - p) / np.linalg.norm(q - p)
        n = np.array([-d[1], d[0]])
        for j in joined:
            if abs(j[0] @ d) < np.cos(np.radians(2)):
                continue
            dj, nj = j[0], np.array([-j[0][1], j[0][0]])
            if max(abs(p @ nj - j[1]), abs(q @ nj - j[1])) > 2.0:
                continue
            t0, t1 = sorted((p @ dj, q @ dj))
            if t0 > j[3] + STRIP_GAP * w or t1 < j[2] - STRIP_GAP * w:
                continue
            j[2], j[3] = min(j[2], t0), max(j[3], t1)
            break
        else:
            joined.append([d, float(p @ n), *sorted((float(p @ d), float(q @ d)))])
    joined.sort(key=lambda j: j[2] - j[3])
    return [(j[0], j[1], j[2], j[3]) for j in joined[:STRIP_LINES]]


def _quad_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean corner distance of two unordered quads (their best cyclic match)."""
    a = a[np.argsort(np.arctan2(*(a - a.mean(0)).T[::-1]))]
    b = b[np.argsort(np.arctan2(*(b - b.mean(0)).T[::-1]))]
    return min(float(np.linalg.norm(np.roll(a, k, 0) - b, axis=1).mean()) for k in range(4))


def name_corners(quad: np.ndarray, geom: Geometry) -> np.ndarray:
    """Order the quad's corners nw, ne, se, sw (image y grows downward)."""
    centre = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(ang)]  # clockwise on screen (y down)
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)  # side i: i -> i+1
    long_first = sides[0] + sides[2] >= sides[1] + sides[3]
    wide = geom.width >= geom.depth
    # candidate south sides: those that run east-west
    if geom.width == geom.depth:
        candidates = [0, 1, 2, 3]
    else:
        candidates = [0, 2] if long_first == wide else [1, 3]
    mids = [(quad[i] + quad[(i + 1) % 4]) / 2 for i in range(4)]
    south = max(candidates, key=lambda i: mids[i][1])
    # seen obliquely the near (south) side is the longer of its pair: perspective
    pair = max({i % 2 for i in candidates}, key=lambda i: sides[i] / sides[i + 2]
               if sides[i] > sides[i + 2] else sides[i + 2] / sides[i])
    near = pair if sides[pair] > sides[pair + 2] else pair + 2
    if max(sides[pair], sides[pair + 2]) > PERSPECTIVE_RATIO * min(sides[pair], sides[pair + 2]):
        south = near
    # clockwise on screen from the south side's first corner: south side runs east->west
    # seen from the camera?  Screen-clockwise along the south (bottom) edge goes right to
    # left, i.e. se -> sw; then nw, ne.
    order = [(south + k) % 4 for k in range(4)]  # se, sw, nw, ne
    se, sw, nw, ne = (quad[i] for i in order)
    return np.array([nw, ne, se, sw])


def _insets(geom: Geometry) -> tuple[float, ...]:
    """How far inside the board's edge a coarse quad may lie: 0 (the edge), and for the
    Cubes board its printed band's inner edge and its grid (the band is often as dark as
    the table, the paper inside it the region that stands out)."""
    if geom.material == "card":
        return (0.0, CARD_BAND_MM, CARD_BAND_MM * 2 + 0.5)
    return (0.0,)


def _grown(quad: np.ndarray, geom: Geometry, inset: float) -> np.ndarray:
    """Named corners of the board whose rectangle ``inset`` mm inside its edge is ``quad``."""
    if inset == 0:
        return quad
    inner = geom.corners_mm() * [(geom.width / 2 - inset) / (geom.width / 2),
                                 (geom.depth / 2 - inset) / (geom.depth / 2)]
    H = cv2.getPerspectiveTransform(inner.astype(np.float32), quad.astype(np.float32))
    return apply_homography(H.astype(np.float64), geom.corners_mm())


def strip_ends(image: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """A strip's named corners (its long sides east-west, as Neunfeld's) with its two
    short ends moved along its long sides to where the painted lines across it show best:
    its long sides are found more often than its ends (a die or a pawn on an end, the
    table's lines that carry on past it). Along the strip ``corners`` put it, each end
    is moved by up to ``ENDS_REACH`` of its length, and the spacing of the lines may grow
    or shrink along it (``ENDS_PERSPECTIVE``: where the long sides meet is ill-defined for
    nearly parallel sides). Scored on one profile along the strip: the lines across it
    (``edge_model``'s: the separators and the stitching; lighter (darker) than
    ``SEPARATOR_MM`` either side, the median over its width: a field's number is no
    line) where the ends put them, less the same half-way between them and half a gap
    beyond, plus each end where the colour beyond it lies farther from the board's than
    inside it."""
    H = corners_homography(corners, geom)
    w = geom.width / 2
    step = max(geom.width / max(float(np.linalg.norm(corners[1] - corners[0])), 1.0), 0.2)
    u = np.arange(-w * (1 + 2 * ENDS_REACH), w * (1 + 2 * ENDS_REACH) + step, step)
    v = np.linspace(-0.4, 0.4, 9) * geom.depth
    uu, vv = np.meshgrid(u, v)
    pts = np.column_stack([uu.ravel(), vv.ravel()])
    seen = (pts @ H[2, :2] + H[2, 2]) * H[2, 2] > 1e-9 * H[2, 2] ** 2  # not behind the camera
    px = np.full((len(pts), 2), -1e4, np.float32)
    px[seen] = apply_homography(H, pts[seen])
    band = cv2.remap(image, px[:, 0].reshape(uu.shape), px[:, 1].reshape(uu.shape),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    grey = cv2.GaussianBlur(band.mean(axis=2), (0, 0), sigmaX=max(SEPARATOR_MM / 4 / step, 0.5),
                            sigmaY=1e-3)
    k = max(int(round(SEPARATOR_MM / step)), 1)
    pad = edge_model(geom).polarity * np.pad(grey, ((0, 0), (k, k)), mode="edge")
    line = np.median(pad[:, k:-k] - np.maximum(pad[:, :-2 * k], pad[:, 2 * k:]), axis=0)
    west0, east0 = np.searchsorted(u, -w), np.searchsorted(u, w)
    # how far each place's colour lies from the board's (the median over the middle half
    # of where corners put it), over END_MM inside and outside a possible end
    colour = band[2:-2].mean(axis=0)
    board = np.median(colour[(3 * west0 + east0) // 4:(west0 + 3 * east0) // 4], axis=0)
    off = np.cumsum(np.pad(np.linalg.norm(colour - board, axis=1), (1, 0)))
    m = max(int(round(END_MM / step)), 1)
    i = np.clip(np.arange(len(u)), m, len(u) - m)
    before, after = (off[i] - off[i - m]) / m, (off[i + m] - off[i]) / m
    west_end = np.clip((before - after) / (before + after + END_LEVELS), 0, None)
    east_end = np.clip((after - before) / (before + after + END_LEVELS), 0, None)
    # the painted lines across the strip as shares of its length; half-way between
    # them, and half a gap beyond the outer ones
    model = edge_model(geom)
    marks = np.unique(np.round(model.points[model.line & (model.normals[:, 1] == 0), 0],
                               1)) / (2 * w) + 0.5
    half = np.diff(marks) / 2
    gaps = np.concatenate([[marks[0] - half[0]], marks[:-1] + half, [marks[-1] + half[-1]]])
    # each end's position (index into u) at most ENDS_REACH of the length from where
    # corners put it, every ENDS_STRIDE of the length (a line within that counts), with
    # each spacing
    reach = int(round(2 * w * ENDS_REACH / step))
    stride = max(int(round(ENDS_STRIDE * 2 * w / step)), 1)
    near = cv2.dilate(np.clip(line, 0, None)[None], np.ones((1, 2 * stride + 1)))[0]
    near = np.clip(near / max(float(np.percentile(near, 95)), 1e-6), 0, 1)
    a, b, lam = (x.ravel() for x in np.meshgrid(
        np.clip(np.arange(west0 - reach, west0 + reach + 1, stride), 0, len(u) - 1),
        np.clip(np.arange(east0 - reach, east0 + reach + 1, stride), 0, len(u) - 1),
        ENDS_PERSPECTIVE))
    # ends well in front of the camera only (on a wrong candidate's homography the
    # horizon may lie within the reach)
    ahead = np.min([(u * H[2, 0] + v * H[2, 1] + H[2, 2]) / H[2, 2]
                    for v in (-geom.depth / 2, geom.depth / 2)], axis=0) > 0.1
    keep = ((b - a) >= (east0 - west0) * ENDS_SHORTEST) & ahead[a] & ahead[b]
    if not keep.any():
        return corners
    a, b, lam = a[keep], b[keep], lam[keep, None]

    def at(t):  # the profile where the ends and the spacing put the shares t
        t = lam * t / (1 + (lam - 1) * t)
        return near[np.clip(np.round(a[:, None] + (b - a)[:, None] * t), 0, len(u) - 1)
                    .astype(int)].mean(axis=1)

    i = int(np.argmax(at(marks) - at(gaps) + (west_end[a] + east_end[b]) / 2))
    ends = np.array([[u[a[i]], geom.depth / 2], [u[b[i]], geom.depth / 2],
                     [u[b[i]], -geom.depth / 2], [u[a[i]], -geom.depth / 2]])
    return apply_homography(H, ends)


def _ends_clear(image: np.ndarray, corners: np.ndarray, geom: Geometry) -> float:
    """How clearly the table beyond a strip's two ends (named ``corners``, its long sides
    east-west) differs from the strip: the lesser distance (Lab) of the median colour
    beyond an end (0.2 .. 1 field out, the middle 60 % of its width) from the strip's
    median colour, over ``BEYOND_LEVELS``, at most 1. A strip's separators repeat, and a
    pawn on an end field hides its lines: a fit a field or so along the strip showed its
    pattern as well as the board (dev 0..199, 6 of 17 not found), with the leather
    beyond one of its ends."""
    w, d = geom.width / 2, geom.depth / 2
    field = geom.width / len(geom.cells)
    H = corners_homography(corners, geom)
    medians = []
    for u in (np.linspace(-w - field, -w - 0.2 * field, 8), np.linspace(-w, w, 45),
              np.linspace(w + 0.2 * field, w + field, 8)):
        uu, vv = np.meshgrid(u, np.linspace(-0.6, 0.6, 5) * d)
        px = apply_homography(H, np.column_stack([uu.ravel(), vv.ravel()])).astype(np.float32)
        seen = cv2.remap(image, px[:, :1], px[:, 1:], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
        medians.append(np.median(cv2.cvtColor(seen, cv2.COLOR_BGR2LAB).reshape(-1, 3)
                                 .astype(np.float32), axis=0))
    beyond = min(np.linalg.norm(medians[0] - medians[1]), np.linalg.norm(medians[2] - medians[1]))
    return float(min(1.0, beyond / BEYOND_LEVELS))


def fit_grey(image: np.ndarray, blur: float = FIT_BLUR_PX) -> np.ndarray:
    """The image the model fit reads: grey, float32, smoothed by a Gaussian of ``blur``
    px (0: not smoothed)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cv2.GaussianBlur(grey, (0, 0), blur) if blur > 0 else grey


def refine(image: np.ndarray, quad: np.ndarray, geom: Geometry) -> np.ndarray:
    """Named corners (nw, ne, se, sw) moved onto the board's edges and lines
    (``fit_model``) in ``image`` (BGR uint8)."""
    return fit_model(fit_grey(image), np.asarray(quad, np.float64), geom)


def _views_through(corners: np.ndarray, keep: list[int], geom: Geometry,
                   size: tuple[int, int]) -> list[np.ndarray]:
    """Named corners of the views of the board through its corners ``keep`` (three) at
    ``corners[keep]`` that ``cv2.solveP3P`` finds (the assumed camera,
    ``vision.grid.assumed_camera``), tilted at most ``MAX_TILT_DEG``, with all four
    corners projected into a convex quad not far past the frame of ``size``."""
    from vision.grid import assumed_camera

    K = assumed_camera(size)
    obj = np.column_stack([geom.corners_mm(), np.zeros(4)])
    _, rvecs, tvecs = cv2.solveP3P(obj[keep], corners[keep], K, None, flags=cv2.SOLVEPNP_P3P)
    views = []
    for r, t in zip(rvecs, tvecs, strict=True):
        if abs(cv2.Rodrigues(r)[0][2, 2]) < np.cos(np.radians(MAX_TILT_DEG)):
            continue  # no camera over a table sees the board so
        px = cv2.projectPoints(obj, r, t, K, None)[0].reshape(4, 2)
        if cv2.isContourConvex(px.astype(np.float32)) and np.abs(px).max() < 4 * max(size):
            views.append(px)
    return views


def _rebuilt(image: np.ndarray, quads: list[np.ndarray], geom: Geometry) -> list[np.ndarray]:
    """Named corners of views of the board through three corners of a candidate (a stack
    over one corner, or a piece's edge, carries the candidate's fourth corner off): for
    each candidate, each of its four namings and each three of its corners, the views
    through them (``_views_through``); of those the ``REBUILT`` whose outline and painted
    lines lie on the strongest edges and lines of the frame at ``FIND_WIDTH``
    (``_prescore``), then the ``REBUILT_LARGE`` others best by that times the fourth root
    of their size, of those at most ``REBUILT_GROWTH`` times their candidate's size (the
    prescore alone ranks a small view on a stack's printed faces first)."""
    size = (image.shape[1], image.shape[0])
    views, grown = [], []
    for quad in quads:
        named = name_corners(quad, geom)
        area = abs(cv2.contourArea(quad.astype(np.float32)))
        for k in range(4):
            corners = np.roll(named, k, axis=0).astype(np.float64)
            for keep in ([0, 1, 2], [1, 2, 3], [2, 3, 0], [3, 0, 1]):
                new = _views_through(corners, keep, geom, size)
                views += new
                grown += [abs(cv2.contourArea(v.astype(np.float32))) / max(area, 1.0)
                          for v in new]
    if not views:
        return []
    views = np.array(views)
    score = _prescore(image, views, geom)
    best = list(np.argsort(-score)[:REBUILT])
    area = np.abs([cv2.contourArea(v.astype(np.float32)) for v in views])
    large = score * area ** 0.125 * (np.array(grown) <= REBUILT_GROWTH ** 2)
    best += [i for i in np.argsort(-large) if i not in best][:REBUILT_LARGE]
    return list(views[best])


def _near_sides(image: np.ndarray, quads: list[np.ndarray]):
    """(2, 2) ends of the sides ``_near_views`` builds on: the candidates' sides facing
    down the image, then the straight edges of the frame at ``FIND_WIDTH``."""
    for quad in quads:
        centre = quad.mean(axis=0)
        for i in range(4):
            ends = np.array([quad[i], quad[(i + 1) % 4]])
            mid = ends.mean(axis=0)
            if mid[1] - centre[1] > 0.3 * np.linalg.norm(mid - centre):
                yield ends
    small, scale = _small(image)
    for d, off, a, b in _straight_edges(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))[:NEAR_EDGES]:
        if b - a <= NEAR_EDGE_LONGEST * small.shape[1]:
            n = np.array([-d[1], d[0]])
            yield (np.array([a * d + off * n, b * d + off * n]) + 0.5) / scale - 0.5


def _near_views(image: np.ndarray, quads: list[np.ndarray], geom: Geometry,
                later: list[np.ndarray]) -> list[np.ndarray]:
    """Named corners of views of the board whose near side is a candidate's side facing
    down the image (toward the camera) or a straight edge (``_near_sides``): where stacks
    hide a tile's far half, its glaze's region ends at their feet, but its near side and
    both near corners show. Each such side taken as the board's long or short side, at
    its top or at its foot (the glaze's region holds the side face), the board lies
    beyond it on the table plane a camera of ``vision.grid.assumed_camera`` sees at each
    of ``NEAR_TILTS_DEG`` and ``NEAR_ROLLS_DEG`` (the side's length fixes the scale); of
    each side and way to take it the view that ``_prescore`` ranks best, of those the
    ``NEAR`` best; then the ``NEAR_HALF`` best of the others by the board's near half
    alone (``_near_half_prescore``: in a steep view of tall stacks dev 861's right view
    ranked 18th by the whole board, 1st by its near half). Appended to ``later`` (the
    search's late starts, ``_attempts``): as many views that lie apart from those and
    from each other (``_distinct``), ranked so: several candidates' sides and straight
    edges lie on one near side, and a square tile's long and short sides are one, so
    that the best views repeat (dev tic-tac-toe 80: its 16 were 8 pairs, its right view
    13th apart)."""
    from vision.grid import assumed_camera

    sides = np.array(list(_near_sides(image, quads)))
    if not len(sides):
        return []
    K = assumed_camera((image.shape[1], image.shape[0]))
    tilt, roll = (np.radians(a).ravel() for a in np.meshgrid(NEAR_TILTS_DEG, NEAR_ROLLS_DEG))
    up = np.column_stack([-np.sin(roll) * np.sin(tilt), -np.cos(roll) * np.sin(tilt),
                          -np.cos(tilt)])  # the table's normal in the camera's frame
    rays = np.concatenate([sides, np.ones((*sides.shape[:2], 1))], axis=2) @ np.linalg.inv(K).T
    below = np.einsum("tk,sek->tse", up, rays)  # < 0: the ray meets the table
    with np.errstate(divide="ignore", invalid="ignore"):
        on_table = -rays[None] / np.where(below < 0, below, np.nan)[..., None]
    views, groups = [], []
    for g, ((length, depth), lift) in enumerate(itertools.product(
            ((geom.width, geom.depth), (geom.depth, geom.width)), (0.0, geom.thickness))):
        with np.errstate(divide="ignore", invalid="ignore"):
            near = on_table * (length / np.linalg.norm(on_table[:, :, 1] - on_table[:, :, 0],
                                                       axis=-1))[..., None, None]
            near = near + lift * up[:, None, None]  # the side's foot: the top's edge above
            away = np.cross(up[:, None], near[:, :, 1] - near[:, :, 0])
            away *= (depth / np.linalg.norm(away, axis=-1) * np.sign(
                np.einsum("tsk,tsk->ts", away, near.sum(axis=2))))[..., None]
            board = np.concatenate([near, near[:, :, ::-1] + away[:, :, None]], axis=2)
            px = board @ K.T
            px = px[..., :2] / px[..., 2:3]
        edge = np.roll(px, -1, axis=2) - px
        following = np.roll(edge, -1, axis=2)
        turn = edge[..., 0] * following[..., 1] - edge[..., 1] * following[..., 0]
        # turning one way throughout: a convex quad (clockwise on screen where > 0)
        ok = np.isfinite(px).all(axis=(2, 3)) & (board[..., 2] > 0).all(axis=2) & (
            (turn > 0).all(axis=2) | (turn < 0).all(axis=2))
        px = np.where((turn < 0).all(axis=2)[..., None, None], px[:, :, [1, 0, 3, 2]], px)
        if length < depth:
            px = px[:, :, [1, 2, 3, 0]]  # nw -> ne along the board's width
        t, i = np.nonzero(ok)
        views.append(px[t, i])
        groups.append(i * 4 + g)
    views, groups = np.concatenate(views), np.concatenate(groups)
    if not len(views):
        return []
    ranked: list[int] = []
    apart: list[np.ndarray] = []
    for score, most in ((_prescore(image, views, geom), NEAR),
                        (_near_half_prescore(image, views, groups, geom), NEAR_HALF)):
        best = {}
        for k in np.argsort(score):
            best[groups[k]] = k  # the last, the best
        order = sorted(best.values(), key=lambda k: -score[k])
        ranked += [k for k in order if k not in ranked][:most]
        _distinct((views[k] for k in order), most + len(apart), apart)
    seen = [views[k] for k in ranked]
    _distinct(apart, len(seen) + len(apart), seen)
    later += [name_corners(view, geom) for view in seen[len(ranked):]]
    return [name_corners(views[k], geom) for k in ranked]


def _near_half_prescore(image: np.ndarray, views: np.ndarray, groups: np.ndarray,
                        geom: Geometry) -> np.ndarray:
    """``_prescore`` of ``_near_views``' views on the board's near half alone (their
    corners 0, 1 the near side, or 3, 0 where it was taken as the side across the
    board's width: ``groups`` // 2 % 2 names which): the stacks that hide the far half
    show edges and dark faces where a view on them puts the far half's lines."""
    across = groups // 2 % 2 == 1
    turned = across if geom.depth < geom.width else ~across if geom.width < geom.depth \
        else np.zeros(len(views), bool)
    score = np.zeros(len(views))
    for mask, towards in ((~turned, (0.0, 1.0)), (turned, (-1.0, 0.0))):
        if mask.any():
            score[mask] = _prescore(image, views[mask], geom, towards)
    return score


def _prescore(image: np.ndarray, quads: np.ndarray, geom: Geometry,
              towards: tuple[float, float] | None = None) -> np.ndarray:
    """Per named quad (k, 4, 2), how strongly the frame at ``FIND_WIDTH`` shows edges
    where it puts the board's outline (Sobel, saturated at its 98th percentile) and dark
    lines where it puts its painted lines (a black-hat, likewise), half each: a quick
    ranking, not a fit. ``towards`` (a direction in board mm): of the board's half
    that way only."""
    from vision.board_align import _homographies

    small, scale = _small(image)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    step = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    line = cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, np.ones((3, 3), np.uint8))
    model = edge_model(geom)
    half = True if towards is None else model.points @ np.asarray(towards, np.float64) > 0
    sel = np.flatnonzero((model.outline | model.line) & half)
    sel = sel[np.linspace(0, len(sel) - 1, min(len(sel), 200)).round().astype(int)]
    points = np.column_stack([model.points[sel], np.ones(len(sel))]).T
    maps = [(cv2.dilate(np.clip(m / max(float(np.percentile(m, 98)), least), 0, 1),
                        np.ones((3, 3), np.uint8)), pts)
            for m, least, pts in ((step, 24.0, ~model.line[sel]), (line, 6.0, model.line[sel]))]
    score = np.zeros(len(quads))
    for start in range(0, len(quads), PRESCORE_CHUNK):  # the near views come in thousands
        chunk = slice(start, start + PRESCORE_CHUNK)
        q = _homographies(geom.corners_mm().astype(np.float32), quads[chunk]) @ points
        with np.errstate(divide="ignore", invalid="ignore"):
            px = np.nan_to_num((q[:, :2] / q[:, 2:3] + 0.5) * scale - 0.5, nan=-1e4,
                               posinf=-1e4, neginf=-1e4).astype(np.float32)
        for m, pts in maps:
            score[chunk] += 0.5 * cv2.remap(m, px[:, 0, pts], px[:, 1, pts], cv2.INTER_LINEAR,
                                            borderMode=cv2.BORDER_CONSTANT).mean(axis=1)
    return score


def _starts(image: np.ndarray, quads: list[np.ndarray], geom: Geometry,
            later: list[np.ndarray]):
    """(rigid, inset, candidate, named corners to align from; on the tiles ``later`` gets
    the late near views, ``_near_views``): each candidate taken as the
    board's edge (for Cubes then as its band's and its grid's, ``_insets``); then on a
    strip each with its ends searched along it (``strip_ends``) where that gives corners
    not tried yet; on other boards the boards the e-SOLO-e tiles' frame line shows
    (``frame_candidates``), then the views through three corners of any of these
    (``_rebuilt``), then on the tiles the views built on their near side
    (``_near_views``)."""
    for inset in _insets(geom):
        for quad in quads:
            yield False, inset, quad, _grown(name_corners(quad, geom), geom, inset)
    if geom.aspect < STRIP_ASPECT:
        framed = frame_candidates(image, geom)
        for corners in framed:
            yield False, 0.0, corners, corners
        for view in _rebuilt(image, quads + framed, geom):
            yield False, 0.0, view, view
        if geom.material == "ceramic":  # the tiles' stacks hide their far half
            for view in _near_views(image, quads + framed, geom, later):
                yield False, 0.0, view, view
    else:
        tried = [name_corners(quad, geom) for quad in quads]
        for quad, named in zip(quads, list(tried), strict=True):
            ends = strip_ends(image, named, geom)
            near = ENDS_MOVED * np.linalg.norm(named[1] - named[0])
            if all(np.abs(ends - t).max() > near for t in tried):
                tried.append(ends)
                yield False, 0.0, quad, ends


def _attempts(image: np.ndarray, quads: list[np.ndarray], later: list[np.ndarray],
              geom: Geometry, fitted: list, best_shown):
    """(rigid, late, inset, candidate, named corners to align from): the ``_starts``, their
    corners moved freely (``align``); then of those whose alignment was fitted or
    dropped as no view of the board (``fitted``: (support, whether the start is a
    plausible view, alignment score, inset, candidate, start), filled by the caller)
    the ``RIGID_TRIES`` whose fits showed most (``support``; among those that showed
    nothing, those from a plausible start first, then the best aligned) again, the
    board moved as a rigid view of it
    (``align``'s ``rigid``: where pieces hide the board's far edge, the free corners
    follow the pieces' edges, a view cannot without leaving its near edge and sides);
    last, where the best fit so far (``best_shown()``) shows under ``LATE_BELOW``, on a
    strip the ``_late_strips`` from ``later``, on the tiles the near views in it
    (``late``: aligned under no bar and raising none, their fits win only where they
    show ``LATE_BELOW`` or more, and are not judged again unblurred: more near views
    among the others raised the bar, or took the rigid tries, that the right fit
    needed, dev 2000..2199: 4 boards found wrong, one lost)."""
    for rigid, inset, quad, start in _starts(image, quads, geom, later):
        yield rigid, False, inset, quad, start
    for *_, inset, quad, start in sorted(fitted, key=lambda f: (-f[0], -f[1], -f[2])
                                         )[:RIGID_TRIES]:
        yield True, False, inset, quad, start
    if geom.aspect >= STRIP_ASPECT and best_shown() < LATE_BELOW:
        for quad, start in _late_strips(image, quads, later, geom):
            yield False, True, 0.0, quad, start
    elif geom.material == "ceramic" and best_shown() < LATE_BELOW:
        for view in later:
            yield False, True, 0.0, view, view


def find_board(image: np.ndarray, geom: Geometry) -> BoardFix | None:
    """The board's top-face corners in ``image`` (BGR uint8), or None when none is seen."""
    from vision.board_align import align

    grey = fit_grey(image)
    size = (image.shape[1], image.shape[0])
    sign = -1.0 if geom.material == "ceramic" else 0.0
    best, done = (0.0, None, None), False
    top = first = 0.0  # the best alignment score so far, and at the first tolerance
    quads, later = coarse_candidates(image, geom)
    fitted_from = []  # (support, start plausible, score, inset, candidate, start): _attempts
    small = []  # (fit, start): the tiles' fits under SHARP_BELOW_PPM
    shown_fits = []  # (shown, fit, start): the fits that showed the board (_runner_up)
    for rigid, late, inset, quad, start in _attempts(image, quads, later, geom, fitted_from,
                                                     lambda: best[0]):  # noqa: B023 (now's)
        if inset and quad is quads[0] and best[1] is not None:
            break  # found taking the candidates as the board's edge
        if done:
            break
        if not cv2.isContourConvex(start.astype(np.float32)):
            continue
        start_misfit = _misfit(start, geom, size)
        if not start_misfit <= START_MISFIT:
            continue
        aligned, score, coarse = align(grey, start, geom, sign,
                                       0.0 if late else ALIGNED_SHARE * first, rigid)
        if not cv2.isContourConvex(aligned.astype(np.float32)):
            continue
        if not plausible_view(aligned, geom, size):  # no board, nor a bar to the others
            if not rigid:  # (a rigid view of it may be: pieces pulled it off)
                fitted_from.append((0.0, bool(start_misfit <= VIEW_MISFIT), score, inset,
                                    quad, start))
            continue
        if not late:  # the late strips are fitted however they align, and raise no bar
            first = max(first, coarse)
            if score < ALIGNED_SHARE * top:
                continue
            top = max(top, score)
        fitted = fit_model(grey, aligned, geom, wide=0.0, fine=geom.material != "ceramic"
                           or _px_per_mm(aligned, geom) >= FINE_FIT_PPM)
        shown = 0.0
        tries = [fitted, aligned]  # the sub-pixel fit, unless it lost the pattern
        if geom.aspect >= STRIP_ASPECT:  # its ends searched again along the fit's sides
            ends = strip_ends(image, fitted, geom)
            if np.abs(ends - fitted).max() > ENDS_MOVED * np.linalg.norm(fitted[1] - fitted[0]):
                ends = fit_model(grey, ends, geom, wide=0.0)
                # taken only where its pattern and its painted lines both show as well (a
                # strip's separators repeat: ends a field or so off show its lines alike)
                if all(np.greater_equal(pattern_check(grey, ends, geom)[:2],
                                        pattern_check(grey, fitted, geom)[:2])):
                    tries.append(ends)
        if geom.material == "ceramic" and _px_per_mm(aligned, geom) < SHARP_BELOW_PPM and \
                not late:
            small += [(corners, start) for corners in tries]
        for corners in tries:
            s, stop = _shown(grey, corners, geom, size, stop=True)
            if geom.aspect >= STRIP_ASPECT:
                clear = _ends_clear(image, corners, geom)
                s, stop = s * clear, stop * clear
            shown = max(shown, s)
            if s > 0 and (not late or s >= LATE_BELOW):
                shown_fits.append((s, corners, start))
            if s > best[0] and (not late or s >= LATE_BELOW):
                best = (s, corners, start)
                done = stop >= (GOOD_SUPPORT if geom.aspect < STRIP_ASPECT else STRIP_SUPPORT)
                if done and geom.material == "ceramic":
                    *fit, done = _past_weakest_side(grey, corners, s, geom, size)
                    best = (*fit, start)
        if not rigid:
            fitted_from.append((shown, True, score, inset, quad, start))
    judged_blurred = best[1] is not None
    if best[1] is None and small:  # judged again on the frame without the blur
        sharp = fit_grey(image, 0.0)
        for corners, start in small:
            s = _sharp_shown(sharp, corners, geom, size)
            if s > best[0]:
                best = (s, corners, start)
    if best[1] is None:
        return None
    corners = best[1]
    if geom.aspect >= STRIP_ASPECT and not done:
        corners = _shifted_a_field(image, grey, corners, best[0], geom, size)
    if geom.material == "card" and best[0] < GOOD_SUPPORT:
        # the chosen fit aligned again, at the pixel from itself too (board_align's
        # FINE_FROM_START: at about 1 px a mm the coarse levels carry the card off)
        again = fit_model(grey, align(grey, corners, geom, sign, from_start=True)[0], geom,
                          wide=0.0)
        if _shown(grey, again, geom, size) > best[0]:
            corners = again
    corners = finished(grey, corners, geom, size)
    if geom.aspect >= STRIP_ASPECT:
        corners = _past_an_end(grey, _off_a_bare_end(image, grey, corners, geom, size),
                               geom, size)
        if corners is None or _misfit(corners, geom, size) > STRIP_FOUND_MISFIT:
            return None  # a wrong board is worse than none (the tracker keeps it)
    if geom.material == "ceramic" and judged_blurred and best[0] < GOOD_SUPPORT and \
            _px_per_mm(best[1], geom) < FINE_FIT_PPM:
        corners = _small_tile_realigned(grey, best[1], corners, geom, size)
    if geom.material == "ceramic" and _misfit(corners, geom, size) > FOUND_MISFIT:
        runner = _runner_up(grey, corners, best, shown_fits, geom, size)
        if runner is None:
            return None  # a wrong board is worse than none (the tracker keeps it)
        corners, best = runner
    return BoardFix(orient(image, corners, geom), best[2])


def _runner_up(grey: np.ndarray, refused: np.ndarray, best: tuple, shown_fits: list,
               geom: Geometry, size: tuple[int, int]) -> tuple | None:
    """Where a tile's chosen fit ``best`` (shown, fit, start) finished as ``refused``, off
    a rigid view (``FOUND_MISFIT``): (corners, (shown, fit, start)) of the first of the
    next ``RUNNERS`` fits of the search (``shown_fits``, best shown first, those within
    0.5 px of one tried left out, none under ``RUNNER_SHARE`` of ``best``'s) that,
    finished, lies within ``FOUND_MISFIT`` of a rigid view and shows the board at least
    as well as ``refused`` (``_shown``); else None. The finish (``_pushed_out``,
    ``_polished``) can carry the board's own fit off a rigid view where stacks hide its
    far side, and another start's fit of it, a px or two apart, is finished where it
    stays one (dev e-SOLO-e 2750: the chosen fit finished 3.1 px off and 0.018 off a
    rigid view, showing 0.51; the runner-up 0.4 px, 0.001, showing 0.69); a wrong fit
    among them shows less than the refused one (dev e-SOLO-e 48: 35.8 px off, 0.34
    against 0.41)."""
    least = _shown(grey, refused, geom, size)
    tried = [best[1]]
    for fit_shown, fit, start in sorted(shown_fits, key=lambda f: -f[0]):
        if len(tried) > RUNNERS or fit_shown < RUNNER_SHARE * best[0]:
            break
        if min(np.abs(fit - t).max() for t in tried) < 0.5:
            continue
        tried.append(fit)
        corners = finished(grey, fit, geom, size)
        if _misfit(corners, geom, size) <= FOUND_MISFIT and \
                _shown(grey, corners, geom, size) >= least:
            return corners, (fit_shown, fit, start)
    return None


def _small_tile_realigned(grey: np.ndarray, chosen: np.ndarray, done: np.ndarray,
                          geom: Geometry, size: tuple[int, int]) -> np.ndarray:
    """A small tile's chosen fit ``chosen`` (under ``FINE_FIT_PPM``: no fine fit followed
    its alignment) aligned again from itself (``vision.board_align.align``), finished
    (``finished``) and taken over ``done`` (``chosen`` finished) where it then shows the
    board ``REALIGNED_GAIN`` better (``_shown``): at this size the alignment the search
    chose stands, and it may have settled inside the board (dev e-SOLO-e 43, a blurred
    empty tile: on its row of fields, 11.6 px off; aligned again from there, 0.2 px).
    The realigned quad is judged finished: before its sides are pushed out and polished
    it showed less than the fit it came from (43: 0 against 0.29)."""
    from vision.board_align import align

    again = finished(grey, align(grey, chosen, geom, -1.0)[0], geom, size)
    if _shown(grey, again, geom, size) > _shown(grey, done, geom, size) + REALIGNED_GAIN:
        return again
    return done


def _shifted_a_field(image: np.ndarray, grey: np.ndarray, corners: np.ndarray, shown: float,
                     geom: Geometry, size: tuple[int, int]) -> np.ndarray:
    """A strip's chosen fit ``corners`` (which show ``shown``: ``_shown`` times
    ``_ends_clear``, as the search chose), or the fit (``fit_model``) of the strip they put
    moved a field along it, either way, where that shows better and shows the whole
    pattern (``support``'s share) ``SHIFT_GAIN`` better: a strip's separators repeat, and
    where pawns hide its end fields a fit a field along shows its painted lines as well
    as the board, less of its outline and stitching past an end; the search's starts
    may all lie nearer that fit than the board's (dev 58: found 49 px off, a field east,
    showing 0.79; the board's fit a field west shows 0.85)."""
    share = support(grey, corners, geom)[0]
    best = (shown, corners)
    for field in (-geom.width / len(geom.cells), geom.width / len(geom.cells)):
        moved = _moved_along(corners, geom, field)
        if not cv2.isContourConvex(moved.astype(np.float32)):
            continue
        fitted = convex_fit(grey, moved, geom)
        if fitted is None or support(grey, fitted, geom)[0] < share + SHIFT_GAIN:
            continue
        s = _shown(grey, fitted, geom, size) * _ends_clear(image, fitted, geom)
        if s > best[0]:
            best = (s, fitted)
    return best[1]


def convex_fit(grey: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray | None:
    """The fit (``fit_model``, from ``corners`` alone) of a board moved from where it was
    found (a strip a field along, ``_moved_along``; a side pushed out in registration), or
    None where it is no convex quad."""
    fitted = fit_model(grey, corners, geom, wide=0.0)
    return fitted if cv2.isContourConvex(fitted.astype(np.float32)) else None


def _moved_along(corners: np.ndarray, geom: Geometry, mm: float) -> np.ndarray:
    """The named corners of the board ``corners`` put (``_H``), moved ``mm`` east along
    it in that view (a strip a field along: ``_shifted_a_field``, ``_off_a_bare_end``)."""
    w, d = geom.width / 2, geom.depth / 2
    moved = np.array([[-w + mm, d], [w + mm, d], [w + mm, -d], [-w + mm, -d]])
    return apply_homography(corners_homography(corners, geom), moved)


def _end_fields_shown(grey: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """(west, east): the share of a strip's long sides' outline and stitching points
    (``_along_edge``) in the field at each end that lie in place at named ``corners``
    (``_in_place``): over the table they show nothing, under a pawn little."""
    model = edge_model(geom)
    end = geom.width / 2 - geom.width / len(geom.cells)
    longs = (model.normals[:, 0] == 0) & (model.outline | _along_edge(geom, model))
    sign = _signs(grey, corners, geom, model)
    u = model.points[:, 0]
    return np.array([_in_place(grey, corners, geom, np.flatnonzero(longs & beyond), sign)[0]
                     .mean() for beyond in (u < -end, u > end)])


def _off_a_bare_end(image: np.ndarray, grey: np.ndarray, corners: np.ndarray,
                    geom: Geometry, size: tuple[int, int]) -> np.ndarray:
    """A strip's finished fit ``corners``, or, where one of its end fields is bare (under
    ``BARE_END`` of its long sides in place, ``_end_fields_shown``), the fit
    (``fit_model``) of the strip they put moved a field away from that end, finished,
    where that shows as well (``_shown`` times ``_ends_clear``) and its barer end field
    ``END_GAIN`` better: a pawn hiding one end field leaves a fit a field along, its other
    end over the table, showing the separators as well as the board, and
    ``_shifted_a_field`` (before ``finished``) asks more of the whole pattern, and may
    itself have moved the board so (dev 1938: 1.9 px off, moved a field west, 27.8 px;
    moved back so, 0.2 px)."""
    ends = _end_fields_shown(grey, corners, geom)
    if ends.min() >= BARE_END:
        return corners
    field = geom.width / len(geom.cells) * (-1.0 if ends[1] < ends[0] else 1.0)
    fitted = convex_fit(grey, _moved_along(corners, geom, field), geom)
    if fitted is None or _end_fields_shown(grey, fitted, geom).min() < ends.min() + END_GAIN:
        return corners
    if _shown(grey, fitted, geom, size) * _ends_clear(image, fitted, geom) < \
            _shown(grey, corners, geom, size) * _ends_clear(image, corners, geom):
        return corners
    return finished(grey, fitted, geom, size)


def _beyond_ends_shown(grey: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """(west, east): the share of a strip's long sides' outline and stitching points in
    place a field beyond each end of named ``corners`` (``_end_fields_shown`` of the strip
    they put moved a field out): past the board's own ends the table, or a pawn, shows
    few; past the end of a fit a field or more short of one the strip goes on."""
    field = geom.width / len(geom.cells)
    return np.array([_end_fields_shown(grey, _moved_along(corners, geom, mm), geom)[end]
                     for end, mm in ((0, -field), (1, field))])


def _past_an_end(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
                 size: tuple[int, int]) -> np.ndarray | None:
    """A strip's finished fit ``corners`` where its long sides show under ``BEYOND_SHOWN``
    a field past both its ends (``_beyond_ends_shown``); where more show past one, the
    fit (``fit_model``) of the strip they put moved a field towards it, finished, where
    that shows under ``BEYOND_SHOWN`` past both ends and shows the board as well
    (``_shown``): a fit a field along with a pawn beyond its other end, on the table, where
    ``_off_a_bare_end`` found no end field bare (dev 2287, 2329: 39 and 35 px off, so 1.3
    and 0.2); else None: a fit a few fields short, or on a gingham's lines, is no board."""
    beyond = _beyond_ends_shown(grey, corners, geom)
    if beyond.max() < BEYOND_SHOWN:
        return corners
    field = geom.width / len(geom.cells) * (1.0 if beyond[1] > beyond[0] else -1.0)
    fitted = convex_fit(grey, _moved_along(corners, geom, field), geom)
    if fitted is None:
        return None
    fitted = finished(grey, fitted, geom, size)
    if _beyond_ends_shown(grey, fitted, geom).max() < BEYOND_SHOWN and \
            _shown(grey, fitted, geom, size) >= _shown(grey, corners, geom, size):
        return fitted
    return None


def _sharp_shown(sharp: np.ndarray, corners: np.ndarray, geom: Geometry,
                 size: tuple[int, int]) -> float:
    """How well a small tile's fit ``corners`` shows the board (``_shown``) in ``sharp``,
    ``fit_grey`` of the frame without its blur: 0 unless they are within ``SHARP_MISFIT``
    of a rigid view of the board and ``SHARP_SHARE`` of its whole pattern shows in place
    (``support``): judged so, lines a pixel wide show in the table's texture and the
    stacks' edges too."""
    if _misfit(corners, geom, size) > SHARP_MISFIT or \
            support(sharp, corners, geom)[0] < SHARP_SHARE:
        return 0.0
    return _shown(sharp, corners, geom, size)


def finished(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
             size: tuple[int, int]) -> np.ndarray:
    """``corners`` after ``fit_model`` (in ``fit_grey`` of a whole frame of ``size``),
    given their board kind's last steps, as ``find_board`` ends and ``vision.track``'s
    re-fit of a pushed board ends: the tiles' sides pushed out where a light table hid
    their step (``_pushed_out``), then polished on their outline and painted lines
    (``_polished``); a strip's side face told from its top (``_off_side_face``), then its
    corners moved onto its painted lines alone (``_on_lines``: its stitching holds the
    outline's fit off); others as they are."""
    if geom.material == "ceramic":
        return _polished(grey, _pushed_out(grey, corners, geom, size), geom)
    if geom.aspect >= STRIP_ASPECT:
        return _on_lines(grey, _off_side_face(grey, corners, geom, size), geom)
    return corners


def _shown(grey: np.ndarray, corners: np.ndarray, geom: Geometry, size: tuple[int, int],
           stop: bool = False):
    """How well the board shows at ``corners`` (``support``), the measure its fits are
    chosen by: 0 where no camera sees the board so (``plausible_view``); on a strip the
    lesser of the pattern's share and its painted lines' (a shortened or shifted strip
    shows most of its outline); on the e-SOLO-e tiles their mean (an outline fitted on
    a darker line inside the edge shows as well as the edge itself, its frame line not).
    With ``stop`` also the measure that ends the search: on the tiles the lesser of that
    mean and the pattern's share (the mean alone, mostly above the share, ended it before
    a better fit was tried). Off a strip both measures are taken down by up to
    ``RIGID_WEIGHT`` as the quad is off a rigid view of the board (``_misfit``, up to
    ``VIEW_MISFIT``): where stacks hide the far edge, a fit on their feet or faces shows
    the pattern's visible part as well as the board does, but is no view of it (nor
    ends the search: a tile's fit one field short showed 71 % and ended it)."""
    misfit = _misfit(corners, geom, size)
    s, lines = support(grey, corners, geom) if misfit <= VIEW_MISFIT else (0.0, 0.0)
    if geom.aspect >= STRIP_ASPECT:
        shown = ending = min(s, lines)
    elif geom.material == "ceramic":
        shown, ending = (s + lines) / 2, min(s, (s + lines) / 2)
    else:
        shown = ending = s
    if s > 0 and geom.aspect < STRIP_ASPECT:  # (a strip's ends are in doubt: not there)
        rigid = 1 - RIGID_WEIGHT * misfit / VIEW_MISFIT
        shown, ending = shown * rigid, ending * rigid
    return (shown, ending) if stop else shown


def _side_points(geom: Geometry) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per side (north, east, south, west): the edge model's points (indices) on that
    side's outline, those on the painted lines along it up to the nearest fields'
    outlines (the e-SOLO-e tiles: the frame line and the near row of fields), and
    those lines' points mirrored across the edge (board mm: on the table, where no line
    may show)."""
    model = edge_model(geom)
    out = []
    for o, half in (((0, 1), geom.depth), ((1, 0), geom.width), ((0, -1), geom.depth),
                    ((-1, 0), geom.width)):
        o = np.array(o, np.float64)
        along = np.abs(model.normals @ o) > 0.5
        inset = half / 2 - model.points @ o
        near = along & (inset < half / 2)
        fields = inset[near & model.field]
        reach = fields.min() if len(fields) else CERAMIC_FRAME_MM
        lines = np.flatnonzero(near & model.line & (inset <= reach + 0.01))
        mirrored = model.points[lines] + 2 * inset[lines, None] * o
        out.append((np.flatnonzero(model.outline & (model.normals @ o > 0.5)), lines,
                    mirrored))
    return out


def _side_shown(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
                side: tuple[np.ndarray, np.ndarray, np.ndarray], sign: np.ndarray) -> float:
    """How well one side of the board shows at ``corners`` (``_side_points``): the share
    of its outline's and its lines' points in place, less the mirrored lines' in place
    (an outline on a painted line's inner flank has that line just beyond it)."""
    outline, lines, mirrored = side
    model = edge_model(geom)
    H = corners_homography(corners, geom)
    px = apply_homography(H, mirrored)
    n = _normals_px(H, mirrored, model.normals[lines], px)
    off, strength = _search(grey, px, n, 2.0, np.ones(len(lines), bool),
                            np.full(len(lines), model.polarity),
                            _halves(H, mirrored, model.normals[lines], px, geom))
    beyond = (strength >= MIN_LINE) & (np.abs(off) <= 1.0)
    shown = _in_place(grey, corners, geom, np.concatenate([outline, lines]), sign)[0]
    return (float(shown.sum()) - float(beyond.sum())) / len(shown)


def _field_pitch(geom: Geometry) -> float:
    """The least distance (mm) between two fields' centres."""
    centres = np.array([(u, v) for _, u, v, _ in geom.cells])
    apart = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    return float(apart[apart > 0].min())


def _past_weakest_side(grey: np.ndarray, corners: np.ndarray, shown: float, geom: Geometry,
                       size: tuple[int, int]) -> tuple[float, np.ndarray, bool]:
    """Where the tiles' search would end, at a fit ``corners`` showing ``shown``
    (``_shown``): (shown, corners) of it or, where its weakest side shows under
    ``ENDING_SIDE`` (``_side_shown``), of the better of two fits from it, if one shows
    more: aligned (``vision.board_align.align``) and fitted (``fit_model``) again with
    that side moved a field's pitch out (a fit a field short along the tile, its end on a
    field's outline: dev e-SOLO-e 24, 154), and as it stands, aligned as a rigid view (its
    end a few mm off: dev 25); and whether the search ends there: not where that side of
    the better fit, moved up to ``PLACE_SIDE_MM`` in or out (1 px steps), shows the board
    ``PLACE_GAIN`` better (a side a few mm off that neither alignment moved: dev 3andC
    104, 286, which the search's other starts find). Where stacks hide the side it ends
    and the fit stands (dev 67, 79, 111); the search went on through all its other starts
    there instead (session 13: 4..12 times the time)."""
    from vision.board_align import align

    sign = _signs(grey, corners, geom, edge_model(geom))
    sides = [_side_shown(grey, corners, geom, side, sign) for side in _side_points(geom)]
    weakest = int(np.argmin(sides))
    best = (shown, corners)
    if sides[weakest] >= ENDING_SIDE:
        return (*best, True)
    ends = [weakest, (weakest + 1) % 4]
    out = geom.corners_mm()
    out[ends] += _field_pitch(geom) * SIDE_OUTWARD[weakest]
    pushed = apply_homography(corners_homography(corners, geom), out)
    for start, rigid in ((pushed, False), (corners, True)):
        if not cv2.isContourConvex(start.astype(np.float32)):
            continue
        aligned = align(grey, start, geom, -1.0, rigid=rigid)[0]
        if not (cv2.isContourConvex(aligned.astype(np.float32))
                and plausible_view(aligned, geom, size)):
            continue
        fitted = fit_model(grey, aligned, geom, wide=0.0,
                           fine=_px_per_mm(aligned, geom) >= FINE_FIT_PPM)
        s = _shown(grey, fitted, geom, size)
        if s > best[0]:
            best = (s, fitted)
    H = corners_homography(best[1], geom)
    step = min(0.5, 1.0 / _px_per_mm(best[1], geom))  # 1 px
    for d in np.arange(-PLACE_SIDE_MM, PLACE_SIDE_MM + 1e-9, step):
        moved = geom.corners_mm()
        moved[ends] += d * SIDE_OUTWARD[weakest]
        if _shown(grey, apply_homography(H, moved), geom, size) >= best[0] + PLACE_GAIN:
            return (*best, False)
    return (*best, True)


def _pushed_out(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
                size: tuple[int, int]) -> np.ndarray:
    """``corners`` with each side moved out (up to ``PUSH_MM``) where it shows better
    (``_side_shown``) by ``PUSH_GAIN``, then fitted again, unless the board then shows
    less (``_shown``): a tile's far edge against a table as light as its glaze, or in
    shadow, shows no step the fit takes, while the frame line's and the fields' inner
    flanks (darker beyond, glaze on both sides) do, and the outline lands on one of
    them: the line whose flank it is then lies just beyond it, where the table should
    be, and the lines that should lie inside it do not."""
    mm = geom.corners_mm()
    start, moved_any = corners, False
    sign = _signs(grey, corners, geom, edge_model(geom))
    for i, side in enumerate(_side_points(geom)):
        H = corners_homography(corners, geom)
        best = (_side_shown(grey, corners, geom, side, sign) + PUSH_GAIN, corners)
        if best[0] >= 1.0:  # no side shows better than wholly
            continue
        step = min(1.0, 2.0 / _px_per_mm(corners, geom))  # 2 px: each within 1 px of one
        for d in np.arange(step, PUSH_MM + 1e-9, step):
            moved = mm.copy()
            moved[[i, (i + 1) % 4]] += d * SIDE_OUTWARD[i]
            c = apply_homography(H, moved)
            s = _side_shown(grey, c, geom, side, sign)
            if s > best[0]:
                best = (s, c)
        if best[1] is not corners and plausible_view(best[1], geom, size):
            corners, moved_any = best[1], True
    if not moved_any:
        return corners
    fitted = fit_model(grey, corners, geom, wide=0.0)
    shown = max((_shown(grey, c, geom, size), k) for k, c in enumerate((fitted, corners)))
    if shown[0] < _shown(grey, start, geom, size):
        return start
    return (fitted, corners)[shown[1]]


def _polished(grey: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """``corners`` moved, ``POLISH_ROUNDS`` times, onto the board's outline and all its
    painted lines found within ``POLISH_REACH`` px of where they put them (the tiles'
    last step): each found on a profile sampled every ``POLISH_STEP`` px, a step by
    boxes ``POLISH_BOX`` px wide (``_search``), and the corners' change (8 unknowns)
    fitted to the offsets by Cauchy-weighted least squares (``vision.grid.robust_lstsq``,
    scale ``POLISH_SCALE``: a stack's or a hand's edges drop out). ``fit_model``'s steps
    sample every px, where a peak's parabola locks onto the pixel, and on the tiles fit
    the outline alone: the corners came out about 0.45 px off at the median (dev
    100..249 found: 0.43 -> 0.21 px)."""
    from vision.grid import robust_lstsq

    model = edge_model(geom)
    sign = _signs(grey, corners, geom, model)
    floor = np.where(model.line, MIN_LINE, MIN_STEP)
    for _ in range(POLISH_ROUNDS):
        H = corners_homography(corners, geom)
        px = apply_homography(H, model.points)
        n = _normals_px(H, model.points, model.normals, px)
        off, strength = _search(grey, px, n, POLISH_REACH, model.line, sign,
                                _halves(H, model.points, model.normals, px, geom),
                                step=POLISH_STEP, box=POLISH_BOX)
        ok = strength >= floor
        if ok.sum() < 12:
            break
        J = _jacobian(corners, geom, model.points, px, n)
        moved = corners + robust_lstsq(J[ok], off[ok], POLISH_SCALE).reshape(4, 2)
        if not cv2.isContourConvex(moved.astype(np.float32)):
            break
        corners = moved
    return corners


def _off_side_face(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
                   size: tuple[int, int]) -> np.ndarray:
    """``corners`` fitted again (``fit_model``) with one outline side's step sought the
    other way, the side (if any) whose fit shows the board best (``_shown``) and better
    than ``corners``, on a strip: seen obliquely, Neunfeld's near side face lies beyond
    its top's edge, dark like the leather, and the table beyond the face's foot is the
    strong step; ``_signs`` judges each side's step where the alignment put it, and an
    alignment a millimetre out (on the face) makes the fit seek the lighter table beyond
    and keep to the foot (its long sides 2.5..3 mm out, as thick as the board; their
    few points against its many across it). Not on Tyr's square leather: its fields'
    lines hold its fit on the top (all but 1 % within 1.5 px), and its many points would
    double its finding's time."""
    model = edge_model(geom)
    base = _signs(grey, corners, geom, model)
    best = (_shown(grey, corners, geom, size), corners)
    for outward in ((0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0)):
        sign = base.copy()
        side = model.outline & np.all(model.normals == outward, axis=1)
        sign[side] = -sign[side]
        fitted = fit_model(grey, corners, geom, sign=sign)
        if not cv2.isContourConvex(fitted.astype(np.float32)):
            continue
        shown = _shown(grey, fitted, geom, size)
        if shown > best[0]:
            best = (shown, fitted)
    return best[1]


def _on_lines(grey: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """``corners`` moved by robust steps (``_fit_step``, reaches ``LINES_REACH_PX``) onto
    the painted lines alone (the fine fit's points less the outline), kept where no
    corner moved over ``LINES_MOVED_PX`` and where ``LINES_SHOWN`` of the stitching
    then shows in place (blurred, it does not, and the lines alone drift onto the
    table's grain or noise): on a strip (Neunfeld) the stitching runs
    1.6 mm inside the edge, 2..4 px at the usual scales, and the outline's box step,
    which spans 5 px either side, answers on its flank as well as on the edge (a
    leather top against a table as light, or the dark side face seen obliquely), so
    that the fit held whole long sides 1..6 px off; the stitching and the separators
    themselves are crisp (refitted from the found corners of dev 800..999 and
    100..299, all corners within 1.5 px 81 -> 132 of 185 and 84 -> 127 of 187)."""
    model = edge_model(geom)
    sel = _fine_points(geom, model) & ~model.outline
    sign = _signs(grey, corners, geom, model)
    moved = corners
    for reach in LINES_REACH_PX:
        new = _fit_step(grey, moved, geom, model, sel, reach, sign)
        if not cv2.isContourConvex(new.astype(np.float32)):
            break
        moved = new
    if np.abs(moved - corners).max() > LINES_MOVED_PX:
        return corners
    along = np.flatnonzero(_along_edge(geom, model))
    shown = _in_place(grey, moved, geom, along, _signs(grey, moved, geom, model))[0]
    return moved if shown.mean() >= LINES_SHOWN else corners


def _cell_samples(image: np.ndarray, corners: np.ndarray, geom: Geometry,
                  shrink: float = 0.6, k: int = 5) -> np.ndarray:
    """(cells, k * k, 3) samples on a k x k grid inside each field (``shrink`` of it)."""
    H = corners_homography(corners, geom)
    g = np.linspace(-shrink, shrink, k)
    du, dv = (a.ravel() for a in np.meshgrid(g, g))
    pts = np.concatenate([np.column_stack([u + du * h, v + dv * h])
                          for _, u, v, h in geom.cells])
    px = apply_homography(H, pts).astype(np.float32).reshape(1, -1, 2)
    img = cv2.remap(image, px[..., 0], px[..., 1], cv2.INTER_LINEAR)
    return img.reshape(len(geom.cells), k * k, 3).astype(np.float64)


@lru_cache(maxsize=1)
def _three_and_c_board():
    """The 3andC board file the rules read (``rules.esoloe.load_board``), read once."""
    from rules.esoloe import load_board

    return load_board("default")


def three_and_c_blue() -> list[int]:
    """3andC's blue fields (cell indices)."""
    return sorted(_three_and_c_board().blue)


def three_and_c_dots() -> tuple[int, ...]:
    """3andC's points (black dots) per field, by cell index."""
    return tuple(_three_and_c_board().points)


def mark_turn(image: np.ndarray, corners: np.ndarray, geom: Geometry) -> float:
    """The board's own marks on a quarter turn, where it has such marks: > 0 when the
    corners' naming shows them where they belong, < 0 when a quarter turn does, 0 when
    the board has none (or they do not show). 3andC: the blue fields a3, b2, c1 (the
    NW-SE diagonal, not the NE-SW one), blue counted inside the fields' painted outlines
    and not near grey (``BLUE_GLAZE_SHRINK``, ``BLUE_MIN_CHROMA``); Cubes: the shaded
    fields, those whose row plus column is odd."""
    if geom.game == "esoloe-3andc":
        blue = three_and_c_blue()
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
        s = _cell_samples(hsv, corners, geom, BLUE_GLAZE_SHRINK, 9)
        glazed = ((s[..., 0] >= 95) & (s[..., 0] <= 135) & (s[..., 1] > 50)
                  & (s[..., 1] * s[..., 2] / 255 >= BLUE_MIN_CHROMA))
        blueness = 100 * np.mean(glazed, axis=1)  # per cent of the field glazed blue
        turned = [3 * (i % 3) + 2 - i // 3 for i in blue]  # the fields a quarter turn on
        return float(np.mean(blueness[blue]) - np.mean(blueness[turned]))
    if geom.game == "cubes":
        s = _cell_samples(image, corners, geom).mean(axis=2)
        light = np.median(s, axis=1)
        odd = np.array([sum(int(x) for x in name.split(",")) % 2 == 1
                        for name, *_ in geom.cells])
        return float(np.median(light[~odd]) - np.median(light[odd]))
    return 0.0


def named_by_camera(geom: Geometry) -> bool:
    """Whether the board has nothing that names its sides (a square board without
    marks: the tic-tac-toe tile, Tyr's leather): its north is then by convention the
    side farthest up the image (``orient``; docs/vision.md, *Naming*)."""
    return geom.width == geom.depth and geom.game not in MARKED


def _off_up(corners: np.ndarray) -> np.ndarray:
    """Per quarter turn k (the corners rolled by k), the angle in degrees between
    straight up the image and the direction from the quad's centre to its named north
    side's middle."""
    out = []
    for k in range(4):
        c = np.roll(corners, k, axis=0)
        d = (c[0] + c[1]) / 2 - c.mean(axis=0)
        out.append(np.degrees(np.arccos(np.clip(-d[1] / max(np.linalg.norm(d), 1e-9),
                                                -1, 1))))
    return np.array(out)


def _turns(image: np.ndarray, corners: np.ndarray, geom: Geometry) -> list[int]:
    """The quarter turns the board's shape (any for a square board, a half turn for an
    oblong one) and its marks (``mark_turn``) leave open."""
    if geom.width != geom.depth:
        return [0, 2]
    m = mark_turn(image, corners, geom)
    if geom.game in MARKED and abs(m) >= MARK_MIN[geom.game]:
        return [0, 2] if m > 0 else [1, 3]
    return [0, 1, 2, 3]


def orient(image: np.ndarray, corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """The fitted corners named nw, ne, se, sw: among the turns the board's shape and
    marks leave open (``_turns``), the one whose north side lies most nearly straight up
    the image from the board's centre. For a board without marks (``named_by_camera``)
    that is the observation's convention, not a guess (docs/vision.md, *Naming*); for
    the others it assumes a camera on their south side (a half turn needs one more than
    90 degrees round, or 3andC's blue fields all hidden and a camera more than 45)."""
    turns = _turns(image, corners, geom)
    off = _off_up(corners)
    return np.roll(corners, min(turns, key=lambda k: off[k]), axis=0)


def camera_rule_margin(corners: np.ndarray, geom: Geometry) -> float:
    """For named corners of a board without marks: how far (degrees, half the gap
    between the two sides nearest straight up the image) the camera rule is from naming
    it otherwise: about 45 less the camera's angle round from the board's south side;
    near 0 a nudge of the board or the camera turns the naming by a quarter."""
    off = _off_up(np.asarray(corners, np.float64))
    off = np.sort(off if geom.width == geom.depth else off[[0, 2]])
    return float((off[1] - off[0]) / 2)


def corners_homography(corners: np.ndarray, geom: Geometry) -> np.ndarray:
    """3x3 homography from board-top millimetres (u east, v north, origin at the centre)
    to image px, through the board's four corners (px, ``CORNER_NAMES`` order)."""
    return cv2.getPerspectiveTransform(geom.corners_mm().astype(np.float32),
                                       np.asarray(corners, np.float32)).astype(np.float64)


def homography(fix: BoardFix, geom: Geometry) -> np.ndarray:
    """``corners_homography`` of a found board."""
    return corners_homography(fix.corners, geom)


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (n, 2) mapped through the 3x3 homography ``H`` (e.g. board mm -> image px)."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    q = pts @ H[:2, :2].T + H[:2, 2]
    w = pts @ H[2, :2] + H[2, 2]
    return q / w[:, None]


# --------------------------------------------------------------------------- the model fit

@dataclass(frozen=True)
class EdgeModel:
    """What of a board the fit looks for, in board millimetres (u east, v north)."""

    points: np.ndarray  # (N, 2) points on the board's edges and painted lines
    normals: np.ndarray  # (N, 2) unit normals there
    line: np.ndarray  # (N,) bool: a thin painted line (else a step: the board's outline)
    outline: np.ndarray  # (N,) bool: on the board's outer edge
    field: np.ndarray  # (N,) bool: on a field's own outline (pieces stand right by it)
    polarity: float  # +1 light painted lines, -1 dark ones
    spacing: float  # mm between the closest two parallel painted lines


def _segments(geom: Geometry):
    """(start, end, is a line, is a field's outline) of the board's outline and its
    painted lines (mm); painted lines closer than 1.5 mm (a leather grid's neighbouring
    outlines) are one, at their mean; a leather field's outline within ``LEATHER_EDGE_MM``
    of the edge is left out."""
    w, d = geom.width / 2, geom.depth / 2

    def rect(m: float) -> list:
        return [((-w + m, d - m), (w - m, d - m)), ((w - m, d - m), (w - m, -d + m)),
                ((w - m, -d + m), (-w + m, -d + m)), ((-w + m, -d + m), (-w + m, d - m))]

    steps = rect(0.0)
    lines: list = []  # (axis, coordinate, from, to, is a field's outline)
    if geom.material == "card":  # Cubes: a band inside the edge, then a grid of lines
        steps += rect(CARD_BAND_MM)
        lo = min(u for _, u, _, _ in geom.cells) - CARD_PITCH_MM / 2
        for k in range(int(round(-2 * lo / CARD_PITCH_MM)) + 1):
            x = lo + k * CARD_PITCH_MM
            lines += [("v", x, lo, -lo, False), ("h", x, lo, -lo, False)]
    else:
        if geom.material == "ceramic":
            m = CERAMIC_FRAME_MM
            lines += [("h", d - m, -w + m, w - m, False), ("h", -d + m, -w + m, w - m, False),
                      ("v", w - m, -d + m, d - m, False), ("v", -w + m, -d + m, d - m, False)]
        for _, u, v, h in geom.cells:
            lines += [("h", v + h, u - h, u + h, True), ("h", v - h, u - h, u + h, True),
                      ("v", u - h, v - h, v + h, True), ("v", u + h, v - h, v + h, True)]
    segs = [(p, q, False, False) for p, q in steps]
    for axis in ("h", "v"):
        coords = sorted({round(e[1], 3) for e in lines if e[0] == axis})
        groups: list[list[float]] = []
        for c in coords:
            if groups and c - groups[-1][-1] < 1.5:
                groups[-1].append(c)
            else:
                groups.append([c])
        mean = {c: float(np.mean(g)) for g in groups for c in g}
        edge = d if axis == "h" else w
        for c, a, b, f in sorted({(mean[round(c, 3)], a, b, f)
                                  for ax, c, a, b, f in lines if ax == axis}):
            if geom.material == "leather" and abs(c) > edge - LEATHER_EDGE_MM:
                continue
            segs.append(((a, c), (b, c), True, f) if axis == "h" else ((c, a), (c, b), True, f))
    if geom.game in LEATHER_STITCH_MM:  # the stitching round the edge, a line of its own
        segs += [(p, q, True, False) for p, q in rect(LEATHER_STITCH_MM[geom.game])]
    return segs


@lru_cache(maxsize=8)
def edge_model(geom: Geometry) -> EdgeModel:
    """The board's edge model (``_segments``): points every 1/``MODEL_POINTS_PER_SIDE``
    of its size along each segment, the ends (corners, crossings) left out."""
    step = max(geom.width, geom.depth) / MODEL_POINTS_PER_SIDE
    pts, nrm, line, outline, field = [], [], [], [], []
    segs = _segments(geom)
    for k, (a, b, is_line, is_field) in enumerate(segs):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        length = float(np.linalg.norm(b - a))
        n = max(int(length / step), 2)
        t = (np.arange(n) + 0.5) / n
        t = t[(t * length > 1.2) & ((1 - t) * length > 1.2)]
        d = (b - a) / length
        p = a + t[:, None] * (b - a)
        if is_field and geom.material == "leather":
            p = p + LEATHER_LIP_MM  # the embossed border's light lip, the line that shows
        pts.append(p)
        nrm.append(np.tile([-d[1], d[0]], (len(t), 1)))
        line.append(np.full(len(t), is_line))
        outline.append(np.full(len(t), k < 4))
        field.append(np.full(len(t), is_field))
    gaps = []
    for axis in (0, 1):  # spacing of parallel painted lines
        c = sorted({round(q[1 - axis], 3) for p, q, is_line, _ in segs
                    if is_line and p[1 - axis] == q[1 - axis]})
        gaps += [y - x for x, y in zip(c, c[1:], strict=False)]
    return EdgeModel(np.concatenate(pts), np.concatenate(nrm), np.concatenate(line),
                     np.concatenate(outline), np.concatenate(field),
                     1.0 if geom.material == "leather" else -1.0,
                     float(min(gaps)) if gaps else max(geom.width, geom.depth))


def _search(grey: np.ndarray, px: np.ndarray, n: np.ndarray, reach, line: np.ndarray,
            sign: np.ndarray, half=2, step: float = 1.0, box: int = 3
            ) -> tuple[np.ndarray, np.ndarray]:
    """Per point, the offset (px, along n) of a step (a box difference: a painted line
    barely counts; ``sign`` +1 brighter along n, -1 darker, 0 either) or a painted line
    (``sign`` +1 brighter than both sides ``half`` px away, -1 darker than their mean;
    ``half`` one for all or per point) within ``reach`` (px, one for all or per point),
    sub-pixel, the nearest of those at least ``PEAK_SHARE`` of the strongest; and its
    strength (grey levels). The profiles are sampled every ``step`` px and a step's
    boxes are ``box`` px wide: sampled every px a peak's parabola locks onto the pixels
    (``_polished`` from true tile corners moved about 0.7 px, dev 100..159: 0.45 px off
    at the median sampled every px with 3 px boxes, 0.21 every half px with 1 px)."""
    reach = np.broadcast_to(np.asarray(reach, np.float64), (len(px),))[:, None]
    half = np.broadcast_to(np.asarray(half, np.int64), (len(px),))[:, None]
    per = int(round(1 / step))  # samples a px
    box = box * per  # the step's boxes
    pad = max(int(half.max(initial=0)) * per, 2 * box)
    r = int(np.ceil(reach.max(initial=0))) * per + pad
    t = np.arange(-r, r + 1, dtype=np.float64) / per
    xs = (px[:, 0:1] + n[:, 0:1] * t).astype(np.float32)
    ys = (px[:, 1:2] + n[:, 1:2] * t).astype(np.float32)
    prof = cv2.remap(grey, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    prof = prof.astype(np.float64)
    m = prof.shape[1]
    c = np.cumsum(np.pad(prof, ((0, 0), (1, 0))), axis=1)
    k = np.arange(pad, m - pad)
    # step between samples k and k + 1: mean of the ``box`` px after minus those up to
    # k, and the same farther out on both sides (a thin painted line's flank is no step)
    near = ((c[:, k + 1 + box] - c[:, k + 1]) - (c[:, k + 1] - c[:, k + 1 - box])) / box
    far = ((c[:, k + 1 + 2 * box] - c[:, k + 1 + box])
           - (c[:, k + 1 - box] - c[:, k + 1 - 2 * box])) / box
    sg = np.where(sign[:, None] == 0, np.sign(near), sign[:, None])
    step = np.minimum(sg * near, sg * far)
    # a line: a light one (leather's lip) lighter than both sides ``half`` px away, by the
    # lesser of the two; a dark one darker than their mean (until session 9 by the larger
    # of the two, which answered beside a line as well as on it; by the lesser, the tiles'
    # frame line on the glaze's ramp down to its edge, or blurred at 1 px a mm, showed
    # only as much as it lies below the ramp; beside a line the mean is darker)
    if (half == half.flat[0]).all():
        before, after = prof[:, k - half.flat[0] * per], prof[:, k + half.flat[0] * per]
    else:
        rows = np.arange(len(px))[:, None]
        before, after = prof[rows, k - half * per], prof[rows, k + half * per]
    s_ = sign[:, None]
    ridge = np.where(s_ < 0, (before + after) / 2 - prof[:, k],
                     np.minimum(s_ * (prof[:, k] - before), s_ * (prof[:, k] - after)))
    resp = np.where(line[:, None], ridge, step)
    pos = np.where(line[:, None], k.astype(np.float64), k + 0.5) / per  # px
    r = r / per
    resp = np.where(np.abs(pos - r) <= reach, resp, -np.inf)
    # the peak nearest to where the model puts it among those at least half the
    # strongest (a piece's or a shadow's edge a little farther off is often stronger)
    top = resp.max(axis=1, keepdims=True)
    left = np.pad(resp, ((0, 0), (1, 0)), constant_values=-np.inf)[:, :-1]
    right = np.pad(resp, ((0, 0), (0, 1)), constant_values=-np.inf)[:, 1:]
    peak = (resp >= left) & (resp >= right) & (resp >= PEAK_SHARE * top)
    j = np.argmin(np.where(peak, np.abs(pos - r), np.inf), axis=1)
    rows = np.arange(len(px))
    best = np.nan_to_num(resp[rows, j], neginf=-1e9)
    a = resp[rows, np.maximum(j - 1, 0)]
    b = resp[rows, np.minimum(j + 1, resp.shape[1] - 1)]
    a = np.where(np.isfinite(a), a, best)
    b = np.where(np.isfinite(b), b, best)
    den = a - 2 * best + b
    sub = np.where(den < -1e-9, 0.5 * (a - b) / np.where(den < -1e-9, den, -1), 0.0)
    return pos[rows, j] - r + np.clip(sub, -0.5, 0.5) / per, best


def _normals_px(H: np.ndarray, pts: np.ndarray, nrm: np.ndarray, px: np.ndarray):
    d = apply_homography(H, pts + 0.5 * nrm) - px
    return d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)


def _halves(H: np.ndarray, pts: np.ndarray, nrm: np.ndarray, px: np.ndarray,
            geom: Geometry) -> np.ndarray:
    """Per model point, how far (px) ``_search`` compares a painted line with its sides:
    ``LINE_FLANK_PX`` past half the line's width (``Geometry.line_mm``) as the image
    shows it across the line there (a wide line's sides 2 px from its centre lie on it),
    at least 2 px, at most ``MAX_HALF_PX`` (a quad folded over has no scale)."""
    scale = np.linalg.norm(apply_homography(H, pts + 0.5 * nrm) - px, axis=1) / 0.5
    half = np.ceil(geom.line_mm * np.nan_to_num(scale, nan=0.0) / 2 + LINE_FLANK_PX)
    return np.clip(half, 2, MAX_HALF_PX).astype(np.int64)


def _signs(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
           model: EdgeModel) -> np.ndarray:
    """Per model point, the sign ``_search`` looks for: the painted lines' polarity; for
    each side of the outline and for the other steps (the Cubes band), whether the image
    gets brighter or darker across them where ``corners`` put them (each group by its
    median: the pieces' and shadows' edges inside and outside mostly have the other
    sign; each side its own: beyond the near sides of a board seen obliquely lies its
    darker side face, beyond the far ones the table)."""
    H = corners_homography(corners, geom)
    px = apply_homography(H, model.points)
    n = _normals_px(H, model.points, model.normals, px)
    inside = [px - n * d for d in (3.0, 2.0)]
    outside = [px + n * d for d in (2.0, 3.0)]

    def mean(points):
        p = np.concatenate(points).astype(np.float32).reshape(1, -1, 2)
        v = cv2.remap(grey, p[..., 0], p[..., 1], cv2.INTER_LINEAR).reshape(2, -1)
        return v.mean(axis=0)

    contrast = mean(outside) - mean(inside)
    sign = np.full(len(model.line), model.polarity)
    sides = [model.outline & np.all(model.normals == n, axis=1)
             for n in ((0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0))]
    for group in (*sides, ~model.outline & ~model.line):
        if group.any():
            sign[group] = 1.0 if np.median(contrast[group]) > 0 else -1.0
    if geom.material == "ceramic":  # white glaze: darker beyond (its side, its shadow)
        sign[model.outline] = -1.0
    return sign


def _jacobian(corners: np.ndarray, geom: Geometry, pts: np.ndarray, px: np.ndarray,
              n: np.ndarray) -> np.ndarray:
    """(points, 8): how far each board point ``pts`` (mm, at ``px`` in the image) moves
    along its image normal ``n`` per px that each corner coordinate moves."""
    J = np.empty((len(pts), 8))
    for i in range(8):
        c = corners.copy()
        c.flat[i] += 0.5
        moved = apply_homography(corners_homography(c, geom), pts)
        J[:, i] = np.sum((moved - px) * n, axis=1) / 0.5
    return J


def _fit_step(grey, corners, geom, model, sel, reach, sign):
    """One robust Gauss-Newton step of the corners (8 unknowns) that moves the model's
    points ``sel`` onto the edges found within ``reach`` px (one for all, or per model
    point) along their normals."""
    pts, nrm = model.points[sel], model.normals[sel]
    H = corners_homography(corners, geom)
    px = apply_homography(H, pts)
    n = _normals_px(H, pts, nrm, px)
    reach = np.broadcast_to(np.asarray(reach, np.float64), (len(model.line),))[sel]
    off, strength = _search(grey, px, n, reach, model.line[sel], sign[sel],
                            _halves(H, pts, nrm, px, geom))
    ok = strength >= np.where(model.line[sel], MIN_LINE, MIN_STEP)
    if ok.sum() < 12:
        return corners
    J, off = _jacobian(corners, geom, pts, px, n)[ok], off[ok]
    scale = max(1.4826 * float(np.median(np.abs(off))), 0.7)
    w = np.clip(1 - (off / (4.685 * scale)) ** 2, 0, None) ** 2  # Tukey
    Jw = J * w[:, None]
    delta = np.linalg.solve(Jw.T @ J + 1e-6 * np.eye(8), Jw.T @ off)
    return corners + delta.reshape(4, 2)


def _px_per_mm(corners: np.ndarray, geom: Geometry) -> float:
    area = abs(cv2.contourArea(corners.astype(np.float32)))
    return float(np.sqrt(area / (geom.width * geom.depth)))


def fit_model(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
              wide: float | None = None, fine: bool = True,
              sign: np.ndarray | None = None) -> np.ndarray:
    """Corners moved until the board's outline and painted lines (``edge_model``) lie on
    the image's edges: the outline alone from ``wide`` px (default: 12 % of the board's
    size, and on each side at most 40 % of the board's size across it) down; then
    (``fine``) the points ``_fine_points`` picks, within less than half the painted
    lines' spacing, then 1.5 px. ``sign``: per model point, the step or line sought
    (``_signs`` where ``corners`` put the board, if not given)."""
    model = edge_model(geom)
    ppm = _px_per_mm(corners, geom)
    size = ppm * max(geom.width, geom.depth)
    wide = float(np.clip(0.12 * size, 4, 40)) if wide is None else wide
    across = np.where(model.normals[:, 0] == 0, geom.depth, geom.width) * 0.4 * ppm
    reach = float(np.clip(0.4 * model.spacing * ppm, 1.5, 8))
    coarse = model.outline | (model.line & ~model.field) if geom.material == "ceramic" \
        else model.outline
    steps = [(coarse, np.minimum(r, across)) for r in (wide, wide / 2, wide / 4)
             if r > reach]
    if fine:
        inner = _fine_points(geom, model)
        steps += [(inner, reach)] * 2 + [(inner, 1.5)] * 2
    if sign is None:
        sign = _signs(grey, corners, geom, model)
    for sel, r in steps:
        new = _fit_step(grey, corners, geom, model, sel, r, sign)
        if not cv2.isContourConvex(new.astype(np.float32)):
            break
        corners = new
    return corners


def _along_edge(geom: Geometry, model: EdgeModel) -> np.ndarray:
    """The painted lines within 2 mm of the board's edge (Neunfeld's stitching)."""
    w, d = geom.width / 2, geom.depth / 2
    u, v = np.abs(model.points).T
    return model.line & (((model.normals[:, 0] == 0) & (d - v < 2.0))
                         | ((model.normals[:, 1] == 0) & (w - u < 2.0)))


def _fine_points(geom: Geometry, model: EdgeModel) -> np.ndarray:
    """The model points the fine fit uses (measured on renders): on the e-SOLO-e tiles
    the outline alone (the glaze's edge is crisp; the cubes stand right by the fields'
    outlines); on leather and card the painted lines (and the Cubes band), not the
    outline (a shadow or the board's side face lies beside it), except on a board whose
    fields reach its edge (Neunfeld): there the outline, not the lines along it."""
    if geom.material == "ceramic":
        return model.outline
    along_edge = _along_edge(geom, model)
    inner = ~model.outline & ~along_edge
    return inner | model.outline | along_edge if along_edge.any() else inner


def _pattern_points(geom: Geometry, model: EdgeModel) -> np.ndarray:
    """The model points ``support`` checks: the fine fit's and the painted lines that
    pieces rarely hide (the e-SOLO-e tiles' frame line, not their fields' outlines; not
    Neunfeld's stitching, which a small or blurred view does not show apart from the
    edge)."""
    return _fine_points(geom, model) | (model.line & ~model.field)


def _in_place(grey: np.ndarray, corners: np.ndarray, geom: Geometry, sel: np.ndarray,
              sign: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per model point of ``sel`` (indices): whether its edge or line lies within 1 px of
    where ``corners`` put it in ``grey``, and its offset (px); ``sign``: the model's
    (``_signs``), taken where ``corners`` put it if not given."""
    model = edge_model(geom)
    if sign is None:
        sign = _signs(grey, corners, geom, model)
    pts = model.points[sel]
    H = corners_homography(corners, geom)
    px = apply_homography(H, pts)
    n = _normals_px(H, pts, model.normals[sel], px)
    line = model.line[sel]
    off, strength = _search(grey, px, n, 2.0, line, sign[sel],
                            _halves(H, pts, model.normals[sel], px, geom))
    return (strength >= np.where(line, MIN_LINE, MIN_STEP)) & (np.abs(off) <= 1.0), off


def pattern_check(grey: np.ndarray, corners: np.ndarray, geom: Geometry,
                  most: int | None = None) -> tuple[float, float, float]:
    """Where ``corners`` put the board's pattern (``_pattern_points``, evenly thinned to
    ``most`` points if given) in ``grey`` (``fit_grey``): (share of its points whose edge
    or line lies within 1 px, the same share of its painted lines alone, median offset
    in px of those found)."""
    model = edge_model(geom)
    sel = np.flatnonzero(_pattern_points(geom, model))
    if most is not None and len(sel) > most:
        sel = sel[np.linspace(0, len(sel) - 1, most).round().astype(int)]
    ok, off = _in_place(grey, corners, geom, sel)
    shift = float(np.median(np.abs(off[ok]))) if ok.any() else np.inf
    painted = model.line[sel] & ~_along_edge(geom, model)[sel]
    return float(ok.mean()), float(ok[painted].mean()), shift


def support(grey: np.ndarray, corners: np.ndarray, geom: Geometry) -> tuple[float, float]:
    """(Share of the board's pattern found in place, of its painted lines alone)
    (``pattern_check``); (0, 0) when under ``MIN_SUPPORT`` of its painted lines show (a
    plank or a plain rectangle of the board's shape is not the board) or under
    ``MIN_SHARE`` of the whole pattern (a wood grain's lines can stand where some of the
    painted ones would)."""
    share, lines, _ = pattern_check(grey, corners, geom)
    return (share, lines) if lines >= MIN_SUPPORT and share >= MIN_SHARE else (0.0, 0.0)


def view_check(corners: np.ndarray, geom: Geometry, size: tuple[int, int]) -> tuple[float, float]:
    """How a camera over a table would see the board at named ``corners`` (image px of a
    frame of ``size`` (w, h)): (the camera's tilt from the board's normal in degrees,
    how far in px the nearest rigid view of the board puts a corner off ``corners``), the
    view ``vision.grid.board_pose`` recovers with the assumed camera (IPPE, or the
    homography's pose where that fits better: a board face on away from the image's
    centre). A quad that is the board has a tilt within what the camera's stand allows
    and a small misfit (its shape has the board's aspect under perspective); the grain
    of a table, a shadow or the pieces' edges often have neither."""
    from vision.grid import board_pose

    corners = np.asarray(corners, np.float64)
    try:
        pose = board_pose(BoardFix(corners, corners), geom, size)
    except ValueError:  # no camera pose fits the corners
        return 90.0, np.inf
    seen = apply_homography(pose.plane_homography(0.0), geom.corners_mm())
    return (float(np.degrees(np.arccos(np.clip(abs(pose.R[2, 2]), 0.0, 1.0)))),
            float(np.linalg.norm(seen - corners, axis=1).max()))


def _misfit(corners: np.ndarray, geom: Geometry, size: tuple[int, int]) -> float:
    """How far the nearest rigid view of the board puts a corner off ``corners``
    (``view_check``), as a share of the board's image size; infinite where that view is
    tilted over ``MAX_TILT_DEG``."""
    tilt, off = view_check(corners, geom, size)
    area = abs(cv2.contourArea(np.asarray(corners, np.float32)))
    return off / max(float(np.sqrt(area)), 1e-9) if tilt <= MAX_TILT_DEG else np.inf


def plausible_view(corners: np.ndarray, geom: Geometry, size: tuple[int, int],
                   misfit: float = VIEW_MISFIT) -> bool:
    """Whether a camera over a table can see the board at named ``corners`` so
    (``view_check``): tilted at most ``MAX_TILT_DEG`` from the board's normal, and the
    quad within ``misfit`` of the board's image size of a rigid view of it."""
    return bool(_misfit(corners, geom, size) <= misfit)
