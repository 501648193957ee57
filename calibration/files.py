"""Calibration files: readable, versioned JSON, validated on load.

Every file is one JSON object whose ``schema`` names its kind and version
(``tableref/calibration/<kind>/1``) and whose ``date`` says when it was made (ISO 8601,
UTC). Kinds:

- ``camera``  intrinsics: ``K`` (3x3), ``dist`` (k1 k2 p1 p2 k3), ``image_size`` [w, h],
  ``rms_px`` (the calibration's reprojection error), ``views`` (images used), ``pattern``
  (the ChArUco board that was shown). ``tableref observe --calibration`` reads ``K`` and
  ``dist`` of this same file.
- ``board``   registration of the game board in the camera image: ``corners`` (px of the
  board top's nw, ne, se, sw corners), ``homography`` (board mm -> px, u east, v north,
  origin at the board centre), ``method`` (auto or manual), ``frames``, ``fit`` (the
  reprojection error in millimetres on the board plane).
- ``colour``  ``wb_gains`` (B, G, R multipliers that make the reference white grey),
  ``exposure`` (the reference's measured level and the gain that brings it to the target),
  ``pieces`` (each named piece's colour, BGR and Lab, in the frame as ``apply`` gives it:
  after the gains and the exposure gain).
- ``profile`` a set enrolment: per model, the head it adapts, the classes enrolled, their
  prototypes on the model's embedding, the captures per class and the cross-validated
  accuracy (``calibration.enrol``).

``load(path)`` returns the file's dataclass or raises ``CalibrationError`` with one line
naming the file and the dotted key that is wrong.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA_PREFIX = "tableref/calibration/"
VERSION = 1
CORNER_NAMES = ("nw", "ne", "se", "sw")


class CalibrationError(ValueError):
    """A calibration file that cannot be used; the message names the file and the key."""


def now() -> str:
    """The current UTC time as the files write it."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# --------------------------------------------------------------------------- validation

class _Reader:
    """Typed access to a parsed JSON object; every failure names the file and key path."""

    def __init__(self, source: str, data: Any, path: str = ""):
        self.source = source
        self.data = data
        self.path = path

    def fail(self, key: str, problem: str):
        where = f"{self.path}.{key}" if self.path else key
        raise CalibrationError(f"{self.source}: key '{where}': {problem}")

    def _get(self, key: str, optional: bool = False):
        if not isinstance(self.data, dict):
            raise CalibrationError(f"{self.source}: key '{self.path}': must be an object")
        if key not in self.data:
            if optional:
                return None
            self.fail(key, "missing")
        return self.data[key]

    def sub(self, key: str) -> _Reader:
        value = self._get(key)
        if not isinstance(value, dict):
            self.fail(key, "must be an object")
        return _Reader(self.source, value, f"{self.path}.{key}" if self.path else key)

    def items(self) -> list[tuple[str, _Reader]]:
        return [(k, self.sub(k)) for k in self.data]

    def string(self, key: str, choices: tuple[str, ...] | None = None) -> str:
        value = self._get(key)
        if not isinstance(value, str) or not value:
            self.fail(key, "must be a non-empty string")
        if choices is not None and value not in choices:
            self.fail(key, f"must be one of {', '.join(choices)}, not {value!r}")
        return value

    def number(self, key: str, lo: float = -math.inf, hi: float = math.inf,
               optional: bool = False) -> float | None:
        value = self._get(key, optional)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            self.fail(key, "must be a finite number")
        if not lo <= value <= hi:
            self.fail(key, f"must lie in [{lo}, {hi}], not {value}")
        return float(value)

    def integer(self, key: str, lo: int = 0) -> int:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            self.fail(key, f"must be an integer >= {lo}")
        return value

    def array(self, key: str, shape: tuple[int | None, ...], what: str) -> np.ndarray:
        value = self._get(key)
        try:
            arr = np.asarray(value, np.float64)
        except (TypeError, ValueError):
            self.fail(key, f"must be {what}")
        if arr.ndim != len(shape) or any(s is not None and s != n
                                         for s, n in zip(shape, arr.shape, strict=True)):
            self.fail(key, f"must be {what}")
        if not np.all(np.isfinite(arr)):
            self.fail(key, "must hold finite numbers only")
        return arr

    def date(self) -> str:
        value = self.string("date")
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            self.fail("date", f"must be an ISO 8601 time like 2026-01-31T12:00:00Z, "
                              f"not {value!r}")
        return value


