"""The scripted game: timing, hands hiding the change, stable frames, determinism."""

import numpy as np

from vision.render.effects import Effects
from vision.render.frame import RenderOptions
from vision.render.script import ScriptedGame


def _positions():
    a = {"cells": [[], [], [], [], []]}
    b = {"cells": [[], [], [{"player": 0, "faces": {"up": "fuji"}}], [], []]}
    return [a, b]


def _game(**kw):
    opt = RenderOptions(camera_mode="oblique", effects=Effects.clean(), distortion=False)
    return ScriptedGame("esoloe", _positions(), seed=3, fps=5, still_s=1.0, move_s=2.0,
                        options=opt, **kw)


def test_a_move_is_made_under_a_hand():
    frames = list(_game())
    assert [f.index for f in frames] == list(range(len(frames)))
    assert np.allclose(np.diff([f.time for f in frames]), 0.2)
    phases = [f.phase for f in frames]
    assert phases[0] == "still" and phases[-1] == "still"
    assert {"reach", "hold", "leave"} <= set(phases)
    # the position changes only while a hand is in the frame
    changes = [i for i in range(1, len(frames))
               if frames[i].position_index != frames[i - 1].position_index]
    assert len(changes) == 1
    assert frames[changes[0]].phase == "hold" and frames[changes[0]].truth["hands"]
    # hands cover something at the target while holding; still frames have none
    hold = [f for f in frames if f.phase == "hold"]
    assert any(c["occluders"].get("hand") for f in hold for c in f.truth["cells"])
    assert not any(f.truth["hands"] for f in frames if f.phase == "still")
    # stable only when still for a while, and then the truth's position is the script's
    for f in frames:
        if f.stable:
            assert f.phase == "still"
            assert f.truth["position"] == _positions()[f.position_index]
    after = next(f for f in frames if f.index > changes[0] and f.phase == "still")
    assert frames[-1].stable and not after.stable  # the scene must settle first


def test_same_seed_same_frames():
    a = _game().frame(9)
    b = _game().frame(9)
    assert a.image.tobytes() == b.image.tobytes()


def test_nudges_move_the_board_or_the_camera_between_moves():
    positions = _positions() + [{"cells": [[], [], [{"player": 0, "faces": {"up": "fuji"}}],
                                           [{"player": 1, "faces": {"up": "sakura"}}], []]}]
    opt = RenderOptions(camera_mode="oblique", effects=Effects.clean(), distortion=False)
    game = ScriptedGame("esoloe", positions, seed=8, fps=4, still_s=0.5, move_s=1.0,
                        nudge=1.0, options=opt)
    assert len(game.poses) == 3
    first, last = game.frame(0).truth, game.frame(len(game) - 1).truth
    moved = (first["board"]["corners"] != last["board"]["corners"])
    assert moved
    # within one pose nothing moves
    assert game.frame(0).truth["board"]["corners"] == game.frame(1).truth["board"]["corners"]


def test_a_moving_hand_is_blurred_along_its_path():
    import cv2

    from vision.render.frame import render_scene
    from vision.render.hands import Hand

    game = _game()
    moved = {"reach": [], "hold": []}  # hands move while the shutter is open, or hold
    for i, st in enumerate(game.steps):
        if st.phase in moved:
            (hand,) = game.frame(i).truth["hands"]
            moved[st.phase].append(float(np.linalg.norm(hand["motion_mm"])))
    assert max(moved["reach"]) > 10 and max(moved["hold"]) == 0
    opt = dict(camera_mode="oblique", effects=Effects.clean(), distortion=False,
               board_pose=(0.0, 0.0, 0.0))
    still = Hand((0.0, 0.0, 40.0), (-450.0, -150.0, 320.0))
    sharpness = []
    for hand in (still, Hand(still.tip, still.shoulder, motion=(25.0, 0.0, 0.0))):
        img, truth = render_scene("esoloe", _positions()[0], 3,
                                  options=RenderOptions(**opt, hands=(hand,)))
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
        sharpness.append(float(np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0)).mean()))
        assert truth["hands"]
    assert sharpness[1] < 0.9 * sharpness[0], sharpness
