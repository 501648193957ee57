"""At most one e-SOLO-e stack is four cubes high (issue #6): a cube goes on the 4th level
only where it wins, which ends the game, so ``stack_height.at_most_one_full`` weighs each
stack's height by the others' chance of being full."""

import numpy as np
import pytest

from vision.stack_height import PRIOR, Height, at_most_one_full


def _height(p, model=None) -> Height:
    p = tuple(np.asarray(p, float) / np.sum(p))
    n = int(np.argmax(p))
    return Height(n + 1, p[n], [1.0, None, None, None], p, PRIOR, model)


def test_of_two_stacks_read_full_the_surer_stays_full_the_other_is_lowered():
    sure, less = _height((0.1, 0.1, 0.2, 0.6)), _height((0.1, 0.1, 0.3, 0.5), (1, 2, 3, 4))
    got = at_most_one_full([None, sure, less])
    assert got[0] is None
    assert got[1].cubes == 4 and got[2].cubes == 3
    assert got[2].model == (1, 2, 3, 4)  # the height model's likelihood kept (DISPUTED)
    for h in got[1:]:
        assert sum(h.probabilities) == pytest.approx(1.0)
    # exactly: full only where the other is not, each stack's own probabilities else
    q1, q2 = 0.6, 0.5
    z = 1 - q1 * q2
    assert got[1].probabilities[3] == pytest.approx(q1 * (1 - q2) / z)
    assert got[2].probabilities[2] == pytest.approx(0.3 / z)


def test_a_single_stack_or_none_full_is_left_as_it_was():
    alone = _height((0.1, 0.2, 0.3, 0.4))
    low = _height((0.5, 0.3, 0.2, 0.0))
    got = at_most_one_full([alone, low, None])
    assert got[0].probabilities == pytest.approx(alone.probabilities)
    assert got[1].probabilities == pytest.approx(low.probabilities)