def _list(a) -> list:
    return np.round(np.asarray(a, np.float64), 9).tolist()


# --------------------------------------------------------------------------- kinds

@dataclass(frozen=True)
class CameraCalibration:
    K: np.ndarray
    dist: np.ndarray  # k1 k2 p1 p2 k3
    image_size: tuple[int, int]
    rms_px: float
    views: int
    pattern: dict
    date: str = field(default_factory=now)

    KIND = "camera"

    def to_json(self) -> dict:
        return {"K": _list(self.K), "dist": _list(self.dist),
                "image_size": list(self.image_size), "rms_px": round(self.rms_px, 4),
                "views": self.views, "pattern": self.pattern}

    @classmethod
    def from_json(cls, r: _Reader) -> CameraCalibration:
        K = r.array("K", (3, 3), "a 3x3 matrix of numbers")
        if K[0, 0] <= 0 or K[1, 1] <= 0 or abs(K[2, 2] - 1) > 1e-9 or np.any(K[2, :2]):
            r.fail("K", "must be a camera matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] "
                        "with positive focal lengths")
        dist = r.array("dist", (None,), "a list of 4, 5 or 8 numbers")
        if dist.size not in (4, 5, 8):
            r.fail("dist", f"must hold 4, 5 or 8 numbers, not {dist.size}")
        size = r.array("image_size", (2,), "[width, height] in pixels")
        if np.any(size < 1) or np.any(size != np.round(size)):
            r.fail("image_size", "must be two positive whole numbers")
        return cls(K, dist, (int(size[0]), int(size[1])), r.number("rms_px", 0),
                   r.integer("views"), r.sub("pattern").data, r.date())


@dataclass(frozen=True)
class BoardRegistration:
    game: str
    image_size: tuple[int, int]
    corners: np.ndarray  # (4, 2) px, nw ne se sw
    homography: np.ndarray  # board mm (u east, v north) -> px
    method: str  # auto or manual
    frames: int
    fit: dict  # rms_mm, max_mm (reprojection on the board plane), ...
    date: str = field(default_factory=now)

    KIND = "board"
    METHODS = ("auto", "manual")

    def to_json(self) -> dict:
        return {"game": self.game, "image_size": list(self.image_size),
                "corners": {n: _list(c) for n, c in zip(CORNER_NAMES, self.corners,
                                                       strict=True)},
                "homography": _list(self.homography / self.homography[2, 2]),
                "method": self.method, "frames": self.frames, "fit": self.fit}

    @classmethod
    def from_json(cls, r: _Reader) -> BoardRegistration:
        c = r.sub("corners")
        corners = np.array([c.array(n, (2,), "[x, y] in pixels") for n in CORNER_NAMES])
        H = r.array("homography", (3, 3), "a 3x3 matrix of numbers")
        if abs(np.linalg.det(H)) < 1e-12:
            r.fail("homography", "is singular")
        size = r.array("image_size", (2,), "[width, height] in pixels")
        fit = r.sub("fit")
        fit.number("rms_mm", 0)
        fit.number("max_mm", 0)
        return cls(r.string("game"), (int(size[0]), int(size[1])), corners, H,
                   r.string("method", cls.METHODS), r.integer("frames"), fit.data, r.date())


