"""``tableref calibrate camera|board|colour``: set up a table (docs/calibration.md).

    tableref calibrate camera --print board.pdf          # the ChArUco board to print
    tableref calibrate camera IMAGE... --out camera.json # or --source usb|picamera2|...
    tableref calibrate board --game G IMAGE... --out board.json [--camera camera.json]
    tableref calibrate board --game G --corners "x,y x,y x,y x,y" --out board.json
    tableref calibrate colour --board board.json IMAGE... --piece "player 0=0" --out colour.json

Frames come from IMAGE files or from a frame source (``--source`` with ``--path`` or
``--device``, see device/sources.py). Progress and guidance go to stderr, the summary
(one JSON line) to stdout. Exit status: 0 written; 1 when the frames did not give a
calibration (the reason and what to do on stderr); 2 for bad arguments or unusable input
files. A board registration refused prints ``{"refused": REASON}`` to stdout
(``calibration.registration.Refusal``: ``not found``, ``frames disagree``, ``blurred``,
``fit report``, ``off the lines``; 2 with ``corners``, ``turn``, ``no click``).
"""

from __future__ import annotations

import argparse

SOURCES = ("picamera2", "usb", "video", "folder")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", metavar="WHAT", required=True)

    cam = sub.add_parser("camera", help="camera intrinsics from a printed ChArUco board",
                         description="Print the ChArUco board (--print), then photograph it "
                                     "from many sides and calibrate.")
    cam.add_argument("--print", dest="print_to", metavar="FILE",
                     help="write the board to print (.png at 12 px/mm, or .pdf: A4, true "
                          "size at 100 %%) and stop")
    _frame_args(cam, "photos of the printed board")
    cam.add_argument("--views", type=int, default=15,
                     help="live source: views to collect (default 15)")
    cam.add_argument("--out", metavar="FILE", help="camera file to write (JSON)")

    board = sub.add_parser("board", help="where the game board lies in the image",
                           description="Register the board: automatically from the first "
                                       "frames, or from four corners given or clicked.")
    board.add_argument("--game", required=True, help="the game whose board it is")
    _frame_args(board, "frames of the empty board (the first few are used)")
    board.add_argument("--frames", type=int, default=5,
                       help="frames to average (default 5)")
    board.add_argument("--corners", metavar="'x,y x,y x,y x,y'",
                       help="the board top's corners nw ne se sw in pixels (north away from "
                            "the camera): manual registration")
    board.add_argument("--click", metavar="FRAME",
                       help="click the four corners on this saved frame (needs a display)")
    board.add_argument("--turn", type=int, default=0, choices=(0, 1, 2, 3),
                       help="quarter turns to rename the found corners by (a square board "
                            "whose players have its north at another side than the camera's "
                            "far side)")
    board.add_argument("--camera", metavar="FILE", help="camera file: adds the rigid check")
    board.add_argument("--out", metavar="FILE", required=True, help="board file to write")

    col = sub.add_parser("colour", help="white balance, exposure and piece colours",
                         description="Measure white balance and exposure on the board top "
                                     "(or a white sheet) and the players' piece colours. "
                                     "Given to tableref observe, camera or run (--colour), "
                                     "the gains and the exposure gain are applied to every "
                                     "frame before it is read, and the readers decide their "
                                     "pieces' colours from the pieces measured under the "
                                     "names they use (e-SOLO-e: 'player 0', natural wood, "
                                     "and 'player 1', green; other names are stored, not "
                                     "used).")
    col.add_argument("--board", metavar="FILE", help="board file (tableref calibrate board; "
                     "needed for --piece and for a white board top)")
    _frame_args(col, "frames of the board, pieces standing on the fields named by --piece")
    col.add_argument("--frames", type=int, default=3,
                     help="frames to use (default 3: the first 3 IMAGEs, or of the source)")
    col.add_argument("--white", metavar="x,y,w,h",
                     help="measure white on this rectangle of the frame (a white sheet) "
                          "instead of the board top")
    col.add_argument("--piece", action="append", default=[], metavar="NAME=FIELD",
                     help="a piece to measure and the field it stands on (repeat), e.g. "
                          "'player 0=0' 'player 1=4' (the names e-SOLO-e's reader uses; "
                          "Cubes': a stone of each colour, 'black=4,3' 'blue=4,4' ...)")
    col.add_argument("--height", type=float, default=None,
                     help="height of the pieces' tops above the board, mm (default: 18, "
                          "an e-SOLO-e cube; Cubes 6, a stone; Tyr and Neunfeld 22, a Miwin "
                          "die)")
    col.add_argument("--camera", metavar="FILE", help="camera file (better piece crops)")
    col.add_argument("--out", metavar="FILE", required=True, help="colour file to write")


