"""What a game's reader gives back for one frame: the position and how sure it is.

Each game family has a reader module (``vision.read_esoloe`` for the e-SOLO-e family, ...)
with ``read(image, fix, geom, calibration) -> Reading``; ``vision.observe`` finds the board,
calls the game's reader and wraps the reading into the wire format.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Reading:
    """``position``: the observation's position object. ``confidences``: one per element
    read (the observation's confidence is their minimum). ``uncertain``: the entries of the
    ``uncertain`` extension (docs/observation-extensions.md): path, confidence and, where
    known, the next most likely readings as ``alternatives`` [[value, probability], ...].
    ``pieces``: where the reader found pieces that may lean across the board's edge in the
    image, as the board's pose (``vision.grid.BoardPose``) and upright boxes (u, v, half
    side, z0, z1; board frame mm), for its ``covered`` mask (``cube_geometry.boxes_mask``)
    without searching the image again; None where it records none."""

    position: dict
    confidences: list[float] = field(default_factory=list)
    uncertain: list[dict] = field(default_factory=list)
    pieces: tuple | None = None

    def add(self, confidence: float, path: str | None = None, threshold: float = 0.9,
            alternatives: list | None = None) -> None:
        """Count one element's confidence; list it as uncertain below ``threshold``."""
        self.confidences.append(float(confidence))
        if path is not None and confidence < threshold:
            entry: dict = {"path": path, "confidence": round(float(confidence), 4)}
            if alternatives:
                entry["alternatives"] = alternatives
            self.uncertain.append(entry)

    def forget_under(self, path: str) -> None:
        """Take out the entries of the elements inside ``path`` (``cells.4`` takes out
        ``cells.4.1.player``, ...) and their confidences: the element at ``path`` was
        read again as a whole (``vision.observe.most_likely_valid``), so they described
        what it no longer holds and may name what is no longer there."""
        inside = [u for u in self.uncertain if u["path"].startswith(path + ".")]
        for entry in inside:
            self.uncertain.remove(entry)
            # an entry's confidence is its element's (``add``), rounded
            self.confidences.remove(min(self.confidences,
                                        key=lambda c: abs(c - entry["confidence"])))
