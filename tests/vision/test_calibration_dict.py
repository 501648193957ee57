"""The calibration dict vision.observe takes: a profile reads the faces, a colour object
is applied to the frame first, registered board corners replace the board finder."""

import numpy as np
import pytest

import vision.observe
from vision.board import CORNER_NAMES
from vision.classifier import Prediction, shared
from vision.observe import ObserveError, observe
from vision.render.frame import RenderOptions, render_scene

GAME = "esoloe-tictactoe"


def _cube(player, up):
    return {"player": player, "faces": {"up": up, "down": None, "north": None, "south": None,
                                        "east": None, "west": None}}


POSITION = {"cells": [[_cube(0, "sakura")], [], [], [], [_cube(1, "fuji")], [], [], [],
                      [_cube(0, "blank")]]}


@pytest.fixture(scope="module")
def rendered():
    return render_scene(GAME, POSITION, 101, options=RenderOptions(camera_mode="overhead"))


def _ups(obs):
    return [stack[-1]["faces"]["up"] for stack in obs["position"]["cells"] if stack]


class Geisha:
    """A profile that reads every symbol as geisha (and records what it was asked)."""

    def __init__(self):
        self.asked = []

    def predict(self, name, model, crops, top_k, turns=1):
        self.asked.append((name, len(crops), top_k))
        predictions = model.predict(crops, top_k=top_k, turns=turns)
        for p in predictions:
            p["symbol"] = Prediction("geisha", 1.0, (("geisha", 1.0),))
        return predictions


@pytest.mark.skipif(shared("symbol") is None, reason="models/symbol.onnx is missing")
def test_the_profile_reads_the_up_faces(rendered):
    frame, _ = rendered
    plain = _ups(observe(frame, GAME))
    assert sum(u is not None and u != "geisha" for u in plain) >= 2  # the model's own
    profile = Geisha()
    ups = _ups(observe(frame, GAME, calibration={"profile": profile}))
    # two batched runs for the frame: the candidate cuts of each top face (the best read
    # one is the top), then every face read on the chosen tops
    assert [name for name, *_ in profile.asked] == ["symbol", "symbol"]
    assert profile.asked[1][1] >= 3 and profile.asked[1][2] == 4
    assert sum(u is not None for u in ups) >= 2
    assert all(u in (None, "geisha") for u in ups)


class Swap:
    """A colour calibration whose ``apply`` answers a fixed frame."""

    def __init__(self, frame):
        self.frame, self.seen = frame, []

    def apply(self, image):
        self.seen.append(image)
        return self.frame


def test_the_colour_object_is_applied_before_reading(rendered):
    frame, _ = rendered
    ramp = np.linspace(0, 255, frame.shape[1]).astype(np.uint8)  # no board in it
    ramp_frame = np.ascontiguousarray(np.broadcast_to(ramp[None, :, None], frame.shape))
    with pytest.raises(ObserveError, match="no board"):
        observe(ramp_frame, GAME)
    colour = Swap(frame)
    obs = observe(ramp_frame, GAME, calibration={"colour": colour})
    assert len(colour.seen) == 1 and colour.seen[0] is ramp_frame
    assert obs["position"] == observe(frame, GAME)["position"]


def test_registered_board_corners_replace_the_board_finder(rendered, monkeypatch):
    frame, truth = rendered
    corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])

    def no_finder(*_):
        raise AssertionError("find_board was called")

    monkeypatch.setattr(vision.observe, "find_board", no_finder)
    obs = observe(frame, GAME, calibration={"board": corners.tolist()})
    assert np.allclose([obs["board"][k] for k in CORNER_NAMES], corners, atol=1e-3)
    assert [bool(s) for s in obs["position"]["cells"]] == [bool(s) for s in POSITION["cells"]]


PREFERENCE = (7, 1, 2, 3, 4, 5, 6, 8, 9)


class Sevens:
    """A profile that reads every die's top as 7, or where the die has no 7 as the first
    face it has in PREFERENCE (and records what it was asked)."""

    def __init__(self):
        self.asked = []

    def predict(self, name, model, crops, top_k, turns=1):
        self.asked.append(name)
        predictions = model.predict(crops, top_k=top_k, turns=turns)
        top = tuple((str(n), 0.5 ** (i + 1)) for i, n in enumerate(PREFERENCE))
        for p in predictions:
            p["pips"] = Prediction(top[0][0], top[0][1], top)
        return predictions


@pytest.mark.skipif(shared("pips") is None, reason="models/pips.onnx is missing")
@pytest.mark.parametrize("game", ["tyr", "neunfeld"])
def test_the_profile_reads_the_dice_tops(game):
    import importlib

    from tests.vision.reader_check import truth_fix
    from vision.board import geometry
    from vision.render.positions import random_position

    position = random_position(game, 105)
    image, truth = render_scene(game, position, 105,
                                options=RenderOptions(camera_mode="overhead"))
    reader = importlib.import_module(vision.observe.READERS[game])
    profile = Sevens()
    reading = reader.read(image, truth_fix(truth), geometry(game), {"profile": profile})
    # one run for the frame, through the profile, and one more for the tops read in doubt
    # (read_miwin.MOVED_BELOW: the profile's 7 comes at 0.5), through it too
    assert profile.asked == ["pips"] * 2
    from rules.miwin import BY_COLOUR

    read = {c: d["top"] for c, d in reading.position["dice"].items() if d["top"] is not None}
    assert read
    for colour, top in read.items():
        assert top == next(n for n in PREFERENCE if n in BY_COLOUR[colour].faces), colour
