"""``tableref enrol --game G --out profile.json``: adapt the crop classifier to this set.

Asks (on stderr) to show each piece and face ``--captures`` times: each symbol of each
player's cubes (e-SOLO-e, tic-tac-toe), each number of each die (Neunfeld, Tyr; with
``--dice d6``, a set of ordinary dice: each of 1..6 on any die), each
stone on both sides and a white stone (Cubes: 41 faces), each on the game's board, and
cuts it from a frame of ``--source`` (a camera: press Enter when it lies there, where
stdin is a terminal) exactly as the game's reader cuts it for its model
(``calibration.enrol.board_crop``): a cube or a stone on a field (``--field``, default
the middle one), a die wherever the reader finds it (Tyr: on the board). The board is
the registered one (``--board``) or the one found in the frame; ``--camera-calibration``
and ``--colour`` as ``tableref observe`` takes them. The default source is the synthetic
renderer, a table whose frames show the faces asked for (the games' own set only: the
renderer draws no other set in whole frames). Then it reports the cross-validated
accuracy on the captures and asks for more of each weak class, and writes the profile
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
    parser.add_argument("--field", help="Cubes, e-SOLO-e, tic-tac-toe: the field the "
                                        "pieces are shown on (Cubes: row,column from the "
                                        "north-west corner, default 4,4; e-SOLO-e: 0..4 "
                                        "west to east, default 2; tic-tac-toe: 0..8, "
                                        "default 4)")
    parser.add_argument("--board", metavar="FILE",
                        help="the board's registration (tableref calibrate board); "
                             "default: the board found in each frame")
    parser.add_argument("--camera-calibration", metavar="FILE",
                        help="the camera's intrinsics (tableref calibrate camera)")
    parser.add_argument("--colour", metavar="FILE",
                        help="the colour file (tableref calibrate colour): its white balance and "
                             "exposure gain applied to every frame before the crops are cut")
    parser.add_argument("--variant", help="--source synthetic: the renderer's set variant "
                                          "(whole frames: default only)")
    parser.add_argument("--seed", type=int, default=1, help="--source synthetic: seed")
    parser.add_argument("--method",
                        choices=("auto", "prototypes", "linear", "nearest", "finetune"),
                        default="auto", help="how to adapt (default auto: the best "
                        "cross-validated of prototypes, a new last layer and finetune, "
                        "the model's last convolution retrained with a new head)")
    parser.add_argument("--turns", type=int, choices=(1, 4), default=None,
                        help="read each crop from its four quarter turns or as it is (1: a "
                             "quarter of the model runs); default 4, and 1 for Cubes' "
                             "stones, which the reader turns upright")
    parser.add_argument("--dice", choices=("miwin", "d6"), default="miwin",
                        help="Neunfeld, Tyr: the set's dice: its Miwin dice (default: each "
                             "number of each die), or d6, ordinary dice (1..6 on any die)")
    parser.add_argument("--models-dir", metavar="DIR",
                        help="where the models lie (default: the project's models/)")


FIND_FRAMES = 10  # frames read before a capture gives up seeing the face


class _Camera:
    """Captures from a frame source: the face cut as the game's reader cuts it from the
    next frame where it sees it, when the user is ready."""

    def __init__(self, args, say, plan, calibration: dict):
        import sys

        from device.sources import SourceConfig, open_source

        device = int(args.device) if str(args.device).isdigit() else args.device
        self.source = open_source(SourceConfig(kind=args.source, path=args.path,
                                               device=device), on_error=say)
        self.game, self.plan, self.field = args.game, plan, args.field
        self.calibration = calibration
        self.interactive = sys.stdin.isatty()

    def __enter__(self):
        self.source.open()
        return self

    def __exit__(self, *exc):
        self.source.close()

    def __call__(self, face, attempt):
        """``face`` cut by the reader from the next of ``FIND_FRAMES`` frames that shows
        it, on the registered corners (else the board found), white-balanced as vision
        reads it; None where the source ended."""
        import numpy as np

        from calibration.enrol import EnrolError, board_crop
        from vision.board import BoardFix, find_board, geometry

        if self.interactive:
            input(f"  press Enter when it lies {self._where()} ")
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
                fix = find_board(image, geometry(self.game))
            if fix is None:
                continue
            try:
                crop = board_crop(self.plan, self.game, face, image, fix, self.field,
                                  self.calibration)
            except EnrolError:  # a board found wrongly: the next frame
                if corners is not None:
                    raise
                continue
            if crop is not None:
                return crop
        advice = ("show it there in full view" if corners is not None else
                  "show the whole board, or register it (tableref calibrate board) and "
                  "give --board")
        raise EnrolError(f"{face.prompt} not seen {self._where()} in {FIND_FRAMES} frames: "
                         f"{advice}")

    def _where(self) -> str:
        return f"on the field {self.field}" if self.field else "where the game's dice lie"


def run(args: argparse.Namespace) -> int:
    import contextlib
    import json
    import sys

    from calibration.enrol import FIELDS, EnrolError, enrol, field_centres, plan, weak_classes
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
        model = Classifier.load(plan(args.game, dice=args.dice).model,
                                models_dir=args.models_dir)
        model.embed([])  # refuses a model without an embedding output
        p = plan(args.game, model.heads, args.dice)
    except EnrolError as e:
        return fail(2, str(e))
    except ModelError as e:
        return fail(2, str(e))
    if args.field and args.game not in FIELDS:
        return fail(2, "--field: Miwin dice are found wherever they lie on the table")
    args.field = args.field or FIELDS.get(args.game)
    try:
        calibration = for_vision(camera=args.camera_calibration, board=args.board,
                                 colour=args.colour, game=args.game)
        if args.field:
            field_centres([args.field], args.game)
    except (CalibrationError, EnrolError) as e:
        return fail(2, str(e))
    try:
        if args.source == "synthetic":
            from calibration.synthetic import RenderedCrops

            capture, context = RenderedCrops(p.crop, args.seed, args.variant, args.game), \
                contextlib.nullcontext()
        else:
            capture = context = _Camera(args, say, p, calibration)
        with context:
            profile, session = enrol(args.game, capture, captures=args.captures,
                                     more=args.more, classifier=model,
                                     method=args.method, turns=args.turns,
                                     dice=args.dice, say=say)
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
