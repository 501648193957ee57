"""vision.occlusion: a hand across the board's edge makes the observation unstable."""

import pytest

from rules.registry import get_game
from vision.board import geometry
from vision.measure import truth_fix
from vision.occlusion import edge_occlusion
from vision.render.frame import RenderOptions
from vision.render.script import ScriptedGame


@pytest.fixture(scope="module")
def tyr_game():
    state = get_game("tyr").initial_state()
    positions = [state.position.to_json()]
    for k in range(2):
        state = state.apply(list(state.legal_moves)[k])
        positions.append(state.position.to_json())
    return ScriptedGame("tyr", positions, seed=3, fps=3,
                        options=RenderOptions(camera_mode="overhead"))


def test_a_hand_over_the_board_is_seen_and_a_still_board_is_clear(tyr_game):
    geom = geometry("tyr")
    held = tyr_game.frame(7)  # the hand holds a die on the board
    assert any(c["hidden_by"] == "hand" for c in held.truth["cells"])
    assert edge_occlusion(held.image, truth_fix(held.truth), geom).occluded
    still = tyr_game.frame(0)
    assert not still.truth["hands"]
    assert not edge_occlusion(still.image, truth_fix(still.truth), geom).occluded


def test_observe_marks_a_hand_frame_unstable(tyr_game, monkeypatch):
    import vision.observe as observe_module

    frame = tyr_game.frame(7)
    # the board as the render knows it (board finding is measured elsewhere)
    monkeypatch.setattr(observe_module, "find_board", lambda image, geom: truth_fix(frame.truth))
    obs = observe_module.observe(frame.image, "tyr")
    assert obs["stable"] is False and obs["confidence"] == 0.0 and obs["occlusion"]["edge_runs_mm"]
