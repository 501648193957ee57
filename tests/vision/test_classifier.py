import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.classifier import Classifier, InputSpec, ModelError, preprocess, softmax

TINY = Path(__file__).parent / "data" / "tiny.onnx"  # written by make_tiny_model.py
TINY_OLD = Path(__file__).parent / "data" / "tiny-old.onnx"  # the same without embedding


def stripe(where: str, size: int = 40) -> np.ndarray:
    """A grey crop, white in one quarter band (top/bottom rows or left/right columns)."""
    image = np.zeros((size, size), np.uint8)
    q = size // 4
    rows = {"top": np.s_[:q, :], "bottom": np.s_[-q:, :], "left": np.s_[:, :q],
            "right": np.s_[:, -q:]}
    image[rows[where]] = 255
    return image


@pytest.fixture(scope="module")
def tiny():
    return Classifier(TINY)


def test_reads_heads_and_input_from_metadata(tiny):
    assert tiny.heads == {"band": ("top", "middle", "bottom"), "side": ("left", "right")}
    assert tiny.labels == ("top", "middle", "bottom")
    assert tiny.input == InputSpec(4, 1, (0.0,), (1.0,))


def test_predicts_every_head_with_top_k(tiny):
    crops = [stripe("top"), stripe("bottom"), stripe("left"), stripe("right", 13)]
    out = tiny.predict(crops, top_k=2)
    assert [r["band"].label for r in out[:2]] == ["top", "bottom"]
    assert [r["side"].label for r in out[2:]] == ["left", "right"]
    top = out[0]["band"]
    # the "top" crop: band logits (4, 0, 0) -> softmax
    expected = softmax(np.array([[4.0, 0.0, 0.0]]))[0]
    assert top.probability == pytest.approx(expected[0])
    assert [label for label, _ in top.top] == ["top", "middle"]
    assert top.top[1][1] == pytest.approx(expected[1])
    assert len(out[0]["side"].top) == 2
    assert len(tiny.predict(crops, top_k=10)[0]["band"].top) == 3


def test_whole_batch_goes_through_one_run(tiny, monkeypatch):
    rng = np.random.default_rng(1)
    crops = [rng.integers(0, 256, (int(rng.integers(10, 60)),) * 2, dtype=np.uint8)
             for _ in range(25)]
    calls = []
    run = tiny.session.run
    monkeypatch.setattr(tiny.session, "run", lambda *a, **k: calls.append(1) or run(*a, **k),
                        raising=False)
    together = tiny.predict(crops)
    assert len(calls) == 1
    alone = [tiny.predict([c])[0] for c in crops]
    for a, b in zip(together, alone, strict=True):
        assert a["band"].label == b["band"].label
        assert a["band"].probability == pytest.approx(b["band"].probability, rel=1e-5)
    assert tiny.predict([]) == []


def test_embed_gives_the_features_the_heads_are_computed_from(tiny):
    crops = [stripe("top"), stripe("left", 13), stripe("bottom", 7)]
    emb = tiny.embed(crops)
    assert emb.shape == (3, 16) and emb.dtype == np.float32 and tiny.embedding_size == 16
    np.testing.assert_allclose(emb, preprocess(crops, tiny.input).reshape(3, 16))
    # the heads are linear in the embedding: band = rows 0, 1-2 (halved), 3 summed
    rows = emb.reshape(3, 4, 4).sum(axis=2)
    band = np.stack([rows[:, 0], 0.5 * rows[:, 1:3].sum(axis=1), rows[:, 3]], axis=1)
    np.testing.assert_allclose(tiny.logits(crops)[0], band, rtol=1e-6)
    assert tiny.embed([]).shape == (0, 16)


def test_model_without_embedding_still_predicts_but_cannot_embed():
    old = Classifier(TINY_OLD)
    assert old.predict([stripe("top")])[0]["band"].label == "top"
    assert old.embedding_size is None
    with pytest.raises(ModelError) as err:
        old.embed([stripe("top")])
    message = str(err.value)
    assert "tiny-old.onnx" in message and "no embedding output" in message
    assert "\n" not in message


def test_metadata_naming_a_missing_embedding_output_is_refused(tmp_path):
    bad = tmp_path / "bad.onnx"
    # the metadata names another output (same length, so the protobuf stays valid)
    named = b'"output": "embedding"'
    assert named in TINY.read_bytes()
    bad.write_bytes(TINY.read_bytes().replace(named, b'"output": "embeddinx"'))
    with pytest.raises(ModelError, match="which its metadata names as the embedding"):
        Classifier(bad)


