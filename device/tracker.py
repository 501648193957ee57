"""Frames -> observations: recognise the board only when the scene has settled.

    tracker = Tracker(TrackerConfig(game="esoloe", table="t1"))
    for frame in source:                      # device.sources.Frame (image, time)
        obs = tracker.feed(frame)             # None, or one stable observation
        if obs is not None:
            publisher.publish_observation(obs)

Every frame gets only the cheap part: a small grey picture (``lores_width`` pixels wide)
compared with the first picture of the current still run ("anchor"), made from the
frame's own small grey picture (``Frame.lores``: the Pi camera's second stream, or the
source's) where it has one, so that the full frame is not touched. Once vision has
found the board, the picture is the board region rectified from the board corners of
the last observation (plus a margin for stacks that stick out above the top face), so
that people moving beside the board do not count; while no board is known it is the
whole frame, downscaled. A pixel counts as changed when its grey level differs from the
anchor's by more than ``pixel_delta``; the scene moves when more than
``changed_fraction`` of the pixels changed, and then the anchor starts again.

The scene has settled when the run has lasted ``settle_frames`` frames and ``settle_s``
seconds of capture time. Then, once per run, the vision pipeline reads the frame (the
``recognise`` callable, by default a ``vision.observe.Observer``'s ``observe``: it tracks
the board, so that a board lying where it was is checked in a few milliseconds and
not found anew; a board registered by calibration is used as it is) and the tracker returns
one observation with ``stable`` true, the next ``seq`` (strictly increasing, starting at
``first_seq``) and the frame's capture time. A hand over the board keeps breaking the
run, so nothing is recognised under it. A settled scene that looks as it did at the last
recognition (a hand came and went without moving anything) is not read again; that
check is finer than the still test (``moved``: also a compact change of ``piece_px``
pixels within a ``piece_window`` square), since one small piece placed (a Cubes stone:
some 90 of the 25,600 pixels of the board picture) may change fewer pixels than
``changed_fraction`` asks for. A settled scene whose picture is the last reading's
shifted (``align``: the board pushed or the camera knocked, by ``shift_px`` to
``shift_max`` of the picture's width) is read, but its reading is not published when its
position is the last observation's: the board moved, nothing on it (the referee would
take an illegal position seen again for another violation).

Unstable observations are not published at all: the referee ignores them, liveness is
the transport's heartbeat and the service watchdog. A frame that is None, empty, not an
8-bit colour picture or of another size than the stream's first is skipped with a
warning (``tableref.tracker`` logger); a frame vision cannot read (``ObserveError``: no
board in view) gives no observation, a warning, and is tried again after the next change
(change detection then watches the whole frame again, in case the board was moved); a
fault of vision's on a strange frame (any other exception) is logged with its traceback
and handled the same way: the stream goes on. A
reading vision itself marks not stable (a hand across the board's edge) is not published
either; the scene is read again once it changes and settles. (A board nudged a
millimetre is vision's to follow: ``vision.observe.Observer`` re-fits it, and checks a
hand it sees on the board found anew, so that old corners' edge is not taken for a hand.)

The tracker remembers each cube from when it was placed (``CubeMemory``, games whose
position is ``cells`` of stacks: the e-SOLO-e family): a face no camera sees now (null
in the reading: covered by a cube put on top, or a side the camera does not face) is
carried from the last reading that saw it, as long as the cube is still the same one
(same field, level and colour, and every face seen now agrees with what was seen then);
a face never seen stays null.

Two cameras (``TrackerConfig.second_seat``, the e-SOLO-e family: ``vision.fuse``): each
frame is a pair, ``feed(frame, second)``, captured at the same instant. Each camera has
its own change detection (its own board region, anchor and last reading); the scene
moves when either picture changes (a hand in either view), and a settled scene is read
again only when either moved since the last reading. The reading is both frames, each
through its own ``Observer`` (each camera's board tracked on its own, each with its
calibration), fused by ``vision.fuse.fuse_images`` (the second camera's reading turned
half round when it sits north); a camera whose reading shows a hand across the board's
edge is left out, and when both do the reading is not stable. The
observation's ``board`` is the first camera's corners and ``board_second`` the second's
(absent for a camera that could not read the frame: its change detection then watches
its whole frame again).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

log = logging.getLogger("tableref.tracker")

CORNERS = ("nw", "ne", "se", "sw")


@dataclass
class TrackerConfig:
    """How the tracker decides that the scene is still, as plain data."""

    game: str
    table: str = "t1"
    lores_width: int = 160  # change-detection picture width, px (whole frame or board)
    pixel_delta: int = 18  # grey levels a pixel must change by to count as changed
    changed_fraction: float = 0.004  # share of changed pixels that means "moving"
    piece_window: int = 9  # px square (of the change picture) a small piece fits in ...
    piece_px: int = 25  # ... with this many changed pixels in it: a piece moved there
    settle_frames: int = 3  # a still run must last this many frames ...
    settle_s: float = 0.5  # ... and this many seconds of capture time
    board_margin: float = 0.15  # board region grown by this share of its size each side
    # (and at least to where the game's reader looks for pieces beside the board: its
    # ``region(geom)``, board mm; Neunfeld's dice before the players, Tyr's beside it)
    shift_px: float = 1.0  # a settled picture shifted at least this far (px, a corner) ...
    shift_max: float = 0.25  # ... and at most this share of its width: the board pushed
    first_seq: int = 1  # keep seq increasing across restarts (e.g. start from the clock)
    calibration: dict | None = None  # passed to vision's observe
    remember: bool = True  # carry unseen cube faces from when they were seen (CubeMemory)
    second_seat: str | None = None  # two cameras: the second's side, north or south
    second_calibration: dict | None = None  # the second camera's, for vision


def watched_region(game: str, margin: float) -> tuple[np.ndarray, tuple] | None:
    """(the board's corners nw, ne, se, sw in board mm, the region change detection
    watches (u0, u1, v0, v1) board mm): the board grown by ``margin`` of its size a
    side, and wherever the game's reader looks for pieces beside it (a reader module's
    ``region(geom)``: Neunfeld's dice lie before the players, up to 10 cm from the
    board's centre line, which a 25 mm strip grown by 15 % does not reach); None for a
    game without a board geometry."""
    import importlib

    from vision.board import geometry
    from vision.observe import READERS

    try:
        geom = geometry(game)
    except ValueError:  # InvalidPosition: an unknown game
        return None
    w, d = geom.width / 2 * (1 + 2 * margin), geom.depth / 2 * (1 + 2 * margin)
    u0, u1, v0, v1 = -w, w, -d, d
    region = getattr(importlib.import_module(READERS[game]), "region", None) if (
        game in READERS) else None
    if region is not None:
        ru0, ru1, rv0, rv1 = region(geom)
        u0, u1, v0, v1 = min(u0, ru0), max(u1, ru1), min(v0, rv0), max(v1, rv1)
    return geom.corners_mm(), (u0, u1, v0, v1)


class _View:
    """One camera's change detection: its stream's frame size, the board region it
    watches, the anchor of the current still run and the picture at the last reading."""

    def __init__(self) -> None:
        self.size: tuple[int, int] | None = None  # (w, h) of the stream's frames
        self.board: np.ndarray | None = None  # full-frame px -> lores board picture
        self.board_size: tuple[int, int] | None = None
        self.board_json: dict | None = None  # the corners it was made from
        self.anchor: np.ndarray | None = None
        self.last_read: np.ndarray | None = None  # lores picture at the last recognition


class Tracker:
    """Feed it frames in order; it returns a stable observation when a change settled.

    ``recognise(image, seq, time) -> observation`` may be given (tests, other pipelines);
    it raises ``vision.observe.ObserveError`` (or any ValueError) for an unreadable scene;
    with two cameras ``image`` is the pair of frames (the observation's ``board`` and
    ``board_second`` are then each camera's corners). Without it, ``observers`` (a
    ``vision.observe.Observer`` a camera; ``observer`` the first) read the frames.
    Counters: ``frames`` (fed), ``skipped`` (bad frames), ``recognised`` (recognition
    runs), ``failed`` (runs that gave no observation).
    """

    def __init__(self, config: TrackerConfig,
                 recognise: Callable[[Any, int, float], dict] | None = None):
        from vision.fuse import FAMILY

        if config.second_seat is not None and (
                config.second_seat not in ("north", "south") or config.game not in FAMILY):
            raise ValueError(f"a second camera ({config.second_seat}) is fused for "
                             f"{', '.join(FAMILY)} seated north or south, not {config.game}")
        self.config = config
        self.views = [_View()] if config.second_seat is None else [_View(), _View()]
        self.observers: list = []
        if recognise is None:
            from vision.observe import Observer

            self.observers = [
                Observer(config.game, calibration=cal, table=config.table)
                for cal in (config.calibration, config.second_calibration)[:len(self.views)]]
        self.observer = self.observers[0] if self.observers else None
        self.recognise = recognise or (self._observe if len(self.views) == 1
                                       else self._observe_pair)
        self.memory = CubeMemory(config.game) if config.remember else None
        self.seq = config.first_seq
        self.frames = self.skipped = self.recognised = self.failed = 0
        self._watch = watched_region(config.game, config.board_margin)  # board mm
        self._anchor_time = 0.0
        self._run = 0  # frames in the current still run
        self._done = False  # this run was recognised (or tried)
        self._unread = 0  # settled scenes vision could not read since the last observation
        self._published: dict | None = None  # the last observation's position

    @property
    def still_since(self) -> float | None:
        """Capture time of the first frame of the current still run: the frame in which
        the scene settled (None before the first frame)."""
        return None if self.views[0].anchor is None else self._anchor_time

    def _observe(self, image: np.ndarray, seq: int, time: float) -> dict:
        return self.observer.observe(image, seq=seq, time=time)

    def _observe_pair(self, images: tuple, seq: int, time: float) -> dict:
        """Both cameras' frames, each read by its own Observer, fused (``fuse_images``).
        A camera that sees a hand across the board's edge is left out (the other's reading
        stands alone); when both do, the reading is not stable."""
        from vision.fuse import fuse_images
        from vision.observe import ObserveError

        readings: list[dict | None] = [None, None]

        def reader(i: int):
            def read(image, **kw):
                readings[i] = self.observers[i].observe(image, **kw)
                if readings[i].get("stable") is False:
                    raise ObserveError("a hand across the board")
                return readings[i]
            return read

        try:
            obs = fuse_images(*images, self.config.game,
                              seats=("south", self.config.second_seat),
                              readers=(reader(0), reader(1)), seq=seq, time=time)
        except ObserveError:
            obs = next((r for r in readings if r is not None), None)
            if obs is None or obs.get("stable") is not False:
                raise  # neither camera found the board
        boards = [None if r is None else r["board"] for r in readings]
        obs = {k: v for k, v in obs.items() if k not in ("board", "board_second")}
        for key, board in zip(("board", "board_second"), boards, strict=True):
            if board is not None:
                obs[key] = board
        return obs

    # ------------------------------------------------------------------ change detection
    def lores(self, image: np.ndarray, small: np.ndarray | None = None,
              view: _View | None = None) -> np.ndarray:
        """The change-detection picture of a BGR frame: the rectified board region once
        the board is known, else the whole frame; grey, ``lores_width`` wide. ``small``:
        the frame's own small grey picture of the same view (any size up to the frame's),
        used in place of the frame. ``view``: the camera's (default the first)."""
        view = view or self.views[0]
        h, w = image.shape[:2]
        if small is not None:
            sh, sw = small.shape
            if view.board is not None:
                S = np.diag([sw / w, sh / h, 1.0])
                return cv2.warpPerspective(small, S @ view.board, view.board_size,
                                           flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
            width = self.config.lores_width
            return cv2.resize(small, (width, max(1, round(h * width / w))),
                              interpolation=cv2.INTER_AREA)
        if view.board is not None:
            # shrink first (cheap, averages the noise), then warp the small grey picture
            small_w = 2 * view.board_size[0]
            scale = small_w / w
            small = cv2.resize(image, (small_w, max(1, round(h * scale))),
                               interpolation=cv2.INTER_AREA)
            grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
            S = np.diag([scale, scale, 1.0])
            return cv2.warpPerspective(grey, S @ view.board, view.board_size,
                                       flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        width = self.config.lores_width
        small = cv2.resize(image, (width, max(1, round(h * width / w))),
                           interpolation=cv2.INTER_AREA)
        return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)

    def _changed_pixels(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return cv2.absdiff(a, b) > self.config.pixel_delta

    def _many(self, changed: np.ndarray) -> bool:
        return np.count_nonzero(changed) > self.config.changed_fraction * changed.size

    def changed(self, a: np.ndarray, b: np.ndarray) -> bool:
        """Whether two change-detection pictures differ by more than the thresholds."""
        return self._many(self._changed_pixels(a, b))

    def moved(self, a: np.ndarray, b: np.ndarray) -> bool:
        """Whether anything on the board moved between two change-detection pictures:
        ``changed``, or a compact change anywhere (``piece_px`` changed pixels within a
        ``piece_window`` square: one small piece, a Cubes stone, a die turned, far
        under ``changed_fraction`` of the picture; camera noise is not compact)."""
        changed = self._changed_pixels(a, b)
        if self._many(changed):
            return True
        k = self.config.piece_window
        return bool(cv2.boxFilter(changed.astype(np.float32), -1, (k, k),
                                  normalize=False).max() >= self.config.piece_px)

    def align(self, now: np.ndarray, then: np.ndarray) -> np.ndarray | None:
        """The 3x3 warp from ``then``'s pixels to ``now``'s where the change picture
        ``now`` is ``then`` shifted (the board pushed, the camera knocked: the picture is
        made on the last reading's corners), by ``shift_px`` to ``shift_max`` of its
        width at a corner of the picture; else None. Phase correlation gives the shift,
        ECC (Euclidean) refines it with a turn. Whether anything moved on the board as
        well is not its to say (a Cubes stone placed is a 1 px outline in this picture)."""
        cfg = self.config
        h, w = then.shape
        a, b = then.astype(np.float32), now.astype(np.float32)
        (dx, dy), _ = cv2.phaseCorrelate(a, b)
        try:
            _, warp = cv2.findTransformECC(
                a, b, np.array([[1, 0, dx], [0, 1, dy]], np.float32), cv2.MOTION_EUCLIDEAN,
                (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4), None, 5)
        except cv2.error:  # no alignment found: not a shift
            return None
        rect = np.array([[0, 0, 1], [w - 1, 0, 1], [w - 1, h - 1, 1], [0, h - 1, 1]],
                        np.float32)
        shift = float(np.linalg.norm(rect @ warp.T - rect[:, :2], axis=1).max())
        if not cfg.shift_px <= shift <= cfg.shift_max * w:
            return None
        return np.vstack([warp, [0.0, 0.0, 1.0]]).astype(np.float64)

    def _set_board(self, board: dict | None, view: _View | None = None) -> None:
        """Change detection on the board region of ``board`` (the observation's corners
        nw, ne, se, sw in frame px); None: on the whole frame. ``view``: the camera's
        (default the first)."""
        view = view or self.views[0]
        view.board_json = board
        view.board = None
        if not board or any(k not in board for k in CORNERS):
            return
        quad = np.array([board[k] for k in CORNERS], np.float64)
        if self._watch is None:  # a game without a board geometry: the corners grown
            centre = quad.mean(axis=0)
            quad = centre + (quad - centre) * (1 + 2 * self.config.board_margin)
        else:
            mm, (u0, u1, v0, v1) = self._watch
            H = cv2.getPerspectiveTransform(mm.astype(np.float32), quad.astype(np.float32))
            rect = np.array([[[u0, v1]], [[u1, v1]], [[u1, v0]], [[u0, v0]]], np.float64)
            quad = cv2.perspectiveTransform(rect, H).reshape(4, 2)
        side_w = np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])
        side_h = np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])
        bw = self.config.lores_width
        bh = max(8, round(bw * side_h / max(side_w, 1e-6)))
        rect = np.array([[0, 0], [bw - 1, 0], [bw - 1, bh - 1], [0, bh - 1]], np.float32)
        # lores board px -> frame px (used with WARP_INVERSE_MAP)
        view.board = cv2.getPerspectiveTransform(rect, quad.astype(np.float32))
        view.board_size = (bw, bh)

    # ------------------------------------------------------------------ the stream
    @staticmethod
    def _small(frame: Any, image: np.ndarray) -> np.ndarray | None:
        """The frame's small grey picture where it is one ``lores`` can use, else None."""
        small = getattr(frame, "lores", None)
        if (isinstance(small, np.ndarray) and small.dtype == np.uint8 and small.ndim == 2
                and 8 <= small.shape[0] <= image.shape[0]
                and 8 <= small.shape[1] <= image.shape[1]):
            return small
        return None

    def _usable(self, frame: Any, view: _View) -> np.ndarray | None:
        image = getattr(frame, "image", None)
        name = getattr(frame, "name", None) or f"frame {self.frames}"
        why = None
        if frame is None:
            why = "no frame (dropped)"
        elif not isinstance(image, np.ndarray) or image.size == 0:
            why = "empty frame"
        elif image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            why = f"not an 8-bit colour picture (shape {image.shape}, {image.dtype})"
        elif view.size is not None and (image.shape[1], image.shape[0]) != view.size:
            why = (f"size {image.shape[1]}x{image.shape[0]} differs from the stream's "
                   f"{view.size[0]}x{view.size[1]}")
        if why is not None:
            self.skipped += 1
            log.warning("%s: %s, skipped", name, why)
            return None
        view.size = (image.shape[1], image.shape[0])
        return image

    def feed(self, frame: Any, second: Any = None) -> dict | None:
        """One frame (``image`` BGR uint8, ``time`` capture seconds), and with two cameras
        the second camera's of the same instant; the stable observation when this frame
        completes a settled scene, else None."""
        self.frames += 1
        frames = (frame, second)[:len(self.views)]
        images = [self._usable(f, view) for f, view in zip(frames, self.views, strict=True)]
        if any(image is None for image in images):
            return None
        now = float(frame.time)
        lores = [self._small(f, image) for f, image in zip(frames, images, strict=True)]
        smalls = [self.lores(image, lo, view)
                  for image, lo, view in zip(images, lores, self.views, strict=True)]
        if any(view.anchor is None or view.anchor.shape != small.shape
               or self.changed(small, view.anchor)
               for view, small in zip(self.views, smalls, strict=True)):
            for view, small in zip(self.views, smalls, strict=True):
                view.anchor = small
            self._anchor_time, self._run, self._done = now, 1, False
            return None
        self._run += 1
        cfg = self.config
        if self._done or self._run < cfg.settle_frames or now - self._anchor_time < cfg.settle_s:
            return None
        self._done = True
        moved = [view.last_read is None or self.moved(small, view.last_read)
                 for view, small in zip(self.views, smalls, strict=True)]
        if not any(moved):
            return None  # a hand came and went; nothing moved
        pushed = any(m and view.last_read is not None and view.board is not None
                     and self.align(small, view.last_read) is not None
                     for view, small, m in zip(self.views, smalls, moved, strict=True))
        return self._read(images, lores, smalls, now, pushed)

    def _read(self, images: list[np.ndarray], lores: list[np.ndarray | None],
              smalls: list[np.ndarray], now: float, pushed: bool = False) -> dict | None:
        self.recognised += 1
        try:
            obs = self.recognise(images[0] if len(images) == 1 else tuple(images),
                                 self.seq, now)
        except Exception as err:  # noqa: BLE001 (a frame must not end the stream)
            self.failed += 1
            self._unread += 1
            if isinstance(err, ValueError):  # ObserveError is one: said in a line
                log.warning("settled scene at %.3f not read: %s", now, err)
            else:
                log.exception("settled scene at %.3f not read: vision failed", now)
            for view, image, lo in zip(self.views, images, lores, strict=True):
                view.last_read = None
                if view.board is not None:  # the board may have moved: the whole frame
                    self._set_board(None, view)
                    view.anchor = self.lores(image, lo, view)
            return None
        if obs.get("stable") is False:  # vision saw a hand across the board: not still
            self.failed += 1
            for view in self.views:
                view.last_read = None
            log.info("settled scene at %.3f not used: vision sees a hand across the board",
                     now)
            return None
        obs.update(seq=self.seq, time=now, stable=True)
        if self.memory is not None:
            self.memory.apply(obs)
        for view, key, image, lo, small in zip(self.views, ("board", "board_second"), images,
                                               lores, smalls, strict=False):
            if obs.get(key) != view.board_json:
                self._set_board(obs.get(key), view)
                # the picture's region changed: start the comparison again on the new region
                small = view.anchor = self.lores(image, lo, view)
            view.last_read = small
        if pushed and obs.get("position") == self._published:
            log.info("settled scene at %.3f not published: the board was pushed, the "
                     "position is the last one", now)
            return None
        self._published = copy.deepcopy(obs.get("position"))
        if self._unread:  # the table may have changed unseen since the last observation
            obs["unread"], self._unread = self._unread, 0
        self.seq += 1
        return obs

    def run(self, frames: Iterable[Any]) -> Iterator[dict]:
        """The stable observations of a stream of frames."""
        for frame in frames:
            obs = self.feed(frame)
            if obs is not None:
                yield obs


