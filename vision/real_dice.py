"""The real dice photos in ../shared/data/real-dice: crops of real six-sided dice with their
top face's pip count, in three source groups (see that folder's README.md).

They are the only real images the project has: use them to measure the pip readers and to
adapt them, never to report accuracy on crops that were trained on. ``split`` makes the
enrolment/held-out split deterministic so every report can name the crops it used.

The folder is ``<repo>/../shared/data/real-dice``; set ``TABLEREF_SHARED`` to the shared
folder (the one holding ``data/``) to read it from elsewhere.
"""

from __future__ import annotations

import csv
import hashlib
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ENV_VAR = "TABLEREF_SHARED"
GROUPS = ("IMG2019", "other", "IMGother")
_REPO = Path(__file__).resolve().parent.parent


class RealDiceMissing(FileNotFoundError):
    """The real-dice folder, its labels.csv or one of its crops is missing or unreadable."""


@dataclass(frozen=True)
class Crop:
    path: Path
    pips: int
    source: str

    @property
    def name(self) -> str:
        return self.path.name

    def image(self) -> np.ndarray:
        """The crop as a BGR uint8 array."""
        image = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if image is None:
            raise RealDiceMissing(f"cannot read real-dice crop {self.path}")
        return image


def data_dir() -> Path:
    """The real-dice folder: $TABLEREF_SHARED/data/real-dice, else <repo>/../shared/..."""
    shared = os.environ.get(ENV_VAR)
    base = Path(shared) if shared else _REPO.parent / "shared"
    return base / "data" / "real-dice"


def load(root: Path | None = None) -> list[Crop]:
    """All crops with their labels, in labels.csv order."""
    root = Path(root) if root is not None else data_dir()
    labels = root / "labels.csv"
    if not labels.is_file():
        raise RealDiceMissing(
            f"real-dice labels not found at {labels} (set {ENV_VAR} to the shared folder "
            "that holds data/real-dice)"
        )
    crops = []
    with labels.open(newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:
                crops.append(Crop(root / row["file"], int(row["pips"]), row["source"]))
            except (KeyError, TypeError, ValueError) as err:
                raise RealDiceMissing(f"{labels}:{line}: bad row {row} ({err})") from None
    return crops


def by_group(crops: list[Crop]) -> dict[str, list[Crop]]:
    """Crops by source group, groups in GROUPS order (unknown groups after them)."""
    groups: dict[str, list[Crop]] = defaultdict(list)
    for crop in crops:
        groups[crop.source].append(crop)
    order = [g for g in GROUPS if g in groups] + sorted(set(groups) - set(GROUPS))
    return {g: groups[g] for g in order}


def split(
    crops: list[Crop], group: str, fraction: float, seed: str = "tableref"
) -> tuple[list[Crop], list[Crop]]:
    """(enrol, held_out): ``fraction`` of ``group``'s crops of each pip count for enrolment
    or training; the rest of that group and every other group are held out.

    The choice hashes each file name with ``seed``, so it is the same on every machine and
    does not move when crops are added to other groups.
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must lie in [0, 1], not {fraction}")
    per_class: dict[int, list[Crop]] = defaultdict(list)
    for crop in crops:
        if crop.source == group:
            per_class[crop.pips].append(crop)
    if not per_class:
        raise ValueError(f"no crops of group {group!r} (groups: {sorted(by_group(crops))})")
    chosen: set[Path] = set()
    for members in per_class.values():
        members = sorted(members, key=lambda c: _rank(seed, c.name))
        chosen.update(c.path for c in members[: round(fraction * len(members))])
    enrol = [c for c in crops if c.path in chosen]
    held_out = [c for c in crops if c.path not in chosen]
    return enrol, held_out


def trained_split(crops: list[Crop], training: dict | list[dict] | None
                  ) -> tuple[list[Crop], list[Crop]]:
    """(trained on, held out) for a model's ``real_dice_training`` metadata: None (no real
    crop trained on), one ``split`` argument dict, or a list of them (one per group)."""
    if not training:
        return [], list(crops)
    chosen: set[Path] = set()
    for arguments in [training] if isinstance(training, dict) else training:
        chosen.update(c.path for c in split(crops, **arguments)[0])
    return [c for c in crops if c.path in chosen], [c for c in crops if c.path not in chosen]


def parse_adapt(text: str, seed: str = "tableref") -> list[dict]:
    """``"IMG2019:0.3,other:0.5"`` -> the ``split`` arguments of each group (fraction 0.3
    when left out)."""
    out = []
    for part in text.split(","):
        group, _, fraction = part.strip().partition(":")
        try:
            value = float(fraction or 0.3)
        except ValueError:
            raise ValueError(f"bad adaptation {part!r}: need GROUP:FRACTION") from None
        out.append({"group": group, "fraction": value, "seed": seed})
    return out


def _rank(seed: str, name: str) -> str:
    return hashlib.sha1(f"{seed}/{name}".encode()).hexdigest()
