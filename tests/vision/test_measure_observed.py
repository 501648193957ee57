"""vision.measure on the true corners as vision.observe reads them (observe_on_truth):
the reading repaired by most_likely_valid (--truth-board --as-observed), and the edge
check beside the reader's mask of its pieces (--occlusion)."""

import pytest

import vision.read_tyr as read_tyr
from vision.board import geometry
from vision.measure import evaluate, main, observe_on_truth, occlusion_rates, truth_fix
from vision.occlusion import edge_occlusion
from vision.render.frame import RenderOptions, render_scene

SEED = 100  # dev: Tyr's three dice on the board, read right on the true corners


def test_truth_board_as_observed_counts_the_reading_observe_repairs(monkeypatch):
    read = read_tyr.read

    def doubled(image, fix, geom, calibration=None):
        """The reading with the last die read on the first one's field (the rules reject
        two dice on one field), its own field the one alternative."""
        reading = read(image, fix, geom, calibration)
        first, *_, last = (d for d in reading.position["dice"].values() if d["cell"])
        colour = next(c for c, d in reading.position["dice"].items() if d is last)
        reading.add(0.01, f"dice.{colour}.cell", alternatives=[[last["cell"], 0.009]])
        last["cell"] = list(first["cell"])
        return reading

    monkeypatch.setattr(read_tyr, "read", doubled)
    [alone] = evaluate("tyr", [SEED], truth_board=True)
    [observed] = evaluate("tyr", [SEED], truth_board=True, as_observed=True)
    assert observed.found and observed.exact
    assert observed.right == alone.right + 1 == observed.total


def test_as_observed_without_truth_board_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--full", "--as-observed", "--games", "tyr", "--n", "1"])
    assert exit_.value.code == 2
    assert "--as-observed goes with --full --truth-board" in capsys.readouterr().err


def test_kinds_are_printed_for_the_esoloe_family_alone(capsys):
    assert main(["--full", "--truth-board", "--kinds", "--games", "tyr", "--n", "1",
                 "--start", str(SEED), "--camera", "overhead"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("tyr") and "element %" in line


def test_stacks_leaning_across_the_edge_are_no_hand_as_observed():
    """The frames --occlusion counts are observed as observe observes them: e-SOLO-e's
    tall stacks at the strip's ends, seen obliquely (dev seed), cross the board's edge in
    the image; the edge check alone calls that a hand, observe (with read_esoloe.covered)
    does not."""
    cube = {"faces": dict.fromkeys(("up", "down", "north", "south", "east", "west"))}
    stack = [{**cube, "player": p} for p in (0, 1, 0)]
    image, truth = render_scene("esoloe", {"cells": [stack, [], [], [], stack]}, SEED,
                                options=RenderOptions(camera_mode="oblique"))
    assert edge_occlusion(image, truth_fix(truth), geometry("esoloe")).occluded
    obs = observe_on_truth(image, "esoloe", truth)
    assert obs["stable"] and "occlusion" not in obs


@pytest.mark.slow
def test_occlusion_rates_count_frames_as_observe_reads_them():
    seen, hands, false, still = occlusion_rates("esoloe", seeds=(5,))
    # measured: 5 of 5 hand frames seen, 0 of 16 still frames called occluded; the edge
    # check alone (without read_esoloe.covered) calls 4 of those 16 a hand: the stack of
    # three on the strip's end
    assert hands and still
    assert false == 0 and seen >= hands / 2
