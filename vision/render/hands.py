"""Hands and arms reaching into the frame, with a soft shadow.

A ``Hand`` is a pose in world millimetres: where the arm comes from (a player's side),
where the fingertips are, how high the hand floats, how the fingers bend (three
phalanges each), where the sleeve ends in its cuff, how far it moved while the shutter
was open. ``draw_hands`` draws it on a Painter after the pieces (a hand is above
everything): its shadow on the board and the pieces below, then every part as a round
body lit by the scene's lamps (skin with mottle, warmer rims, a sheen, knuckles, joint
creases and nails; cloth with folds), smeared along its motion, and marks its pixels in
the id buffer (truth: ``hidden_by: hand``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.render.draw import FaceRecord, Painter

SKINS = [(0.62, 0.72, 0.90), (0.50, 0.62, 0.82), (0.38, 0.50, 0.70), (0.25, 0.34, 0.52),
         (0.16, 0.22, 0.36), (0.55, 0.66, 0.86)]  # BGR
SLEEVES = [(0.55, 0.25, 0.12), (0.15, 0.15, 0.15), (0.75, 0.75, 0.75), (0.15, 0.20, 0.55),
           (0.25, 0.45, 0.25), (0.60, 0.55, 0.50)]


_MOTTLE = np.random.Generator(np.random.PCG64(7)).standard_normal((12, 12)).astype(
    np.float32)  # a fixed, seedless pattern: same hands, same skin


@dataclass(frozen=True)
class Hand:
    tip: tuple[float, float, float]  # fingertips, world mm
    shoulder: tuple[float, float, float]  # where the arm comes from, world mm
    skin: tuple[float, float, float] = SKINS[0]
    sleeve: tuple[float, float, float] = SLEEVES[0]
    spread: float = 0.5  # 0 fingers together .. 1 spread
    grip: float = 0.0  # 0 flat hand .. 1 fingers curled down (holding a piece)
    cuff: float = 0.5  # where the sleeve ends on the forearm: 0 at the elbow .. 1 wrist
    motion: tuple[float, float, float] = (0.0, 0.0, 0.0)  # mm moved while exposed

    def to_json(self) -> dict:
        return {"tip_mm": list(self.tip), "shoulder_mm": list(self.shoulder),
                "motion_mm": [round(float(v), 2) for v in self.motion]}

    def capsules(self) -> list[tuple[np.ndarray, np.ndarray, float, float, str]]:
        """(start, end, start radius, end radius, part) in world mm. Parts: ``sleeve``,
        ``cuff``, ``arm``, ``palm``, ``finger`` and ``nail`` (the last phalanx of a finger
        or thumb, whose end carries the nail); ``knuckle`` is a finger's first phalanx."""
        tip = np.asarray(self.tip, np.float64)
        sh = np.asarray(self.shoulder, np.float64)
        d = tip - sh
        d[2] = 0
        d /= max(np.linalg.norm(d), 1e-6)
        side = np.array([-d[1], d[0], 0.0])
        up = np.array([0, 0, 1.0])
        knuckle = tip - d * (70 - 25 * self.grip) + up * (18 + 20 * self.grip)
        wrist = knuckle - d * 85 + up * 20
        elbow = wrist - d * 250 + up * 80
        cuff = elbow + (wrist - elbow) * (0.15 + 0.75 * self.cuff)
        cuff_in = cuff + (wrist - elbow) * 0.05
        r_cuff = 31.0 + (24.0 - 31.0) * (0.15 + 0.75 * self.cuff)
        out = [(sh, elbow, 40.0, 34.0, "sleeve"), (elbow, cuff, 34.0, r_cuff + 5, "sleeve"),
               (cuff, cuff_in, r_cuff + 5.5, r_cuff + 5.5, "cuff"),
               (cuff_in, wrist, r_cuff, 24.0, "arm")]
        # the back of the hand: one wide, flat body from the wrist to the knuckles
        out.append((wrist + d * 6, knuckle - d * 22 + up * 2, 27.0, 36.0, "palm"))
        # four fingers of three phalanges, bending down more at each joint as they grip
        for k, off in enumerate((-1.5, -0.5, 0.5, 1.5)):
            base = knuckle + side * off * 17
            length = (62, 72, 70, 56)[k]
            along = d + side * off * 0.12 * self.spread
            along /= np.linalg.norm(along)
            bend = 0.22 + 0.55 * self.grip  # radians per joint
            p, a = base, 0.12
            for j, (share, r0, r1) in enumerate(((0.45, 9.6, 9.0), (0.30, 9.0, 8.4),
                                                  (0.25, 8.4, 7.6))):
                a += bend * (1.0 if j else 0.5)
                q = p + (along * math.cos(a) - up * math.sin(a)) * length * share
                out.append((p, q, r0, r1, ("knuckle", "finger", "nail")[j]))
                p = q
        thumb = wrist + d * 30 - side * 24
        mid = thumb + d * 24 - side * 9 - up * 6
        out.append((thumb, mid, 10.5, 9.0, "finger"))
        out.append((mid, mid + d * 20 - side * 6 - up * 8, 9.0, 8.0, "nail"))
        return out


