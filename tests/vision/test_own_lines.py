"""The readers' shared ridge finder (``vision.own_lines.light_ridges``)."""

import numpy as np

from vision.own_lines import light_ridges

STEPS = np.arange(-8, 9)


def _profile(centre: float, width: float = 1.5, n: int = 60) -> np.ndarray:
    x = np.arange(n, dtype=np.float64)
    return 100.0 + 40.0 * np.exp(-0.5 * ((x - centre) / width) ** 2)


def test_a_ridge_is_placed_to_a_tenth_of_a_pixel():
    profiles = np.stack([_profile(30.0 + d) for d in (-3.3, 0.0, 2.6)])
    off, rise, end = light_ridges(profiles, np.full((3, 1), 30), 3, STEPS)
    assert off.shape == (3, 1)
    assert np.allclose(off[:, 0], [-3.3, 0.0, 2.6], atol=0.1)
    assert (rise > 20).all() and not end.any()


def test_lines_share_a_profile_and_each_finds_its_own():
    two = _profile(20.0) + _profile(40.4) - 100.0
    off, _, end = light_ridges(two[None], np.array([[21, 40]]), 3, STEPS)
    assert np.allclose(off, [[-1.0, 0.4]], atol=0.1) and not end.any()


def test_a_ridge_beyond_the_steps_is_at_their_end():
    off, _, end = light_ridges(_profile(42.0)[None], np.array([[30]]), 3, STEPS)
    assert end[0, 0] and abs(off[0, 0]) >= STEPS[-1] - 1.5
