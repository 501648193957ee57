"""The players' piece colours as measured on the set (``tableref calibrate colour
--piece NAME=FIELD``), and the colour decision the readers make with them.

The calibration dict's ``pieces`` (``calibration.files.colour_entries``) maps a piece's
name to its Lab [L, a, b] (OpenCV's 8-bit scale: a and b offset by 128) in the frame as
the colour calibration's ``apply`` gives it, the frame every reader is given, where the
white board top is grey. ``NAMES`` says which names each game's reader uses; where the
calibration gives them all, the reader decides that colour from them, else by its own
fixed rule (as without a calibration).

e-SOLO-e (``green_red``): a cube's colour against the glaze's on Lab's green-red axis, as
the fixed rule has it, but over the top's lighter half (``colour_of``: the print left
out) and with the boundary halfway between the two measured players' (the fixed rule's
boundary, ``read_esoloe.GREEN_BELOW_A``, was fitted on the training renders' woods and
light). Against the glaze seen in the same frame, not against grey: a frame's cast that
the colour file does not undo (a camera's highlight shoulder compresses the glaze,
another exposure another way) moves the glaze and the cubes alike.

Cubes (``stone_classes``): which pixels of a stone's window are of a player's colour is
the fixed rule's (balanced on the paper: saturated, or dark), but each is named by the
nearest of the four measured stones' colours (Lab, in the frame as read) instead of by
the fixed hue ranges and darkness: under a warm dim lamp a black stone's top balanced on
the paper looked blue, an orange one red. The stones are measured on their coloured
corners round the disc (``calibration.colour.RING_MM``).
"""

from __future__ import annotations

import cv2
import numpy as np

GREY = 128.0  # Lab a and b of grey (the board top after the white balance)
#: Lab L's weight against a and b in ``stone_classes``' distance (a stone's lightness
#: falls off with the lamp across the board, its hue does not). Dev renders 140..199, the
#: classical colour of the stones under the bench's warm dim lamp and cold light
#: (calibration_bench's ``COLOUR_LIGHTS``): right 265 / 329 of 274 / 334 at 0.5, 268 /
#: 330 at 0.35 (254 / 322 by the fixed rule); at 1.0 a red stone in the lamp's fall-off
#: read orange (dev 107)
L_WEIGHT = 0.35

#: per game, the names of the pieces whose colour its reader decides, in its order (the
#: index is what the reader reads: e-SOLO-e's player 0, natural wood, and 1, green)
NAMES = {
    "esoloe": ("player 0", "player 1"),
    "esoloe-tictactoe": ("player 0", "player 1"),
    "esoloe-3andc": ("player 0", "player 1"),
    # Cubes: one stone of each colour, in ``read_cubes._votes``' order of its classes
    "cubes": ("black", "blue", "red", "orange"),
    # Tyr and Neunfeld: the three Miwin dice, in ``read_miwin.COLOURS``' order
    "tyr": ("blue", "red", "black"),
    "neunfeld": ("blue", "red", "black"),
}


def measured(calibration: dict | None, game: str) -> np.ndarray | None:
    """(k, 3) Lab of ``game``'s pieces (``NAMES``' order) from the calibration's
    ``pieces``; None where the game has none or the calibration does not give them all."""
    pieces = (calibration or {}).get("pieces") or {}
    names = NAMES.get(game)
    if not names or any(n not in pieces for n in names):
        return None
    return np.array([pieces[n] for n in names], np.float64).reshape(len(names), 3)


def colour_of(pixels: np.ndarray, lighter: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(BGR, Lab) medians of a piece's top (``pixels``: BGR uint8, any shape) over its
    lighter half (the half of its pixels of highest Lab L): the print left out (e-SOLO-e's symbols
    are printed in dark ink, indigo on some sets, which pulls the whole top's median
    hue towards blue); over its darker half where not ``lighter`` (a Miwin die: its
    light pips left out, which are most of a black die's lighter half). What ``tableref
    calibrate colour`` measures and the readers compare with it."""
    bgr = np.asarray(pixels, np.uint8).reshape(-1, 1, 3)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float64)
    order = np.argsort(lab[:, 0], kind="stable")
    half = order[len(lab) // 2:] if lighter else order[:len(lab) - len(lab) // 2]
    return (np.median(bgr.reshape(-1, 3)[half].astype(np.float64), axis=0),
            np.median(lab[half], axis=0))


def green_red(crop: np.ndarray, glaze_a: float, colours: np.ndarray
              ) -> tuple[float, float]:
    """(the Lab a of ``crop``'s (BGR uint8) colour less the glaze's ``glaze_a``, the
    boundary between the two measured colours ``colours`` ((2, 3) Lab) on that axis:
    halfway between their a, less grey's)."""
    return (float(colour_of(crop)[1][1]) - glaze_a,
            float(colours[0][1] + colours[1][1]) / 2 - GREY)


def stone_classes(bgr: np.ndarray, coloured: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """Per pixel of ``bgr`` (BGR uint8, (..., 3)), one-hot over the measured stones'
    colours ``colours`` ((k, 3) Lab, ``measured``'s order): the nearest in Lab, for the
    pixels ``coloured`` ((...) bool: of a player's colour by the fixed rule) only, zeros
    elsewhere. (..., k) float32."""
    lab = cv2.cvtColor(np.asarray(bgr, np.uint8).reshape(-1, 1, 3),
                       cv2.COLOR_BGR2Lab).reshape(-1, 1, 3).astype(np.float32)
    scale = np.array([L_WEIGHT, 1.0, 1.0], np.float32)
    nearest = np.argmin(np.linalg.norm((lab - colours.astype(np.float32)[None]) * scale,
                                       axis=2), axis=1)
    out = np.eye(len(colours), dtype=np.float32)[nearest]
    out *= np.asarray(coloured, bool).reshape(-1, 1)
    return out.reshape(*np.shape(coloured), len(colours))