def test_shipped_models_have_an_embedding():
    for name in ("pips", "symbol", "stone"):
        model = Classifier.load(name)
        crops = [np.full((40, 40, 3), v, np.uint8) for v in (30, 200)]
        emb = model.embed(crops)
        assert emb.shape == (2, model.embedding_size) and np.isfinite(emb).all()
        assert not np.allclose(emb[0], emb[1])


def test_preprocess_converts_colour_and_normalises():
    spec = InputSpec(8, 3, (0.5, 0.5, 0.5), (0.25, 0.25, 0.25))
    crop = np.zeros((16, 16, 3), np.uint8)
    crop[..., 2] = 255  # red in BGR
    batch = preprocess([crop, crop[:, :, 0]], spec)
    assert batch.shape == (2, 3, 8, 8) and batch.dtype == np.float32
    assert np.allclose(batch[0, 2], 2.0) and np.allclose(batch[0, 0], -2.0)
    assert np.allclose(batch[1], -2.0)  # the grey (black) crop in all three channels
    with pytest.raises(ValueError, match="crop 0"):
        preprocess([np.zeros((8, 8), np.float32)], spec)


def test_missing_model_is_one_clear_line(tmp_path):
    with pytest.raises(ModelError) as err:
        Classifier.load("pips", models_dir=tmp_path)
    message = str(err.value)
    assert "pips.onnx" in message and "missing" in message and "\n" not in message


@pytest.mark.parametrize("content", [b"", b"\x00garbage\xff" * 100, b"not a model at all"])
def test_corrupt_model_is_one_clear_line(tmp_path, content):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(content)
    with pytest.raises(ModelError) as err:
        Classifier(bad)
    message = str(err.value)
    assert str(bad) in message and "not a loadable ONNX model" in message
    assert "\n" not in message


def test_model_without_metadata_is_refused(tmp_path):
    data = TINY.read_bytes()
    stripped = tmp_path / "nometa.onnx"
    # rename the metadata key inside the protobuf bytes (same length, so still valid)
    stripped.write_bytes(data.replace(b"tableref", b"otherkey"))
    with pytest.raises(ModelError, match="lacks valid 'tableref' metadata"):
        Classifier(stripped)
    shutil.copy(TINY, tmp_path / "ok.onnx")
    assert Classifier.load("ok", models_dir=tmp_path).labels == ("top", "middle", "bottom")


def test_stone_token_of_each_kind():
    from vision.classifier import Prediction, stone_token

    def heads(kind, p=0.9):
        return {"kind": Prediction(kind, p, ((kind, p),)),
                "digit": Prediction("4", 0.5, (("4", 0.5),)),
                "side": Prediction("inactive", 0.8, (("inactive", 0.8),))}

    assert stone_token(heads("white")) == ("W", 0.9)
    assert stone_token(heads("empty", 0.7)) == (".", 0.7)  # a model that sees empty fields
    token, conf = stone_token(heads("red"))
    assert token == "r4" and conf == pytest.approx(0.9 * 0.5 * 0.8)


def test_loading_a_model_writes_and_sends_no_telemetry(tmp_path):
    # onnxruntime's own telemetry (a device id and an event store under ~/.cache/Microsoft,
    # uploads) stays off: a fresh process with its own HOME runs a model and leaves no trace
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env["HOME"] = str(tmp_path)
    code = ("import numpy as np; from vision.classifier import Classifier; "
            f"Classifier({str(TINY)!r}).predict([np.zeros((40, 40, 3), np.uint8)])")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120,
                   cwd=Path(__file__).resolve().parents[2])
    assert list(tmp_path.iterdir()) == []


def test_a_crop_read_from_its_quarter_turns_reads_the_same_turned(tiny):
    # turns=4 averages each head over the crop's four quarter turns: a turned crop gives
    # the same reading (a die top lies any way round), which one reading does not
    crop = stripe("top")
    turned = np.ascontiguousarray(np.rot90(crop))
    once = [tiny.predict([c], top_k=4)[0] for c in (crop, turned)]
    four = [tiny.predict([c], top_k=4, turns=4)[0] for c in (crop, turned)]
    for head in tiny.heads:
        assert dict(four[0][head].top) == pytest.approx(dict(four[1][head].top))
        assert dict(once[0][head].top) != pytest.approx(dict(once[1][head].top))
        assert sum(p for _, p in four[0][head].top) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="1 or 4 quarter turns"):
        tiny.predict([crop], turns=2)
