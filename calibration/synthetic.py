"""Synthetic captures for enrolment: the renderer's crops (``render_crops``) playing the
user who shows each face when asked, for the demo, the tests and the benchmark.

``RenderedCrops(kind, seed, variant)`` renders crops in batches and files them by the
(piece, label) they show; asking for a face returns the next unused crop of it, rendering
more batches as needed. ``variant`` selects another look of the set where the renderer
offers one (``"other-set"``: other wood, symbol drawings, pip colours and light).

What enrolment captures (the plans' kinds ``field``, ``up``, ``top``: Cubes' stones,
e-SOLO-e's up faces, Miwin's die tops) are not the renderer's crops but whole frames of
one table (``seed``: its board, lamps and camera stay, as a table's do) with the pieces
placed anew each frame, cut as the game's reader cuts them (``calibration.enrol``'s
``stone_field_crops``, ``up_face_crops``, ``die_top_crops``) on the table's registered
board (found on a frame of the empty board, as ``tableref calibrate board`` does, then
used for every frame, as ``tableref enrol --board`` does): the picture the profile will
be given when the reader reads a game at that table. The renderer's crops (``face``,
``die``, ``die top``: cut again as the pip reader cuts a die, ``stone``) are for the
other set, which whole frames do not show.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from calibration.enrol import ANY_DIE, EnrolError, Face

RENDER_SIZE = 64
DIE_CENTRE = 0.625  # die crops keep their centre, as the pip model's training crops did
DIE_TOP_RENDER_SIZE = 80  # ``die top``: the die's top spans 27-40 px, as in a 1280 x 720
#   frame (vision.train.sources.DIE_RENDER_SIZE)
STONE_RENDER_SIZE, STONE_CENTRE = 80, 0.55  # as the stone model's training crops
STONE_COLOURS = {"W": "white", "B": "blue", "R": "red", "K": "black", "O": "orange"}
BATCH = 24
MAX_RENDERS = 4000  # per face asked for, before giving up
#: scene seed of the Cubes table ``seed``: FIELD_SCENES + seed (not the vision bench's
#: 7,000,000.., the dev seeds 100..999 and 8,000,000.., nor the stone model's training
#: frames, 30,000,000..)
FIELD_SCENES = 50_000_000
FIELD_EMPTY = 9  # empty fields cut from each frame besides its stones


def crop_key(kind: str, label: dict) -> tuple[str, str]:
    """(piece, label) of a rendered crop, as enrolment's ``Face`` names them."""
    if kind == "face":
        return ("natural", "green")[label["player"]] + " cube", label["label"]
    if kind in ("die", "die top"):
        return f"{label['colour']} die", str(label["top"])
    if kind == "stone":  # one piece per stone: its two sides are two faces
        token = label["token"]
        return " ".join((STONE_COLOURS[token[0].upper()], *token[1:], "stone")), token
    raise EnrolError(f"no synthetic captures of {kind!r} crops")


#: the game whose frames the synthetic user shows, by plan kind where it is not given
FRAME_GAMES = {"field": "cubes", "up": "esoloe", "top": "tyr"}
#: a registration whose corners are this far (px) from the truth's is named otherwise
NAMED_OTHERWISE_PX = 20.0


