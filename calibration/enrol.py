"""Set enrolment: adapt a crop classifier to the pieces on this table from a few captures
of each face (``tableref enrol --game G``).

The user shows each piece and face a few times (``plan``: each symbol of each player's
cubes, each number of each die); every capture is a crop that goes, with its three
quarter turns (a face can lie any way round), through the model's ``embedding`` output
(``Classifier.embed``: the features its heads read). The profile keeps, per class, one
prototype per piece that shows it (the mean of its captures' L2-normalised embeddings,
normalised again). Two ways to read a crop, only ever as one of the enrolled classes:

- ``prototypes``: cosine similarity to the prototypes (the best per class, times
  ``SCALE``) as log-probabilities, plus ``MODEL_WEIGHT`` times the model's own head's
  log-probabilities over the same classes (a product of the two experts; on the real
  dice it beat either alone in most groups when it was chosen). No training at all.
- ``linear``: a new last layer (softmax over the enrolled classes) on the normalised
  embedding, started from the prototypes and trained on the captures: a last-layer
  fine-tune in numpy, well under a second here.
- ``nearest``: every capture (each of its quarter turns) is a prototype of its own: the
  nearest capture decides (its similarity times ``SCALE``, softmaxed, gives the
  probabilities).

By default (``auto``) ``prototypes`` and ``linear`` are made and the one with the better
cross-validated accuracy on the captures is kept (prototypes on a tie).

``cross_validate`` measures the captures in ``FOLDS`` folds (each capture read by an
adaptation made without it); a class below ``WEAK`` is one to capture more of.

Readers load a profile with ``load_profile(path)`` and read crops with
``Profile.predict(model_name, classifier, crops)``, which returns what
``Classifier.predict`` returns with the adapted head's prediction replaced.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.files import EnrolmentProfile, load
from vision.classifier import Classifier, Prediction, softmax

SCALE = 20.0  # cosine similarity -> logit
MODEL_WEIGHT = 1.0  # weight of the model's own head beside the prototypes
#: the model head's weight beside each method (the linear layer replaces the head)
METHOD_WEIGHTS = {"prototypes": MODEL_WEIGHT, "linear": 0.0, "nearest": 0.0}
WEAK = 0.8  # cross-validated accuracy under which a class needs more captures
CAPTURES = 5
FOLDS = 5  # cross-validation folds


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
    head: str
    crop: str  # render_crops kind of the synthetic captures
    faces: tuple[Face, ...]


def plan(game: str) -> Plan:
    """What to show for ``game``'s set."""
    if game in ("esoloe", "esoloe-tictactoe"):
        faces = tuple(Face(f"a {cube} cube with its {symbol} face up", symbol, f"{cube} cube")
                      for cube in ("natural", "green")
                      for symbol in ("sakura", "fuji", "geisha", "blank"))
        return Plan("symbol", "symbol", "face", faces)
    if game in ("neunfeld", "tyr"):
        from rules.miwin import BY_COLOUR

        faces = tuple(Face(f"the {colour} die with {top} up", str(top), f"{colour} die")
                      for colour, die in BY_COLOUR.items() for top in die.faces)
        return Plan("pips", "pips", "die", faces)
    if game == "esoloe-3andc":
        raise EnrolError("3andC's cubes carry no symbols: there is nothing to enrol "
                         "(tableref calibrate colour measures the cubes' colours)")
    if game == "cubes":
        raise EnrolError("enrolment of Cubes' stones is not supported yet")
    raise EnrolError(f"unknown game {game!r}")


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=1, keepdims=True))


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


METHODS = ("prototypes", "linear", "nearest")
#: what ``auto`` chooses among: ``nearest`` is left out, its cross-validated accuracy on a
#: few captures promised more than it gave on the real dice (docs/calibration.md)
AUTO_METHODS = ("prototypes", "linear")
LINEAR_STEPS = 300
LINEAR_RATE = 0.5
LINEAR_DECAY = 1e-3


