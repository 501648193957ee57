"""Board localisation without markers: the four corners of the board's top face.

Steps (``find_board``):

1. At reduced resolution (``FIND_WIDTH`` pixels wide), candidate regions: the Otsu
   threshold of ``material_score`` (glazed ceramic is bright and unsaturated) and the
   regions Canny edges enclose at a few thresholds (``_candidate_masks``).
2. A region whose convex hull reduces to a plausible convex quadrilateral (size, fill,
   side ratio within what the board's aspect allows under perspective, gradient along
   its outline) and on which the board's painted field outlines show
   (``field_contrast``) is a candidate; the best weighed one wins (``coarse_quad``).
3. At full resolution, each side is refined: along the side's normal the innermost
   strong fall of brightness whose outside stays dark is found on many short profiles
   (sub-pixel by a parabola through the gradient peak), a robust line is fitted to them,
   kept only if it shows a stronger step than the old side, and adjacent lines intersect
   in the sub-pixel corners (``refine``, three passes of narrowing reach).
4. The corners are named (``name_corners``): the board's long sides run east-west
   (aspect ratio); south is the candidate side nearest the image bottom (the camera
   stands on the south side) or, when perspective shows it, the nearer (longer) one.

Sizes come from the renderer's board specification (``vision.render.scene.board_spec``),
the one source of the games' board geometry; nothing is rendered at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

FIND_WIDTH = 640  # pixels; finding works on a frame scaled to this width
CORNER_NAMES = ("nw", "ne", "se", "sw")
PERSPECTIVE_RATIO = 1.15  # opposite sides this unequal: the longer one is nearer
MIN_FILL = 0.68  # region area / its quad area (pieces on the edge notch the region)
MIN_FIELD_CONTRAST = 0.1  # below this share of field outlines seen, it is not the board
FIELD_PRIOR = 0.05  # a candidate's weight before its field outlines are seen


@dataclass(frozen=True)
class Geometry:
    """A game's board in millimetres: board frame origin at the centre, u east, v north."""

    game: str
    material: str
    width: float
    depth: float
    thickness: float
    cells: tuple[tuple[str, float, float, float], ...]  # (name, u, v, half side)

    @property
    def aspect(self) -> float:
        return max(self.width, self.depth) / min(self.width, self.depth)

    def corners_mm(self) -> np.ndarray:
        """Top face corners (u, v) in the order nw, ne, se, sw."""
        w, d = self.width / 2, self.depth / 2
        return np.array([(-w, d), (w, d), (w, -d), (-w, -d)], np.float64)


def geometry(game: str) -> Geometry:
    """The board geometry of ``game`` (raises ``InvalidPosition`` for an unknown game)."""
    from vision.render.scene import board_spec

    s = board_spec(game)
    return Geometry(game, s.material, s.width, s.depth, s.thickness,
                    tuple((c.name, c.u, c.v, c.half) for c in s.cells))


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
        prev, nxt = np.roll(pts, 1, axis=0), np.roll(pts, -1, axis=0)
        a, b = pts - prev, nxt - prev
        area = np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])
        pts = np.delete(pts, int(np.argmin(area)), axis=0)
    return pts


def _plausible(quad: np.ndarray, contour_area: float, geom: Geometry, frame_area: float):
    """A score (bigger is better) or None when the quad cannot be the board."""
    area = cv2.contourArea(quad.astype(np.float32))
    if area < frame_area * 0.002 or area > frame_area * 0.8:
        return None
    if not cv2.isContourConvex(quad.astype(np.float32)):
        return None
    fill = contour_area / area
    if fill < MIN_FILL:
        return None
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    a = (sides[0] + sides[2]) / 2
    b = (sides[1] + sides[3]) / 2
    ratio = max(a, b) / max(min(a, b), 1e-6)
    # perspective foreshortens one direction by up to ~1/cos(65 deg)
    if ratio > geom.aspect * 2.6 or ratio < geom.aspect / 2.6:
        return None
    return float(np.sqrt(area)) * fill


