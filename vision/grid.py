"""Cells, plane homographies and crops from a found board.

The board top is the plane z = 0 of the board frame (u east, v north, millimetres). Its
homography to the image comes from the four found corners. A stacked cube's top lies on
the plane z = h above it; its homography needs the camera:

- with a calibration (``K``, ``dist``), the board's pose is solved from the four corners
  (``cv2.solvePnP``, IPPE for a plane) and ``H_h = K [r1 r2 h r3 + t]``;
- without one, the same is done with an assumed pinhole: focal length from the Raspberry
  Pi camera's typical 60 degree horizontal field of view, principal point at the image
  centre, no distortion. Heights come out a few per cent off; for crops that are then
  resized to 32 px this is well inside a cell's slack (documented in docs/vision.md).

Homographies ignore lens distortion (the corners themselves are measured in the delivered,
distorted image).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.board import BoardFix, Geometry

ASSUMED_HFOV_DEG = 60.0


def assumed_camera(size: tuple[int, int]) -> np.ndarray:
    """An intrinsic matrix for an uncalibrated Pi camera of image ``size`` (w, h)."""
    w, h = size
    f = (w / 2) / math.tan(math.radians(ASSUMED_HFOV_DEG) / 2)
    return np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], np.float64)


@dataclass(frozen=True)
class BoardPose:
    K: np.ndarray
    R: np.ndarray  # board frame -> camera
    t: np.ndarray  # (3,)
    calibrated: bool

    def plane_homography(self, z_mm: float) -> np.ndarray:
        """Homography from (u, v) mm on the plane z = ``z_mm`` of the board frame to px."""
        M = np.column_stack([self.R[:, 0], self.R[:, 1], z_mm * self.R[:, 2] + self.t])
        H = self.K @ M
        return H / H[2, 2]


def board_pose(fix: BoardFix, geom: Geometry, size: tuple[int, int],
               K: np.ndarray | None = None, dist: np.ndarray | None = None) -> BoardPose:
    """The board's pose from its four corners (``K`` None: the assumed camera).

    Two solutions, the one whose corners land nearer those seen kept: IPPE, and the
    plane's homography K [r1 r2 t] made a rotation. IPPE is the better fit to corners
    that no rigid view matches exactly, but fails on a board seen face on (NaN, or a
    pose some pixels off: 2..3 px for a 3x3 board face on away from the image's centre,
    hundreds at its centre), where the homography's pose is exact.
    """
    calibrated = K is not None
    K = np.asarray(K, np.float64) if calibrated else assumed_camera(size)
    corners = fix.corners
    if calibrated and dist is not None:
        corners = cv2.undistortPoints(corners.reshape(-1, 1, 2), K,
                                      np.asarray(dist, np.float64), P=K).reshape(-1, 2)
    mm = geom.corners_mm()
    poses = []
    ok, rvec, tvec = cv2.solvePnP(np.column_stack([mm, np.zeros(4)]),
                                  corners.astype(np.float64), K, None,
                                  flags=cv2.SOLVEPNP_IPPE)
    if ok and np.isfinite(rvec).all() and np.isfinite(tvec).all():
        poses.append(BoardPose(K, cv2.Rodrigues(rvec)[0], tvec.reshape(3), calibrated))
    try:
        poses.append(_pose_from_homography(K, mm, corners, calibrated))
    except ValueError:
        if not poses:
            raise
    return min(poses, key=lambda pose: _misfit_px(pose, mm, corners))


def _misfit_px(pose: BoardPose, mm: np.ndarray, corners: np.ndarray) -> float:
    """How far (px, the largest) ``pose`` puts the board's corners from ``corners``."""
    seen = cv2.perspectiveTransform(mm.reshape(-1, 1, 2).astype(np.float64),
                                    pose.plane_homography(0.0)).reshape(-1, 2)
    return float(np.abs(seen - corners).max())


def _pose_from_homography(K: np.ndarray, mm: np.ndarray, corners: np.ndarray,
                          calibrated: bool) -> BoardPose:
    H = cv2.getPerspectiveTransform(mm.astype(np.float32), corners.astype(np.float32))
    M = np.linalg.inv(K) @ H
    scale = 1.0 / np.linalg.norm(M[:, 0])
    if M[2, 2] * scale < 0:  # the board lies in front of the camera
        scale = -scale
    r1, r2, t = (M[:, i] * scale for i in range(3))
    u, _, vt = np.linalg.svd(np.column_stack([r1, r2, np.cross(r1, r2)]))
    R = u @ vt
    if not (np.isfinite(R).all() and np.isfinite(t).all()):
        raise ValueError("no camera pose fits the board corners")
    return BoardPose(K, R, t, calibrated)


def cell_polygons(H: np.ndarray, geom: Geometry, shrink: float = 1.0) -> np.ndarray:
    """(cells, 4, 2) image px of each field (corners nw, ne, se, sw) under ``H``."""
    quads = []
    for _, u, v, half in geom.cells:
        h = half * shrink
        quads.append([(u - h, v + h), (u + h, v + h), (u + h, v - h), (u - h, v - h)])
    pts = np.asarray(quads, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, H).reshape(len(geom.cells), 4, 2)


def rectify(image: np.ndarray, H: np.ndarray, geom: Geometry, px_per_mm: float = 4.0):
    """Top view of the plane of ``H``: north up, ``px_per_mm`` pixels a millimetre."""
    w, d = geom.width, geom.depth
    # top-view px -> mm (u, v) -> image px
    to_mm = np.array([[1 / px_per_mm, 0, -w / 2], [0, -1 / px_per_mm, d / 2], [0, 0, 1]])
    size = (int(round(w * px_per_mm)), int(round(d * px_per_mm)))
    return cv2.warpPerspective(image, H @ to_mm, size,
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)


def square_crop(image: np.ndarray, H: np.ndarray, u: float, v: float, half: float,
                size: int) -> np.ndarray:
    """The square of side 2 ``half`` mm centred on (u, v) of H's plane, ``size`` px, north
    up (rectified)."""
    s = 2 * half / size
    to_mm = np.array([[s, 0, u - half + s / 2], [0, -s, v + half - s / 2], [0, 0, 1]])
    return cv2.warpPerspective(image, H @ to_mm, (size, size),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def robust_lstsq(A: np.ndarray, b: np.ndarray, scale: float, rounds: int = 8) -> np.ndarray:
    """x minimising the Cauchy loss of A x - b at ``scale`` (iteratively reweighted least
    squares, ``rounds`` rounds): the corner refits onto a board's own lines
    (``read_cubes.refine``, ``read_neunfeld.refine``, the tiles' ``vision.board._polished``),
    where lines hidden by a stone, a pawn, a stack or a hand are outliers."""
    w = np.ones(len(b))
    for _ in range(rounds):
        sw = np.sqrt(w)
        x = np.linalg.lstsq(A * sw[:, None], b * sw, rcond=None)[0]
        r = (A @ x - b) / scale
        w = 1.0 / (1.0 + r * r)
    return x
