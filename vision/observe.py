"""One camera frame -> one observation (``../shared/spec/observation.md``).

``observe(image, game)`` checks the frame, finds the board (``vision.board``) and hands
it to the game's reader (``READERS``: a module with ``read(image, fix, geom,
calibration) -> vision.reading.Reading``), then wraps the reading into the wire format:
the observation's confidence is the lowest of its elements', and each uncertain element
is listed under the ``uncertain`` extension key (docs/observation-extensions.md). Where
the rules reject the position as read, uncertain elements take their alternatives until
they accept it (``most_likely_valid``): the referee needs a valid written position.
A camera's stream of frames goes through an ``Observer``, which finds the board once and
then tracks it (``vision.track``): a board lying where it was is read without being found
anew; one pushed a pixel or two is re-fitted there. Where the board as tracked shows a
hand across its edge, the board is found anew and read again: where that shows no hand,
the tracked corners were off (a hand is not reported) and the new ones are tracked on.
Once a board found anew has shown the hand too, the same tracked corners showing the same
stretches of the edge covered, and the same position read, are not checked again (a hand
held still, or a settled scene read twice, costs one search, not one a read; a move
checks again).

A hand or arm across the board's edge (``vision.occlusion``, every game) makes the
observation unstable (``stable: false``, the spec's "not still and unoccluded"): its
confidence is 0 and the extra key ``occlusion`` says which stretches of the edge are
covered; the referee judges none of it. The edge is looked at after the reading: a reader
module with ``covered(image, fix, geom, reading, calibration)`` (the e-SOLO-e family's)
names the image pixels its pieces may cover (tall stacks leaning across the edge in the
image), and the edge under them is no hand.

``calibration`` (a dict, every key optional; ``calibration.files.for_vision`` loads the
files of ``tableref calibrate`` and ``tableref enrol`` into it; vision imports nothing
from ``calibration/``, the values are plain arrays or duck-typed objects):

- ``"K"`` (3x3) and ``"dist"`` (k1 k2 p1 p2 k3): the camera's intrinsics (default: an
  assumed Raspberry Pi camera);
- ``"board"``: the registered board corners (4 x 2 px: nw, ne, se, sw), used in place of
  ``find_board`` (the caller knows the board has not moved since it was registered);
- ``"colour"``: an object with ``apply(image) -> image`` (the white balance and the
  exposure gain), applied to the frame once, before anything reads it;
- ``"pieces"``: piece name -> Lab [L, a, b] of the set's pieces as measured in that frame
  (``vision.piece_colours``: the readers decide their pieces' colours from the names
  they use, by their fixed rules where not given);
- ``"profile"``: an object with ``predict(model_name, model, crops, top_k)`` answering what
  ``Classifier.predict`` answers: the readers call it in place of ``model.predict``
  (``predict`` below); for a model it does not adapt it gives the model's own reading;
- ``"players"``: Cubes' players (``vision.read_cubes``).
"""

from __future__ import annotations

import importlib
import json
import time as _time

import numpy as np

from vision.board import BoardFix, find_board, geometry
from vision.occlusion import OUTSIDE_MM, edge_occlusion
from vision.track import BoardTracker

FRAME_SIZE = (1280, 720)
MAX_REPAIRS = 30  # alternatives swapped in at most to make the written position valid
CROP_MARGIN_PX = 8  # round the board, for what smooths the picture near its edge ...
BLANK_STEP = 8  # the blank check looks at every 8th pixel each way (the std of all: 10 ms)
TRACKED = ("still", "hidden", "moved")  # tracker statuses of a fix carried from before
ANEW_PX = 0.5  # a board found anew this close to the tracked one (max corner) is the same
SAME_RUN_MM = 4.0  # edge runs whose ends moved at most this far: the edge looks as it did
READERS = {
    "esoloe": "vision.read_esoloe",
    "esoloe-tictactoe": "vision.read_esoloe",
    "esoloe-3andc": "vision.read_esoloe",
    "neunfeld": "vision.read_neunfeld",
    "tyr": "vision.read_tyr",
    "cubes": "vision.read_cubes",
}
SUPPORTED = tuple(READERS)


class ObserveError(ValueError):
    """The frame cannot be turned into an observation; the message is one line."""


