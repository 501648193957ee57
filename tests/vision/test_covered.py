"""The readers' ``covered`` masks (vision.observe passes them to edge_occlusion as
``ignore``): the pieces read or found, as upright boxes the camera sees
(``cube_geometry.boxes_mask``), so that a piece leaning across the board's edge in the
image is no hand."""

import numpy as np
import pytest

from vision.board import geometry
from vision.cube_geometry import boxes_mask
from vision.grid import BoardPose


def _overhead_pose() -> BoardPose:
    """A camera 500 mm over the board's centre, looking straight down (u right, v up)."""
    K = np.array([[1000.0, 0, 320], [0, 1000.0, 240], [0, 0, 1]])
    R = np.diag([1.0, -1.0, -1.0])
    return BoardPose(K, R, np.array([0.0, 0.0, 500.0]), False)


def test_a_box_masks_what_it_projects_to_and_nothing_else():
    pose = _overhead_pose()
    # a 20 mm box on (50, 0): its top (z 30, 470 mm from the camera) 2.13 px a mm,
    # centred at x 320 + 50 * 1000 / 470 = 426
    mask = boxes_mask((480, 640, 3), pose, [(50.0, 0.0, 10.0, 0.0, 30.0)])
    assert mask.dtype == bool and mask.shape == (480, 640)
    assert mask[240, 426] and mask[240, 426 + 20] and not mask[240, 426 + 24]
    assert not mask[240, 320]  # the board's centre, 50 mm away
    assert not boxes_mask((480, 640), pose, []).any()


def _still(game: str, seed: int):
    """(image, truth) of the still render of a random position, camera any."""
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    return render_scene(game, random_position(game, seed), seed,
                        options=RenderOptions(camera_mode="any"))


@pytest.mark.parametrize("seed", [21, 57])
def test_neunfeld_pawns_and_dice_at_the_edge_are_no_hand(monkeypatch, seed):
    """Dev still renders the edge check alone called a hand (the pawns on fields 1..3
    leaning over the far side, the dice before the near one); with the reader's mask of
    its pieces, not."""
    import vision.read_neunfeld
    from vision.measure import observe_on_truth

    image, truth = _still("neunfeld", seed)
    assert "occlusion" not in observe_on_truth(image, "neunfeld", truth)
    monkeypatch.delattr(vision.read_neunfeld, "covered")
    assert "occlusion" in observe_on_truth(image, "neunfeld", truth)


def test_neunfeld_masks_its_pawns_where_they_stand():
    from vision.board import homography
    from vision.measure import truth_fix
    from vision.read_neunfeld import covered, read

    image, truth = _still("neunfeld", 21)
    geom, fix = geometry("neunfeld"), truth_fix(truth)
    reading = read(image, fix, geom)
    mask = covered(image, fix, geom, reading)
    H = homography(fix, geom)  # the board top's
    on_board = [p for p in reading.position["pawns"] if 1 <= p <= 9]
    assert on_board
    for place in on_board:  # each pawn's foot on its field's centre
        _, u, v, _ = geom.cells[place - 1]
        x, y, w = H @ [u, v, 1.0]
        assert mask[int(round(y / w)), int(round(x / w))]
    assert mask.mean() < 0.2  # the pieces, not the picture


def test_tyr_masks_the_dice_found_and_nothing_without_them(monkeypatch):
    import vision.read_tyr as read_tyr
    from vision.board import homography
    from vision.measure import truth_fix

    image, truth = _still("tyr", 107)
    geom, fix = geometry("tyr"), truth_fix(truth)
    reading = read_tyr.read(image, fix, geom)
    found = read_tyr._dice(image, fix, geom, None)[3]
    mask = read_tyr.covered(image, fix, geom, reading)
    H = homography(fix, geom)  # the board top's
    for die in found.values():
        if die is not None:
            x, y, w = H @ [die.u, die.v, 1.0]
            assert mask[int(round(y / w)), int(round(x / w))]
    monkeypatch.setattr(read_tyr, "find_dice", lambda *a, **k: dict.fromkeys(
        read_tyr.COLOURS))
    none_found = read_tyr.read(image, fix, geom)
    assert not read_tyr.covered(image, fix, geom, none_found).any()


def test_a_hand_over_the_neunfeld_strip_is_still_seen_beside_the_pawns_mask():
    """Scripted Neunfeld, dev seed 3, overhead: the second move's hand over the board
    (test_occlusion's), observed as observe does it, the pawns and dice masked."""
    from tests.vision.test_occlusion import _scripted
    from vision.measure import observe_on_truth

    frame = _scripted("neunfeld", 3).frame(19)
    assert any(c["hidden_by"] == "hand" for c in frame.truth["cells"])
    assert "occlusion" in observe_on_truth(frame.image, "neunfeld", frame.truth)
