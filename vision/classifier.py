"""The runtime wrapper for every ONNX crop classifier (pips, symbols, colours, stones).

A model is one file, ``models/<name>.onnx``; what the wrapper needs besides the graph lives
in the file's own metadata (``metadata_props``), under the key ``tableref``, as JSON:

    {"input": {"size": 32, "channels": 3, "mean": [...], "std": [...]},
     "heads": [{"name": "pips", "labels": ["1", ..., "9"]}, ...],
     "embedding": {"output": "embedding", "size": 64},
     "real_dice_training": null}

``real_dice_training`` (optional) names the real crops the model was trained on, as the
arguments of ``vision.real_dice.split`` (group, fraction, seed), or a list of such, one
per group (``vision.real_dice.trained_split``), so every measurement on the real dice can
leave exactly those out.

Input: one tensor ``input`` of shape (batch, channels, size, size), float32, BGR channel
order (as OpenCV gives it; one grey channel when channels is 1), pixel / 255 then
(x - mean) / std per channel. Outputs: one logits tensor (batch, classes) per head, in
the order of ``heads``, and (where ``embedding`` is given) one more output of that name:
the network's penultimate feature vector, float32 (batch, size), the input of every head's
linear layer, not normalised. ``Classifier.embed`` returns it, for set enrolment (the
calibration's prototypes and last-layer adaptation); files made before it existed have no
``embedding`` entry, still predict, and ``embed`` refuses them with ``ModelError``.
Keeping this inside the .onnx means a model cannot travel without its labels, and a file
either loads whole or fails with ``ModelError``.

All crops of a frame go through ONE ``session.run``; onnxruntime runs with a fixed number of
intra-op threads (default 1) and spinning off, so the camera keeps its cores.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

METADATA_KEY = "tableref"
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"


class ModelError(RuntimeError):
    """A model file is missing, corrupt or lacks its metadata; the message is one line."""


@dataclass(frozen=True)
class InputSpec:
    size: int
    channels: int  # 3 (BGR) or 1 (grey)
    mean: tuple[float, ...]
    std: tuple[float, ...]

    def to_json(self) -> dict:
        return {"size": self.size, "channels": self.channels,
                "mean": list(self.mean), "std": list(self.std)}


@dataclass(frozen=True)
class Prediction:
    label: str
    probability: float
    top: tuple[tuple[str, float], ...]  # the top-k (label, probability), best first


def resize(crops: Sequence[np.ndarray], size: int, channels: int) -> np.ndarray:
    """Crops (BGR or grey uint8, any size) -> one uint8 batch (n, channels, size, size)."""
    batch = np.empty((len(crops), channels, size, size), np.uint8)
    for i, crop in enumerate(crops):
        if crop.dtype != np.uint8 or crop.ndim not in (2, 3) or crop.size == 0:
            raise ValueError(f"crop {i}: need a BGR or grey uint8 image, got "
                             f"{crop.dtype} {crop.shape}")
        if channels == 1 and crop.ndim == 3:
            crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        elif channels == 3 and crop.ndim == 2:
            crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
        shrink = crop.shape[0] > size or crop.shape[1] > size
        resized = cv2.resize(crop, (size, size),
                             interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
        batch[i] = resized.reshape(size, size, channels).transpose(2, 0, 1)
    return batch


def normalise(batch: np.ndarray, spec: InputSpec) -> np.ndarray:
    """A uint8 (or [0, 255] float) batch -> float32, pixel / 255 then (x - mean) / std."""
    mean = np.asarray(spec.mean, np.float32).reshape(1, -1, 1, 1)
    std = np.asarray(spec.std, np.float32).reshape(1, -1, 1, 1)
    return ((batch.astype(np.float32) / 255.0 - mean) / std).astype(np.float32)


def preprocess(crops: Sequence[np.ndarray], spec: InputSpec) -> np.ndarray:
    """Crops -> the model's float32 input batch: ``resize`` then ``normalise``.

    The trainer uses these same functions, so training and runtime see identical inputs.
    """
    return normalise(resize(crops, spec.size, spec.channels), spec)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=1, keepdims=True)


EMBEDDING_OUTPUT = "embedding"


def metadata_json(spec: InputSpec, heads: dict[str, Sequence[str]],
                  real_dice_training: dict | list | None = None,
                  embedding_size: int | None = None) -> str:
    """The metadata value the exporter writes under METADATA_KEY (``embedding_size``: the
    length of the ``embedding`` output, None for a model without one)."""
    embedding = (None if embedding_size is None
                 else {"output": EMBEDDING_OUTPUT, "size": int(embedding_size)})
    return json.dumps({"input": spec.to_json(),
                       "heads": [{"name": n, "labels": list(ls)} for n, ls in heads.items()],
                       "embedding": embedding,
                       "real_dice_training": real_dice_training})


STONE_LETTERS = {"blue": "B", "red": "R", "black": "K", "orange": "O"}


def stone_token(prediction: dict[str, Prediction]) -> tuple[str, float]:
    """models/stone.onnx's heads for one crop -> (grid token, confidence): ``W`` for a
    white stone (confidence: the kind's probability), else the colour letter, upper case
    for the active side, and the digit (``B4``, ``o6``; the three heads' probabilities
    multiplied); ``.`` for a field the model sees empty (a model with the kind ``empty``;
    confidence: its probability)."""
    kind = prediction["kind"]
    if kind.label == "white":
        return "W", kind.probability
    if kind.label == "empty":
        return ".", kind.probability
    digit, side = prediction["digit"], prediction["side"]
    letter = STONE_LETTERS[kind.label]
    token = (letter if side.label == "active" else letter.lower()) + digit.label
    return token, kind.probability * digit.probability * side.probability


_SHARED: dict[str, Classifier | None] = {}


def shared(name: str) -> Classifier | None:
    """``models/<name>.onnx`` loaded once per process; None when it is missing or unusable
    (logged once: the pipeline then leaves what that model reads null, never a guess)."""
    if name not in _SHARED:
        try:
            _SHARED[name] = Classifier.load(name)
        except ModelError as err:
            logging.getLogger(__name__).warning("%s: what it reads is left null", err)
            _SHARED[name] = None
    return _SHARED[name]


def quarter_turns(crop: np.ndarray) -> list[np.ndarray]:
    """The crop and its three quarter turns (a die top or a face can lie any way round)."""
    return [np.ascontiguousarray(np.rot90(crop, k)) for k in range(4)]


def onnxruntime():
    """The onnxruntime module with its telemetry off: recent releases (seen with 1.32 on
    Linux) write a device id and an event store under ~/.cache/Microsoft and upload usage
    events unless ``ORT_DISABLE_TELEMETRY`` is set before the first session. A referee on a
    tournament hall's network sends nothing out, and a process that forks workers must not
    hold an uploader's thread. A value the user set is left as it is."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort

    return ort


class Classifier:
    """One ONNX classifier. ``Classifier.load("pips")`` reads models/pips.onnx."""

    def __init__(self, path: Path | str, threads: int = 1):
        ort = onnxruntime()
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"model file {self.path} is missing")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(
                str(self.path), options, providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises several kinds for a bad file
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ModelError(f"model file {self.path} is not a loadable ONNX model "
                             f"({first[:200]})") from None
        meta = self.session.get_modelmeta().custom_metadata_map.get(METADATA_KEY)
        try:
            data = json.loads(meta)
            self.input = InputSpec(int(data["input"]["size"]), int(data["input"]["channels"]),
                                   tuple(map(float, data["input"]["mean"])),
                                   tuple(map(float, data["input"]["std"])))
            self.heads = {h["name"]: tuple(map(str, h["labels"])) for h in data["heads"]}
            self.real_dice_training: dict | list | None = data.get("real_dice_training")
            embedding = data.get("embedding")
            self._embedding_output: str | None = (None if embedding is None
                                                  else str(embedding["output"]))
            self.embedding_size: int | None = (None if embedding is None
                                               else int(embedding["size"]))
        except (TypeError, ValueError, KeyError) as err:
            raise ModelError(f"model file {self.path} lacks valid '{METADATA_KEY}' metadata "
                             f"({type(err).__name__}: {err})") from None
        outputs = [o.name for o in self.session.get_outputs()]
        if self._embedding_output is not None and self._embedding_output not in outputs:
            raise ModelError(f"model file {self.path} has no output "
                             f"{self._embedding_output!r}, which its metadata names as the "
                             "embedding")
        self._head_outputs = [o for o in outputs if o != self._embedding_output]
        if len(self._head_outputs) != len(self.heads):
            raise ModelError(f"model file {self.path} has {len(self._head_outputs)} head "
                             f"outputs but {len(self.heads)} heads in its metadata")
        self._input_name = self.session.get_inputs()[0].name

    @classmethod
    def load(cls, name: str, models_dir: Path | str | None = None, threads: int = 1):
        return cls(Path(models_dir or MODELS_DIR) / f"{name}.onnx", threads=threads)

    @property
    def labels(self) -> tuple[str, ...]:
        """The first head's labels."""
        return next(iter(self.heads.values()))

    def logits(self, crops: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Raw logits per head for a batch of crops, from one session run."""
        batch = preprocess(crops, self.input)
        return self.session.run(self._head_outputs, {self._input_name: batch})

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """The penultimate feature vector of each crop, float32 (n, embedding_size), from one
        session run: what set enrolment builds prototypes or a new last layer on."""
        if self._embedding_output is None:
            raise ModelError(f"model file {self.path} has no embedding output (made before "
                             "embeddings existed); retrain or re-export it with "
                             "python -m vision.train")
        if not crops:
            return np.zeros((0, self.embedding_size), np.float32)
        batch = preprocess(crops, self.input)
        out = self.session.run([self._embedding_output], {self._input_name: batch})[0]
        return np.asarray(out, np.float32)

    def predict(self, crops: Sequence[np.ndarray], top_k: int = 3,
                turns: int = 1) -> list[dict[str, Prediction]]:
        """Per crop, per head: the best label, its probability and the top-k alternatives.
        ``turns`` 4: each crop read from its four quarter turns (``quarter_turns``, one run
        for all), each head's log-probabilities averaged and normalised again, for pieces
        whose every head reads the same any way round (a die's pips and colour; not a
        symbol's rotation)."""
        if not crops:
            return []
        if turns not in (1, 4):
            raise ValueError(f"a crop is read from 1 or 4 quarter turns, not {turns}")
        views = crops if turns == 1 else [v for crop in crops for v in quarter_turns(crop)]
        results: list[dict[str, Prediction]] = [{} for _ in crops]
        for (head, labels), logits in zip(self.heads.items(), self.logits(views), strict=True):
            probs = softmax(np.asarray(logits, np.float64))
            if turns == 4:
                probs = softmax(np.log(np.maximum(probs, 1e-12)).reshape(
                    len(crops), 4, -1).mean(axis=1))
            order = np.argsort(-probs, axis=1, kind="stable")[:, : max(1, top_k)]
            for i, row in enumerate(order):
                top = tuple((labels[j], float(probs[i, j])) for j in row)
                results[i][head] = Prediction(top[0][0], top[0][1], top)
        return results
