import pytest


def cube(player, up, south=None, east=None, north=None, west=None, down=None):
    return {"player": player, "faces": {"up": up, "down": down, "north": north,
                                        "south": south, "east": east, "west": west}}


@pytest.fixture
def esoloe_position():
    return {"cells": [
        [cube(0, "sakura", "fuji", "geisha", "blank", "blank", "blank")],
        [],
        [cube(1, "fuji", "sakura"), cube(0, "geisha", "blank", "sakura")],
        [cube(1, "sakura", "blank", "blank", "fuji")],
        [cube(1, "sakura", "geisha"), cube(0, "fuji"), cube(1, "geisha")],
    ]}
