"""Hands drawn at the frame's edge."""

import numpy as np
import pytest

from device.demo import scripted_positions
from vision.render.effects import Effects
from vision.render.frame import RenderOptions
from vision.render.script import ScriptedGame


@pytest.mark.parametrize("view, seat, index", [("overhead", "south", 46),
                                               ("oblique", "north", 78)])
def test_moving_hand_leaving_as_a_one_pixel_sliver_renders(view, seat, index):
    """3andC seed 13 (the demo's frames, 4 a second): the hand leaving the board is a
    sliver one pixel wide (overhead) or high (from the north) at the frame's edge and
    moves fast enough to be smeared at half size, which halved it to nothing
    (cv2.error in resize)."""
    game = ScriptedGame("esoloe-3andc", scripted_positions("esoloe-3andc", 13, 12), seed=13,
                        fps=4.0, start_time=0.0, seat=seat,
                        options=RenderOptions(camera_mode=view, effects=Effects.clean()))
    frame = game.frame(index)
    assert frame.phase == "leave"
    (hand,) = frame.truth["hands"]
    assert np.hypot(*hand["motion_mm"][:2]) > 10  # moving: smeared
    assert frame.image.shape == (720, 1280, 3)
