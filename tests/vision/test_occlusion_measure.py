"""vision.measure --occlusion: false hands on still renders of random positions beside the
scripted games' hands, the renders kept in a folder so that runs before and after a change
see the same images."""

import pytest

from vision.measure import main, still_occluded


def test_still_renders_are_kept_and_read_back_the_same(tmp_path):
    first = still_occluded("tyr", [0], str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tyr-0.json", "tyr-0.png"]
    assert first == still_occluded("tyr", [0], str(tmp_path)) == (0, 1)


@pytest.mark.parametrize(("args", "says"), [
    (["--hand-seeds", "3,x"], "--hand-seeds '3,x': seeds as integers"),
    (["--camera", "any"], "with --occlusion, overhead and/or oblique"),
])
def test_bad_occlusion_arguments_get_one_line(capsys, args, says):
    with pytest.raises(SystemExit) as exit_:
        main(["--occlusion", "--games", "tyr", "--n", "0", *args])
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err


def test_frames_without_occlusion_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--frames", "/tmp/nowhere", "--games", "tyr"])
    assert exit_.value.code == 2
    assert "--frames goes with --occlusion" in capsys.readouterr().err


def test_an_unknown_game_is_named(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--games", "tyr,tictac", "--n", "0"])
    assert exit_.value.code == 2
    assert "--games: unknown 'tictac'" in capsys.readouterr().err
