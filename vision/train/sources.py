"""Crop sources for the registry: the renderer's ``render_crops`` (vision/render/crops.py),
or its frames cut as a reader cuts them, turned into ``source(n, seed) -> (crops, labels
per head)``.

Rendering is the slow part of training (tens of milliseconds a crop), so the crops are made
in chunks by a few worker processes; item ``i`` of a seed depends on ``(seed, i)`` only, so
the result is the same whatever the number of workers.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from vision.train.registry import CUBE_PLAYERS, ModelSpec

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / "out" / "cache"
TEST_SEED_OFFSET = 1_000_003  # held-out renders come from the training seed + this

RENDER_SIZE = 64  # rendered crop side in pixels; the classifier resizes to its input
CHUNK = 250


def _chunk(args: tuple[str, int, int, int, int]) -> tuple[np.ndarray, list[dict]]:
    from vision.render.crops import render_crops

    kind, count, seed, size, start = args
    return render_crops(kind, count, seed, size=size, start=start)


def rendered(kind: str, n: int, seed: int, size: int = RENDER_SIZE,
             workers: int | None = None) -> tuple[list[np.ndarray], list[dict]]:
    """``n`` crops of ``kind`` with the renderer's label dicts, in item order."""
    jobs = [(kind, min(CHUNK, n - start), seed, size, start) for start in range(0, n, CHUNK)]
    return _in_chunks(_chunk, jobs, workers)


def _in_chunks(work, jobs: list[tuple], workers: int | None) -> tuple[list, list]:
    """``work(job) -> (images, labels)`` over ``jobs`` (in a process per core unless
    ``workers`` says otherwise), the images and labels joined in job order."""
    workers = workers or min(len(jobs), os.cpu_count() or 1)
    if workers <= 1:
        parts = [work(job) for job in jobs]
    else:
        # workers started afresh (forkserver), not forked from this process: a child forked
        # from a process with threads (OpenCV's, onnxruntime's, ZeroMQ's; a test run has them
        # all) can wait for ever on a lock one of them held at the fork (seen: a full test run
        # hung here)
        with ProcessPoolExecutor(workers, mp_context=get_context("forkserver")) as pool:
            parts = list(pool.map(work, jobs))
    images = [image for part, _ in parts for image in part]
    labels = [label for _, part in parts for label in part]
    return images, labels


DIE_RENDER_SIZE = 80  # the die's top spans 27-40 px, as in a 1280 x 720 frame
TOP_JITTER_MM = 1.2  # the reader's die centre is this far off (sd, each axis)
#: the frames' blur the crops' own effects lack (``vision.render.effects.random_effects``:
#: a tenth of the frames moved 2..7 px, a fifth out of focus at 1.0..1.8 px;
#: ``render.crops.crop_effects`` stops at 1.0 px and has no motion): each die crop is moved
#: with chance ``MOTION_SHARE`` and defocused with chance ``FOCUS_SHARE``, on the rendered
#: picture before it is cut (as a frame's blur lies in the picture, so a slanted top's cut
#: stretches it), then noised again. The pips model read motion-blurred black 7s and blue
#: 9s seen at a slant as 6 (models/pips.md)
MOTION_SHARE = 0.1
MOTION_PX = (2.0, 7.0)
FOCUS_SHARE = 0.1
FOCUS_PX = (1.0, 1.8)
BLUR_NOISE = (0.5, 4.5)  # sd of the noise added again after a blur, 8-bit levels


def frame_blur(image: np.ndarray, rng: np.random.Generator, scale: float = 1.0,
               shares: tuple[float, float] | None = None) -> np.ndarray:
    """``image`` (a rendered crop) with a frame's motion blur and defocus, each with its
    chance (``shares``: motion, focus; ``MOTION_SHARE``, ``FOCUS_SHARE`` unless given), and
    sensor noise again where blurred. ``scale``: the crop's pixels per frame pixel (a crop
    that shows a piece larger than a frame does is blurred as much more)."""
    import cv2

    from vision.render.effects import motion_kernel

    motion, focus = rng.random(2) < (shares or (MOTION_SHARE, FOCUS_SHARE))
    length, angle, sigma, noise = (rng.uniform(*MOTION_PX), rng.uniform(0, 180),
                                   rng.uniform(*FOCUS_PX), rng.uniform(*BLUR_NOISE))
    if not (motion or focus):
        return image
    length, sigma = length * scale, sigma * scale
    x = image.astype(np.float32)
    if focus:
        x = cv2.GaussianBlur(x, (0, 0), sigma)
    if motion:
        x = cv2.filter2D(x, -1, motion_kernel(length, angle), borderType=cv2.BORDER_REPLICATE)
    x += rng.normal(0, noise, x.shape).astype(np.float32)
    return np.clip(np.round(x), 0, 255).astype(np.uint8)


