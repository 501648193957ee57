"""Calibration on renders and on the real dice photos (docs/calibration.md):

- camera intrinsics from rendered ChArUco views (``calibration.charuco_render``): the
  focal length's error against the renderer's true camera;
- board registration (``calibration.registration``) on renders of the board at set-up
  (the tiles; ``boards FIRST..LAST GAME,...`` the leather boards and Cubes' card too), in
  mm on the board plane against the render truth (corners and field centres): automatic
  from 3 frames (with the true camera as its calibration, so the fit report's rigid
  check runs; a registration whose frames disagree or whose fit is off by more than
  ``registration.REFUSE_MM`` is refused, not stored: how many, and how many stored are
  off by more than 1 mm; each refusal named by its ``RegistrationError.reason``), and
  from four clicked corners (the truth plus 1.5 px of noise, snapped, fitted to the
  tiles' frame line or the other boards' painted lines, or refused);
- set enrolment (``calibration.enrol``): the model alone (before) and after enrolling 5
  captures of every face (symbols, pips, Cubes stones), on held-out synthetic crops of
  the training set's look (``default``) and of a set unlike it (``other-set``: other
  wood, symbol drawings, pip colours, stone colours, light), for each method;
- Cubes' stones as the reader cuts them (``stone_field_rows``): per rendered table, held-out
  fields of its frames cut by the reader's own functions (``calibration.enrol.
  stone_field_crops``), read by the model alone and by profiles enrolled on 5 captures
  of every stone at that table cut the same way (after) or on the renderer's
  axis-aligned stone crops (what enrolment captured before);
- e-SOLO-e's up faces and Tyr's die tops as their readers cut them (``table_rows``): per
  rendered table, crops its reader cut from held-out frames, read by the model alone and
  by profiles enrolled on 5 captures of every face cut from other frames of that table
  the same way (``calibration.enrol.board_crop``; after), or on the renderer's crops
  (what enrolment captured before);
- the real dice: enrol 5 crops of each pip count from one source group (crops the pip
  model was not trained on) as a set of ordinary dice (faces 1..6), measure on the other
  groups (and the rest of that group);
- light and colour (``colour_rows``): per e-SOLO-e game and light (as the training
  renders draw it, and lamps unlike theirs), the cubes' players read right on a table's
  frame without a colour calibration (before) and with one measured on another frame of
  that table (after: white balance, exposure and the players' colours); for Cubes the
  stones read of the right colour (after: with the four stones' measured colours); for
  Tyr and Neunfeld the dice read right (after: with the three dice's measured colours).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict

import numpy as np

TITLE = "Calibration: intrinsics, board registration, set enrolment (before / after)"
CAMERA_SEEDS = (1, 2, 3)
BOARD_SEEDS = range(100, 108)
#: the boards registered: e-SOLO-e's strip, and the tiles checked against their painted lines
BOARD_GAMES = ("esoloe", "esoloe-tictactoe", "esoloe-3andc")
#: ... and those ``boards FIRST..LAST GAME,...`` may name too: the leather boards, Cubes' card
REGISTERED_GAMES = BOARD_GAMES + ("neunfeld", "tyr", "cubes")
HELD_OUT = 300
ENROL_SEED, TEST_SEED = 11, 12
REAL_PER_CLASS = 5


def _row(what, data, n, before, after, note=""):
    return {"what": what, "data": data, "n": n, "before": before, "after": after,
            "note": note}


def camera_rows() -> list[dict]:
    from calibration import charuco, charuco_render

    rows = []
    detector = charuco.Detector()
    for seed in CAMERA_SEEDS:
        images, cams = charuco_render.views(12, seed)
        views = [v for i, im in enumerate(images) if (v := detector.detect(im, str(i)))]
        cal, _, _ = charuco.calibrate(views, cams[0].size)
        f = cams[0].K[0, 0]
        err = max(abs(cal.K[0, 0] - f), abs(cal.K[1, 1] - f)) / f
        rows.append(_row("focal length error (ChArUco)", f"12 rendered views, seed {seed}",
                         len(views), "", f"{100 * err:.2f} %",
                         f"rms {cal.rms_px:.2f} px, f {f:.0f} px"))
    return rows


def _listed(items: list[str]) -> str:
    return f"{len(items)} ({', '.join(items)})" if items else "0"


def _set_up(game: str, seed: int) -> dict:
    """The position of ``game``'s board at set-up: empty (Neunfeld: the pawns on their
    start, the dice held; Tyr: its three dice on the board, where they always are)."""
    from vision.board import geometry
    from vision.render.positions import random_position

    if game in BOARD_GAMES:
        return {"cells": [[] for _ in geometry(game).cells]}
    position = random_position(game, seed)
    if game == "cubes":
        return {**position, "grid": [["."] * 10 for _ in range(10)]}
    if game == "neunfeld":
        return {**position, "pawns": [0, 10]}
    return position


def _set_up_frames(game: str, mode: str, seed: int, frames_dir: str | None = None
                   ) -> tuple[list[np.ndarray], dict]:
    """The 3 renders of ``game``'s board at set-up (``_set_up``) seen by ``mode``'s camera
    at ``seed``, and the first one's truth; with ``frames_dir`` read from there where an
    earlier run saved them (PNG, lossless, and the truth as JSON), else rendered and saved
    there, so that two trees measure the same images."""
    import json
    from pathlib import Path

    import cv2

    from vision.render.frame import RenderOptions, render_scene

    stem = Path(frames_dir or ".") / f"{game}-{mode}-{seed}"
    if frames_dir and all(Path(f"{stem}-{k}.png").exists() for k in range(3)):
        truth = json.loads(Path(f"{stem}.json").read_text())
        return [cv2.imread(f"{stem}-{k}.png", cv2.IMREAD_COLOR) for k in range(3)], truth
    position = _set_up(game, seed)
    frames, truth = [], None
    for k in range(3):
        image, t = render_scene(game, position, seed,
                                options=RenderOptions(camera_mode=mode, frame=k))
        frames.append(image)
        truth = truth or t
    if frames_dir:
        stem.parent.mkdir(parents=True, exist_ok=True)
        for k, image in enumerate(frames):
            cv2.imwrite(f"{stem}-{k}.png", image)
        Path(f"{stem}.json").write_text(json.dumps(truth, default=float))
    return frames, truth


def board_rows(seeds=BOARD_SEEDS, games=BOARD_GAMES, frames_dir: str | None = None
               ) -> list[dict]:
    """Registration of the board of each of ``games`` at set-up (``_set_up``) on 3
    renders a seed, seen overhead and obliquely (``_set_up_frames``: saved in and read
    from ``frames_dir`` where given): automatic (and how many were refused, each seed
    with its reason, named turned, stored over 1 mm, each seed with its error) and from
    clicked corners, each with the true camera as its calibration (as ``tableref
    calibrate board --camera``: the fit report's rigid check, the lens's distortion in the
    own lines' refit)."""
    from calibration import registration as rg
    from calibration.files import CORNER_NAMES, CameraCalibration

    rows = []
    for game in games:
        for mode in ("overhead", "oblique"):
            auto, manual, refused, over, turned, unclicked, off = [], [], [], [], 0, [], []
            for seed in seeds:
                frames, truth = _set_up_frames(game, mode, seed, frames_dir)
                camera = CameraCalibration(np.array(truth["camera"]["K"]),
                                           np.array(truth["camera"]["dist"]), (1280, 720),
                                           0.0, 0, {})
                try:
                    reg = rg.register_auto(frames, game, n=3, camera=camera)
                    err = rg.error_against_truth(reg, truth)["max_mm"]
                    if err > 20:  # corners named a quarter or half turn off
                        turned += 1
                    else:
                        auto.append(err)
                        if err >= 1:
                            over.append(f"{seed} {err:.2f} mm")
                except rg.RegistrationError as refusal:
                    refused.append(f"{seed} {refusal.reason}")
                true = np.array([truth["board"]["corners"][n] for n in CORNER_NAMES])
                clicks = true + np.random.default_rng(seed).normal(0, 1.5, (4, 2))
                try:
                    reg = rg.register_manual(clicks, game, (1280, 720), camera, frames[0])
                    manual.append(rg.error_against_truth(reg, truth)["max_mm"])
                    if manual[-1] >= 1:
                        off.append(f"{seed} {manual[-1]:.2f} mm")
                except rg.RegistrationError as refusal:
                    unclicked.append(f"{seed} {refusal.reason}")
            n = len(seeds)
            rows.append(_row("board registration, auto (max mm)", f"{game} {mode}", n, "",
                             f"{np.median(auto):.2f}" if auto else "-",
                             f"{sum(e < 1 for e in auto)}/{n} under 1 mm; refused "
                             f"{_listed(refused)}, named turned {turned}, stored over 1 mm "
                             f"{_listed(over)}, worst stored "
                             f"{max(auto, default=0):.1f} mm"))
            rows.append(_row("board registration, clicked (max mm)", f"{game} {mode}", n,
                             "", f"{np.median(manual):.2f}" if manual else "-",
                             f"{sum(e < 1 for e in manual)}/{n} under 1 mm (clicks +-1.5 px, "
                             f"snapped, fitted to the frame line or painted lines); refused "
                             f"{_listed(unclicked)}, stored over 1 mm {_listed(off)}, worst "
                             f"stored {max(manual, default=0):.1f} mm"))
    return rows


METHODS = ("model", "prototypes", "linear", "nearest", "finetune", "auto")
#: game -> render kind of its crops: symbols, pips (the renderer's die crops cut again as
#: the pip reader cuts a die; stones: ``stone_field_rows``)
ENROL_GAMES = (("esoloe", "face"), ("tyr", "die top"))


def _name(method: str, ad) -> str:
    """The method as the table names it: the model's head counts beside prototypes, and
    ``model`` is the model alone over the enrolled classes on the profile's turns; auto
    names what it chose."""
    chosen = {"prototypes": "prototypes + model",
              "model": "model alone (no adaptation)"}.get(ad.method, ad.method)
    return f"auto ({chosen})" if method == "auto" else chosen


def _read(plan, predictions) -> list[str]:
    """Each crop's class as the plan names it (stones: the grid token)."""
    from calibration.enrol import TOKEN
    from vision.classifier import stone_token

    if plan.head == TOKEN:
        return [stone_token(p)[0] for p in predictions]
    return [p[plan.head].label for p in predictions]


def _accuracy(plan, predictions, truth) -> float:
    return float(np.mean([r == t for r, t in zip(_read(plan, predictions), truth,
                                                 strict=True)]))


def _model_turns(plan, model, crops, truth) -> float:
    """The model alone, read from the crops' four quarter turns, log-probabilities
    averaged (what a profile's way of reading adds by itself)."""
    from calibration import enrol
    from vision.classifier import quarter_turns

    views = [v for c in crops for v in quarter_turns(c)]
    names, prior = enrol.head_log_probs(model.heads, model.logits(views), plan.head)
    probs = sum(prior[k::4] for k in range(4))
    read = [names[j] for j in np.argmax(probs, axis=1)]
    return float(np.mean([r == t for r, t in zip(read, truth, strict=True)]))


def _profile(game, plan, ad):
    from calibration import enrol
    from calibration.files import EnrolmentProfile

    return enrol.Profile(EnrolmentProfile(game, {plan.model: ad.to_json()}))


def _captured(plan, model, user, faces=None):
    """An enrolment session given ``enrol.CAPTURES`` captures by ``user`` of each of
    ``faces`` (all the plan's)."""
    from calibration import enrol

    session = enrol.Session(plan, model)
    for face in plan.faces if faces is None else faces:
        for _ in range(enrol.CAPTURES):
            session.add(face, user(face))
    return session


def _adapted(session):
    """(the session's adaptation by its method, the CPU seconds it took)."""
    start = time.process_time()
    ad = session.adapt()
    return ad, time.process_time() - start


def _each_method(game, plan, model, session, crops, truth):
    """Per method of ``METHODS``: (method, the session's adaptation by it, its CPU
    seconds, its profile's accuracy on ``crops``)."""
    for method in METHODS:
        session.method = method
        ad, cpu = _adapted(session)
        yield method, ad, cpu, _accuracy(
            plan, _profile(game, plan, ad).predict(plan.model, model, crops), truth)


def synthetic_rows() -> list[dict]:
    """Per game and crop look: the model alone (before) and after 5 captures of every
    face, each method, on ``HELD_OUT`` unseen crops of that look."""
    from calibration import enrol, synthetic
    from vision.classifier import Classifier

    rows = []
    for game, kind in ENROL_GAMES:
        plan = enrol.plan(game)
        model = Classifier.load(plan.model)
        for variant in ("default", "other-set"):
            crops, keys = synthetic.render(kind, HELD_OUT, TEST_SEED, variant=variant)
            truth = [k[1] for k in keys]
            before = _accuracy(plan, model.predict(crops), truth)
            turned = _model_turns(plan, model, crops, truth)
            session = _captured(plan, model,
                                synthetic.RenderedCrops(kind, ENROL_SEED, variant))
            for method, ad, cpu, after in _each_method(game, plan, model, session, crops,
                                                       truth):
                rows.append(_row(f"{plan.model} accuracy, {_name(method, ad)}",
                                 f"{kind} crops, {variant}", HELD_OUT, round(before, 3),
                                 round(after, 3),
                                 f"{len(session.crops)} captures, cross-validated "
                                 f"{ad.cv['accuracy']:.3f}; model alone on 4 turns "
                                 f"{turned:.3f}; adapting {cpu:.1f} s CPU"))
    return rows


FIELD_TABLES = (11, 12, 13, 14)  # Cubes tables (calibration.synthetic.field_frame)
FIELD_ENROL, FIELD_TEST = range(5), range(5, 11)  # each table's frames


def stone_field_rows() -> list[dict]:
    """Cubes at a table: its stones as the reader cuts them from frames of that table
    (one camera, board and lamp per table), enrolled on 5 frames (5 captures of every
    stone), read on 6 more (other fields: never the captures): the model alone (before)
    and each method's profile from the table's own field captures, beside ``auto`` on
    the renderer's axis-aligned stone crops (seed ``ENROL_SEED``, any table: what
    enrolment captured before). Default look only: the renderer draws whole frames in the
    games' own set."""
    from calibration import enrol, synthetic
    from vision.classifier import Classifier

    model = Classifier.load("stone")
    plan = enrol.plan("cubes", model.heads)
    known = {f.label for f in plan.faces}
    axis = _captured(plan, model, synthetic.RenderedCrops("stone", ENROL_SEED),
                     [f for f in plan.faces if f.label != "."])  # no empty field there
    axis_ad, axis_cpu = _adapted(axis)
    axis_profile = _profile("cubes", plan, axis_ad)
    rows = []
    for table in FIELD_TABLES:
        test = [(c, k[1]) for frame in FIELD_TEST
                for c, k in zip(*(synthetic.field_frame(table, frame) or ([], [])),
                                strict=True) if k[1] in known]
        crops, truth = [c for c, _ in test], [t for _, t in test]
        before = _accuracy(plan, model.predict(crops), truth)
        data = f"table {table}: field crops of 6 more frames"
        rows.append(_row(f"stone accuracy, {_name('auto', axis_ad)}, enrolled on "
                         "axis-aligned crops", data, len(crops), round(before, 3),
                         round(_accuracy(plan, axis_profile.predict("stone", model, crops),
                                         truth), 3),
                         f"{len(axis.crops)} captures (renderer's stone crops, seed "
                         f"{ENROL_SEED}), cross-validated {axis_ad.cv['accuracy']:.3f}; "
                         f"adapting {axis_cpu:.1f} s CPU"))
        session = enrol.Session(plan, model)
        stock = defaultdict(list)
        for frame in FIELD_ENROL:
            cut = synthetic.field_frame(table, frame)
            for c, k in zip(*(cut or ([], [])), strict=True):
                stock[k].append(c)
        for face in plan.faces:
            for crop in stock[face.piece, face.label][:enrol.CAPTURES]:
                session.add(face, crop)
        for method, ad, cpu, after in _each_method("cubes", plan, model, session, crops,
                                                   truth):
            rows.append(_row(f"stone accuracy, {_name(method, ad)}, enrolled on the "
                             "table's field crops", data, len(crops), round(before, 3),
                             round(after, 3),
                             f"{len(session.crops)} captures, cross-validated "
                             f"{ad.cv['accuracy']:.3f}; adapting {cpu:.1f} s CPU"))
    return rows


TABLES = (11, 12, 13)  # e-SOLO-e and Tyr tables (calibration.synthetic.field_frame)
TABLE_GAMES = (("esoloe", "face"), ("tyr", "die"))  # game, the renderer's crop kind
TABLE_TEST_START = 1000  # a table's held-out frames: from this frame on


def table_rows(games=TABLE_GAMES, tables=TABLES) -> list[dict]:
    """e-SOLO-e's up faces and Tyr's die tops at a table: ``HELD_OUT`` crops its reader
    cut from frames of that table (frames ``TABLE_TEST_START``.., never the captures),
    read by the model alone (before) and by each method's profile from 5 captures of
    every face at that table cut the same way (the synthetic user, ``RenderedCrops``:
    frames 0.. until every face has them), beside ``auto`` on the renderer's crops of the
    game's pieces (seed ``ENROL_SEED``, any table: what enrolment captured before).
    Default look only: the renderer draws whole frames in the games' own set."""
    from calibration import enrol, synthetic
    from vision.classifier import Classifier

    rows = []
    for game, kind in games:
        plan = enrol.plan(game)
        model = Classifier.load(plan.model)
        rendered = _captured(plan, model, synthetic.RenderedCrops(kind, ENROL_SEED))
        rendered_ad, rendered_cpu = _adapted(rendered)
        rendered_profile = _profile(game, plan, rendered_ad)
        for table in tables:
            crops, keys = synthetic.render(plan.crop, HELD_OUT, table, TABLE_TEST_START,
                                           game=game)
            truth = [k[1] for k in keys]
            before = _accuracy(plan, model.predict(crops), truth)
            turned = _model_turns(plan, model, crops, truth)
            data = f"table {table}: {game} crops of held-out frames, cut by the reader"
            rows.append(_row(f"{plan.model} accuracy, {_name('auto', rendered_ad)}, "
                             "enrolled on the renderer's crops", data, len(crops),
                             round(before, 3),
                             round(_accuracy(plan, rendered_profile.predict(
                                 plan.model, model, crops), truth), 3),
                             f"{len(rendered.crops)} captures (renderer's {kind} crops, "
                             f"seed {ENROL_SEED}), cross-validated "
                             f"{rendered_ad.cv['accuracy']:.3f}; adapting "
                             f"{rendered_cpu:.1f} s CPU"))
            session = _captured(plan, model,
                                synthetic.RenderedCrops(plan.crop, table, game=game))
            for method, ad, cpu, after in _each_method(game, plan, model, session, crops,
                                                       truth):
                rows.append(_row(f"{plan.model} accuracy, {_name(method, ad)}, enrolled on "
                                 "the table's crops cut by the reader", data, len(crops),
                                 round(before, 3), round(after, 3),
                                 f"{len(session.crops)} captures, cross-validated "
                                 f"{ad.cv['accuracy']:.3f}; model alone on 4 turns "
                                 f"{turned:.3f}; adapting {cpu:.1f} s CPU"))
    return rows


def real_dice_rows(per_class: int = REAL_PER_CLASS) -> list[dict]:
    """Enrol ``per_class`` crops of each pip count from one source group (crops the
    pip model was not trained on) as a set of ordinary dice (``enrol.plan``'s ``d6``: the
    faces 1..6 of any die), measure on each other group and the rest of that one (never
    on the crops enrolled)."""
    from calibration import enrol
    from vision import real_dice
    from vision.classifier import Classifier
    from vision.train import evaluate

    model = Classifier.load("pips")
    crops = evaluate.real_dice_held_out(model, real_dice.load())
    plan = enrol.plan("tyr", dice="d6")
    faces = {f.label: f for f in plan.faces}
    data = {}
    for group, members in real_dice.by_group(crops).items():
        images = [c.image() for c in members]
        data[group] = (images, [str(c.pips) for c in members],
                       [p["pips"].label for p in model.predict(images)])
    rows = []
    rng = np.random.default_rng(0)
    for source, (images, truth, _) in data.items():
        by_class = defaultdict(list)
        for i, t in enumerate(truth):
            by_class[t].append(i)
        chosen = sorted(i for t in sorted(by_class)
                        for i in rng.permutation(by_class[t])[:per_class])
        session = enrol.Session(plan, model)
        for i in chosen:
            session.add(faces[truth[i]], images[i])
        for method in METHODS:
            session.method = method
            ad = session.adapt()
            profile = _profile("tyr", plan, ad)
            for target, (t_images, t_truth, t_before) in data.items():
                keep = [i for i in range(len(t_truth))
                        if not (target == source and i in set(chosen))]
                if not keep:
                    continue
                before = float(np.mean([t_before[i] == t_truth[i] for i in keep]))
                after = _accuracy(plan, profile.predict("pips", model,
                                                        [t_images[i] for i in keep]),
                                  [t_truth[i] for i in keep])
                where = "rest of that group" if target == source else "another group"
                rows.append(_row(f"real pips, enrol {len(chosen)} of {source}, "
                                 f"{_name(method, ad)}",
                                 f"{target} ({where})", len(keep), round(before, 3),
                                 round(after, 3),
                                 f"cross-validated {ad.cv['accuracy']:.3f}"
                                 if target == source else ""))
    return rows


#: light unlike the training renders' (``vision.render.effects.random_effects``: a white
#: balance error of a few per cent, the metered centre exposed to 0.33..0.56): the drawn
#: imaging with the camera's white balance cast and exposure replaced
COLOUR_LIGHTS = {
    "as drawn": None,
    "warm lamp, dim": {"wb": (0.6, 1.0, 1.5), "exposure": 0.22},
    "cold light": {"wb": (1.45, 1.0, 0.7), "exposure": 0.3},
}
COLOUR_GAMES = ("esoloe", "esoloe-tictactoe", "esoloe-3andc", "cubes", "tyr", "neunfeld")
COLOUR_SEEDS = range(600, 640)  # held out: tuned on 100..299
CALIBRATION_FRAME, TEST_FRAME = 0, 1  # the sensor noise of a table's two frames


#: Cubes' calibration frame: a stone of each colour on these fields (row, column), the
#: rest of the board empty
COLOUR_STONES = {"black": (4, 6), "blue": (4, 3), "red": (4, 4), "orange": (4, 5)}


def _colour_table(game: str, seed: int, light: dict | None):
    """(test frame, its truth, the calibration dict without colour, the colour file's
    ``ColourCalibration`` or None where it could not be measured) of table ``seed``:
    its imaging drawn from the seed with ``light``'s changes; the colour measured on a
    frame of the table with a cube of player 0 on the first field and one of player 1 on
    the last (Cubes: a stone of each colour, ``COLOUR_STONES``) (``calibrate_colour``,
    the board registered from the true corners)."""
    from dataclasses import replace

    from calibration import colour, registration
    from calibration.files import CORNER_NAMES, CameraCalibration
    from rules.cubes_position import LETTER
    from vision.board import geometry
    from vision.render.effects import random_effects
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position
    from vision.render.rng import make_rng

    fx = random_effects(make_rng(seed, "effects"))
    if light is not None:
        fx = replace(fx, exposure=light["exposure"],
                     wb=tuple(a * b for a, b in zip(fx.wb, light["wb"], strict=True)))
    position = random_position(game, seed)
    if game == "cubes":
        grid = [["."] * 10 for _ in range(10)]
        for name, (row, col) in COLOUR_STONES.items():
            grid[row][col] = LETTER[name] + "3"
        shown, _ = render_scene(game, {**position, "grid": grid}, seed,
                                options=RenderOptions(effects=fx, frame=CALIBRATION_FRAME))
        pieces = {name: f"{row},{col}" for name, (row, col) in COLOUR_STONES.items()}
    else:
        cells = [[] for _ in geometry(game).cells]
        names = [name for name, *_ in geometry(game).cells]
        for player, k in ((0, 0), (1, -1)):
            cells[k] = [{"player": player, "faces": dict.fromkeys(
                ("up", "down", "north", "south", "east", "west"))}]
        shown, truth = render_scene(game, {"cells": cells}, seed, options=RenderOptions(
            effects=fx, frame=CALIBRATION_FRAME))
        # the fields as vision names them (a square tile without marks: by the camera)
        where = {stack[0]["player"]: names[i]
                 for i, stack in enumerate(truth["position"]["cells"]) if stack}
        pieces = {"player 0": where[0], "player 1": where[1]}
    image, truth = render_scene(game, position, seed,
                                options=RenderOptions(effects=fx, frame=TEST_FRAME))
    corners = np.array([truth["board"]["corners"][n] for n in CORNER_NAMES])
    camera = CameraCalibration(np.array(truth["camera"]["K"]),
                               np.array(truth["camera"]["dist"]), (1280, 720), 0.0, 0, {})
    reg = registration.register_manual(corners, game, (1280, 720))
    try:
        cal = colour.calibrate_colour([shown], reg, pieces, camera=camera)
    except colour.ColourError:
        cal = None
    return image, truth, {"board": corners, "K": camera.K, "dist": camera.dist}, cal


def _players(game: str, image: np.ndarray, truth: dict, calibration: dict) -> Counter:
    """The truth's cubes (``top``: each stack's top cube, ``lower``: the others) and
    those whose player ``image`` observed with ``calibration`` reads right (``top
    right``: the field read occupied, its top cube's player the truth's; ``lower
    right``: the stack read at its height, the cube's player the truth's)."""
    from vision.observe import observe

    got = observe(image, game, calibration=calibration)["position"]["cells"]
    out: Counter = Counter()
    for want, read in zip(truth["position"]["cells"], got, strict=True):
        if not want:
            continue
        out["top"] += 1
        out["top right"] += bool(read) and read[-1]["player"] == want[-1]["player"]
        out["lower"] += len(want) - 1
        if len(read) == len(want):
            out["lower right"] += sum(w["player"] == r["player"]
                                      for w, r in zip(want[:-1], read[:-1], strict=True))
    return out


def _stones(image: np.ndarray, truth: dict, calibration: dict) -> Counter:
    """The truth's players' stones (``stones``), those ``image`` observed with
    ``calibration`` reads of the right colour (``colour right``) and exactly (``exact``:
    colour, digit and side), and the white stones and empty fields read as a player's
    stone (``false``)."""
    from rules.cubes_position import is_stone
    from vision.observe import observe

    got = observe(image, "cubes", calibration=calibration)["position"]["grid"]
    out: Counter = Counter()
    for want_row, got_row in zip(truth["position"]["grid"], got, strict=True):
        for want, read in zip(want_row, got_row, strict=True):
            if is_stone(want):
                out["stones"] += 1
                out["colour right"] += bool(read) and read[0] == want[0]
                out["exact"] += read == want
            elif read and is_stone(read):
                out["false"] += 1
    return out


def _stone_rows(seeds, lights) -> list[dict]:
    """``colour_rows``' rows for Cubes: the stones of the right colour without a colour
    file, with the file's white balance and exposure, and with the stones' measured
    colours too."""
    from calibration.files import ColourCalibration, colour_entries

    rows = []
    for light in lights:
        tallies = defaultdict(Counter)
        failed = 0
        for seed in seeds:
            image, truth, base, cal = _colour_table("cubes", seed, COLOUR_LIGHTS[light])
            failed += cal is None
            exposed = None if cal is None else ColourCalibration(
                cal.wb_gains, cal.exposure, cal.reference, {})
            for name, extra in (("none", {}),
                                ("+ exposure", {"colour": exposed} if exposed else {}),
                                ("+ stones", colour_entries(cal) if cal else {})):
                tallies[name] += _stones(image, truth, {**base, **extra})
        before, exposed, after = (tallies[k] for k in ("none", "+ exposure", "+ stones"))
        n = before["stones"]
        rows.append(_row("stone colours read right (colour file)",
                         f"cubes, {light}, seeds {seeds[0]}..{seeds[-1]}", n,
                         f"{before['colour right']}/{n}", f"{after['colour right']}/{n}",
                         f"+ exposure {exposed['colour right']}, + stones "
                         f"{after['colour right']}; exact {before['exact']} -> "
                         f"{exposed['exact']} -> {after['exact']}; white or empty read "
                         f"a player's {before['false']} -> {exposed['false']} -> "
                         f"{after['false']}" + (f"; not measured {failed}" if failed else "")))
    return rows


#: Tyr's calibration frame: each die on this field (row, column) with its face of fewest
#: pips up (its colour measured on its top's darker half: the pips left out)
COLOUR_DICE = {"blue": ((5, 3), 1), "red": ((5, 5), 1), "black": ((5, 7), 2)}
#: games whose dice ``_dice_rows`` reads with their measured colours
DICE_GAMES = ("tyr", "neunfeld")
#: the share of a die top's side measured on Neunfeld's calibration frame (its top as the
#: truth draws it, shrunk about its centre; Tyr's field square: 15 of the 22 mm top)
DIE_TOP_SHARE = 0.68


def _dice_table(seed: int, light: dict | None, game: str = "tyr"):
    """(test frame, its truth, the calibration dict without colour, the dice's measured
    ``pieces``) of ``game``'s table ``seed`` under ``light`` (as ``_colour_table``), each
    die measured on a frame of the table with its face of fewest pips up (``COLOUR_DICE``)
    on its top's darker half (``piece_colours.colour_of``): Tyr's on ``COLOUR_DICE``'s
    fields (``calibration.colour.piece_colour``, on the dice's tops); Neunfeld's in a row
    before the board, all three held by A (the renderer lays no die on the strip, where
    ``tableref calibrate colour`` would measure it; as the opening roll two may touch
    and one hide part of the other's top: dev 107), on ``DIE_TOP_SHARE`` of its top as
    the truth draws it. The renders show no white sheet to balance the leather board's
    light on: the dice are measured in the frame as it is, and the test frame is read as
    it is."""
    from dataclasses import replace

    import cv2

    from calibration import colour, registration
    from calibration.files import CORNER_NAMES, CameraCalibration
    from vision.piece_colours import colour_of
    from vision.render.effects import random_effects
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position
    from vision.render.rng import make_rng

    fx = random_effects(make_rng(seed, "effects"))
    if light is not None:
        fx = replace(fx, exposure=light["exposure"],
                     wb=tuple(a * b for a, b in zip(fx.wb, light["wb"], strict=True)))
    if game == "tyr":
        shown_position = {"dice": {name: {"top": top, "cell": list(cell)}
                                   for name, (cell, top) in COLOUR_DICE.items()}}
    else:
        shown_position = {"pawns": [0, 10], "dice": {
            name: {"top": top, "holder": 0} for name, (_, top) in COLOUR_DICE.items()}}
    shown, shown_truth = render_scene(game, shown_position, seed, options=RenderOptions(
        effects=fx, frame=CALIBRATION_FRAME))
    image, truth = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(effects=fx, frame=TEST_FRAME))
    corners = np.array([truth["board"]["corners"][n] for n in CORNER_NAMES])
    camera = CameraCalibration(np.array(truth["camera"]["K"]),
                               np.array(truth["camera"]["dist"]), (1280, 720), 0.0, 0, {})
    pieces = {}
    if game == "tyr":
        reg = registration.register_manual(corners, "tyr", (1280, 720))
        for name, die in shown_truth["position"]["dice"].items():  # as vision names them
            pieces[name] = colour.piece_colour([shown], reg, "{},{}".format(*die["cell"]),
                                               np.ones(3), colour.TOP_MM["tyr"], camera)["lab"]
    else:
        for piece in shown_truth["pieces"]:
            if piece["kind"] != "die":
                continue
            (top,) = [np.array(f["polygon"]) for f in piece["visible_faces"]
                      if f["direction"] == "up"]
            inner = top.mean(axis=0) + DIE_TOP_SHARE * (top - top.mean(axis=0))
            mask = np.zeros(shown.shape[:2], np.uint8)
            cv2.fillConvexPoly(mask, np.round(inner).astype(np.int32), 1)
            pieces[piece["colour"]] = np.round(
                colour_of(shown[mask > 0], lighter=False)[1], 2).tolist()
    return image, truth, {"board": corners, "K": camera.K, "dist": camera.dist}, pieces


