"""Deterministic random streams: one seed, many independent named sub-streams.

Every random draw in the renderer comes from a ``numpy.random.Generator(PCG64(...))``
made here, keyed by the image seed and a tag (``"camera"``, ``("piece", 3, 1)``...), so
that the same seed gives the same image bit for bit, and adding a piece to a scene does
not change the camera or the lamps.
"""

from __future__ import annotations

import zlib

import numpy as np


def _word(tag) -> int:
    if isinstance(tag, bool | np.bool_):
        return int(tag)
    if isinstance(tag, int | np.integer):
        return int(tag) & 0xFFFFFFFF
    return zlib.crc32(repr(tag).encode("utf-8"))


def make_rng(seed: int, *tags) -> np.random.Generator:
    """A generator for ``seed`` and the sub-stream named by ``tags``."""
    words = [int(seed) & 0xFFFFFFFF, (int(seed) >> 32) & 0xFFFFFFFF, *(_word(t) for t in tags)]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words)))


def sub_seed(seed: int, *tags) -> int:
    """A 63-bit seed derived from ``seed`` and ``tags`` (for items of a data set)."""
    return int(make_rng(seed, "sub", *tags).integers(0, 2**63 - 1))
