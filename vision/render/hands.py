"""Hands and arms reaching into the frame: skin-toned capsules with a soft shadow.

A ``Hand`` is a pose in world millimetres: where the arm comes from (a player's side),
where the fingertips are, how high the hand floats. ``draw_hands`` draws it on a
Painter after the pieces (a hand is above everything), with its shadow on the board and
the pieces below, and marks its pixels in the id buffer (truth: ``hidden_by: hand``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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

    def to_json(self) -> dict:
        return {"tip_mm": list(self.tip), "shoulder_mm": list(self.shoulder)}

    def capsules(self) -> list[tuple[np.ndarray, np.ndarray, float, float, str]]:
        """(start, end, start radius, end radius, part) in world mm."""
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
        out = [(sh, elbow, 40.0, 34.0, "sleeve"), (elbow, wrist, 31.0, 24.0, "arm")]
        for off in (-1, 1):  # a palm is wide and flat: two capsules side by side
            out.append((wrist + side * off * 9, knuckle + side * off * 17, 20.0, 20.0,
                        "palm"))
        for k, off in enumerate((-1.5, -0.5, 0.5, 1.5)):
            base = knuckle + side * off * 17
            length = (62, 72, 70, 56)[k]
            direction = d + side * off * 0.12 * self.spread
            end = base + direction * length * (1 - 0.3 * self.grip) - up * (16 + 20 * self.grip)
            out.append((base, end, 9.0, 7.5, "finger"))
        thumb_base = wrist + d * 30 - side * 24
        out.append((thumb_base, thumb_base + d * 40 - side * 14 - up * 12, 10.0, 8.0, "finger"))
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
                float(rng.uniform(0, 0.8)))


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


def _draw_hand(p: Painter, hand: Hand) -> None:
    cam = p.cam
    light_pt = np.asarray(hand.tip, np.float64) + (0, 0, 60)
    diff, _ = p.light.shade(light_pt[None], np.array([0, 0, 1.0]), 0.0, 1.0)
    tone = diff[0]
    parts = hand.capsules()
    # far parts first (the arm comes from outside and is usually farther than the hand)
    eye = cam.center
    parts.sort(key=lambda c: -float(np.linalg.norm((c[0] + c[1]) / 2 - eye)))
    rid = len(p.records)
    total = 0
    for a, b, ra, rb, part in parts:
        seg = _clip_segment(a, b, cam)
        if seg is None:
            continue
        ua, ub = cam.project(np.array(seg), distort=False)
        pra, prb = _px_radius(cam, seg[0], ra), _px_radius(cam, seg[1], rb)
        pad = int(max(pra, prb)) + 3
        x0 = int(max(min(ua[0], ub[0]) - pad, 0))
        y0 = int(max(min(ua[1], ub[1]) - pad, 0))
        x1 = int(min(max(ua[0], ub[0]) + pad, p.W))
        y1 = int(min(max(ua[1], ub[1]) + pad, p.H))
        if x1 <= x0 or y1 <= y0:
            continue
        off = np.array([x0, y0], np.float64)
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        _capsule_2d(m, ua - off, ub - off, pra, prb)
        if not m.any():
            continue
        # a rounded body: brighter along the middle, darker at the rims
        dist = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 3)
        r = max(1.0, float(dist.max()))
        round_ = np.sqrt(np.clip(dist / r, 0, 1))
        base = np.asarray(hand.sleeve if part == "sleeve" else hand.skin, np.float32)
        sheen = 0.0 if part == "sleeve" else 0.12
        shade = (0.42 + 0.58 * round_ + sheen * round_ ** 8)[..., None]
        col = base[None, None] * tone[None, None] * shade
        # skin and cloth are not flat colour: a faint mottle, redder in the creases
        grain = cv2.resize(_MOTTLE, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        col = col * (1 + 0.06 * grain)[..., None]
        if part != "sleeve":
            col = col * (1 - 0.12 * (1 - round_))[..., None] * np.array(
                [0.92, 0.95, 1.05], np.float32)
        a_ = (m.astype(np.float32) / 255)[..., None]
        roi = p.canvas[y0:y1, x0:x1]
        roi *= 1 - a_
        roi += col.astype(np.float32) * a_
        sel = m > 127
        p.ids[y0:y1, x0:x1][sel] = rid
        total += int(sel.sum())
    p.records.append(FaceRecord(-2, None, total))


def hand_reach(rng, tip, seat_direction, progress: float) -> Hand:
    """The hand on its way in: ``progress`` 0 (outside, by the seat) .. 1 (at the tip)."""
    h = random_hand(rng, tip, seat_direction)
    t = 1 - (1 - float(np.clip(progress, 0, 1))) ** 2
    seat = np.asarray(seat_direction, np.float64)
    far = np.asarray(h.tip) + seat * 420 + np.array([0, 0, 140])
    tip_now = far + (np.asarray(h.tip) - far) * t + np.array([0, 0, 45 * math.sin(math.pi * t)])
    return Hand(tuple(tip_now), h.shoulder, h.skin, h.sleeve, h.spread, h.grip)