def _dice_rows(seeds, lights, game: str = "tyr") -> list[dict]:
    """``colour_rows``' rows for ``game``'s dice (Tyr, Neunfeld): the elements read right
    (Tyr: each die's cell and its top on the board; Neunfeld: the pawns and each die's
    holder and top) and the frames read exactly, without and with the dice's measured
    colours (``_dice_table``)."""
    from vision.measure import elements
    from vision.observe import observe

    rows = []
    name = {"tyr": "Tyr", "neunfeld": "Neunfeld"}[game]
    for light in lights:
        tallies = defaultdict(Counter)
        for seed in seeds:
            image, truth, base, pieces = _dice_table(seed, COLOUR_LIGHTS[light], game)
            want = elements(game, truth["position"])
            for tally, extra in (("none", {}), ("+ dice", {"pieces": pieces})):
                got = elements(game, observe(image, game, calibration={**base, **extra})[
                    "position"])
                right = sum(got.get(k) == v for k, v in want.items())
                tallies[tally] += Counter(elements=len(want), right=right,
                                          exact=right == len(want))
        before, after = tallies["none"], tallies["+ dice"]
        n = before["elements"]
        rows.append(_row(f"{name}'s dice read right (their measured colours)",
                         f"{game}, {light}, seeds {seeds[0]}..{seeds[-1]}", n,
                         f"{before['right']}/{n}", f"{after['right']}/{n}",
                         f"exact frames {before['exact']} -> {after['exact']} of "
                         f"{len(seeds)}"))
    return rows


