"""Light and colour: white balance gains and exposure measured on a known near-white
reference, and the players' piece colours measured on the set (``tableref calibrate
colour``).

Reference: the board's top outside the fields (e-SOLO-e's white glaze, Cubes' printed
card) rectified through the board registration, or, for a board that is not white
(Neunfeld's and Tyr's leather), a rectangle of the frame showing a white sheet. The gains
(B, G, R, green = 1) make the reference's median grey; the exposure is the reference's
level (mean of the balanced channels, 0..255) and the gain that brings it to
``TARGET_LEVEL`` (bright, below the highlight shoulder where cameras compress and the
white balance can no longer be read), with the share of clipped reference pixels.

Pieces: the top of a piece standing on a named field (the field's central square on the
plane ``height_mm`` above the board, through the board's pose), its colour in the frame
as ``ColourCalibration.apply`` gives it (after the white balance and the exposure gain,
as the readers see it): the medians BGR and Lab (OpenCV's 8-bit scale: L 0..255, a and b
offset by 128) of its lighter half (``vision.piece_colours.colour_of``: the print left
out). A Cubes stone's centre is its white disc: its colour is the median of its corners
round the disc (``RING_MM``, on the stones' tops 6 mm up). The readers use the pieces
named as ``vision.piece_colours.NAMES`` says (e-SOLO-e: ``player 0``, natural wood, and
``player 1``, green; Cubes: a stone of each colour, ``black``, ``blue``, ``red``,
``orange``); other names are stored and not used.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.files import BoardRegistration, CameraCalibration, ColourCalibration
from vision.board import BoardFix, corners_homography, geometry
from vision.grid import board_pose, rectify, square_crop
from vision.piece_colours import colour_of

TARGET_LEVEL = 180.0  # below the highlight shoulder cameras compress (about 205)
CLIPPED = 250  # a reference pixel this bright in any channel is clipped
SHOULDER = 205.0  # above this level highlights are compressed (renderer: 0.8 of full scale)
FIELD_SHRINK = 0.6  # the share of a field's side measured for a piece's top
#: a Cubes stone's top (24 mm square, a white or black disc of 9.7 mm radius in its middle:
#: vision.render.pieces) is measured on its coloured corners: 10.8 mm or more from the
#: field's centre and within 10.5 mm of it each way (a stone lies up to 1.5 mm off it)
RING_MM = (10.8, 10.5)
#: the height of a piece's top above the board by game, where not a cube's 18 mm
#: (``calibrate_colour``'s ``height_mm`` None): Cubes' stones are 6 mm thick
#: Tyr and Neunfeld: a Miwin die's top (``vision.read_miwin.DIE_MM``; Neunfeld's dice
#: are measured lying on the strip's fields)
TOP_MM = {"cubes": 6.0, "tyr": 22.0, "neunfeld": 22.0}
#: games whose pieces are Miwin dice: a die's colour is its top's darker half (its pips
#: are light: ``vision.piece_colours.colour_of``)
DICE_GAMES = ("tyr", "neunfeld")


class ColourError(ValueError):
    """Colour calibration failed; the message says why."""


def board_reference(images: list[np.ndarray], reg: BoardRegistration) -> np.ndarray:
    """(n, 3) BGR pixels of the board top outside the fields (2 mm clear of each field
    and of the board's edge), from every image."""
    geom = geometry(reg.game)
    ppm = 2.0
    mask = None
    pixels = []
    for image in images:
        top = rectify(image, reg.homography, geom, ppm)
        if mask is None:
            mask = np.zeros(top.shape[:2], bool)
            inset = int(round(2.5 * ppm))
            mask[inset:-inset, inset:-inset] = True
            for _, u, v, half in geom.cells:
                h = half + 2.0
                x0 = int((u - h + geom.width / 2) * ppm)
                x1 = int((u + h + geom.width / 2) * ppm)
                y0 = int((geom.depth / 2 - v - h) * ppm)
                y1 = int((geom.depth / 2 - v + h) * ppm)
                mask[max(y0, 0):y1, max(x0, 0):x1] = False
        pixels.append(top[mask])
    return np.concatenate(pixels).reshape(-1, 3)


def region_reference(images: list[np.ndarray], box: tuple[int, int, int, int]) -> np.ndarray:
    """(n, 3) BGR pixels of the rectangle ``box`` = (x, y, w, h) px of every image."""
    x, y, w, h = box
    out = []
    for image in images:
        if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > image.shape[1] \
                or y + h > image.shape[0]:
            raise ColourError(f"the white region {x},{y},{w},{h} is not inside the "
                              f"{image.shape[1]}x{image.shape[0]} frame")
        out.append(image[y:y + h, x:x + w].reshape(-1, 3))
    return np.concatenate(out)


def white_balance(pixels: np.ndarray) -> tuple[np.ndarray, dict]:
    """(gains B G R with green 1, exposure dict) from reference pixels."""
    px = pixels.astype(np.float64)
    clipped = float(np.mean(px.max(axis=1) >= CLIPPED))
    usable = px[px.max(axis=1) < CLIPPED]
    if len(usable) < 50:
        raise ColourError("the reference is clipped (over-exposed) or too small: lower the "
                          "exposure or show more of it")
    median = np.median(usable, axis=0)
    if np.any(median < 20):
        raise ColourError("the reference is too dark to measure (a channel's median under "
                          "20 of 255): more light, or a white reference")
    gains = median[1] / median
    level = float(np.mean(median * gains))
    exposure = {"level": round(level, 2), "target": TARGET_LEVEL,
                "gain": round(TARGET_LEVEL / level, 4), "clipped": round(clipped, 4)}
    return gains, exposure


def _ring() -> np.ndarray:
    """The (48, 48) mask of ``RING_MM`` in a 12 mm half side crop (``piece_colour``)."""
    c = (np.arange(48) + 0.5) / 2.0 - 12.0
    x, y = np.meshgrid(c, c)
    return (np.hypot(x, y) >= RING_MM[0]) & (np.maximum(np.abs(x), np.abs(y)) <= RING_MM[1])


def piece_colour(images: list[np.ndarray], reg: BoardRegistration, cell: str,
                 gains: np.ndarray, height_mm: float,
                 camera: CameraCalibration | None = None) -> dict:
    """The top colour of the piece on field ``cell``: {"bgr", "lab", "field"}; ``gains``:
    the B, G, R multipliers of the frame as it is read (``ColourCalibration.gains``). A
    Cubes stone: the median of its corners round its disc (``RING_MM``)."""
    geom = geometry(reg.game)
    names = [c[0] for c in geom.cells]
    if cell not in names:
        raise ColourError(f"{reg.game} has no field {cell!r} (fields: {', '.join(names)})")
    _, u, v, half = geom.cells[names.index(cell)]
    corners = reg.corners
    K = camera.K if camera is not None else None
    dist = camera.dist if camera is not None else None
    pose = board_pose(BoardFix(corners, corners), geom, reg.image_size, K, dist)
    H = pose.plane_homography(height_mm) if height_mm else corners_homography(corners, geom)
    stone = reg.game == "cubes"
    pixels = []
    for image in images:
        if stone:
            pixels.append(square_crop(image, H, u, v, 12.0, 48)[_ring()])
        else:
            pixels.append(square_crop(image, H, u, v, half * FIELD_SHRINK, 24).reshape(-1, 3))
    seen = np.clip(np.concatenate(pixels).astype(np.float64) * gains + 0.5, 0, 255)
    if stone:
        bgr = np.median(seen, axis=0)
        lab = cv2.cvtColor(np.round(bgr).astype(np.uint8).reshape(1, 1, 3),
                           cv2.COLOR_BGR2Lab).reshape(3).astype(np.float64)
    else:
        bgr, lab = colour_of(seen.astype(np.uint8), lighter=reg.game not in DICE_GAMES)
    return {"field": cell, "bgr": np.round(bgr, 2).tolist(),
            "lab": np.round(lab, 2).tolist()}


def calibrate_colour(images: list[np.ndarray], reg: BoardRegistration | None,
                     pieces: dict[str, str] | None = None, *,
                     white_box: tuple[int, int, int, int] | None = None,
                     height_mm: float | None = None,
                     camera: CameraCalibration | None = None) -> ColourCalibration:
    """White balance and exposure from the board top (or ``white_box``), and each named
    piece's colour (``pieces``: name -> field) from the same frames, their tops
    ``height_mm`` above the board (None: the game's, ``TOP_MM``, else 18)."""
    if not images:
        raise ColourError("no frames to measure")
    if white_box is not None:
        pixels, reference = region_reference(images, white_box), "region {},{},{},{}".format(
            *white_box)
    else:
        if reg is None:
            raise ColourError("a board registration (or a white region) is needed")
        if geometry(reg.game).material == "leather":
            raise ColourError(f"{reg.game}'s leather board is not white: show a white sheet "
                              "and give its rectangle (--white x,y,w,h)")
        pixels, reference = board_reference(images, reg), "board top"
    gains, exposure = white_balance(pixels)
    cal = ColourCalibration(gains, exposure, reference, {})
    measured = {}
    for name, cell in (pieces or {}).items():
        if reg is None:
            raise ColourError("piece colours need a board registration")
        if height_mm is None:
            height_mm = TOP_MM.get(reg.game, 18.0)
        measured[name] = piece_colour(images, reg, cell, cal.gains, height_mm, camera)
    return ColourCalibration(gains, exposure, reference, measured)