def _candidate_masks(small: np.ndarray, geom: Geometry):
    """Binary masks whose regions may be the board top: the material's colour (Otsu on
    ``material_score``), and the regions that Canny edges enclose at a few thresholds."""
    score = cv2.GaussianBlur(material_score(small, geom.material), (5, 5), 0)
    _, mask = cv2.threshold(score, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    yield cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel),
                           cv2.MORPH_OPEN, kernel)
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    for lo in (12, 24, 48):
        edges = cv2.dilate(cv2.Canny(grey, lo, lo * 2.5), np.ones((3, 3), np.uint8))
        yield cv2.bitwise_not(edges)


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


def _outline_points(geom: Geometry, grow: float) -> np.ndarray:
    """Points (mm) along every field's outline, pushed out by ``grow`` mm."""
    t = np.linspace(-0.8, 0.8, 7)
    pts = []
    for _, u, v, half in geom.cells:
        h = half + grow
        for a in t * h:
            pts += [(u + a, v + h), (u + a, v - h), (u + h, v + a), (u - h, v + a)]
    return np.asarray(pts, np.float64)


def field_contrast(grey: np.ndarray, quad: np.ndarray, geom: Geometry) -> float:
    """How well the fields' painted outlines show where ``quad`` (named corners, px of
    ``grey``) puts them: the share of outline points (darkest within 1 mm) darker than
    the same 3.5 mm inside (a plain surface scores nothing). The board's own pattern, so
    a cube top, a plank or a plain rectangle is not taken for the board."""
    H = cv2.getPerspectiveTransform(geom.corners_mm().astype(np.float32),
                                    quad.astype(np.float32))

    def sample(pts):
        px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)
        px = px.astype(np.float32).reshape(1, -1, 2)
        return cv2.remap(grey, px[..., 0], px[..., 1], cv2.INTER_LINEAR).ravel()

    def darkest(grow: float) -> np.ndarray:  # within 1 mm of the outline grown by ``grow``
        return np.min([sample(_outline_points(geom, grow + g))
                       for g in (-1.0, -0.5, 0.0, 0.5, 1.0)], axis=0)

    return float(np.mean(darkest(-3.5) - darkest(0.0) > 12.0))


