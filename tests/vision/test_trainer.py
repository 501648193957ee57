"""The trainer end to end on drawn die faces: train, export, load with onnxruntime.
Slow (about 25 s of CPU: torch's import, 48 training steps, quantisation)."""

import numpy as np
import pytest

from tests.vision.faces import face
from vision.classifier import Classifier, InputSpec, preprocess, resize
from vision.train.registry import ModelSpec

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch, onnx)")
pytest.importorskip("onnx", reason="the trainer needs the train extra (torch, onnx)")

from vision.train import evaluate, trainer  # noqa: E402

pytestmark = pytest.mark.slow

COLOURS = {"blue": (170, 60, 20), "red": (40, 30, 190), "black": (25, 25, 25)}


def drawn_faces(n: int, seed: int):
    rng = np.random.default_rng(seed)
    crops, pips, colours = [], [], []
    for _ in range(n):
        count = int(rng.integers(1, 10))
        colour = str(rng.choice(list(COLOURS)))
        crops.append(face(count, int(rng.integers(28, 56)), COLOURS[colour], (235, 235, 235),
                          background=tuple(int(v) for v in rng.integers(90, 200, 3)),
                          angle=float(rng.uniform(0, 90)), noise=4, rng=rng))
        pips.append(str(count))
        colours.append(colour)
    return crops, {"pips": pips, "colour": colours}


SPEC = ModelSpec(
    name="tiny-pips",
    heads={"pips": tuple("123456789"), "colour": tuple(COLOURS)},
    input=InputSpec(24, 3, (0.5, 0.5, 0.5), (0.25, 0.25, 0.25)),
    source=drawn_faces,
    width=8,
    epochs=4,
    grey_heads=("pips",),
)


def classifier_input(crops):
    return preprocess(crops, SPEC.input)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    data = trainer.CropSet.render(SPEC, 768, seed=1)
    model, log = trainer.train(SPEC, data, batch_size=64, log=lambda _: None)
    path = trainer.export(model, SPEC, tmp_path_factory.mktemp("models") / "tiny-pips.onnx")
    return model, log, path


def test_training_lowers_the_loss(trained):
    _, log, _ = trained
    assert log.steps == 4 * 12
    assert log.losses[-1] < log.losses[0]


def test_export_matches_torch_and_carries_its_labels(trained):
    model, _, path = trained
    classifier = Classifier(path)
    assert classifier.heads == SPEC.heads and classifier.input == SPEC.input
    crops, _ = drawn_faces(25, seed=7)
    expected = trainer.torch_logits(model, SPEC, resize(crops, 24, 3))
    for got, want in zip(classifier.logits(crops), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    with torch.no_grad():
        features = model.features(torch.from_numpy(classifier_input(crops))).numpy()
    assert classifier.embedding_size == trainer.embedding_size(SPEC) == features.shape[1]
    np.testing.assert_allclose(classifier.embed(crops), features, rtol=1e-4, atol=1e-4)
    assert path.stat().st_size < 2_000_000


def test_evaluation_and_quantisation(trained, tmp_path):
    _, _, path = trained
    crops, labels = drawn_faces(300, seed=9)
    reports = evaluate.evaluate(Classifier(path), crops, labels)
    assert [r.head for r in reports] == ["pips", "colour"]
    assert all(r.count == 300 for r in reports)
    colour = reports[1]
    assert colour.accuracy > 0.6  # three plain colours: learnt even in a few steps
    assert "| true \\ predicted |" in colour.markdown("colour")
    calibration = trainer.CropSet.render(SPEC, 64, seed=3)
    int8 = trainer.quantise(SPEC, path, tmp_path / "tiny-int8.onnx", calibration)
    quantised = Classifier(int8)
    assert quantised.heads == SPEC.heads
    assert quantised.embed(crops[:4]).shape == (4, trainer.embedding_size(SPEC))
    agree = np.mean([a["colour"].label == b["colour"].label for a, b in
                     zip(quantised.predict(crops), Classifier(path).predict(crops), strict=True)])
    assert agree > 0.9
    dynamic = Classifier(trainer.quantise(SPEC, path, tmp_path / "tiny-dyn.onnx", calibration,
                                          mode="dynamic"))
    assert dynamic.heads == SPEC.heads
    assert dynamic.embed(crops[:2]).shape == (2, trainer.embedding_size(SPEC))
    with pytest.raises(ValueError, match="unknown quantisation"):
        trainer.quantise(SPEC, path, tmp_path / "x.onnx", calibration, mode="int4")
