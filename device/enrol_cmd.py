"""``tableref enrol --game G --out profile.json``: adapt the crop classifier to this set.

Asks (on stderr) to show each piece and face ``--captures`` times: each symbol of each
player's cubes (e-SOLO-e, tic-tac-toe), each number of each die (Neunfeld, Tyr), each
stone on both sides and a white stone (Cubes: 41 faces). Each
capture is the ``--box`` of a frame from ``--source`` (a camera: hold the face up in the
box and press Enter when stdin is a terminal); the default source is the synthetic
renderer, which shows each face when asked (``--variant other-set``: a set unlike the
training renders, where the renderer has it).

Cubes' stones are shown on a field of the board (``--field``, default the field 4,4) and
cut from the frame exactly as the Cubes reader cuts a field for the stone model
(``calibration.enrol.stone_field_crops``: the board's registered corners, ``--board``, or
the board found in the frame; ``--camera-calibration`` and ``--colour`` as
``tableref observe`` takes them), not by ``--box``. Then it reports the cross-validated accuracy
on the captures and asks for more of each weak class, and writes the profile
(calibration/enrol.py; docs/calibration.md). One JSON summary line on stdout.

Exit status: 0 written; 1 when the source ended or failed mid-way; 2 for bad arguments, a
game without anything to enrol, or a model that cannot be used (missing, no embedding).
"""

from __future__ import annotations

import argparse

SOURCES = ("synthetic", "picamera2", "usb", "video", "folder")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help="the game whose set is on the table")
    parser.add_argument("--out", required=True, metavar="FILE", help="profile file to write")
    parser.add_argument("--captures", type=int, default=5,
                        help="captures of each face (default 5)")
    parser.add_argument("--more", type=int, default=3,
                        help="extra captures of each face of a weak class (default 3)")
    parser.add_argument("--source", choices=SOURCES, default="synthetic",
                        help="where the captures come from (default: the synthetic renderer)")
    parser.add_argument("--path", help="--source folder or video: where")
    parser.add_argument("--device", default=0, help="--source usb/picamera2: which camera")
    parser.add_argument("--box", metavar="x,y,w,h",
                        help="the part of the frame the piece is shown in (default: the "
                             "centre square, a third of the frame's height)")
    parser.add_argument("--field", help="Cubes: the field the stones are shown on "
                                        "(row,column from the north-west corner; default "
                                        "4,4)")
    parser.add_argument("--board", metavar="FILE",
                        help="Cubes: the board's registration (tableref calibrate board); "
                             "default: the board found in each frame")
    parser.add_argument("--camera-calibration", metavar="FILE",
                        help="Cubes: the camera's intrinsics (tableref calibrate camera)")
    parser.add_argument("--colour", metavar="FILE",
                        help="Cubes: the white balance (tableref calibrate colour)")
    parser.add_argument("--variant", help="--source synthetic: the renderer's set variant "
                                          "(e.g. other-set)")
    parser.add_argument("--seed", type=int, default=1, help="--source synthetic: seed")
    parser.add_argument("--method",
                        choices=("auto", "prototypes", "linear", "nearest", "finetune"),
                        default="auto", help="how to adapt (default auto: the best "
                        "cross-validated of prototypes, a new last layer and finetune, "
                        "the model's last convolution retrained with a new head)")
    parser.add_argument("--turns", type=int, choices=(1, 4), default=4,
                        help="read each crop from its four quarter turns (default) or as "
                             "it is (1: a quarter of the model runs)")
    parser.add_argument("--models-dir", metavar="DIR",
                        help="where the models lie (default: the project's models/)")


def _box(text: str | None, image):
    h, w = image.shape[:2]
    if text is None:
        side = h // 3
        return (w - side) // 2, (h - side) // 2, side, side
    x, y, bw, bh = (int(v) for v in text.split(","))
    if bw <= 0 or bh <= 0 or x < 0 or y < 0 or x + bw > w or y + bh > h:
        raise ValueError(f"--box {text} is not inside the {w}x{h} frame")
    return x, y, bw, bh


FIND_FRAMES = 10  # frames read before a Cubes capture gives up finding the board


