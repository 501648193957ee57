"""Training the crop classifiers on the CPU: ``python -m vision.train NAME``.

``registry`` names every model (its heads and labels, input size, crop source);
``trainer`` (needs the ``train`` extra: torch, onnx) builds, trains and exports them;
``evaluate`` measures an exported model with onnxruntime only (accuracy per class,
confusion, real-dice accuracy, latency), so the benchmarks can use it without torch.
See docs/training.md.
"""
