"""Alignment of a board's edge model from a rough quad (several per cent of the board's
size off) to within about a pixel: ``align``, before ``vision.board.fit_model``'s
sub-pixel fit.

The correspondence fit moves each model point to the nearest edge it finds; from a
start several pixels off that locks onto the wrong edges (a cube's side, the frame
line, a shadow). Here the whole model is scored at once instead, so that the board's
outline and its painted lines, all in their known places, pull together. Feature maps
of a crop round the quad (scaled so that the board is at most ``WORK_PX`` across):

- *steps* (the outline, the Cubes band): the gradient of the image with its painted
  lines closed away (a line's flanks are no step), per outline side along the side's
  outward normal: on the white glaze darker beyond the edge only, elsewhere either way;
- *lines* (the painted lines): a black-hat (a leather groove's light lip: a top-hat)
  a little wider than the lines.

Each map is saturated at a high percentile (a cube's or a shadow's strong edge counts
no more than the board's own). The score: the mean response of the lines' points
(half), of the outline's (each side a quarter of the rest: a strip's short ends count)
and of other steps. A pattern search moves the corners (each corner, and the quad as a
whole: shifted, scaled, turned) while the score grows, keeping the quad a plausible
view of the board (``_sound``), at three tolerances (``REACHES``: the maps max-pooled
and blurred so that a feature within the reach counts), the last the pixel itself. On
the e-SOLO-e tiles the last level searches from the start as well, and the better at
the pixel is kept (``FINE_FROM_START``; elsewhere where asked, ``from_start``): where
stacks hide a side, the pooled maps score that side on the stacks' feet or faces
higher than at the board's hidden edge, so the coarse levels carried even the true
corners 20..60 px off, though at the pixel the true corners scored higher; a Cubes
board at about 1 px a mm (its grid's lines under a pixel wide, 28 px apart) was
carried 4..12 px off likewise (``vision.board.find_board`` asks for it there once, from
the chosen fit where it shows under ``GOOD_SUPPORT``: from every start it cost Cubes'
finding 70 % more time).

With ``rigid``, the first ``RIGID_LEVELS`` levels move a view of the board instead of
its corners (``_Pose``: camera rotation and translation, the focal length that fits the
start best of ``POSE_HFOV``, principal point at the frame's centre, no distortion):
where stacks hide the far edge, free corners follow the stacks' feet, a view moves its
far edge only with its near edge and sides; the last level moves the corners freely
(lens distortion, the focal length's error).
"""

from __future__ import annotations

import contextlib
from functools import lru_cache

import cv2
import numpy as np

from vision.board import edge_model

WORK_PX = 360  # the board's longer image side at most this many px while aligning
REACHES = (0.04, 0.015, 0.0)  # of the board's longer image side: the search's levels
MIN_BLUR_PX = 0.8
SATURATE = 98  # percentile of a map's response that counts fully, and at least:
LEAST_STEP = 24.0  # Sobel response (a step of about 6 grey levels)
LEAST_LINE = 6.0  # grey levels of a painted line
SHORT_REACH = 0.2  # of the quad's shortest side at most: a strip's two sides stay apart
LINE_POINTS = 240  # painted lines' points scored at most
MAX_ROUNDS = 12  # pattern-search moves per step size
RIGID_LEVELS = 2  # rigid: the first levels move a view of the board (_Pose), not its corners
POSE_FREE = 6  # of a view's numbers the search moves (not the focal length)
POSE_HFOV = (50.0, 55.0, 60.0, 65.0, 70.0)  # degrees: a view's first focal lengths
SHAPE_SLACK = 2.6  # a quad's side ratio may differ this much from the board's (perspective)
PERSPECTIVE_SLACK = 2.2  # and its opposite sides from each other
FINE_FROM_START = True  # the tiles' last level from the start as well (module doc)


