"""The camera's imaging chain: exposure, white balance, glare, vignetting, focus and
motion blur, sensor noise, 8-bit quantisation and JPEG.

``random_effects`` draws one set of settings from a Generator; ``apply_effects`` turns a
float32 BGR render into the uint8 image a camera would deliver. With ``Effects.clean()``
the chain only quantises (for geometry tests).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache

import cv2
import numpy as np


@dataclass(frozen=True)
class Effects:
    exposure: float = 0.45  # target mean brightness of the metered centre
    wb: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains (white balance error)
    contrast: float = 1.0
    saturation: float = 1.0
    vignette: float = 0.0  # darkening at the corners, 0..1
    bloom: float = 0.0  # glow round overexposed highlights
    focus_sigma: float = 0.0  # pixels
    motion_px: float = 0.0  # length of a straight motion blur
    motion_deg: float = 0.0
    read_noise: float = 0.0  # std of additive noise, in 0..1 units
    shot_noise: float = 0.0  # signal-dependent variance factor
    jpeg_quality: int = 0  # 0: no JPEG round trip
    auto_exposure: bool = True

    @classmethod
    def clean(cls) -> Effects:
        return cls(auto_exposure=False)

    def to_json(self) -> dict:
        d = asdict(self)
        d["wb"] = list(self.wb)
        return d


def random_effects(rng: np.random.Generator) -> Effects:
    wb = np.exp(rng.normal(0, 0.06, 3))
    motion = float(rng.uniform(2, 7)) if rng.random() < 0.1 else 0.0
    return Effects(
        exposure=float(rng.uniform(0.33, 0.56)),
        wb=tuple(float(v) for v in wb / wb[1]),
        contrast=float(rng.uniform(0.9, 1.15)),
        saturation=float(rng.uniform(0.8, 1.15)),
        vignette=float(rng.uniform(0.0, 0.45)),
        bloom=float(rng.uniform(0.1, 0.5)),
        focus_sigma=float(rng.choice([0.0, rng.uniform(0.3, 1.0), rng.uniform(1.0, 1.8)],
                                     p=[0.3, 0.5, 0.2])),
        motion_px=motion,
        motion_deg=float(rng.uniform(0, 180)),
        read_noise=float(rng.uniform(0.002, 0.018)),
        shot_noise=float(rng.uniform(0.0003, 0.004)),
        jpeg_quality=int(rng.integers(55, 96)),
    )


def motion_kernel(length: float, deg: float) -> np.ndarray:
    n = int(np.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    a = np.radians(deg)
    dx, dy = np.cos(a) * length / 2, np.sin(a) * length / 2
    cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)),
                                                          int(round(c + dy))), 1.0, 1,
             cv2.LINE_AA)
    return k / k.sum()


def _unit_noise(rng: np.random.Generator, shape) -> np.ndarray:
    """Zero-mean, unit-variance noise (the sum of two uniform bytes: triangular, close
    enough to Gaussian for a sensor and ten times faster to draw)."""
    n = int(np.prod(shape))
    b = np.frombuffer(rng.bytes(2 * n), np.uint8).reshape(2, *shape)
    s = cv2.add(b[0], b[1], dtype=cv2.CV_32F)
    s -= np.float32(255.0)
    s *= np.float32(1 / (255.0 * 0.4082))
    return s


TILE = (720 + 160, 1280 + 160)


@lru_cache(maxsize=1)
def _noise_tile() -> np.ndarray:
    """A fixed field of sensor noise, a little larger than a frame; each image takes a
    window of it at a random offset (drawing fresh noise per frame cost more than the
    rest of the imaging chain)."""
    tile = _unit_noise(np.random.Generator(np.random.PCG64(20261123)), (*TILE, 3))
    tile.setflags(write=False)
    return tile


def _noise(rng: np.random.Generator, shape) -> np.ndarray:
    h, w = shape[:2]
    th, tw = TILE
    if h > th or w > tw:
        return _unit_noise(rng, shape)
    y, x = (int(v) for v in rng.integers(0, (th - h + 1, tw - w + 1)))
    return _noise_tile()[y:y + h, x:x + w]


@lru_cache(maxsize=8)
def _radius2(h: int, w: int) -> np.ndarray:
    """Squared distance from the centre, 0 there and 2 in the corners, (h, w, 3)."""
    yy, xx = np.ogrid[-1:1:complex(0, h), -1:1:complex(0, w)]
    r2 = cv2.cvtColor((xx * xx + yy * yy).astype(np.float32), cv2.COLOR_GRAY2BGR)
    r2.setflags(write=False)
    return r2


def apply_effects(img: np.ndarray, fx: Effects, rng: np.random.Generator,
                  meter_mask: np.ndarray | None = None) -> np.ndarray:
    """float32 BGR (about 0..1) -> uint8 BGR as the camera delivers it. (OpenCV's
    whole-image operations throughout: numpy's take several times longer on a frame.)"""
    x = img
    gain = np.asarray(fx.wb, np.float32)
    if fx.auto_exposure:
        h, w = x.shape[:2]
        centre = x[h // 4:3 * h // 4, w // 4:3 * w // 4]
        mean = float(np.mean(cv2.mean(centre)[:3])) if meter_mask is None \
            else float(x[meter_mask].mean())
        gain = gain * np.float32(fx.exposure / max(mean, 1e-3))
    if fx.bloom > 0:
        h, w = x.shape[:2]
        over = cv2.threshold(cv2.subtract(x, (1.0, 1.0, 1.0, 0.0)), 0.0, 0, cv2.THRESH_TOZERO)[1]
        over = cv2.resize(over, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
        if over.max() > 0:  # what is brighter than white glows round itself
            glow = cv2.resize(cv2.GaussianBlur(over, (0, 0), 1.5), (w, h))
            x = cv2.scaleAdd(glow, float(fx.bloom * 2), x)
    g = (float(gain[0]), float(gain[1]), float(gain[2]), 0.0)
    if fx.vignette > 0:  # the lens darkens the corners: with the gains, one pass
        r2 = _radius2(*x.shape[:2])
        x = cv2.multiply(x, cv2.multiply(cv2.addWeighted(r2, -fx.vignette / 2, r2, 0.0, 1.0), g))
    else:
        x = cv2.multiply(x, g)
    if fx.saturation != 1.0 or fx.contrast != 1.0:
        # contrast about mid grey and saturation about each pixel's grey, in one step
        s, c = fx.saturation, fx.contrast
        grey = cv2.cvtColor(cv2.cvtColor(x, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        x = cv2.addWeighted(x, s * c, grey, (1 - s) * c, 0.45 * (1 - c))
    # a soft shoulder instead of a hard clip for highlights: slope 1 at 0.8, towards 1.0
    low = cv2.threshold(x, 0.8, 0, cv2.THRESH_TRUNC)[1]  # min(x, 0.8)
    over = cv2.subtract(x, low)
    x = cv2.add(low, cv2.divide(over, cv2.addWeighted(over, 5.0, over, 0.0, 1.0)))
    if fx.focus_sigma > 0.05:
        x = cv2.GaussianBlur(x, (0, 0), fx.focus_sigma)
    if fx.motion_px > 1:
        x = cv2.filter2D(x, -1, motion_kernel(fx.motion_px, fx.motion_deg))
    if fx.read_noise > 0 or fx.shot_noise > 0:  # shot noise grows with the signal
        grey = cv2.threshold(cv2.cvtColor(x, cv2.COLOR_BGR2GRAY), 0.0, 0, cv2.THRESH_TOZERO)[1]
        sd = cv2.sqrt(cv2.addWeighted(grey, float(fx.shot_noise), grey, 0.0,
                                      float(fx.read_noise) ** 2))
        x = cv2.add(x, cv2.multiply(cv2.cvtColor(sd, cv2.COLOR_GRAY2BGR), _noise(rng, x.shape)))
    out = cv2.convertScaleAbs(cv2.threshold(x, 0.0, 0, cv2.THRESH_TOZERO)[1], alpha=255.0)
    if fx.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, fx.jpeg_quality])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
