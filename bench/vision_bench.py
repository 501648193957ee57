"""Pip reading on the real dice photos, per source group: the classical blob counter
(vision.pips_classical) beside the ONNX pip model (models/pips.onnx, pips head), both on
the same crops: those the model was not trained on (its metadata names any real crops used
for adaptation). Then the model's latency: one ``Classifier.predict`` of 25 real crops
(one frame's worth of dice) on one onnxruntime thread, median and 95th percentile."""

from __future__ import annotations

import numpy as np

from vision import pips_classical, real_dice
from vision.classifier import Classifier, ModelError
from vision.train import evaluate

TITLE = "Pip reading on real dice photos (classical vs ONNX), and model latency"
BATCH = 25


def _model() -> Classifier | None:
    try:
        return Classifier.load("pips", threads=1)
    except ModelError:
        return None


def measure() -> list[dict]:
    model = _model()
    crops = real_dice.load()
    if model is not None:
        crops = evaluate.real_dice_held_out(model, crops)
    rows = []
    for group, members in real_dice.by_group(crops).items():
        images = [c.image() for c in members]
        truth = [c.pips for c in members]
        classical = np.mean([pips_classical.count_pips(im).pips == t
                             for im, t in zip(images, truth, strict=True)])
        row = {"group": group, "crops": len(members), "classical": float(classical)}
        if model is not None:
            report = evaluate.evaluate(model, images, {"pips": [str(t) for t in truth]})[0]
            row["onnx pips"] = report.accuracy
        else:
            row["onnx pips"] = "no models/pips.onnx"
        rows.append(row)
    if model is not None:
        batch = [c.image() for c in crops[:BATCH]]
        timing = evaluate.latency(model, batch)
        rows.append({"group": f"latency, batch of {BATCH}, 1 thread", "crops": BATCH,
                     "classical": "", "onnx pips": f"median {timing['median_ms']:.2f} ms, "
                                                   f"p95 {timing['p95_ms']:.2f} ms"})
    return rows
