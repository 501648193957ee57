"""Cubes' reader: the 10 x 10 grid of white and numbered stones, and the dependency cards.

Per field, on the plane of the stones' tops (``STONE_TOP_MM`` above the board):

- *white stone or empty*: a stone's top has a bevelled, shaded edge: the field's lightness
  profile dips along the stone's outline (``EDGE_MM`` from the field's centre) against
  its inside and against the bare paper (an empty field is flat up to its printed lines);
- *player colour*: the stone top's corners, outside its central disc, show the player's
  colour: their Lab against the paper's (the fields' own median look) is blue (b down),
  red or orange (a up; orange has the larger hue angle) or black (dark, no hue); a
  white stone's corners stay near the paper's look;
- *side*: the central disc is white (active side up) or black (inactive);
- *digit*: read by ``models/stone.onnx`` (``vision.classifier.shared("stone")``, heads
  kind / digit / side, ``vision.classifier.stone_token``) where that model exists. Without
  it a coloured stone's token is null (never a guess) and the field is listed in
  ``uncertain`` with confidence 0 and the five digits of the colour and side read as the
  alternatives.

The players: which colour sits where and in what order is the table's set-up, not seen
(the rules' default seating for the number of dependency cards seen, ``players`` of the
calibration where it gives one); the dependency card before each seat (a white card with a
large coloured disc, on the table beside the board) is read by its disc's colour.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board import BoardFix, Geometry
from vision.classifier import shared, stone_token
from vision.grid import square_crop
from vision.read_miwin import plane
from vision.reading import Reading

STONE_TOP_MM = 6.0  # vision.render.pieces.STONE_THICK_MM
STONE_MM = 24.0
FIELD_MM = 30.0
LETTERS = {"blue": "B", "red": "R", "black": "K", "orange": "O"}
SEAT_DIRECTIONS = {"south": (0.0, -1.0), "north": (0.0, 1.0), "east": (1.0, 0.0),
                   "west": (-1.0, 0.0)}
CARD_REACH_MM = 225.0  # a dependency card's centre from the board's centre (about)
STONE_EDGE = 6.0  # lightness dip (Lab L) along the outline that makes a field a stone
COLOUR_MIN = 14.0  # corner colour score (Lab units) that makes a stone a player's
PPM = 2.0  # px per mm of a field's crop


def _colour_of(dL: float, da: float, db: float, L: float, chroma: float) -> tuple[str | None,
                                                                                 float]:
    """(colour, score) of a patch from its Lab against the paper's; None: no colour."""
    scores = {"blue": -db - 0.3 * abs(da), "black": -dL - 2 * chroma,
              "red": da - 0.5 * max(db - da, 0), "orange": min(da, db) * 0.8 + 0.4 * (db - da)}
    if da > 8 and db > 8:  # red against orange by the hue angle of the departure
        angle = np.degrees(np.arctan2(db, da))
        red = angle < 52
        scores["red" if red else "orange"] = max(da, db)
        scores["orange" if red else "red"] = 0.0
    best = max(scores, key=scores.get)
    return (best if scores[best] >= COLOUR_MIN else None), float(scores[best])


def _fields(image: np.ndarray, H: np.ndarray, geom: Geometry) -> list[dict]:
    half = FIELD_MM / 2 - 1.0
    size = int(2 * half * PPM)
    crops = [cv2.cvtColor(square_crop(image, H, u, v, half, size), cv2.COLOR_BGR2Lab)
             .astype(np.float32) for _, u, v, _ in geom.cells]
    yy, xx = (np.mgrid[:size, :size] + 0.5) / PPM - half
    r_sq = np.maximum(np.abs(xx), np.abs(yy))
    edge = (r_sq >= STONE_MM / 2 - 2.0) & (r_sq <= STONE_MM / 2 + 0.5)
    inner = (r_sq >= STONE_MM / 2 - 5.0) & (r_sq < STONE_MM / 2 - 2.5)
    rr = np.hypot(xx, yy)
    corners = (r_sq <= STONE_MM / 2 - 1.0) & (rr >= 0.41 * STONE_MM + 1.0)
    disc = (rr >= 3.0) & (rr <= 0.41 * STONE_MM - 1.5)
    centre = r_sq <= 6.0
    paper = np.median(np.stack([np.median(c[centre], axis=0) for c in crops]), axis=0)
    out = []
    for c in crops:
        L = c[..., 0]
        dip = float(np.median(L[inner]) - np.median(L[edge]))
        cor = np.median(c[corners], axis=0)
        dL, da, db = cor - paper
        chroma = abs(cor[1] - 128) + abs(cor[2] - 128)
        colour, score = _colour_of(dL, da, db, cor[0], chroma)
        active = float(np.median(L[disc])) > 0.5 * (cor[0] + 255) * 0.5 + 30
        out.append({"dip": dip, "colour": colour, "score": score, "active": active,
                    "disc_L": float(np.median(L[disc]))})
    return out


