"""3andC's cubes: colour only (the game uses no symbols)."""

import pytest

from vision.board import geometry, homography, three_and_c_dots
from vision.measure import truth_fix
from vision.read_esoloe import DOTS_MIN, _dots_shown, _weighed_by_symbol, read_fields
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


# dev renders (camera "any", tuning seeds; never the bench's 7_000_000+), seen from above: a
# pale natural cube in strong light that its colours left for glaze (read empty before)
@pytest.mark.parametrize("seed, field", [(80, 8), (189, 8), (213, 3)])
def test_a_pale_cube_seen_from_above_is_found_by_its_print(seed, field):
    game = "esoloe-3andc"
    image, truth = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(camera_mode="any"))
    assert truth["camera"]["tilt_deg"] < 10 and truth["position"]["cells"][field]
    assert read_fields(image, truth_fix(truth), geometry(game))[field]["occupied"]


def test_a_print_counts_for_a_cube_and_none_counts_for_nothing_on_3andc():
    """3andC's cubes may stand blank up (``blank_counts`` False): a top read without a
    symbol leaves the field's probability as it was; tic-tac-toe's, symbol up, lowers it."""
    assert _weighed_by_symbol(0.3, 0.5, blank_counts=False) == pytest.approx(0.3)
    assert _weighed_by_symbol(0.3, 0.995, blank_counts=False) > 0.5
    assert _weighed_by_symbol(0.3, 0.5) < 0.1


# dev renders (camera "any"): an empty field of two points whose colours (a shadow, a warm
# light) read it unsure and occupied; its dots show, so it is empty (from above, obliquely)
@pytest.mark.parametrize("seed, field", [(124, 5), (136, 5)])
def test_an_unsure_field_whose_dots_show_is_empty(seed, field):
    game = "esoloe-3andc"
    geom = geometry(game)
    image, truth = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(camera_mode="any"))
    cells = truth["position"]["cells"]
    assert not cells[field] and three_and_c_dots()[field] >= DOTS_MIN
    assert not read_fields(image, truth_fix(truth), geom)[field]["occupied"]
    H = homography(truth_fix(truth), geom)
    for i, (_, u, v, _) in enumerate(geom.cells):  # its dots show; a cube hides its field's
        if i == field or (cells[i] and three_and_c_dots()[i] >= DOTS_MIN):
            assert _dots_shown(image, H, u, v, three_and_c_dots()[i]) == (i == field)
