"""Fields of the 3x3 games that a stack in front hides from an oblique camera
(``vision.read_esoloe._behind``): judged on the few board points seen past the other
stacks, or where none is seen on the top face a cube there would show."""

import pytest

from vision.board import geometry
from vision.measure import truth_fix
from vision.read_esoloe import FACE_CONFIDENT, read_fields
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position


# dev renders (any camera) with fields hidden behind stacks: tic-tac-toe 123 (two empty
# ones the top face shows empty, one occupied), 186 (five empty, two of them where the line
# of sight past them reaches the table), 3andC 172 (four, judged on 1..3 points seen)
@pytest.mark.parametrize("game,seed", [("esoloe-tictactoe", 123), ("esoloe-tictactoe", 186),
                                       ("esoloe-3andc", 172)])
def test_hidden_fields_read_from_what_shows_past_the_stacks(game, seed):
    position = random_position(game, seed)
    image, truth = render_scene(game, position, seed, options=RenderOptions(camera_mode="any"))
    fields = read_fields(image, truth_fix(truth), geometry(game))
    hidden = [i for i, f in enumerate(fields) if f.get("hidden")]
    assert len(hidden) >= 3
    for i in hidden:
        assert fields[i]["occupied"] == bool(truth["position"]["cells"][i]), i
        assert fields[i]["confidence"] < FACE_CONFIDENT  # listed, with the other reading

