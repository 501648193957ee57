"""vision.read_tyr on overhead renders (the reader on the true board corners)."""

import pytest

from tests.vision.reader_check import check, read_render


@pytest.mark.parametrize("seed", [101, 104, 105])
def test_tyr_reading_parses_and_is_right_where_sure(seed):
    check("tyr", seed)


def test_tyr_dice_places_are_read():
    reading, position = read_render("tyr", 105)
    assert {c: d["cell"] for c, d in reading.position["dice"].items()} == {
        c: d["cell"] for c, d in position["dice"].items()}


def test_without_the_pips_model_no_top_is_guessed(monkeypatch):
    import vision.classifier

    monkeypatch.setitem(vision.classifier._SHARED, "pips", None)
    reading, _ = read_render("tyr", 105)
    assert all(d["top"] is None for d in reading.position["dice"].values())