def colour_rows(seeds=COLOUR_SEEDS, games=COLOUR_GAMES, lights=tuple(COLOUR_LIGHTS)
                ) -> list[dict]:
    """Per game and light: the cubes whose player is read right (top cubes of the stacks
    read occupied, lower cubes of those read at their height) without a colour file
    (before) and with one (after), each table's test frame read on its true corners and
    camera; beside them the colour file's white balance alone, with its exposure gain,
    then with the players' colours. Cubes: its stones (``_stone_rows``); Tyr and
    Neunfeld: their dice (``_dice_rows``)."""
    from calibration.files import ColourCalibration, colour_entries

    rows = []
    for game in games:
        if game == "cubes":
            rows += _stone_rows(seeds, lights)
            continue
        if game in DICE_GAMES:
            rows += _dice_rows(seeds, lights, game)
            continue
        for light in lights:
            tallies = defaultdict(Counter)
            failed = 0
            for seed in seeds:
                image, truth, base, cal = _colour_table(game, seed, COLOUR_LIGHTS[light])
                if cal is None:
                    failed += 1
                wb = None if cal is None else ColourCalibration(
                    cal.wb_gains, {**cal.exposure, "gain": 1.0}, cal.reference, {})
                exposed = None if cal is None else ColourCalibration(
                    cal.wb_gains, cal.exposure, cal.reference, {})
                for name, extra in (("none", {}),
                                    ("white balance", {"colour": wb} if wb else {}),
                                    ("+ exposure", {"colour": exposed} if exposed else {}),
                                    ("+ players", colour_entries(cal) if cal else {})):
                    tallies[name] += _players(game, image, truth, {**base, **extra})

            def right(t: Counter) -> int:
                return t["top right"] + t["lower right"]

            before, after = tallies["none"], tallies["+ players"]
            n = before["top"] + before["lower"]
            steps = ", ".join(f"{k} {right(tallies[k])}" for k in
                              ("white balance", "+ exposure"))
            rows.append(_row("cube players read right (colour file)",
                             f"{game}, {light}, seeds {seeds[0]}..{seeds[-1]}", n,
                             f"{right(before)}/{n}", f"{right(after)}/{n}",
                             f"{steps}, + players {right(after)}; top cubes "
                             f"{before['top right']} -> {after['top right']} of "
                             f"{before['top']}, lower {before['lower right']} -> "
                             f"{after['lower right']} of {before['lower']}"
                             + (f"; not measured {failed}" if failed else "")))
    return rows