def _die_top_chunk(args: tuple[int, int, int]) -> tuple[list[np.ndarray], list[dict]]:
    """The renderer's die crops re-cut by ``vision.read_miwin.top_crops``, as the reader
    cuts a die from a frame: the plane of the die's top (the label's ``top_plane``: world
    mm -> crop px), north up, the top centred (give or take ``TOP_JITTER_MM``) and filling
    ``CROP_FILL`` of the crop, the side faces the camera sees stretched beside it; a
    share blurred as frames are (``frame_blur``)."""
    from vision.read_miwin import Die, top_crops
    from vision.render.crops import render_crops
    from vision.render.rng import make_rng

    count, seed, start = args
    images, labels = render_crops("die", count, seed, size=DIE_RENDER_SIZE, start=start)
    out = []
    for j, (label, image) in enumerate(zip(labels, images, strict=True)):
        (u, v), H = label["centre_mm"], np.array(label["top_plane"])
        du, dv = make_rng(seed, "top-jitter", start + j).normal(0, TOP_JITTER_MM, 2)
        image = frame_blur(image, make_rng(seed, "top-blur", start + j))
        out += top_crops(image, H, [Die(label["colour"], u + du, v + dv, 1.0)])
    return out, labels


def die_tops(n: int, seed: int, workers: int | None = None):
    """Miwin dice as the reader cuts them (``_die_top_chunk``): the top's pips and the
    die's colour."""
    jobs = [(min(CHUNK, n - start), seed, start) for start in range(0, n, CHUNK)]
    images, labels = _in_chunks(_die_top_chunk, jobs, workers)
    return images, {"pips": [str(label["top"]) for label in labels],
                    "colour": [label["colour"] for label in labels]}


def cube_faces(n: int, seed: int):
    """Rectified e-SOLO-e cube faces: symbol (or blank), its quarter turns, the cube."""
    images, labels = rendered("face", n, seed)
    return images, {
        "symbol": [label["label"] for label in labels],
        "rotation": [None if label["label"] == "blank" else str(label["rotation"])
                     for label in labels],
        "cube": [CUBE_PLAYERS[label["player"]] for label in labels],
    }


#: the frames' blur on the rendered faces (``cube_faces_blurred``): the renderer's face crop
#: is cut from a render where the face spans 30..70 px and its own effects stop at 1 px of
#: focus, with no motion, while a top face in a frame spans ``FACE_FRAME_PX`` (true corners,
#: camera any, 66 up faces of 18 frames: 16 / 26 / 59 px at the 5th / 50th / 95th
#: percentile; the reader reads from 10 px) and a frame is moved 2..7 px (a tenth) or
#: defocused 1.0..1.8 px (a fifth; ``render.effects.random_effects``): each face is blurred
#: as a frame would blur it at a side drawn from ``FACE_FRAME_PX``, with the frames' own
#: chances (``FACE_BLUR_SHARES``: motion, focus). The symbol model left blurred tops null
#: (docs/vision.md, *Limits*; models/symbol.md)
FACE_FRAME_PX = (12.0, 60.0)
FACE_BLUR_SHARES = (0.1, 0.2)


def cube_faces_blurred(n: int, seed: int):
    """``cube_faces``, a share of them blurred as frames blur a face ``FACE_FRAME_PX``
    across (``frame_blur`` on the ``RENDER_SIZE`` crop, before the trainer shrinks it)."""
    from vision.render.rng import make_rng

    images, labels = cube_faces(n, seed)
    out = []
    for i, image in enumerate(images):
        rng = make_rng(seed, "face-blur", i)
        scale = RENDER_SIZE / rng.uniform(*FACE_FRAME_PX)  # crop px per frame px
        out.append(frame_blur(image, rng, scale, FACE_BLUR_SHARES))
    return out, labels