class CubeMemory:
    """Each cube's faces from when they were seen, for ``cells``-of-stacks positions.

    ``apply(observation)`` fills, in place, the faces that are null in this reading with
    the value last seen for the same cube, and remembers what this reading saw. A cube
    is the same while its field and level hold a cube of the same player, no face seen
    now contradicts a remembered one, and together they are faces one cube of the set
    (the observation's ``cube-set`` option, else corner) can show; otherwise its memory
    starts again from this reading. Fields that no longer hold the cube forget it.
    """

    def __init__(self, game: str):
        self.game = game
        self.cubes: dict[tuple[int, int], tuple[int, dict[str, str]]] = {}

    def apply(self, obs: dict) -> dict:
        from rules.cube import CUBE_SETS, FACES

        cells = (obs.get("position") or {}).get("cells")
        if not isinstance(cells, list):
            return obs
        cube_set = CUBE_SETS.get((obs.get("options") or {}).get("cube-set") or "corner")
        seen: dict[tuple[int, int], tuple[int, dict[str, str]]] = {}
        for c, stack in enumerate(cells):
            for level, cube in enumerate(stack if isinstance(stack, list) else ()):
                faces = cube.get("faces") if isinstance(cube, dict) else None
                if not isinstance(faces, dict):
                    continue
                now = {k: v for k, v in faces.items() if v is not None}
                old = self.cubes.get((c, level))
                same = old is not None and old[0] == cube.get("player") and all(
                    old[1].get(k, v) == v for k, v in now.items())
                known = {**old[1], **now} if same else now
                if same and cube_set is not None and not cube_set.matching(
                        [known.get(d) for d in FACES]):  # no one cube shows these
                    known = now
                for k, v in known.items():
                    if faces.get(k) is None:
                        faces[k] = v
                seen[(c, level)] = (cube.get("player"), known)
        self.cubes = seen
        return obs


