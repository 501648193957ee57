import numpy as np
import pytest

from calibration import enrol, files
from calibration.enrol import Adaptation, EnrolError, Face, Plan
from vision.classifier import Prediction

CENTRES = {"a": [1.0, 0, 0, 0], "b": [0, 1.0, 0, 0], "c": [0, 0, 1.0, 0]}


class FakeClassifier:
    """'Crops' (1 x 1 x 4 'images', the same at every quarter turn) are their own
    embeddings; the model's head knows nothing (flat logits)."""

    heads = {"h": ("a", "b", "c", "d")}

    def embed(self, crops):
        return np.array(crops, np.float32).reshape(len(crops), -1)

    def logits(self, crops):
        return [np.zeros((len(crops), 4), np.float32)]

    def predict(self, crops, top_k=3):
        return [{"h": Prediction("d", 0.25, (("d", 0.25),))} for _ in crops]


def _cluster(label, n, rng, spread=0.1):
    return [np.array(CENTRES[label]) + rng.normal(0, spread, 4) for _ in range(n)]


def test_prototypes_read_their_classes():
    rng = np.random.default_rng(0)
    emb, labels = [], []
    for label in CENTRES:
        emb += _cluster(label, 5, rng)
        labels += [label] * 5
    ad = Adaptation.fit("m", "h", np.array(emb), labels, ["piece"] * len(labels))
    assert set(ad.prototypes) == set(CENTRES)
    test = np.array([c for label in CENTRES for c in _cluster(label, 10, rng)])
    truth = [label for label in CENTRES for _ in range(10)]
    assert [p.label for p in ad.predict(test)] == truth
    cv = enrol.cross_validate("m", "h", np.array(emb), labels, ["piece"] * len(labels))
    assert cv["accuracy"] == 1.0 and cv["captures"] == 15
    assert enrol.weak_classes(cv) == []
    # the model's own head counts beside the prototypes: a head sure of "b" moves a crop
    # halfway between a and b to b
    middle = np.array([[1.0, 1.0, 0, 0]])
    head = np.array([[0.0, 9.0, 0.0, 0.0]])
    assert ad.predict(middle, head, ("a", "b", "c", "d"))[0].label == "b"


def test_one_prototype_per_piece():
    rng = np.random.default_rng(1)
    # class "a" shown by two pieces that look different: both prototypes are kept
    emb = _cluster("a", 3, rng) + _cluster("c", 3, rng) + _cluster("b", 3, rng)
    labels = ["a"] * 6 + ["b"] * 3
    pieces = ["red"] * 3 + ["blue"] * 3 + ["red"] * 3
    ad = Adaptation.fit("m", "h", np.array(emb), labels, pieces)
    assert ad.prototypes["a"].shape == (2, 4)
    assert ad.predict(np.array([CENTRES["c"]]))[0].label == "a"


def test_enrol_asks_for_more_of_a_weak_class(monkeypatch):
    faces = tuple(Face(f"show {label}", label, "piece") for label in CENTRES)
    monkeypatch.setattr(enrol, "plan", lambda game: Plan("m", "h", "x", faces))
    rng = np.random.default_rng(2)
    asked = []

    def capture(face, attempt):
        asked.append(face.label)
        # "c" is first shown wrongly (twice like "a", twice like "b"), then properly
        n = asked.count("c")
        label = ("a" if n <= 2 else "b") if face.label == "c" and n <= 4 else face.label
        return _cluster(label, 1, rng, 0.05)[0].reshape(1, 1, 4)

    said = []
    profile, session = enrol.enrol("g", capture, captures=4, more=8, rounds=1,
                                   classifier=FakeClassifier(), say=said.append)
    assert asked.count("a") == 4 and asked.count("c") == 12
    assert any(s.endswith("weak: c: a few more of those, please") for s in said)
    cv = profile.models["m"]["cross_validation"]
    assert cv["captures"] == 20 and cv["per_class"]["a"] == 1.0
    assert cv["per_class"]["c"] >= 8 / 12  # the proper captures are read right
    assert set(cv["methods"]) == set(enrol.AUTO_METHODS)  # auto tried them all
    assert cv["accuracy"] == max(cv["methods"].values())
    assert len(session.crops) == 20


@pytest.mark.parametrize("method", enrol.METHODS)
def test_profile_file_round_trip(tmp_path, method):
    rng = np.random.default_rng(3)
    emb = [c for label in CENTRES for c in _cluster(label, 4, rng)]
    labels = [label for label in CENTRES for _ in range(4)]
    ad = Adaptation.fit("m", "h", np.array(emb), labels, ["p"] * 12, method=method)
    path = files.save(files.EnrolmentProfile("esoloe", {"m": ad.to_json()}),
                      tmp_path / "profile.json")
    profile = enrol.load_profile(path)
    crops = [np.array(CENTRES["b"]), np.array(CENTRES["c"])]
    got = profile.predict("m", FakeClassifier(), crops)
    assert [p["h"].label for p in got] == ["b", "c"]
    again = Adaptation.from_json("m", files.load(path).models["m"])
    assert np.allclose(again.logits(np.array(emb)), ad.logits(np.array(emb)), atol=1e-4)
    # a model the profile does not adapt reads as before
    assert profile.predict("other", FakeClassifier(), crops)[0]["h"].label == "d"


def test_plans():
    p = enrol.plan("esoloe-tictactoe")
    assert (p.model, p.head) == ("symbol", "symbol") and len(p.faces) == 8
    tyr = enrol.plan("tyr")
    assert tyr.model == "pips" and len(tyr.faces) == 18
    assert {f.piece for f in tyr.faces} == {"blue die", "red die", "black die"}
    with pytest.raises(EnrolError, match="no symbols"):
        enrol.plan("esoloe-3andc")
    with pytest.raises(EnrolError, match="unknown game"):
        enrol.plan("chess")
    with pytest.raises(EnrolError, match="unknown method 'knn'"):
        enrol.Session(p, FakeClassifier(), "knn")
