from pathlib import Path

import numpy as np
import pytest

from calibration import enrol, files, synthetic
from calibration.enrol import Adaptation, EnrolError, Face, Plan
from vision.classifier import Classifier, Prediction, stone_token

CENTRES = {"a": [1.0, 0, 0, 0], "b": [0, 1.0, 0, 0], "c": [0, 0, 1.0, 0]}


class FakeClassifier:
    """'Crops' (1 x 1 x 4 'images', the same at every quarter turn) are their own
    embeddings; the model's head knows nothing (flat logits)."""

    heads = {"h": ("a", "b", "c", "d")}
    path = Path("no-such-model.onnx")  # nothing to fine-tune: auto leaves finetune out

    def embed(self, crops):
        return np.array(crops, np.float32).reshape(len(crops), -1)

    def logits(self, crops):
        return [np.zeros((len(crops), 4), np.float32)]

    def __init__(self):
        self.turns_asked = []  # each predict's ``turns``

    def predict(self, crops, top_k=3, turns=1):
        self.turns_asked.append(turns)
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
    pieces = ["piece"] * len(labels)
    cv = enrol.cross_validate(
        labels, pieces,
        lambda keep: Adaptation.fit("m", "h", np.array(emb)[keep], [labels[i] for i in keep],
                                    [pieces[i] for i in keep]),
        lambda ad, out: ad.predict(np.array(emb)[out]))
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
    monkeypatch.setattr(enrol, "plan",
                        lambda game, heads=None, dice="miwin": Plan("m", "h", "x", faces))
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
    assert set(cv["methods"]) == {"model", "prototypes", "linear"}  # what it could
    assert cv["accuracy"] == max(cv["methods"].values())
    assert len(session.crops) == 20


@pytest.mark.parametrize("method", ["prototypes", "linear", "nearest"])
def test_profile_file_round_trip(tmp_path, method):
    rng = np.random.default_rng(3)
    emb = [c for label in CENTRES for c in _cluster(label, 4, rng)]
    labels = [label for label in CENTRES for _ in range(4)]
    ad = Adaptation.fit("m", "h", np.array(emb), labels, ["p"] * 12, method=method)
    ad.turns = 4  # read from the four quarter turns
    path = files.save(files.EnrolmentProfile("esoloe", {"m": ad.to_json()}),
                      tmp_path / "profile.json")
    profile = enrol.load_profile(path)
    crops = [np.array(CENTRES[k]).reshape(1, 1, 4) for k in "bc"]
    got = profile.predict("m", FakeClassifier(), crops)
    assert [p["h"].label for p in got] == ["b", "c"]
    again = Adaptation.from_json("m", files.load(path).models["m"])
    assert np.allclose(again.logits(np.array(emb)), ad.logits(np.array(emb)), atol=1e-4)
    assert (again.method, again.turns) == (method, 4)
    # a model the profile does not adapt reads as before, from the reader's views (a
    # die's pips and colour: its four quarter turns)
    plain = FakeClassifier()
    assert profile.predict("other", plain, crops, 3, 4)[0]["h"].label == "d"
    assert plain.turns_asked == [4]


def test_plans():
    p = enrol.plan("esoloe-tictactoe")
    assert (p.model, p.head, p.crop) == ("symbol", "symbol", "up") and len(p.faces) == 8
    tyr = enrol.plan("tyr")
    assert (tyr.model, tyr.crop) == ("pips", "top") and len(tyr.faces) == 18
    assert {f.piece for f in tyr.faces} == {"blue die", "red die", "black die"}
    ordinary = enrol.plan("neunfeld", dice="d6")
    assert [f.label for f in ordinary.faces] == ["1", "2", "3", "4", "5", "6"]
    assert {f.piece for f in ordinary.faces} == {enrol.ANY_DIE} and ordinary.model == "pips"
    with pytest.raises(EnrolError, match="unknown dice 'd8' \\(known: miwin, d6\\)"):
        enrol.plan("tyr", dice="d8")
    with pytest.raises(EnrolError, match="esoloe's set has no dice"):
        enrol.plan("esoloe", dice="d6")
    cubes = enrol.plan("cubes")
    assert (cubes.model, cubes.head) == ("stone", enrol.TOKEN) and len(cubes.faces) == 41
    assert {f.label for f in cubes.faces if f.piece == "blue 4 stone"} == {"B4", "b4"}
    with pytest.raises(EnrolError, match="no symbols"):
        enrol.plan("esoloe-3andc")
    with pytest.raises(EnrolError, match="unknown game"):
        enrol.plan("chess")
    with pytest.raises(EnrolError, match="unknown method 'knn'"):
        enrol.Session(p, FakeClassifier(), "knn")


