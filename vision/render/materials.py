"""Procedural surface textures: wood, cloth, paper, leather, glazed ceramic.

All textures are float32 BGR images in [0, 1], generated from a numpy Generator so the
same seed gives the same texture. Sizes are in pixels; callers pick the resolution
(pixels per millimetre) that their surface needs.
"""

from __future__ import annotations

import cv2
import numpy as np


def _hex(c: str) -> np.ndarray:
    """'#rrggbb' -> BGR float32 in [0, 1]."""
    c = c.lstrip("#")
    r, g, b = (int(c[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return np.array([b, g, r], np.float32)


def noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Smooth value noise in about [-1, 1] with features ``cell`` pixels across."""
    gh = max(2, int(round(h / cell)) + 2)
    gw = max(2, int(round(w / cell)) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    out = cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(out, -2.5, 2.5) / 1.5


def fractal(rng, h, w, cell, octaves=4, gain=0.5) -> np.ndarray:
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for _ in range(octaves):
        if cell < 1.0:
            break
        out += amp * noise(rng, h, w, cell)
        total += amp
        amp *= gain
        cell /= 2
    return out / max(total, 1e-6)


def streaks(rng, h, w, along: float, across: float) -> np.ndarray:
    """Noise stretched along x: ``along`` pixels long, ``across`` pixels wide (fibres)."""
    gh = max(2, int(h / across) + 2)
    gw = max(2, int(w / along) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_LINEAR) / 1.5


def _mix(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Per-pixel blend from colour ``a`` (t = 0) to ``b`` (t = 1), through a 256-step
    table (much faster than broadcasting on big textures)."""
    ramp = np.linspace(0, 1, 256, dtype=np.float32)[:, None]
    lut = np.clip((a[None] * (1 - ramp) + b[None] * ramp) * 255, 0, 255)
    idx = cv2.convertScaleAbs(np.maximum(t, np.float32(0)), alpha=255.0)  # saturates to 0..255
    out = cv2.LUT(cv2.merge([idx, idx, idx]), lut.astype(np.uint8)[:, None, :])
    return out.astype(np.float32) * np.float32(1 / 255)


# --------------------------------------------------------------------------- wood

WOOD_PALETTES = {
    # light and dark tone of the grain
    "beech": ("#e2bf8f", "#c29462"),
    "maple": ("#ead2a8", "#cfae7e"),
    "oak": ("#c9a26c", "#936c3f"),
    "pine": ("#e6c48e", "#b9824a"),
    "walnut": ("#8a6446", "#4f3423"),
    "cherry": ("#b27750", "#7c4a2c"),
    "teak": ("#a67849", "#6e4a28"),
    "whitewash": ("#ddd6c8", "#b9ab95"),
}


def wood(rng: np.random.Generator, h: int, w: int, px_per_mm: float, palette=None,
         planks: bool = False, tint=None) -> np.ndarray:
    """Wood with its grain along x. ``planks``: boards 90..160 mm wide with seams."""
    if palette is None:
        palette = str(rng.choice(sorted(WOOD_PALETTES)))
    light, dark = (_hex(c) for c in WOOD_PALETTES[palette])
    if tint is not None:
        light = light * 0.35 + np.asarray(tint, np.float32) * 0.65
        dark = dark * 0.35 + np.asarray(tint, np.float32) * 0.45
    light = light * np.float32(rng.uniform(0.93, 1.05))
    dark = dark * np.float32(rng.uniform(0.9, 1.05))
    ys = np.arange(h, dtype=np.float32)[:, None] / px_per_mm
    ring = float(rng.uniform(1.2, 3.5))  # mm between growth rings
    # the grain wanders slowly along its length and a little across it
    warp = cv2.GaussianBlur(streaks(rng, h, w, along=max(2.0, 120 * px_per_mm),
                                    across=max(1.0, 12 * px_per_mm)), (0, 0), 1.0) * ring * 2.0
    warp2 = noise(rng, h, w, cell=max(4.0, 250 * px_per_mm)) * ring * 5
    phase = (ys + warp + warp2) / ring
    rings = 0.5 + 0.5 * np.sin(phase * 2 * np.pi)
    rings = rings ** float(rng.uniform(3.0, 6.0))
    fib = streaks(rng, h, w, along=max(2.0, 25 * px_per_mm), across=max(1.0, 0.3 * px_per_mm))
    t = (float(rng.uniform(0.25, 0.45)) * rings + 0.10 * fib
         + 0.15 * fractal(rng, h, w, max(3.0, 40 * px_per_mm), 3))
    img = _mix(light, dark, t + 0.25)
    if planks:
        x = 0
        while x < h:
            pw = int(rng.uniform(90, 160) * px_per_mm)
            img[x:x + pw] *= np.float32(rng.uniform(0.88, 1.1))
            seam = max(1, int(round(0.8 * px_per_mm)))
            img[x:x + seam] *= 0.55
            x += pw
    return np.clip(img, 0, 1).astype(np.float32)


# --------------------------------------------------------------------------- cloth

CLOTH_COLOURS = ["#2f5d3a", "#1f4f6b", "#6b6f73", "#8a2f2f", "#2c2c34", "#c7c0b0",
                 "#4a5d7a", "#7b6a4f", "#d8d2c4", "#3e6b5c"]


def cloth(rng, h, w, px_per_mm, colour=None) -> np.ndarray:
    """Felt or linen: a mottled colour with a fine weave, sometimes a gingham check."""
    base = _hex(colour or str(rng.choice(CLOTH_COLOURS)))
    mott = fractal(rng, h, w, max(3.0, 60 * px_per_mm), 4)
    fine = noise(rng, h, w, max(1.0, 0.7 * px_per_mm))
    img = base * (1 + 0.07 * mott[..., None] + 0.05 * fine[..., None])
    if rng.random() < 0.15:  # a checked tablecloth
        period = rng.uniform(12, 30) * px_per_mm
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        cy = (np.sin(ys / period * np.pi) > 0).astype(np.float32)
        cx = (np.sin(xs / period * np.pi) > 0).astype(np.float32)
        check = (cy + cx) / 2
        img = img * (0.8 + 0.2 * (1 - check))[..., None] + 0.2 * (1 - check)[..., None]
    return np.clip(img, 0, 1).astype(np.float32)


# --------------------------------------------------------------------------- paper

PAPER_COLOURS = ["#f1ede4", "#e9e4d8", "#f4f4f0", "#c8ad84", "#dfe3e6"]


def paper(rng, h, w, px_per_mm, colour=None) -> np.ndarray:
    base = _hex(colour or str(rng.choice(PAPER_COLOURS)))
    fib = streaks(rng, h, w, max(2.0, 3 * px_per_mm), max(1.0, 0.4 * px_per_mm))
    mott = fractal(rng, h, w, max(3.0, 40 * px_per_mm), 3)
    img = base * (1 + 0.02 * fib[..., None] + 0.03 * mott[..., None])
    return np.clip(img, 0, 1).astype(np.float32)


# --------------------------------------------------------------------------- leather

LEATHER_COLOURS = ["#7a4a2a", "#5c3a22", "#8c5a33", "#3b2a20", "#9a6a3e", "#6e2f22"]


def leather(rng, h, w, px_per_mm, colour=None) -> np.ndarray:
    """Pebbled leather: small bumps lit from the top left, mottled tone."""
    base = _hex(colour or str(rng.choice(LEATHER_COLOURS)))
    bumps = noise(rng, h, w, max(1.5, 0.9 * px_per_mm))
    shade = cv2.Sobel(bumps, cv2.CV_32F, 1, 1, ksize=3) * 0.6
    mott = fractal(rng, h, w, max(3.0, 30 * px_per_mm), 3)
    img = base * (1 + 0.12 * mott[..., None] + 0.10 * bumps[..., None] + shade[..., None])
    return np.clip(img, 0, 1).astype(np.float32)


# --------------------------------------------------------------------------- ceramic

GLAZE_COLOURS = ["#f2f0ea", "#eeeae0", "#f4f3ef", "#e9ecea", "#efe6d6"]


def ceramic(rng, h, w, px_per_mm, colour=None) -> np.ndarray:
    """A glazed tile: near-white glaze, faint mottle, a few dark specks."""
    base = _hex(colour or str(rng.choice(GLAZE_COLOURS)))
    mott = fractal(rng, h, w, max(3.0, 15 * px_per_mm), 3)
    img = base * (1 + 0.018 * mott[..., None])
    n = int(h * w / (px_per_mm ** 2) / 400)
    ys = rng.integers(0, h, n)
    xs = rng.integers(0, w, n)
    for y, x in zip(ys, xs, strict=True):
        cv2.circle(img, (int(x), int(y)), max(1, int(0.12 * px_per_mm)),
                   (base * 0.6).tolist(), -1, cv2.LINE_AA)
    return np.clip(img, 0, 1).astype(np.float32)


# --------------------------------------------------------------------------- floor

def floor(rng, h, w) -> np.ndarray:
    """What lies beyond the table edge: a dim, blurred room."""
    base = _hex(str(rng.choice(["#3a342e", "#2b2f33", "#4a4038", "#25221f", "#5a554e"])))
    grad = np.linspace(0.6, 1.2, h, dtype=np.float32)[:, None, None]
    img = base * grad * (1 + 0.15 * fractal(rng, h, w, max(4.0, w / 8), 3)[..., None])
    return np.clip(img, 0, 1).astype(np.float32)


TABLE_KINDS = ("wood", "cloth", "paper")


def table_texture(rng, h, w, px_per_mm, kind=None) -> tuple[str, np.ndarray]:
    kind = kind or str(rng.choice(TABLE_KINDS, p=[0.55, 0.3, 0.15]))
    if kind == "wood":
        return kind, wood(rng, h, w, px_per_mm, planks=rng.random() < 0.6)
    if kind == "cloth":
        return kind, cloth(rng, h, w, px_per_mm)
    if kind == "paper":
        return kind, paper(rng, h, w, px_per_mm)
    raise ValueError(f"unknown table kind {kind!r} (known: {', '.join(TABLE_KINDS)})")