def check_frame(image: np.ndarray) -> None:
    """Raise ObserveError naming what is wrong with a frame the pipeline cannot read."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ObserveError("not a colour 8-bit image")
    if (image.shape[1], image.shape[0]) != FRAME_SIZE:
        raise ObserveError(f"wrong size {image.shape[1]}x{image.shape[0]} "
                           f"(need {FRAME_SIZE[0]}x{FRAME_SIZE[1]})")
    if float(image[::BLANK_STEP, ::BLANK_STEP].std()) < 2.0:
        raise ObserveError("the image is blank (no detail at all)")


def _step(data, part: str):
    return data[int(part)] if isinstance(data, list) else data[part]


def most_likely_valid(game: str, reading) -> None:
    """Make the position written in ``reading`` one the rules accept, where its uncertain
    elements' alternatives allow: while the rules reject it (``InvalidPosition`` names the
    key at fault: a second stone of one token, too many white stones, two dice on one
    field), the least confident uncertain element at or under that key takes its most
    likely alternative, and the old reading becomes an alternative; the entries inside
    it (a cube's player, a face of a stack taken whole) go with the old reading, so that
    every path names an element of the position written. What stays invalid
    (no alternative left, or an element without alternatives, such as a null token)
    stays as read."""
    from rules.core import InvalidPosition
    from rules.registry import get_game

    rules = get_game(game)
    for _ in range(MAX_REPAIRS):
        try:
            rules.position_from_json(reading.position)
            return
        except InvalidPosition as err:
            key = err.key or ""
        fits = [u for u in reading.uncertain if u.get("alternatives") and (
            not key or u["path"] == key or u["path"].startswith(key + ".")
            or key.startswith(u["path"] + "."))]
        if not fits:
            return
        entry = min(fits, key=lambda u: u["confidence"])
        *parents, last = entry["path"].split(".")
        holder = reading.position
        for part in parents:
            holder = _step(holder, part)
        index = int(last) if isinstance(holder, list) else last
        value, probability = entry["alternatives"].pop(0)
        entry["alternatives"].append([holder[index], entry["confidence"]])
        holder[index] = value
        entry["confidence"] = probability
        reading.forget_under(entry["path"])
        reading.confidences.append(float(probability))


def predict(calibration: dict | None, name: str, model, crops, top_k: int,
            turns: int = 1) -> list:
    """``model.predict(crops, top_k, turns)``, or the calibration's enrolment ``profile``'s
    reading of them where one is given (``name``: the model's name, models/<name>.onnx;
    a profile reads its adapted head from the quarter turns it was made for, the model's
    other heads from ``turns`` as the plain model does)."""
    profile = (calibration or {}).get("profile")
    if profile is None:
        return model.predict(crops, top_k=top_k, turns=turns)
    return profile.predict(name, model, crops, top_k, turns)


def _occlusion(image: np.ndarray, fix: BoardFix, geom, ignore: np.ndarray | None = None):
    """``edge_occlusion`` on a crop round the board (it smooths the picture it samples:
    the whole frame would cost several times as much); the same answer, since it samples
    only the board's border strip (and just beyond it). ``ignore``: an image mask."""
    h, w = image.shape[:2]
    # ... beyond the table it samples just beyond the edge (at most this many px per mm)
    sides = np.linalg.norm(fix.corners - np.roll(fix.corners, 1, axis=0), axis=1)
    margin = CROP_MARGIN_PX + np.ceil(-min(OUTSIDE_MM) * sides.max() / min(geom.width,
                                                                            geom.depth))
    x0, y0 = np.maximum(np.floor(fix.corners.min(axis=0)) - margin, 0).astype(int)
    x1, y1 = np.ceil(fix.corners.max(axis=0) + margin).astype(int)
    x1, y1 = min(int(x1), w), min(int(y1), h)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return edge_occlusion(image, fix, geom, ignore)
    shift = np.array([x0, y0], np.float64)
    return edge_occlusion(image[y0:y1, x0:x1], BoardFix(fix.corners - shift, fix.coarse),
                          geom, None if ignore is None else ignore[y0:y1, x0:x1])


class Observer:
    """The observations of one camera's frames, in order: ``observe(image, seq, time)``.

    The board is found in the first frame and then tracked (``vision.track.BoardTracker``):
    where it lies as before (a check of its pattern round the last corners, a few ms) the
    frame is read on the last fix; a nudged board is re-fitted from the last corners; one
    that moved farther or was lost is found anew (``vision.board.find_board``). A hand
    seen across the edge of a tracked board is checked on the board found anew (``_anew``:
    the reading there is used, and tracked on, where it shows no hand; ``_confirmed``: not
    again while the same corners show the same covered stretches and position). The
    calibration's registered ``board`` corners, where given, are used as they are.
    ``status`` is the last frame's: still, hidden, moved, found, lost (the tracker's), or
    registered; ``timing`` the seconds its stages took (check, board, occlusion, reader,
    valid: ``most_likely_valid``; a frame read again adds to them) by ``clock`` (wall
    time; a benchmark may set CPU time).
    """

    def __init__(self, game: str, *, calibration: dict | None = None, table: str = "t1"):
        if game not in READERS:
            raise ObserveError(f"game {game!r} is not read by the vision pipeline yet "
                               f"(supported: {', '.join(SUPPORTED)})")
        self.game, self.calibration, self.table = game, calibration, table
        self.geom = geometry(game)
        self.reader = importlib.import_module(READERS[game])
        self.tracker = BoardTracker(self.geom, find_board)
        self.status: str | None = None
        # (fix, edge runs, position read) a board found anew showed covered as well
        self.confirmed: tuple[BoardFix, tuple, str] | None = None
        self.timing: dict[str, float] = {}
        self.clock = _time.perf_counter
        corners = (calibration or {}).get("board")
        self.registered = None
        if corners is not None:
            corners = np.asarray(corners, np.float64).reshape(4, 2)
            self.registered = BoardFix(corners, corners.copy())

    def board(self, image: np.ndarray) -> BoardFix | None:
        """The board's fix in ``image`` (checked, colour-balanced), None when none is
        seen: the registered corners, else the tracked ones."""
        if self.registered is not None:
            self.status = "registered"
            return self.registered
        track = self.tracker.update(image)
        self.status = track.status
        return track.fix

    def _read(self, image: np.ndarray, fix: BoardFix, lap):
        """(The reader's reading of ``image`` on ``fix``, the board edge's occlusion)."""
        reader, geom = self.reader, self.geom
        reading = reader.read(image, fix, geom, self.calibration)
        lap("reader")
        covered = getattr(reader, "covered", None)
        ignore = None if covered is None else covered(image, fix, geom, reading,
                                                      self.calibration)
        occlusion = _occlusion(image, fix, geom, ignore)
        lap("occlusion")
        return reading, occlusion

    def _anew(self, image: np.ndarray, fix: BoardFix, reading, occlusion, lap):
        """A hand seen on the board as tracked: (fix, reading, occlusion) on the board
        found anew where that one shows no hand (a board the tracker kept a little off,
        e.g. one found off in a hard frame and tracked on since: its edge looks covered),
        which is tracked on from now; else the tracked ones (a hand indeed)."""
        track = self.tracker.anew(image, keep=False)
        lap("board")
        if track.fix is None:
            return fix, reading, occlusion
        self._confirm(fix, reading, occlusion)
        if np.abs(track.fix.corners - fix.corners).max() < ANEW_PX:
            return fix, reading, occlusion
        again, seen = self._read(image, track.fix, lap)
        if seen.occluded:
            return fix, reading, occlusion
        self.tracker.adopt(image, track.fix)
        self.status = "found"
        return track.fix, again, seen

    def _confirm(self, fix: BoardFix, reading, occlusion) -> None:
        """The board found anew in this frame shows ``occlusion`` too: the hand stands."""
        self.confirmed = (fix, occlusion.runs, json.dumps(reading.position, sort_keys=True))

    def _confirmed(self, fix: BoardFix, reading, occlusion) -> bool:
        """Whether the board found anew has shown this hand already: the same fix and
        position read, its edge covered where it was then (each run's ends within
        ``SAME_RUN_MM``)."""
        if self.confirmed is None:
            return False
        then, runs, position = self.confirmed
        if then is not fix or position != json.dumps(reading.position, sort_keys=True):
            return False
        return len(runs) == len(occlusion.runs) and all(
            abs(a0 - a1) <= SAME_RUN_MM and abs(b0 - b1) <= SAME_RUN_MM
            for (a0, b0), (a1, b1) in zip(runs, occlusion.runs, strict=True))

    def observe(self, image: np.ndarray, *, seq: int = 0, time: float | None = None) -> dict:
        """The observation of ``image`` (BGR uint8, 1280 x 720), the frame after the last
        one given."""
        clock = [self.clock()]
        self.timing = timing = {}

        def lap(stage: str) -> None:
            clock.append(self.clock())
            timing[stage] = timing.get(stage, 0.0) + clock[-1] - clock[-2]

        check_frame(image)
        colour = (self.calibration or {}).get("colour")
        if colour is not None:
            image = colour.apply(image)
        lap("check")
        game = self.game
        fix = self.board(image)
        lap("board")
        if fix is None:
            raise ObserveError("no board in view")
        reading, occlusion = self._read(image, fix, lap)
        if occlusion.occluded and self.status == "found":  # found anew in this frame
            self._confirm(fix, reading, occlusion)
        elif occlusion.occluded and self.status in TRACKED and not self._confirmed(
                fix, reading, occlusion):
            fix, reading, occlusion = self._anew(image, fix, reading, occlusion, lap)
        most_likely_valid(game, reading)
        lap("valid")
        hand = occlusion.occluded
        obs = {"schema": "tableref/observation/1", "table": self.table, "game": game,
               "seq": seq, "time": _time.time() if time is None else time,
               "stable": not hand, "confidence": round(min(reading.confidences, default=1.0), 4),
               "position": reading.position, "uncertain": reading.uncertain,
               "board": fix.to_json()}
        if hand:
            obs["confidence"] = 0.0
            obs["occlusion"] = occlusion.to_json()
        return obs


def observe(image: np.ndarray, game: str, *, calibration: dict | None = None,
            table: str = "t1", seq: int = 0, time: float | None = None) -> dict:
    """The observation of ``image`` (BGR uint8, 1280 x 720) for ``game``, the board found
    anew (one picture; a stream of them is ``Observer``'s)."""
    return Observer(game, calibration=calibration, table=table).observe(image, seq=seq,
                                                                         time=time)
