"""``tableref faces``: one piece per photo through a crop model, JSONL out, bad input one
line each. Real-dice crops for pips, renders for cube faces and stones."""

from __future__ import annotations

import json
import shutil

import cv2
import pytest

from device.cli import main
from tests.device.image_files import write_images
from vision import real_dice
from vision.classifier import MODELS_DIR, STONE_LETTERS, Classifier
from vision.render.crops import render_crops
from vision.train.sources import stone_fields


def faces(capsys, *argv: str) -> tuple[int, list[dict], list[str]]:
    status = main(["faces", *argv])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err.splitlines()




def test_pips_on_real_dice_crops_not_trained_on(capsys, shared_dir):
    crops = real_dice.load(shared_dir / "data" / "real-dice")
    trained_on = Classifier.load("pips").real_dice_training
    held_out = real_dice.trained_split(crops, trained_on)[1]
    chosen = [c for c in held_out if c.source == "IMG2019"][::40][:30]
    status, lines, err = faces(capsys, "--kind", "pips", *[str(c.path) for c in chosen])
    assert status == 0 and err == []
    assert [line["file"] for line in lines] == [str(c.path) for c in chosen]
    assert all(set(line) == {"file", "label", "confidence"} for line in lines)
    assert all(isinstance(line["label"], int) and 1 <= line["label"] <= 9 for line in lines)
    assert all(0 < line["confidence"] <= 1 for line in lines)
    right = sum(line["label"] == c.pips for line, c in zip(lines, chosen, strict=True))
    assert right >= 12, f"{right}/30 held-out real crops read right"


def test_symbol_on_rendered_faces_at_any_size(capsys, tmp_path):
    images, labels = render_crops("face", 10, seed=11, size=64)
    big = [cv2.resize(image, (200, 200)) for image in images[:5]]
    paths = write_images(tmp_path, [*big, *images[5:]], "face")
    status, lines, err = faces(capsys, "--kind", "symbol", *paths)
    assert status == 0 and err == []
    right = sum(line["label"] == label["label"] for line, label in zip(lines, labels,
                                                                       strict=True))
    assert right >= 8


@pytest.mark.skipif(not (MODELS_DIR / "stone.onnx").is_file(), reason="no models/stone.onnx")
def test_stone_tokens_on_renders(capsys, tmp_path):
    # fields of a rendered Cubes frame as the reader cuts them for the model (upright)
    images, labels = stone_fields(12, seed=12, workers=1)
    want = ["." if kind == "empty" else "W" if kind == "white" else
            (STONE_LETTERS[kind] if side == "active" else STONE_LETTERS[kind].lower()) + digit
            for kind, digit, side in zip(labels["kind"], labels["digit"], labels["side"],
                                         strict=True)]
    # a wide photo: the field fills the central square
    wide = [cv2.copyMakeBorder(image, 0, 0, 10, 10, cv2.BORDER_REPLICATE) for image in images]
    status, lines, err = faces(capsys, "--kind", "stone", *write_images(tmp_path, wide, "stone"))
    assert status == 0 and err == []
    tokens = [line["label"] for line in lines]
    assert all(t in ("W", ".") or (t[0] in "BRKObrko" and t[1] in "23456") for t in tokens)
    right = sum(t == w for t, w in zip(tokens, want, strict=True))
    assert right >= 10, list(zip(tokens, want, strict=True))


def test_bad_images_are_one_line_each_and_the_rest_still_read(capsys, tmp_path):
    good = write_images(tmp_path, render_crops("face", 1, seed=3, size=64)[0], "good")[0]
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.jpg"
    garbage.write_bytes(b"\x00not an image\xff" * 50)
    tiny = write_images(tmp_path, [render_crops("face", 1, seed=3, size=4)[0][0]], "tiny")[0]
    missing = tmp_path / "missing.png"
    status, lines, err = faces(capsys, "--kind", "symbol", str(empty), good, str(garbage),
                               str(missing), str(tmp_path), tiny)
    assert status == 1
    assert [line["file"] for line in lines] == [good]
    assert err == [f"tableref faces: {empty}: not a readable image",
                   f"tableref faces: {garbage}: not a readable image",
                   f"tableref faces: {missing}: missing",
                   f"tableref faces: {tmp_path}: not a readable image",
                   f"tableref faces: {tiny}: too small (4x4 pixels)"]


def test_missing_corrupt_or_wrong_model_is_one_line_exit_2(capsys, tmp_path):
    image = write_images(tmp_path, render_crops("face", 1, seed=3, size=64)[0], "face")[0]
    status, lines, err = faces(capsys, "--kind", "stone", "--models-dir", str(tmp_path), image)
    assert status == 2 and lines == [] and len(err) == 1
    assert "stone.onnx" in err[0] and "missing" in err[0]
    (tmp_path / "symbol.onnx").write_bytes(b"\x08\x07garbage" * 30)
    status, _, err = faces(capsys, "--kind", "symbol", "--models-dir", str(tmp_path), image)
    assert status == 2 and len(err) == 1 and "not a loadable ONNX model" in err[0]
    shutil.copy(MODELS_DIR / "pips.onnx", tmp_path / "stone.onnx")
    status, _, err = faces(capsys, "--kind", "stone", "--models-dir", str(tmp_path), image)
    assert status == 2 and err == [f"tableref faces: model file {tmp_path / 'stone.onnx'} has "
                                   "no kind, digit, side head (it has pips, colour)"]
