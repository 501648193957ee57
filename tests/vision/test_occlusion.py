"""vision.occlusion: a hand across the board's edge makes the observation unstable."""

import pytest

from rules.registry import get_game
from vision.board import geometry
from vision.measure import truth_fix
from vision.occlusion import edge_occlusion
from vision.render.frame import RenderOptions
from vision.render.script import ScriptedGame


@pytest.fixture(scope="module")
def tyr_frames():
    """(hand frames, still frames) of a scripted Tyr game, with what edge_occlusion says."""
    state = get_game("tyr").initial_state()
    positions = [state.position.to_json()]
    for k in range(2):
        state = state.apply(list(state.legal_moves)[k])
        positions.append(state.position.to_json())
    script = ScriptedGame("tyr", positions, seed=3, fps=3,
                          options=RenderOptions(camera_mode="overhead"))
    geom = geometry("tyr")
    hands, still = [], []
    for i in range(len(script)):
        frame = script.frame(i)
        if any(c["hidden_by"] == "hand" for c in frame.truth["cells"]):
            hands.append((frame, edge_occlusion(frame.image, truth_fix(frame.truth), geom)))
        elif frame.phase == "still" and not frame.truth["hands"]:
            still.append((frame, edge_occlusion(frame.image, truth_fix(frame.truth), geom)))
    return hands, still


def test_hands_over_the_board_are_seen_and_still_boards_are_clear(tyr_frames):
    hands, still = tyr_frames
    assert hands and still
    # measured: 12 of 19 hand frames seen, 0 of 32 still ones called occluded
    # (python -m vision.measure --occlusion --games tyr)
    assert sum(o.occluded for _, o in hands) >= len(hands) / 2
    assert not any(o.occluded for _, o in still)


def test_observe_marks_a_hand_frame_unstable(tyr_frames, monkeypatch):
    import vision.observe as observe_module

    frame = next(f for f, o in tyr_frames[0] if o.occluded)
    # the board as the render knows it (board finding is measured elsewhere)
    monkeypatch.setattr(observe_module, "find_board", lambda image, geom: truth_fix(frame.truth))
    obs = observe_module.observe(frame.image, "tyr")
    assert obs["stable"] is False and obs["confidence"] == 0.0
    assert obs["occlusion"]["edge_runs_mm"]