_STONE_KINDS = {"W": "white", "B": "blue", "R": "red", "K": "black", "O": "orange"}


# Cubes fields cut from whole frames as the reader cuts them (``stone_fields``): frame k of
# a source seed is scene seed FIELD_FRAME_BASE + FIELD_FRAME_STRIDE * seed + k (never the
# bench's 7,000,000+ or the dev seeds 100..999 and 8,000,000..8,999,999).
FIELD_FRAME_BASE = 30_000_000
FIELD_FRAME_STRIDE = 100_000
FIELD_CORNER_PX = 1.2  # a found board's corners are this far off (sd, each axis)
FIELD_FRAMES = 8  # frames per job
#: share of each sort of field kept from a frame: the frames are filled more densely than
#: games are (neighbours' side faces), and fewer crops a frame give more frames
FIELD_KEEP = {"colour": 0.5, "white": 0.3, "empty": 0.12}


def _field_position(seed: int, frame: int) -> dict:
    """A random Cubes position for a training frame, with its grid refilled: each frame
    its own share of stones (20-80 %) and of coloured ones among them (30-80 %), colours,
    digits and sides uniform."""
    from vision.render.positions import random_position
    from vision.render.rng import make_rng

    scene = FIELD_FRAME_BASE + FIELD_FRAME_STRIDE * seed + frame
    rng = make_rng(seed, "stone-field-grid", frame)
    occupied, coloured = rng.uniform(0.2, 0.8), rng.uniform(0.3, 0.8)
    grid = []
    for _ in range(10):
        row = []
        for _ in range(10):
            if rng.random() >= occupied:
                row.append(".")
            elif rng.random() >= coloured:
                row.append("W")
            else:
                letter = "BRKO"[int(rng.integers(4))]
                row.append((letter if rng.random() < 0.5 else letter.lower())
                           + str(int(rng.integers(2, 7))))
        grid.append(row)
    position = random_position("cubes", scene)
    position["grid"] = grid
    return position


