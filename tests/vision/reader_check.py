"""Shared checks of the game readers on renders (the reader alone, on the render's true
board corners, so that board finding does not decide the outcome)."""

from __future__ import annotations

import importlib

from rules.core import InvalidPosition
from rules.registry import get_game
from vision.board import geometry
from vision.measure import elements, truth_fix
from vision.observe import READERS
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position


def read_render(game: str, seed: int, camera: str = "overhead"):
    """(reading, truth position) of the render of seed ``seed`` from ``camera`` (a render
    camera mode; the truth's position: a board without marks is named by the camera,
    docs/vision.md)."""
    image, truth = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(camera_mode=camera))
    reader = importlib.import_module(READERS[game])
    return reader.read(image, truth_fix(truth), geometry(game), None), truth["position"]


def check(game: str, seed: int, parses: bool = True) -> list[str]:
    """Read one render; assert that the position parses (when ``parses``) and that every
    element that differs from the truth is listed in ``uncertain``, and that the
    confidences are probabilities. Returns the differing elements."""
    reading, position = read_render(game, seed)
    if parses:
        get_game(game).position_from_json(reading.position)
    want, have = elements(game, position), elements(game, reading.position)
    listed = {u["path"] for u in reading.uncertain}
    for i, p in enumerate(reading.position.get("players") or []):  # Cubes: by seat
        if f"players.{i}.dependency" in listed:
            listed.add(f"dependency.{p['seat']}")
    wrong = [k for k, v in want.items() if have.get(k) != v]
    unlisted = [k for k in wrong if not any(p == k or k.startswith(p + ".")
                                            or p.startswith(k + ".") for p in listed)]
    assert not unlisted, f"{game} seed {seed}: read wrong but not listed uncertain: " + ", ".join(
        f"{k} (read {have.get(k)!r}, true {want[k]!r})" for k in unlisted)
    assert all(0.0 <= c <= 1.0 for c in reading.confidences)
    for u in reading.uncertain:
        assert u["confidence"] < 0.9
    return wrong


def parses(game: str, position: dict) -> bool:
    try:
        get_game(game).position_from_json(position)
    except InvalidPosition:
        return False
    return True


def assert_sweep(game: str, camera: str, element: float, exact: float) -> None:
    """The reader alone on the 40 dev renders 100..139 (true corners) reads at least
    ``element`` and ``exact`` per cent (levels measured, less a margin: a fall below them
    is a regression)."""
    from vision.measure import evaluate, summary

    row = summary(evaluate(game, range(100, 140), camera, truth_board=True))
    assert row["element %"] >= element and row["exact %"] >= exact, row
