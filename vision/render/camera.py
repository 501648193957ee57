"""The camera: pinhole intrinsics, pose above the table, and lens distortion.

World frame (millimetres): the table top is the plane z = 0, x points east, y north,
z up. The camera looks at a target point on the table from ``distance`` mm away, tilted
``tilt`` degrees from straight down, from the side given by ``azimuth`` (0: the camera
stands south of the target and looks north, so north is up in the image; 90: it stands
east and looks west). Distortion follows OpenCV's model (k1, k2, p1, p2, k3), so that
``cv2.projectPoints`` with ``K`` and ``dist`` gives the same pixels as ``project``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

#: Frame size of the Raspberry Pi camera stream the pipeline reads.
FRAME_SIZE = (1280, 720)


@dataclass(frozen=True)
class Camera:
    K: np.ndarray  # 3x3 intrinsics of the delivered (distorted) image
    R: np.ndarray  # 3x3 rotation world -> camera (rows: image right, image down, forward)
    t: np.ndarray  # translation world -> camera, mm
    size: tuple[int, int]  # (width, height) in pixels
    dist: np.ndarray = field(default_factory=lambda: np.zeros(5))  # k1 k2 p1 p2 k3
    tilt: float = 0.0
    azimuth: float = 0.0
    distance: float = 0.0

    @property
    def center(self) -> np.ndarray:
        """The camera's optical centre in world coordinates (mm)."""
        return -self.R.T @ self.t

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        return np.asarray(pts, np.float64).reshape(-1, 3) @ self.R.T + self.t

    def project(self, pts: np.ndarray, distort: bool = True) -> np.ndarray:
        """World points (N, 3) -> pixel coordinates (N, 2) of the delivered image."""
        pc = self.to_camera(pts)
        z = np.maximum(pc[:, 2], 1e-6)
        x, y = pc[:, 0] / z, pc[:, 1] / z
        if distort and self.dist.any():
            x, y = distort_normalized(x, y, self.dist)
        K = self.K
        out = np.empty((len(pc), 2))
        out[:, 0] = x * K[0, 0] + K[0, 2]
        out[:, 1] = y * K[1, 1] + K[1, 2]
        return out

    def with_intrinsics(self, K: np.ndarray, size: tuple[int, int]) -> Camera:
        """The same pose with other intrinsics and no distortion (for render canvases)."""
        return Camera(K, self.R, self.t, size, np.zeros(5), self.tilt, self.azimuth,
                      self.distance)

    def to_json(self) -> dict:
        return {
            "size": list(self.size),
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "R": self.R.tolist(),
            "t": self.t.tolist(),
            "center_mm": self.center.tolist(),
            "tilt_deg": self.tilt,
            "azimuth_deg": self.azimuth,
            "distance_mm": self.distance,
        }


def distort_normalized(x: np.ndarray, y: np.ndarray, dist: np.ndarray):
    k1, k2, p1, p2, k3 = (float(v) for v in dist[:5])
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return xd, yd


def undistort_normalized(xd: np.ndarray, yd: np.ndarray, dist: np.ndarray, iters: int = 12):
    """Invert ``distort_normalized`` by fixed-point iteration (mild lenses converge fast)."""
    k1, k2, p1, p2, k3 = (float(v) for v in dist[:5])
    x, y = xd.copy(), yd.copy()
    for _ in range(iters):
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        x = (xd - dx) / radial
        y = (yd - dy) / radial
    return x, y


def intrinsics(hfov_deg: float, size: tuple[int, int], center_offset=(0.0, 0.0)) -> np.ndarray:
    w, h = size
    f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
    return np.array([[f, 0, (w - 1) / 2 + center_offset[0]],
                     [0, f, (h - 1) / 2 + center_offset[1]],
                     [0, 0, 1]], np.float64)


def look_at(target, tilt: float, azimuth: float, distance: float, roll: float = 0.0):
    """(R, t) of a camera ``distance`` mm from ``target``, tilted from vertical."""
    th, az, ro = (math.radians(v) for v in (tilt, azimuth, roll))
    h = np.array([math.sin(az), -math.cos(az), 0.0])
    back = math.sin(th) * h + np.array([0, 0, math.cos(th)])
    center = np.asarray(target, np.float64) + distance * back
    fwd = -back
    right = np.array([math.cos(az), math.sin(az), 0.0])
    right = right - fwd * (right @ fwd)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    c, s = math.cos(ro), math.sin(ro)
    right, down = c * right + s * down, -s * right + c * down
    R = np.stack([right, down, fwd])
    return R, -R @ center


