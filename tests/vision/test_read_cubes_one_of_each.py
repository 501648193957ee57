"""vision.read_cubes: one stone of each digit per colour read jointly, and dependency cards
partly beyond the frame or far along their side (dev seeds only)."""

import pytest

import vision.classifier
import vision.read_cubes as read_cubes
from vision.board import geometry
from vision.measure import truth_fix
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position

DIGITS = ("2", "3", "4", "5", "6")


def _head(**probabilities):
    top = tuple(sorted(probabilities.items(), key=lambda kv: -kv[1]))
    return vision.classifier.Prediction(top[0][0], top[0][1], top)


def _stone(kind: str, **digits):
    return {"kind": _head(**{kind: 1.0}), "digit": _head(**digits),
            "side": _head(active=1.0)}


def test_a_digit_read_twice_in_one_colour_goes_to_the_less_sure_stone():
    # a 6 read as a likely 5 beside a sure 5: the sure one stays 5, the other reads 6
    # surely, with 5 among its alternatives; another colour's 5 is no conflict
    predictions = [_stone("blue", **{"5": 0.6, "6": 0.38, "2": 0.02}),
                   _stone("blue", **{"5": 0.97, "3": 0.03}),
                   _stone("red", **{"5": 0.9, "6": 0.1})]
    read_cubes._one_of_each(predictions, 3, DIGITS)
    first, second, red = (p["digit"] for p in predictions)
    assert (first.label, second.label, red.label) == ("6", "5", "5")
    assert first.probability > 0.8 and dict(first.top)["5"] > 0.01  # 5 stays a reading
    assert sum(p for _, p in first.top) == pytest.approx(1.0)
    assert red.probability == pytest.approx(0.9)  # alone in its colour: as read


def test_a_colour_on_more_stones_than_it_has_and_colourless_fields_are_left_as_read():
    six = [_stone("black", **{"4": 0.8, "5": 0.2}) for _ in range(6)]
    white = {"kind": _head(white=0.99), "digit": _head(**{"4": 0.6, "3": 0.4}),
             "side": _head(active=1.0)}
    predictions = [*six, white]
    read_cubes._one_of_each(predictions, len(predictions), DIGITS)
    assert all(p["digit"].label == "4" and p["digit"].probability == 0.8 for p in six)
    assert predictions[-1] is white


def test_the_fields_read_after_the_stones_are_not_counted():
    # only the first ``count`` predictions are stones; the doubted fields follow them
    predictions = [_stone("red", **{"3": 0.7, "4": 0.3}), _stone("red", **{"3": 0.9})]
    read_cubes._one_of_each(predictions, 1, DIGITS)
    assert predictions[0]["digit"].label == "3"


@pytest.mark.parametrize("seed, seat", [(107, "south"), (114, "south"), (125, "east")])
def test_cards_partly_beyond_the_frame_or_far_along_their_side_are_read(seed, seat):
    # 107, 114: the south card's disc runs off the frame's lower edge (read null before);
    # 125: the east card lies 110 mm along its side from the seat's middle
    position = random_position("cubes", seed)
    image, truth = render_scene("cubes", position, seed,
                                options=RenderOptions(camera_mode="any"))
    if seat == "south":
        box = next(p["bbox"] for p in truth["pieces"] if p["key"] == "card:south")
        assert box[3] > image.shape[0]  # the card does run off the frame
    reading = read_cubes.read(image, truth_fix(truth), geometry("cubes"), None)
    want = {p["seat"]: p["dependency"] for p in truth["position"]["players"]}
    got = {p["seat"]: p["dependency"] for p in reading.position["players"]}
    assert got[seat] == want[seat]
    assert got == want
