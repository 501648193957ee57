"""The painter's renderer: table, board, soft shadows, then the pieces far to near.

Works on a pinhole canvas (no distortion; camera.Distorter bends the result). Colours
are float32 BGR. Each drawn face also writes its id into an id buffer, from which the
ground truth learns what is visible and what hides what.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.render.camera import Camera
from vision.render.geometry import Face, Solid, shadow_outline
from vision.render.scene import TABLE_MM, TABLE_PX_PER_MM, Scene

NEAR_MM = 20.0


@dataclass
class FaceRecord:
    solid: int  # index into scene.solids; -1 table, -2 hand
    face: Face | None
    area: int = 0  # pixels covered when drawn (before anything covered it)


@dataclass
class Rendered:
    canvas: np.ndarray  # (H, W, 3) float32
    ids: np.ndarray  # (H, W) int32 index into records; 0 = nothing (floor)
    records: list[FaceRecord] = field(default_factory=list)

    def visible_counts(self) -> np.ndarray:
        return np.bincount(self.ids.ravel(), minlength=len(self.records))


class Lighting:
    """Lamps (point lights with inverse-square falloff) and a hemispherical ambient."""

    def __init__(self, scene: Scene, eye: np.ndarray):
        self.lamps = scene.lamps
        self.ambient = scene.ambient
        self.eye = eye
        self.ref = np.array([*scene.board.center, 0.0])
        self.d0 = [float(np.linalg.norm(lp.position - self.ref)) for lp in self.lamps]
        up = np.array([0, 0, 1.0])
        per_lamp = [self._lamp(i, self.ref[None], up, 0.0, 1.0)[0][0]
                    for i in range(len(self.lamps))]
        total = self.ambient + sum(per_lamp)
        self.scale = np.float32(1.0 / float(total.max()))
        lum = [float(p.mean()) for p in per_lamp]
        self.shares = [v / float(total.mean()) for v in lum]
        self._eye = tuple(float(v) for v in eye)
        self._lamps_f = [(tuple(float(v) for v in lp.position),
                          tuple(float(v) for v in lp.colour), d0)
                         for lp, d0 in zip(self.lamps, self.d0, strict=True)]

    def _lamp(self, i, pts, n, gloss, shin):
        lp = self.lamps[i]
        L = lp.position[None] - pts
        d = np.linalg.norm(L, axis=1, keepdims=True)
        l_dir = L / d
        ndl = np.clip(l_dir @ n, 0, None)[:, None]
        fall = (self.d0[i] / d) ** 2
        diff = lp.colour[None] * ndl * fall
        if gloss <= 0:
            return diff, None
        v = self.eye[None] - pts
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        h = l_dir + v
        h /= np.linalg.norm(h, axis=1, keepdims=True)
        ndh = np.clip(h @ n, 0, None)[:, None]
        spec = lp.colour[None] * gloss * (ndh ** shin) * fall * (ndl > 0)
        return diff, spec

    def shade(self, pts: np.ndarray, n: np.ndarray, gloss: float, shin: float):
        """(diffuse, specular), each (N, 3) float32, for points with normal ``n``."""
        diff = np.repeat((self.ambient * (0.6 + 0.4 * float(n[2])))[None], len(pts), 0)
        spec = np.zeros_like(diff)
        for i in range(len(self.lamps)):
            d, s = self._lamp(i, pts, n, gloss, shin)
            diff = diff + d
            if s is not None:
                spec = spec + s
        return (diff * self.scale).astype(np.float32), (spec * self.scale).astype(np.float32)

    def shade_point(self, p, n, gloss: float, shin: float):
        """``shade`` for one point (plain floats: a face's centre costs microseconds, where
        numpy's per-call overhead would dominate): (diffuse, specular, per lamp), the first
        two (3,) float32, the last each lamp's (diffuse, specular) share."""
        px, py, pz = (float(v) for v in p)
        nx, ny, nz = (float(v) for v in n)
        amb = 0.6 + 0.4 * nz
        diff = [float(c) * amb for c in self.ambient]
        spec = [0.0, 0.0, 0.0]
        ex, ey, ez = self._eye
        vx, vy, vz = ex - px, ey - py, ez - pz
        vn = math.sqrt(vx * vx + vy * vy + vz * vz)
        vx, vy, vz = vx / vn, vy / vn, vz / vn
        sc = np.float32(self.scale)
        per_lamp = []
        for (lx, ly, lz), col, d0 in self._lamps_f:
            lx, ly, lz = lx - px, ly - py, lz - pz
            d = math.sqrt(lx * lx + ly * ly + lz * lz)
            lx, ly, lz = lx / d, ly / d, lz / d
            ndl = lx * nx + ly * ny + lz * nz
            if ndl <= 0:
                per_lamp.append((0.0, 0.0))
                continue
            fall = (d0 / d) ** 2
            dl = [c * ndl * fall for c in col]
            sl = [0.0, 0.0, 0.0]
            if gloss > 0:
                hx, hy, hz = lx + vx, ly + vy, lz + vz
                hn = math.sqrt(hx * hx + hy * hy + hz * hz)
                ndh = max((hx * nx + hy * ny + hz * nz) / hn, 0.0)
                k = gloss * ndh ** shin * fall
                sl = [c * k for c in col]
            for c in range(3):
                diff[c] += dl[c]
                spec[c] += sl[c]
            per_lamp.append((np.array(dl, np.float32) * sc, np.array(sl, np.float32) * sc))
        return (np.array(diff, np.float32) * sc, np.array(spec, np.float32) * sc, per_lamp)


def clip_near(poly: np.ndarray, cam: Camera, near: float = NEAR_MM) -> np.ndarray:
    """Clip a world polygon to the part in front of the camera (z_cam >= near)."""
    pc = cam.to_camera(poly)
    out = []
    n = len(pc)
    for i in range(n):
        a, b = pc[i], pc[(i + 1) % n]
        ina, inb = a[2] >= near, b[2] >= near
        if ina:
            out.append(poly[i])
        if ina != inb:
            t = (near - a[2]) / (b[2] - a[2])
            out.append(poly[i] + t * (poly[(i + 1) % n] - poly[i]))
    return np.array(out) if out else np.zeros((0, 3))


def _fill(mask: np.ndarray, pts2d: np.ndarray, value=255) -> None:
    """Fill a polygon with anti-aliased edges (soft masks: shadows; truth rasters)."""
    cv2.fillPoly(mask, [np.round(pts2d * 16).astype(np.int32)], value, cv2.LINE_AA, shift=4)


def coverage(h: int, w: int, pts2d: np.ndarray) -> np.ndarray:
    """uint8 mask (h, w): how much of each pixel the polygon covers, 0..255.

    Filled at several times the resolution and averaged down: exact edges, where
    OpenCV's anti-aliased fill grows a polygon by more than half a pixel.
    """
    f = 4 if h * w <= 160_000 else 2
    big = np.zeros((h * f, w * f), np.uint8)
    hi = (np.asarray(pts2d, np.float64) + 0.5) * f - 0.5
    cv2.fillPoly(big, [np.round(hi * 16).astype(np.int32)], 255, cv2.LINE_8, shift=4)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


_MIPS: dict = {}
_MIP_BUDGET = 256 << 20  # bytes of textures the cache may hold on to


def _mip(tex: np.ndarray, level: int) -> np.ndarray:
    """``tex`` halved ``level`` times (cached: textures are reused across faces and, in
    a crop pool, across scenes; the oldest entries go when the cache grows too big)."""
    key = (id(tex), level)
    hit = _MIPS.get(key)
    if hit is not None and hit[0] is tex:
        return hit[1]
    out = tex
    for _ in range(level):
        if min(out.shape[:2]) < 4:
            break
        out = cv2.resize(out, (out.shape[1] // 2, out.shape[0] // 2),
                         interpolation=cv2.INTER_AREA)
    _MIPS[key] = (tex, out, tex.nbytes + out.nbytes)
    total = sum(v[2] for v in _MIPS.values()) if len(_MIPS) % 64 == 0 else 0
    if total > _MIP_BUDGET:
        for k in list(_MIPS)[:len(_MIPS) // 2]:
            del _MIPS[k]
    return out


def _tex_corners(w: int, h: int) -> np.ndarray:
    return np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]],
                    np.float32)


