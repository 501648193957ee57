"""auto keeps the model itself unless an adaptation reads the captures significantly
better (the real dice: an adaptation that loses held out is not kept)."""

from pathlib import Path

import numpy as np
import pytest

from calibration import enrol, files
from calibration.enrol import Adaptation, Face, Plan
from vision.classifier import Prediction

LABELS = ("a", "b", "c")


class KnowingClassifier:
    """'Crops' are 1 x 1 x 3 'images': their own embeddings and the model's logits
    (times ``sure``): the model reads a crop as its largest channel."""

    heads = {"h": LABELS}
    path = Path("no-such-model.onnx")  # nothing to fine-tune

    def __init__(self, sure=3.0):
        self.sure = sure

    def embed(self, crops):
        return np.array(crops, np.float32).reshape(len(crops), -1)

    def logits(self, crops):
        return [self.sure * self.embed(crops)]

    def predict(self, crops, top_k=3, turns=1):
        return [{"h": Prediction(LABELS[int(np.argmax(c))], 1.0, ())} for c in crops]


def _session(crops_by_label, classifier, method="auto"):
    faces = tuple(Face(f"show {label}", label, "piece") for label in LABELS)
    session = enrol.Session(Plan("m", "h", "x", faces), classifier, method, turns=1)
    for face in faces:
        for crop in crops_by_label[face.label]:
            session.add(face, crop.reshape(1, 1, 3))
    return session


def test_the_sign_test():
    assert enrol.beats([True] * 5, [False] * 5)  # 5 wins: 5 >= 1.645 * sqrt(5)
    assert not enrol.beats([True] * 3 + [False], [False] * 3 + [True])  # 3 : 1
    assert not enrol.beats([True, None], [False, False])  # one win only counts 1 < 1.645
    assert enrol.beats([True] * 9 + [False] * 2, [False] * 9 + [True] * 2)  # 9 : 2
    assert not enrol.beats([True] * 4, [True] * 4)  # no capture differs


def test_the_paired_test_of_the_probabilities():
    """6 wins against 2 losses fail the sign test (4 < 1.645 * sqrt(8)); where the
    adaptation is also surer of the captures' classes throughout, it beats the model."""
    right, base = [True] * 6 + [False] * 2 + [True] * 32, [False] * 6 + [True] * 2 + [True] * 32
    assert not enrol.beats(right, base)
    sure = [np.log(0.9)] * 6 + [np.log(0.4)] * 2 + [np.log(0.95)] * 32
    unsure = [np.log(0.3)] * 6 + [np.log(0.6)] * 2 + [np.log(0.7)] * 32
    assert enrol.beats(right, base, sure, unsure)
    assert not enrol.beats(right, base, unsure, sure)  # less sure: no
    # surer, but reading fewer captures right: no
    assert not enrol.beats(base, right, sure, unsure)
    # surer of a few only, less of the others: the mean's lead is inside the noise
    mixed = [np.log(0.9)] * 6 + [np.log(0.4)] * 2 + [np.log(0.6)] * 32
    assert not enrol.beats(right, base, mixed, unsure)


def test_auto_keeps_the_model_where_it_reads_the_captures_as_well():
    """Captures the model reads right (each near its own axis): every adaptation reads
    them right too, none better (surer of them is not more right: the model is first on
    the tie), so the profile is the model's head (all its classes)."""
    rng = np.random.default_rng(0)
    crops = {label: [np.eye(3)[k] + rng.normal(0, 0.2, 3) for _ in range(5)]
             for k, label in enumerate(LABELS)}
    ad = _session(crops, KnowingClassifier()).adapt()
    assert ad.method == "model" and ad.cv["accuracy"] == 1.0 and ad.labels == LABELS
    assert ad.cv["methods"] == {"model": 1.0, "prototypes": 1.0, "linear": 1.0}


def test_auto_adapts_where_the_model_is_wrong():
    """The set's b looks like the model's a: the model misreads every b, the
    prototypes do not, and win."""
    rng = np.random.default_rng(1)
    looks = {"a": [1.0, 0.0, 0.0], "b": [1.0, 0.3, 0.4], "c": [0.0, 0.0, 1.0]}
    crops = {label: [np.array(v) + rng.normal(0, 0.03, 3) for _ in range(5)]
             for label, v in looks.items()}
    ad = _session(crops, KnowingClassifier(sure=1.0)).adapt()
    assert ad.method != "model" and ad.method in ad.cv["beat_model"]
    assert ad.cv["methods"]["model"] <= 0.7 and ad.cv["accuracy"] == 1.0