def coarse_quad(image: np.ndarray, geom: Geometry) -> np.ndarray | None:
    """The board's quadrilateral (4, 2) in full-resolution px, unordered corners."""
    h, w = image.shape[:2]
    scale = FIND_WIDTH / w
    small = cv2.resize(image, (FIND_WIDTH, int(round(h * scale))), interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    full_grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    grad = cv2.dilate(cv2.magnitude(gx, gy), np.ones((5, 5), np.uint8))
    grad /= max(float(np.percentile(grad, 99)), 1e-6)
    frame_area = float(grey.shape[0] * grey.shape[1])
    best, best_score = None, 0.0
    for mask in _candidate_masks(small, geom):
        contours, _ = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            c_area = cv2.contourArea(contour)
            if c_area < frame_area * 0.002 or c_area > frame_area * 0.8:
                continue
            quad = _quad_from_hull(cv2.convexHull(contour))
            if quad is None:
                continue
            s = _plausible(quad, c_area, geom, frame_area)
            if s is None:
                continue
            support = _edge_support(grad, quad)
            if support < 0.5:
                continue
            named = name_corners((quad + 0.5) / scale - 0.5, geom)
            contrast = field_contrast(full_grey, named, geom)
            if contrast < MIN_FIELD_CONTRAST:
                continue
            s *= support * (FIELD_PRIOR + contrast) ** 2
            if s > best_score:
                best, best_score = quad, s
    if best is None:
        return None
    return (best + 0.5) / scale - 0.5


def _first_steps(prof: np.ndarray) -> np.ndarray:
    """Per profile (row, inside to outside), the offset in samples (sub-pixel) of the
    innermost strong fall whose outside stays dark: the board top's edge, not a thin
    field line painted on it; NaN where there is none."""
    n, m = prof.shape
    drop = prof[:, :-1] - prof[:, 1:]  # fall in brightness between k and k + 1
    top = drop.max(axis=1, keepdims=True)
    k = np.arange(1, m - 2)  # candidate falls with both neighbours
    g0, g1, g2 = drop[:, k - 1], drop[:, k], drop[:, k + 1]
    # brightness 2..5 samples beyond the fall must not come back above its midpoint
    padded = np.concatenate([prof, np.full((n, 6), -np.inf, prof.dtype)], axis=1)
    beyond = np.max([padded[:, k + j] for j in range(2, 6)], axis=0)
    mid = (prof[:, k] + prof[:, k + 1]) / 2
    valid = (g1 >= 0.5 * top) & (g1 >= g0) & (g1 >= g2) & (beyond <= mid) & (top >= 4.0)
    first = np.argmax(valid, axis=1)
    rows = np.arange(n)
    a, b, c = g0[rows, first], g1[rows, first], g2[rows, first]
    denom = a - 2 * b + c
    sub = np.where(np.abs(denom) > 1e-6, 0.5 * (a - c) / np.where(denom == 0, 1, denom), 0)
    off = k[first] + 0.5 + np.clip(sub, -0.5, 0.5)
    return np.where(valid.any(axis=1), off, np.nan)


def _edge_points(grey: np.ndarray, p: np.ndarray, q: np.ndarray, inside: np.ndarray,
                 reach: float) -> np.ndarray:
    """Sub-pixel points of the strongest step across the side p-q (profiles along its
    normal, from ``reach`` px inside to ``reach`` px outside)."""
    d = q - p
    length = float(np.linalg.norm(d))
    d /= max(length, 1e-9)
    n = np.array([-d[1], d[0]])
    if np.dot(inside - (p + q) / 2, n) > 0:
        n = -n  # n points outward
    count = int(np.clip(length / 4, 8, 80))
    t = np.linspace(0.12, 0.88, count) * length
    offsets = np.arange(-reach, reach + 1, 1.0)
    xs = p[0] + d[0] * t[:, None] + n[0] * offsets[None, :]
    ys = p[1] + d[1] * t[:, None] + n[1] * offsets[None, :]
    prof = cv2.remap(grey, xs.astype(np.float32), ys.astype(np.float32), cv2.INTER_LINEAR)
    off = _first_steps(prof)
    strong = ~np.isnan(off)
    off = offsets[0] + np.nan_to_num(off)
    pts = np.stack([p[0] + d[0] * t + n[0] * off, p[1] + d[1] * t + n[1] * off], axis=1)
    return pts[strong]


def _intersect(l1, l2) -> np.ndarray | None:
    (vx1, vy1, x1, y1), (vx2, vy2, x2, y2) = l1, l2
    a = np.array([[vx1, -vx2], [vy1, -vy2]], np.float64)
    if abs(np.linalg.det(a)) < 1e-6:
        return None
    s, _ = np.linalg.solve(a, np.array([x2 - x1, y2 - y1], np.float64))
    return np.array([x1 + s * vx1, y1 + s * vy1])


def _fit_line(pts: np.ndarray) -> np.ndarray:
    """(vx, vy, x0, y0) of a robust line through ``pts``: a Huber fit, then refits on the
    points near it (a shadow or a piece pulls the first fit only part of the way)."""
    for _ in range(3):
        line = cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(4)
        line = line.astype(np.float64)
        dist = np.abs((pts[:, 0] - line[2]) * line[1] - (pts[:, 1] - line[3]) * line[0])
        near = dist <= max(1.5, 2.0 * float(np.median(dist)))
        if near.sum() < 5 or near.all():
            break
        pts = pts[near]
    return line


def _side_strength(grey: np.ndarray, line: np.ndarray, p: np.ndarray, q: np.ndarray,
                   centre: np.ndarray) -> float:
    """Step strength (``_step_strength``) of ``line`` between the feet of p and q on it."""
    d = line[:2] / np.linalg.norm(line[:2])
    o = line[2:]
    a, b = o + d * np.dot(p - o, d), o + d * np.dot(q - o, d)
    n = np.array([d[1], -d[0]])
    if np.dot((a + b) / 2 - centre, n) < 0:
        n = -n
    return float(_step_strength(grey, a[None], b[None], n[None, None, :])[0])


def _refine_once(grey: np.ndarray, quad: np.ndarray, reach: float) -> np.ndarray:
    centre = quad.mean(axis=0)
    lines = []
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        pts = _edge_points(grey, p.copy(), q.copy(), centre, reach)
        old = np.concatenate([q - p, p])
        if len(pts) < 5:  # no edge seen: keep the side as it was
            lines.append(old)
            continue
        line = _fit_line(pts)
        # do no harm: keep the old side when the fit shows a weaker glaze-to-outside step
        if _side_strength(grey, line, p, q, centre) < _side_strength(grey, old, p, q, centre):
            line = old
        lines.append(line)
    out = quad.copy()
    for i in range(4):
        c = _intersect(lines[i - 1], lines[i])
        if c is not None and np.linalg.norm(c - quad[i]) <= 3 * reach:
            out[i] = c
    return out


def _step_strength(grey: np.ndarray, p: np.ndarray, q: np.ndarray, n: np.ndarray):
    """Per candidate line p[k]-q[k] (outward normal n): mean score 1..3 px inside minus
    mean score 2..6 px outside (a thin painted line just outside barely counts)."""
    t = np.linspace(0.1, 0.9, 24)
    base = p[:, None, :] + (q - p)[:, None, :] * t[None, :, None]  # (k, 24, 2)
    inside = [base - n * d for d in (1.0, 2.0, 3.0)]
    outside = [base + n * d for d in (2.0, 3.0, 4.0, 5.0, 6.0)]

    def mean(points):
        pts = np.concatenate(points, axis=1).astype(np.float32)
        return cv2.remap(grey, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR).mean(axis=1)

    return mean(inside) - mean(outside)


def refine(image: np.ndarray, quad: np.ndarray, geom: Geometry) -> np.ndarray:
    """Corners refined by fitting a line to each side's brightness step, full resolution:
    a wide search first, then narrower ones around the last fit."""
    grey = cv2.GaussianBlur(material_score(image, geom.material), (3, 3), 0).astype(np.float32)
    span = float(np.sqrt(cv2.contourArea(quad.astype(np.float32))))
    reach = float(np.clip(span * 0.15, 8, 40))
    for r in (reach, max(reach / 3, 4.0), 3.0):
        quad = _refine_once(grey, quad, r)
    return quad


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


def find_board(image: np.ndarray, geom: Geometry) -> BoardFix | None:
    """The board's top-face corners in ``image`` (BGR uint8), or None when none is seen."""
    quad = coarse_quad(image, geom)
    if quad is None:
        return None
    quad = name_corners(quad, geom)
    fine = refine(image, quad, geom)
    area, fine_area = (cv2.contourArea(q.astype(np.float32)) for q in (quad, fine))
    if not cv2.isContourConvex(fine.astype(np.float32)) or abs(fine_area / area - 1) > 0.3:
        fine = quad  # the sides' fits went astray: keep the coarse corners
    return BoardFix(fine, quad)


def homography(fix: BoardFix, geom: Geometry) -> np.ndarray:
    """3x3 homography from board-top millimetres (u east, v north) to image px."""
    return cv2.getPerspectiveTransform(geom.corners_mm().astype(np.float32),
                                       fix.corners.astype(np.float32)).astype(np.float64)
