"""Camera intrinsics from a ChArUco board: the board to print, corner detection,
``cv2.calibrateCamera`` and guidance on which views are still missing.

Only the ChArUco API that OpenCV 4.11 and 5.0 share is used (``cv2.aruco.CharucoBoard``,
``CharucoDetector.detectBoard``, ``CharucoBoard.matchImagePoints``,
``CharucoBoard.generateImage``, ``cv2.calibrateCamera``); the legacy ``aruco``
functions are gone in 5.0.

The board (``PATTERN``): 7 x 5 squares of 25 mm, ArUco markers of 18 mm from the 4x4
dictionary: 175 x 125 mm, it fits an A4 sheet. Board coordinates: millimetres, origin at
the top-left corner of the squares, x right, y down (OpenCV's).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.files import CameraCalibration

PATTERN = {"squares": [7, 5], "square_mm": 25.0, "marker_mm": 18.0,
           "dictionary": "DICT_4X4_50"}
MIN_CORNERS = 6  # a view with fewer detected corners is not used
MIN_VIEWS = 4
PRINT_PX_PER_MM = 12.0  # 304.8 dpi: a 25 mm square is exactly 300 pixels
PRINT_MARGIN_MM = 10.0
A4_MM = (210.0, 297.0)
GRID = 3  # the frame is split GRID x GRID for the coverage guidance
TILT_WANTED_DEG = 25.0  # views tilted at least this much, each way, pin the focal length


def board(pattern: dict = PATTERN) -> cv2.aruco.CharucoBoard:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, pattern["dictionary"]))
    return cv2.aruco.CharucoBoard(tuple(pattern["squares"]), float(pattern["square_mm"]),
                                  float(pattern["marker_mm"]), dictionary)


def board_size_mm(pattern: dict = PATTERN) -> tuple[float, float]:
    sx, sy = pattern["squares"]
    return sx * pattern["square_mm"], sy * pattern["square_mm"]


def board_image(px_per_mm: float, margin_mm: float = PRINT_MARGIN_MM,
                pattern: dict = PATTERN) -> np.ndarray:
    """The board as a grey uint8 image, ``px_per_mm`` pixels a millimetre, with a white
    margin; board mm (x, y) lies at pixel (margin + x) * px_per_mm (pixel edges)."""
    w, h = board_size_mm(pattern)
    size = (round((w + 2 * margin_mm) * px_per_mm), round((h + 2 * margin_mm) * px_per_mm))
    return board(pattern).generateImage(size, marginSize=round(margin_mm * px_per_mm),
                                         borderBits=1)


def write_print(path: str | Path, pattern: dict = PATTERN) -> Path:
    """The board to print: a PNG at ``PRINT_PX_PER_MM`` (print it at 304.8 dpi for true
    size), or (``.pdf``) an A4 page that prints at true size at 100 %. (The focal length
    does not depend on the print's scale; only distances measured with the board do.)"""
    path = Path(path)
    image = board_image(PRINT_PX_PER_MM, PRINT_MARGIN_MM, pattern)
    if path.suffix.lower() == ".pdf":
        path.write_bytes(_pdf_page(image, PRINT_PX_PER_MM))
    elif path.suffix.lower() == ".png":
        ok, data = cv2.imencode(".png", image)
        if not ok:
            raise ValueError("cannot encode the board as PNG")
        path.write_bytes(data.tobytes())
    else:
        raise ValueError(f"{path}: the board is written as .png or .pdf")
    return path


def _pdf_page(image: np.ndarray, px_per_mm: float) -> bytes:
    """A one-page A4 PDF holding the grey ``image`` centred at its true size."""
    pt = 72 / 25.4
    page_w, page_h = A4_MM[0] * pt, A4_MM[1] * pt
    h, w = image.shape
    iw, ih = w / px_per_mm * pt, h / px_per_mm * pt
    x, y = (page_w - iw) / 2, (page_h - ih) / 2
    content = f"q {iw:.3f} 0 0 {ih:.3f} {x:.3f} {y:.3f} cm /Im0 Do Q".encode()
    pixels = zlib.compress(np.ascontiguousarray(image).tobytes(), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.3f} {page_h:.3f}] "
         "/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
         f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n"
         ).encode() + pixels + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    return bytes(out)


# --------------------------------------------------------------------------- detection

@dataclass(frozen=True)
class View:
    """One image's detected corners: board points (n, 3) mm and image points (n, 2) px."""

    name: str
    object_points: np.ndarray
    image_points: np.ndarray

    def __len__(self) -> int:
        return len(self.image_points)