def random_hand(rng: np.random.Generator, tip, seat_direction) -> Hand:
    """A hand reaching for ``tip`` from a player sitting towards ``seat_direction`` (a
    horizontal unit vector from the board to the player)."""
    seat = np.asarray(seat_direction, np.float64)
    side = np.array([-seat[1], seat[0], 0.0])
    tip = np.asarray(tip, np.float64)
    shoulder = tip + seat * rng.uniform(420, 560) + side * rng.normal(0, 120)
    shoulder[2] = rng.uniform(260, 380)
    return Hand(tuple(tip), tuple(shoulder), SKINS[int(rng.integers(len(SKINS)))],
                SLEEVES[int(rng.integers(len(SLEEVES)))], float(rng.uniform(0, 1)),
                float(rng.uniform(0, 0.8)), float(rng.uniform(0, 1)))


def _clip_segment(p0, p1, cam, near=40.0):
    z0 = float(cam.to_camera(p0[None])[0, 2])
    z1 = float(cam.to_camera(p1[None])[0, 2])
    if z0 < near and z1 < near:
        return None
    if z0 < near:
        p0 = p0 + (p1 - p0) * (near - z0) / (z1 - z0)
    elif z1 < near:
        p1 = p1 + (p0 - p1) * (near - z1) / (z0 - z1)
    return p0, p1


def _capsule_2d(mask, a, b, ra, rb, value=255):
    d = b - a
    n = np.array([-d[1], d[0]]) / max(np.linalg.norm(d), 1e-6)
    poly = np.array([a + n * ra, b + n * rb, b - n * rb, a - n * ra])
    cv2.fillConvexPoly(mask, np.round(poly * 16).astype(np.int32), value, cv2.LINE_AA, 4)
    for p, r in ((a, ra), (b, rb)):
        cv2.circle(mask, (int(p[0] * 16), int(p[1] * 16)), int(r * 16), value, -1,
                   cv2.LINE_AA, 4)


def _px_radius(cam, p, r):
    z = float(cam.to_camera(p[None])[0, 2])
    return cam.K[0, 0] * r / max(z, 1.0)


