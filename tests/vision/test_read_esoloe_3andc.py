"""3andC's cubes: colour only (the game uses no symbols)."""

from vision.board import geometry
from vision.measure import truth_fix
from vision.read_esoloe import read_fields
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position


def test_3andc_colours_from_the_models_colour_head_and_no_faces():
    """3andC's cubes carry no symbols the game uses: the symbol model's colour head still
    reads their colour (dev render 122, overhead: two green cubes that Lab alone read as
    natural wood at 0.54), and every face stays null."""
    game, seed = "esoloe-3andc", 122
    position = random_position(game, seed)
    image, truth = render_scene(game, position, seed, options=RenderOptions(camera_mode="any"))
    fields = read_fields(image, truth_fix(truth), geometry(game))
    cubes = 0
    for field, stack in zip(fields, truth["position"]["cells"], strict=True):
        if stack:
            assert field["occupied"]
            assert field["cubes"][-1]["player"] == stack[-1]["player"]
            assert all(v is None for cube in field["cubes"] for v in cube["faces"].values())
            cubes += 1
    assert cubes >= 6
