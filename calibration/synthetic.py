"""Synthetic captures for enrolment: the renderer's crops (``render_crops``) playing the
user who shows each face when asked, for the demo, the tests and the benchmark.

``RenderedCrops(kind, seed, variant)`` renders crops in batches and files them by the
(piece, label) they show; asking for a face returns the next unused crop of it, rendering
more batches as needed. ``variant`` selects another look of the set where the renderer
offers one (``"other-set"``: other wood, symbol drawings, pip colours and light).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from calibration.enrol import EnrolError, Face

RENDER_SIZE = 64
DIE_CENTRE = 0.625  # die crops keep their centre, as the pip model's training crops do
STONE_RENDER_SIZE, STONE_CENTRE = 80, 0.55  # as the stone model's training crops
STONE_COLOURS = {"W": "white", "B": "blue", "R": "red", "K": "black", "O": "orange"}
BATCH = 24
MAX_RENDERS = 4000  # per face asked for, before giving up


def crop_key(kind: str, label: dict) -> tuple[str, str]:
    """(piece, label) of a rendered crop, as enrolment's ``Face`` names them."""
    if kind == "face":
        return ("natural", "green")[label["player"]] + " cube", label["label"]
    if kind == "die":
        return f"{label['colour']} die", str(label["top"])
    if kind == "stone":  # one piece per stone: its two sides are two faces
        token = label["token"]
        return " ".join((STONE_COLOURS[token[0].upper()], *token[1:], "stone")), token
    raise EnrolError(f"no synthetic captures of {kind!r} crops")


def render(kind: str, n: int, seed: int, start: int = 0, variant: str | None = None):
    """``n`` crops as the model reads them and their (piece, label) keys."""
    from vision.render.crops import render_crops

    extra = {} if variant is None else {"variant": variant}
    size, keep = {"die": (RENDER_SIZE, DIE_CENTRE),
                  "stone": (STONE_RENDER_SIZE, STONE_CENTRE)}.get(kind, (RENDER_SIZE, 1.0))
    try:
        images, labels = render_crops(kind, n, seed, size=size, start=start, **extra)
    except (TypeError, ValueError) as err:
        raise EnrolError(f"the renderer cannot make {variant or 'default'} {kind} crops "
                         f"({err})") from None
    lo = round(size * (1 - keep) / 2)
    crops = [c[lo:size - lo, lo:size - lo] for c in images]
    return crops, [crop_key(kind, label) for label in labels]


class RenderedCrops:
    """A synthetic user: ``capture(face, attempt)`` returns a fresh crop of ``face``."""

    def __init__(self, kind: str, seed: int, variant: str | None = None):
        self.kind, self.seed, self.variant = kind, seed, variant
        self._next = 0
        self._stock: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)

    def __call__(self, face: Face, attempt: int = 0) -> np.ndarray:
        key = (face.piece, face.label)
        rendered = 0
        while not self._stock[key]:
            if rendered >= MAX_RENDERS:
                raise EnrolError(f"the renderer gave no {face.prompt} in {rendered} crops")
            crops, keys = render(self.kind, BATCH, self.seed, self._next, self.variant)
            self._next += BATCH
            rendered += BATCH
            for crop, k in zip(crops, keys, strict=True):
                self._stock[k].append(crop)
        return self._stock[key].pop(0)