class Detector:
    def __init__(self, pattern: dict = PATTERN):
        self.pattern = pattern
        self.board = board(pattern)
        self._detector = cv2.aruco.CharucoDetector(self.board)

    def detect(self, image: np.ndarray, name: str = "") -> View | None:
        """The board's corners in ``image`` (BGR or grey), None when fewer than
        ``MIN_CORNERS`` are found."""
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _, _ = self._detector.detectBoard(grey)
        if ids is None or len(ids) < MIN_CORNERS:
            return None
        obj, img = self.board.matchImagePoints(corners, ids)
        return View(name, obj.reshape(-1, 3).astype(np.float32),
                    img.reshape(-1, 2).astype(np.float32))


# --------------------------------------------------------------------------- calibration

def calibrate(views: list[View], size: tuple[int, int], pattern: dict = PATTERN):
    """(CameraCalibration, per-view rms px, rvecs) from at least ``MIN_VIEWS`` views.

    Distortion k1 k2 p1 p2 k3 is fitted (k3 held at 0 with fewer than 10 views)."""
    if len(views) < MIN_VIEWS:
        raise ValueError(f"{len(views)} usable views; at least {MIN_VIEWS} are needed "
                         "(show the whole board in more pictures)")
    flags = cv2.CALIB_FIX_K3 if len(views) < 10 else 0
    rms, K, dist, rvecs, tvecs = cv2.calibrateCamera(
        [v.object_points for v in views], [v.image_points for v in views], size, None, None,
        flags=flags)
    per_view = []
    for v, r, t in zip(views, rvecs, tvecs, strict=True):
        proj, _ = cv2.projectPoints(v.object_points, r, t, K, dist)
        per_view.append(float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2)
                                                      - v.image_points) ** 2, 1)))))
    dist5 = np.zeros(5)
    dist5[:min(5, dist.size)] = dist.reshape(-1)[:5]
    cal = CameraCalibration(K, dist5, size, float(rms), len(views), dict(pattern))
    return cal, per_view, [np.asarray(r).reshape(3) for r in rvecs]


def tilts(rvecs: list[np.ndarray]) -> list[tuple[float, float]]:
    """Per view, the board's tilt about the image's horizontal and vertical axes (deg)."""
    out = []
    for r in rvecs:
        R, _ = cv2.Rodrigues(np.asarray(r, np.float64))
        n = R[:, 2]  # the board's normal in camera coordinates
        n = n if n[2] < 0 else -n  # pointing back at the camera
        out.append((math.degrees(math.atan2(n[1], -n[2])),
                    math.degrees(math.atan2(n[0], -n[2]))))
    return out


def view_tilt(view: View, size: tuple[int, int],
              K: np.ndarray | None = None) -> tuple[float, float]:
    """The board's tilts (``tilts``) in one view, its pose solved with ``K`` (default: a
    60 degree wide lens; good enough to tell tilts apart)."""
    from vision.grid import assumed_camera

    K = assumed_camera(size) if K is None else K
    _, r, _ = cv2.solvePnP(view.object_points, view.image_points, K, None)
    return tilts([r])[0]


def guidance(views: list[View], size: tuple[int, int],
             K: np.ndarray | None = None) -> list[str]:
    """What the captured views still lack, one sentence each (empty: enough).

    Coverage: corners seen in each cell of a GRID x GRID split of the frame (the frame's
    corners matter most for distortion). Tilt: views with the board tilted at least
    ``TILT_WANTED_DEG`` up, down, left and right (tilt fixes the focal length); the tilt
    is read from each view's pose under ``K`` (default: a 60 degree wide lens)."""
    needs = []
    if len(views) < MIN_VIEWS:
        needs.append(f"{MIN_VIEWS - len(views)} more view(s) of the board at least")
    w, h = size
    seen = np.zeros((GRID, GRID), int)
    for v in views:
        cx = np.clip((v.image_points[:, 0] / w * GRID).astype(int), 0, GRID - 1)
        cy = np.clip((v.image_points[:, 1] / h * GRID).astype(int), 0, GRID - 1)
        np.add.at(seen, (cy, cx), 1)
    names = {0: "top", GRID - 1: "bottom"}, {0: "left", GRID - 1: "right"}
    for row in range(GRID):
        for col in range(GRID):
            if seen[row, col] == 0:
                where = " ".join(n for n in (names[0].get(row), names[1].get(col)) if n)
                needs.append(f"no corners seen in the {where or 'centre'} of the frame: "
                             "move the board there")
    if views:
        t = np.array([view_tilt(v, size, K) for v in views])
        for axis, (neg, pos) in enumerate((("top away", "bottom away"),
                                          ("left away", "right away"))):
            vals = t[:, axis] if len(t) else np.zeros(0)
            if not np.any(vals <= -TILT_WANTED_DEG):
                needs.append(f"no view with the board tilted {TILT_WANTED_DEG:.0f} degrees "
                             f"or more, {neg}")
            if not np.any(vals >= TILT_WANTED_DEG):
                needs.append(f"no view with the board tilted {TILT_WANTED_DEG:.0f} degrees "
                             f"or more, {pos}")
    return needs
