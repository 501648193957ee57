"""3andC's blue glaze is background to the stack heights: seen obliquely past a cube, an
empty blue field behind it is neither the white glaze nor the table, and the cube was
read two high (in a game that forbids stacking)."""

import cv2
import numpy as np
import pytest

from vision.board import geometry, three_and_c_blue
from vision.grid import board_pose
from vision.measure import truth_fix
from vision.read_esoloe import read_fields
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position
from vision.stack_height import BlueHue, blue_glaze


def _render(game: str, seed: int):
    return render_scene(game, random_position(game, seed), seed,
                        options=RenderOptions(camera_mode="any"))


# dev renders (camera "any", tuning seeds; never the bench's 7_000_000+): the single cube
# before an empty blue field (164's and 184's field 3, 155's field 7) was read two high.
# Only that field is asserted: since the renderer's painted lines changed (b07447b), 155's
# field 0 (a green cube on a blue field, 1.5 px a mm in dim light) read empty and the
# cube in front of it, field 3, took its top as a second level; that is a different
# error (an occupied field missed: stack_height.BLUE_MIN_LIGHT,
# test_read_esoloe_blue_fields.py). 77's field 7 and 112's field 3: no empty blue field
# was seen to sample, or it was lit otherwise than the one behind (``BlueHue``).
@pytest.mark.parametrize("seed, field", [(164, 3), (184, 3), (155, 7), (77, 7), (112, 3)])
def test_single_cubes_before_an_empty_blue_field_read_one_high(seed, field):
    game = "esoloe-3andc"
    image, truth = _render(game, seed)
    assert truth["camera"]["tilt_deg"] > 30
    cells = truth["position"]["cells"]
    behind = field - 3  # the row behind, seen past the cube from these cameras
    assert len(cells[field]) == 1 and behind in three_and_c_blue() and not cells[behind]
    read = read_fields(image, truth_fix(truth), geometry(game))[field]
    assert read["occupied"] and read["height"] == 1


def test_the_blue_glaze_is_sampled_on_empty_blue_fields_of_3andc_only():
    game = "esoloe-3andc"
    image, truth = _render(game, 164)
    geom = geometry(game)
    pose = board_pose(truth_fix(truth), geom, (image.shape[1], image.shape[0]))
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    hidden = np.zeros(image.shape[:2], bool)
    occupied = [bool(s) for s in truth["position"]["cells"]]
    model = blue_glaze(lab, pose, geom, hidden, occupied)
    assert model is not None and model.median[2] < 128 - 10  # blue: Lab b well below neutral
    assert blue_glaze(lab, pose, geom, hidden, [True] * 9) is None  # no empty blue field
    esoloe = geometry("esoloe-tictactoe")
    assert blue_glaze(lab, pose, esoloe, hidden, occupied) is None


def test_blue_by_hue_whatever_its_light_but_not_grey_or_wood():
    """``BlueHue``: 15 bluer (Lab b) than the white glaze and not darker than 0.2 of it is
    blue glaze (distance 0), lit or shaded; a shaded grey face, wood, green stain are not."""
    hue = BlueHue(np.array([220.0, 128.0, 134.0]))
    lab = np.array([[200.0, 125.0, 90.0], [70.0, 128.0, 110.0], [30.0, 128.0, 100.0],
                    [120.0, 128.0, 128.0], [170.0, 135.0, 160.0], [110.0, 115.0, 150.0]])
    assert hue.distance(lab).tolist() == [0.0, 0.0] + [np.inf] * 4
