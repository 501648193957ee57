"""How many cubes stand on each field: the stack's outline against what lies behind it.

Each cube added to a stack covers image pixels that the stack below it does not: for level
k (1..4) the region ``D_k`` is the projection of the k-th cube (shrunk by ``INNER_MM`` on
every side and ``GAP_MM`` from its bottom and top) minus the projection of a stack of k - 1
cubes grown by ``OUTER_MM`` (the cubes stand up to 1.5 mm off the field's centre), minus
what the other stacks may cover. Seen from a camera, ``D_k`` shows cube wood exactly when
the stack has at least k cubes: in an oblique view it is the band above the (k-1)-cube
stack's top, looking down it is the strip of side faces that leans away from the
camera's foot point. A pixel is *cube* when it looks like neither the board's glaze nor
the table (Lab colour models sampled on the board's margin and on a band round the board)
nor, on a 3andC board, its blue glaze (sampled on its empty blue fields).

The height is the n in 1..4 that best explains the levels' cube shares; a level whose
region is too small to see (a field right below an overhead camera) counts for nothing,
so the height there stays uncertain. ``Height.probabilities`` weighs each n by the game's
prior (``PRIOR`` where cubes stack, ``FLAT_PRIOR`` in the 3x3 games, whose rules forbid
stacking) and by how well it explains the shares: a field whose levels are all unseen gets
the prior itself, and its height the prior's most likely one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.board import Geometry, three_and_c_blue
from vision.cube_geometry import CUBE_MM
from vision.grid import BoardPose, square_crop

MAX_LEVELS = 4
INNER_MM = 2.0  # the k-th cube's region is shrunk this much on every side
GAP_MM = 2.5  # ... and this much from its bottom and its top
OUTER_MM = 2.5  # the lower stack is grown this much (a cube's play in its field)
CUBE_DISTANCE = 3.0  # colour distance (in robust standard deviations) above which: cube
MIN_PIXELS = 30.0  # a level region smaller than this counts for nothing
FULL_PIXELS = 150.0  # ... and from this size for everything
PRIOR = (0.4, 0.3, 0.2, 0.1)  # heights 1..4 of an occupied field before any level is seen
#   (renders' playouts of 8..14 placements: 0.39 / 0.31 / 0.22 / 0.08 on dev seeds)
FLAT_PRIOR = (0.97, 0.02, 0.01, 0.0)  # ... in a game that forbids stacking (a stack there is
#   a player's mistake, which the referee is to name)
BLUE_SAMPLE = 6.0  # mm: 3andC's blue glaze is sampled this near its empty fields' centres
BLUE_FIELD_B = 15.0  # on 3andC's blue fields, a pixel this much bluer (Lab b) than the
#   margin's glaze is blue glaze too, whatever its hue (a warm or dim light turns the blue
#   glaze teal or pale, which the hue test misses: an empty blue field read occupied).
#   Dev renders, 3andC, any camera, true corners, fields read occupied but empty, seeds
#   100..199 / 200..299: 14 / 15 -> 10 / 12 (8 and 12: 9 / -, with misses 3 -> 6; 20:
#   - / 12; 25: 13 / -); misses unchanged
BLUE_MIN_LIGHT = 0.2  # ... if it is at least this light against the glaze (Lab L): a dark
#   cube face is near neutral, so "bluer" than a warm glaze (dev 175's green cube on the
#   centre field, its south face seen, read empty). Dev renders, 3andC, any camera, true
#   corners, seeds 100..299, occupancy missed / extra, heights wrong: 0 13 / 17, 5; 0.15
#   and 0.2 11 / 17, 3; 0.25 and 0.3 10 / 19, 3; 0.4 10 / 28, 2
#   The levels (``BlueHue``) take such pixels for blue glaze too, on 3andC: the glaze
#   sampled on the empty blue fields (``blue_glaze``) is often missing (each blue field
#   occupied, or behind a stack as tall as MAX_LEVELS) or lit otherwise than the one
#   behind a cube, whose level above it then read as a cube. Dev renders, 3andC, any
#   camera, true corners, seeds 0..399: heights wrong 18 -> 8, top players wrong 20 ->
#   16, exact 341 -> 351 of 400
SHARPNESS = 3.0  # a height's weight grows as exp(SHARPNESS x score): two heights whose scores
#   differ by m split as the old confidence 0.5 + 0.5 tanh(1.5 m)
CROP_HALF_MM = 32.0  # ``height_crop``: the square round a field the height model reads
#   (2.7 field pitches: the stack, its side faces and its shadow on the neighbours)
CROP_PX = 64  # ... cut at this many px (1 mm a px: an overhead camera's 0.6..1.5 mm a px)
CROP_LEVELS = 2  # ... on the plane of the top of a stack this many cubes tall
MODEL_PRIOR = (0.31, 0.29, 0.36, 0.04)  # heights 1..4 of the model's training crops
MODEL_WEIGHT = 2.0  # ``weigh_by_model``: the model's likelihood counts as its this power
#   where levels above the first were seen (obliquely: it reads 92 % of those stacks right).
#   Dev renders, esoloe, true corners, oblique 0..59 / any 0..66, seen stacks' heights
#   right 219 of 226 / 174 of 182 -> 224 / 180 (1: 223 / 178, 3: 226 / 180). From above
#   it is not used: it reads 57 % right there, the other cues 74 % (overhead 0..99 /
#   100..199, heights right 275 / 263 of 370 / 346; weighed in at 0.25: 274 / 268, at 1:
#   261 / 261; 0.25 read four of tests/vision/test_stack_height_top.py's stacks wrong)


def project(pose: BoardPose, points: np.ndarray, dist=None) -> np.ndarray:
    """Board-frame points (N, 3) mm -> image px (the lens distortion where given)."""
    rvec, _ = cv2.Rodrigues(pose.R)
    d = None if dist is None else np.asarray(dist, np.float64)
    out, _ = cv2.projectPoints(np.asarray(points, np.float64).reshape(-1, 1, 3), rvec,
                               pose.t.astype(np.float64), pose.K, d)
    return out.reshape(-1, 2)


def height_crop(image: np.ndarray, pose: BoardPose, u: float, v: float) -> np.ndarray:
    """The square ``CROP_HALF_MM`` round the field centred at (u, v) mm, rectified on the
    plane of a ``CROP_LEVELS``-cube stack's top, ``CROP_PX`` px, turned so that the
    direction from the camera's foot point to the field points up in the crop (a stack's
    side faces and the way it leans then show alike whatever the camera's azimuth): what
    ``models/height.onnx`` reads."""
    camera = -pose.R.T @ pose.t
    away = np.array([u, v]) - camera[:2]
    norm = float(np.hypot(*away))
    c, s = (away / norm) if norm > 1e-6 else (0.0, 1.0)  # up (v) turned onto ``away``
    turn = np.array([[s, c, 0.0], [-c, s, 0.0], [0.0, 0.0, 1.0]])  # turned frame -> board
    tu, tv = turn[:2, :2].T @ (u, v)
    return square_crop(image, pose.plane_homography(CROP_LEVELS * CUBE_MM) @ turn, tu, tv,
                       CROP_HALF_MM, CROP_PX)


def weigh_by_model(image: np.ndarray, pose: BoardPose, geom: Geometry,
                   heights: list[Height | None], model) -> list[Height | None]:
    """``heights`` whose levels were seen (``Height.unseen`` not) each weighed by
    ``models/height.onnx``'s reading of its field (``height_crop``; all in one run): the
    model's probabilities over the heights of its training crops' (``MODEL_PRIOR``), to
    the power ``MODEL_WEIGHT`` (kept as ``Height.model``). The others, and all without the
    model, unchanged."""
    fields = [i for i, h in enumerate(heights) if h is not None and not h.unseen]
    if model is None or not fields:
        return heights
    crops = [height_crop(image, pose, geom.cells[i][1], geom.cells[i][2]) for i in fields]
    out = list(heights)
    for i, logits in zip(fields, model.logits(crops)[0], strict=True):
        p = np.exp(logits - logits.max())
        like = (p / p.sum() / np.asarray(MODEL_PRIOR)) ** MODEL_WEIGHT
        like = like[:len(heights[i].probabilities)]
        out[i] = replace(heights[i].weighed(like), model=tuple(float(x) for x in like))
    return out


def at_most_one_full(heights: list[Height | None]) -> list[Height | None]:
    """``heights`` under the e-SOLO-e rule that at most one stack is ``MAX_LEVELS`` high (a
    cube goes on the 4th level only where it wins, and a win ends the game:
    docs/rules/esoloe.md, *Placing*): each stack's probabilities its marginal under that
    rule, the stacks otherwise independent. A stack stays under ``MAX_LEVELS`` whatever
    the others; it is ``MAX_LEVELS`` high only where no other one is, so two stacks each
    read likely full weigh each other down. Dev renders, esoloe, true corners, ``python -m
    vision.measure --games esoloe --camera overhead --n 100 --start S --full --truth-board
    --kinds``: S 0 heights wrong 97 -> 93 of 380 stacks, exact 35 -> 36 %; S 100 84 -> 78
    of 349, 47 -> 49 % (stacks read four high wrongly 22 -> 7, four high read lower 6 ->
    9 of 24); oblique (S 0) the same."""
    full = [i for i, h in enumerate(heights)
            if h is not None and len(h.probabilities) == MAX_LEVELS]
    q = np.array([heights[i].probabilities[-1] for i in full])
    out = list(heights)
    for k, i in enumerate(full):
        rest = np.delete(q, k)
        none = float(np.prod(1 - rest))  # no other stack full
        one = sum(float(r * np.prod(np.delete(1 - rest, j))) for j, r in enumerate(rest))
        out[i] = replace(heights[i].weighed([none + one] * (MAX_LEVELS - 1) + [none]),
                         model=heights[i].model)
    return out


def box(u: float, v: float, half: float, z0: float, z1: float) -> np.ndarray:
    """The 8 corners of an upright box (board frame)."""
    return np.array([(u + a * half, v + b * half, z) for a in (-1, 1) for b in (-1, 1)
                     for z in (z0, z1)])


@dataclass
class ColourModel:
    median: np.ndarray  # Lab (3,)
    spread: np.ndarray  # robust standard deviation (3,), floored

    @classmethod
    def of(cls, samples: np.ndarray, floor=(18.0, 2.5, 2.5)) -> ColourModel | None:
        if len(samples) < 20:
            return None
        med = np.median(samples, axis=0)
        mad = 1.4826 * np.median(np.abs(samples - med), axis=0)
        return cls(med, np.maximum(mad, floor))

    def distance(self, lab: np.ndarray) -> np.ndarray:
        return np.sqrt((((lab - self.median) / self.spread) ** 2).sum(-1))


def _samples(lab: np.ndarray, pts: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    h, w = lab.shape[:2]
    p = np.round(pts).astype(int)
    ok = (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
    p = p[ok]
    p = p[~hidden[p[:, 1], p[:, 0]]]
    return lab[p[:, 1], p[:, 0]].astype(np.float64)


def bluer_than_glaze(lab: np.ndarray, glaze: np.ndarray) -> np.ndarray:
    """Where Lab pixels ``lab`` are ``BLUE_FIELD_B`` bluer than the white glaze (Lab
    ``glaze``) and not darker than ``BLUE_MIN_LIGHT`` of it: 3andC's blue glaze whatever its
    light (a cube's shaded face is near grey, so bluer than a warm glaze only when dark)."""
    return ((lab[..., 2] < glaze[2] - BLUE_FIELD_B)
            & (lab[..., 0] >= BLUE_MIN_LIGHT * glaze[0]))


@dataclass
class BlueHue:
    """3andC's blue glaze by its hue alone (``bluer_than_glaze``). As a ``ColourModel``'s
    distance: 0 there, else infinite."""

    glaze: np.ndarray  # Lab (3,)

    def distance(self, lab: np.ndarray) -> np.ndarray:
        return np.where(bluer_than_glaze(lab, self.glaze), 0.0, np.inf)


def background_models(lab: np.ndarray, pose: BoardPose, geom: Geometry, hidden: np.ndarray,
                      dist=None, occupied: list[bool] | None = None
                      ) -> list[ColourModel | BlueHue]:
    """Colour models of the glaze and of the table (``glaze_and_table``) and, on a 3andC
    board, of its blue glaze (``blue_glaze``, and by its hue: ``BlueHue``), those
    sampled."""
    glaze, table = glaze_and_table(lab, pose, geom, hidden, dist)
    models: list = [glaze, table]
    if occupied is not None:
        models.append(blue_glaze(lab, pose, geom, hidden, occupied, dist))
        if glaze is not None and geom.game == "esoloe-3andc":
            models.append(BlueHue(glaze.median))
    return [m for m in models if m is not None]


def blue_glaze(lab: np.ndarray, pose: BoardPose, geom: Geometry, hidden: np.ndarray,
               occupied: list[bool], dist=None) -> ColourModel | None:
    """The colour model of 3andC's blue glaze, sampled on its empty blue fields (within
    ``BLUE_SAMPLE`` of their centres, where no stack may stand in front: ``hidden``); None
    on another board or where too few samples are seen. Seen obliquely past a cube, an
    empty blue field behind it looked like a cube to the levels above it (neither the
    white glaze nor the table), and a single cube was read two high in a game that
    forbids stacking (dev renders, 3andC, any camera, true corners, seeds 100..199 /
    200..299: heights wrong 5 / 4 -> 2 / 3)."""
    if geom.game != "esoloe-3andc":
        return None
    grid = np.linspace(-BLUE_SAMPLE, BLUE_SAMPLE, 9)
    pts = [(u + a, v + b, 0.0) for i, (_, u, v, _) in enumerate(geom.cells)
           if i in three_and_c_blue() and not occupied[i] for a in grid for b in grid]
    if not pts:
        return None
    return ColourModel.of(_samples(lab, project(pose, np.array(pts), dist), hidden))


def stacks_mask(shape: tuple[int, int], pose: BoardPose, geom: Geometry,
                occupied: list[bool], dist=None) -> np.ndarray:
    """Image mask of what stacks as tall as ``MAX_LEVELS`` cubes on the occupied fields (grown
    by ``OUTER_MM``) may cover."""
    hidden = np.zeros(shape, bool)
    for (_, u, v, _), o in zip(geom.cells, occupied, strict=True):
        if o:
            hidden |= _hull_mask(shape, project(pose, box(u, v, CUBE_MM / 2 + OUTER_MM, 0,
                                                          MAX_LEVELS * CUBE_MM), dist),
                                 np.zeros(2))
    return hidden


def glaze_and_table(lab: np.ndarray, pose: BoardPose, geom: Geometry, hidden: np.ndarray,
                    dist=None) -> tuple[ColourModel | None, ColourModel | None]:
    """Colour models of the glaze (the board's margin outside the fields) and of the table
    (a band 6..30 mm round the board, on the table's plane), sampled where no stack may
    stand in front (``hidden``: image mask of the pixels stacks may cover); None where too
    few samples are seen."""
    w, d = geom.width / 2, geom.depth / 2
    grid = np.stack(np.meshgrid(np.arange(-w + 2.5, w - 2.5, 1.5),
                                np.arange(-d + 2.5, d - 2.5, 1.5)), -1).reshape(-1, 2)
    keep = np.ones(len(grid), bool)
    for _, u, v, half in geom.cells:
        keep &= ~((np.abs(grid[:, 0] - u) < half + 2) & (np.abs(grid[:, 1] - v) < half + 2))
    margin = grid[keep]
    glaze = _samples(lab, project(pose, np.column_stack([margin, np.zeros(len(margin))]), dist),
                     hidden)
    ring = []
    for grow in (6.0, 14.0, 22.0, 30.0):
        for t in np.linspace(0, 1, 60, endpoint=False):
            ring += [(-w - grow + t * 2 * (w + grow), d + grow), (w + grow, d + grow - t * 2 *
                     (d + grow)), (w + grow - t * 2 * (w + grow), -d - grow),
                     (-w - grow, -d - grow + t * 2 * (d + grow))]
    ring = np.array(ring)
    table = _samples(lab, project(pose, np.column_stack(
        [ring, np.full(len(ring), -geom.thickness)]), dist), hidden)
    return ColourModel.of(glaze), ColourModel.of(table)


def _hull_mask(shape, pts: np.ndarray, origin) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    hull = cv2.convexHull((pts - origin).astype(np.float32)).astype(np.int32)
    cv2.fillConvexPoly(m, hull, 1)
    return m.astype(bool)


@dataclass
class Height:
    cubes: int
    confidence: float
    shares: list[float | None]  # per level 1..4: the share of cube pixels in D_k (None: unseen)
    probabilities: tuple[float, ...] = PRIOR  # of heights 1..4 (cubes: the most likely)
    prior: tuple[float, ...] = PRIOR
    model: tuple[float, ...] | None = None  # the height model's likelihood of heights 1..4
    #   where it weighed this one (``weigh_by_model``)

    @property
    def unseen(self) -> bool:
        """No level above the first was seen: the probabilities are the prior's."""
        return all(s is None for s in self.shares[1:])

    def weighed(self, likelihood) -> Height:
        """The same with its probabilities multiplied by ``likelihood`` (per height)."""
        w = np.asarray(self.probabilities) * np.asarray(likelihood, float)
        return self._with(tuple(float(x) for x in w / w.sum()))

    def flattened(self, keep: float) -> Height:
        """The same with only ``keep`` of its evidence (the rest: the prior), e.g. for a
        field whose levels another stack may hide."""
        return self._with(tuple(keep * a + (1 - keep) * b for a, b in zip(
            self.probabilities, self.prior, strict=True)))

    def _with(self, p: tuple[float, ...]) -> Height:
        n = int(np.argmax(p))
        return Height(n + 1, float(p[n]), self.shares, p, self.prior)


def measure_heights(image: np.ndarray, pose: BoardPose, geom: Geometry, occupied: list[bool],
                    dist=None, passes: int = 2, prior=PRIOR) -> list[Height | None]:
    """Per field: the stack's height (None for an empty field)."""
    centres = [(u, v) for _, u, v, _ in geom.cells]
    tall = [box(u, v, CUBE_MM / 2 + OUTER_MM, 0, MAX_LEVELS * CUBE_MM) for u, v in centres]
    every = np.vstack([project(pose, b, dist) for b, o in zip(tall, occupied, strict=True) if o]
                      or [np.zeros((1, 2))])
    h, w = image.shape[:2]
    x0, y0 = np.clip(np.floor(every.min(0)).astype(int) - 2, 0, (w - 1, h - 1))
    x1, y1 = np.clip(np.ceil(every.max(0)).astype(int) + 3, 1, (w, h))
    if x1 <= x0 or y1 <= y0:
        return [None] * len(occupied)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    models = background_models(lab, pose, geom, stacks_mask((h, w), pose, geom, occupied, dist),
                               dist, occupied)
    roi = lab[y0:y1, x0:x1].astype(np.float64)
    if models:
        cube = np.min([m.distance(roi) for m in models], axis=0) > CUBE_DISTANCE
    else:
        cube = np.ones(roi.shape[:2], bool)
    shape, origin = cube.shape, np.array([x0, y0])

    def hull(pts3):
        return _hull_mask(shape, project(pose, pts3, dist), origin)

    levels: list[list[np.ndarray]] = []  # per field, per level k: D_k before other stacks
    for (u, v), o in zip(centres, occupied, strict=True):
        if not o:
            levels.append([])
            continue
        regions = []
        for k in range(1, MAX_LEVELS + 1):
            inner = hull(box(u, v, CUBE_MM / 2 - INNER_MM, (k - 1) * CUBE_MM + GAP_MM,
                             k * CUBE_MM - GAP_MM))
            if k > 1:
                inner &= ~hull(box(u, v, CUBE_MM / 2 + OUTER_MM, 0,
                                   (k - 1) * CUBE_MM + OUTER_MM))
            regions.append(inner)
        levels.append(regions)
    heights = [MAX_LEVELS if o else 0 for o in occupied]
    result: list[Height | None] = [None] * len(occupied)
    for _ in range(passes):
        others = []
        for i, (u, v) in enumerate(centres):
            others.append(hull(box(u, v, CUBE_MM / 2 + OUTER_MM, 0,
                                   heights[i] * CUBE_MM + OUTER_MM)) if heights[i] else None)
        for i, regions in enumerate(levels):
            if not regions:
                continue
            cover = np.zeros(shape, bool)
            for j, m in enumerate(others):
                if j != i and m is not None:
                    cover |= m
            shares: list[float | None] = []
            weights = []
            for k, region in enumerate(regions):
                seen = region & ~cover
                n = float(seen.sum())
                if k == 0 or n < MIN_PIXELS:  # level 1 is the field's occupancy
                    shares.append(None if k else 1.0)
                    weights.append(0.0 if k else 1.0)
                    continue
                shares.append(float(cube[seen].mean()))
                weights.append(min(1.0, n / FULL_PIXELS))
            result[i] = _decide(shares, weights, prior)
        heights = [r.cubes if r is not None else 0 for r in result]
    return result


def _decide(shares: list[float | None], weights: list[float], prior=PRIOR) -> Height:
    """The height whose levels best fit the shares: levels up to it full of cube, above
    it free of cube; each height weighed by the prior and ``exp(SHARPNESS x score)``,
    the confidence the most likely height's probability."""
    scores = []
    for n in range(1, MAX_LEVELS + 1):
        s = 0.0
        for k, (share, wt) in enumerate(zip(shares, weights, strict=True)):
            if share is None:
                continue
            evidence = np.clip((share - 0.5) * 2.5, -1.0, 1.0) * wt
            s += evidence if k < n else -evidence
        scores.append(s)
    w = np.asarray(prior) * np.exp(SHARPNESS * (np.asarray(scores) - max(scores)))
    p = w / w.sum()
    n = int(np.argmax(p))  # ties: the lower stack
    return Height(n + 1, float(p[n]), shares, tuple(float(x) for x in p), tuple(prior))
