"""``tableref faces``: read one piece per image with a crop model, print JSONL.

Each IMAGE is a photo of one die, cube face or stone that roughly fills it (from above or
at a slant). The central square of the image (its shorter side) goes to the model of
``--kind``:

- ``pips``: models/pips.onnx; the label is the die's top face as a number (1..9), read
  from the crop's four quarter turns (a top lies any way round; held-out real dice
  2.7..2.9 points better than one reading: ``vision.read_miwin.TOP_TURNS``).
- ``symbol``: models/symbol.onnx; the label is the cube face's symbol (sakura, fuji,
  geisha or blank). The model was trained on faces cut square to their corners, so a
  photo at a slant that shows side faces too reads worse.
- ``stone``: models/stone.onnx; the label is the stone's grid token as the observation
  contract writes it (``W``, or colour letter and digit, upper case active: ``B4``,
  ``o6``; ``.`` where the model sees no stone). The model was trained on the Cubes
  reader's crop: a square 1.33 stone sides wide, the board's north (the digit's top) up.

One line per readable image: ``{"file": ..., "label": ..., "confidence": ...}`` (the
probability of the label; for a coloured stone the product of its three heads').

Exit status: 0 when every image was read; 1 when some image could not be (each reported
on stderr in one line naming the file and the problem); 2 when the model is missing or
unusable.
"""

from __future__ import annotations

import argparse

KINDS = ("pips", "symbol", "stone")
HEADS = {"pips": ("pips",), "symbol": ("symbol",), "stone": ("kind", "digit", "side")}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", required=True, choices=KINDS, help="what the images show")
    parser.add_argument("--models-dir", metavar="DIR",
                        help="where KIND.onnx lies (default: the project's models/)")
    parser.add_argument("images", nargs="+", metavar="IMAGE",
                        help="photos of one piece each, the piece roughly filling it")


def _centre_square(image):
    h, w = image.shape[:2]
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    return image[top:top + side, left:left + side]


def _read(path: str):
    import os

    import cv2

    if not os.path.exists(path):
        raise ValueError("missing")
    image = cv2.imread(path, cv2.IMREAD_COLOR) if os.path.isfile(path) else None
    if image is None or image.size == 0:
        raise ValueError("not a readable image")
    if min(image.shape[:2]) < 8:
        raise ValueError(f"too small ({image.shape[1]}x{image.shape[0]} pixels)")
    return _centre_square(image)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from vision.classifier import Classifier, ModelError, stone_token
    from vision.read_miwin import TOP_TURNS

    try:
        model = Classifier.load(args.kind, models_dir=args.models_dir)
    except ModelError as e:
        print(f"tableref faces: {e}", file=sys.stderr)
        return 2
    missing = [h for h in HEADS[args.kind] if h not in model.heads]
    if missing:
        print(f"tableref faces: model file {model.path} has no {', '.join(missing)} head "
              f"(it has {', '.join(model.heads)})", file=sys.stderr)
        return 2
    status = 0
    for path in args.images:
        try:
            crop = _read(path)
        except ValueError as e:
            print(f"tableref faces: {path}: {e}", file=sys.stderr)
            status = 1
            continue
        prediction = model.predict([crop], top_k=1,
                                   turns=TOP_TURNS if args.kind == "pips" else 1)[0]
        if args.kind == "stone":
            label, confidence = stone_token(prediction)
        else:
            best = prediction[args.kind]
            label = int(best.label) if args.kind == "pips" else best.label
            confidence = best.probability
        print(json.dumps({"file": path, "label": label, "confidence": round(confidence, 4)}),
              flush=True)
    return status
