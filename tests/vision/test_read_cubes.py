"""vision.read_cubes on overhead renders (the reader on the true board corners)."""

import pytest

import vision.classifier
from tests.vision.reader_check import check, parses, read_render


@pytest.mark.parametrize("seed", [101, 103, 107])
def test_cubes_reading_is_right_where_sure(seed):
    reading, _ = read_render("cubes", seed)
    check("cubes", seed, parses=parses("cubes", reading.position))


def test_without_the_stone_model_no_digit_is_guessed(monkeypatch):
    monkeypatch.setitem(vision.classifier._SHARED, "stone", None)
    reading, position = read_render("cubes", 101)
    unknown = {u["path"]: u for u in reading.uncertain if u["confidence"] == 0.0}
    for r, row in enumerate(reading.position["grid"]):
        for c, token in enumerate(row):
            assert token is None or token in (".", "W")
            if token is None:  # the digit is left open, the five digits its alternatives
                alts = unknown[f"grid.{r}.{c}"]["alternatives"]
                assert sorted(a[0][1] for a in alts) == list("23456")
    truth_stones = sum(t not in (".", "W") for row in position["grid"] for t in row)
    assert sum(t is None for row in reading.position["grid"] for t in row) >= truth_stones - 1


def test_with_the_stone_model_the_tokens_are_read():
    if vision.classifier.shared("stone") is None:
        pytest.skip("models/stone.onnx is missing")
    reading, position = read_render("cubes", 101)
    assert reading.position["grid"] == position["grid"]
    assert parses("cubes", reading.position)