def _field_chunk(args: tuple[int, int, int]) -> tuple[list[np.ndarray], list[str]]:
    """Frames ``start .. start + count - 1`` of ``seed``, rendered whole (any camera) and
    cut as ``vision.read_cubes.read`` cuts a field for the stone model: the planes of its
    board fix (``read_cubes.planes``, the true corners moved by ``FIELD_CORNER_PX``) and
    ``read_cubes.stone_crop`` at the field's centre on the stones' top plane, a player's
    stone turned upright by its owner's seat (``read_cubes.upright``). A share
    (``FIELD_KEEP``) of each sort of field is kept; labels are the grid tokens (``.``
    empty)."""
    from vision.board import CORNER_NAMES, BoardFix, geometry
    from vision.read_cubes import planes, stone_crop, upright
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.rng import make_rng
    from vision.render.scene import stone_turns

    count, seed, start = args
    geom = geometry("cubes")
    crops, tokens = [], []
    for frame in range(start, start + count):
        position = _field_position(seed, frame)
        turns = stone_turns(position)
        scene = FIELD_FRAME_BASE + FIELD_FRAME_STRIDE * seed + frame
        image, truth = render_scene("cubes", position, scene,
                                    options=RenderOptions(camera_mode="any"))
        rng = make_rng(seed, "stone-field-cut", frame)
        corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES], np.float64)
        corners = corners + rng.normal(0, FIELD_CORNER_PX, corners.shape)
        H6 = planes(image, BoardFix(corners, corners), geom, None)[1]
        keep = rng.random(100)
        for i, (_, u, v, _) in enumerate(geom.cells):
            token = position["grid"][i // 10][i % 10]
            sort = "empty" if token == "." else "white" if token == "W" else "colour"
            if keep[i] < FIELD_KEEP[sort]:
                crop = stone_crop(image, H6, u, v)  # turned back as the reader turns it
                crops.append(upright(crop, turns.get(token[0].upper(), 0)))
                tokens.append(token)
    return crops, tokens


def _frames_cut(work, n: int, seed: int, workers: int | None, per_frame: int,
                frames_per_job: int) -> tuple[list, list]:
    """``n`` crops and their labels from whole frames: ``work((count, seed, start))`` cuts
    frames ``start .. start + count - 1`` of ``seed``; frames are cut in order (about
    ``per_frame`` crops each) until ``n`` crops are had, so ``n`` and ``seed`` decide the
    set, whatever the number of workers."""
    crops, labels = [], []
    frame = 0
    while len(crops) < n:
        frames = math.ceil((n - len(crops)) / per_frame)
        jobs = [(min(frames_per_job, frame + frames - f), seed, f)
                for f in range(frame, frame + frames, frames_per_job)]
        more, more_labels = _in_chunks(work, jobs, workers)
        crops += more
        labels += more_labels
        frame += frames
    return crops[:n], labels[:n]


def stone_fields(n: int, seed: int, workers: int | None = None):
    """Cubes fields as the reader cuts them from frames (``_field_chunk``): white, a
    colour with its digit and side, or empty (the kind ``empty``)."""
    # about 30 crops a frame
    crops, tokens = _frames_cut(_field_chunk, n, seed, workers, 25, FIELD_FRAMES)
    return crops, {
        "kind": ["empty" if t == "." else _STONE_KINDS[t[0].upper()] for t in tokens],
        "digit": [t[1:] or None for t in tokens],
        "side": [None if t in ("W", ".") else ("active" if t[0].isupper() else "inactive")
                 for t in tokens],
    }


# e-SOLO-e cube faces cut from whole frames as the reader cuts them (``cube_face_cuts``):
# frame k of a source seed is scene seed FACE_FRAME_BASE + FACE_FRAME_STRIDE * seed + k,
# of the game FACE_GAMES[k % 3] (never the bench's 7,000,000+ or the dev seeds 100..999
# and 8,000,000..8,999,999)
FACE_FRAME_BASE = 40_000_000
FACE_FRAME_STRIDE = 100_000
FACE_GAMES = ("esoloe", "esoloe-tictactoe", "esoloe-3andc")  # 3andC: the cube head only
FACE_CORNER_PX = 1.2  # the board's corners are this far off (sd, each axis)
FACE_TOP_MM = 0.5  # the top cube's cut is this far off its true place (sd, each axis)
FACE_TOP_DEG = 2.0  # ... and turned this much (sd)
FACE_FRAMES = 8  # frames per job


def _face_chunk(args: tuple[int, int, int]) -> tuple[list[np.ndarray], list[tuple]]:
    """Frames ``start .. start + count - 1`` of ``seed``, rendered whole (any camera) and
    cut as ``vision.read_esoloe.read_fields`` cuts a cube's faces for the symbol model
    (its ``_Frame.face``: the board's pose from its corners, here the true ones moved by
    ``FACE_CORNER_PX``; every face the camera sees whole, not too small, not hidden by
    another stack; the top cube's up face and its side faces where the cube stands, give
    or take ``FACE_TOP_MM`` and ``FACE_TOP_DEG``, lower cubes' side faces on the field's
    centre). Labels per crop: (symbol or None on 3andC, quarter turns or None, player)."""
    from rules.cube import FACES
    from vision import cube_geometry as cg
    from vision.board import CORNER_NAMES, BoardFix, geometry
    from vision.read_esoloe import _Frame
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position
    from vision.render.rng import make_rng

    count, seed, start = args
    crops, labels = [], []
    for frame in range(start, start + count):
        game = FACE_GAMES[frame % len(FACE_GAMES)]
        geom = geometry(game)
        scene = FACE_FRAME_BASE + FACE_FRAME_STRIDE * seed + frame
        position = random_position(game, scene)
        image, truth = render_scene(game, position, scene,
                                    options=RenderOptions(camera_mode="any"))
        rng = make_rng(seed, "face-cut", frame)
        corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES], np.float64)
        corners = corners + rng.normal(0, FACE_CORNER_PX, corners.shape)
        cut = _Frame(image, BoardFix(corners, corners), geom, None)
        cubes = {p["key"]: p for p in truth["pieces"] if p["kind"] == "cube"}
        stacks = truth["position"]["cells"]
        boxes = {i: (u - cg.CUBE_MM / 2, u + cg.CUBE_MM / 2, v - cg.CUBE_MM / 2,
                     v + cg.CUBE_MM / 2, 0.0, len(stacks[i]) * cg.CUBE_MM)
                 for i, (_, u, v, _) in enumerate(geom.cells) if stacks[i]}
        for i, (_, u, v, _) in enumerate(geom.cells):
            others = [b for j, b in boxes.items() if j != i]
            for level, cube in enumerate(stacks[i]):
                top = level == len(stacks[i]) - 1
                if top:
                    placed = cubes[f"cube:{i}:{level}"]
                    du, dv = np.array(placed["offset_mm"]) + rng.normal(0, FACE_TOP_MM, 2)
                    at = (u + du, v + dv,
                          np.radians(placed["yaw_deg"] + rng.normal(0, FACE_TOP_DEG)))
                else:
                    at = (u, v, 0.0)
                faces = cube.get("faces") or {}
                prints = _print_tops(tuple(faces.get(d) for d in FACES))
                for d in (("up",) if top else ()) + cg.SIDE_FACES:
                    got = cut.face(*at[:2], level, at[2], d, others)
                    if got is None:
                        continue
                    symbol = faces.get(d) if geom.game != "esoloe-3andc" else None
                    turns = None
                    if symbol not in (None, "blank") and prints is not None:
                        turns = next(str(k) for k in range(4) if cg.rotation_top(
                            got[1], cg.VECTORS[d], k) == prints[FACES.index(d)])
                    crops.append(got[0])
                    labels.append((symbol, turns, CUBE_PLAYERS[cube["player"]]))
    return crops, labels


