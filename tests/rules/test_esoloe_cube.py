"""The e-SOLO-e cube as a solid (rules.cube): sets, orientations, impossible faces."""

from __future__ import annotations

import pytest

from rules.cube import (
    BLANK,
    CUBE_SETS,
    EAST,
    FACES,
    NORTH,
    OPPOSITE,
    ROTATIONS,
    SIDES,
    SOUTH,
    SYMBOLS,
    UP,
    WEST,
    mirror_east_west,
    rotate,
    turn_half,
)


def faces(**named):
    return tuple(named.get(f, BLANK) for f in FACES)


def test_there_are_24_rotations_and_they_form_a_group():
    assert len(ROTATIONS) == 24
    group = set(ROTATIONS)
    for p in ROTATIONS:
        for q in ROTATIONS:
            assert tuple(q[p[d]] for d in range(6)) in group
    # rotations keep opposite faces opposite
    for p in ROTATIONS:
        assert all(p[OPPOSITE[d]] == OPPOSITE[p[d]] for d in range(6))


def test_default_set_is_the_published_fact():
    """rules-facts.md: sakura up and fuji south put geisha east, blank down/north/west."""
    corner = CUBE_SETS["corner"]
    [o] = corner.matching(faces(up="sakura", south="fuji", east=None, west=None,
                                north=None, down=None))
    assert corner.orientations[o] == faces(up="sakura", south="fuji", east="geisha")
    mirror = CUBE_SETS["corner-mirror"]
    [o] = mirror.matching(("sakura", None, None, "fuji", None, None))
    assert mirror.orientations[o] == faces(up="sakura", south="fuji", west="geisha")


def test_anticlockwise_round_the_corner_seen_from_outside():
    """sakura -> fuji -> geisha turns anticlockwise about the corner's outward axis."""
    vec = {UP: (0, 0, 1), SOUTH: (0, -1, 0), EAST: (1, 0, 0), WEST: (-1, 0, 0),
           NORTH: (0, 1, 0), 1: (0, 0, -1)}
    for name, sign in (("corner", 1), ("corner-mirror", -1)):
        for f in CUBE_SETS[name].orientations:
            s, fu, g = (vec[f.index(sym)] for sym in SYMBOLS)
            corner = tuple(a + b + c for a, b, c in zip(s, fu, g, strict=True))
            cross = (s[1] * fu[2] - s[2] * fu[1], s[2] * fu[0] - s[0] * fu[2],
                     s[0] * fu[1] - s[1] * fu[0])
            assert sign * sum(a * b for a, b in zip(cross, corner, strict=True)) > 0


@pytest.mark.parametrize("name", sorted(CUBE_SETS))
def test_each_set_has_24_orientations_12_with_a_symbol_up(name):
    cube_set = CUBE_SETS[name]
    assert len(set(cube_set.orientations)) == 24
    up = [cube_set.orientations[o] for o in cube_set.symbol_up]
    assert len(up) == 12
    assert sorted(f[UP] for f in up) == sorted(SYMBOLS * 4)
    for f in cube_set.orientations:
        assert sorted(f) == sorted([*SYMBOLS, BLANK, BLANK, BLANK])


def test_layouts_differ_in_their_opposite_faces():
    def opposite_pairs(name):
        home = CUBE_SETS[name].home
        return {frozenset((home[d], home[OPPOSITE[d]])) for d in range(6)}

    corner = {frozenset((s, BLANK)) for s in SYMBOLS}
    assert opposite_pairs("corner") == corner == opposite_pairs("corner-mirror")
    assert opposite_pairs("strip") == {frozenset(("sakura", "geisha")),
                                       frozenset(("fuji", BLANK)), frozenset((BLANK,))}


@pytest.mark.parametrize("name", sorted(CUBE_SETS))
def test_every_symbol_up_orientation_is_named_once_by_its_reference(name):
    cube_set = CUBE_SETS[name]
    for o in cube_set.symbol_up:
        f = cube_set.orientations[o]
        side, facing = cube_set.reference(f)
        assert f[facing] == side and facing in SIDES
        assert cube_set.find(f[UP], side, facing) == o
        # any other symbol on a side names the same orientation
        for d in SIDES:
            if f[d] in SYMBOLS:
                assert cube_set.find(f[UP], f[d], d) == o
    assert cube_set.find("sakura", "sakura", NORTH) is None


def test_mirror_set_is_the_mirror_image_and_strip_is_its_own():
    for name, cube_set in CUBE_SETS.items():
        mirrored = {mirror_east_west(f) for f in cube_set.orientations}
        assert mirrored == set(CUBE_SETS[cube_set.mirror_name].orientations), name
        assert {turn_half(f) for f in cube_set.orientations} == set(cube_set.orientations)
    assert set(CUBE_SETS["corner"].orientations) != set(CUBE_SETS["corner-mirror"].orientations)


def test_rotate_moves_faces_with_the_permutation():
    quarter = next(p for p in ROTATIONS if p[NORTH] == EAST and p[UP] == UP)
    assert rotate(faces(north="fuji"), quarter) == faces(east="fuji")
    assert quarter[WEST] == NORTH


@pytest.mark.parametrize("known, words", [
    (("sakura", "sakura", None, None, None, None), "one sakura face, these faces show it twice"),
    (("blank", "blank", "blank", "blank", None, None), "4"),
    (("sakura", "fuji", None, None, None, None), "opposite"),
    (("blank", "blank", None, None, None, None), "opposite"),
    (("sakura", "blank", "blank", "fuji", None, "geisha"), "cube-set=corner-mirror"),
])
def test_impossible_faces_say_why(known, words):
    why = CUBE_SETS["corner"].why_impossible(known)
    assert why is not None and words in why


def test_unknown_faces_match_every_consistent_orientation():
    corner = CUBE_SETS["corner"]
    assert len(corner.matching((None,) * 6)) == 24
    assert len(corner.matching(("sakura",) + (None,) * 5)) == 4
    assert corner.why_impossible(("sakura", "blank", None, None, None, None)) is None
    strip = CUBE_SETS["strip"]
    assert strip.why_impossible(("sakura", "blank", None, None, None, None)) is not None
    assert "mirror" not in strip.why_impossible(("sakura", "fuji", None, None, None, None))