def measure() -> list[dict]:
    return (camera_rows() + board_rows() + synthetic_rows() + stone_field_rows()
            + table_rows() + real_dice_rows() + colour_rows())


if __name__ == "__main__":
    import sys

    from bench.__main__ import format_table

    # python -m bench.calibration_bench [boards|colour FIRST..LAST [GAME,...]]: every
    # table, or the board rows (held out: not the dev seeds 100..399) or the colour rows
    # alone on those seeds (of the games named: BOARD_GAMES, COLOUR_GAMES if none); the
    # board rows with --frames DIR save their renders there or read them from there
    args, seeds, games = sys.argv[1:], None, None
    usage = ("usage: python -m bench.calibration_bench [boards FIRST..LAST [GAME,...] "
             "[--frames DIR] | colour FIRST..LAST [GAME,...]] "
             f"(board games: {','.join(REGISTERED_GAMES)}; colour games: "
             f"{','.join(COLOUR_GAMES)})")
    if args in (["-h"], ["--help"]):
        print(f"{usage}\n\n{__doc__}")
        sys.exit(0)
    frames_dir = None
    if args[:1] == ["boards"] and "--frames" in args[:-1]:
        at = args.index("--frames")
        frames_dir = args.pop(at + 1)
        args.pop(at)
    if len(args) == 3 and args[0] in ("boards", "colour"):
        games = tuple(args.pop().split(","))
        if not set(games) <= set(REGISTERED_GAMES if args[0] == "boards" else COLOUR_GAMES):
            sys.exit(usage)
    if len(args) == 2 and args[0] in ("boards", "colour"):
        first, _, last = args[1].partition("..")
        if first.isdigit() and last.isdigit() and int(first) <= int(last):
            seeds = range(int(first), int(last) + 1)
    if args and seeds is None:
        sys.exit(usage)
    if not args:
        rows = measure()
    elif args[0] == "boards":
        rows = board_rows(seeds, games or BOARD_GAMES, frames_dir)
    else:
        rows = colour_rows(seeds, games or COLOUR_GAMES)
    print(format_table(TITLE, rows))
