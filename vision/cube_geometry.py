"""The e-SOLO-e cube as the camera sees it: its faces in the board frame, which of them a
camera sees, how a face crop is cut, and which orientations a set of face readings allows.

Board frame (as ``vision.grid``): u east, v north, z up, millimetres, z = 0 the board top.
A cube of stack level ``k`` (0 = bottom) stands on z = 18 k.

**Where the prints point.** The symbol model's rotation head says how a symbol is turned in
its crop; naming the cube's orientation from it needs the direction each print's top points
to on the physical cube. That is a fact about the piece (the cube set's faces come from
``rules.cube``, read only): on the cube in its set's home orientation (sakura up, fuji
south) the up and down prints' tops point north and the side prints' tops point up, as
``vision.render.geometry.body_face_up`` draws them. A real set printed otherwise needs this
table changed (``PRINT_UP``), nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from rules.cube import BLANK, CUBE_SETS, FACES

CUBE_MM = 18.0
VECTORS = {"up": (0, 0, 1), "down": (0, 0, -1), "north": (0, 1, 0), "south": (0, -1, 0),
           "east": (1, 0, 0), "west": (-1, 0, 0)}
SIDE_FACES = ("north", "south", "east", "west")


def _cross(a, b) -> np.ndarray:
    """a x b of two 3-vectors (numpy's cross is slow on single vectors)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]], float)


def print_up(normal) -> np.ndarray:
    """Where the top of the print on the home cube's face with ``normal`` points."""
    return np.array([0.0, 1.0, 0.0]) if abs(normal[2]) > 0.5 else np.array([0.0, 0.0, 1.0])


def _rotation_matrices() -> list[np.ndarray]:
    out = []
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        for signs in np.ndindex(2, 2, 2):
            m = np.zeros((3, 3))
            for i, p in enumerate(perm):
                m[i, p] = 1 - 2 * signs[i]
            if round(np.linalg.det(m)) == 1:
                out.append(m)
    return out


@dataclass(frozen=True)
class Orientation:
    """One way a cube of a set can stand: the value on each board face (in ``FACES``
    order) and, for a symbol, the board direction its print's top points to."""

    faces: tuple[str, ...]
    tops: tuple[tuple[int, int, int] | None, ...]


@cache
def orientations(cube_set: str) -> tuple[Orientation, ...]:
    """The 24 orientations of ``cube_set`` (rules.cube.CUBE_SETS) with print directions."""
    home = dict(zip(FACES, CUBE_SETS[cube_set].home, strict=True))
    by_vec = {v: d for d, v in VECTORS.items()}
    out = []
    for R in _rotation_matrices():  # body (home) -> board
        faces, tops = [], []
        for d in FACES:
            body = tuple(int(round(x)) for x in R.T @ np.array(VECTORS[d], float))
            label = home[by_vec[body]]
            faces.append(label)
            tops.append(None if label == BLANK else
                        tuple(int(round(x)) for x in R @ print_up(body)))
        out.append(Orientation(tuple(faces), tuple(tops)))
    return tuple(out)


def face_points(u: float, v: float, level: int, yaw: float, direction: str) -> np.ndarray:
    """(4, 3) corners of a cube's face in the board frame, clockwise as seen from outside.

    ``(u, v)``: the cube's centre on the board, ``yaw``: its turn (radians, anticlockwise
    seen from above)."""
    n = np.array(VECTORS[direction], float)
    a = np.array([0.0, 0.0, 1.0]) if direction in SIDE_FACES else np.array([0.0, 1.0, 0.0])
    b = _cross(a, n)  # right of ``a`` seen from outside
    r = CUBE_MM / 2
    local = np.array([r * n + r * (sa * a + sb * b) for sa, sb in
                      ((1, -1), (1, 1), (-1, 1), (-1, -1))])
    c, s = np.cos(yaw), np.sin(yaw)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    centre = np.array([u, v, (level + 0.5) * CUBE_MM])
    return local @ rot.T + centre


def turned(direction: str, yaw: float) -> np.ndarray:
    """The outward normal of a cube face turned by ``yaw``."""
    c, s = np.cos(yaw), np.sin(yaw)
    x, y, z = VECTORS[direction]
    return np.array([c * x - s * y, s * x + c * y, z], float)


def crop_order(image_pts: np.ndarray) -> list[int]:
    """The training crops' corner order (``vision.render.crops``): clockwise in the image
    from the corner with the smallest x + y."""
    c = image_pts.mean(0)
    order = list(np.argsort(np.arctan2(image_pts[:, 1] - c[1], image_pts[:, 0] - c[0])))
    k = order.index(int(np.argmin(image_pts[:, 0] + image_pts[:, 1])))
    return order[k:] + order[:k]


def crop_up(board_pts: np.ndarray, order: list[int]) -> tuple[int, int, int]:
    """The board direction (axis) the crop's top points to, for corners in ``order``."""
    p = board_pts[order]
    up = (p[0] + p[1]) / 2 - (p[2] + p[3]) / 2
    i = int(np.argmax(np.abs(up)))
    out = [0, 0, 0]
    out[i] = int(np.sign(up[i]))
    return tuple(out)


def rotation_top(up: tuple[int, int, int], normal: tuple[int, int, int], quarter_turns: int):
    """The board direction of a print's top turned ``quarter_turns`` clockwise (seen from
    outside the face) from ``up``."""
    t = np.array(up, float)
    n = np.array(normal, float)
    for _ in range(quarter_turns % 4):
        t = _cross(t, n)
    return tuple(int(round(x)) for x in t)


def warp(image: np.ndarray, image_pts: np.ndarray, order: list[int], size: int) -> np.ndarray:
    """The face with corners ``image_pts`` warped to a ``size`` square, in ``order``."""
    n = size - 1
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    M = cv2.getPerspectiveTransform(image_pts[order].astype(np.float32), dst)
    return cv2.warpPerspective(image, M, (size, size), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def boxes_mask(shape: tuple, pose, boxes: list[tuple], dist=None) -> np.ndarray:
    """Bool image mask (``shape``: the image's) of what the upright ``boxes`` ((u, v,
    half side, z0, z1) board frame mm) cover as the camera at ``pose`` (a
    ``vision.grid.BoardPose``; ``dist`` its lens distortion where given) sees them: each
    box's projected corners' convex hull. The readers' ``covered``: pieces leaning across
    the board's edge in the image, which ``vision.occlusion.edge_occlusion`` ignores."""
    from vision.stack_height import box, project  # (it imports this module)

    mask = np.zeros(shape[:2], np.uint8)
    for u, v, half, z0, z1 in boxes:
        corners = project(pose, box(u, v, half, z0, z1), dist)
        cv2.fillConvexPoly(mask, cv2.convexHull(np.round(corners).astype(np.int32)), 1)
    return mask.astype(bool)


def hidden(points: np.ndarray, camera: np.ndarray, boxes: list[tuple]) -> np.ndarray:
    """Per point (board frame, (N, 3)): whether its line of sight to ``camera`` passes
    through one of ``boxes`` ((u0, u1, v0, v1, z0, z1)), by the slab test."""
    if not boxes:
        return np.zeros(len(points), bool)
    s = np.asarray(points, float)[:, None, :]
    d = (camera - np.asarray(points, float))[:, None, :]
    b = np.asarray(boxes, float)
    lo, hi = b[None, :, 0::2], b[None, :, 1::2]
    with np.errstate(divide="ignore", invalid="ignore"):
        t0, t1 = (lo - s) / d, (hi - s) / d
    parallel = np.abs(d) < 1e-12
    inside = (s >= lo) & (s <= hi)
    enter = np.where(parallel, np.where(inside, -np.inf, np.inf), np.minimum(t0, t1))
    leave = np.where(parallel, np.where(inside, np.inf, -np.inf), np.maximum(t0, t1))
    return (np.maximum(enter.max(-1), 1e-6) <= np.minimum(leave.min(-1), 1.0)).any(1)


def hidden_fraction(points: np.ndarray, camera: np.ndarray, boxes: list[tuple]) -> float:
    """Share of sample points on a face (``points``: its 4 corners, board frame) whose line
    of sight to ``camera`` passes through one of ``boxes`` (``hidden``)."""
    if not boxes:
        return 0.0
    centre = points.mean(0)
    samples = np.array([centre] + [centre + f * (p - centre) for f in (0.2, 0.6, 0.9)
                                   for p in points])
    return float(hidden(samples, camera, boxes).mean())


def given(masses: dict, confident: float) -> tuple[dict, dict]:
    """(faces, probability of each given face): per direction the value of most weight
    (``face_masses``) where it holds at least ``confident`` of it, else None (never a
    guess)."""
    faces, probs = {}, {}
    for d, mass in masses.items():
        value, p = max(mass.items(), key=lambda kv: kv[1])
        faces[d] = value if p >= confident else None
        if faces[d] is not None:
            probs[d] = p
    return faces, probs


def face_masses(evidence: list[tuple[str, dict, dict | None]], cube_set: str,
                blank_up: float = 1.0) -> tuple[dict, int]:
    """Per direction, each face value's share of the orientations' weight, and the number
    of orientations still open above 1 % of the weight: the faces of one cube weighed
    from the faces read (``given`` then names them).

    ``evidence``: per face read, (direction, {value: probability}, {board direction of the
    print's top: probability} or None). Each of the 24 orientations is weighed by the
    product of the readings' probabilities (a blank face's turn is not seen: 1/4 for any).
    ``blank_up``: the prior weight of the 12 orientations with a blank face up against the
    others' 1 (1/3: a blank face up, which the rules forbid, as likely as each symbol up,
    not three times as likely)."""
    options = orientations(cube_set)
    logw = np.array([np.log(blank_up) if o.faces[0] == BLANK else 0.0 for o in options])
    for direction, labels, tops in evidence:
        i = FACES.index(direction)
        for k, o in enumerate(options):
            value = o.faces[i]
            p = labels.get(value, 0.0)
            if tops is not None:  # a blank face's turn is not seen: any of four
                p *= 0.25 if value == BLANK else tops.get(o.tops[i], 0.0)
            logw[k] += np.log(max(p, 1e-12))
    w = np.exp(logw - logw.max())
    w /= w.sum()
    masses: dict[str, dict[str, float]] = {}
    for i, d in enumerate(FACES):
        mass = masses.setdefault(d, {})
        for k, o in enumerate(options):
            mass[o.faces[i]] = mass.get(o.faces[i], 0.0) + float(w[k])
    return masses, int(np.sum(w > 0.01))
