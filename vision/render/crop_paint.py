"""A lean painter for training crops: box-shaped pieces on a board on a table, drawn at
crop size with a few vectorised numpy and OpenCV calls a face.

The general painter (draw.Painter) serves any scene and camera: every solid, a coverage
mask per face drawn at four times the resolution, a lighting grid per big face, shadows at
half resolution and a pass over every pair of pieces for piece-on-piece shadows. A crop
sees a handful of boxes (cubes, dice, stones) near its piece on one plane, so here:

- every face's texture is kept as an 8-bit BGRA mip pyramid (alpha 255); one
  ``warpPerspective`` of the right level with a transparent border gives the face's
  colour and its anti-aliased coverage at once (premultiplied), and one ``cv2.transform``
  lights it (diffuse and highlight of the face's centre, as draw.Lighting does for small
  faces);
- the lighting of all faces is computed in one go (draw.Lighting's model: point lamps
  with inverse-square falloff, Blinn-Phong highlights, a hemispherical ambient);
- the table and the board's top are lit from a small grid of the crop's pixels on their
  plane (the glaze's glare included);
- drop shadows are each lamp's projection of every box onto its rest plane, filled,
  blurred by the penumbra; contact shadows round the footprints; neighbours' shadows
  (the part of a box between a face's plane and the lamp, projected onto that plane) are
  drawn on the faces of the crop's own piece, the one its labels are about.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from vision.render.camera import Camera
from vision.render.geometry import body_face_up, shadow_outline

MIP_LEVELS = 5
_D3 = np.arange(3)
BOX_NORMALS = ((0, 0, 1), (0, 0, -1), (0, 1, 0), (0, -1, 0), (1, 0, 0), (-1, 0, 0))
_NORMALS = np.array(BOX_NORMALS, np.float64)


def mips(texture: np.ndarray, levels: int = MIP_LEVELS) -> tuple[np.ndarray, ...]:
    """float32 BGR (0..1) -> 8-bit BGRA images, each half the one before (alpha 255)."""
    bgr = cv2.convertScaleAbs(texture, alpha=255.0)
    out = [cv2.merge([*cv2.split(bgr), np.full(bgr.shape[:2], 255, np.uint8)])]
    for _ in range(levels - 1):
        h, w = out[-1].shape[:2]
        if min(h, w) < 8:
            break
        out.append(cv2.resize(out[-1], (w // 2, h // 2), interpolation=cv2.INTER_AREA))
    return tuple(out)


@lru_cache(maxsize=1)
def plain() -> tuple[np.ndarray, ...]:
    """A white texture for faces of one colour (the colour is the face's tint)."""
    return mips(np.ones((64, 64, 3), np.float32))


@lru_cache(maxsize=8)
def _body_quads(half: tuple[float, float, float]) -> np.ndarray:
    """(6, 4, 3) corners (TL, TR, BR, BL of each face's texture, upright as
    geometry.box_faces prints it) of a box of half extents ``half``, body frame."""
    h = np.array(half, np.float64)
    out = []
    for n in BOX_NORMALS:
        N = np.array(n, np.float64)
        U = body_face_up(N)
        Rr = np.cross(U, N)
        C, RU, UU = N * abs(N @ h), Rr * abs(Rr @ h), U * abs(U @ h)
        out.append([C - RU + UU, C + RU + UU, C + RU - UU, C - RU - UU])
    q = np.array(out)
    q.setflags(write=False)
    return q


@dataclass(eq=False)
class Box:
    """A box-shaped piece: faces in BOX_NORMALS order (body frame)."""

    center: np.ndarray  # world mm
    R: np.ndarray  # body -> world
    half: tuple[float, float, float]
    textures: list  # per face: a mip pyramid (``mips``)
    material: np.ndarray  # (6, 5) per face: gloss, shininess, albedo factor B, G, R
    rest_z: float
    group: object = None  # boxes of one group (a stack) do not shade each other
    skip: tuple = ()  # faces drawn otherwise (the board's top)
    quads: np.ndarray = field(init=False)  # (6, 4, 3) world
    normals: np.ndarray = field(init=False)  # (6, 3) world

    def __post_init__(self):
        self.quads = _body_quads(self.half) @ self.R.T + self.center
        self.normals = _NORMALS @ self.R.T

    def corners(self) -> np.ndarray:
        """The eight corners (world)."""
        return self.quads[:2].reshape(8, 3)  # the top and bottom faces hold all eight

    def footprint(self) -> np.ndarray:
        return self.quads[1]  # the bottom face


def material(gloss, shininess, tint=(1.0, 1.0, 1.0)) -> np.ndarray:
    """A box's ``material`` (6, 5): each argument one value or one per face (``tint``:
    the albedo factor, BGR, 1 for a texture's own colours)."""
    m = np.empty((6, 5))
    m[:, 0], m[:, 1], m[:, 2:] = gloss, shininess, tint
    m.setflags(write=False)
    return m


class Light:
    """draw.Lighting's model, vectorised over many points and normals at once."""

    def __init__(self, lamps, ambient, ref, eye):
        self.P = np.array([lp.position for lp in lamps], np.float64)  # (L, 3)
        self.C = np.array([lp.colour for lp in lamps], np.float64)
        self.radius = [float(lp.radius) for lp in lamps]
        self.ambient = np.asarray(ambient, np.float64)
        self.eye = np.asarray(eye, np.float64)
        ref = np.asarray(ref, np.float64)
        self.d0 = np.linalg.norm(self.P - ref, axis=1)
        at_ref = self.C * np.clip((self.P[:, 2] - ref[2]) / self.d0, 0, None)[:, None]
        total = self.ambient + at_ref.sum(0)
        self.scale = 1.0 / float(total.max())
        self.shares = at_ref.mean(1) / float(total.mean())

    def shade(self, pts, normals, gloss, shininess):
        """(diffuse (N, 3), specular (N, 3), per lamp diffuse (L, N, 3), per lamp
        specular (L, N, 3)), scaled as draw.Lighting scales them."""
        Ld = self.P[:, None, :] - pts[None]
        d = np.sqrt((Ld * Ld).sum(2))
        Ld /= d[..., None]
        ndl = np.clip((Ld * normals[None]).sum(2), 0, None)
        fall = (self.d0[:, None] / d) ** 2
        v = self.eye - pts
        v /= np.sqrt((v * v).sum(1))[:, None]
        h = Ld + v[None]
        h /= np.sqrt((h * h).sum(2))[..., None]
        ndh = np.clip((h * normals[None]).sum(2), 0, None)
        k_spec = np.asarray(gloss) * ndh ** np.asarray(shininess) * fall * (ndl > 0)
        lamp_diff = self.C[:, None, :] * (ndl * fall * self.scale)[..., None]
        lamp_spec = self.C[:, None, :] * (k_spec * self.scale)[..., None]
        amb = self.ambient[None] * (0.6 + 0.4 * normals[:, 2:3]) * self.scale
        return amb + lamp_diff.sum(0), lamp_spec.sum(0), lamp_diff, lamp_spec


def _level(shrink: float, levels: int) -> int:
    """The mip level for a texture drawn at ``shrink`` pixels a texel (draw._warp_texture's
    rule: reduce first below 0.7, so thin print does not alias)."""
    if shrink >= 0.7:
        return 0
    return int(min(levels - 1, math.floor(math.log2(0.7 / max(shrink, 1e-6)) + 1)))


def _tex_to_world(quad: np.ndarray, tw: int, th: int) -> np.ndarray:
    """(4, 3): texture pixel (x, y, 1) -> homogeneous world point on the quad's plane."""
    ex, ey = (quad[1] - quad[0]) / tw, (quad[3] - quad[0]) / th
    A = np.zeros((4, 3))
    A[:3, 0], A[:3, 1] = ex, ey
    A[:3, 2] = quad[0] + 0.5 * (ex + ey)
    A[3, 2] = 1.0
    return A


# cv2.transform matrices on a warped 8-bit BGRA face: 1 - alpha in every channel
_ONE_MINUS_ALPHA = np.zeros((4, 5))
_ONE_MINUS_ALPHA[:, 3], _ONE_MINUS_ALPHA[:, 4] = -1 / 255, 1.0


@lru_cache(maxsize=1024)
def _gauss(sigma: float) -> tuple[np.ndarray, np.ndarray]:
    k = cv2.getGaussianKernel(2 * math.ceil(3 * sigma) + 1, sigma).astype(np.float32)
    return k, k * np.float32(1 / 255)


def _blur(mask: np.ndarray, sigma: float, border=cv2.BORDER_DEFAULT) -> np.ndarray:
    """An 8-bit mask blurred by a Gaussian of ``sigma`` pixels: float32 in 0..1 (a
    separable filter with a remembered kernel: GaussianBlur's set-up costs more than
    the blur on masks this small)."""
    kx, ky = _gauss(round(max(sigma, 0.3), 2))
    return cv2.sepFilter2D(mask, cv2.CV_32F, kx, ky, borderType=border)


@lru_cache(maxsize=16)
def _grid(w: int, h: int, g: int) -> np.ndarray:
    """A ``g`` x ``g`` grid of a w x h canvas's pixels (as cv2.resize of a g x g image
    samples them), then the canvas's corners a pixel outside it: (g * g + 4, 2)."""
    X, Y = np.meshgrid((np.arange(g) + 0.5) * w / g - 0.5, (np.arange(g) + 0.5) * h / g - 0.5)
    corners = [[-1.5, -1.5], [w + 0.5, -1.5], [w + 0.5, h + 0.5], [-1.5, h + 0.5]]
    out = np.concatenate([np.column_stack([X.ravel(), Y.ravel()]), corners])
    out.setflags(write=False)
    return out


@lru_cache(maxsize=4)
def _up(n: int) -> np.ndarray:
    up = np.zeros((n, 3))
    up[:, 2] = 1.0
    up.setflags(write=False)
    return up


@dataclass(eq=False)
class Plane:
    """A textured horizontal surface: the table (``texture``, 8-bit BGRA, repeats, its
    top-left pixel's corner at world ``origin``) or the board's top (``pyramid`` on
    ``quad``)."""

    ppm: float  # texture pixels a millimetre
    gloss: float
    shininess: float
    texture: np.ndarray | None = None
    origin: tuple[float, float] = (0.0, 0.0)
    pyramid: tuple | None = None
    quad: np.ndarray | None = None


class CropPainter:
    """Paints one crop of a board on a table with boxes: ``image()`` is float32 BGR.
    The canvas is BGRA (the fourth channel unused) so that every step is one OpenCV
    call on whole pixels."""

    def __init__(self, cam: Camera, light: Light):
        self.cam = cam
        self.W, self.H = cam.size
        self.M = cam.K @ np.column_stack([cam.R, cam.t])
        self.eye = cam.center
        self.light = light
        self.canvas = np.zeros((self.H, self.W, 4), np.float32)
        self.ids = np.zeros((self.H, self.W), np.uint8)
        self.areas: dict[int, tuple[int, int]] = {}  # id -> (face of the target, pixels)
        # shadows are smooth: drawn on a coarser grid of about 32 px a side
        self.f = max(2, -(-max(self.W, self.H) // 32))
        self.sw, self.sh = -(-self.W // self.f), -(-self.H // self.f)

    def image(self) -> np.ndarray:
        return cv2.cvtColor(self.canvas, cv2.COLOR_BGRA2BGR)

    def project(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float64).reshape(-1, 3) @ self.M[:, :3].T + self.M[:, 3]
        return p[:, :2] / np.maximum(p[:, 2:], 1e-6)

    def px_per_mm(self, point) -> float:
        depth = float((self.cam.R[2] @ np.asarray(point)) + self.cam.t[2])
        return float(self.cam.K[0, 0]) / max(depth, 1.0)

    # ----------------------------------------------------------------- all
    def paint(self, table: Plane, board: Box, top: Plane, on_table: list[Box],
              on_board: list[Box], contact: list[Box], target: Box, casters: list[Box],
              ids: bool = True):
        """The table, the shadows on it of ``board`` and ``on_table``, ``board`` (its top
        face from ``top``), the shadows on it of ``on_board``, then the pieces far to
        near; ``contact``: the boxes with a contact shadow; ``casters``: the boxes whose
        shadows may fall on ``target``'s faces. With ``ids``, the ids of the target's
        faces and of what is drawn after them go to the id buffer (for ``seen``)."""
        eye = self.eye
        pieces = on_table + on_board
        if pieces:
            d = np.array([b.center for b in pieces]) - eye
            pieces = [pieces[i] for i in np.argsort(-(d * d).sum(1), kind="stable").tolist()]
        boxes = [board, *pieces]
        quads = np.stack([b.quads for b in boxes])  # (B, 6, 4, 3)
        normals = np.stack([b.normals for b in boxes])
        P = self.project(quads).reshape(len(boxes), 6, 4, 2)
        lo, hi = P.min(2), P.max(2)
        draw = ((normals * (eye - quads[:, :, 0])).sum(2) > 1e-6) \
            & (hi[..., 0] > -1) & (hi[..., 1] > -1) & (lo[..., 0] < self.W) \
            & (lo[..., 1] < self.H)
        draw[0, list(board.skip)] = False
        bi, fi = np.nonzero(draw)
        mat = np.stack([b.material for b in boxes])[bi, fi]
        # one lighting pass: the centres of the faces drawn, and a grid of the canvas's
        # pixels on the board's plane (for the table too: a few mm lower); the canvas's
        # corners on that plane tell whether the board's top covers it all
        g, z = 8, float(top.quad[0, 2])
        on_plane = self._on_plane(_grid(self.W, self.H, g), z)
        n_f, gg = len(bi), g * g
        grid = on_plane[:gg]
        diff, spec, lamp_diff, lamp_spec = self.light.shade(
            np.concatenate([quads[bi, fi].mean(1), grid, grid]),
            np.concatenate([normals[bi, fi], _up(2 * gg)]),
            np.concatenate([mat[:, 0], np.full(gg, table.gloss), np.full(gg, top.gloss)]),
            np.concatenate([mat[:, 1], np.full(gg, table.shininess),
                            np.full(gg, top.shininess)]))

        def plane_map(a):
            a4 = np.zeros((gg, 4), np.float32)
            a4[:, :3] = a
            return cv2.resize(a4.reshape(g, g, 4), (self.W, self.H),
                              interpolation=cv2.INTER_LINEAR)

        dmap = plane_map(diff[n_f:n_f + gg])
        ppm = self.px_per_mm(target.center)
        covered = self._inside(on_plane[gg:], top.quad)  # nothing but the board's top
        if not covered:
            self._table(table, dmap, plane_map(spec[n_f:n_f + gg]))
            self._shadows([board, *on_table], 0.0, ppm, [b for b in on_table if b in contact])
        faces = self._face_setup(boxes, bi, fi, quads, P, lo, hi, diff[:n_f], spec[:n_f],
                                 mat[:, 2:])
        k = int(np.searchsorted(bi, 1))  # the board's faces come first
        if not covered:
            self._faces(faces[:k], None, (), lamp_diff, lamp_spec)
        self._top(top, dmap, plane_map(spec[n_f + gg:]), covered)
        self._shadows(on_board, z, ppm, [b for b in on_board if b in contact])
        self._faces(faces[k:], target, casters, lamp_diff, lamp_spec, ids)

    # ----------------------------------------------------------------- planes
    def _on_plane(self, px: np.ndarray, z: float) -> np.ndarray:
        """Where the rays of canvas pixels ``px`` (N, 2) meet the plane at height ``z``."""
        K, R = self.cam.K, self.cam.R
        rays = np.column_stack([(px[:, 0] - K[0, 2]) / K[0, 0], (px[:, 1] - K[1, 2]) / K[1, 1],
                                np.ones(len(px))]) @ R
        t = (z - self.eye[2]) / np.minimum(rays[:, 2], -1e-9)
        return self.eye + t[:, None] * rays

    @staticmethod
    def _inside(pts: np.ndarray, quad: np.ndarray) -> bool:
        """Whether all ``pts`` lie within the rectangle ``quad`` (TL, TR, BR, BL)."""
        p = pts[:, :2] - quad[0, :2]
        ex, ey = quad[1, :2] - quad[0, :2], quad[3, :2] - quad[0, :2]
        s, t = p @ ex / (ex @ ex), p @ ey / (ey @ ey)
        return bool(np.all((s > 0) & (s < 1) & (t > 0) & (t < 1)))

    def _table(self, table: Plane, dmap, spec) -> None:
        x0, y1 = table.origin
        ppm = table.ppm
        A = np.array([[1 / ppm, 0, x0 + 0.5 / ppm], [0, -1 / ppm, y1 - 0.5 / ppm], [0, 0, 1]])
        col = cv2.warpPerspective(table.texture, self.M[:, [0, 1, 3]] @ A, (self.W, self.H),
                                  flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
        self.canvas = cv2.multiply(col, dmap, scale=1 / 255, dtype=cv2.CV_32F)
        if table.gloss > 0:
            self.canvas = cv2.add(self.canvas, spec)

    def _top(self, top: Plane, dmap, spec, covered: bool) -> None:
        """The board's top over what is drawn (``covered``: over all of the canvas)."""
        pyramid = top.pyramid
        level = _level(1.3 * self.px_per_mm(top.quad.mean(0)) / top.ppm, len(pyramid))
        tex = pyramid[level]
        th, tw = tex.shape[:2]
        H = self.M @ _tex_to_world(top.quad, tw, th)
        warped = cv2.warpPerspective(tex, H, (self.W, self.H), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT)
        if covered:
            self.canvas = cv2.add(cv2.multiply(warped, dmap, scale=1 / 255, dtype=cv2.CV_32F),
                                  spec)
            return
        fw = warped.astype(np.float32)
        om = cv2.transform(fw, _ONE_MINUS_ALPHA)
        lit = cv2.add(cv2.multiply(fw, dmap, scale=1 / 255),
                      cv2.subtract(spec, cv2.multiply(spec, om)))
        self.canvas = cv2.add(cv2.multiply(self.canvas, om), lit)

    # ----------------------------------------------------------------- shadows
    def _coarse(self, P: np.ndarray) -> np.ndarray:
        """Canvas pixels -> the shadow grid's pixels (as cv2.resize maps them), x 16."""
        s = np.array([self.sw / self.W, self.sh / self.H])
        return np.round(((P + 0.5) * s - 0.5) * 16).astype(np.int32)

    def _shadows(self, casters: list[Box], rest_z: float, ppm: float,
                 contact: list[Box]) -> None:
        """Each lamp's soft shadow of ``casters`` on the plane at ``rest_z`` (the union
        of their faces projected from the lamp), and a tight contact shadow round the
        footprints of ``contact``; drawn on the coarse grid (hard-edged: the blur by the
        penumbra smooths it), blurred, then scaled up."""
        if not casters:
            return
        Q = np.stack([b.quads for b in casters])  # (C, 6, 4, 3)
        lift = sum(float(b.quads[0, 0, 2]) - b.rest_z for b in casters) / len(casters)
        keep = np.ones((self.sh, self.sw), np.float32)
        to_grid = self.sw / self.W
        margin = 4 * (self.W + self.H)
        for i, share in enumerate(self.light.shares):
            L = self.light.P[i]
            if Q[..., 2].max() >= L[2] - 1:
                continue  # a lamp below a piece's top: no drop shadow from it
            t = (rest_z - L[2]) / (Q[..., 2] - L[2])
            S = np.clip(self.project(L + t[..., None] * (Q - L)), -margin, margin)
            mask = np.zeros((self.sh, self.sw), np.uint8)
            cv2.fillPoly(mask, self._coarse(S).reshape(-1, 4, 2), 255, cv2.LINE_8, shift=4)
            pen_mm = self.light.radius[i] * lift / max(L[2] - lift, 50.0) + 0.8
            soft = _blur(mask, max(0.6, pen_mm * ppm * to_grid))
            keep *= 1 - np.float32(min(0.92, share * 0.9)) * soft
        if contact:
            F = np.clip(self.project(np.stack([b.footprint() for b in contact])), -margin,
                        margin)
            mask = np.zeros((self.sh, self.sw), np.uint8)
            cv2.fillPoly(mask, self._coarse(F).reshape(-1, 4, 2), 255, cv2.LINE_8, shift=4)
            keep *= 1 - np.float32(0.55) * _blur(mask, max(0.6, 1.6 * ppm * to_grid))
        keep = cv2.resize(keep, (self.W, self.H), interpolation=cv2.INTER_LINEAR)
        self.canvas = cv2.multiply(self.canvas, cv2.cvtColor(keep, cv2.COLOR_GRAY2BGRA))

    def _casters(self, target: Box, casters: list[Box]) -> list[list[Box]]:
        """Per lamp, the ``casters`` that come near the line from ``target`` to the lamp
        (draw.Painter._set_casters' test, for one receiver)."""
        if not casters:
            return [[] for _ in self.light.radius]
        C = np.array([b.center for b in casters]) - target.center
        reach = np.array([math.hypot(*b.half) for b in casters]) + math.hypot(*target.half)
        out = []
        for L in self.light.P:
            d = L - target.center
            t = np.clip(C @ d / max(float(d @ d), 1e-9), 0.0, 1.0)
            gap = np.sqrt(((C - t[:, None] * d) ** 2).sum(1))
            near = (gap < reach) & (t > 0)
            out.append([b for b, ok in zip(casters, near.tolist(), strict=True) if ok])
        return out

    def _face_shadows(self, box: Box, k: int, casters: list[list[Box]], off, w: int, h: int):
        """Per lamp, how much of the lamp the boxes ``casters[lamp]`` hide from each pixel
        of face ``k`` of ``box`` (float32 (h, w) in 0..1, or None): the model of
        draw.Painter._piece_shadows. The part of each box between the face's plane and
        the lamp is projected from the lamp onto that plane, filled and blurred by its
        penumbra."""
        n = box.normals[k]
        p0 = box.quads[k, 0]
        out = []
        for i, radius in enumerate(self.light.radius):
            L = self.light.P[i]
            others = casters[i]
            hL = float(n @ (L - p0))  # the lamp's height over the face's plane
            if hL <= 1e-6 or not others:
                out.append(None)
                continue
            mask, pen = None, []
            for b in others:
                shadow = shadow_outline(b.corners(), p0, n, L, hL)
                if shadow is None:
                    continue
                outline, lift = shadow
                uv = np.clip(self.project(outline) - off, -4 * (w + h), 5 * (w + h))
                if mask is None:
                    mask = np.zeros((h, w), np.uint8)
                hull = cv2.convexHull(np.round(uv * 16).astype(np.int32))
                cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, shift=4)
                pen.append(lift * radius / max(hL - lift, 20.0))
            if mask is None or not mask.any():
                out.append(None)
                continue
            sigma = max(0.5, (sum(pen) / len(pen) + 0.3) * self.px_per_mm(box.quads[k].mean(0)))
            out.append(_blur(mask, sigma, cv2.BORDER_REPLICATE))
        return out

    # ----------------------------------------------------------------- boxes
    def _face_setup(self, boxes, bi, fi, quads, P, lo, hi, diff, spec, tint) -> list:
        """Per face drawn, in order: (box, face, ROI, texture, homography into the ROI,
        lighting matrix, tint, index into the lighting arrays)."""
        if not len(bi):
            return []
        bl, fl = bi.tolist(), fi.tolist()
        Pf = P[bi, fi]
        edge = np.maximum(np.linalg.norm(Pf[:, 1] - Pf[:, 0], axis=1),
                          np.linalg.norm(Pf[:, 3] - Pf[:, 0], axis=1))
        pyramids = [boxes[b].textures[f] for b, f in zip(bl, fl, strict=True)]
        shrink = (edge * 1.3 / np.array([p[0].shape[1] for p in pyramids])).tolist()
        texs = [p[_level(sh, len(p))] for p, sh in zip(pyramids, shrink, strict=True)]
        size = np.array([t.shape[1::-1] for t in texs], np.float64)  # (F, 2) w, h
        q = quads[bi, fi]
        ex = (q[:, 1] - q[:, 0]) / size[:, :1]
        ey = (q[:, 3] - q[:, 0]) / size[:, 1:]
        A = np.zeros((len(q), 4, 3))
        A[:, :3, 0], A[:, :3, 1] = ex, ey
        A[:, :3, 2] = q[:, 0] + 0.5 * (ex + ey)
        A[:, 3, 2] = 1.0
        H = self.M @ A
        x0 = np.maximum(np.floor(lo[bi, fi, 0]).astype(int) - 1, 0)
        y0 = np.maximum(np.floor(lo[bi, fi, 1]).astype(int) - 1, 0)
        x1 = np.minimum(np.ceil(hi[bi, fi, 0]).astype(int) + 2, self.W)
        y1 = np.minimum(np.ceil(hi[bi, fi, 1]).astype(int) + 2, self.H)
        H[:, 0] -= x0[:, None] * H[:, 2]
        H[:, 1] -= y0[:, None] * H[:, 2]
        m = np.zeros((len(q), 4, 4))
        m[:, _D3, _D3] = diff * tint / 255
        m[:, :3, 3] = spec / 255
        rois = np.stack([x0, y0, x1, y1], 1).tolist()
        return [(boxes[b], f, r, t, h, mm, tt, j) for j, (b, f, r, t, h, mm, tt) in enumerate(
            zip(bl, fl, rois, texs, H, m, tint, strict=True))]

    def _faces(self, faces, target, casters, lamp_diff, lamp_spec, ids=False) -> None:
        """Draw ``faces`` (from _face_setup): one warp of the texture's level gives the
        colour and coverage (premultiplied), one transform lights it. The target's faces
        get the shadows of ``casters`` and, with all drawn after them, go to ``ids``."""
        track = False
        if target is not None:
            casters = self._casters(target, casters)
        for box, f, (x0, y0, x1, y1), tex, H, m, tint, j in faces:
            if x1 <= x0 or y1 <= y0:
                continue
            w, h = x1 - x0, y1 - y0
            warped = cv2.warpPerspective(tex, H, (w, h), flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_CONSTANT)
            fw = warped.astype(np.float32)
            out = cv2.transform(fw, m)
            if box is target:
                track = ids
                for i, sh in enumerate(self._face_shadows(box, f, casters, (x0, y0), w, h)):
                    if sh is not None:  # in a box's shadow: without this lamp's light
                        ml = np.zeros((4, 4))
                        ml[_D3, _D3] = lamp_diff[i, j] * tint / 255
                        ml[:3, 3] = lamp_spec[i, j] / 255
                        out = cv2.subtract(out, cv2.multiply(
                            cv2.transform(fw, ml), cv2.cvtColor(sh, cv2.COLOR_GRAY2BGRA)))
            self.canvas[y0:y1, x0:x1] = cv2.add(cv2.multiply(
                self.canvas[y0:y1, x0:x1], cv2.transform(fw, _ONE_MINUS_ALPHA)), out)
            if track:
                sel = warped[..., 3] > 127
                k = len(self.areas) + 1
                self.ids[y0:y1, x0:x1][sel] = k
                self.areas[k] = (f if box is target else -1, int(np.count_nonzero(sel)))

    def seen(self) -> list[tuple[int, int, int]]:
        """(face, pixels in view, pixels drawn) for each drawn face of the target."""
        counts = np.bincount(self.ids.ravel(), minlength=len(self.areas) + 1)
        return [(f, int(counts[k]), area) for k, (f, area) in self.areas.items()
                if f >= 0 and area > 0]
