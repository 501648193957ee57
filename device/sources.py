"""Frame sources: where the camera process gets its pictures, all behind one interface.

    source = open_source(SourceConfig(kind="folder", path="shots/"))
    with source:
        for frame in source:          # Frame: BGR uint8 image, small grey lores, time
            ...

Kinds (``SourceConfig.kind``):

- ``picamera2``: the Raspberry Pi camera through libcamera. ``picamera2`` is imported only
  when this kind is opened; without it the error is one line saying how to install it.
  A video configuration with two streams: ``main`` (RGB888, which is BGR in memory, for
  recognition) and a small ``lores`` (YUV420, the only lores format a Pi 4 can make;
  its luma plane, cropped of the row padding, is the change-detection picture).
  ``buffer_count`` >= 2 (1 drops frames) and ``queue=False`` plus
  ``capture_request(flush=True)`` so that a frame never predates the call. Exposure,
  analogue gain and white balance run automatic for ``settle_s`` seconds, then are
  locked at the values they reached, so that lighting decisions do not drift mid-game.
- ``usb``: a USB (V4L2) camera through OpenCV, ``device`` an index or a /dev path.
- ``video``: a video file through OpenCV.
- ``folder``: the images of a folder in natural order (``frame2`` before ``frame10``).
- ``synthetic``: a scripted game drawn by the synthetic renderer
  (``vision.render.script.ScriptedGame``; ``SourceConfig.script`` is the game or its
  arguments), each frame with its ground truth in ``Frame.metadata``.

A frame that cannot be read (a corrupt file, a failed grab, an exception while making
it: a decoder's or the renderer's) is reported in one line through ``on_error`` (by
default the ``tableref.sources`` logger) and skipped; only a source that cannot be opened
at all, or one that fails ``max_failures`` times in a row, raises ``SourceError``.

Capture is separate from processing: ``LatestFrame`` runs a source in its own thread and
keeps only the newest frame, so slow recognition never makes the camera fall behind
(frames it had no time for are counted as ``dropped``).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

log = logging.getLogger("tableref.sources")

KINDS = ("picamera2", "usb", "video", "folder", "synthetic")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm")

PICAMERA2_MISSING = (
    "picamera2 is not installed: on Raspberry Pi OS run 'sudo apt install python3-picamera2' "
    "and make the venv with --system-site-packages (docs/device.md)"
)


class SourceError(RuntimeError):
    """A source that cannot be opened or has stopped delivering frames. One line."""


@dataclass
class SourceConfig:
    """How to open a frame source, as plain data (``SourceConfig(**json.load(f))``)."""

    kind: str
    path: str | None = None  # video file or image folder
    device: int | str = 0  # usb: index or /dev/videoN; picamera2: camera number
    size: tuple[int, int] = (1280, 720)  # main stream (width, height)
    lores_size: tuple[int, int] = (320, 240)  # change-detection picture (width, height)
    fps: float = 10.0
    buffer_count: int = 4  # picamera2; >= 2
    settle_s: float = 1.5  # picamera2: automatic exposure/white balance time before lock
    lock_exposure: bool = True
    loop: bool = False  # video/folder: start again at the end
    max_failures: int = 50  # consecutive unreadable frames before giving up
    script: Any = None  # synthetic: a ScriptedGame or its keyword arguments
    extra: dict[str, Any] = field(default_factory=dict)  # kind-specific settings

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise SourceError(f"unknown frame source {self.kind!r} (known: {', '.join(KINDS)})")
        self.size = (int(self.size[0]), int(self.size[1]))
        self.lores_size = (int(self.lores_size[0]), int(self.lores_size[1]))
        if self.buffer_count < 2:
            raise SourceError("buffer_count must be at least 2 (with 1 the camera drops frames)")


@dataclass
class Frame:
    """One picture. ``image`` is BGR uint8 (H, W, 3); ``lores`` a small grey uint8 picture
    for change detection; ``time`` the capture time (Unix seconds); ``index`` counts the
    frames the source delivered (skipped ones not included); ``name`` says where it came
    from (a file name, ``frame 17``)."""

    image: np.ndarray
    lores: np.ndarray
    time: float
    index: int
    name: str
    metadata: dict[str, Any] = field(default_factory=dict)


def lores_of(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The change-detection picture of a BGR frame: grey, ``size`` (width, height)."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA)


def _as_bgr(image: Any) -> np.ndarray | None:
    """A BGR uint8 (H, W, 3) array, or None when ``image`` is not a usable picture."""
    if not isinstance(image, np.ndarray) or image.size == 0 or image.dtype != np.uint8:
        return None
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return None


class FrameSource:
    """The interface: ``open()``, ``read() -> Frame | None`` (None at the end), ``close()``;
    iterate it, or use it as a context manager (opens and closes)."""

    def __init__(self, config: SourceConfig, on_error: Callable[[str], None] | None = None):
        self.config = config
        self.on_error = on_error or log.warning
        self.index = 0
        self.skipped = 0
        self._failures = 0

    # -- subclass hooks ---------------------------------------------------------------
    def open(self) -> None:
        """Opens the device or file; raises SourceError with one line when it cannot."""

    def _grab(self) -> tuple[Any, str, dict[str, Any]] | None:
        """(picture or None when unreadable, its name, metadata), or None at the end."""
        raise NotImplementedError

    def close(self) -> None:
        """Releases the device; safe to call twice."""

    # -- the common part ----------------------------------------------------------------
    def read(self) -> Frame | None:
        """The next good frame, skipping (and reporting) unreadable ones; None at the end."""
        while True:
            try:
                grabbed = self._grab()
            except SourceError:
                raise
            except Exception as err:  # the frame could not be made: one line, skipped
                line = next((t.strip() for t in str(err).splitlines() if t.strip()), "")
                grabbed = None, (f"{self.config.kind} source, frame "
                                 f"{self.index + self.skipped} ({type(err).__name__}: {line})"), {}
            if grabbed is None:
                return None
            picture, name, meta = grabbed
            stamp = meta.pop("time", None) or time.time()
            image = _as_bgr(picture)
            if image is None:
                self.skipped += 1
                self._failures += 1
                self.on_error(f"{name}: unreadable frame, skipped")
                if self._failures >= self.config.max_failures:
                    raise SourceError(
                        f"{self.config.kind} source: {self._failures} unreadable frames in a "
                        f"row (the last: {name}); giving up")
                continue
            self._failures = 0
            lores = meta.pop("lores", None)
            if lores is None:
                lores = lores_of(image, self.config.lores_size)
            frame = Frame(image, lores, float(stamp), self.index, name, meta)
            self.index += 1
            return frame

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------- folder


def _natural_key(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part.lower()
            for part in re.split(r"(\d+)", path.name)]


class FolderSource(FrameSource):
    """The images of a folder in natural order; a file that does not decode is skipped."""

    def open(self) -> None:
        folder = Path(self.config.path or "")
        if not folder.is_dir():
            raise SourceError(f"no such image folder: {folder}")
        self.files = sorted(
            (p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()),
            key=_natural_key)
        if not self.files:
            raise SourceError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {folder}")
        self._next = 0

    def _grab(self):
        if self._next >= len(self.files):
            if not self.config.loop:
                return None
            self._next = 0
        path = self.files[self._next]
        self._next += 1
        try:
            data = np.fromfile(path, np.uint8)
        except OSError as err:
            return None, f"{path.name} ({err.strerror or err})", {}
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        return image, path.name, {"path": str(path)}


# --------------------------------------------------------------------------- OpenCV


class VideoFileSource(FrameSource):
    """A video file through OpenCV. A frame that fails to decode before the end of the
    file is skipped; frame times come from the file's position (first frame = open time)."""

    def open(self) -> None:
        path = self.config.path or ""
        if not os.path.isfile(path):
            raise SourceError(f"no such video file: {path}")
        self.cap = cv2.VideoCapture(path)
        if not self.cap.isOpened():
            raise SourceError(f"cannot open video file {path} (not a video OpenCV can read)")
        self.count = int(self.cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.t0 = time.time()
        self._pos = 0

    def _grab(self):
        while True:
            ok, image = self.cap.read()
            pos = self._pos
            self._pos += 1
            if ok:
                msec = self.cap.get(cv2.CAP_PROP_POS_MSEC) or 0.0
                return image, f"frame {pos}", {"time": self.t0 + msec / 1000.0}
            if pos < self.count:  # a damaged frame inside the file
                return None, f"frame {pos}", {}
            if not self.config.loop or pos == 0:
                return None
            self.cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            self._pos = 0

    def close(self) -> None:
        cap = getattr(self, "cap", None)
        if cap is not None:
            cap.release()


class USBCameraSource(FrameSource):
    """A USB/V4L2 camera through OpenCV, asking for ``size`` and ``fps``, one buffer."""

    def open(self) -> None:
        device = self.config.device
        if isinstance(device, str) and device.isdigit():
            device = int(device)
        self.cap = cv2.VideoCapture(device, cv2.CAP_V4L2)
        if not self.cap.isOpened():
            raise SourceError(f"cannot open the USB camera {device!r} (is it plugged in, and "
                              "is this user in the video group?)")
        w, h = self.config.size
        self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, w)
        self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, h)
        self.cap.set(cv2.CAP_PROP_FPS, self.config.fps)
        self.cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not a queued old one

    def _grab(self):
        ok, image = self.cap.read()
        return (image if ok else None), f"frame {self.index + self.skipped}", {}

    def close(self) -> None:
        cap = getattr(self, "cap", None)
        if cap is not None:
            cap.release()


