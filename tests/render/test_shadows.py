"""Pieces cast shadows on other pieces: a tall stack darkens its neighbour's top."""

import cv2
import numpy as np

from vision.render.camera import make_camera
from vision.render.effects import Effects
from vision.render.frame import RenderOptions, photograph
from vision.render.scene import Lamp, build_scene


def _cube(player, up):
    return {"player": player, "faces": {"up": up}}


def _top_of_neighbour(stack_height: int, lamp_xyz) -> float:
    """Mean brightness of the up face of the single cube on field 1, with a stack of
    ``stack_height`` cubes on field 0 and one lamp at ``lamp_xyz``."""
    pos = {"cells": [[_cube(k % 2, "sakura") for k in range(stack_height)],
                     [_cube(0, "fuji")], [], [], []]}
    scene = build_scene("esoloe", pos, 5, table="cloth", board_pose=(0.0, 0.0, 0.0))
    scene.lamps = [Lamp(np.array(lamp_xyz, float), np.ones(3, np.float32), 5.0)]
    cam = make_camera((-24, 0, 0), 0.0, 0.0, 260, hfov=60)
    opt = RenderOptions(effects=Effects.clean(), distortion=False)
    img, truth = photograph(scene, cam, Effects.clean(), opt)
    piece = next(p for p in truth["pieces"] if p["key"] == "cube:1:0")
    up = next(f for f in piece["visible_faces"] if f["direction"] == "up")
    mask = np.zeros(img.shape[:2], np.uint8)
    poly = np.array(up["polygon"], np.float32)
    inner = poly.mean(0) + 0.7 * (poly - poly.mean(0))  # away from the bevelled edges
    cv2.fillConvexPoly(mask, np.round(inner).astype(np.int32), 255)
    return float(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)[mask > 0].mean())


def test_a_stack_shades_its_neighbour_from_a_low_lamp():
    west = (-450.0, 0.0, 220.0)  # low in the west: the stack's shadow falls east on field 1
    alone = _top_of_neighbour(1, west)
    shaded = _top_of_neighbour(4, west)
    assert shaded < 0.6 * alone, (shaded, alone)
    # the same stack with the lamp in the east throws its shadow away from field 1
    east = (450.0, 0.0, 220.0)
    assert abs(_top_of_neighbour(4, east) - _top_of_neighbour(1, east)) < 0.03 * 255
