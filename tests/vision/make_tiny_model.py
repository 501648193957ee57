"""Writes data/tiny.onnx and data/tiny-old.onnx, the fixtures of test_classifier.py (needs
the `onnx` package: ``python -m tests.vision.make_tiny_model``). Grey 4x4 input, two heads
of plain sums: ``band`` (labels top/middle/bottom: the summed rows 0, 1-2, 3) and ``side``
(left/right: the summed columns 0-1, 2-3). tiny.onnx also has the ``embedding`` output
(the 16 input pixels the heads sum, flattened); tiny-old.onnx is the same model as files
were before embeddings: heads only, no ``embedding`` in its metadata."""

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from vision.classifier import EMBEDDING_OUTPUT, METADATA_KEY, InputSpec, metadata_json

DATA = Path(__file__).parent / "data"
SPEC = InputSpec(size=4, channels=1, mean=(0.0,), std=(1.0,))
HEADS = {"band": ("top", "middle", "bottom"), "side": ("left", "right")}


def weights() -> tuple[np.ndarray, np.ndarray]:
    band = np.zeros((4, 4, 3), np.float32)
    band[0, :, 0], band[1:3, :, 1], band[3, :, 2] = 1, 0.5, 1
    side = np.zeros((4, 4, 2), np.float32)
    side[:, :2, 0], side[:, 2:, 1] = 1, 1
    return band.reshape(16, 3), side.reshape(16, 2)


def build(embedding: bool) -> onnx.ModelProto:
    band, side = weights()
    nodes = [helper.make_node("Flatten", ["input"], ["flat"], axis=1),
             helper.make_node("MatMul", ["flat", "w_band"], ["band"]),
             helper.make_node("MatMul", ["flat", "w_side"], ["side"])]
    outputs = [helper.make_tensor_value_info("band", TensorProto.FLOAT, ["batch", 3]),
               helper.make_tensor_value_info("side", TensorProto.FLOAT, ["batch", 2])]
    if embedding:
        nodes.append(helper.make_node("Identity", ["flat"], [EMBEDDING_OUTPUT]))
        outputs.append(
            helper.make_tensor_value_info(EMBEDDING_OUTPUT, TensorProto.FLOAT, ["batch", 16]))
    graph = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 1, 4, 4])],
        outputs,
        [numpy_helper.from_array(band, "w_band"), numpy_helper.from_array(side, "w_side")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    meta = (metadata_json(SPEC, HEADS, embedding_size=16) if embedding
            else metadata_json(SPEC, HEADS).replace('"embedding": null, ', ""))
    helper.set_model_props(model, {METADATA_KEY: meta})
    onnx.checker.check_model(model)
    return model


def main() -> None:
    DATA.mkdir(exist_ok=True)
    onnx.save(build(embedding=True), DATA / "tiny.onnx")
    onnx.save(build(embedding=False), DATA / "tiny-old.onnx")

if __name__ == "__main__":
    main()