def test_auto_keeps_the_model_where_a_face_of_the_plan_was_not_captured():
    """An adaptation answers only the classes captured: without c's captures the
    prototypes would never read a c, so auto keeps the model and says what is missing."""
    rng = np.random.default_rng(1)
    looks = {"a": [1.0, 0.0, 0.0], "b": [1.0, 0.3, 0.4], "c": [0.0, 0.0, 1.0]}
    crops = {label: [np.array(v) + rng.normal(0, 0.03, 3) for _ in range(5)]
             for label, v in looks.items()}
    crops["c"] = []
    ad = _session(crops, KnowingClassifier(sure=1.0)).adapt()
    assert ad.method == "model" and ad.cv["missing"] == ["c"] and ad.cv["beat_model"] == []


def test_the_model_method_reads_the_models_head_over_the_enrolled_classes(tmp_path):
    emb = np.eye(3)
    ad = Adaptation.fit("m", "h", emb, ["a", "b", "c"], ["p"] * 3, method="model")
    # a model sure of a class that was not enrolled: the best enrolled one is read
    prior = np.log(np.array([[0.1, 0.3, 0.05, 0.55]]))
    got = ad.predict(np.array([[1.0, 0.0, 0.0]]), prior, ("a", "b", "c", "d"))[0]
    assert got.label == "b" and got.probability == pytest.approx(0.3 / 0.45)
    # as enrolment makes it: every class of the model's, enrolled or not
    ad = Adaptation.fit("m", "h", emb, ["a", "b", "c"], ["p"] * 3, method="model",
                        classes=("a", "b", "c", "d"))
    got = ad.predict(np.array([[1.0, 0.0, 0.0]]), prior, ("a", "b", "c", "d"))[0]
    assert got.label == "d" and got.probability == pytest.approx(0.55)
    path = files.save(files.EnrolmentProfile("esoloe", {"m": ad.to_json()}),
                      tmp_path / "profile.json")
    again = enrol.load_profile(path).adaptations["m"]
    assert (again.method, again.labels) == ("model", ("a", "b", "c", "d"))
    data = ad.to_json()
    data["classes"] = "abcd"
    files.save(files.EnrolmentProfile("esoloe", {"m": data}), path)
    with pytest.raises(files.CalibrationError, match="key 'models.m.classes'"):
        enrol.load_profile(path)


def test_a_set_showing_fewer_faces_than_the_model_knows_is_enrolled_on_its_own():
    """A plan of the set's own faces (ordinary dice: 1..6 of the pip model's 1..9):
    every face captured, so auto may adapt; the model itself then answers the plan's
    classes only (a set that never shows a c is never read as one)."""
    rng = np.random.default_rng(1)
    looks = {"a": [1.0, 0.0, 0.0], "b": [1.0, 0.3, 0.4]}
    crops = {label: [np.array(v) + rng.normal(0, 0.03, 3) for _ in range(5)]
             for label, v in looks.items()}
    faces = tuple(Face(f"show {label}", label, "piece") for label in looks)
    session = enrol.Session(Plan("m", "h", "x", faces), KnowingClassifier(sure=1.0),
                            "model", turns=1)
    for face in faces:
        for crop in crops[face.label]:
            session.add(face, crop.reshape(1, 1, 3))
    model = session.adapt()
    assert model.labels == ("a", "b")
    # a b crop the model reads as a c: answered over a and b only
    got = model.predict(None, prior_labels=LABELS, views=[(
        np.array([[0.2, 0.3, 0.9]]), np.log(np.array([[0.2, 0.3, 0.5]])))])[0]
    assert got.label == "b" and got.probability == pytest.approx(0.6)
    session.method = "auto"
    ad = session.adapt()
    assert "missing" not in ad.cv and ad.method != "model"
    assert ad.method in ad.cv["beat_model"] and ad.cv["accuracy"] == 1.0
