"""vision.measure --jitter: the reader alone on true corners moved as found corners are
off (seeded by the frame's seed, so that runs before and after a change read the same
corners)."""

import numpy as np
import pytest

import vision.read_tyr as read_tyr
from vision.measure import evaluate, main

SEED = 100


def _corners_read(monkeypatch, jitter: float) -> np.ndarray:
    seen = []
    read = read_tyr.read

    def recording(image, fix, geom, calibration=None):
        seen.append(fix.corners.copy())
        return read(image, fix, geom, calibration)

    monkeypatch.setattr(read_tyr, "read", recording)
    evaluate("tyr", [SEED], "overhead", truth_board=True, jitter=jitter)
    return seen[-1]


def test_the_true_corners_are_moved_by_the_frames_seeded_draw(monkeypatch):
    true = _corners_read(monkeypatch, 0.0)
    moved = _corners_read(monkeypatch, 3.0)
    want = np.random.default_rng(SEED).normal(0.0, 3.0 / np.sqrt(2), (4, 2))
    assert np.allclose(moved - true, want)
    assert 1.0 < np.linalg.norm(moved - true, axis=1).mean() < 6.0


def test_jitter_without_the_true_corners_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--full", "--jitter", "3", "--games", "tyr", "--n", "1"])
    assert exit_.value.code == 2
    assert "--jitter goes with --full --truth-board" in capsys.readouterr().err