def _print_tops(faces: tuple) -> tuple | None:
    """The board direction of each face's print top (``FACES`` order) for the cube showing
    ``faces``, from the renderer's cube set's orientations; None where no orientation
    shows them (a painted cube)."""
    from vision import cube_geometry as cg
    from vision.render.frame import RenderOptions

    for o in cg.orientations(RenderOptions.cube_set):
        if o.faces == faces:
            return o.tops
    return None


def cube_face_cuts(n: int, seed: int, workers: int | None = None):
    """e-SOLO-e cube faces as the reader cuts them from frames (``_face_chunk``): the
    symbol (None on 3andC, whose cubes carry none), its quarter turns (None for blank) and
    the cube's colour."""
    # about 5 faces a frame (119 in seed 1's first 24 frames, a third of them 3andC's)
    crops, labels = _frames_cut(_face_chunk, n, seed, workers, 5, FACE_FRAMES)
    symbol, rotation, cube = zip(*labels, strict=True) if labels else ((), (), ())
    return crops, {"symbol": list(symbol), "rotation": list(rotation), "cube": list(cube)}


def cube_faces_and_cuts(n: int, seed: int):
    """Half ``cube_faces`` (rendered faces, every symbol turned every way), half
    ``cube_face_cuts`` (the faces as the reader cuts them from frames), all at the cuts'
    size (the rendered faces shrunk as the classifier shrinks them: INTER_AREA)."""
    import cv2

    from vision.read_esoloe import FACE_CROP

    faces, labels = cube_faces(n - n // 2, seed)
    faces = [cv2.resize(f, (FACE_CROP, FACE_CROP), interpolation=cv2.INTER_AREA)
             for f in faces]
    cuts, cut_labels = cube_face_cuts(n // 2, seed)
    return faces + cuts, {h: labels[h] + cut_labels[h] for h in labels}


# e-SOLO-e stacks cut from whole frames as the reader cuts them for the height model
# (``stack_fields``): frame k of a source seed is scene seed HEIGHT_FRAME_BASE +
# HEIGHT_FRAME_STRIDE * seed + k (never the bench's 7,000,000+ or the dev seeds 100..999
# and 8,000,000..8,999,999)
HEIGHT_FRAME_BASE = 50_000_000
HEIGHT_FRAME_STRIDE = 100_000
HEIGHT_CORNER_PX = 1.2  # the board's corners are this far off (sd, each axis)
HEIGHT_OVERHEAD = 2 / 3  # share of the frames drawn overhead (the rest: camera any), where
#   the levels are not seen and heights were read worst (docs/vision.md, Stack height)
HEIGHT_PLIES = (6, 16)  # a frame's playout is this many plies long (the reader's games
#   0..16: fewer leave fields empty, which cost frames and give no crops)
HEIGHT_FRAMES = 8  # frames per job


def _height_chunk(args: tuple[int, int, int]) -> tuple[list[np.ndarray], list[int]]:
    """Frames ``start .. start + count - 1`` of ``seed``: random e-SOLO-e positions
    (``random_position``: legal playouts of ``HEIGHT_PLIES`` plies), rendered whole
    (overhead or any camera, ``HEIGHT_OVERHEAD``) and every occupied field cut by
    ``stack_height.height_crop`` on the pose of the true corners moved by
    ``HEIGHT_CORNER_PX`` (``vision.grid.board_pose``, the assumed camera, as the reader
    without calibration); labels: the stacks' heights."""
    from vision.board import CORNER_NAMES, BoardFix, geometry
    from vision.grid import board_pose
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position
    from vision.render.rng import make_rng
    from vision.stack_height import height_crop

    count, seed, start = args
    geom = geometry("esoloe")
    crops, heights = [], []
    for frame in range(start, start + count):
        scene = HEIGHT_FRAME_BASE + HEIGHT_FRAME_STRIDE * seed + frame
        rng = make_rng(seed, "height-cut", frame)
        camera = "overhead" if rng.random() < HEIGHT_OVERHEAD else "any"
        plies = int(rng.integers(HEIGHT_PLIES[0], HEIGHT_PLIES[1] + 1))
        image, truth = render_scene("esoloe", random_position("esoloe", scene, plies), scene,
                                    options=RenderOptions(camera_mode=camera))
        corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES], np.float64)
        corners = corners + rng.normal(0, HEIGHT_CORNER_PX, corners.shape)
        pose = board_pose(BoardFix(corners, corners), geom, (image.shape[1], image.shape[0]))
        for (_, u, v, _), stack in zip(geom.cells, truth["position"]["cells"], strict=True):
            if stack:
                crops.append(height_crop(image, pose, u, v))
                heights.append(len(stack))
    return crops, heights


