"""Cubes' reader: the 10 x 10 grid of white and numbered stones, and the dependency cards.

Per field, on the plane of the stones' tops (``STONE_TOP_MM`` above the board):

- *white stone or empty*: a stone's top has a bevelled, shaded edge: the field's lightness
  profile dips along the stone's outline (``EDGE_MM`` from the field's centre) against
  its inside and against the bare paper (an empty field is flat up to its printed lines);
- *player colour*: the stone top's corners, outside its central disc, show the player's
  colour: balanced on the paper's white (the fields' median look), it is named by hue,
  saturation and brightness (``_colour_of``); a white stone's corners are unsaturated
  and light like the paper;
- *side*: the central disc is white (active side up) or black (inactive);
- *digit*: read by ``models/stone.onnx`` (``vision.classifier.shared("stone")``, heads
  kind / digit / side, ``vision.classifier.stone_token``; crop: ``stone_crop``) for every
  field the classical reading calls a coloured stone, all in one run; where the model's
  colour or side disagrees with the classical one the token is the model's with
  confidence at most 0.5 and the classical reading first among the alternatives. Without
  the model a coloured stone's token is null (never a guess) and the field is listed in
  ``uncertain`` with confidence 0 and the five digits of the colour and side read as the
  alternatives.

The players: which colour sits where and in what order is the table's set-up, not seen
(the rules' default seating for the number of dependency cards seen, ``players`` of the
calibration where it gives one); the dependency card before each seat (a white card with a
large coloured disc, on the table beside the board) is read by its disc's colour,
balanced on the card's white.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board import BoardFix, Geometry
from vision.classifier import shared, stone_token
from vision.grid import square_crop
from vision.observe import predict
from vision.read_miwin import plane
from vision.reading import Reading

STONE_TOP_MM = 6.0  # vision.render.pieces.STONE_THICK_MM
STONE_MM = 24.0
FIELD_MM = 30.0
LETTERS = {"blue": "B", "red": "R", "black": "K", "orange": "O"}
SEAT_DIRECTIONS = {"south": (0.0, -1.0), "north": (0.0, 1.0), "east": (1.0, 0.0),
                   "west": (-1.0, 0.0)}
CARD_REACH_MM = 225.0  # a dependency card's centre from the board's centre (about)
CARD_DISC_MM = 45.0  # the disc's diameter on a dependency card
STONE_EDGE = 10.0  # lightness dip (Lab L) along the outline that makes a field a stone
SATURATED = 0.3  # saturation (balanced on the paper's white) of a player's colour
DARK = 0.38  # brightness (1 = the paper's) under which an unsaturated patch is black
PPM = 2.0  # px per mm of a field's crop


def _colour_of(bgr: np.ndarray, white: np.ndarray) -> tuple[str | None, float]:
    """(player colour or None, confidence) of a patch's median ``bgr`` seen beside a
    ``white`` one (paper, card stock) under the same light: the colour is balanced on the
    white (each channel divided by it), then named by saturation, brightness and hue
    (blue 180..260 degrees, red below 15 or from 330, orange 15..50, black: unsaturated
    and dark); None for an unsaturated light patch (white stone, paper)."""
    c = np.asarray(bgr, np.float32) / np.maximum(np.asarray(white, np.float32), 1.0)
    v = float(c.max())
    s = 1.0 - float(c.min()) / max(v, 1e-6)
    hsv = cv2.cvtColor(np.clip(c, 0, 1).reshape(1, 1, 3), cv2.COLOR_BGR2HSV)[0, 0]
    hue = float(hsv[0])
    if s < SATURATED:
        if v < DARK:
            return "black", float(np.clip(0.5 + (DARK - v) / DARK, 0.5, 1.0))
        return None, float(np.clip(0.5 + (SATURATED - s) / SATURATED, 0.5, 1.0))
    conf = float(np.clip(0.5 + (s - SATURATED) / (2 * SATURATED), 0.5, 1.0))
    if 180 <= hue < 260:
        return "blue", conf
    if hue < 15 or hue >= 330:
        return "red", conf
    if hue < 50:
        return "orange", conf
    return None, 0.5


def _fields(image: np.ndarray, H: np.ndarray, geom: Geometry) -> list[dict]:
    """Per field (row-major): the outline's lightness dip, the corners' colour (None:
    none) and its score, and whether the disc is light (active side up)."""
    half = FIELD_MM / 2 - 1.0
    size = int(2 * half * PPM)
    crops = np.stack([square_crop(image, H, u, v, half, size) for _, u, v, _ in geom.cells])
    lab = cv2.cvtColor(crops.reshape(-1, size, 3), cv2.COLOR_BGR2Lab).reshape(
        len(crops), size, size, 3).astype(np.float32)
    yy, xx = (np.mgrid[:size, :size] + 0.5) / PPM - half
    r_sq = np.maximum(np.abs(xx), np.abs(yy))
    rr = np.hypot(xx, yy)
    edge = (r_sq >= STONE_MM / 2 - 2.0) & (r_sq <= STONE_MM / 2 + 0.5)
    inner = (r_sq >= STONE_MM / 2 - 5.0) & (r_sq < STONE_MM / 2 - 2.5)
    corners = (r_sq <= STONE_MM / 2 - 1.0) & (rr >= 0.41 * STONE_MM + 1.0)
    disc = (rr >= 3.0) & (rr <= 0.41 * STONE_MM - 1.5)
    centre = r_sq <= 6.0
    L = lab[..., 0]
    dip = np.median(L[:, inner], axis=1) - np.median(L[:, edge], axis=1)
    cor = np.median(crops[:, corners].astype(np.float32), axis=1)  # BGR
    disc_L = np.median(L[:, disc], axis=1)
    paper = np.median(np.median(crops[:, centre].astype(np.float32), axis=1), axis=0)
    paper_L = float(np.median(np.median(L[:, centre], axis=1)))
    out = []
    for i in range(len(crops)):
        colour, conf = _colour_of(cor[i], paper)
        # the disc: white (active) or black (inactive); halfway between black and paper
        active = disc_L[i] > 0.5 * paper_L
        out.append({"dip": float(dip[i]), "colour": colour, "confidence": conf,
                    "active": bool(active)})
    return out


def _cards(image: np.ndarray, H_table: np.ndarray) -> dict[str, tuple[str | None, float]]:
    """Per seat, (colour of the dependency card's disc or None, confidence): near where a
    card lies before that seat, the card is the largest region lighter than halfway
    from the table's look to the lightest pixel, its disc the rest of the card's hull
    (within a factor 3 of the disc's size); the disc's colour is balanced on the card's
    white (which cancels the light's colour). No card or no colour seen: None, with a
    confidence under 0.9 (the referee takes a card's colour as unknown then)."""
    out = {}
    disc_px = np.pi * (CARD_DISC_MM / 4) ** 2  # the disc's area at 2 mm a pixel
    card_px = (62 / 2) * (88 / 2)
    half_board = 170.0
    for seat, (dx, dy) in SEAT_DIRECTIONS.items():
        u, v = dx * CARD_REACH_MM, dy * CARD_REACH_MM
        crop = square_crop(image, H_table, u, v, 80.0, 80)  # 2 mm a pixel
        lab = cv2.cvtColor(cv2.GaussianBlur(crop, (3, 3), 0), cv2.COLOR_BGR2Lab)
        lab = lab.astype(np.float32)
        # board millimetres of the crop's pixels: the board itself is no card
        us = u - 80.0 + (np.arange(80) + 0.5) * 2.0
        vs = v + 80.0 - (np.arange(80) + 0.5) * 2.0
        off = ~((np.abs(vs)[:, None] <= half_board) & (np.abs(us)[None, :] <= half_board))
        # the card stock: lighter than halfway from the table's median to the lightest
        L = lab[..., 0]
        level = 0.5 * (np.median(L[off]) + np.percentile(L[off], 99.5))
        white = ((level < L) & off).astype(np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(white)
        if count < 2:
            out[seat] = (None, 0.6)
            continue
        k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        pts = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.int32)
        hull = np.zeros_like(white)
        cv2.fillConvexPoly(hull, cv2.convexHull(pts), 1)
        disc = (hull > 0) & (labels != k)
        err = abs(np.log(max(int(disc.sum()), 1) / disc_px))
        if err > np.log(3.0) or not 0.5 * card_px <= hull.sum() <= 1.6 * card_px:
            out[seat] = (None, 0.6)
            continue
        bgr = crop.astype(np.float32)
        colour, conf = _colour_of(np.median(bgr[disc], axis=0),
                                  np.median(bgr[labels == k], axis=0))
        out[seat] = (colour, conf if colour is not None else 0.6)
    return out


def stone_crop(image: np.ndarray, H: np.ndarray, u: float, v: float) -> np.ndarray:
    """The crop ``models/stone.onnx`` reads (``models/stone.md``): a square axis-aligned
    in the image, centred on the stone's top (centred at (u, v) on the plane of ``H``),
    1.25 times its apparent side."""
    h = STONE_MM / 2
    quad = cv2.perspectiveTransform(np.array([[[u - h, v + h]], [[u + h, v + h]],
                                              [[u + h, v - h]], [[u - h, v - h]]]), H)
    quad = quad.reshape(4, 2).astype(np.float32)
    side = 1.25 * float(np.sqrt(cv2.contourArea(quad)))
    size = max(8, int(round(side)))
    centre = tuple(float(x) for x in quad.mean(axis=0))
    return cv2.getRectSubPix(image, (size, size), centre)


def _players(cards: dict, colours: set[str], calibration: dict | None) -> list[dict]:
    """The players: the calibration's ``players`` where given, else the rules' default
    seating for the number of players the table shows (cards seen, the seats they lie
    at: a card at the east side means four, at the west three; the colours of the stones
    on the board and on the cards are all playing, and the rules deal the colours in the
    order blue, red, black, orange); each seat's dependency card."""
    from rules.cubes_position import COLOURS  # the rules deal the colours in this order
    from rules.registry import get_game

    seen = {seat: colour for seat, (colour, _) in cards.items() if colour is not None}
    given = (calibration or {}).get("players")
    if given:
        players = [dict(p) for p in given]
    else:
        shown = colours | set(seen.values())
        n = max(2, len(seen), len(shown), 1 + max((COLOURS.index(c) for c in shown),
                                                  default=0),
                4 if "east" in seen else 3 if "west" in seen else 2)
        n = min(n, 4)
        state = get_game("cubes").initial_state(n_players=n)
        players = [{"colour": p["colour"], "seat": p["seat"]}
                   for p in state.position.to_json()["players"]]
    for p in players:
        p["dependency"] = seen.get(p["seat"])
    return players


def read(image: np.ndarray, fix: BoardFix, geom: Geometry,
         calibration: dict | None = None) -> Reading:
    """The position of a Cubes board in ``image``."""
    H = plane(fix, geom, image, calibration, STONE_TOP_MM)
    fields = _fields(image, H, geom)
    cards = _cards(image, plane(fix, geom, image, calibration, -geom.thickness))
    grid = [["."] * 10 for _ in range(10)]
    colours = {f["colour"] for f in fields if f["colour"] is not None}
    reading = Reading({"grid": grid, "players": _players(cards, colours, calibration)})
    model = shared("stone")
    stones = []
    for i, f in enumerate(fields):
        r, c = divmod(i, 10)
        path = f"grid.{r}.{c}"
        if f["colour"] is not None:
            stones.append(i)
            continue
        if f["dip"] >= STONE_EDGE:
            grid[r][c] = "W"
            conf = float(np.clip(0.5 + (f["dip"] - STONE_EDGE) / (2.5 * STONE_EDGE), 0.5, 1.0))
            reading.add(conf, path, 0.9, [[".", round(1 - conf, 4)]])
        else:
            conf = float(np.clip(0.5 + (STONE_EDGE - f["dip"]) / (1.25 * STONE_EDGE), 0.5,
                                 1.0))
            reading.add(conf, path, 0.9, [["W", round(1 - conf, 4)]])
    predictions = None
    if model is not None and stones:  # one run for all of the frame's stones
        predictions = predict(calibration, "stone", model,
                              [stone_crop(image, H, geom.cells[i][1], geom.cells[i][2])
                               for i in stones], 5)
    for k, i in enumerate(stones):
        r, c = divmod(i, 10)
        f = fields[i]
        letter = LETTERS[f["colour"]]
        letter = letter if f["active"] else letter.lower()
        if predictions is None:
            grid[r][c] = None
            reading.add(0.0, f"grid.{r}.{c}", 0.9, [[letter + d, 0.2] for d in "23456"])
            continue
        token, conf = stone_token(predictions[k])
        # the other digits of the colour and side read, most likely first
        alts = [[token[0] + d, round(p, 4)] for d, p in predictions[k]["digit"].top
                if token[0] + d != token][:3] if token != "W" else []
        if token[0] != letter:  # the model and the classical colour / side disagree
            alts.insert(0, [letter + token[1], 0.5] if token != "W" else [letter + "2", 0.1])
            conf = min(conf, 0.5)
        grid[r][c] = token
        reading.add(min(conf, f["confidence"]), f"grid.{r}.{c}", 0.9, alts)
    for i, p in enumerate(reading.position["players"]):
        colour, conf = cards[p["seat"]]
        reading.add(conf, f"players.{i}.dependency", 0.9)
    return reading