class _Camera:
    """Captures from a frame source: the box of the frame taken when the user is ready
    (Cubes: the field, as the reader cuts it)."""

    def __init__(self, args, say, calibration: dict | None = None):
        import sys

        from device.sources import SourceConfig, open_source

        device = int(args.device) if str(args.device).isdigit() else args.device
        self.source = open_source(SourceConfig(kind=args.source, path=args.path,
                                               device=device), on_error=say)
        self.box = args.box
        self.field = args.field
        self.calibration = calibration
        self.interactive = sys.stdin.isatty()

    def __enter__(self):
        self.source.open()
        return self

    def __exit__(self, *exc):
        self.source.close()

    def __call__(self, face, attempt):
        if self.interactive:
            input("  press Enter when it is in the box ")
        if self.calibration is not None:
            return self._field()
        frame = self.source.read()
        if frame is None:
            return None
        x, y, w, h = _box(self.box, frame.image)
        return frame.image[y:y + h, x:x + w].copy()

    def _field(self):
        """The field's stone crop from the next frame that shows the board (the
        registered corners, else the board found), white-balanced as vision reads it."""
        import numpy as np

        from calibration.enrol import EnrolError, stone_field_crops
        from vision.board import BoardFix, find_board, geometry

        corners = self.calibration.get("board")
        colour = self.calibration.get("colour")
        for _ in range(FIND_FRAMES):
            frame = self.source.read()
            if frame is None:
                return None
            image = frame.image if colour is None else colour.apply(frame.image)
            if corners is not None:
                c = np.asarray(corners, np.float64).reshape(4, 2)
                fix = BoardFix(c, c.copy())
            else:
                fix = find_board(image, geometry("cubes"))
            if fix is not None:
                try:
                    return stone_field_crops(image, fix, [self.field], self.calibration)[0]
                except EnrolError:  # a board found wrongly: the next frame
                    if corners is not None:
                        raise
        raise EnrolError(f"no Cubes board seen in {FIND_FRAMES} frames: show the whole board, "
                         "or register it (tableref calibrate board) and give --board")


def run(args: argparse.Namespace) -> int:
    import contextlib
    import json
    import sys

    from calibration.enrol import FIELD, EnrolError, enrol, field_centres, plan, weak_classes
    from calibration.files import CalibrationError, for_vision, save
    from device.sources import SourceError
    from vision.classifier import Classifier, ModelError

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    def fail(status: int, message: str) -> int:
        say(f"tableref enrol: {message}")
        return status

    if args.captures < 2 or args.more < 0:
        return fail(2, "--captures must be at least 2 (cross-validation leaves one out), "
                       "--more at least 0")
    try:
        model = Classifier.load(plan(args.game).model, models_dir=args.models_dir)
        model.embed([])  # refuses a model without an embedding output
        p = plan(args.game, model.heads)
    except EnrolError as e:
        return fail(2, str(e))
    except ModelError as e:
        return fail(2, str(e))
    fielded = p.crop == "field"
    given = [f"--{k.replace('_', '-')}" for k in ("field", "board", "camera_calibration",
                                                  "colour") if getattr(args, k)]
    if given and not fielded:
        return fail(2, f"{given[0]} is for Cubes' stones only")
    if fielded and args.box:
        return fail(2, "--box: Cubes' stones are cut from their field (--field), not a box")
    args.field = args.field or FIELD
    try:
        calibration = for_vision(camera=args.camera_calibration, board=args.board,
                                 colour=args.colour, game=args.game) if fielded else None
        field_centres([args.field])
    except (CalibrationError, EnrolError) as e:
        return fail(2, str(e))
    try:
        if args.source == "synthetic":
            from calibration.synthetic import RenderedCrops

            capture, context = RenderedCrops(p.crop, args.seed, args.variant), \
                contextlib.nullcontext()
        else:
            capture = context = _Camera(args, say, calibration)
        with context:
            profile, session = enrol(args.game, capture, captures=args.captures,
                                     more=args.more, classifier=model,
                                     method=args.method, turns=args.turns, say=say)
    except SourceError as e:
        return fail(1, str(e))
    except (EnrolError, ValueError) as e:
        return fail(1, str(e))
    try:
        save(profile, args.out)
    except OSError as e:
        return fail(2, f"{args.out}: cannot write it ({e.strerror})")
    cv = profile.models[p.model]["cross_validation"]
    weak = weak_classes(cv)
    print(json.dumps({"written": args.out, "model": p.model, "head": p.head,
                      "method": profile.models[p.model]["method"],
                      "turns": profile.models[p.model]["turns"],
                      "captures": cv["captures"], "cross_validated_accuracy": cv["accuracy"],
                      "per_class": cv["per_class"], "methods": cv["methods"],
                      "beat_model": cv.get("beat_model"), "weak": weak}), flush=True)
    return 0