def field_frame(seed: int, frame: int, variant: str | None = None, game: str = "cubes"):
    """Frame ``frame`` of ``game``'s table ``seed`` (one scene seed: the table, board,
    lamps and camera, any camera, are the same in all its frames; the sensor noise is
    the frame's) with pieces showing faces of enrolment's plan, cut as the game's reader
    cuts them (``enrol.board_crop``'s functions) on the registered board
    (``registered_board``), with their (piece, label) keys. Cubes: every stone (a white
    one, each coloured stone on both sides: 41) on a field of its own, drawn for the
    frame, and ``FIELD_EMPTY`` empty fields (``enrol.EMPTY_FACE``'s key); e-SOLO-e and
    tic-tac-toe: a cube on every field, each an up face and player drawn for the frame;
    Tyr: the three dice on fields drawn for the frame, Neunfeld: the dice where its
    random position puts them; each die's top the frame's number of its faces in turn.
    Crops the reader does not give (a face it does not see) are left out. None where the
    board was not found (or so wrongly that no camera fits its corners)."""
    from calibration.enrol import (
        EMPTY_FACE,
        die_top_crops,
        plan,
        stone_field_crops,
        up_face_crops,
    )
    from rules.miwin import BY_COLOUR
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.scene import stone_turns

    if variant not in (None, "default"):
        raise EnrolError(f"the renderer draws whole frames in the games' own set only: "
                         f"no {variant} pieces on a board")
    faces = list(plan(game).faces)
    rng = np.random.default_rng([seed, frame])
    position = _position(game, seed)
    if game == "cubes":
        fields = rng.permutation(100)[:len(faces) + FIELD_EMPTY]
        grid = [["."] * 10 for _ in range(10)]
        for face, i in zip(faces, fields, strict=False):
            grid[i // 10][i % 10] = face.label
        position["grid"] = grid
    elif game in ("tyr", "neunfeld"):
        cells = rng.permutation(81)[:3]
        for k, (colour, die) in enumerate(BY_COLOUR.items()):
            position["dice"][colour]["top"] = die.faces[(frame + k) % len(die.faces)]
            if game == "tyr":
                position["dice"][colour]["cell"] = [int(cells[k] // 9 + 1), int(cells[k] % 9 + 1)]
    else:
        order = rng.permutation(len(faces))
        position["cells"] = [[{"player": int(f.piece.startswith("green")),
                               "faces": {"up": f.label}}]
                             for f in (faces[order[j % len(faces)]]
                                       for j in range(len(position["cells"])))]
    image, truth = render_scene(game, position, FIELD_SCENES + seed,
                                options=RenderOptions(frame=frame))
    fix = registered_board(seed, game)
    if fix is None:
        return None
    try:
        if game == "cubes":
            names = [f"{i // 10},{i % 10}" for i in fields]
            keys = [(f.piece, f.label) for f in faces] + \
                [(EMPTY_FACE.piece, EMPTY_FACE.label)] * FIELD_EMPTY
            laid = stone_turns(position)  # how the renderer laid each colour's stones
            turns = [laid.get(f.label[0].upper(), 0) for f in faces] + [0] * FIELD_EMPTY
            return stone_field_crops(image, fix, names, turns=turns), keys
        if game in ("tyr", "neunfeld"):
            tops = die_top_crops(game, image, fix)
            return list(tops.values()), [(f"{c} die", str(truth["position"]["dice"][c]["top"]))
                                         for c in tops]
        from vision.board import geometry

        names = [name for name, *_ in geometry(game).cells]
        cut = up_face_crops(image, fix, game, names)
        # the truth's cells are named as vision names the board (a tile without marks:
        # by the camera)
        shown = [(("natural", "green")[cell[-1]["player"]] + " cube", cell[-1]["faces"]["up"])
                 for cell in truth["position"]["cells"]]
        keep = [i for i, crop in enumerate(cut) if crop is not None]
        return [cut[i] for i in keep], [shown[i] for i in keep]
    except EnrolError:  # a board found wrongly: no camera fits its corners
        return None


def _position(game: str, seed: int) -> dict:
    """The table ``seed``'s position with nothing on the fields that the frames fill."""
    from vision.render.positions import random_position

    position = random_position(game, FIELD_SCENES + seed)
    if game == "cubes":
        position["grid"] = [["."] * 10 for _ in range(10)]
    elif game == "tyr":
        for die in position["dice"].values():
            die["cell"] = None
    elif game not in ("neunfeld",):
        position["cells"] = [[] for _ in position["cells"]]
    return position


_REGISTERED: dict = {}


def registered_board(seed: int, game: str = "cubes"):
    """``game``'s table ``seed``'s board as registered: found (``vision.board.find_board``)
    on a frame of the empty board (Tyr's dice beside it, Neunfeld's pieces as its random
    position has them); None where it is not found, or named otherwise than the truth
    names it (a user would see the fields named wrongly and register it by hand). (On a
    board full of stones the finder sometimes names it a quarter turn off: a
    registration is made on the empty board.)"""
    from vision.board import CORNER_NAMES, find_board, geometry
    from vision.render.frame import render_scene

    if (game, seed) not in _REGISTERED:
        image, truth = render_scene(game, _position(game, seed), FIELD_SCENES + seed)
        fix = find_board(image, geometry(game))
        true = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])
        if fix is not None and np.abs(fix.corners - true).max() > NAMED_OTHERWISE_PX:
            fix = None
        _REGISTERED[game, seed] = fix
    return _REGISTERED[game, seed]


def render(kind: str, n: int, seed: int, start: int = 0, variant: str | None = None,
           game: str | None = None):
    """``n`` crops as the model reads them and their (piece, label) keys (a kind cut from
    frames, ``FRAME_GAMES``: those of frames ``start``, ``start`` + 1, ... of ``game``'s
    ``field_frame``, as many as make ``n``; the renderer's crops of the kind otherwise)."""
    from vision.render.crops import render_crops

    if kind in FRAME_GAMES:
        crops, keys, frame = [], [], start
        while len(crops) < n:
            cut = field_frame(seed, frame, variant, game or FRAME_GAMES[kind])
            frame += 1
            if cut is not None:
                crops += cut[0]
                keys += cut[1]
        return crops[:n], keys[:n]
    extra = {} if variant is None else {"variant": variant}
    size, keep = {"die": (RENDER_SIZE, DIE_CENTRE), "die top": (DIE_TOP_RENDER_SIZE, 1.0),
                  "stone": (STONE_RENDER_SIZE, STONE_CENTRE)}.get(kind, (RENDER_SIZE, 1.0))
    try:
        images, labels = render_crops(kind.split()[0], n, seed, size=size, start=start,
                                      **extra)
    except (TypeError, ValueError) as err:
        raise EnrolError(f"the renderer cannot make {variant or 'default'} {kind} crops "
                         f"({err})") from None
    if kind == "die top":  # the renderer's die crops cut again as the pip reader cuts a die
        from vision.read_miwin import Die, top_crops

        crops = [top_crops(image, np.array(label["top_plane"]),
                           [Die(label["colour"], *label["centre_mm"], 1.0)])[0]
                 for image, label in zip(images, labels, strict=True)]
    else:
        lo = round(size * (1 - keep) / 2)
        crops = [c[lo:size - lo, lo:size - lo] for c in images]
    return crops, [crop_key(kind, label) for label in labels]


class RenderedCrops:
    """A synthetic user: ``capture(face, attempt)`` returns a fresh crop of ``face`` (a
    kind cut from frames: of ``game``'s, by default ``FRAME_GAMES``')."""

    def __init__(self, kind: str, seed: int, variant: str | None = None,
                 game: str | None = None):
        self.kind, self.seed, self.variant = kind, seed, variant
        self.game = game or FRAME_GAMES.get(kind)
        self._next = 0
        self._stock: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)

    def __call__(self, face: Face, attempt: int = 0) -> np.ndarray:
        """A crop of ``face``: its piece showing its label (``ANY_DIE``: any die)."""
        rendered = 0
        while not (key := self._key(face)):
            if rendered >= MAX_RENDERS:
                raise EnrolError(f"the renderer gave no {face.prompt} in {rendered} crops")
            if self.kind in FRAME_GAMES:  # a frame at a time
                cut = field_frame(self.seed, self._next, self.variant, self.game)
                crops, keys = cut or ([], [])
                self._next += 1
            else:
                crops, keys = render(self.kind, BATCH, self.seed, self._next, self.variant)
                self._next += BATCH
            rendered += max(len(crops), BATCH)
            for crop, k in zip(crops, keys, strict=True):
                self._stock[k].append(crop)
        return self._stock[key].pop(0)

    def _key(self, face: Face) -> tuple[str, str] | None:
        """The stock's key of a crop of ``face`` in stock, None while there is none."""
        if face.piece != ANY_DIE:
            key = (face.piece, face.label)
            return key if self._stock[key] else None
        return next((k for k, crops in self._stock.items()
                     if crops and k[1] == face.label and k[0].endswith(" die")), None)
