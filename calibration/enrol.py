"""Set enrolment: adapt a crop classifier to the pieces on this table from a few captures
of each face (``tableref enrol --game G``).

The user shows each piece and face a few times (``plan``: each symbol of each player's
cubes, each number of each die); every capture is a crop that goes through the model's
``embedding`` output (``Classifier.embed``: the features its heads read). The profile
keeps, per class, one prototype per piece that shows it (the mean of its captures'
L2-normalised embeddings, normalised again). A crop is then read by cosine similarity to
the prototypes (the best prototype per class, times ``SCALE``) as log-probabilities over
the enrolled classes, plus ``MODEL_WEIGHT`` times the model's own head's log-probabilities
over the same classes (a product of the two experts: on the real dice it beat either
alone, docs/calibration.md). Nearest-class-mean on the model's own features: no
training, milliseconds on a Pi, and only the classes of this set can come out.

``cross_validate`` measures the captures leave-one-out (each capture read by the
prototypes made without it); a class below ``WEAK`` is one to capture more of.

Readers load a profile with ``load_profile(path)`` and read crops with
``Profile.predict(model_name, classifier, crops)``, which returns what
``Classifier.predict`` returns with the adapted head's prediction replaced.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.files import EnrolmentProfile, load
from vision.classifier import Classifier, Prediction, softmax

SCALE = 20.0  # cosine similarity -> logit
MODEL_WEIGHT = 1.0  # weight of the model's own head beside the prototypes
WEAK = 0.8  # cross-validated accuracy under which a class needs more captures
CAPTURES = 5


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


@dataclass
class Adaptation:
    """Prototypes of one model head: label -> (k, d) unit vectors, one per piece."""

    model: str
    head: str
    prototypes: dict[str, np.ndarray]
    captures: dict[str, int]
    scale: float = SCALE
    model_weight: float = MODEL_WEIGHT
    cv: dict | None = None  # cross-validation report

    @classmethod
    def fit(cls, model: str, head: str, embeddings: np.ndarray, labels: Sequence[str],
            pieces: Sequence[str]) -> Adaptation:
        emb = _normalise(embeddings)
        groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for i, (label, piece) in enumerate(zip(labels, pieces, strict=True)):
            groups[label][piece].append(i)
        prototypes = {label: _normalise(np.array([emb[idx].mean(axis=0)
                                                  for idx in by_piece.values()]))
                      for label, by_piece in groups.items()}
        captures = {label: sum(map(len, by_piece.values())) for label, by_piece in
                    groups.items()}
        return cls(model, head, prototypes, captures)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.prototypes)

    def logits(self, embeddings: np.ndarray, head_logits: np.ndarray | None = None,
               head_labels: Sequence[str] | None = None) -> np.ndarray:
        """(n, classes) scores over ``labels``: the prototypes' log-probabilities plus
        ``model_weight`` times the model head's (``head_logits`` over ``head_labels``)."""
        emb = _normalise(embeddings)
        sims = np.stack([(emb @ self.prototypes[label].T).max(axis=1) * self.scale
                         for label in self.labels], axis=1)
        scores = _log_softmax(sims)
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
        data = {"head": self.head, "method": "prototypes", "scale": self.scale,
                "model_weight": self.model_weight,
                "prototypes": {k: np.round(v, 6).tolist() for k, v in self.prototypes.items()},
                "captures": self.captures}
        if self.cv is not None:
            data["cross_validation"] = self.cv
        return data

    @classmethod
    def from_json(cls, model: str, data: dict) -> Adaptation:
        protos = {k: _normalise(np.asarray(v, np.float64)) for k, v in data["prototypes"].items()}
        return cls(model, data["head"], protos, dict(data["captures"]),
                   float(data["scale"]), float(data["model_weight"]),
                   data.get("cross_validation"))


def cross_validate(model: str, head: str, embeddings: np.ndarray, labels: Sequence[str],
                   pieces: Sequence[str], head_logits: np.ndarray | None = None,
                   head_labels: Sequence[str] | None = None) -> dict:
    """Leave-one-capture-out accuracy: overall and per class (None: too few captures)."""
    labels, pieces = list(labels), list(pieces)
    right = defaultdict(int)
    total = defaultdict(int)
    for i in range(len(labels)):
        keep = [j for j in range(len(labels)) if j != i]
        if labels[i] not in {labels[j] for j in keep}:
            continue  # its class has no other capture
        ad = Adaptation.fit(model, head, embeddings[keep], [labels[j] for j in keep],
                            [pieces[j] for j in keep])
        one = None if head_logits is None else head_logits[i:i + 1]
        total[labels[i]] += 1
        right[labels[i]] += ad.predict(embeddings[i:i + 1], one, head_labels,
                                       1)[0].label == labels[i]
    per_class = {label: (round(right[label] / total[label], 3) if total[label] else None)
                 for label in dict.fromkeys(labels)}
    n = sum(total.values())
    return {"accuracy": round(sum(right.values()) / n, 4) if n else None,
            "captures": len(labels), "per_class": per_class}


def weak_classes(cv: dict) -> list[str]:
    return [label for label, acc in cv["per_class"].items() if acc is None or acc < WEAK]


# --------------------------------------------------------------------------- enrolment

Capture = Callable[[Face, int], np.ndarray | None]  # (face, attempt) -> crop or None


@dataclass
class Session:
    """The captures of one enrolment, embedded as they come."""

    plan: Plan
    classifier: Classifier
    crops: list[np.ndarray]
    faces: list[Face]

    def __init__(self, plan_: Plan, classifier: Classifier):
        self.plan = plan_
        self.classifier = classifier
        self.crops, self.faces = [], []
        self._emb: list[np.ndarray] = []
        self._logits: list[np.ndarray] = []
        self._head = list(classifier.heads).index(plan_.head)

    def capture(self, faces: Sequence[Face], times: int, capture: Capture,
                say: Callable[[str], None]) -> None:
        for face in faces:
            for k in range(times):
                say(f"show {face.prompt} ({k + 1} of {times})")
                crop = capture(face, k)
                if crop is None:
                    raise EnrolError(f"the source ended before {face.prompt} was captured")
                self.crops.append(crop)
                self.faces.append(face)
                self._emb.append(self.classifier.embed([crop])[0])
                self._logits.append(self.classifier.logits([crop])[self._head][0])

    @property
    def embeddings(self) -> np.ndarray:
        return np.array(self._emb)

    def adapt(self) -> Adaptation:
        labels = [f.label for f in self.faces]
        pieces = [f.piece for f in self.faces]
        ad = Adaptation.fit(self.plan.model, self.plan.head, self.embeddings, labels, pieces)
        ad.cv = cross_validate(self.plan.model, self.plan.head, self.embeddings, labels,
                               pieces, np.array(self._logits),
                               self.classifier.heads[self.plan.head])
        return ad


def enrol(game: str, capture: Capture, *, captures: int = CAPTURES, more: int = 3,
          rounds: int = 2, classifier: Classifier | None = None,
          say: Callable[[str], None] = print) -> tuple[EnrolmentProfile, Session]:
    """Ask for every face ``captures`` times, then, while a class is weak, ``more`` times
    each face of the weak classes (at most ``rounds`` times). Returns the profile."""
    p = plan(game)
    model = classifier or Classifier.load(p.model)
    session = Session(p, model)
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
    say(f"cross-validated accuracy on {ad.cv['captures']} captures: {ad.cv['accuracy']:.3f}")
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