def _px_per_mm(scene: Scene, cam: Camera) -> float:
    """Image pixels per millimetre at the board's centre."""
    depth = float(cam.to_camera(scene.target[None])[0, 2])
    return cam.K[0, 0] / max(depth, 1.0)


class Painter:
    def __init__(self, scene: Scene, cam: Camera):
        self.scene = scene
        self.cam = cam
        self.W, self.H = cam.size
        self.light = Lighting(scene, cam.center)
        self.canvas = cv2.resize(scene.floor_texture, (self.W, self.H),
                                 interpolation=cv2.INTER_LINEAR)
        self.ids = np.zeros((self.H, self.W), np.int32)
        self.records: list[FaceRecord] = [FaceRecord(-3, None)]  # 0: the floor
        self.px_per_mm = _px_per_mm(scene, cam)
        self.casters: list = []  # set by scene_pass

    @classmethod
    def resume(cls, scene: Scene, cam: Camera, canvas, ids, records) -> Painter:
        """A painter over a copy of an earlier render of the same scene and camera (the
        scripted game draws hands over its cached static scene)."""
        p = cls.__new__(cls)
        p.scene, p.cam = scene, cam
        p.W, p.H = cam.size
        p.light = Lighting(scene, cam.center)
        p.canvas, p.ids, p.records = canvas.copy(), ids.copy(), list(records)
        p.casters = []
        p.px_per_mm = _px_per_mm(scene, cam)
        return p

    # ----------------------------------------------------------------- faces
    def face(self, face: Face, solid: int, P: np.ndarray | None = None) -> None:
        """Draw ``face``; ``P``: its outline projected already (by ``solid``)."""
        cam = self.cam
        if P is None:
            P = cam.project(face.outline, distort=False)
        x0, y0 = np.floor(P.min(0)).astype(int) - 1
        x1, y1 = np.ceil(P.max(0)).astype(int) + 2
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, self.W), min(y1, self.H)
        if x1 <= x0 or y1 <= y0:
            return
        w, h = x1 - x0, y1 - y0
        off = np.array([x0, y0], np.float64)
        m = coverage(h, w, P - off)
        if not m.any():
            return
        if face.shade_grid <= 1:
            centre = np.add.reduce(face.outline, 0) * (1 / len(face.outline))
            d, sp, per_lamp = self.light.shade_point(centre, face.normal, face.gloss,
                                                     face.shininess)
            if solid >= 0 and self.casters:
                hidden = self._piece_shadows(face, solid, centre, off, w, h)
                for (dl, sl), sh in zip(per_lamp, hidden, strict=True):
                    if sh is not None:  # in a piece's shadow: without this lamp's light
                        sh = sh[..., None]
                        d = d - dl * sh
                        sp = sp - sl * sh
        if face.texture is not None:
            Q = P if face.quad is face.outline else cam.project(face.quad, distort=False)
            col = self._warp_texture(face, Q, off, w, h)
            if face.shade_grid > 1:
                diff, spec = self._shade_grid(face, Q, off, w, h)
                col = col * diff + spec
            else:
                col = col * d + sp
        else:
            col = face.colour * d + sp  # one colour (or a shadowed map): broadcast below
        a = m.astype(np.float32)[..., None]
        a *= np.float32(1 / 255)
        roi = self.canvas[y0:y1, x0:x1]
        roi += (col - roi) * a
        sel = m > 127
        self.ids[y0:y1, x0:x1][sel] = len(self.records)
        self.records.append(FaceRecord(solid, face, int(np.count_nonzero(sel))))

    @staticmethod
    def _homography(Q: np.ndarray, tex_w: int, tex_h: int, off) -> np.ndarray:
        """Texture pixels -> canvas ROI pixels, for a face whose quad projects to ``Q``."""
        return cv2.getPerspectiveTransform(_tex_corners(tex_w, tex_h),
                                           (Q - off).astype(np.float32))

    def _warp_texture(self, face: Face, Q, off, w, h) -> np.ndarray:
        tex = face.texture
        th, tw = tex.shape[:2]
        edge = max(math.hypot(*(Q[1] - Q[0])), math.hypot(*(Q[3] - Q[0])), 1.0)
        shrink = edge * 1.3 / max(tw, th)
        if shrink < 0.7:  # mip-map: reduce first, so thin print does not alias
            tex = _mip(tex, int(min(4, math.floor(math.log2(0.7 / shrink) + 1))))
            th, tw = tex.shape[:2]
        H = self._homography(Q, tw, th, off)
        return cv2.warpPerspective(tex, H, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)

    def _shade_grid(self, face: Face, Q, off, w, h):
        """Diffuse and specular light over a big face, sampled on a grid of
        ``face.shade_grid`` cells a side and spread by the face's homography; only the
        part of the face inside the ROI is sampled (a crop sees a corner of a board)."""
        g = face.shade_grid
        q = face.quad
        s0, s1, t0, t1 = 0.0, 1.0, 0.0, 1.0
        unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
        inv = np.linalg.inv(cv2.getPerspectiveTransform(unit, (Q - off).astype(np.float32)))
        roi = inv @ np.array([[0, w, w, 0], [0, 0, h, h], [1, 1, 1, 1]], np.float64)
        if np.all(roi[2] > 1e-9):  # every ROI corner's ray meets the face's plane
            st = roi[:2] / roi[2]
            pad = 1.0 / g
            s0, s1 = (float(np.clip(v, 0, 1)) for v in (st[0].min() - pad, st[0].max() + pad))
            t0, t1 = (float(np.clip(v, 0, 1)) for v in (st[1].min() - pad, st[1].max() + pad))
        gw = max(2, math.ceil((s1 - s0) * g))
        gh = max(2, math.ceil((t1 - t0) * g))

        def at(s, t):  # points of the face (bilinear in its quad)
            top = q[0] + s[..., None] * (q[1] - q[0])
            bot = q[3] + s[..., None] * (q[2] - q[3])
            return top + t[..., None] * (bot - top)

        s = s0 + (np.arange(gw) + 0.5) / gw * (s1 - s0)
        t = t0 + (np.arange(gh) + 0.5) / gh * (t1 - t0)
        T, S = np.meshgrid(t, s, indexing="ij")
        diff, spec = self.light.shade(at(S, T).reshape(-1, 3), face.normal, face.gloss,
                                      face.shininess)
        corners = at(np.array([s0, s1, s1, s0]), np.array([t0, t0, t1, t1]))
        H = self._homography(self.cam.project(corners, distort=False), gw, gh, off)
        dmap = cv2.warpPerspective(diff.reshape(gh, gw, 3), H, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
        smap = cv2.warpPerspective(spec.reshape(gh, gw, 3), H, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
        return dmap, smap

    def solid(self, s: Solid) -> None:
        eye = self.cam.center
        pts = s.points()
        P = self.cam.project(pts, distort=False)
        if (P[:, 0].max() < -1 or P[:, 1].max() < -1 or P[:, 0].min() > self.W
                or P[:, 1].min() > self.H):
            return  # wholly outside the canvas
        k = 0
        for f in s.faces:
            n = len(f.outline)
            if float(f.normal @ (eye - f.outline[0])) > 1e-6:  # facing the camera
                self.face(f, s.id, P[k:k + n])
            k += n

    # ----------------------------------------------------------------- table
    def table(self) -> None:
        sc = self.scene
        tex = sc.table_texture
        x0, y0 = -TABLE_MM[0] / 2, -TABLE_MM[1] / 2
        x1, y1 = -x0, -y0
        poly = np.array([[x0, y1, 0], [x1, y1, 0], [x1, y0, 0], [x0, y0, 0]], np.float64)
        vis = clip_near(poly, self.cam)
        if len(vis) < 3:
            return
        m = coverage(self.H, self.W, self.cam.project(vis, distort=False))
        ppm = TABLE_PX_PER_MM
        A = np.array([[1 / ppm, 0, x0 + 0.5 / ppm], [0, -1 / ppm, y1 - 0.5 / ppm], [0, 0, 1]])
        cam = self.cam
        M = cam.K @ np.column_stack([cam.R[:, 0], cam.R[:, 1], cam.t])
        H = M @ A
        # the texture repeats (a crop pool's table textures are smaller than the table)
        col = cv2.warpPerspective(tex, H, (self.W, self.H), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_WRAP)
        # lamp light changes slowly over the table: a coarser grid for small canvases
        gw, gh = (36, 24) if self.W * self.H > 100_000 else (12, 8)
        xs = x0 + (np.arange(gw) + 0.5) / gw * (x1 - x0)
        ys = y1 - (np.arange(gh) + 0.5) / gh * (y1 - y0)
        X, Y = np.meshgrid(xs, ys)
        pts = np.stack([X, Y, np.zeros_like(X)], -1).reshape(-1, 3)
        diff, spec = self.light.shade(pts, np.array([0, 0, 1.0]), sc.table_gloss, 12.0)
        G = np.array([[(x1 - x0) / gw, 0, x0 + 0.5 * (x1 - x0) / gw],
                      [0, -(y1 - y0) / gh, y1 - 0.5 * (y1 - y0) / gh], [0, 0, 1]])
        Hg = M @ G
        dmap = cv2.warpPerspective(diff.reshape(gh, gw, 3), Hg, (self.W, self.H),
                                   borderMode=cv2.BORDER_REPLICATE)
        col = cv2.multiply(col, dmap)
        if sc.table_gloss > 0:
            col = cv2.add(col, cv2.warpPerspective(spec.reshape(gh, gw, 3), Hg,
                                                   (self.W, self.H),
                                                   borderMode=cv2.BORDER_REPLICATE))
        if m.min() == 255:
            self.canvas = col
        else:
            a = cv2.merge([m.astype(np.float32) / 255] * 3)
            self.canvas = cv2.add(cv2.multiply(self.canvas, 1 - a), cv2.multiply(col, a))
        self.records.append(FaceRecord(-1, None, int((m > 127).sum())))
        self.ids[m > 127] = len(self.records) - 1

    # ----------------------------------------------------------------- shadows
    def shadows(self, casters: list[Solid]) -> None:
        """Soft drop shadows of ``casters`` from each lamp onto their rest planes, and a
        tight contact shadow round each footprint."""
        casters = [s for s in casters if s.casts_shadow]
        if not casters:
            return
        f = 2  # shadows are smooth: draw them at half resolution
        sw, sh = self.W // f + 1, self.H // f + 1
        cam = self.cam
        pts = [s.points() for s in casters]
        sizes = np.cumsum([0] + [len(p) for p in pts])
        allp = np.vstack(pts)
        rest = np.repeat([s.rest_z for s in casters], np.diff(sizes))
        for lamp, share in zip(self.scene.lamps, self.light.shares, strict=True):
            L = lamp.position
            below = allp[:, 2] < L[2] - 1
            t = (rest - L[2]) / np.where(below, allp[:, 2] - L[2], -1.0)
            uv = cam.project(L[None] + t[:, None] * (allp - L[None]), distort=False) / f
            mask = np.zeros((sh, sw), np.uint8)
            heights = []
            for k, s in enumerate(casters):
                sel = below[sizes[k]:sizes[k + 1]]
                if not sel.any():
                    continue
                q = uv[sizes[k]:sizes[k + 1]][sel]
                if s.footprint is not None:
                    q = np.vstack([q, cam.project(s.footprint, distort=False) / f])
                hull = cv2.convexHull(np.round(q * 16).astype(np.int32))
                cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, shift=4)
                heights.append(s.height)
            if not heights:
                continue
            lift = float(np.mean(heights))
            pen_mm = lamp.radius * lift / max(lamp.position[2] - lift, 50.0) + 0.8
            sigma = max(0.6, pen_mm * self.px_per_mm / f)
            soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), sigma)
            soft = cv2.resize(soft, (self.W, self.H), interpolation=cv2.INTER_LINEAR)
            self._darken(soft, min(0.92, share * 0.9))
        # contact shadows (ambient occlusion under each piece)
        mask = np.zeros((sh, sw), np.uint8)
        any_fp = False
        for s in casters:
            if s.footprint is None or s.kind == "board":
                continue
            uv = cam.project(s.footprint, distort=False) / f
            _fill(mask, uv)
            any_fp = True
        if any_fp:
            sigma = max(0.6, 1.6 * self.px_per_mm / f)
            soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), sigma)
            soft = cv2.resize(soft, (self.W, self.H), interpolation=cv2.INTER_LINEAR)
            self._darken(soft, 0.55)

    def _darken(self, soft: np.ndarray, strength: float) -> None:
        k = cv2.addWeighted(soft, -strength, soft, 0.0, 1.0)  # 1 - strength * soft
        self.canvas = cv2.multiply(self.canvas, cv2.cvtColor(k, cv2.COLOR_GRAY2BGR))

    def _set_casters(self) -> None:
        """The pieces that may throw a shadow on another piece, per lamp and receiver:
        corners, centre and radius of each caster; a caster counts for a receiver when
        it comes near the line from the receiver to the lamp (not the same piece or
        stack: a stack's cubes stand flush, and a pawn's parts shade each other by
        Lambert already)."""
        out = []
        for s in self.scene.solids:
            if s.kind in ("board", "card") or not s.casts_shadow:
                continue
            v = s.points()  # a box's 24 corners are its 8 thrice: harmless, and cheaper
            if len(v) > 32:  # than np.unique; rounder solids have many, though
                v = np.unique(np.round(v, 3), axis=0)
            c = v.mean(0)
            group = s.info.get("cell_name") or s.info.get("piece") or s.id
            box = (tuple(float(x) for x in v.min(0)), tuple(float(x) for x in v.max(0)))
            out.append((s.id, v, c, float(np.sqrt(((v - c) ** 2).sum(1).max())), group, box))
        self.casters = out
        self._shadow_pairs = []
        if len(out) < 2:
            self.casters = []
            return
        C = np.array([o[2] for o in out])
        R = np.array([o[3] for o in out])
        groups = [o[4] for o in out]
        for lamp in self.scene.lamps:
            # distance of each caster j from the segment receiver i -> lamp
            d = lamp.position[None] - C  # (M, 3) receiver -> lamp
            dd = np.maximum((d * d).sum(1), 1e-9)
            rel = C[None, :, :] - C[:, None, :]  # [i, j]: receiver i -> caster j
            t = np.clip((rel * d[:, None, :]).sum(2) / dd[:, None], 0.0, 1.0)
            gap = np.sqrt(((rel - t[..., None] * d[:, None, :]) ** 2).sum(2))
            near = (gap < R[None, :] + R[:, None]) & (t > 0)
            pairs = {}
            for i, j in zip(*np.nonzero(near), strict=True):
                if i != j and groups[i] != groups[j]:
                    pairs.setdefault(out[i][0], []).append(int(j))
            self._shadow_pairs.append(pairs)

    def _piece_shadows(self, face: Face, solid: int, centre, off, w: int, h: int) -> list:
        """Per lamp, how much of the lamp other pieces hide from each pixel of ``face``
        (float32 (h, w) in 0..1, or None): a piece's shadow on its neighbour or on the
        cube under it. The part of each caster in front of the face's plane is projected
        from the lamp onto that plane, its image filled and blurred by the penumbra."""
        n = face.normal
        p0 = face.outline[0]
        nx, ny, nz = (float(x) for x in n)
        level = nx * float(p0[0]) + ny * float(p0[1]) + nz * float(p0[2])
        out = []
        for lamp, pairs in zip(self.scene.lamps, self._shadow_pairs, strict=True):
            near = pairs.get(solid)
            L = lamp.position
            hL = float(n @ (L - p0))  # the lamp's height over the face's plane
            if not near or hL <= 1e-6:  # none, or turned away: Lambert has it dark
                out.append(None)
                continue
            mask = None
            pen = []
            for j in near:
                lo, hi = self.casters[j][5]  # nothing in front of the plane: no shadow
                if (max(nx * lo[0], nx * hi[0]) + max(ny * lo[1], ny * hi[1])
                        + max(nz * lo[2], nz * hi[2])) - level < 0.05:
                    continue
                shadow = shadow_outline(self.casters[j][1], p0, n, L, hL)
                if shadow is None:
                    continue
                outline, lift = shadow
                uv = np.clip(self.cam.project(outline, distort=False) - off,
                             -4 * (w + h), 5 * (w + h))
                if mask is None:
                    mask = np.zeros((h, w), np.uint8)
                hull = cv2.convexHull(np.round(uv * 16).astype(np.int32))
                cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, shift=4)
                pen.append(lift * lamp.radius / max(hL - lift, 20.0))
            if mask is None or not mask.any():
                out.append(None)
                continue
            depth = float(self.cam.to_camera(centre[None])[0, 2])
            sigma = max(0.5, (float(np.mean(pen)) + 0.3) * self.cam.K[0, 0] / max(depth, 1.0))
            soft = mask.astype(np.float32) * np.float32(1 / 255)
            soft = cv2.GaussianBlur(soft, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
            out.append(soft)
        return out

    # ----------------------------------------------------------------- all
    def scene_pass(self) -> None:
        sc = self.scene
        self._set_casters()
        self.table()
        on_table = [s for s in sc.solids if s.rest_z <= 0.0]
        on_board = [s for s in sc.solids if s.rest_z > 0.0]
        self.shadows(on_table)
        board = [s for s in sc.solids if s.kind == "board"]
        for s in board:
            self.solid(s)
        self.shadows(on_board)
        eye = self.cam.center
        rest = [s for s in sc.solids if s.kind != "board"]
        rest.sort(key=lambda s: -float(np.linalg.norm(s.center - eye)))
        for s in rest:
            self.solid(s)

    def result(self) -> Rendered:
        return Rendered(self.canvas, self.ids, self.records)


def render_canvas(scene: Scene, cam: Camera, hands=None) -> Rendered:
    p = Painter(scene, cam)
    p.scene_pass()
    if hands:
        from vision.render.hands import draw_hands
        draw_hands(p, hands)
    return p.result()
