"""``python -m vision.train.evaluate``: the real crops a model was not trained on, cut down
to a dev band (``--within``) or to the crops outside another split (``--beyond``)."""

from pathlib import Path

import pytest

from vision import real_dice
from vision.classifier import Classifier
from vision.train import evaluate

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def crops(shared_dir):
    return real_dice.load(shared_dir / "data" / "real-dice")


@pytest.fixture(scope="module")
def model():
    return Classifier.load("pips")


def paths(crops):
    return {c.path for c in crops}


def test_subsets_never_hold_a_crop_the_model_trained_on(crops, model):
    trained = paths(real_dice.trained_split(crops, model.real_dice_training)[0])
    held = evaluate.real_dice_subset(model, crops)
    assert paths(held) == paths(crops) - trained
    half = paths(real_dice.trained_split(crops, real_dice.parse_adapt("IMG2019:0.5,other:0.5"))[0])
    within = evaluate.real_dice_subset(model, crops, within="IMG2019:0.5,other:0.5")
    beyond = evaluate.real_dice_subset(model, crops, beyond="IMG2019:0.5,other:0.5")
    assert paths(within) == half - trained and paths(beyond) == paths(crops) - half - trained
    assert {c.source for c in within} == {"IMG2019", "other"}
    assert "IMGother" in {c.source for c in beyond}
    band = evaluate.real_dice_subset(model, crops, within="IMG2019:0.5", beyond="IMG2019:0.4")
    group = [c for c in crops if c.source == "IMG2019"]
    assert paths(band) == (paths(real_dice.split(group, "IMG2019", 0.5)[0])
                           - paths(real_dice.split(group, "IMG2019", 0.4)[0]) - trained)


def test_cli_reports_each_group_of_the_band(monkeypatch, shared_dir, capsys, model):
    monkeypatch.setenv(real_dice.ENV_VAR, str(shared_dir))
    band = ["--within", "other:0.5", "--beyond", "other:0.45"]
    assert evaluate.main([str(model.path), *band]) == 0
    out = capsys.readouterr().out
    expected = evaluate.real_dice_subset(model, real_dice.load(), "other:0.5", "other:0.45")
    assert f"of {len(expected)} real crops (other " in out.splitlines()[0]
    assert "**other**: accuracy" in out and "IMG2019" not in out


@pytest.mark.parametrize("args, message", [
    (["nope.onnx"], "nope.onnx is missing"),
    (["models/pips.onnx", "--within", "IMG2019:lots"], "need GROUP:FRACTION"),
    (["models/pips.onnx", "--within", "other:0.3", "--beyond", "other:0.3"],
     "no real crops left"),
])
def test_cli_bad_input_is_one_line(monkeypatch, shared_dir, capsys, args, message):
    monkeypatch.setenv(real_dice.ENV_VAR, str(shared_dir))
    monkeypatch.chdir(REPO)
    assert evaluate.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
