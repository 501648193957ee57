"""One photograph of a table: ``render_scene`` is the renderer's main entry point."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vision.render.camera import FRAME_SIZE, Camera, Distorter, random_camera
from vision.render.draw import render_canvas
from vision.render.effects import Effects, apply_effects, random_effects
from vision.render.rng import make_rng
from vision.render.scene import Scene, build_scene
from vision.render.truth import build_truth


@dataclass(frozen=True)
class RenderOptions:
    """How to photograph a scene. Everything left None is drawn from the seed."""

    camera_mode: str = "any"  # overhead, oblique or any
    size: tuple[int, int] = FRAME_SIZE
    effects: Effects | None = None  # None: random; Effects.clean(): none at all
    distortion: bool = True
    table: str | None = None  # wood, cloth, paper
    board_pose: tuple[float, float, float] | None = None  # x mm, y mm, yaw degrees
    azimuth_spread: float = 25.0  # degrees of camera azimuth around the south side
    max_distance: float = 1000.0  # mm, farthest camera
    cube_set: str = "corner"
    hands: tuple = ()  # hands.Hand objects to draw (scripted frames)
    frame: int = 0  # frame number: the sensor noise differs per frame


def render_scene(game: str, position: dict, seed: int, camera: Camera | None = None,
                 options: RenderOptions | None = None) -> tuple[np.ndarray, dict]:
    """Render ``position`` (an observation's position object) of ``game``.

    Returns (image, truth): a BGR uint8 image (``options.size``, 1280 x 720 by default)
    and its ground truth (see truth.py and docs/renderer.md). The same arguments give the
    same bytes. ``camera`` fixes the camera; by default it is drawn from the seed.
    """
    opt = options or RenderOptions()
    scene = build_scene(game, position, seed, table=opt.table, board_pose=opt.board_pose,
                        cube_set=opt.cube_set)
    if camera is None:
        camera = camera_for(scene, seed, opt)
    fx = opt.effects if opt.effects is not None else random_effects(make_rng(seed, "effects"))
    return photograph(scene, camera, fx, opt)


def camera_for(scene: Scene, seed: int, opt: RenderOptions) -> Camera:
    return random_camera(make_rng(seed, "camera"), scene.target, scene.extent,
                         opt.camera_mode, opt.size, opt.azimuth_spread, opt.distortion,
                         opt.max_distance)


def photograph(scene: Scene, camera: Camera, fx: Effects, opt: RenderOptions):
    if not opt.distortion:
        camera = replace(camera, dist=np.zeros(5))
    dist = Distorter(camera)
    rendered = render_canvas(scene, dist.canvas_camera, opt.hands)
    canvas = dist.apply(rendered.canvas)
    image = apply_effects(canvas, fx, make_rng(scene.seed, "noise", opt.frame))
    extra = {"effects": fx.to_json(), "frame": opt.frame}
    if opt.hands:
        extra["hands"] = [h.to_json() for h in opt.hands]
    truth = build_truth(scene, camera, dist.canvas_camera, dist.margin, rendered, extra)
    return image, truth