@lru_cache(maxsize=8)
def _points(geom):
    """(points mm, normals mm, is a line, is the outline) the score uses: the edge
    model's, its painted lines' evenly thinned to at most ``LINE_POINTS``."""
    m = edge_model(geom)
    keep = ~m.line
    lines = np.flatnonzero(m.line)
    keep[lines[np.linspace(0, len(lines) - 1, min(len(lines), LINE_POINTS)).round()
               .astype(int)] if len(lines) else lines] = True
    return m.points[keep], m.normals[keep], m.line[keep], m.outline[keep]


def _corner_moves() -> np.ndarray:
    """Unit moves (k, 4, 2): each corner in x and in y, and the whole quad in x and in y,
    each both ways."""
    out = []
    for i in range(5):
        for j in range(2):
            m = np.zeros((4, 2))
            if i < 4:
                m[i, j] = 1.0
            else:
                m[:, j] = 1.0
            out += [m, -m]
    return np.array(out)


CORNER_MOVES = _corner_moves()
NEXT = [1, 2, 3, 0]  # each corner's next one, clockwise (np.roll is slower here)


def _homographies(src: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """(k, 3, 3) homographies taking the four ``src`` points to each of ``quads``
    (k, 4, 2): the eight-unknown linear systems solved at once (NaN where a quad has
    none)."""
    k = len(quads)
    x, y = src[:, 0].astype(np.float64), src[:, 1].astype(np.float64)
    u, v = quads[..., 0], quads[..., 1]
    A = np.zeros((k, 8, 8))
    A[:, 0::2, 0], A[:, 0::2, 1], A[:, 0::2, 2] = x, y, 1.0
    A[:, 1::2, 3], A[:, 1::2, 4], A[:, 1::2, 5] = x, y, 1.0
    A[:, 0::2, 6], A[:, 0::2, 7] = -u * x, -u * y
    A[:, 1::2, 6], A[:, 1::2, 7] = -v * x, -v * y
    b = np.empty((k, 8))
    b[:, 0::2], b[:, 1::2] = u, v
    try:
        h = np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError:  # a quad with three corners on a line: NaN, no score
        h = np.full((k, 8), np.nan)
        for i in range(k):
            with contextlib.suppress(np.linalg.LinAlgError):
                h[i] = np.linalg.solve(A[i], b[i])
    return np.concatenate([h, np.ones((k, 1))], axis=1).reshape(k, 3, 3)


class _Maps:
    """The feature maps of one crop at one tolerance (``reach`` px), and the score of
    quads on them."""

    def __init__(self, sides, line, reach, pts, side_of, is_line, across, aspect):
        # max-pool by about half the reach, then dilate and blur a little: every feature
        # within the reach counts almost fully, and the score is smooth
        s = max(1, reach // 2)
        self.pool = s

        def prepare(m):
            if s > 1:  # the max over s x s blocks
                m = np.ascontiguousarray(cv2.dilate(m, np.ones((s, s), np.uint8),
                                                    anchor=(0, 0))[::s, ::s])
            if reach >= 1:
                m = cv2.dilate(m, np.ones((3, 3), np.uint8))
            return cv2.GaussianBlur(m, (0, 0), max(reach / s / 2, MIN_BLUR_PX))

        self.maps = [prepare(m) for m in [*sides, line]]
        self.aspect = aspect
        self.pts = np.column_stack([pts, np.ones(len(pts))]).T  # (3, n)
        which = np.where(is_line, len(sides), side_of)
        self.groups = [np.flatnonzero(which == i) for i in range(len(self.maps))]
        # the lines half, the steps half (without lines all): each outline side a
        # quarter of the outline's share (a strip's short ends count as its long sides)
        n_lines = int(is_line.sum())
        step_share = 1.0 if n_lines == 0 else 0.5
        # the lines running north-south half of the lines' share, east-west the other
        # (on a strip the many along it would outweigh the few across that fix its length)
        w = np.zeros(len(is_line))
        kinds = [is_line & across, is_line & ~across]
        for kind in kinds:
            if kind.any():
                w[kind] = 0.5 / sum(k.any() for k in kinds) / int(kind.sum())
        steps = ~is_line
        outline_share = step_share * float((side_of[steps] < 4).mean())
        for i in range(4):
            sel = side_of == i
            w[sel] = outline_share / 4 / max(int(sel.sum()), 1)
        other = steps & (side_of == 4)
        w[other] = (step_share - outline_share) / max(int(other.sum()), 1)
        self.weights = [w[g].astype(np.float32) for g in self.groups]

    def score(self, quads: np.ndarray, src: np.ndarray) -> np.ndarray:
        """Per quad (k, 4, 2), its score on the maps; -1 where it is not ``_sound`` (not
        scored)."""
        sound = _sound(quads, self.aspect)
        out = np.full(len(quads), -1.0)
        if not sound.any():
            return out
        q = np.matmul(_homographies(src, quads[sound]), self.pts)  # (k, 3, n)
        with np.errstate(divide="ignore", invalid="ignore"):  # a quad folded over
            px = (q[:, :2] / q[:, 2:3] - (self.pool - 1) / 2) / self.pool
        px[~np.isfinite(px)] = -1e6
        px = px.astype(np.float32)
        total = np.zeros(len(px), np.float32)
        for m, g, w in zip(self.maps, self.groups, self.weights, strict=True):
            if len(g):
                r = cv2.remap(m, px[:, 0, g], px[:, 1, g], cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0)
                total += r @ w
        out[sound] = total
        return out


def _sound(quads: np.ndarray, aspect: float) -> np.ndarray:
    """Per quad (k, 4, 2; nw ne se sw): convex, turning clockwise on screen, its
    east-west sides to its north-south ones within what perspective makes of the board's
    ``aspect`` (width / depth), and its opposite sides alike."""
    e = quads[:, NEXT] - quads
    f = e[:, NEXT]
    cross = e[:, :, 0] * f[:, :, 1] - e[:, :, 1] * f[:, :, 0]
    length = np.linalg.norm(e, axis=2)
    ratio = (length[:, 0] + length[:, 2]) / np.maximum(length[:, 1] + length[:, 3], 1e-9)
    near = np.maximum(length[:, :2], length[:, 2:]) / np.maximum(
        np.minimum(length[:, :2], length[:, 2:]), 1e-9)  # opposite sides
    return (cross > 0).all(axis=1) & (ratio >= aspect / SHAPE_SLACK) & (
        ratio <= aspect * SHAPE_SLACK) & (near <= PERSPECTIVE_SLACK).all(axis=1)


def _pattern_search(score, x: np.ndarray, moves, step: float, least: float):
    """Pattern search: the best of ``moves(x, step)`` (an array of changes to ``x``) while
    it raises ``score`` (of a stack of candidates), at most ``MAX_ROUNDS`` moves a step,
    the step halved down to ``least``. Returns (x, its score)."""
    best = float(score(x[None])[0])
    while step >= least:
        for _ in range(MAX_ROUNDS):
            trial = x[None] + moves(x, step)
            s = score(trial)
            i = int(np.argmax(s))
            if s[i] <= best + 1e-6:
                break
            best, x = float(s[i]), trial[i]
        step /= 2
    return x, best


def _search(maps: _Maps, quad: np.ndarray, src: np.ndarray, step: float, least: float):
    """Pattern search over the quad's moves (``CORNER_MOVES``, and scaled and turned round
    its centre) by ``step`` px, the step halved down to ``least``."""
    def moves(quad, step):
        radial = quad - quad.mean(axis=0)
        radial /= max(float(np.abs(radial).max()), 1e-9)
        turn = radial[:, ::-1] * [-1, 1]
        return np.concatenate([CORNER_MOVES, np.array([radial, -radial, turn, -turn])]) * step

    return _pattern_search(lambda quads: maps.score(quads, src), quad, moves, step, least)


class _Pose:
    """The board's top face seen by a pinhole camera without distortion, its principal
    point at the frame's centre: a view is 7 numbers (rotation vector, translation in
    mm, log of the focal length in px), its corners (nw, ne, se, sw) in px of the crop
    ``align`` works on (``origin``, ``scale``)."""

    def __init__(self, geom, size: tuple[int, int], origin: np.ndarray, scale: float):
        self.obj = np.column_stack([geom.corners_mm(), np.zeros(4)])
        self.centre = (np.asarray(size, np.float64) - 1) / 2
        self.origin, self.scale = origin, scale
        self.size = size

    def corners(self, views: np.ndarray) -> np.ndarray:
        """(k, 4, 2) crop px of the views (k, 7); NaN where a corner lies behind the
        camera."""
        r, t, f = views[:, :3], views[:, 3:6], np.exp(views[:, 6])
        theta = np.linalg.norm(r, axis=1)
        k = r / np.maximum(theta, 1e-12)[:, None]
        K = np.zeros((len(views), 3, 3))
        K[:, 0, 1], K[:, 0, 2], K[:, 1, 2] = -k[:, 2], k[:, 1], -k[:, 0]
        K = K - K.transpose(0, 2, 1)
        R = (np.eye(3) + np.sin(theta)[:, None, None] * K
             + (1 - np.cos(theta))[:, None, None] * (K @ K))
        X = np.einsum("kij,nj->kni", R, self.obj) + t[:, None, :]
        z = np.where(X[..., 2] > 1e-6, X[..., 2], np.nan)
        px = f[:, None, None] * X[..., :2] / z[..., None] + self.centre
        return (px - self.origin + 0.5) * self.scale - 0.5

    def view(self, quad: np.ndarray) -> np.ndarray:
        """The view (7,) whose corners come nearest ``quad`` (crop px), of those with the
        focal lengths of ``POSE_HFOV`` (``cv2.solvePnP``, IPPE)."""
        px = ((quad + 0.5) / self.scale - 0.5 + self.origin).astype(np.float64)
        best = (np.inf, None)
        for hfov in POSE_HFOV:
            f = self.size[0] / 2 / np.tan(np.radians(hfov) / 2)
            K = np.array([[f, 0, self.centre[0]], [0, f, self.centre[1]], [0, 0, 1]])
            ok, rvec, tvec = cv2.solvePnP(self.obj, px, K, None, flags=cv2.SOLVEPNP_IPPE)
            if not ok:
                continue
            v = np.concatenate([rvec.ravel(), tvec.ravel(), [np.log(f)]])
            seen = self.corners(v[None])[0]
            if np.isnan(seen).all():  # the whole board behind the camera
                continue
            err = float(np.nanmean(np.abs(seen - quad)))
            if err < best[0]:
                best = (err, v)
        return best[1]


def _search_pose(maps: _Maps, pose: _Pose, view: np.ndarray, src: np.ndarray, step: float,
                 least: float):
    """Pattern search (as ``_search``) over the view's 7 numbers, each moved by what
    moves a corner ``step`` px at most."""
    def score(views):
        quads = pose.corners(views)
        s = maps.score(np.nan_to_num(quads, nan=-1e6), src)
        return np.where(np.isnan(quads).any(axis=(1, 2)), -1.0, s)

    eye = np.eye(len(view))[:POSE_FREE]

    def moves(view, step):
        probe = pose.corners(view[None] + 1e-4 * eye)
        reach = np.nanmax(np.abs(probe - pose.corners(view[None])), axis=(1, 2)) / 1e-4
        one = eye * (step / np.maximum(reach, 1e-9))[:, None]
        return np.concatenate([one, -one])

    return _pattern_search(score, view, moves, step, least)


def _saturated(m: np.ndarray, least: float) -> np.ndarray:
    """``m`` over its ``SATURATE`` percentile (every fourth pixel's; at least ``least``:
    a plain table's noise does not count fully), clipped to 0..1."""
    m = m.astype(np.float32)
    top = float(np.percentile(m[::4, ::4], SATURATE))
    return cv2.min(m * np.float32(1 / max(top, least)), 1.0)


def align(grey: np.ndarray, corners: np.ndarray, geom, sign: float = 0.0,
          floor: float = 0.0, rigid: bool = False,
          from_start: bool | None = None) -> tuple[np.ndarray, float, float]:
    """``corners`` (nw, ne, se, sw, image px of ``grey``, the float32 grey the fit reads)
    moved to where the board's edge model scores best (see the module doc), that score
    (0..1) and the score at the first tolerance. ``sign``: the outline's step, -1 darker
    beyond the board, +1 lighter, 0 either. A quad that scores under ``floor`` at the
    first tolerance is not searched further: ``corners`` come back with a score of 0.
    ``from_start``: whether the last level searches from ``corners`` as well (default:
    on the tiles, ``FINE_FROM_START``)."""
    pts, nrm, is_line, outline = _points(geom)
    corners = np.asarray(corners, np.float64)
    side = float(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).max())
    scale = min(1.0, WORK_PX / max(side, 1.0))
    margin = 0.25 * side + 8
    h, w = grey.shape[:2]
    x0, y0 = np.maximum(np.floor(corners.min(axis=0) - margin), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0) + margin), [w, h]).astype(int)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return corners, 0.0, 0.0
    crop = grey[y0:y1, x0:x1]
    if scale < 1.0:
        crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    quad = (corners - [x0, y0] + 0.5) * scale - 0.5
    ppm = scale * side / max(geom.width, geom.depth)
    k = int(np.clip(2 * round(1.2 * ppm) + 1, 3, 9))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    leather = geom.material == "leather"
    line = _saturated(cv2.morphologyEx(crop, cv2.MORPH_TOPHAT if leather else
                                       cv2.MORPH_BLACKHAT, kernel), LEAST_LINE)
    # steps on the image with its painted lines taken out (a line's flanks are no step)
    plain = cv2.morphologyEx(crop, cv2.MORPH_OPEN if leather else cv2.MORPH_CLOSE, kernel)
    gx = cv2.Sobel(plain, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(plain, cv2.CV_32F, 0, 1, ksize=3)
    # per outline side, the step along its outward normal (the start's); other steps
    # (the Cubes band) either way
    sides = []
    side_of = np.full(len(pts), 4)
    mm = geom.corners_mm()
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
        along = gx * d[1] - gy * d[0]  # outward: the quad runs clockwise on screen
        sides.append(_saturated(np.abs(along) if sign == 0 else np.maximum(sign * along, 0),
                                LEAST_STEP))
        e = (mm[(i + 1) % 4] - mm[i]) / np.linalg.norm(mm[(i + 1) % 4] - mm[i])
        side_of[outline & (np.abs(nrm @ np.array([-e[1], e[0]]) - 1) < 1e-6)] = i
    sides.append(_saturated(np.sqrt(gx * gx + gy * gy), LEAST_STEP))
    src = mm.astype(np.float32)
    short = float(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1).min())
    first = 0.0
    pose = _Pose(geom, (w, h), np.array([x0, y0], np.float64), scale)
    view = pose.view(quad) if rigid else None
    start = quad
    again_from_start = FINE_FROM_START and geom.material == "ceramic" \
        if from_start is None else from_start  # (module doc)
    for level, reach in enumerate(REACHES):
        r = int(round(min(reach * side * scale, SHORT_REACH * short)))
        maps = _Maps(sides, line, r, pts, side_of, is_line, nrm[:, 1] == 0,
                     geom.width / geom.depth)
        step = max(r, 1.0)
        if level < RIGID_LEVELS and view is not None:
            view, score = _search_pose(maps, pose, view, src, step, max(step / 4, 0.25))
            quad = pose.corners(view[None])[0]
        else:
            quad, score = _search(maps, quad, src, step, max(step / 4, 0.25))
            if level == len(REACHES) - 1 and level and again_from_start:
                again, s = _search(maps, start, src, step, max(step / 4, 0.25))
                if s > score:
                    quad, score = again, s
        if level == 0:
            first = score
            if score < floor:
                return corners, 0.0, first
    return (quad + 0.5) / scale - 0.5 + [x0, y0], score, first