def stack_fields(n: int, seed: int, workers: int | None = None):
    """e-SOLO-e stacks as the reader cuts them for the height model (``_height_chunk``):
    the number of cubes, 1..4."""
    # about 4 stacks a frame
    crops, heights = _frames_cut(_height_chunk, n, seed, workers, 4, HEIGHT_FRAMES)
    return crops, {"height": [str(h) for h in heights]}


#: the code that makes the crops: the renderer, these sources and the readers' cuts they use
CROP_CODE = (REPO / "vision" / "render", REPO / "vision" / "train" / "sources.py",
             REPO / "vision" / "read_miwin.py", REPO / "vision" / "read_cubes.py",
             REPO / "vision" / "read_esoloe.py", REPO / "vision" / "cube_geometry.py",
             REPO / "vision" / "stack_height.py")


def crop_code_digest(paths: tuple[Path, ...] = CROP_CODE) -> str:
    """A short digest of the Python files under ``paths``: crops cached by other code
    (another renderer's glyphs, another cut) are not the crops this code makes."""
    digest = hashlib.sha256()
    for root in paths:
        for path in sorted([root] if root.is_file() else root.rglob("*.py")):
            digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cached(spec: ModelSpec, n: int, seed: int, cache: Path | None = CACHE):
    """The model's crop source's ``(crops, labels)`` for ``n`` and ``seed``, read from or
    written to ``cache`` when given (``NAME-SOURCE-SEED-N-CODE.npz``: SOURCE the source
    function's name, CODE ``crop_code_digest()``, so a change to the code that makes the
    crops renders them afresh)."""
    source = spec.crop_source().__name__
    path = (cache / f"{spec.name}-{source}-{seed}-{n}-{crop_code_digest()}.npz"
            if cache else None)
    if path is not None and path.is_file():
        with np.load(path) as saved:
            return list(saved["crops"]), json.loads(str(saved["labels"]))
    crops, labels = spec.crop_source()(n, seed)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, crops=np.stack(crops), labels=json.dumps(labels))
    return crops, labels
