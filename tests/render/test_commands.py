"""``tableref render`` and ``tableref dataset`` (called through their modules)."""

import argparse
import json

import cv2

from device import dataset_cmd, render_cmd


def _run(module, argv):
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return module.run(parser.parse_args(argv))


def test_render_writes_image_and_truth(tmp_path, capsys):
    obs = {"game": "neunfeld", "position": {
        "pawns": [0, 10], "dice": {"blue": {"top": 1, "holder": None},
                                   "red": {"top": 5, "holder": None},
                                   "black": {"top": 2, "holder": None}}}}
    f = tmp_path / "obs.json"
    f.write_text(json.dumps(obs))
    assert _run(render_cmd, ["--position", str(f), "--seed", "4", "--out", str(tmp_path)]) == 0
    img = cv2.imread(str(tmp_path / "neunfeld-4.png"))
    truth = json.loads((tmp_path / "neunfeld-4.json").read_text())
    assert img.shape == (720, 1280, 3)
    assert truth["position"] == obs["position"]
    assert {p["key"] for p in truth["pieces"]} == {"pawn:0", "pawn:1", "die:blue", "die:red",
                                                   "die:black"}


def test_render_reports_bad_positions(tmp_path, capsys):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps({"pawns": [0, 11], "dice": {}}))
    assert _run(render_cmd, ["--game", "neunfeld", "--position", str(f),
                             "--out", str(tmp_path)]) == 1
    assert "pawns" in capsys.readouterr().err


def test_dataset_writes_labelled_crops(tmp_path, capsys):
    assert _run(dataset_cmd, ["--kind", "die", "--n", "5", "--out", str(tmp_path),
                              "--workers", "1"]) == 0
    lines = [json.loads(x) for x in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert [x["index"] for x in lines] == list(range(5))
    assert all((tmp_path / x["file"]).is_file() for x in lines)
    assert "5/5" in capsys.readouterr().err


def test_dataset_of_another_set(tmp_path, capsys):
    assert _run(dataset_cmd, ["--kind", "stone", "--n", "3", "--out", str(tmp_path),
                              "--workers", "1", "--variant", "other-set"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["variant"] == "other-set" and summary["count"] == 3
    lines = (tmp_path / "labels.jsonl").read_text().splitlines()
    assert len(lines) == 3 and all("token" in json.loads(x) for x in lines)
