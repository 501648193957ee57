"""vision.board_measure reads the frames it is pointed at in either format."""

import json

import cv2
import numpy as np
import pytest

from vision.board_measure import frame


def test_frames_of_the_bench_and_of_tableref_render_are_read_alike(tmp_path):
    corners = {"nw": [10, 20], "ne": [110, 22], "se": [108, 80], "sw": [12, 78]}
    image = np.full((90, 120, 3), 7, np.uint8)
    for folder, truth in (("bench", {"position": {}, "corners": corners}),
                          ("render", {"schema": "tableref/render-truth/1",
                                      "board": {"corners": corners}})):
        (tmp_path / folder).mkdir()
        cv2.imwrite(str(tmp_path / folder / "esoloe-5.png"), image)
        (tmp_path / folder / "esoloe-5.json").write_text(json.dumps(truth))
        got, want = frame("esoloe", 5, "any", str(tmp_path / folder))
        assert (got == image).all()
        assert want.tolist() == [corners[k] for k in ("nw", "ne", "se", "sw")]


def test_an_unknown_game_is_named(capsys):
    from vision.board_measure import main

    with pytest.raises(SystemExit) as exit_:
        main(["--games", "nosuch", "--n", "0"])
    assert exit_.value.code == 2
    assert "--games: unknown 'nosuch'" in capsys.readouterr().err
