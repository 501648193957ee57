"""Set enrolment: adapt a crop classifier to the pieces on this table from a few captures
of each face (``tableref enrol --game G``).

The user shows each piece and face a few times (``plan``: each symbol of each player's
cubes, each number of each die (of the Miwin dice, or of a set of ordinary dice showing
1..6: ``dice``), each Cubes stone on both sides); every capture is a crop
that goes, with its three quarter turns (a face can lie any way round), through the
model's ``embedding`` output (``Classifier.embed``: the features its heads read). The
classes are the labels of one of the model's heads, or, for the stone model, the grid
tokens (``W``, ``B4``, ``b4``...), whose model probability is that of its kind, digit
and side heads together (``head_log_probs``). The model itself and four ways to adapt
it, each reading a crop only ever as one of the enrolled classes:

- ``model``: no adaptation: the model's own head over every class of the plan (all the
  model's, but 1..6 for ordinary dice), read as the profile reads (its quarter turns).
- ``prototypes``: one prototype per class and piece (the mean of its captures'
  L2-normalised embeddings); cosine similarity to the prototypes (the best per class,
  times ``SCALE``) as log-probabilities, plus ``MODEL_WEIGHT`` times the model's own
  log-probabilities over the same classes (a product of the two experts). No training.
- ``linear``: a new last layer (softmax over the enrolled classes) on the normalised
  embedding, started from the prototypes and trained on the captures.
- ``nearest``: every capture view is a prototype of its own: the nearest decides.
- ``finetune``: the model's last convolution (with its ReLU and pooling: what makes the
  embedding) and a new head on it, both trained on the captures: each capture's quarter
  turns, each shown ``augmentations`` times more, slightly turned, scaled, shifted,
  lit, blurred and noisy (``augment``). The convolution's input activations are computed
  once (``Tap``: the ONNX graph with that tensor as an extra output; needs the ``onnx``
  package), then everything is numpy: im2col, Adam, ``FINETUNE_EPOCHS`` epochs, weight
  decay towards the model's own weights. The head starts as the model's own (a least
  squares fit of its log-probabilities), so the model's knowledge is where it starts.

``auto`` (the default) makes each of ``AUTO_METHODS`` and keeps the one with the best
cross-validated accuracy on the captures (the first on a tie) among ``model`` and the
adaptations that read the captures significantly better than it (``beats``: a sign test
on the captures the two read differently, or a paired test of the probabilities they
give the captures' classes; on a few real photos an adaptation's lead of a capture or two
was noise, and held out it lost), and only where every face of the plan was captured:
``cross_validate`` reads each capture with an adaptation made without it, in ``FOLDS``
folds; a class below ``WEAK`` is one to capture more of. Nothing but the captures
chooses.

Every piece is captured where its game's reader reads it and cut from the frame as that
reader cuts it for its model (``board_crop``), so that the profile learns the picture the
reader gives it: a Cubes stone lying on a field (``stone_field_crops``: the reader's own
functions), an e-SOLO-e cube standing on a field, its up face (``up_face_crops``: the
reader's own crop of it), a Miwin die where Neunfeld's or Tyr's reader finds it, its top
(``die_top_crops``: the reader's own crops).

Readers load a profile with ``load_profile(path)`` and read crops with
``Profile.predict(model_name, classifier, crops, top_k, turns)``, which returns what
``Classifier.predict`` returns with the adapted head's prediction replaced (for stone
tokens: the kind, digit and side heads, from the tokens' probabilities).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.files import EnrolmentProfile, load
from vision.classifier import (
    STONE_LETTERS,
    Classifier,
    Prediction,
    preprocess,
    quarter_turns,
    softmax,
)

SCALE = 20.0  # cosine similarity -> logit
MODEL_WEIGHT = 1.0  # weight of the model's own head beside the prototypes
#: the model head's weight beside each method (the others replace the head)
METHOD_WEIGHTS = {"model": 1.0, "prototypes": MODEL_WEIGHT, "linear": 0.0, "nearest": 0.0,
                  "finetune": 0.0}
WEAK = 0.8  # cross-validated accuracy under which a class needs more captures
CAPTURES = 5
FOLDS = 5  # cross-validation folds
TOKEN = "token"  # the stone model's virtual head: grid tokens


class EnrolError(ValueError):
    """Enrolment cannot go on; the message says why."""


@dataclass(frozen=True)
class Face:
    """One thing the user is asked to show."""

    prompt: str  # "the blue die with 4 up"
    label: str  # the adapted head's label
    piece: str  # which piece (prototypes are kept per piece and label)


@dataclass(frozen=True)
class Plan:
    model: str  # models/<model>.onnx
    head: str  # one of its heads, or TOKEN (the stone model's kind, digit and side)
    crop: str  # what is cut from a frame (``board_crop``): field (a Cubes stone), up
    #   (an e-SOLO-e cube's up face), top (a Miwin die's top)
    faces: tuple[Face, ...]
    #: views a profile reads a crop from (``Session``): 4, its quarter turns, where a face
    #: reads the same any way round (symbols, pips); 1 for Cubes' stones, whose crops the
    #: reader turns upright (a digit turned is another picture)
    turns: int = 4
    #: the adaptations read crops ``levelled`` (a dark face brightened): symbols, whose
    #: faces a hard lamp from behind darkens to near black
    levels: bool = False


#: the field a piece is shown on (its name in ``vision.board.geometry``), per game whose
#: pieces stand on one: the middle (Miwin dice are found wherever they lie)
FIELDS = {"cubes": "4,4", "esoloe": "2", "esoloe-tictactoe": "4"}
#: how each of those games names its fields
FIELD_NAMES = {"cubes": ("Cubes", "row, column from the north-west corner"),
               "esoloe": ("e-SOLO-e", "west to east"),
               "esoloe-tictactoe": ("tic-tac-toe", "row by row from the north-west corner")}
EMPTY_FACE = Face("the field with nothing on it", ".", "empty field")
#: the dice a Neunfeld or Tyr set may have: its three Miwin dice (each its own six of
#: 1..9), or ordinary dice (1..6 pips on every die; a real set played with them, or the
#: real dice photos): their faces, any die
DICE = ("miwin", "d6")
ANY_DIE = "die"  # the piece of a face that any die of the set may show (``dice`` d6)


def plan(game: str, heads: dict[str, tuple[str, ...]] | None = None,
         dice: str = "miwin") -> Plan:
    """What to show for ``game``'s set. Cubes' stones are shown on a field of the board
    (``stone_field_crops``), and an empty field too where the stone model has the kind
    ``empty`` (``heads``: the model's). Neunfeld's and Tyr's ``dice`` (``DICE``): each
    number of each Miwin die, or (``d6``) each of 1..6 on any die: the set's own faces,
    so that a set that never shows 7..9 is enrolled (and read) on the six it shows."""
    if dice not in DICE:
        raise EnrolError(f"unknown dice {dice!r} (known: {', '.join(DICE)})")
    if dice != "miwin" and game not in ("neunfeld", "tyr"):
        raise EnrolError(f"{game}'s set has no dice: the dice are Neunfeld's and Tyr's")
    if game in ("esoloe", "esoloe-tictactoe"):
        faces = tuple(Face(f"a {cube} cube with its {symbol} face up", symbol, f"{cube} cube")
                      for cube in ("natural", "green")
                      for symbol in ("sakura", "fuji", "geisha", "blank"))
        return Plan("symbol", "symbol", "up", faces, levels=True)
    if game in ("neunfeld", "tyr"):
        from rules.miwin import BY_COLOUR

        if dice == "d6":
            faces = tuple(Face(f"a die with {top} up", str(top), ANY_DIE)
                          for top in range(1, 7))
        else:
            faces = tuple(Face(f"the {colour} die with {top} up", str(top), f"{colour} die")
                          for colour, die in BY_COLOUR.items() for top in die.faces)
        return Plan("pips", "pips", "top", faces)
    if game == "cubes":
        faces = [Face("a white stone", "W", "white stone")]
        for colour, letter in STONE_LETTERS.items():
            for digit in "23456":
                for side, token, look in (("active", letter, "white disc, black digit"),
                                          ("inactive", letter.lower(),
                                           "black disc, white digit")):
                    faces.append(Face(f"the {colour} {digit} stone, {side} side up ({look}),"
                                      " its digit upright as seen from the south",
                                      token + digit, f"{colour} {digit} stone"))
        if "empty" in (heads or {}).get("kind", ()):
            faces.append(EMPTY_FACE)
        return Plan("stone", TOKEN, "field", tuple(faces), turns=1)
    if game == "esoloe-3andc":
        raise EnrolError("3andC's cubes carry no symbols: there is nothing to enrol "
                         "(tableref calibrate colour measures the cubes' colours)")
    raise EnrolError(f"unknown game {game!r}")


def stone_field_crops(image: np.ndarray, fix, fields: Sequence[str],
                      calibration: dict | None = None,
                      turns: Sequence[int] | None = None) -> list[np.ndarray]:
    """The Cubes ``fields`` (names: ``"4,4"``) of ``image`` (after the calibration's white
    balance, as vision reads it) cut for the stone model exactly as ``vision.read_cubes``
    cuts them: its ``planes`` for the board's fix (``vision.board.BoardFix``: the
    registered corners or the board found) and ``calibration`` (``K``, ``dist``), then
    its ``stone_crop`` at the field's centre on the stones' top plane, turned upright
    (``read_cubes.upright``) by the quarter turns each stone lies at (``turns``, one a
    field: a player's stone laid to be read from the player's seat lies at
    ``rules.cubes_position.reading_turns`` of it; none: every stone laid to be read from
    the south, as ``tableref enrol`` asks). So a profile learns the picture the reader
    will give it. ``EnrolError`` where the corners fit no camera pose."""
    from vision.board import geometry
    from vision.read_cubes import planes, stone_crop, upright

    centres = field_centres(fields)
    with _no_pose():
        top = planes(image, fix, geometry("cubes"), calibration)[1]
    turns = [0] * len(centres) if turns is None else turns
    return [upright(stone_crop(image, top, u, v), t)
            for (u, v), t in zip(centres, turns, strict=True)]


def up_face_crops(image: np.ndarray, fix, game: str, fields: Sequence[str],
                  calibration: dict | None = None) -> list[np.ndarray | None]:
    """The up faces of the cubes on ``fields`` (names: ``"2"``) of an e-SOLO-e family
    board (``game``) in ``image`` (after the calibration's white balance), each the very
    crop the reader gives the symbol model for it: ``vision.read_esoloe.read_fields``'
    ``up_crop`` (the reader finds the cube's top face and cuts it; the model it picks the
    best cut with is the plain model here). None for a field where the reader sees no
    cube or not its whole up face."""
    from vision.board import geometry
    from vision.read_esoloe import read_fields

    names = [name for name, *_ in geometry(game).cells]
    field_centres(fields, game)
    with _no_pose():
        got = read_fields(image, fix, geometry(game), calibration)
    return [got[names.index(f)].get("up_crop") for f in fields]


def die_top_crops(game: str, image: np.ndarray, fix,
                  calibration: dict | None = None) -> dict[str, np.ndarray]:
    """The tops of the Miwin dice whose top Neunfeld's or Tyr's reader (``game``) reads in
    ``image`` (after the calibration's white balance), by colour: the very crops the
    reader gives the pips model (its ``read`` run with a profile that keeps them and
    answers as the plain model, ``_Keeper``; ``vision.read_miwin.dice_tops`` cuts the
    dice it is given in the order of ``read_miwin.COLOURS``, where they lie, in its first
    run; a second run reads tops in doubt on crops moved off them). Tyr reads only the
    dice on its board."""
    import importlib

    from vision.board import geometry
    from vision.observe import READERS
    from vision.read_miwin import COLOURS

    if game not in ("tyr", "neunfeld"):
        raise EnrolError(f"{game} has no Miwin dice")
    keeper = _Keeper("pips")
    with _no_pose():
        reading = importlib.import_module(READERS[game]).read(
            image, fix, geometry(game), dict(calibration or {}, profile=keeper))
    read = [c for c in COLOURS if reading.position["dice"][c]["top"] is not None]
    return dict(zip(read, keeper.runs[0] if keeper.runs else [], strict=True))


class _Keeper:
    """A calibration's ``profile`` that keeps the crops a reader gives the model ``name``,
    a list a run (``runs``), and reads them as the plain model does."""

    def __init__(self, name: str):
        self.name, self.runs = name, []

    def predict(self, model_name: str, classifier: Classifier, crops: Sequence[np.ndarray],
                top_k: int = 3, turns: int = 1) -> list[dict[str, Prediction]]:
        if model_name == self.name:
            self.runs.append(list(crops))
        return classifier.predict(crops, top_k, turns)


def board_crop(plan_: Plan, game: str, face: Face, image: np.ndarray, fix,
               field: str | None = None, calibration: dict | None = None
               ) -> np.ndarray | None:
    """``face`` shown in ``image`` (on ``field`` where the game's pieces stand on one),
    cut as the game's reader cuts it for the model (``plan_.crop``: ``stone_field_crops``,
    ``up_face_crops`` or ``die_top_crops``: the die of the colour asked for, or for
    ``ANY_DIE`` the one die the reader read); None where the reader does not see it in
    this frame."""
    if plan_.crop == "field":
        return stone_field_crops(image, fix, [field], calibration)[0]
    if plan_.crop == "up":
        return up_face_crops(image, fix, game, [field], calibration)[0]
    tops = die_top_crops(game, image, fix, calibration)
    if face.piece == ANY_DIE:
        return next(iter(tops.values())) if len(tops) == 1 else None
    return tops.get(face.piece.split()[0])


@contextlib.contextmanager
def _no_pose():
    """A board whose corners fit no camera pose (``vision.grid.board_pose``'s
    ValueError) is an ``EnrolError``."""
    try:
        yield
    except ValueError as err:
        raise EnrolError(f"the board's corners in this frame fit no camera ({err}): "
                         "show the whole board") from None


def field_centres(fields: Sequence[str], game: str = "cubes") -> list[tuple[float, float]]:
    """The centres (board mm) of ``game``'s ``fields`` named; ``EnrolError`` for a name
    that is none."""
    from vision.board import geometry

    cells = geometry(game).cells
    centres = {name: (u, v) for name, u, v, _ in cells}
    unknown = [f for f in fields if f not in centres]
    if unknown:
        title, naming = FIELD_NAMES.get(game, (game, "as the board names them"))
        raise EnrolError(f"no {title} field {unknown[0]!r} (fields: {cells[0][0]!r} .. "
                         f"{cells[-1][0]!r}, {naming})")
    return [centres[f] for f in fields]


def _prediction(labels: Sequence[str], row: np.ndarray, top_k: int) -> Prediction:
    """The best of ``labels`` by probability ``row``, with the top-k."""
    order = np.argsort(-row, kind="stable")[:max(1, top_k)]
    top = tuple((labels[j], float(row[j])) for j in order)
    return Prediction(top[0][0], top[0][1], top)


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=1, keepdims=True))


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def head_log_probs(heads: dict[str, tuple[str, ...]], logits: Sequence[np.ndarray],
                   head: str) -> tuple[tuple[str, ...], np.ndarray]:
    """The model's labels and log-probabilities (n, labels) for ``head``, from its heads'
    logits (in ``heads``' order). ``TOKEN`` on the stone model: ``W`` is the kind
    ``white`` (``.`` the kind ``empty``, where the model has it); a coloured token
    (``B4`` active, ``b4`` inactive) its kind, digit and side together."""
    names = list(heads)
    if head in heads:
        return heads[head], _log_softmax(np.asarray(logits[names.index(head)], np.float64))
    if head != TOKEN or not {"kind", "digit", "side"} <= set(heads):
        raise EnrolError(f"the model has no head {head!r} (heads: {', '.join(heads)})")
    lp = {h: _log_softmax(np.asarray(logits[names.index(h)], np.float64))
          for h in ("kind", "digit", "side")}
    labels, columns = [], []
    for k, kind in enumerate(heads["kind"]):
        if kind in ("white", "empty"):  # no digit, no side
            labels.append("W" if kind == "white" else ".")
            columns.append(lp["kind"][:, k])
            continue
        for s, side in enumerate(heads["side"]):
            letter = STONE_LETTERS[kind] if side == "active" else STONE_LETTERS[kind].lower()
            for d, digit in enumerate(heads["digit"]):
                labels.append(letter + digit)
                columns.append(lp["kind"][:, k] + lp["side"][:, s] + lp["digit"][:, d])
    return tuple(labels), np.stack(columns, axis=1)


# --------------------------------------------------------------------------- fine-tuning

AUGMENT_MAX = 8  # views per quarter turn of a capture (the first as captured)
AUGMENT_ROWS = 1280  # ... fewer where the plan has many faces: about this many rows
FINETUNE_EPOCHS = 10
FINETUNE_RATE = 1e-2  # Adam
FINETUNE_DECAY = 1e-3  # L2 towards the model's own convolution
FINETUNE_BATCH = 64


#: ``levelled``: the level (0..255) the 90th percentile of a crop's centre is lifted to,
#: by a gain of at most ``LEVEL_GAIN``; a crop already that bright is left as it is
LEVEL_TARGET = 140.0
LEVEL_GAIN = 8.0
LEVEL_CENTRE = 0.6  # of the crop's side: the centre whose level is measured
DARKEN_SHARE = 0.5  # of the augmented views: darkened (a hard lamp), ``DARKEN`` times
DARKEN = (0.08, 0.5)


def levelled(crop: np.ndarray) -> np.ndarray:
    """``crop`` brightened where it is dark: a gain (1..``LEVEL_GAIN``) that lifts the 90th
    percentile of its centre to ``LEVEL_TARGET``. Under a hard lamp from behind a face is
    nearly black, and the model reads a dark face as the dark blank; adaptations read
    crops levelled, so a dark face shows its symbol (``Adaptation.levels``)."""
    h, w = crop.shape[:2]
    dy, dx = round(h * (1 - LEVEL_CENTRE) / 2), round(w * (1 - LEVEL_CENTRE) / 2)
    level = float(np.percentile(crop[dy:h - dy, dx:w - dx], 90))
    gain = min(LEVEL_GAIN, LEVEL_TARGET / max(level, 1.0))
    if gain <= 1.0:
        return crop
    return np.clip(crop.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def augment(crop: np.ndarray, rng: np.random.Generator, darken: bool = False) -> np.ndarray:
    """One more view of a capture: turned up to 12 degrees, scaled 0.9..1.1, shifted up
    to 5 %, contrast 0.7..1.3, brightness +-25, channel gains 0.85..1.15, with ``darken``
    sometimes (``DARKEN_SHARE``) darkened to ``DARKEN`` of its level (to be ``levelled``
    again: a dark face's coarse levels and noise), sometimes blurred, a little noise."""
    h, w = crop.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-12, 12), rng.uniform(0.9, 1.1))
    m[:, 2] += rng.uniform(-0.05, 0.05, 2) * (w, h)
    out = cv2.warpAffine(crop, m, (w, h), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    mean = out.mean()
    out = (out - mean) * rng.uniform(0.7, 1.3) + mean + rng.uniform(-25, 25)
    if out.ndim == 3:
        out *= rng.uniform(0.85, 1.15, out.shape[2]).astype(np.float32)
    if darken and rng.random() < DARKEN_SHARE:
        out *= rng.uniform(*DARKEN)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.2))
    out += rng.normal(0, rng.uniform(0, 5), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


class Tap:
    """A model's last convolution opened up: the ONNX graph with that convolution's input
    as an extra output (``run``), and its weights (dequantised where the file is int8),
    so the convolution, its ReLU and the average pooling that make the ``embedding`` can
    be recomputed and trained in numpy (``embed``)."""

    ALONG = {"Relu", "GlobalAveragePool", "Flatten", "QuantizeLinear", "DequantizeLinear",
             "Identity"}

    def __init__(self, classifier: Classifier):
        try:
            import onnx
            import onnxruntime as ort
            from onnx import helper, numpy_helper
        except ImportError:
            raise EnrolError("fine-tuning needs the onnx package (pip install onnx); "
                             "use --method prototypes or linear") from None
        try:
            model = onnx.load(str(classifier.path))
        except Exception as err:  # a missing file, or protobuf's DecodeError for a bad one
            raise EnrolError(f"{classifier.path}: cannot open it for fine-tuning "
                             f"({type(err).__name__})") from None
        graph = model.graph
        made = {out: node for node in graph.node for out in node.output}
        consts = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        tensor, ops = "embedding", []
        while tensor in made and made[tensor].op_type in self.ALONG:
            ops.append(made[tensor].op_type)
            tensor = made[tensor].input[0]
        conv = made.get(tensor)
        if conv is None or conv.op_type != "Conv" or "GlobalAveragePool" not in ops:
            raise EnrolError(f"{classifier.path.name}: its embedding is not a convolution's "
                             "pooled output; it cannot be fine-tuned")
        attrs = {a.name: helper.get_attribute_value(a) for a in conv.attribute}
        self.weight = self._constant(conv.input[1], made, consts, helper)
        self.bias = (self._constant(conv.input[2], made, consts, helper) if len(conv.input) > 2
                     else np.zeros(len(self.weight), np.float32))
        if attrs.get("group", 1) != 1 or set(attrs.get("dilations", [1])) != {1}:
            raise EnrolError(f"{classifier.path.name}: a grouped or dilated last "
                             "convolution cannot be fine-tuned")
        self.kernel = self.weight.shape[2]
        self.stride = int(attrs.get("strides", [1])[0])
        self.pad = int(attrs.get("pads", [0])[0])
        self.source = conv.input[0]
        graph.output.append(helper.make_tensor_value_info(self.source,
                                                          onnx.TensorProto.FLOAT, None))
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self.session = ort.InferenceSession(model.SerializeToString(), options,
                                            providers=["CPUExecutionProvider"])
        self.spec = classifier.input
        self.outputs = [o.name for o in self.session.get_outputs()]
        self.heads = [self.outputs.index(h) for h in classifier._head_outputs]

    @staticmethod
    def _constant(name, made, consts, helper) -> np.ndarray:
        if name in consts:
            return consts[name].astype(np.float32)
        node = made[name]  # DequantizeLinear(q, scale, zero point) of an int8 model
        q, scale = consts[node.input[0]].astype(np.float32), consts[node.input[1]]
        zero = consts[node.input[2]].astype(np.float32) if len(node.input) > 2 else 0.0
        axis = {a.name: helper.get_attribute_value(a) for a in node.attribute}.get("axis", 1)
        shape = [1] * q.ndim
        if np.ndim(scale):
            shape[axis] = -1
        return ((q - np.reshape(zero, shape if np.ndim(zero) else ())) *
                np.reshape(scale, shape if np.ndim(scale) else ())).astype(np.float32)

    def run(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
        """The convolution's input (n, c, h, w) as im2col rows (n, positions, c*k*k), and
        every head's logits, from one run."""
        out = self.session.run(None, {self.session.get_inputs()[0].name:
                                      preprocess(crops, self.spec)})
        return self.columns(out[self.outputs.index(self.source)]), [out[i] for i in self.heads]

    def columns(self, a: np.ndarray) -> np.ndarray:
        n, c, h, w = a.shape
        k, s, p = self.kernel, self.stride, self.pad
        oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        a = np.pad(a, ((0, 0), (0, 0), (p, p), (p, p)))
        parts = [a[:, :, y:y + s * oh:s, x:x + s * ow:s] for y in range(k) for x in range(k)]
        cols = np.stack(parts, axis=2).reshape(n, c * k * k, oh * ow)
        return np.ascontiguousarray(cols.transpose(0, 2, 1), np.float32)


_TAPS: dict[Path, Tap] = {}


def tap(classifier: Classifier) -> Tap:
    """``Tap(classifier)``, made once per model file."""
    if classifier.path not in _TAPS:
        _TAPS[classifier.path] = Tap(classifier)
    return _TAPS[classifier.path]


def _blas_threads():
    """numpy's BLAS on half the cores while adapting (one on this 2-core VM, two on a
    Raspberry Pi 4): its matrices are small, and on a busy machine spinning BLAS threads
    cost several times the work (threadpoolctl, where it is installed)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(max(1, (os.cpu_count() or 1) // 2), user_api="blas")


def _conv_embed(cols: np.ndarray, weight: np.ndarray, bias: np.ndarray):
    z = cols @ weight.T + bias
    return z, np.maximum(z, 0).mean(axis=1)


def _finetune(cols: np.ndarray, y: np.ndarray, prior: np.ndarray, weight: np.ndarray,
              bias: np.ndarray, seed: int = 0) -> list[np.ndarray]:
    """[conv weight (out, c*k*k), conv bias, head weights (classes, out), head bias]
    trained on im2col rows ``cols`` with class indices ``y``; the head starts as the least
    squares fit of the model's log-probabilities ``prior`` (centred per row)."""
    rng = np.random.default_rng(seed)
    _, emb = _conv_embed(cols, weight, bias)
    target = prior - prior.mean(axis=1, keepdims=True)
    solution = np.linalg.lstsq(np.hstack([emb, np.ones((len(emb), 1))]), target,
                               rcond=None)[0].astype(np.float32)
    params = [weight.copy(), bias.copy(), solution[:-1].T.copy(), solution[-1].copy()]
    ref = [weight, bias]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(FINETUNE_EPOCHS):
        order = rng.permutation(len(y))
        for start in range(0, len(y), FINETUNE_BATCH):
            idx = order[start:start + FINETUNE_BATCH]
            w, b, hw, hb = params
            z, e = _conv_embed(cols[idx], w, b)
            g = np.exp(_log_softmax(e @ hw.T + hb))
            g[np.arange(len(idx)), y[idx]] -= 1
            g /= len(idx)
            gz = ((g @ hw)[:, None, :] / z.shape[1]) * (z > 0)
            grads = [gz.reshape(-1, z.shape[2]).T @ cols[idx].reshape(-1, cols.shape[2])
                     + 2 * FINETUNE_DECAY * (w - ref[0]),
                     gz.sum(axis=(0, 1)) + 2 * FINETUNE_DECAY * (b - ref[1]),
                     g.T @ e, g.sum(axis=0)]
            step += 1
            for p, m, v, grad in zip(params, first, second, grads, strict=True):
                m *= 0.9
                m += 0.1 * grad
                v *= 0.999
                v += 0.001 * grad * grad
                p -= (FINETUNE_RATE * (m / (1 - 0.9 ** step))
                      / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)).astype(np.float32)
    return params


@dataclass(frozen=True)
class Tuning:
    """What fine-tuning trains on: im2col rows (``Tap.run``) with their labels, the
    model's log-probabilities of each row over ``prior_labels``, and the ``Tap``."""

    columns: np.ndarray
    labels: Sequence[str]
    prior: np.ndarray
    prior_labels: Sequence[str]
    tap: Tap


# --------------------------------------------------------------------------- adaptation

METHODS = ("model", "prototypes", "linear", "nearest", "finetune")
#: what ``auto`` chooses among: ``nearest`` is left out, its cross-validated accuracy on a
#: few captures promised more than it gave on the real dice (docs/calibration.md);
#: ``model`` (no adaptation) first: an adaptation must beat it (``SIGN_Z``)
AUTO_METHODS = ("model", "prototypes", "linear", "finetune")
#: auto keeps an adaptation only where, on the cross-validation's captures, those it reads
#: right and the model wrong outnumber the reverse by this many standard deviations of a
#: fair coin's difference (a one-sided sign test at 5 %), and by 1 at least, or where it
#: reads no fewer right and its log-probabilities of the captures' classes exceed the
#: model's by this many standard errors (a one-sided paired t test at about 5 %)
SIGN_Z = 1.645
LOG_FLOOR = 0.01  # a capture's class probability counts as at least this (``beats``)
LINEAR_STEPS = 300
LINEAR_RATE = 0.5
LINEAR_DECAY = 1e-3


@dataclass
class Adaptation:
    """One model head adapted to a set: per class (label) one prototype per piece, (k, d)
    unit vectors (``nearest``: one per capture view); for ``linear`` also a softmax layer
    (``weights`` (classes, d), ``bias``) on the normalised embedding (full-batch gradient
    descent with weight decay); for ``finetune`` the model's last convolution retrained
    (``conv_weights`` (out, in * k * k), ``conv_bias``) and a head on its pooled output
    (``weights``, ``bias``)."""

    model: str
    head: str
    prototypes: dict[str, np.ndarray]
    captures: dict[str, int]
    method: str = "prototypes"
    scale: float = SCALE
    model_weight: float = MODEL_WEIGHT
    weights: np.ndarray | None = None
    bias: np.ndarray | None = None
    cv: dict | None = None  # cross-validation report
    conv_weights: np.ndarray | None = None
    conv_bias: np.ndarray | None = None
    turns: int = 1  # views a crop is read from: 1, or 4 (its quarter turns, averaged)
    classes: tuple[str, ...] | None = None  # ``model``: all the model's; None: enrolled
    levels: bool = False  # crops are read ``levelled``

    @classmethod
    def fit(cls, model: str, head: str, embeddings: np.ndarray, labels: Sequence[str],
            pieces: Sequence[str], captures: dict[str, int] | None = None,
            method: str = "prototypes", model_weight: float | None = None,
            tuning: Tuning | None = None, classes: Sequence[str] | None = None
            ) -> Adaptation:
        """From embedding rows with their labels and pieces (``captures``: captures per
        class, when rows are several views of one capture; default: one row each;
        ``model_weight``: default the method's, ``METHOD_WEIGHTS``). ``finetune`` also
        needs ``tuning``: the rows it trains on; ``model`` answers ``classes`` (the
        model's labels: no class left out because it was not enrolled), default the
        enrolled ones."""
        if method not in METHODS:
            raise EnrolError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
        if model_weight is None:
            model_weight = METHOD_WEIGHTS[method]
        emb = _normalise(embeddings)
        groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for i, (label, piece) in enumerate(zip(labels, pieces, strict=True)):
            groups[label][piece].append(i)
        if method == "nearest":  # every capture view is a prototype of its own
            prototypes = {label: emb[[i for idx in by_piece.values() for i in idx]]
                          for label, by_piece in groups.items()}
        else:
            prototypes = {label: _normalise(np.array([emb[idx].mean(axis=0)
                                                      for idx in by_piece.values()]))
                          for label, by_piece in groups.items()}
        if captures is None:
            captures = {label: sum(map(len, by_piece.values()))
                        for label, by_piece in groups.items()}
        ad = cls(model, head, prototypes, dict(captures), method, model_weight=model_weight,
                 classes=tuple(classes) if method == "model" and classes else None)
        if method == "linear":
            ad.weights, ad.bias = ad._train(emb, labels)
        elif method == "finetune":
            if tuning is None:
                raise EnrolError("fine-tuning needs the captures' activations")
            y = np.array([ad.labels.index(label) for label in tuning.labels])
            prior = tuning.prior[:, [list(tuning.prior_labels).index(label)
                                     for label in ad.labels]]
            t = tuning.tap
            ad.conv_weights, ad.conv_bias, ad.weights, ad.bias = _finetune(
                tuning.columns, y, prior, t.weight.reshape(len(t.weight), -1), t.bias)
        return ad

    def _train(self, emb: np.ndarray, labels: Sequence[str]):
        names = self.labels
        y = np.array([names.index(label) for label in labels])
        W = np.array([p.mean(axis=0) for p in self.prototypes.values()]) * self.scale
        b = np.zeros(len(names))
        n = len(y)
        for _ in range(LINEAR_STEPS):
            grad = np.exp(_log_softmax(emb @ W.T + b))
            grad[np.arange(n), y] -= 1
            W -= LINEAR_RATE * (grad.T @ emb / n + LINEAR_DECAY * W)
            b -= LINEAR_RATE * grad.mean(axis=0)
        return W, b

    @property
    def labels(self) -> tuple[str, ...]:
        return self.classes or tuple(self.prototypes)

    def logits(self, features: np.ndarray, prior: np.ndarray | None = None,
               prior_labels: Sequence[str] | None = None) -> np.ndarray:
        """(n, classes) scores over ``labels``: the adaptation's log-probabilities plus
        ``model_weight`` times the model's (``prior``: its log-probabilities over
        ``prior_labels``, renormalised over the enrolled classes). ``features``: the
        crops' embeddings, or for ``finetune`` their im2col activations (``Tap.run``)."""
        if self.method == "finetune":
            _, emb = _conv_embed(np.asarray(features, np.float32), self.conv_weights,
                                 self.conv_bias)
            z = emb @ self.weights.T + self.bias
        elif self.method == "linear":
            z = _normalise(features) @ self.weights.T + self.bias
        elif self.method == "model":  # no adaptation: the model's own head
            z = np.zeros((len(features), len(self.labels)))
        else:
            emb = _normalise(features)
            z = np.stack([(emb @ self.prototypes[label].T).max(axis=1) * self.scale
                          for label in self.labels], axis=1)
        scores = _log_softmax(np.asarray(z, np.float64))
        if prior is not None and self.model_weight:
            cols = [list(prior_labels).index(label) for label in self.labels]
            scores = scores + self.model_weight * _log_softmax(
                np.asarray(prior, np.float64)[:, cols])
        return scores

    def probabilities(self, views: Sequence[tuple[np.ndarray, np.ndarray | None]],
                      prior_labels: Sequence[str] | None = None) -> np.ndarray:
        """(n, classes) probabilities from one or more views of the same crops (their
        quarter turns: ``turns``), each ``(features, prior)`` as ``logits`` takes them:
        the views' log-probabilities averaged, renormalised."""
        scores = [_log_softmax(self.logits(f, p, prior_labels)) for f, p in views]
        return softmax(sum(scores) / len(scores))

    def predict(self, features: np.ndarray, prior: np.ndarray | None = None,
                prior_labels: Sequence[str] | None = None, top_k: int = 3,
                views: Sequence[tuple[np.ndarray, np.ndarray | None]] | None = None
                ) -> list[Prediction]:
        """The crops' predictions from one view (``features``, ``prior``) or, given
        ``views``, from all of them (``probabilities``)."""
        views = views or [(features, prior)]
        if len(views[0][0]) == 0:
            return []
        return [_prediction(self.labels, row, top_k)
                for row in self.probabilities(views, prior_labels)]

    def to_json(self) -> dict:
        def rounded(a: np.ndarray) -> list:  # in float64, so each number prints short
            return np.round(np.asarray(a, np.float64), 6).tolist()

        data = {"head": self.head, "method": self.method, "scale": self.scale,
                "model_weight": self.model_weight, "turns": self.turns,
                "prototypes": {k: rounded(v) for k, v in self.prototypes.items()},
                "captures": self.captures}
        if self.method in ("linear", "finetune"):
            data["weights"] = rounded(self.weights)
            data["bias"] = rounded(self.bias)
        if self.method == "finetune":
            data["conv_weights"] = rounded(self.conv_weights)
            data["conv_bias"] = rounded(self.conv_bias)
        if self.classes:
            data["classes"] = list(self.classes)
        if self.levels:
            data["levels"] = True
        if self.cv is not None:
            data["cross_validation"] = self.cv
        return data

    @classmethod
    def from_json(cls, model: str, data: dict) -> Adaptation:
        protos = {k: _normalise(np.asarray(v, np.float64)) for k, v in data["prototypes"].items()}

        def array(key: str, dtype=np.float64):
            return np.asarray(data[key], dtype) if key in data else None

        tuned = data["method"] == "finetune"
        return cls(model, data["head"], protos, dict(data["captures"]), data["method"],
                   float(data["scale"]), float(data["model_weight"]),
                   array("weights", np.float32 if tuned else np.float64),
                   array("bias", np.float32 if tuned else np.float64),
                   data.get("cross_validation"),
                   array("conv_weights", np.float32), array("conv_bias", np.float32),
                   int(data.get("turns", 1)),
                   tuple(data["classes"]) if data.get("classes") else None,
                   bool(data.get("levels", False)))


def folds(labels: Sequence[str], pieces: Sequence[str]) -> list[int]:
    """The k-th capture of every face (label and piece) falls in fold k mod ``FOLDS``."""
    seen: Counter = Counter()
    out = []
    for key in zip(labels, pieces, strict=True):
        out.append(seen[key] % FOLDS)
        seen[key] += 1
    return out


def cross_validate(labels: Sequence[str], pieces: Sequence[str],
                   fit: Callable[[list[int]], Adaptation],
                   read: Callable[[Adaptation, list[int]], list[Prediction]]) -> dict:
    """Accuracy on the captures, each read by an adaptation made without it (``fit``:
    from the captures of those indices; ``read``: the predictions for those captures):
    overall, per class (None where a class has a single capture) and per capture
    (``right``: read right or not; ``log_p``: the log-probability it gave the capture's
    class, at least log ``LOG_FLOOR``, 0 where the prediction's top-k leave it out; None
    where it was not read). Folds: ``folds``, so each fold leaves out one capture of each
    face."""
    labels = list(labels)
    fold = folds(labels, pieces)
    right: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    read_right: list[bool | None] = [None] * len(labels)
    log_p: list[float | None] = [None] * len(labels)
    for f in sorted(set(fold)):
        keep = [j for j in range(len(labels)) if fold[j] != f]
        out = [i for i in range(len(labels))
               if fold[i] == f and labels[i] in {labels[j] for j in keep}]
        if not out:
            continue
        for i, pred in zip(out, read(fit(keep), out), strict=True):
            total[labels[i]] += 1
            right[labels[i]] += pred.label == labels[i]
            read_right[i] = pred.label == labels[i]
            log_p[i] = math.log(max(dict(pred.top).get(labels[i], 0.0), LOG_FLOOR))
    per_class = {label: (round(right[label] / total[label], 3) if total[label] else None)
                 for label in dict.fromkeys(labels)}
    n = sum(total.values())
    return {"accuracy": round(sum(right.values()) / n, 4) if n else None,
            "captures": len(labels), "per_class": per_class, "right": read_right,
            "log_p": log_p}


def beats(right: Sequence[bool | None], base: Sequence[bool | None],
          log_p: Sequence[float | None] | None = None,
          base_log_p: Sequence[float | None] | None = None) -> bool:
    """Whether an adaptation reads the captures significantly better than ``base`` (as
    ``cross_validate`` gives them: ``right`` per capture, and ``log_p``, the probability
    given its class): on the captures only one of the two reads right, the first's lead
    is at least ``SIGN_Z`` standard deviations of a fair coin's (a one-sided sign test)
    and at least 1; or (given ``log_p``) it reads no fewer right and the probabilities it
    gives the captures' classes are higher: the mean of the paired log-probability
    differences at least ``SIGN_Z`` standard errors above 0 (a one-sided paired t test,
    which counts how sure each reading is, where the sign test counts only the captures
    one of the two reads wrong)."""
    pairs = [(r, b) for r, b in zip(right, base, strict=True) if r is not None and b is not None]
    wins = sum(r and not b for r, b in pairs)
    losses = sum(b and not r for r, b in pairs)
    if wins - losses >= max(1.0, SIGN_Z * math.sqrt(wins + losses)):
        return True
    if log_p is None or base_log_p is None or wins < losses:
        return False
    diff = np.array([a - b for a, b in zip(log_p, base_log_p, strict=True)
                     if a is not None and b is not None])
    if len(diff) < 2:
        return False
    spread = diff.std(ddof=1) / math.sqrt(len(diff))
    return bool(diff.mean() > 0 and diff.mean() >= SIGN_Z * spread)


def weak_classes(cv: dict) -> list[str]:
    return [label for label, acc in cv["per_class"].items() if acc is None or acc < WEAK]


# --------------------------------------------------------------------------- enrolment

Capture = Callable[[Face, int], np.ndarray | None]  # (face, attempt) -> crop or None


class Session:
    """The captures of one enrolment, embedded (with their quarter turns) as they come.

    ``method``: one of ``METHODS``, or ``auto``: those of ``AUTO_METHODS``, and the one
    with the best cross-validated accuracy on the captures (the first on a tie).
    ``augmentations``: views per quarter turn a capture gives fine-tuning (the first as
    captured): ``AUGMENT_ROWS`` rows in all for the plan's faces at ``CAPTURES`` each,
    at most ``AUGMENT_MAX``. ``turns``: the profile reads a crop from its four quarter
    turns (4) or as it is (1), by default as the plan says (``Plan.turns``); the
    cross-validation reads the same way. ``levels``: the adaptations read crops
    ``levelled`` (``model`` reads them as they are), by default as the plan says
    (``Plan.levels``)."""

    def __init__(self, plan_: Plan, classifier: Classifier, method: str = "auto",
                 turns: int | None = None, levels: bool | None = None):
        turns = plan_.turns if turns is None else turns
        if method not in (*METHODS, "auto"):
            raise EnrolError(f"unknown method {method!r} (known: auto, {', '.join(METHODS)})")
        if turns not in (1, 4):
            raise EnrolError(f"a crop is read from 1 or 4 quarter turns, not {turns}")
        self.plan = plan_
        self.classifier = classifier
        self.method = method
        self.turns = turns
        self.levels = plan_.levels if levels is None else levels
        self.crops: list[np.ndarray] = []
        self.faces: list[Face] = []
        self.prior_labels: tuple[str, ...] = ()  # the model's labels for the head
        self.augmentations = int(np.clip(AUGMENT_ROWS // (4 * CAPTURES * len(plan_.faces)),
                                         1, AUGMENT_MAX))
        self._emb: list[np.ndarray] = []  # (4, d) per capture: its quarter turns
        self._prior: list[np.ndarray] = []  # (4, labels): the model's log-probabilities
        self._model_prior: list[np.ndarray] = []  # the same of the turns as captured
        self._tuning: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # im2col, prior per view

    def add(self, face: Face, crop: np.ndarray) -> None:
        self.crops.append(crop)
        self.faces.append(face)
        turns = quarter_turns(crop)
        self.prior_labels, prior = head_log_probs(self.classifier.heads,
                                                  self.classifier.logits(turns),
                                                  self.plan.head)
        self._model_prior.append(prior)
        if self.levels:
            turns = [levelled(t) for t in turns]
            prior = head_log_probs(self.classifier.heads, self.classifier.logits(turns),
                                   self.plan.head)[1]
        self._emb.append(self.classifier.embed(turns))
        self._prior.append(prior)

    def capture(self, faces: Sequence[Face], times: int, capture: Capture,
                say: Callable[[str], None]) -> None:
        for face in faces:
            for k in range(times):
                say(f"show {face.prompt} ({k + 1} of {times})")
                crop = capture(face, k)
                if crop is None:
                    raise EnrolError(f"the source ended before {face.prompt} was captured")
                self.add(face, crop)

    def _tuned(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Capture ``i``'s views for fine-tuning (the first: as captured): im2col
        activations and the model's log-probabilities."""
        if i not in self._tuning:
            rng = np.random.default_rng(i)
            views = [v for turn in quarter_turns(self.crops[i])
                     for v in [turn] + [augment(turn, rng, self.levels)
                                        for _ in range(self.augmentations - 1)]]
            if self.levels:
                views = [levelled(v) for v in views]
            cols, logits = tap(self.classifier).run(views)
            self._tuning[i] = cols, head_log_probs(self.classifier.heads, logits,
                                                   self.plan.head)[1]
        return self._tuning[i]

    def _fit(self, method: str, keep: Sequence[int]) -> Adaptation:
        labels = [self.faces[i].label for i in keep]
        pieces = [self.faces[i].piece for i in keep]
        emb = np.array([self._emb[i] for i in keep])
        views = emb.shape[1]
        tuning = None
        if method == "finetune":
            parts = [self._tuned(i) for i in keep]
            tuning = Tuning(np.concatenate([c for c, _ in parts]),
                            [label for label, (c, _) in zip(labels, parts, strict=True)
                             for _ in range(len(c))],
                            np.concatenate([p for _, p in parts]), self.prior_labels,
                            tap(self.classifier))
        planned = {f.label for f in self.plan.faces}
        ad = Adaptation.fit(self.plan.model, self.plan.head,
                            emb.reshape(-1, emb.shape[2]), np.repeat(labels, views),
                            np.repeat(pieces, views), captures=dict(Counter(labels)),
                            method=method, tuning=tuning,
                            classes=[c for c in self.prior_labels if c in planned])
        ad.turns = self.turns
        ad.levels = self.levels and method != "model"
        return ad

    def _read(self, ad: Adaptation, out: Sequence[int]) -> list[Prediction]:
        views = []
        for k in range(ad.turns):  # quarter turn k of each capture, as captured
            if ad.method == "finetune":
                features = np.array([self._tuned(i)[0][k * self.augmentations] for i in out])
            else:
                features = np.array([self._emb[i][k] for i in out])
            prior = self._model_prior if ad.method == "model" else self._prior
            views.append((features, np.array([prior[i][k] for i in out])))
        return ad.predict(None, prior_labels=self.prior_labels, top_k=len(ad.labels),
                          views=views)

    def adapt(self) -> Adaptation:
        """The adaptation of ``method``, its cross-validation in ``cv`` (with every
        method's accuracy under ``methods``). ``auto``: the best cross-validated of the
        model itself (no adaptation) and those adaptations that read the captures
        significantly better than the model does (``beats``; listed under ``beat_model``),
        the first on a tie; only the model where a face of the plan was not captured
        (``missing`` in ``cv``: an adaptation answers only the classes captured)."""
        labels = [f.label for f in self.faces]
        pieces = [f.piece for f in self.faces]
        missing = sorted({f.label for f in self.plan.faces} - set(labels))
        best = None
        scores, rights, logs, beat = {}, {}, {}, []
        methods = AUTO_METHODS if self.method == "auto" else (self.method,)
        if self.method == "auto":
            try:
                tap(self.classifier)
            except EnrolError:  # no onnx package, or a model that is no plain CNN
                methods = tuple(m for m in methods if m != "finetune")
        for method in methods:
            with _blas_threads():
                ad = self._fit(method, range(len(labels)))
                ad.cv = cross_validate(labels, pieces,
                                       lambda keep, m=method: self._fit(m, keep), self._read)
            scores[method] = ad.cv["accuracy"]
            rights[method] = ad.cv.pop("right")
            logs[method] = ad.cv.pop("log_p")
            if method != "model" and "model" in rights:
                if missing or not beats(rights[method], rights["model"], logs[method],
                                        logs["model"]):
                    continue
                beat.append(method)
            if best is None or (ad.cv["accuracy"] or 0) > (best.cv["accuracy"] or 0):
                best = ad
        best.cv["methods"] = scores
        if self.method == "auto":
            best.cv["beat_model"] = beat
            if missing:
                best.cv["missing"] = missing
        return best


def enrol(game: str, capture: Capture, *, captures: int = CAPTURES, more: int = 3,
          rounds: int = 2, classifier: Classifier | None = None, method: str = "auto",
          turns: int | None = None, dice: str = "miwin",
          say: Callable[[str], None] = print) -> tuple[EnrolmentProfile, Session]:
    """Ask for every face of the plan (``plan``, with ``dice``) ``captures`` times, then,
    while a class is weak, ``more`` times each face of the weak classes (at most
    ``rounds`` times). Returns the profile."""
    model = classifier or Classifier.load(plan(game, dice=dice).model)
    p = plan(game, model.heads, dice)
    session = Session(p, model, method, turns)
    session.capture(p.faces, captures, capture, say)
    ad = session.adapt()
    for _ in range(rounds):
        weak = weak_classes(ad.cv)
        if not weak:
            break
        say(f"cross-validated accuracy {ad.cv['accuracy']:.2f}; weak: {', '.join(weak)}: "
            "a few more of those, please")
        session.capture([f for f in p.faces if f.label in weak], more, capture, say)
        ad = session.adapt()
    say(f"cross-validated accuracy on {ad.cv['captures']} captures: {ad.cv['accuracy']:.3f} "
        f"({ad.method})")
    return EnrolmentProfile(game, {p.model: ad.to_json()}), session


# --------------------------------------------------------------------------- reading

def _stone_heads(labels: Sequence[str], probs: np.ndarray, heads: dict[str, tuple[str, ...]],
                 top_k: int) -> dict[str, Prediction]:
    """Token probabilities -> the stone model's kind, digit and side predictions: the
    kind's probability summed over its tokens; digit and side given the most probable
    coloured kind (so ``stone_token``'s product of the three is about the token's)."""
    kinds = {letter: kind for kind, letter in STONE_LETTERS.items()}
    kind_of = [{"W": "white", ".": "empty"}.get(t) or kinds[t[0].upper()] for t in labels]

    def prediction(dist: dict[str, float]) -> Prediction:
        row = np.array(list(dist.values()))
        return _prediction(tuple(dist), row / (row.sum() or 1.0), top_k)

    kind = {k: float(sum(p for p, c in zip(probs, kind_of, strict=True) if c == k))
            for k in heads["kind"]}
    coloured = max((k for k in kind if k not in ("white", "empty")), key=kind.get)
    digit = dict.fromkeys(heads["digit"], 0.0)
    side = dict.fromkeys(heads["side"], 0.0)
    for t, p, k in zip(labels, probs, kind_of, strict=True):
        if k == coloured:
            digit[t[1:]] += float(p)
            side["active" if t[0].isupper() else "inactive"] += float(p)
    return {"kind": prediction(kind), "digit": prediction(digit), "side": prediction(side)}


class Profile:
    """A loaded enrolment profile: per model, the adapted head."""

    def __init__(self, profile: EnrolmentProfile):
        self.game = profile.game
        self.adaptations = {name: Adaptation.from_json(name, data)
                            for name, data in profile.models.items()}
        tuned = [name for name, ad in self.adaptations.items() if ad.method == "finetune"]
        if tuned:
            try:
                import onnx  # noqa: F401  (Tap reads the model's last layer with it)
            except ImportError:
                raise EnrolError(f"the profile's fine-tuned {', '.join(tuned)} needs the onnx "
                                 "package to be read (pip install onnx), or enrol again with "
                                 "--method prototypes or linear") from None

    def predict(self, model_name: str, classifier: Classifier, crops: Sequence[np.ndarray],
                top_k: int = 3, turns: int = 1) -> list[dict[str, Prediction]]:
        """``classifier.predict(crops, top_k, turns)`` (the reader's views of a crop: 1, or
        its 4 quarter turns) with the enrolled head read through the adaptation, from the
        views the profile was made for (unchanged when this profile does not adapt
        ``model_name``)."""
        predictions = classifier.predict(crops, top_k, turns)
        ad = self.adaptations.get(model_name)
        if ad is None or not crops:
            return predictions
        views = [levelled(v) if ad.levels else v
                 for crop in crops for v in quarter_turns(crop)[:ad.turns]]  # one run
        if ad.method == "finetune":
            t = tap(classifier)
            if ad.conv_weights.shape != (len(t.weight), t.weight[0].size):
                raise EnrolError(f"the profile's {model_name} layer does not fit "
                                 f"{classifier.path.name}: enrol again for this model")
            features, logits = t.run(views)
        else:
            features, logits = classifier.embed(views), classifier.logits(views)
        labels, prior = head_log_probs(classifier.heads, logits, ad.head)
        probs = ad.probabilities([(features[k::ad.turns], prior[k::ad.turns])
                                  for k in range(ad.turns)], labels)
        if ad.head != TOKEN:
            for pred, row in zip(predictions, probs, strict=True):
                pred[ad.head] = _prediction(ad.labels, row, top_k)
            return predictions
        for pred, row in zip(predictions, probs, strict=True):
            pred.update(_stone_heads(ad.labels, row, classifier.heads, top_k))
        return predictions


def load_profile(path: str | Path) -> Profile:
    """A profile file, validated (``CalibrationError`` naming the file and key)."""
    return Profile(load(path, "profile"))
