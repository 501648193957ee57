"""Measuring an exported model with onnxruntime only: accuracy per class, the confusion
matrix, accuracy on the real dice per source group, and latency per batch.

``python -m vision.train.evaluate MODEL.onnx [--within SPLIT | --beyond SPLIT]`` reads the
real crops MODEL was not trained on, all of them or only those inside (``--within``) or
outside (``--beyond``) another adaptation split (``GROUP:FRACTION,...`` as
``vision.train --adapt``): a dev set carved out of a larger split (``--within``) or the
crops no model of a comparison was trained on (``--beyond``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision import real_dice
from vision.classifier import Classifier, ModelError


@dataclass(frozen=True)
class HeadReport:
    head: str
    labels: tuple[str, ...]
    confusion: np.ndarray  # rows: true class, columns: predicted class

    @property
    def count(self) -> int:
        return int(self.confusion.sum())

    @property
    def accuracy(self) -> float:
        return float(np.trace(self.confusion) / max(1, self.count))

    def per_class(self) -> dict[str, float | None]:
        totals = self.confusion.sum(axis=1)
        return {label: (float(self.confusion[i, i] / totals[i]) if totals[i] else None)
                for i, label in enumerate(self.labels)}

    def markdown(self, title: str) -> str:
        present = [i for i in range(len(self.labels))
                   if self.confusion[i].sum() or self.confusion[:, i].sum()]
        names = [self.labels[i] for i in present]
        lines = [f"**{title}**: accuracy {self.accuracy:.3f} on {self.count} crops", "",
                 "| true \\ predicted | " + " | ".join(names) + " | accuracy |",
                 "|---" * (len(names) + 2) + "|"]
        per_class = self.per_class()
        for i in present:
            acc = per_class[self.labels[i]]
            cells = " | ".join(str(int(self.confusion[i, j])) for j in present)
            lines.append(f"| {self.labels[i]} | {cells} | "
                         f"{'-' if acc is None else f'{acc:.3f}'} |")
        return "\n".join(lines) + "\n"


def confusion(labels: Sequence[str], truth: Sequence[str | None],
              predicted: Sequence[str]) -> np.ndarray:
    """Confusion counts over the crops whose truth is known."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), np.int64)
    for t, p in zip(truth, predicted, strict=True):
        if t is not None:
            matrix[index[t], index[p]] += 1
    return matrix


def evaluate(model: Classifier, crops: Sequence[np.ndarray],
             labels: dict[str, Sequence[str | None]], batch: int = 256,
             turns: int = 1) -> list[HeadReport]:
    """One HeadReport per head of ``model`` that ``labels`` has; ``turns``: each crop read
    once or from its four quarter turns (``Classifier.predict``)."""
    predictions = []
    for start in range(0, len(crops), batch):
        predictions += model.predict(crops[start:start + batch], top_k=1, turns=turns)
    return [HeadReport(head, classes,
                       confusion(classes, labels[head], [p[head].label for p in predictions]))
            for head, classes in model.heads.items() if head in labels]


def real_dice_held_out(model: Classifier, crops: Sequence[real_dice.Crop]) -> list[real_dice.Crop]:
    """The real crops ``model`` was not trained on (its metadata names those it was)."""
    return real_dice.trained_split(list(crops), model.real_dice_training)[1]


def real_dice_reports(model: Classifier, crops: Sequence[real_dice.Crop],
                      head: str = "pips", turns: int = 1) -> dict[str, HeadReport]:
    """The pip head on the real dice, one report per source group (``turns``: as
    ``evaluate``)."""
    reports = {}
    for group, members in real_dice.by_group(list(crops)).items():
        images = [c.image() for c in members]
        truth = {head: [str(c.pips) for c in members]}
        reports[group] = evaluate(model, images, truth, turns=turns)[0]
    return reports


def latency(model: Classifier, crops: Sequence[np.ndarray], runs: int = 200,
            warmup: int = 10) -> dict[str, float]:
    """Milliseconds per ``predict`` of the whole batch: median and 95th percentile."""
    for _ in range(warmup):
        model.predict(crops)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        model.predict(crops)
        times.append((time.perf_counter() - start) * 1000)
    return {"median_ms": float(np.median(times)), "p95_ms": float(np.percentile(times, 95))}


def real_dice_subset(model: Classifier, crops: Sequence[real_dice.Crop],
                     within: str | None = None, beyond: str | None = None
                     ) -> list[real_dice.Crop]:
    """The real crops ``model`` was not trained on, only those in the adaptation split
    ``within`` and not in ``beyond`` (``GROUP:FRACTION,...``, ``real_dice.parse_adapt``)."""
    def inside(split: str) -> set[real_dice.Crop]:
        return set(real_dice.trained_split(list(crops), real_dice.parse_adapt(split))[0])

    held = real_dice_held_out(model, crops)
    if within:
        chosen = inside(within)
        held = [c for c in held if c in chosen]
    if beyond:
        chosen = inside(beyond)
        held = [c for c in held if c not in chosen]
    return held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.train.evaluate",
                                     description=__doc__.split("\n\n")[1])
    parser.add_argument("model", help="an .onnx file with a pips head")
    parser.add_argument("--within", metavar="GROUP:FRACTION[,...]",
                        help="only the crops of this adaptation split")
    parser.add_argument("--beyond", metavar="GROUP:FRACTION[,...]",
                        help="only the crops outside this adaptation split")
    parser.add_argument("--turns", type=int, choices=(1, 4), default=1,
                        help="read each crop once or from its four quarter turns")
    args = parser.parse_args(argv)
    try:
        model = Classifier(args.model)
        if "pips" not in model.heads:
            raise ValueError(f"model {args.model} has no pips head")
        crops = real_dice_subset(model, real_dice.load(), args.within, args.beyond)
        if not crops:
            raise ValueError("no real crops left to read")
        reports = real_dice_reports(model, crops, turns=args.turns)
    except (ModelError, real_dice.RealDiceMissing, ValueError) as err:
        print(f"python -m vision.train.evaluate: {err}", file=sys.stderr)
        return 2
    total = sum(r.count for r in reports.values())
    right = sum(r.accuracy * r.count for r in reports.values())
    print(f"{args.model}: {right / total:.3f} of {total} real crops "
          f"({', '.join(f'{g} {r.accuracy:.3f} of {r.count}' for g, r in reports.items())}; "
          f"turns {args.turns})\n")
    for group, report in reports.items():
        print(report.markdown(group))
    return 0


if __name__ == "__main__":
    sys.exit(main())