@dataclass
class Adaptation:
    """One model head adapted to a set: per class (label) one prototype per piece, (k, d)
    unit vectors (``nearest``: one per capture view); for ``method`` "linear" also a
    softmax layer (``weights`` (classes, d),
    ``bias``) on the normalised embedding, started from the prototypes and trained on the
    captures (full-batch gradient descent with weight decay: a last-layer fine-tune that
    takes well under a second)."""

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

    @classmethod
    def fit(cls, model: str, head: str, embeddings: np.ndarray, labels: Sequence[str],
            pieces: Sequence[str], captures: dict[str, int] | None = None,
            method: str = "prototypes", model_weight: float | None = None) -> Adaptation:
        """From embedding rows with their labels and pieces (``captures``: captures per
        class, when rows are several views of one capture; default: one row each;
        ``model_weight``: default the method's, ``METHOD_WEIGHTS``)."""
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
        ad = cls(model, head, prototypes, dict(captures), method, model_weight=model_weight)
        if method == "linear":
            ad.weights, ad.bias = ad._train(emb, labels)
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
        return tuple(self.prototypes)

    def logits(self, embeddings: np.ndarray, head_logits: np.ndarray | None = None,
               head_labels: Sequence[str] | None = None) -> np.ndarray:
        """(n, classes) scores over ``labels``: the adaptation's log-probabilities plus
        ``model_weight`` times the model head's (``head_logits`` over ``head_labels``)."""
        emb = _normalise(embeddings)
        if self.method == "linear":
            z = emb @ self.weights.T + self.bias
        else:
            z = np.stack([(emb @ self.prototypes[label].T).max(axis=1) * self.scale
                          for label in self.labels], axis=1)
        scores = _log_softmax(z)
        if head_logits is not None and self.model_weight:
            cols = [list(head_labels).index(label) for label in self.labels]
            scores = scores + self.model_weight * _log_softmax(
                np.asarray(head_logits, np.float64)[:, cols])
        return scores

    def predict(self, embeddings: np.ndarray, head_logits: np.ndarray | None = None,
                head_labels: Sequence[str] | None = None, top_k: int = 3) -> list[Prediction]:
        if len(embeddings) == 0:
            return []
        probs = softmax(self.logits(embeddings, head_logits, head_labels))
        out = []
        for row in probs:
            order = np.argsort(-row, kind="stable")[:max(1, top_k)]
            top = tuple((self.labels[j], float(row[j])) for j in order)
            out.append(Prediction(top[0][0], top[0][1], top))
        return out

    def to_json(self) -> dict:
        data = {"head": self.head, "method": self.method, "scale": self.scale,
                "model_weight": self.model_weight,
                "prototypes": {k: np.round(v, 6).tolist() for k, v in self.prototypes.items()},
                "captures": self.captures}
        if self.method == "linear":
            data["weights"] = np.round(self.weights, 6).tolist()
            data["bias"] = np.round(self.bias, 6).tolist()
        if self.cv is not None:
            data["cross_validation"] = self.cv
        return data

    @classmethod
    def from_json(cls, model: str, data: dict) -> Adaptation:
        protos = {k: _normalise(np.asarray(v, np.float64)) for k, v in data["prototypes"].items()}
        linear = data["method"] == "linear"
        return cls(model, data["head"], protos, dict(data["captures"]), data["method"],
                   float(data["scale"]), float(data["model_weight"]),
                   np.asarray(data["weights"], np.float64) if linear else None,
                   np.asarray(data["bias"], np.float64) if linear else None,
                   data.get("cross_validation"))


def cross_validate(model: str, head: str, embeddings: np.ndarray, labels: Sequence[str],
                   pieces: Sequence[str], head_logits: np.ndarray | None = None,
                   head_labels: Sequence[str] | None = None, method: str = "prototypes",
                   model_weight: float | None = None) -> dict:
    """Accuracy on the captures, each read by an adaptation made without it: overall and
    per class (None where a class has a single capture).

    ``embeddings`` is (captures, views, d): each capture's views (its quarter turns) are
    trained on together and left out together; a left-out capture is read from its first
    view (and its ``head_logits`` row). Folds: the k-th capture of every face (label and
    piece) falls in fold k mod ``FOLDS``, so each fold leaves out one capture of each."""
    emb = np.asarray(embeddings, np.float64)
    if emb.ndim == 2:
        emb = emb[:, None, :]
    labels, pieces = list(labels), list(pieces)
    views = emb.shape[1]
    seen: Counter = Counter()
    fold = []
    for key in zip(labels, pieces, strict=True):
        fold.append(seen[key] % FOLDS)
        seen[key] += 1
    right = defaultdict(int)
    total = defaultdict(int)
    for f in sorted(set(fold)):
        keep = [j for j in range(len(labels)) if fold[j] != f]
        out = [i for i in range(len(labels))
               if fold[i] == f and labels[i] in {labels[j] for j in keep}]
        if not out:
            continue
        ad = Adaptation.fit(model, head, emb[keep].reshape(-1, emb.shape[2]),
                            np.repeat([labels[j] for j in keep], views),
                            np.repeat([pieces[j] for j in keep], views),
                            method=method, model_weight=model_weight)
        logits = None if head_logits is None else np.asarray(head_logits)[out]
        for i, pred in zip(out, ad.predict(emb[out, 0], logits, head_labels, 1), strict=True):
            total[labels[i]] += 1
            right[labels[i]] += pred.label == labels[i]
    per_class = {label: (round(right[label] / total[label], 3) if total[label] else None)
                 for label in dict.fromkeys(labels)}
    n = sum(total.values())
    return {"accuracy": round(sum(right.values()) / n, 4) if n else None,
            "captures": len(labels), "per_class": per_class}


