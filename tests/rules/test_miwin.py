"""Miwin's dice: faces, opposite pairs, tips and the handedness of rules-facts.md."""

import pytest

from rules.miwin import BLACK, BLUE, BY_COLOUR, COLOURS, DICE, RED, MiwinDie


def test_faces_and_opposites_as_published():
    assert COLOURS == ("blue", "red", "black")
    assert BLUE.faces == (1, 2, 5, 6, 7, 9) and BLUE.name == "III"
    assert RED.faces == (1, 3, 4, 5, 8, 9) and RED.name == "IV"
    assert BLACK.faces == (2, 3, 4, 6, 7, 8) and BLACK.name == "V"
    assert [BLUE.opposite(f) for f in (1, 2, 5)] == [9, 7, 6]
    assert [RED.opposite(f) for f in (1, 3, 4)] == [9, 8, 5]
    assert [BLACK.opposite(f) for f in (2, 3, 4)] == [7, 8, 6]
    assert BY_COLOUR["red"] is RED


@pytest.mark.parametrize("die", DICE, ids=COLOURS)
def test_a_tip_brings_up_a_side_face_never_the_top_or_its_opposite(die):
    for top in die.faces:
        sides = die.side_faces(top)
        assert len(sides) == 4
        assert top not in sides and die.opposite(top) not in sides
        assert all(die.can_tip(top, s) for s in sides)
        assert not die.can_tip(top, top) and not die.can_tip(top, die.opposite(top))


def test_numbers_not_on_a_die_are_rejected():
    assert not BLUE.has(3) and not BLUE.has(10) and not BLUE.has(True)
    assert not BLUE.can_tip(3, 1)
    with pytest.raises(ValueError, match="not a face of the blue die"):
        BLUE.opposite(3)


def test_the_neunfeld_example_tips_are_legal():
    tips = [(BLUE, 1, 7), (BLACK, 2, 6), (RED, 5, 1), (BLUE, 7, 6), (RED, 1, 4),
            (BLUE, 6, 9), (BLACK, 6, 2), (RED, 4, 9)]
    assert all(d.can_tip(a, b) for d, a, b in tips)


def test_handedness_follows_the_published_column():
    assert BLUE.sides_anticlockwise(1) == (2, 5, 7, 6)  # 1 up: 6, 2, 5, 7
    assert RED.sides_anticlockwise(1) == (3, 5, 8, 4)  # 1 up: 5, 8, 4, 3
    assert BLACK.sides_anticlockwise(2) == (3, 6, 8, 4)  # 2 up: 4, 3, 6, 8
    # turned over, the same ring runs the other way
    for die in DICE:
        for top in die.faces:
            ring = die.sides_anticlockwise(top)
            flipped = die.sides_anticlockwise(die.opposite(top))
            assert flipped == (ring[0], *reversed(ring[1:]))
            assert set(ring) == die.side_faces(top)
            assert ring[2] == die.opposite(ring[0]) and ring[3] == die.opposite(ring[1])


def test_tipping_towards_a_direction():
    # blue with 1 up and 6 north: seen from above anticlockwise east 7, north 6, west 2
    assert BLUE.tip_towards(1, 6, "north") == (5, 1)
    assert BLUE.tip_towards(1, 6, "south") == (6, 9)
    assert BLUE.tip_towards(1, 6, "east") == (2, 6)
    assert BLUE.tip_towards(1, 6, "west") == (7, 6)
    for die in DICE:
        for top in die.faces:
            for north in die.side_faces(top):
                for there, back in (("north", "south"), ("east", "west")):
                    assert die.tip_towards(*die.tip_towards(top, north, there), back) == (
                        top, north)
    with pytest.raises(ValueError, match="cannot face north"):
        BLUE.tip_towards(1, 9, "east")
    with pytest.raises(ValueError, match="direction"):
        BLUE.tip_towards(1, 6, "up")


def test_an_inconsistent_handedness_is_refused():
    with pytest.raises(ValueError, match="inconsistent handedness"):
        MiwinDie("blue", "III", ((1, 9), (2, 7), (5, 6)), (1, 6, 5, 2, 7))
