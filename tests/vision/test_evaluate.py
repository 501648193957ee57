from types import SimpleNamespace

import numpy as np

from vision import real_dice
from vision.train import evaluate


def test_confusion_and_per_class_accuracy():
    labels = ("1", "2", "3")
    matrix = evaluate.confusion(labels, ["1", "1", "2", None, "3"], ["1", "2", "2", "3", "1"])
    assert matrix.tolist() == [[1, 1, 0], [0, 1, 0], [1, 0, 0]]
    report = evaluate.HeadReport("pips", labels, matrix)
    assert report.count == 4 and report.accuracy == 0.5
    assert report.per_class() == {"1": 0.5, "2": 1.0, "3": 0.0}
    text = report.markdown("pips")
    assert "accuracy 0.500 on 4 crops" in text and "| 1 | 1 | 1 | 0 | 0.500 |" in text


def test_held_out_leaves_out_exactly_the_crops_trained_on(shared_dir):
    crops = real_dice.load(shared_dir / "data" / "real-dice")
    untouched = SimpleNamespace(real_dice_training=None)
    assert evaluate.real_dice_held_out(untouched, crops) == crops
    adapted = SimpleNamespace(
        real_dice_training={"group": "other", "fraction": 0.5, "seed": "tableref"})
    held = evaluate.real_dice_held_out(adapted, crops)
    trained, _ = real_dice.split(crops, "other", 0.5)
    assert len(held) == len(crops) - len(trained)
    assert not {c.path for c in held} & {c.path for c in trained}


def test_latency_reports_median_and_p95():
    model = SimpleNamespace(predict=lambda crops: [])
    timing = evaluate.latency(model, [np.zeros((8, 8), np.uint8)], runs=20, warmup=1)
    assert set(timing) == {"median_ms", "p95_ms"}
    assert 0 <= timing["median_ms"] <= timing["p95_ms"]