def draw_hands(p: Painter, hands) -> None:
    cam = p.cam
    H, W = p.H, p.W
    z_rest = p.scene.board.z_top
    # shadows first: each capsule projected from each lamp onto the board plane
    for lamp, share in zip(p.scene.lamps, p.light.shares, strict=True):
        f = 4
        mask = np.zeros((H // f + 1, W // f + 1), np.uint8)
        L = lamp.position
        for hand in hands:
            for a, b, ra, rb, _ in hand.capsules():
                if a[2] >= L[2] - 1 or b[2] >= L[2] - 1:
                    continue
                pa = L + (a - L) * (z_rest - L[2]) / (a[2] - L[2])
                pb = L + (b - L) * (z_rest - L[2]) / (b[2] - L[2])
                seg = _clip_segment(pa, pb, cam)
                if seg is None:
                    continue
                ua, ub = cam.project(np.array(seg), distort=False) / f
                ka = (L[2] - z_rest) / (L[2] - a[2])
                kb = (L[2] - z_rest) / (L[2] - b[2])
                _capsule_2d(mask, ua, ub, _px_radius(cam, seg[0], ra * ka) / f,
                            _px_radius(cam, seg[1], rb * kb) / f)
        if mask.any():
            height = np.mean([h.tip[2] - z_rest + 40 for h in hands])
            pen = lamp.radius * height / max(L[2] - height, 50.0) + 4
            soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0),
                                    max(1.0, pen * p.px_per_mm / f))
            soft = cv2.resize(soft, (W, H), interpolation=cv2.INTER_LINEAR)
            p._darken(soft, min(0.9, share * 0.85))
    for hand in hands:
        _draw_hand(p, hand)


