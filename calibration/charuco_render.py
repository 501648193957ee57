"""Rendered photographs of the printed ChArUco board, with their true camera: the test
and benchmark data of the camera calibration.

The board lies flat on the table (world plane z = 0, its centre at the origin, x east,
y north, the board's top edge north) and is photographed by a ``vision.render.camera``
camera (``make_camera``: tilt, azimuth, distance, lens distortion through the
``Distorter``). The sheet is warped straight onto the undistorted canvas, the canvas is
distorted, then lit unevenly, blurred a little and given sensor noise.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.charuco import PATTERN, PRINT_MARGIN_MM, board_image, board_size_mm
from vision.render.camera import FRAME_SIZE, Camera, Distorter, make_camera

SHEET_PX_PER_MM = 8.0
LENS = (-0.09, 0.03, 0.0004, -0.0003, 0.0)  # a mild barrel lens, as random_camera draws


def sheet_to_world(px_per_mm: float = SHEET_PX_PER_MM, margin_mm: float = PRINT_MARGIN_MM,
                   pattern: dict = PATTERN) -> np.ndarray:
    """3x3 affine map: sheet image pixel (centre convention) -> world (x, y) mm."""
    w, h = board_size_mm(pattern)
    s = 1 / px_per_mm
    # pixel centre i lies at (i + 0.5) / ppm mm from the sheet's edge
    return np.array([[s, 0, 0.5 * s - margin_mm - w / 2],
                     [0, -s, -(0.5 * s - margin_mm) + h / 2],
                     [0, 0, 1]])


def board_to_world(pattern: dict = PATTERN) -> np.ndarray:
    """Board mm (OpenCV's: origin top-left of the squares, y down) -> world (x, y, 0)."""
    w, h = board_size_mm(pattern)
    return np.array([[1, 0, -w / 2], [0, -1, h / 2], [0, 0, 1]], np.float64)


def render_view(cam: Camera, rng: np.random.Generator, noise: float = 3.0,
                pattern: dict = PATTERN) -> np.ndarray:
    """A BGR uint8 photograph of the board lying on a grey table, seen by ``cam``."""
    sheet = board_image(SHEET_PX_PER_MM, PRINT_MARGIN_MM, pattern)
    dist = Distorter(cam)
    canvas_cam = dist.canvas_camera
    plane = canvas_cam.K @ np.column_stack([canvas_cam.R[:, 0], canvas_cam.R[:, 1],
                                            canvas_cam.t])
    H = plane @ sheet_to_world(pattern=pattern)
    w, h = canvas_cam.size
    table = np.full((h, w), float(rng.uniform(70, 120)), np.float32)
    table += cv2.GaussianBlur(rng.normal(0, 12, (h, w)).astype(np.float32), (0, 0), 3)
    paper = cv2.warpPerspective(sheet.astype(np.float32) * 0.85 + 20, H, (w, h),
                                flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.ones_like(sheet, np.float32), H, (w, h),
                                 flags=cv2.INTER_LINEAR)
    canvas = table * (1 - inside) + paper * inside
    image = dist.apply(canvas)
    # a lamp off to one side: a smooth brightness ramp across the frame
    fw, fh = cam.size
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xx / fw - 0.5) * math.cos(angle) + (yy / fh - 0.5) * math.sin(angle)
    image = image * (1 + float(rng.uniform(0.1, 0.35)) * ramp) * float(rng.uniform(0.8, 1.1))
    image = cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.5, 1.0)))
    image += rng.normal(0, noise, image.shape).astype(np.float32)
    grey = np.clip(image + 0.5, 0, 255).astype(np.uint8)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)


def views(n: int, seed: int, hfov: float = 62.2, lens=LENS, size=FRAME_SIZE):
    """``n`` cameras photographing the board as a person calibrating would hold it: tilted
    15..50 degrees towards every side of the image (the first view nearly flat), the board
    moved towards each part of the frame; and
    their photographs. Returns (images, cameras)."""
    rng = np.random.default_rng(seed)
    images, cams = [], []
    for i in range(n):
        tilt = 8.0 if i == 0 else float(rng.uniform(15, 50))
        azimuth = float(rng.uniform(-180, 180))
        distance = float(rng.uniform(330, 480))
        # aim away from the board's centre so it lands in other parts of the frame
        k = i % 9
        aim = np.array([(k % 3 - 1) * 75.0, (k // 3 - 1) * 45.0]) + rng.normal(0, 10, 2)
        cam = make_camera((*aim, 0.0), tilt, azimuth, distance, roll=float(rng.uniform(-180, 180)),
                          hfov=hfov, size=size, dist=lens,
                          center_offset=(7.0, -4.0))
        images.append(render_view(cam, rng))
        cams.append(cam)
    return images, cams


def true_corners(cam: Camera, pattern: dict = PATTERN) -> np.ndarray:
    """The board's inner corners (OpenCV's order) in the delivered image, px."""
    from calibration.charuco import board

    obj = board(pattern).getChessboardCorners().reshape(-1, 3)[:, :2]
    xy = cv2.perspectiveTransform(obj.reshape(-1, 1, 2).astype(np.float64),
                                  board_to_world(pattern)).reshape(-1, 2)
    return cam.project(np.column_stack([xy, np.zeros(len(xy))]))
