"""vision.read_neunfeld on overhead renders (the reader on the true board corners)."""

import pytest

from tests.vision.reader_check import check, read_render


@pytest.mark.parametrize("seed", [100, 101, 106])
def test_neunfeld_reading_parses_and_is_right_where_sure(seed):
    check("neunfeld", seed)


def test_neunfeld_pawns_and_holders_are_read():
    reading, position = read_render("neunfeld", 100)
    assert reading.position["pawns"] == position["pawns"]
    assert {c: d["holder"] for c, d in reading.position["dice"].items()} == {
        c: d["holder"] for c, d in position["dice"].items()}