def _capsule_normals(h: int, w: int, a, b, ra: float, rb: float,
                     flat: float = 1.0) -> np.ndarray:
    """Per pixel of an (h, w) box, the outward normal of the capsule a..b (pixel
    coordinates of the box, radii in pixels) in camera coordinates (x right, y down, z
    away): a round body seen from the camera; ``flat`` < 1 flattens it (the back of a
    hand). (h, w, 3) float32."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = [float(v) for v in a]
    d = np.array([float(b[0]) - a[0], float(b[1]) - a[1]], np.float32)
    ra, rb = float(ra), float(rb)
    dd = max(float(d @ d), 1e-6)
    t = np.clip(((xs - a[0]) * d[0] + (ys - a[1]) * d[1]) / dd, 0, 1)
    r = ra + (rb - ra) * t
    sx = (xs - (a[0] + t * d[0])) / r
    sy = (ys - (a[1] + t * d[1])) / r
    q = np.minimum(sx * sx + sy * sy, 1.0)
    k = np.sqrt(1.0 / np.maximum(sx * sx + sy * sy, 1.0)) * flat
    return np.stack([sx * k, sy * k, -np.sqrt(1.0 - q * flat * flat)], -1)


def _lit(p: Painter, normals: np.ndarray, where: np.ndarray, albedo, gloss: float,
         shin: float, wrap: float = 0.0) -> np.ndarray:
    """Colour of a surface of ``albedo`` with camera-frame ``normals`` at world point
    ``where``, under the scene's lamps and ambient (Blinn-Phong; ``wrap`` > 0 lets light
    reach past the terminator, as it does through skin)."""
    R = p.cam.R
    down = (R @ np.array([0.0, 0.0, -1.0])).astype(np.float32)  # world down, camera frame
    light = p.light
    diff = light.ambient[None, None] * (0.6 + 0.4 * np.clip(normals @ down, -1, 1))[..., None]
    spec = 0.0
    for (pos, col, d0) in light._lamps_f:
        v = R @ (np.asarray(pos) - where)
        dist = float(np.linalg.norm(v))
        lc = (v / dist).astype(np.float32)
        fall = (d0 / dist) ** 2
        ndl = np.maximum((normals @ lc + wrap) / (1 + wrap), 0)[..., None]
        colour = np.asarray(col, np.float32) * np.float32(fall)
        diff = diff + colour * ndl
        if gloss > 0:
            hv = lc + np.array([0, 0, -1], np.float32)
            hv /= np.linalg.norm(hv)
            spec = spec + colour * (gloss * np.maximum(normals @ hv, 0) ** shin)[..., None]
    return (np.asarray(albedo, np.float32) * diff + spec) * light.scale


def _draw_hand(p: Painter, hand: Hand) -> None:
    """The hand, its arm and sleeve on one layer, each part a round body lit by the
    lamps, with knuckles, joint creases and nails; blurred along its motion when it
    moves; then laid over the canvas and marked in the id buffer."""
    cam = p.cam
    eye = cam.center
    parts = []
    for a, b, ra, rb, part in hand.capsules():
        seg = _clip_segment(a, b, cam)
        if seg is None:
            continue
        ua, ub = cam.project(np.array(seg), distort=False)
        parts.append((ua, ub, _px_radius(cam, seg[0], ra), _px_radius(cam, seg[1], rb), part,
                      (seg[0] + seg[1]) / 2))
    if not parts:
        return
    # the arm's parts far to near, then the back of the hand, then the fingers over it
    rank = {"sleeve": 0, "cuff": 0, "arm": 0, "palm": 1, "knuckle": 2, "finger": 2, "nail": 2}
    parts.sort(key=lambda c: (rank[c[4]], -float(np.linalg.norm(c[5] - eye))))
    blur = np.zeros(2)
    if any(hand.motion):
        tip = np.asarray(hand.tip, np.float64)
        blur = np.diff(cam.project(np.array([tip, tip + hand.motion]), distort=False), axis=0)[0]
    pad = 4 + int(np.abs(blur).max())
    lo = np.min([np.minimum(u, v) - max(r0, r1) for u, v, r0, r1, *_ in parts], 0) - pad
    hi = np.max([np.maximum(u, v) + max(r0, r1) for u, v, r0, r1, *_ in parts], 0) + pad
    x0, y0 = (int(max(v, 0)) for v in np.floor(lo))
    x1, y1 = int(min(np.ceil(hi[0]), p.W)), int(min(np.ceil(hi[1]), p.H))
    if x1 <= x0 or y1 <= y0:
        return
    W, H = x1 - x0, y1 - y0
    layer = np.zeros((H, W, 3), np.float32)  # premultiplied colour
    alpha = np.zeros((H, W), np.float32)
    off = np.array([x0, y0], np.float64)
    skin = np.asarray(hand.skin, np.float32)
    sleeve = np.asarray(hand.sleeve, np.float32)
    for ua, ub, pra, prb, part, mid in parts:
        a, b = ua - off, ub - off
        r = max(pra, prb)
        bx0, by0 = (int(max(v, 0)) for v in np.floor(np.minimum(a, b) - r - 2))
        bx1 = int(min(np.ceil(max(a[0], b[0]) + r + 2), W))
        by1 = int(min(np.ceil(max(a[1], b[1]) + r + 2), H))
        if bx1 <= bx0 or by1 <= by0:
            continue
        o = np.array([bx0, by0], np.float64)
        m = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        _capsule_2d(m, a - o, b - o, pra, prb)
        if not m.any():
            continue
        n = _capsule_normals(by1 - by0, bx1 - bx0, a - o, b - o, pra, prb,
                             0.45 if part == "palm" else 1.0)
        cloth = part in ("sleeve", "cuff")
        base = sleeve * (0.8 if part == "cuff" else 1.0) if cloth else skin
        col = _lit(p, n, mid, base, 0.03 if cloth else 0.12, 8.0 if cloth else 12.0,
                   0.2 if cloth else 0.6)
        grain = cv2.resize(_MOTTLE, (bx1 - bx0, by1 - by0), interpolation=cv2.INTER_LINEAR)
        rim = 1.0 + n[..., 2]  # 0 facing the camera .. 1 at the silhouette
        if cloth:  # folds across the sleeve, and its weave
            ys, xs = np.mgrid[by0:by1, bx0:bx1].astype(np.float32)
            dd = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
            along = (xs * dd[0] + ys * dd[1]) / max(r, 1.0)
            col = col * (1 + 0.09 * np.sin(along * 2.3 + 3 * grain) * (1 - rim))[..., None]
        else:  # skin: mottled, warmer where light passes under it at the rims
            col = col * (1 + 0.05 * grain)[..., None]
            col = col * (1 + rim[..., None] * np.array([-0.10, -0.04, 0.10], np.float32))
        ca = m.astype(np.float32) * np.float32(1 / 255)
        L = layer[by0:by1, bx0:bx1]
        A = alpha[by0:by1, bx0:bx1]
        L *= 1 - ca[..., None]
        L += col * ca[..., None]
        A *= 1 - ca
        A += ca
    _skin_details(layer, alpha, parts, off, skin)
    length = float(np.hypot(*blur))
    if length > 1.0:  # a moving hand smears along its path
        from vision.render.effects import motion_kernel
        angle = float(np.degrees(np.arctan2(blur[1], blur[0])))
        # a long smear is smooth: work at half size, unless the layer is a sliver at the
        # frame's edge (a side of 1 px would halve to none)
        f = 2 if length > 8 and min(W, H) >= 2 else 1
        both = cv2.merge([layer, alpha])
        if f > 1:
            both = cv2.resize(both, (W // f, H // f), interpolation=cv2.INTER_AREA)
        both = cv2.filter2D(both, -1, motion_kernel(length / f, angle))
        if f > 1:
            both = cv2.resize(both, (W, H), interpolation=cv2.INTER_LINEAR)
        layer, alpha = np.ascontiguousarray(both[..., :3]), np.ascontiguousarray(both[..., 3])
    roi = p.canvas[y0:y1, x0:x1]
    roi *= (1 - alpha)[..., None]
    roi += layer
    sel = alpha > 0.5
    p.ids[y0:y1, x0:x1][sel] = len(p.records)
    p.records.append(FaceRecord(-2, None, int(np.count_nonzero(sel))))


def _skin_details(layer, alpha, parts, off, skin) -> None:
    """Knuckles (a light bump where each finger leaves the hand), creases at the finger
    joints and nails, drawn over the layer where it is covered."""
    fingers = [c for c in parts if c[4] in ("knuckle", "finger", "nail")]
    shade = np.zeros(alpha.shape, np.float32)
    nail = np.zeros(alpha.shape, np.uint8)
    for ua, ub, pra, prb, part, _ in fingers:
        a, b = ua - off, ub - off
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 2 or pra < 1.5:
            continue
        u = d / length
        nv = np.array([-u[1], u[0]])
        # a crease across the finger at the joint where this phalanx begins
        c0, c1 = a + u * 0.04 * length - nv * pra * 0.7, a + u * 0.04 * length + nv * pra * 0.7
        cv2.line(shade, tuple(np.round(c0 * 16).astype(int)), tuple(np.round(c1 * 16).astype(
            int)), -0.22, max(1, int(round(0.12 * pra))), cv2.LINE_AA, 4)
        if part == "nail":
            c = b - u * 0.3 * length
            axes = (max(1, int(0.32 * length * 16)), max(1, int(0.62 * prb * 16)))
            ang = float(np.degrees(np.arctan2(u[1], u[0])))
            cv2.ellipse(nail, (int(c[0] * 16), int(c[1] * 16)), axes, ang, 0, 360, 255, -1,
                        cv2.LINE_AA, 4)
        if part == "knuckle":  # a light bump where the finger leaves the hand
            cv2.circle(shade, (int(a[0] * 16), int(a[1] * 16)), max(1, int(pra * 0.8 * 16)),
                       0.12, -1, cv2.LINE_AA, 4)
    if shade.any():
        shade = cv2.GaussianBlur(shade, (0, 0), 0.8)
        layer *= (1 + shade * alpha)[..., None]
    if nail.any():
        na = cv2.GaussianBlur(nail.astype(np.float32) / 255, (0, 0), 0.6) * alpha
        tint = np.array([1.10, 1.12, 1.22], np.float32)  # paler and pinker than the skin
        layer *= (1 + na[..., None] * (tint - 1))
        layer += (na * 0.05)[..., None]  # the glossy nail catches some light


def hand_reach(rng, tip, seat_direction, progress: float) -> Hand:
    """The hand on its way in: ``progress`` 0 (outside, by the seat) .. 1 (at the tip)."""
    h = random_hand(rng, tip, seat_direction)
    t = 1 - (1 - float(np.clip(progress, 0, 1))) ** 2
    seat = np.asarray(seat_direction, np.float64)
    far = np.asarray(h.tip) + seat * 420 + np.array([0, 0, 140])
    tip_now = far + (np.asarray(h.tip) - far) * t + np.array([0, 0, 45 * math.sin(math.pi * t)])
    return replace(h, tip=tuple(tip_now))
