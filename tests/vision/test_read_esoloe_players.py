"""A top cube's player where the symbol model's colour head and the top face's Lab name
different players is listed (``PLAYER_DISPUTED``): in some lights the head reads a green
cube as natural wood over all its faces, surely, while its lit top is green."""

import pytest

from vision.read_esoloe import FACE_CONFIDENT, PLAYER_DISPUTED, _colour


def _top(lab_player: int, lab_confidence: float, head: float) -> dict:
    cube = {"player": lab_player, "player_confidence": lab_confidence}
    _colour(cube, head, top=True)
    return cube


def test_a_disputed_player_is_not_sure():
    cube = _top(1, 0.54, -5.0)  # the head: natural on every face; the top's Lab: green
    assert cube["player"] == 0 and cube["player_confidence"] == PLAYER_DISPUTED
    assert PLAYER_DISPUTED < FACE_CONFIDENT
    agreed = _top(0, 0.54, -5.0)  # the head's log-odds counted HEAD_WEIGHT (0.75)
    assert agreed["player"] == 0 and agreed["player_confidence"] > 0.97
    lower = {"player": 1, "player_confidence": 0.6}  # a lower cube: the head alone
    _colour(lower, -5.0, top=False)
    assert lower["player"] == 0 and lower["player_confidence"] > 0.99


@pytest.mark.parametrize("game, seed, field", [("esoloe", 247, 0),
                                               ("esoloe-tictactoe", 247, 2)])
def test_green_tops_the_head_misreads_are_listed(game, seed, field):
    """Dev renders (any camera; tuning seeds, never the bench's 7_000_000+): seed 247's
    green top cube was read natural at 0.97..0.99; now listed with green as the
    alternative."""
    from vision.board import geometry
    from vision.measure import truth_fix
    from vision.read_esoloe import read
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    image, truth = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(camera_mode="any"))
    reading = read(image, truth_fix(truth), geometry(game))
    want = truth["position"]["cells"][field]
    got = reading.position["cells"][field]
    assert len(got) == len(want) and want[-1]["player"] == 1
    path = f"cells.{field}.{len(got) - 1}.player"
    listed = {u["path"]: u for u in reading.uncertain}
    if got[-1]["player"] != 1:
        assert listed[path]["confidence"] < FACE_CONFIDENT
        assert [1, pytest.approx(1 - listed[path]["confidence"], abs=1e-3)] in \
            listed[path]["alternatives"]


@pytest.mark.parametrize("seed, field", [(195, 0), (40, 7)])
def test_green_tops_whose_lab_the_head_outweighed(seed, field):
    """Dev renders (3andC, any camera; the tuning set 0..499): green top cubes the colour
    head read natural over their faces (log-odds -3.5, -4.0) while their lit tops' Lab read
    green (at 0.97, 0.88), read natural before ``HEAD_WEIGHT``."""
    from vision.board import geometry
    from vision.measure import truth_fix
    from vision.read_esoloe import read_fields
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    game = "esoloe-3andc"
    image, truth = render_scene(game, random_position(game, seed), seed,
                                options=RenderOptions(camera_mode="any"))
    got = read_fields(image, truth_fix(truth), geometry(game))[field]
    assert got["occupied"] and truth["position"]["cells"][field][-1]["player"] == 1
    assert got["cubes"][-1]["player"] == 1