def weak_classes(cv: dict) -> list[str]:
    return [label for label, acc in cv["per_class"].items() if acc is None or acc < WEAK]


# --------------------------------------------------------------------------- enrolment

Capture = Callable[[Face, int], np.ndarray | None]  # (face, attempt) -> crop or None


def quarter_turns(crop: np.ndarray) -> list[np.ndarray]:
    """The crop and its three quarter turns: a face or die top can lie any way round, so
    every capture counts four times (the views enrolment trains on)."""
    return [np.ascontiguousarray(np.rot90(crop, k)) for k in range(4)]


class Session:
    """The captures of one enrolment, embedded (with their quarter turns) as they come.

    ``method``: ``prototypes`` (with the model's head beside them), ``linear`` (a new
    last layer), ``nearest`` (the nearest capture), or ``auto``: those of
    ``AUTO_METHODS``, and the one with the best cross-validated accuracy on the captures
    (the first on a tie)."""

    def __init__(self, plan_: Plan, classifier: Classifier, method: str = "auto"):
        if method not in (*METHODS, "auto"):
            raise EnrolError(f"unknown method {method!r} (known: auto, {', '.join(METHODS)})")
        self.plan = plan_
        self.classifier = classifier
        self.method = method
        self.crops: list[np.ndarray] = []
        self.faces: list[Face] = []
        self._emb: list[np.ndarray] = []  # (4, d) per capture
        self._logits: list[np.ndarray] = []  # the head's logits of the capture as shown
        self._head = list(classifier.heads).index(plan_.head)

    def add(self, face: Face, crop: np.ndarray) -> None:
        self.crops.append(crop)
        self.faces.append(face)
        self._emb.append(self.classifier.embed(quarter_turns(crop)))
        self._logits.append(self.classifier.logits([crop])[self._head][0])

    def capture(self, faces: Sequence[Face], times: int, capture: Capture,
                say: Callable[[str], None]) -> None:
        for face in faces:
            for k in range(times):
                say(f"show {face.prompt} ({k + 1} of {times})")
                crop = capture(face, k)
                if crop is None:
                    raise EnrolError(f"the source ended before {face.prompt} was captured")
                self.add(face, crop)

    def adapt(self) -> Adaptation:
        labels = [f.label for f in self.faces]
        pieces = [f.piece for f in self.faces]
        emb = np.array(self._emb)
        views = emb.shape[1]
        best = None
        scores = {}
        for method in (AUTO_METHODS if self.method == "auto" else (self.method,)):
            ad = Adaptation.fit(self.plan.model, self.plan.head,
                                emb.reshape(-1, emb.shape[2]), np.repeat(labels, views),
                                np.repeat(pieces, views), captures=dict(Counter(labels)),
                                method=method)
            ad.cv = cross_validate(self.plan.model, self.plan.head, emb, labels, pieces,
                                   np.array(self._logits),
                                   self.classifier.heads[self.plan.head], method)
            scores[method] = ad.cv["accuracy"]
            if best is None or (ad.cv["accuracy"] or 0) > (best.cv["accuracy"] or 0):
                best = ad
        best.cv["methods"] = scores
        return best


def enrol(game: str, capture: Capture, *, captures: int = CAPTURES, more: int = 3,
          rounds: int = 2, classifier: Classifier | None = None, method: str = "auto",
          say: Callable[[str], None] = print) -> tuple[EnrolmentProfile, Session]:
    """Ask for every face ``captures`` times, then, while a class is weak, ``more`` times
    each face of the weak classes (at most ``rounds`` times). Returns the profile."""
    p = plan(game)
    model = classifier or Classifier.load(p.model)
    session = Session(p, model, method)
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

class Profile:
    """A loaded enrolment profile: per model, the adapted head's prototypes."""

    def __init__(self, profile: EnrolmentProfile):
        self.game = profile.game
        self.adaptations = {name: Adaptation.from_json(name, data)
                            for name, data in profile.models.items()}

    def predict(self, model_name: str, classifier: Classifier, crops: Sequence[np.ndarray],
                top_k: int = 3) -> list[dict[str, Prediction]]:
        """``classifier.predict(crops)`` with the enrolled head read from the prototypes
        (unchanged when this profile does not adapt ``model_name``)."""
        predictions = classifier.predict(crops, top_k)
        ad = self.adaptations.get(model_name)
        if ad is None or not crops:
            return predictions
        head_logits = classifier.logits(crops)[list(classifier.heads).index(ad.head)]
        adapted = ad.predict(classifier.embed(crops), head_logits, classifier.heads[ad.head],
                             top_k)
        for pred, new in zip(predictions, adapted, strict=True):
            pred[ad.head] = new
        return predictions


def load_profile(path: str | Path) -> Profile:
    """A profile file, validated (``CalibrationError`` naming the file and key)."""
    return Profile(load(path, "profile"))