def make_camera(target, tilt: float, azimuth: float, distance: float, *, roll: float = 0.0,
                hfov: float = 62.2, size: tuple[int, int] = FRAME_SIZE,
                dist=(0, 0, 0, 0, 0), center_offset=(0.0, 0.0)) -> Camera:
    R, t = look_at(target, tilt, azimuth, distance, roll)
    return Camera(intrinsics(hfov, size, center_offset), R, t, size,
                  np.asarray(dist, np.float64), float(tilt), float(azimuth), float(distance))


def random_camera(rng: np.random.Generator, target, extent_mm: float, mode: str = "any",
                  size: tuple[int, int] = FRAME_SIZE, azimuth_spread: float = 25.0,
                  distortion: bool = True, max_distance: float = 1000.0) -> Camera:
    """A camera as mounted at a real table, framing an object ``extent_mm`` across.

    ``mode``: ``overhead`` (0..6 degrees from vertical), ``oblique`` (30..60) or ``any``.
    Distance is 0.3 m to ``max_distance`` (1 m), never so close that the object leaves
    the frame. The lens is
    a Raspberry Pi camera's (53..66 degrees wide) with mild barrel or pincushion.
    """
    if mode == "any":
        mode = "overhead" if rng.random() < 0.4 else "oblique"
    tilt = float(rng.uniform(0, 6) if mode == "overhead" else rng.uniform(30, 60))
    azimuth = float(rng.normal(0, azimuth_spread))
    hfov = float(rng.uniform(53, 66))
    vfov = 2 * math.degrees(math.atan(math.tan(math.radians(hfov) / 2) * size[1] / size[0]))
    need = extent_mm * 1.1 / (2 * math.tan(math.radians(vfov) / 2))
    lo = max(300.0, need)
    hi = max(lo, max_distance)
    distance = float(lo + (hi - lo) * rng.random() ** 1.5)  # nearer cameras more often
    roll = float(rng.normal(0, 2.0))
    jitter = rng.normal(0, extent_mm * 0.06, 2)
    tgt = np.array([target[0] + jitter[0], target[1] + jitter[1], target[2]])
    dist = (0, 0, 0, 0, 0)
    if distortion:
        dist = (float(rng.uniform(-0.12, 0.05)), float(rng.uniform(-0.02, 0.06)),
                float(rng.normal(0, 0.0007)), float(rng.normal(0, 0.0007)), 0.0)
    offset = tuple(float(v) for v in rng.normal(0, 6, 2))
    return make_camera(tgt, tilt, azimuth, distance, roll=roll, hfov=hfov, size=size,
                       dist=dist, center_offset=offset)


class Distorter:
    """Maps a pinhole-rendered canvas to the delivered, distorted frame.

    The canvas has the camera's focal length but a margin on every side, enough to hold
    every point the distorted frame sees. ``canvas_camera`` renders it; ``apply`` remaps.
    """

    GRID = 16  # the inverse map is solved on a grid this many pixels apart, then upsampled

    def __init__(self, cam: Camera):
        w, h = cam.size
        K, dist = cam.K, cam.dist
        gx = np.arange(0, w + self.GRID, self.GRID, dtype=np.float64)
        gy = np.arange(0, h + self.GRID, self.GRID, dtype=np.float64)
        X, Y = np.meshgrid(gx, gy)
        xd = (X - K[0, 2]) / K[0, 0]
        yd = (Y - K[1, 2]) / K[1, 1]
        xu, yu = undistort_normalized(xd, yd, dist)
        ux = K[0, 0] * xu + K[0, 2]
        uy = K[1, 1] * yu + K[1, 2]
        m = int(math.ceil(max(0.0, -ux.min(), -uy.min(), ux.max() - (w - 1),
                              uy.max() - (h - 1)))) + 2
        self.margin = m
        Kc = K.copy()
        Kc[0, 2] += m
        Kc[1, 2] += m
        self.canvas_camera = cam.with_intrinsics(Kc, (w + 2 * m, h + 2 * m))
        self.identity = not np.any(dist)
        if not self.identity:
            # bilinear interpolation of the grid, sample i of the grid at pixel i * GRID
            px = np.arange(w, dtype=np.float32) / self.GRID
            py = np.arange(h, dtype=np.float32) / self.GRID
            PX, PY = np.meshgrid(px, py)
            self.map_x = cv2.remap((ux + m).astype(np.float32), PX, PY, cv2.INTER_LINEAR)
            self.map_y = cv2.remap((uy + m).astype(np.float32), PX, PY, cv2.INTER_LINEAR)
        self.size = (w, h)

    def apply(self, canvas: np.ndarray, interpolation=cv2.INTER_LINEAR) -> np.ndarray:
        m = self.margin
        if self.identity:
            return canvas[m:m + self.size[1], m:m + self.size[0]]
        return cv2.remap(canvas, self.map_x, self.map_y, interpolation,
                         borderMode=cv2.BORDER_REPLICATE)