@dataclass(frozen=True)
class ColourCalibration:
    wb_gains: np.ndarray  # B, G, R
    exposure: dict  # level (0..255 of the reference after the gains), target, gain
    reference: str  # what the gains were measured on
    pieces: dict  # name -> {"field", "bgr": [...], "lab": [...]} as ``apply`` gives them
    date: str = field(default_factory=now)

    KIND = "colour"

    def to_json(self) -> dict:
        return {"wb_gains": _list(self.wb_gains), "exposure": self.exposure,
                "reference": self.reference, "pieces": self.pieces}

    @classmethod
    def from_json(cls, r: _Reader) -> ColourCalibration:
        gains = r.array("wb_gains", (3,), "three numbers (B, G, R gains)")
        if np.any(gains <= 0):
            r.fail("wb_gains", "gains must be positive")
        e = r.sub("exposure")
        e.number("level", 0, 255)
        if e.number("gain", 0) == 0:
            e.fail("gain", "must be positive")
        pieces = r.sub("pieces")
        for _, p in pieces.items():
            p.array("bgr", (3,), "three numbers (B, G, R)")
            p.array("lab", (3,), "three numbers (L, a, b)")
        return cls(gains, e.data, r.string("reference"), pieces.data, r.date())

    @property
    def gains(self) -> np.ndarray:
        """The B, G, R multipliers ``apply`` uses: the white balance times the exposure
        gain (that brings the reference to its target level)."""
        return self.wb_gains * float(self.exposure["gain"])

    def apply(self, image: np.ndarray) -> np.ndarray:
        """``image`` (BGR uint8) white-balanced and brought to the target exposure (the
        frame every reader and enrolment are given)."""
        out = image.astype(np.float32) * self.gains.astype(np.float32)
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class EnrolmentProfile:
    game: str
    models: dict  # model name -> adaptation dict (calibration.enrol.Adaptation.to_json)
    date: str = field(default_factory=now)

    KIND = "profile"

    def to_json(self) -> dict:
        return {"game": self.game, "models": self.models}

    @classmethod
    def from_json(cls, r: _Reader) -> EnrolmentProfile:
        models = r.sub("models")
        for _, m in models.items():
            m.string("head")
            method = m.string("method", ("model", "prototypes", "linear", "nearest",
                                         "finetune"))
            m.number("scale", 0)
            m.number("model_weight", 0)
            if m.number("turns", 1, 4, optional=True) not in (None, 1, 4):
                m.fail("turns", "must be 1 (the crop as it is) or 4 (its quarter turns)")
            if not isinstance(m.data.get("levels", False), bool):
                m.fail("levels", "must be true or false (crops read levelled)")
            protos = m.sub("prototypes")
            sizes = {protos.array(label, (None, None), "a list of vectors (one per "
                                  "piece)").shape[1] for label in protos.data}
            if not protos.data:
                m.fail("prototypes", "must name at least one class")
            if len(sizes) != 1:
                m.fail("prototypes", "must all have the same length")
            classes = len(protos.data)
            if method == "linear":
                m.array("weights", (classes, sizes.pop()), "one row per class, as long as "
                                                           "the prototypes")
                m.array("bias", (classes,), "one number per class")
            if method == "finetune":  # the model's last convolution retrained, a new head
                conv = m.array("conv_weights", (None, None), "one row per output channel")
                m.array("conv_bias", (conv.shape[0],), "one number per output channel")
                m.array("weights", (classes, conv.shape[0]), "one row per class, one "
                                                             "column per output channel")
                m.array("bias", (classes,), "one number per class")
            m.sub("captures")
            classes = m.data.get("classes")  # method model: the model's labels
            if classes is not None and not (isinstance(classes, list) and classes and all(
                    isinstance(c, str) for c in classes)):
                m.fail("classes", "must be a list of class names")
        return cls(r.string("game"), models.data, r.date())


KINDS: dict[str, type] = {c.KIND: c for c in (CameraCalibration, BoardRegistration,
                                              ColourCalibration, EnrolmentProfile)}


