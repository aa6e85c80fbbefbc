"""Shared fixtures of the Python package's tests (tests/python, docs/python.md).

ctest runs them with PYTHONPATH=<build>/python and SVP_SOURCE_DIR / SVP_RKNNRT_LIBRARY set
(tests/CMakeLists.txt); onnxruntime is the independent oracle, run by
tests/oracle/ort_run.mjs in a node process of its own (SVP_NPM_MODULES, scripts/npm_deps.sh).
"""
import json
import logging
import os
import subprocess

import numpy as np
import pytest

SOURCE_DIR = os.environ.get("SVP_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
LENET = os.path.join(SOURCE_DIR, "models", "lenet_fashion_mnist.onnx")


def npm_modules():
    env = os.environ.get("SVP_NPM_MODULES", "")
    return env if env else os.path.join(SOURCE_DIR, "build", "npm", "node_modules")


def onnxruntime(onnx, inputs, out_dir, as_written=False):
    """onnxruntime's outputs of `onnx` on `inputs` ({name: array}), in the model's order;
    as_written: no graph optimisations (QDQ models: every node computed as written)."""
    if not os.path.isdir(os.path.join(npm_modules(), "onnxruntime-node")):
        pytest.skip("needs the npm package onnxruntime-node (scripts/npm_deps.sh; SVP_NPM_MODULES)")
    os.makedirs(out_dir, exist_ok=True)
    args = ["node", os.path.join(SOURCE_DIR, "tests", "oracle", "ort_run.mjs"), onnx, out_dir]
    for name, array in inputs.items():
        path = os.path.join(out_dir, "in_" + name + ".npy")
        np.save(path, array)
        args.append(name + "=" + path)
    if as_written:
        args.append("--as-written")
    env = dict(os.environ, SVP_NPM_MODULES=npm_modules())
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, "onnxruntime oracle failed: " + done.stderr
    with open(os.path.join(out_dir, "outputs.json")) as f:
        listed = json.load(f)
    return [np.load(os.path.join(out_dir, o["file"])) for o in listed]


def cosine(a, b):
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def fashion_like(seed, n=1):
    """Inputs in LeNet's range [0, 1]: blurred noise (the model was trained on images)."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 1, 28, 28), dtype=np.float32)
    for axis in (2, 3):
        x = (x + np.roll(x, 1, axis=axis) + np.roll(x, -1, axis=axis)) / 3
    return x.astype(np.float32)


class Messages(logging.Handler):
    """The rknn logger's records (the toolkit prints them; tests read them)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())

    def text(self):
        return "\n".join(self.lines)


@pytest.fixture
def messages():
    handler = Messages()
    log = logging.getLogger("rknn")
    log.addHandler(handler)
    yield handler
    log.removeHandler(handler)