def test_token_probabilities_of_the_stone_model():
    heads = {"kind": ("white", "blue", "red", "black", "orange"),
             "digit": ("2", "3", "4", "5", "6"), "side": ("active", "inactive")}
    rng = np.random.default_rng(4)
    logits = [rng.normal(0, 2, (3, len(labels))) for labels in heads.values()]
    labels, lp = enrol.head_log_probs(heads, logits, enrol.TOKEN)
    assert len(labels) == 41 and {"W", "B4", "b4", "K2", "o6"} <= set(labels)
    assert np.allclose(np.exp(lp).sum(axis=1), 1.0)  # a distribution over the tokens
    probs = np.exp(lp[0])
    heads_read = enrol._stone_heads(labels, probs, heads, 3)
    assert heads_read["kind"].probability == pytest.approx(
        max(sum(p for t, p in zip(labels, probs, strict=True) if t[0].upper() == letter)
            for letter in "WBRKO"))
    with pytest.raises(EnrolError, match="no head 'x'"):
        enrol.head_log_probs(heads, logits, "x")


def test_token_probabilities_of_a_stone_model_that_sees_empty_fields():
    heads = {"kind": ("white", "blue", "red", "black", "orange", "empty"),
             "digit": ("2", "3", "4", "5", "6"), "side": ("active", "inactive")}
    logits = [np.zeros((1, len(labels))) for labels in heads.values()]
    logits[0][0, 5] = 4.0  # empty, surely
    labels, lp = enrol.head_log_probs(heads, logits, enrol.TOKEN)
    assert len(labels) == 42 and labels[-1] == "."
    assert np.allclose(np.exp(lp).sum(axis=1), 1.0)
    read = enrol._stone_heads(labels, np.exp(lp[0]), heads, 3)
    assert read["kind"].label == "empty" and read["kind"].probability > 0.9
    assert read["digit"].label in heads["digit"]  # of the likeliest colour, not of "empty"


def _accuracy(predictions, truth, head):
    read = [stone_token(p)[0] if head == enrol.TOKEN else p[head].label for p in predictions]
    return float(np.mean([r == t for r, t in zip(read, truth, strict=True)]))


@pytest.fixture(scope="module")
def symbol_model():
    return Classifier.load("symbol")


def test_fine_tuning_closes_much_of_the_gap_on_another_set(tmp_path, symbol_model):
    """3 captures of each face of a set unlike the training renders: the fine-tuned last
    layer reads unseen crops of that set far better than the model alone, and the profile
    file reads the same after a round trip."""
    pytest.importorskip("onnx")
    plan = enrol.plan("esoloe")
    user = synthetic.RenderedCrops("face", 5, "other-set")
    session = enrol.Session(plan, symbol_model, "finetune")
    for face in plan.faces:
        for _ in range(3):
            session.add(face, user(face))
    ad = session.adapt()
    assert ad.method == "finetune" and ad.cv["captures"] == 24
    crops, keys = synthetic.render("face", 48, 5, start=3000, variant="other-set")
    truth = [k[1] for k in keys]
    before = _accuracy(symbol_model.predict(crops), truth, "symbol")
    path = files.save(files.EnrolmentProfile("esoloe", {"symbol": ad.to_json()}),
                      tmp_path / "profile.json")
    profile = enrol.load_profile(path)
    after = _accuracy(profile.predict("symbol", symbol_model, crops), truth, "symbol")
    assert after >= before + 0.12 and after >= 0.85, (before, after)
    direct = enrol.Profile(files.EnrolmentProfile("esoloe", {"symbol": ad.to_json()}))
    assert [p["symbol"].label for p in direct.predict("symbol", symbol_model, crops)] == \
        [p["symbol"].label for p in profile.predict("symbol", symbol_model, crops)]
    # the other heads are the model's own
    assert [p["rotation"].label for p in profile.predict("symbol", symbol_model, crops)] == \
        [p["rotation"].label for p in symbol_model.predict(crops)]
    # a fine-tuned layer that does not fit the model is refused, not misread
    data = ad.to_json()
    data["conv_weights"] = [row[:-9] for row in data["conv_weights"]]
    bad = enrol.Profile(files.EnrolmentProfile("esoloe", {"symbol": data}))
    with pytest.raises(EnrolError, match="does not fit symbol.onnx"):
        bad.predict("symbol", symbol_model, crops[:2])