def _cards(image: np.ndarray, H_table: np.ndarray) -> dict[str, tuple[str | None, float]]:
    """Per seat, (colour of the dependency card's disc or None, confidence): near where a
    card lies before that seat, the card is the largest bright region (white card stock);
    its disc the pixels of its hull that are not card white, their colour taken against
    the card's white (which cancels the light's colour)."""
    out = {}
    card_px = (62 / 2) * (88 / 2)  # the card's area at 2 mm a pixel
    for seat, (dx, dy) in SEAT_DIRECTIONS.items():
        u, v = dx * CARD_REACH_MM, dy * CARD_REACH_MM
        crop = square_crop(image, H_table, u, v, 80.0, 80)  # 2 mm a pixel
        lab = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab).astype(np.float32)
        L = lab[..., 0]
        white = (0.5 * (np.median(L) + np.percentile(L, 99.5)) < L).astype(np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(white)
        if count < 2:
            out[seat] = (None, 1.0)
            continue
        k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        pts = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.int32)
        hull = np.zeros_like(white)
        cv2.fillConvexPoly(hull, cv2.convexHull(pts), 1)
        area = int(hull.sum())
        if not 0.5 * card_px <= area <= 1.6 * card_px:
            out[seat] = (None, float(np.clip(abs(area / card_px - 1), 0.5, 1.0)))
            continue
        ref = np.median(lab[labels == k], axis=0)
        disc = (hull > 0) & (labels != k)
        if disc.sum() < 0.15 * card_px:
            out[seat] = (None, 0.6)
            continue
        d = np.median(lab[disc], axis=0)
        dL, da, db = d - ref
        colour, score = _colour_of(dL, da, db, d[0], abs(d[1] - 128) + abs(d[2] - 128))
        out[seat] = (colour, float(np.clip(score / (2 * COLOUR_MIN), 0.5, 1.0)))
    return out


def _players(cards: dict, calibration: dict | None) -> list[dict]:
    from rules.registry import get_game

    seen = {seat: colour for seat, (colour, _) in cards.items() if colour is not None}
    given = (calibration or {}).get("players")
    if given:
        players = [dict(p) for p in given]
    else:
        n = min(max(len(seen), 2), 4)
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
    reading = Reading({"grid": grid, "players": _players(cards, calibration)})
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
            conf = float(np.clip(0.5 + (f["dip"] - STONE_EDGE) / (2 * STONE_EDGE), 0.5, 1.0))
            reading.add(conf, path, 0.9, [[".", round(1 - conf, 4)]])
        else:
            conf = float(np.clip(0.5 + (STONE_EDGE - f["dip"]) / (2 * STONE_EDGE), 0.5, 1.0))
            reading.add(conf, path, 0.9, [["W", round(1 - conf, 4)]])
    predictions = None
    if model is not None and stones:
        half = STONE_MM / 2 / 0.75
        crops = [square_crop(image, H, geom.cells[i][1], geom.cells[i][2], half, 64)
                 for i in stones]
        predictions = model.predict(crops, top_k=5)
    for k, i in enumerate(stones):
        r, c = divmod(i, 10)
        f = fields[i]
        letter = LETTERS[f["colour"]]
        letter = letter if f["active"] else letter.lower()
        colour_conf = float(np.clip(f["score"] / (2 * COLOUR_MIN), 0.5, 1.0))
        if predictions is not None:
            token, conf = stone_token(predictions[k])
            digits = predictions[k]["digit"].top
            alts = [[letter + d, round(p, 4)] for d, p in digits if letter + d != token][:3]
            grid[r][c] = token
            reading.add(min(conf, colour_conf), f"grid.{r}.{c}", 0.9, alts)
        else:
            grid[r][c] = None
            reading.add(0.0, f"grid.{r}.{c}", 0.9, [[letter + d, 0.2] for d in "23456"])
    for i, p in enumerate(reading.position["players"]):
        colour, conf = cards[p["seat"]]
        reading.add(conf, f"players.{i}.dependency", 0.9)
    return reading