def measure(seconds: float = 3.0) -> None:
    """Prints the frames per second of change detection alone (``lores`` + ``changed``)
    on 1280x720 frames of a scripted 3x3 game, on the whole frame and on the board region,
    from the full frame and from the frame's small picture (``python -m device.tracker``)."""
    import time

    from device.sources import Frame, SourceConfig, open_source

    cube = [{"player": 0, "faces": {"up": "sakura"}}]
    script = {"game": "esoloe-tictactoe", "seed": 3, "fps": 4.0, "still_s": 1.5,
              "move_s": 2.0, "positions": [{"cells": [[]] * 9},
                                           {"cells": [[]] * 4 + [cube] + [[]] * 4}]}
    with open_source(SourceConfig("synthetic", script=script)) as source:
        frames: list[Frame] = list(source)  # still frames and frames with a hand
    config = TrackerConfig(game="esoloe-tictactoe")
    whole = Tracker(config)
    board = Tracker(config)  # the real vision reads the first still scene: board known
    if list(board.run(frames[:6])) == [] or board.views[0].board is None:
        print("vision did not find the board; only the whole frame is measured")
        board = None
    for label, tracker in (("whole frame", whole), ("board region", board)):
        for small in (False, True):
            if tracker is None:
                continue
            ref = tracker.lores(frames[0].image, frames[0].lores if small else None)
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                for frame in frames:
                    tracker.changed(tracker.lores(frame.image, frame.lores if small else None),
                                    ref)
                    n += 1
            dt = time.perf_counter() - t0
            print(f"{label}, {'small picture' if small else 'full frame'}: "
                  f"{n / dt:.0f} frames/s ({1000 * dt / n:.2f} ms a frame), change picture "
                  f"{ref.shape[1]}x{ref.shape[0]}, {cv2.getNumThreads()} OpenCV threads")


if __name__ == "__main__":
    measure()