def test_stones_enrol_as_tokens():
    """The stone model's kind, digit and side read through a token profile: the stones
    that came up three times or more in a few renders of another set are enrolled from
    two captures each, and their other crops read as their tokens."""
    pytest.importorskip("onnx")
    model = Classifier.load("stone")
    crops, keys = synthetic.render("stone", 96, 5, variant="other-set")
    by_label = {}
    for crop, (_, label) in zip(crops, keys, strict=True):
        by_label.setdefault(label, []).append(crop)
    faces = tuple(f for f in enrol.plan("cubes").faces if len(by_label.get(f.label, [])) >= 3)
    assert len(faces) >= 3 and faces[0].label == "W"
    session = enrol.Session(Plan("stone", enrol.TOKEN, "stone", faces), model, "auto")
    for face in faces:
        for crop in by_label[face.label][:2]:
            session.add(face, crop)
    ad = session.adapt()
    assert set(ad.cv["methods"]) == set(enrol.AUTO_METHODS)
    # an adaptation answers the enrolled tokens; the model itself (auto's choice where no
    # adaptation reads the captures significantly better) all of its tokens
    assert set(ad.labels) == ({f.label for f in faces} if ad.method != "model" else
                              set(enrol.head_log_probs(model.heads, model.logits(crops[:1]),
                                                       enrol.TOKEN)[0]))
    test = [(crop, f.label) for f in faces for crop in by_label[f.label][2:]]
    profile = enrol.Profile(files.EnrolmentProfile("cubes", {"stone": ad.to_json()}))
    got = profile.predict("stone", model, [crop for crop, _ in test])
    assert _accuracy(got, [label for _, label in test], enrol.TOKEN) >= 0.8
    assert set(got[0]) == {"kind", "digit", "side"}


def test_a_broken_finetune_profile_names_its_key(tmp_path):
    path = tmp_path / "p.json"
    data = {"head": "h", "method": "finetune", "scale": 20.0, "model_weight": 0.0,
            "prototypes": {"a": [[1.0, 0.0]], "b": [[0.0, 1.0]]}, "captures": {"a": 1, "b": 1},
            "conv_weights": [[0.0] * 9] * 3, "conv_bias": [0.0] * 2,
            "weights": [[0.0] * 3] * 2, "bias": [0.0] * 2}
    files.save(files.EnrolmentProfile("esoloe", {"symbol": data}), path)
    with pytest.raises(files.CalibrationError, match="key 'models.symbol.conv_bias'"):
        enrol.load_profile(path)
    data["conv_bias"], data["turns"] = [0.0] * 3, 2
    files.save(files.EnrolmentProfile("esoloe", {"symbol": data}), path)
    with pytest.raises(files.CalibrationError, match="key 'models.symbol.turns': must be 1"):
        enrol.load_profile(path)
    data["turns"] = 4
    files.save(files.EnrolmentProfile("esoloe", {"symbol": data}), path)
    assert enrol.load_profile(path).adaptations["symbol"].turns == 4
