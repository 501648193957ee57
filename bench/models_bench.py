"""The shipped crop models (models/*.onnx), one block of rows each: accuracy per head on
held-out renders (the registry's test set: seed 1 + 1,000,003, never trained on; read from
out/cache when a training run left it there, else rendered, which takes a minute or two);
for the pip model, accuracy on the real dice per source group, only on crops it was not
trained on, beside the classical blob counter (vision.pips_classical) on the same crops;
the file's size; and latency: one batched ``Classifier.predict`` of 25 crops on one
onnxruntime thread, median and 95th percentile of 200 runs."""

from __future__ import annotations

import numpy as np

from vision import pips_classical, real_dice
from vision.classifier import Classifier, ModelError
from vision.read_miwin import TOP_TURNS
from vision.train import evaluate, sources
from vision.train.registry import MODELS

TITLE = "Crop models: held-out renders, real dice vs classical, size, latency"
BATCH = 25
TRAINING_SEED = 1


def _row(model: str, measure: str, crops: int | str, value, classical="") -> dict:
    return {"model": model, "measure": measure, "crops": crops, "model value": value,
            "classical": classical}


def _real_dice_rows(clf: Classifier, head: str) -> list[dict]:
    try:
        crops = real_dice.load()
    except real_dice.RealDiceMissing as err:
        return [_row(clf.path.stem, "real dice", "", str(err))]
    crops = evaluate.real_dice_held_out(clf, crops)
    rows = []
    turned = evaluate.real_dice_reports(clf, crops, head, turns=TOP_TURNS)
    for group, report in evaluate.real_dice_reports(clf, crops, head).items():
        members = real_dice.by_group(crops)[group]
        classical = np.mean([pips_classical.count_pips(c.image()).pips == c.pips
                             for c in members])
        rows.append(_row(clf.path.stem, f"real {group}, held out: {head}", report.count,
                         report.accuracy, float(classical)))
        rows.append(_row(clf.path.stem, f"real {group}, held out: {head} from {TOP_TURNS} "
                         "quarter turns (as the readers read)", report.count,
                         turned[group].accuracy, float(classical)))
    return rows


def measure_model(name: str) -> list[dict]:
    spec = MODELS[name]
    try:
        clf = Classifier.load(name, threads=1)
    except ModelError as err:
        return [_row(name, "file", "", str(err))]
    crops, labels = sources.cached(spec, spec.test_size,
                                   TRAINING_SEED + sources.TEST_SEED_OFFSET)
    rows = []
    for report in evaluate.evaluate(clf, crops, labels):
        classical = ""
        if report.head == spec.real_dice_head:
            truth = labels[report.head]
            classical = float(np.mean([str(pips_classical.count_pips(c).pips) == t
                                       for c, t in zip(crops, truth, strict=True)]))
        rows.append(_row(name, f"renders: {report.head}", report.count, report.accuracy,
                         classical))
    if spec.real_dice_head:
        rows += _real_dice_rows(clf, spec.real_dice_head)
    rows.append(_row(name, "file size", "", f"{clf.path.stat().st_size / 1024:.0f} KiB"))
    timing = evaluate.latency(clf, crops[:BATCH])
    rows.append(_row(name, f"latency, batch of {BATCH}, 1 thread", BATCH,
                     f"median {timing['median_ms']:.2f} ms, p95 {timing['p95_ms']:.2f} ms"))
    return rows


def measure() -> list[dict]:
    return [row for name in MODELS for row in measure_model(name)]