def schema_of(kind: str) -> str:
    return f"{SCHEMA_PREFIX}{kind}/{VERSION}"


def dumps(obj) -> str:
    """The file text of a calibration object (schema and date first)."""
    data = {"schema": schema_of(obj.KIND), "date": obj.date, **obj.to_json()}
    return json.dumps(data, indent=2) + "\n"


def save(obj, path: str | Path) -> Path:
    """Write ``obj`` (one of the kinds) to ``path`` as JSON."""
    path = Path(path)
    path.write_text(dumps(obj))
    return path


def parse(data: Any, source: str, kind: str | None = None):
    """The calibration object of parsed JSON ``data``; ``source`` names it in errors."""
    r = _Reader(source, data)
    if not isinstance(data, dict):
        raise CalibrationError(f"{source}: not a calibration file (not a JSON object)")
    schema = r.string("schema")
    parts = schema[len(SCHEMA_PREFIX):].split("/") if schema.startswith(SCHEMA_PREFIX) else []
    if len(parts) != 2 or parts[0] not in KINDS:
        r.fail("schema", f"must be {SCHEMA_PREFIX}<kind>/{VERSION} with kind one of "
                         f"{', '.join(KINDS)}, not {schema!r}")
    if parts[1] != str(VERSION):
        r.fail("schema", f"version {parts[1]} is not supported (this tableref reads "
                         f"version {VERSION})")
    if kind is not None and parts[0] != kind:
        r.fail("schema", f"is a {parts[0]} calibration, a {kind} calibration is needed")
    return KINDS[parts[0]].from_json(r)


def load(path: str | Path, kind: str | None = None):
    """Read and validate a calibration file (``kind``: the kind it must be)."""
    source = str(path)
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise CalibrationError(f"{source}: cannot read it ({e.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CalibrationError(f"{source}: not JSON (line {e.lineno}: {e.msg})") from None
    return parse(data, source, kind)


def colour_entries(cal: ColourCalibration) -> dict:
    """The calibration dict's entries of a colour file: ``colour`` (the object, for its
    ``apply``) and, where it measured any, ``pieces``: name -> Lab [L, a, b] (OpenCV's
    8-bit scale) of each piece in the frame as ``apply`` gives it (the readers' names:
    ``vision.piece_colours``)."""
    out: dict = {"colour": cal}
    if cal.pieces:
        out["pieces"] = {name: [float(v) for v in p["lab"]] for name, p in cal.pieces.items()}
    return out


def for_vision(*, camera: str | Path | None = None, board: str | Path | None = None,
               colour: str | Path | None = None, profile: str | Path | None = None,
               game: str | None = None) -> dict:
    """The ``calibration`` dict ``vision.observe.observe`` takes, from the files given
    (each validated by ``load``; ``CalibrationError`` names the file and key): ``K`` and
    ``dist`` of the camera file, ``board`` (the registered corners), ``colour`` (the
    ``ColourCalibration``: its ``apply`` white-balances a frame and brings it to the
    target exposure) with ``pieces`` (``colour_pieces``: the measured piece colours, plain
    data, where the file names any) and ``profile``
    (``calibration.enrol.Profile``: its ``predict`` reads the enrolled pieces). ``game``:
    the game observed; a board registered for another game is refused."""
    out: dict = {}
    if camera is not None:
        cam = load(camera, "camera")
        out["K"], out["dist"] = cam.K, cam.dist
    if board is not None:
        reg = load(board, "board")
        if game is not None and reg.game != game:
            raise CalibrationError(f"{board}: key 'game': the board of {reg.game} was "
                                   f"registered, not that of {game}")
        out["board"] = reg.corners
    if colour is not None:
        out.update(colour_entries(load(colour, "colour")))
    if profile is not None:
        from calibration.enrol import Profile

        out["profile"] = Profile(load(profile, "profile"))
    return out