def _frame_args(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("images", nargs="*", metavar="IMAGE", help=what)
    parser.add_argument("--source", choices=SOURCES, help="read frames from a frame source "
                        "instead of IMAGE files")
    parser.add_argument("--path", help="--source folder or video: where")
    parser.add_argument("--device", default=0, help="--source usb/picamera2: which camera")


class _Fail(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _say(message: str) -> None:
    import sys

    print(message, file=sys.stderr, flush=True)


def _frames(args):
    """(name, BGR image) from the IMAGE files or the frame source (closed when the
    generator is: use it under ``contextlib.closing`` when not reading it to the end)."""
    import os

    import cv2

    if args.images and args.source:
        raise _Fail(2, "give IMAGE files or --source, not both")
    if args.images:
        for path in args.images:
            image = cv2.imread(path, cv2.IMREAD_COLOR) if os.path.isfile(path) else None
            if image is None:
                _say(f"{path}: {'missing' if not os.path.exists(path) else 'not a readable image'}"
                     ", skipped")
                continue
            yield path, image
        return
    if not args.source:
        raise _Fail(2, "no frames: give IMAGE files or --source")
    from device.sources import SourceConfig, SourceError, open_source

    device = int(args.device) if str(args.device).isdigit() else args.device
    try:
        with open_source(SourceConfig(kind=args.source, path=args.path, device=device),
                         on_error=_say) as source:
            for frame in source:
                yield frame.name, frame.image
    except SourceError as e:
        raise _Fail(2, str(e)) from None


def _load(path: str | None, kind: str):
    if path is None:
        return None
    from calibration.files import CalibrationError, load

    try:
        return load(path, kind)
    except CalibrationError as e:
        raise _Fail(2, str(e)) from None


def _write(obj, path: str, summary: dict) -> None:
    import json

    from calibration.files import save

    try:
        save(obj, path)
    except OSError as e:
        raise _Fail(2, f"{path}: cannot write it ({e.strerror})") from None
    print(json.dumps({"written": path, **summary}), flush=True)


# --------------------------------------------------------------------------- camera

def _camera(args) -> int:
    import json
    from contextlib import closing

    from calibration import charuco

    if args.print_to:
        try:
            path = charuco.write_print(args.print_to)
        except (ValueError, OSError) as e:
            raise _Fail(2, str(e)) from None
        w, h = charuco.board_size_mm()
        _say(f"print {path} at 100 % (no 'fit to page'); the board's squares must measure "
             f"{charuco.PATTERN['square_mm']:g} mm ({w:g} x {h:g} mm in all). Lay it flat or "
             "glue it to card, then photograph it from many sides: tilted, and moved into "
             "every corner of the frame.")
        print(json.dumps({"written": str(path)}), flush=True)
        return 0
    if not args.out:
        raise _Fail(2, "--out FILE is needed (or --print FILE)")
    detector = charuco.Detector()
    views, size = [], None
    live = bool(args.source)
    with closing(_frames(args)) as frames:
        for name, image in frames:
            this = (image.shape[1], image.shape[0])
            if size is not None and this != size:
                _say(f"{name}: {this[0]}x{this[1]}, not {size[0]}x{size[1]} like the first: "
                     "skipped")
                continue
            size = this
            view = detector.detect(image, name)
            if view is None:
                _say(f"{name}: board not found (fewer than {charuco.MIN_CORNERS} corners)")
                continue
            if live and not _new_view(view, views, size):
                continue
            views.append(view)
            _say(f"{name}: {len(view)} corners")
            if live:
                needs = charuco.guidance(views, size)
                _say("  still missing: " + "; ".join(needs) if needs else "  coverage complete")
                if len(views) >= args.views and not needs:
                    break
    if size is None:
        raise _Fail(1, "no frames could be read")
    try:
        cal, per_view, _ = charuco.calibrate(views, size)
    except ValueError as e:
        raise _Fail(1, str(e)) from None
    for v, err in zip(views, per_view, strict=True):
        if err > 1.0:
            _say(f"{v.name}: reprojection error {err:.2f} px (blurred or bent board?)")
    for need in charuco.guidance(views, size, cal.K):
        _say(f"advice: {need}, then calibrate again")
    _write(cal, args.out, {"rms_px": round(cal.rms_px, 3), "views": cal.views,
                           "fx": round(float(cal.K[0, 0]), 2),
                           "fy": round(float(cal.K[1, 1]), 2)})
    return 0


def _new_view(view, views, size, min_shift_px: float = 60.0, min_turn_deg: float = 10.0):
    """A live view is kept unless a kept view shows the board at about the same place
    (centre within ``min_shift_px``) and the same tilt (within ``min_turn_deg``, read
    with an assumed lens)."""
    import numpy as np

    from calibration.charuco import view_tilt

    centre = view.image_points.mean(axis=0)
    tilt = np.array(view_tilt(view, size))
    return all(np.linalg.norm(centre - v.image_points.mean(axis=0)) > min_shift_px
               or np.abs(tilt - view_tilt(v, size)).max() > min_turn_deg for v in views)


# --------------------------------------------------------------------------- board

def fit_warning(fit: dict) -> str | None:
    """What a stored registration's fit report (``Registration.fit``) warns of, if over
    1 mm: the lens where its check is the worst (no four corners place the fields: the
    camera or the board should move), else the corners (mis-clicked, or the board moved)."""
    if fit["max_mm"] <= 1.0:
        return None
    if fit.get("lens_max_mm", 0.0) >= fit["max_mm"]:
        from calibration.registration import LENS_ADVICE

        return (f"the camera's lens bends the board up to {fit['lens_max_mm']:.2f} mm off "
                f"its four corners' registration: {LENS_ADVICE}")
    return (f"the fit is off by up to {fit['max_mm']:.2f} mm: check the corners (a corner "
            "mis-clicked, or the board moved)")


def _board(args) -> int:
    from contextlib import closing

    import cv2

    from calibration import registration as rg
    from vision.board import geometry

    try:
        geometry(args.game)
    except ValueError as e:
        raise _Fail(2, f"--game: {e}") from None
    camera = _load(args.camera, "camera")
    try:
        if args.corners or args.click:
            image = None
            if args.click:
                image = cv2.imread(args.click, cv2.IMREAD_COLOR)
                if image is None:
                    raise _Fail(2, f"{args.click}: not a readable image")
                corners = rg.click_corners(image)
            else:
                try:
                    corners = rg.parse_corners(args.corners)
                except ValueError as e:
                    raise _Fail(2, f"--corners: {e}") from None
                first = None
                if args.images or args.source:
                    with closing(_frames(args)) as frames:
                        first = next(frames, None)
                image = first[1] if first else None
            size = (image.shape[1], image.shape[0]) if image is not None \
                else (camera.image_size if camera else (1280, 720))
            reg = rg.register_manual(corners, args.game, size, camera, image)
        else:
            with closing(_frames(args)) as frames:
                reg = rg.register_auto((im for _, im in frames), args.game, args.frames,
                                       camera, args.turn)
    except rg.RegistrationError as e:
        import json

        # the reason for programs (stdout), the sentence for people (stderr)
        print(json.dumps({"refused": str(e.reason)}), flush=True)
        raise _Fail(2 if e.reason in rg.ARGUMENTS else 1, str(e)) from None
    warning = fit_warning(reg.fit)
    if warning:
        _say(f"warning: {warning}")
    if "given_max_mm" in reg.fit:
        fitted = (f"painted lines ({reg.fit['lines_shown']:.0%} of them in place)"
                  if "lines_shown" in reg.fit else "frame line")
        _say(f"the corners given were fitted to the board's {fitted} (moved up to "
             f"{reg.fit['given_max_mm']:.2f} mm)")
    naming = rg.naming_warning(reg)
    if naming:
        _say(f"warning: {naming}")
    _write(reg, args.out, {"method": reg.method, "frames": reg.frames, "fit": reg.fit})
    return 0


# --------------------------------------------------------------------------- colour

def _colour(args) -> int:
    import itertools
    from contextlib import closing

    from calibration import colour

    reg = _load(args.board, "board")
    camera = _load(args.camera, "camera")
    box = None
    if args.white:
        try:
            box = tuple(int(v) for v in args.white.split(","))
            if len(box) != 4:
                raise ValueError
        except ValueError:
            raise _Fail(2, f"--white: need x,y,w,h in pixels, not {args.white!r}") from None
    pieces = {}
    for item in args.piece:
        name, sep, cell = item.rpartition("=")
        if not sep or not name or not cell:
            raise _Fail(2, f"--piece: need NAME=FIELD, not {item!r}")
        pieces[name] = cell
    with closing(_frames(args)) as frames:
        images = [im for _, im in itertools.islice(frames, args.frames)]
    try:
        cal = colour.calibrate_colour(images, reg, pieces, white_box=box,
                                      height_mm=args.height, camera=camera)
    except colour.ColourError as e:
        raise _Fail(1, str(e)) from None
    if reg is not None:
        _pieces_warning(reg.game, pieces)
    exposure = cal.exposure
    if exposure["level"] > colour.SHOULDER or exposure["clipped"] > 0.01:
        _say(f"warning: the reference is very bright (level {exposure['level']:.0f}, "
             f"{100 * exposure['clipped']:.1f} % clipped): lower the exposure (gain "
             f"{exposure['gain']:.2f}) and measure again; the white balance is unreliable")
    _write(cal, args.out, {"wb_gains": [round(float(g), 4) for g in cal.wb_gains],
                           "exposure": exposure,
                           "pieces": {k: v["lab"] for k, v in cal.pieces.items()}})
    return 0


def _pieces_warning(game: str, pieces: dict) -> None:
    """Say which of ``pieces`` the game's reader will not use, and which it needs."""
    from vision.piece_colours import NAMES

    used = NAMES.get(game, ())
    missing = [n for n in used if n not in pieces]
    if missing:
        _say(f"warning: {game}'s reader decides its players' colours from pieces named "
             f"{' and '.join(map(repr, used))}; without {' and '.join(map(repr, missing))} "
             "it keeps its fixed rule")
    unused = [n for n in pieces if n not in used]
    if unused:
        _say(f"note: {', '.join(map(repr, unused))} stored, not used by {game}'s reader")


def run(args: argparse.Namespace) -> int:
    try:
        return {"camera": _camera, "board": _board, "colour": _colour}[args.what](args)
    except _Fail as e:
        _say(f"tableref calibrate {args.what}: {e}")
        return e.status
