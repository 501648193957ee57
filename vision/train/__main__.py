"""Retrain a crop classifier from the renderer's crops: ``python -m vision.train NAME``.

Writes models/NAME.onnx and a report (held-out renders, real dice per source group for the
pip model, size, latency on one thread) to out/train/NAME.md. ``python -m vision.train
all`` retrains every model of the registry, one after the other, with the same options.
See docs/training.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

from vision.train.registry import MODELS
from vision.train.sources import CACHE, REPO, TEST_SEED_OFFSET


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__)
    parser.add_argument("name", choices=[*sorted(MODELS), "all"],
                        help="the model to train, or all of them")
    parser.add_argument("--train-size", type=int, help="rendered training crops")
    parser.add_argument("--test-size", type=int, help="held-out rendered crops")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--source", metavar="MODULE:FUNCTION",
                        help="the crops to train on instead of the registry's source (a "
                             "trial: e.g. vision.train.sources:cube_faces_and_cuts for "
                             "symbol, models/symbol.md)")
    parser.add_argument("--seed", type=int,
                        help="the crops' and the network's seed (default: the registry's, "
                             "which the shipped file was trained with)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    parser.add_argument("--adapt", metavar="GROUP:FRACTION[,GROUP:FRACTION]",
                        help="also train on this fraction of each named real-dice source "
                             "group (pips default in the registry; 'none' for renders "
                             "only); those crops are left out of the report")
    parser.add_argument("--adapt-repeat", type=int,
                        help="how often each adaptation crop appears per epoch (default 8)")
    parser.add_argument("--int8", action="store_true",
                        help="try int8 quantisation, static then dynamic; one is kept only "
                             "if no accuracy falls by more than a point and it is not "
                             "slower")
    parser.add_argument("--models-dir", type=Path, default=REPO / "models")
    parser.add_argument("--report", type=Path,
                        help="default out/train/NAME.md (always that with 'all')")
    parser.add_argument("--cache", type=Path, default=CACHE,
                        help="rendered crops are kept here for the next run "
                             "(default out/cache; --no-cache to render afresh)")
    parser.add_argument("--no-cache", dest="cache", action="store_const", const=None)
    args = parser.parse_args(argv)
    if args.source and args.name == "all":
        parser.error("--source is one model's: name the model, not all")
    names = list(MODELS) if args.name == "all" else [args.name]
    times = {}
    for name in names:
        start = time.perf_counter()
        one = argparse.Namespace(**{
            **vars(args), "name": name,
            "report": None if args.name == "all" else args.report,
            # with all, --adapt is for the models that have a real-dice head
            "adapt": args.adapt if args.name != "all" or MODELS[name].real_dice_head else None,
        })
        try:
            _run(one)
        except ModuleNotFoundError as err:  # torch or onnx: the train extra
            print(f"python -m vision.train: {name}: {err} (training needs the train extra: "
                  "pip install -e '.[train]')", file=sys.stderr)
            return 2
        except (LookupError, OSError, ValueError) as err:
            print(f"python -m vision.train: {name}: {err}", file=sys.stderr)
            return 2
        times[name] = time.perf_counter() - start
    if len(names) > 1:
        print("; ".join(f"{n} {t:.0f} s" for n, t in times.items())
              + f"; all {sum(times.values()):.0f} s")
    return 0


def _spec(args):
    """The registry's spec of ``args.name`` with the command line's overrides."""
    from vision.train.registry import get

    spec = get(args.name)
    return replace(spec, train_size=args.train_size or spec.train_size,
                   test_size=args.test_size or spec.test_size, epochs=args.epochs or spec.epochs,
                   source=args.source or spec.source,
                   seed=spec.seed if args.seed is None else args.seed)


def _run(args) -> int:
    spec = _spec(args)
    spec.crop_source()  # a source that is not there: said before anything is loaded

    from vision import real_dice
    from vision.classifier import Classifier
    from vision.train import evaluate, sources, trainer
    adapt = spec.adapt if args.adapt is None else args.adapt
    adapt = None if adapt in ("", "none") else adapt
    repeat = args.adapt_repeat or spec.adapt_repeat
    start = time.perf_counter()
    crops, labels = sources.cached(spec, spec.train_size, spec.seed, args.cache)
    data = trainer.CropSet.build(spec, crops, labels)
    test_crops, test_labels = sources.cached(
        spec, spec.test_size, spec.seed + TEST_SEED_OFFSET, args.cache)
    render_seconds = time.perf_counter() - start
    print(f"rendered {spec.train_size} + {spec.test_size} crops in {render_seconds:.0f} s")

    real, enrol, adapted = [], [], None
    if spec.real_dice_head:
        real = real_dice.load()
        if adapt:
            adapted = real_dice.parse_adapt(adapt)
            enrol, real = real_dice.trained_split(real, adapted)
            labels = {h: [None] * len(enrol) for h in spec.heads}
            labels[spec.real_dice_head] = [str(c.pips) for c in enrol]
            extra = trainer.CropSet.build(spec, [c.image() for c in enrol], labels)
            for _ in range(repeat):
                data = data.concat(extra)
    elif adapt:
        raise ValueError(f"model {spec.name!r} has no real-dice head to adapt")

    model, log = trainer.train(spec, data, seed=spec.seed, threads=args.threads)
    path = trainer.export(model, spec, args.models_dir / f"{spec.name}.onnx", adapted)

    def measure(candidate: Path) -> tuple[Classifier, list, dict]:
        clf = Classifier(candidate)
        renders = evaluate.evaluate(clf, test_crops, test_labels)
        reals = evaluate.real_dice_reports(clf, real, spec.real_dice_head) if real else {}
        return clf, renders, reals

    clf, renders, reals = measure(path)
    quant_note = "not tried"
    if args.int8:
        fp32_ms = evaluate.latency(clf, test_crops[:25])["median_ms"]
        notes, kept = [], None
        for mode in trainer.QUANTISATIONS:
            int8 = trainer.quantise(spec, path, path.with_suffix(f".{mode}.onnx"), data,
                                    real_dice_training=adapted, mode=mode)
            q_clf, q_renders, q_reals = measure(int8)
            drop = max([a.accuracy - b.accuracy for a, b in zip(renders, q_renders, strict=True)]
                       + [reals[g].accuracy - q_reals[g].accuracy for g in reals])
            ms = evaluate.latency(q_clf, test_crops[:25])["median_ms"]
            notes.append(f"int8 {mode}: largest accuracy drop {drop:+.3f}, "
                         f"{int8.stat().st_size / 1024:.0f} KiB, median {ms:.2f} ms")
            if drop <= 0.01 and ms <= 1.1 * fp32_ms and kept is None:
                kept = int8
            else:
                int8.unlink()
        if kept is not None:
            kept.replace(path)
            clf, renders, reals = measure(path)
        quant_note = "; ".join([f"fp32 median {fp32_ms:.2f} ms", *notes,
                                f"kept: {'int8 ' + kept.suffixes[0][1:] if kept else 'fp32'}"])
    timing = evaluate.latency(clf, test_crops[:25])
    total = time.perf_counter() - start

    lines = [
        f"# {spec.name}: training report", "",
        f"- command: `python -m vision.train {' '.join(sys.argv[1:])}`",
        f"- data: {spec.train_size} rendered crops (seed {spec.seed}), held out "
        f"{spec.test_size} (seed {spec.seed + TEST_SEED_OFFSET})",
        f"- real-dice adaptation: {len(enrol)} crops of {adapt} x{repeat}"
        if enrol else "- real-dice adaptation: none (no real crop was trained on)",
        f"- input {spec.input.size}x{spec.input.size}x{spec.input.channels}, width "
        f"{spec.width}, {spec.epochs} epochs, {log.steps} steps",
        f"- time: rendering {render_seconds:.0f} s, training {log.seconds:.0f} s, "
        f"all {total:.0f} s",
        f"- file: {path.name}, {path.stat().st_size / 1024:.0f} KiB; {quant_note}",
        f"- latency, batch of 25, 1 thread: median {timing['median_ms']:.2f} ms, "
        f"p95 {timing['p95_ms']:.2f} ms", "",
        "## Held-out renders", "",
        *[r.markdown(r.head) for r in renders],
    ]
    if reals:
        lines += ["## Real dice (crops not trained on)", "",
                  *[r.markdown(f"{group}") for group, r in reals.items()]]
    report = "\n".join(lines) + "\n"
    out = args.report or REPO / "out" / "train" / f"{spec.name}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(report)
    print(f"wrote {path} and {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