# --------------------------------------------------------------------------- picamera2


def _import_picamera2():
    try:
        from picamera2 import Picamera2
    except ImportError:
        raise SourceError(PICAMERA2_MISSING) from None
    return Picamera2


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera (see the module doc for the configuration's reasons)."""

    def open(self) -> None:
        Picamera2 = _import_picamera2()
        cfg = self.config
        try:
            self.cam = Picamera2(int(cfg.device))
            video = self.cam.create_video_configuration(
                main={"size": cfg.size, "format": "RGB888"},  # BGR byte order in memory
                lores={"size": cfg.lores_size, "format": "YUV420"},  # Pi 4: lores is YUV
                buffer_count=cfg.buffer_count,
                queue=False,
                controls={"FrameRate": cfg.fps},
            )
            self.cam.configure(video)
            self.cam.start()
            if cfg.lock_exposure:
                self._lock_exposure()
        except SourceError:
            raise
        except Exception as err:  # libcamera reports in many ways; one line for the user
            self.close()
            raise SourceError(f"cannot start the Pi camera {cfg.device}: {err}") from None
        self.lores_size = tuple(self.cam.camera_config["lores"]["size"])

    def _lock_exposure(self) -> None:
        """Lets automatic exposure and white balance settle, then fixes what they found."""
        time.sleep(self.config.settle_s)
        md = self.cam.capture_metadata()
        controls = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if md.get(key) is not None:
                controls[key] = md[key]
        self.cam.set_controls(controls)
        self.locked = controls
        log.info("camera exposure locked: %s", controls)

    def _grab(self):
        try:
            if getattr(self, "_flush", True):
                request = self.cam.capture_request(flush=True)
            else:
                request = self.cam.capture_request()
        except TypeError:  # a picamera2 older than capture_request(flush=...)
            self._flush = False
            log.info("this picamera2 has no capture_request(flush=...); relying on queue=False")
            return self._grab()
        except Exception as err:
            return None, f"frame {self.index + self.skipped} ({err})", {}
        try:
            main = request.make_array("main")
            yuv = request.make_array("lores")
            meta = request.get_metadata()
        except Exception as err:
            return None, f"frame {self.index + self.skipped} ({err})", {}
        finally:
            request.release()
        w, h = self.lores_size
        # YUV420 comes as (h * 3 / 2, stride) with stride >= w: the luma plane is the first
        # h rows, cropped of the padding on the right
        lores = np.ascontiguousarray(yuv[:h, :w])
        return main, f"frame {self.index + self.skipped}", {
            "lores": lores, "sensor_timestamp_ns": meta.get("SensorTimestamp"),
            "exposure_us": meta.get("ExposureTime")}

    def close(self) -> None:
        cam = getattr(self, "cam", None)
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()
            self.cam = None


# --------------------------------------------------------------------------- synthetic

#: factory(config) -> iterable of BGR images, (image, name) pairs, or renderer frames
_SYNTHETIC: list[Callable[[SourceConfig], Any]] = []


def register_synthetic(factory: Callable[[SourceConfig], Any] | None) -> None:
    """Sets what the ``synthetic`` kind draws; None goes back to the renderer's
    scripted game (``scripted_game``)."""
    _SYNTHETIC[:] = [factory] if factory is not None else []


def scripted_game(config: SourceConfig) -> Any:
    """The synthetic renderer's scripted game (``vision.render.script.ScriptedGame``):
    ``config.script`` is one, or the keyword arguments to make one
    (``{"game": "neunfeld", "positions": [...], "seed": 1, "fps": 12}``)."""
    try:
        from vision.render.script import ScriptedGame
    except ImportError as err:
        raise SourceError(f"the synthetic renderer cannot be loaded: {err}") from None
    script = config.script
    if isinstance(script, ScriptedGame):
        return script
    if isinstance(script, dict):
        return ScriptedGame(**script)
    raise SourceError("a synthetic source needs script: a ScriptedGame, or its arguments "
                      "{game, positions, seed, ...}")


class SyntheticSource(FrameSource):
    """Frames drawn by the synthetic renderer for a scripted game.

    The renderer's frames keep their own capture time, and carry their ground truth in
    ``Frame.metadata`` (``truth``, ``stable``, ``phase``, ``position_index``), so that a
    pipeline test can compare what it saw with what was drawn. ``register_synthetic``
    sets another factory (tests: plain images or (image, name) pairs).
    """

    def open(self) -> None:
        factory = _SYNTHETIC[0] if _SYNTHETIC else scripted_game
        try:
            made = factory(self.config)
            # a scripted game is drawn frame by frame (``frame(i)``), so that one that fails
            # to draw is skipped, not the rest of the game with it (as in its iterator)
            self._game = made if hasattr(made, "frame") and hasattr(made, "__len__") else None
            self._it = None if self._game is not None else iter(made)
        except SourceError:
            raise
        except Exception as err:
            raise SourceError(f"cannot start the synthetic game: {err}") from None
        self._n = 0

    def _grab(self):
        if self._game is not None:
            if self._n >= len(self._game):
                return None
            self._n += 1
            item = self._game.frame(self._n - 1)
        else:
            try:
                item = next(self._it)
            except StopIteration:
                return None
            self._n += 1
        if hasattr(item, "image"):  # a renderer frame
            return item.image, f"frame {item.index} ({item.phase})", {
                "time": item.time, "truth": item.truth, "stable": item.stable,
                "phase": item.phase, "position_index": item.position_index}
        if isinstance(item, tuple):
            return item[0], str(item[1]), {}
        return item, f"frame {self._n - 1}", {}


# --------------------------------------------------------------------------- opening

_CLASSES: dict[str, type[FrameSource]] = {
    "picamera2": Picamera2Source, "usb": USBCameraSource, "video": VideoFileSource,
    "folder": FolderSource, "synthetic": SyntheticSource,
}


def open_source(
    config: SourceConfig | dict[str, Any], on_error: Callable[[str], None] | None = None
) -> FrameSource:
    """The source a configuration describes (not opened yet: ``with`` or ``open()``)."""
    if isinstance(config, dict):
        config = SourceConfig(**config)
    return _CLASSES[config.kind](config, on_error)


class LatestFrame:
    """Capture in its own thread, processing in the caller's: keeps only the newest frame.

    ``get(timeout)`` waits for a frame newer than the last one returned; None when none
    came in time or the source ended (``ended``; ``error`` holds a SourceError that
    stopped it). ``dropped`` counts frames replaced before anyone took them.
    """

    def __init__(self, source: FrameSource):
        self.source = source
        self.dropped = 0
        self.ended = False
        self.error: SourceError | None = None
        self._frame: Frame | None = None
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="capture", daemon=True)

    def start(self) -> LatestFrame:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                frame = self.source.read()
                with self._cond:
                    if frame is None:
                        break
                    if self._frame is not None:
                        self.dropped += 1
                    self._frame = frame
                    self._cond.notify_all()
        except SourceError as err:
            self.error = err
        finally:
            with self._cond:
                self.ended = True
                self._cond.notify_all()

    def get(self, timeout: float = 1.0) -> Frame | None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._frame is None and not self.ended:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            frame, self._frame = self._frame, None
            return frame

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._thread.join(timeout)
