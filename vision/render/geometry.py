"""Solids as the painter's renderer draws them: planar faces with textures or colours.

A ``Face`` is a planar convex polygon in world millimetres. Textured faces carry a quad
(the texture's corners in the order top-left, top-right, bottom-right, bottom-left) that
maps the texture onto the face's plane; the outline may differ (a disc's top is a
polygon inside its texture square). A ``Solid`` is a convex group of faces drawn in one
go after back-face culling; solids are sorted by distance from the camera.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

#: board directions as unit vectors of the board frame (x east, y north, z up)
DIRECTIONS = {
    "up": (0, 0, 1), "down": (0, 0, -1), "north": (0, 1, 0),
    "south": (0, -1, 0), "east": (1, 0, 0), "west": (-1, 0, 0),
}
_BY_VECTOR = {v: d for d, v in DIRECTIONS.items()}


def direction_of(vec) -> str:
    """The board direction an axis-aligned unit vector points to."""
    return _BY_VECTOR[tuple(int(round(float(x))) for x in vec)]


@dataclass
class Face:
    outline: np.ndarray  # (N, 3) world polygon, convex
    normal: np.ndarray  # (3,) outward unit normal, world
    texture: np.ndarray | None = None  # (h, w, 3) float32 BGR albedo
    colour: np.ndarray | None = None  # (3,) BGR albedo when untextured
    quad: np.ndarray | None = None  # (4, 3) texture corners TL, TR, BR, BL
    gloss: float = 0.0  # specular strength
    shininess: float = 40.0
    label: str | None = None  # what is printed on it (truth)
    direction: str | None = None  # board direction it faces (truth)
    shade_grid: int = 1  # lighting samples per side (1: constant over the face)


@dataclass
class Solid:
    kind: str  # cube, die, pawn, stone, board, hand
    faces: list[Face]
    center: np.ndarray  # world, for depth sorting
    rest_z: float = 0.0  # height of the surface it stands on (for its shadow)
    height: float = 0.0  # mm above rest_z of its top (shadow softness)
    footprint: np.ndarray | None = None  # (N, 3) polygon on its rest plane
    info: dict = field(default_factory=dict)
    casts_shadow: bool = True
    id: int = -1

    def points(self) -> np.ndarray:
        return np.vstack([f.outline for f in self.faces])


def rot_z(deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


def _rotations() -> list[np.ndarray]:
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3))
            for i, (p, s) in enumerate(zip(perm, signs, strict=True)):
                m[i, p] = s
            if round(np.linalg.det(m)) == 1:
                out.append(m)
    return out


#: the 24 rotations of a cube as matrices (body -> board frame)
ROTATIONS: list[np.ndarray] = _rotations()


def body_face_up(normal) -> np.ndarray:
    """Which way is 'up' for what is printed on a body face: +y on the top and bottom
    faces, +z on the side faces (a symbol stands upright when the cube is at home)."""
    n = np.asarray(normal, np.float64)
    return np.array([0.0, 1.0, 0.0]) if abs(n[2]) > 0.5 else np.array([0.0, 0.0, 1.0])


def box_faces(center, half, R, specs: dict) -> list[Face]:
    """Faces of a box. ``half``: half extents along body x, y, z. ``R``: body -> world.

    ``specs`` maps a body normal (tuple, e.g. (0, 0, 1)) to a dict of Face fields
    (texture or colour, gloss, label...); a face's texture is printed upright along
    ``body_face_up`` (or ``spec['up']``) as seen from outside.
    """
    center = np.asarray(center, np.float64)
    half = np.asarray(half, np.float64)
    specs = [(n, dict(spec)) for n, spec in specs.items()]
    N = np.array([n for n, _ in specs], np.float64)
    U = np.array([spec.pop("up") if "up" in spec else body_face_up(n) for n, spec in specs],
                 np.float64)
    Rr = np.empty_like(U)  # right, seen from outside: U x N (np.cross is slow on small arrays)
    Rr[:, 0] = U[:, 1] * N[:, 2] - U[:, 2] * N[:, 1]
    Rr[:, 1] = U[:, 2] * N[:, 0] - U[:, 0] * N[:, 2]
    Rr[:, 2] = U[:, 0] * N[:, 1] - U[:, 1] * N[:, 0]
    # all faces at once: centres and the half vectors right and up, in the world
    C = center + (N * np.abs(N @ half)[:, None]) @ R.T
    RU = (Rr * np.abs(Rr @ half)[:, None]) @ R.T
    UU = (U * np.abs(U @ half)[:, None]) @ R.T
    quads = np.stack([C - RU + UU, C + RU + UU, C + RU - UU, C - RU - UU], 1)
    normals = N @ R.T
    return [Face(outline=quads[k], normal=normals[k], quad=quads[k], **spec)
            for k, (_, spec) in enumerate(specs)]


def prism_faces(base_center, radius_bottom, radius_top, height, sides: int, colour,
                top_spec: dict | None = None, gloss=0.0, shininess=30.0,
                yaw: float = 0.0) -> list[Face]:
    """A frustum (or cylinder) standing on ``base_center``: ``sides`` side quads and a top.

    ``top_spec`` may give the top a texture: its quad is the square around the top disc.
    """
    b = np.asarray(base_center, np.float64)
    ang = np.radians(yaw) + np.arange(sides) * 2 * np.pi / sides
    ring = np.stack([np.cos(ang), np.sin(ang), np.zeros(sides)], 1)
    lo = b + ring * radius_bottom
    hi = b + ring * radius_top + np.array([0, 0, height])
    faces = []
    slope = (radius_bottom - radius_top) / max(height, 1e-6)
    for i in range(sides):
        j = (i + 1) % sides
        mid = (ring[i] + ring[j]) / 2
        n = mid / np.linalg.norm(mid) + np.array([0, 0, slope])
        n /= np.linalg.norm(n)
        faces.append(Face(outline=np.array([lo[i], lo[j], hi[j], hi[i]]), normal=n,
                          colour=np.asarray(colour, np.float32), gloss=gloss,
                          shininess=shininess))
    top = Face(outline=hi.copy(), normal=np.array([0.0, 0, 1]),
               colour=np.asarray(colour, np.float32), gloss=gloss, shininess=shininess)
    if top_spec:
        c = b + np.array([0, 0, height])
        rt = radius_top
        yaw_r = rot_z(yaw)
        ex, ey = yaw_r[:, 0] * rt, yaw_r[:, 1] * rt
        top.quad = np.array([c - ex + ey, c + ex + ey, c + ex - ey, c - ex - ey])
        for k, v in top_spec.items():
            setattr(top, k, v)
    faces.append(top)
    return faces


def sphere_faces(center, radius, colour, rings: int = 5, segments: int = 10,
                 gloss=0.0, shininess=30.0) -> list[Face]:
    """A UV sphere as flat quads (upper hemisphere and a little below: what a camera
    above the table can see)."""
    c = np.asarray(center, np.float64)
    lat = np.linspace(math.pi / 2, -math.pi / 6, rings + 1)
    lon = np.arange(segments + 1) * 2 * math.pi / segments
    faces = []
    for i in range(rings):
        for j in range(segments):
            pts = []
            for a, b in ((lat[i], lon[j]), (lat[i], lon[j + 1]),
                         (lat[i + 1], lon[j + 1]), (lat[i + 1], lon[j])):
                pts.append(c + radius * np.array([math.cos(a) * math.cos(b),
                                                  math.cos(a) * math.sin(b), math.sin(a)]))
            pts = np.array(pts)
            if np.linalg.norm(pts[0] - pts[1]) < 1e-9:
                pts = pts[1:]
            n = pts.mean(0) - c
            n /= np.linalg.norm(n)
            faces.append(Face(outline=pts, normal=n, colour=np.asarray(colour, np.float32),
                              gloss=gloss, shininess=shininess))
    return faces


def shadow_outline(corners: np.ndarray, p0: np.ndarray, n: np.ndarray, lamp: np.ndarray,
                   lamp_height: float) -> tuple[np.ndarray, float] | None:
    """The shadow a box (its ``corners``) casts from a point ``lamp``, ``lamp_height`` above
    the plane through ``p0`` with unit normal ``n``, onto that plane: 3-D points whose
    convex hull it is, and the greatest height over the plane of the box's corners that
    cast it (the penumbra grows with it); None when no part of the box lies between the
    plane and the lamp. A box crossing the plane adds the points where its edges cut it."""
    dv = (corners - p0) @ n
    front = (dv > 1e-6) & (dv < 0.9 * lamp_height)  # between the plane and the lamp
    if not front.any():
        return None
    F, dF = corners[front], dv[front]
    poly = [lamp + (F - lamp) * (lamp_height / (lamp_height - dF))[:, None]]
    if not front.all():  # the box crosses the plane: where it cuts it
        B, dB = corners[~front], dv[~front]
        t = (dF[:, None] / (dF[:, None] - dB[None]))[..., None]
        poly.append((F[:, None] + t * (B[None] - F[:, None])).reshape(-1, 3))
    return np.vstack(poly), float(dF.max())
