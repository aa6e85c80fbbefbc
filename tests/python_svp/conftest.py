"""Shared helpers of the SVP runtime's Python tests (tests/python_svp, docs/python.md).

A pytest process of their own (ctest python_svp_runtime_tests): svp_acl's runtime starts
the process's software NPU with svp_acl_init, which librknnrt's tests in tests/python
would already have started. SVP_SVP_ATC / SVP_SVP_RUN name the C tools (tests/CMakeLists.txt).
"""
import os
import subprocess

import numpy as np
import pytest

SOURCE_DIR = os.environ.get("SVP_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
LENET = os.path.join(SOURCE_DIR, "models", "lenet_fashion_mnist.onnx")


def tool(name):
    path = os.environ.get(name, "")
    if not path or not os.path.isfile(path):
        pytest.skip("needs {} (set by ctest)".format(name))
    return path


def fashion_like(seed, n=1):
    """Inputs in LeNet's range [0, 1]: blurred noise."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 1, 28, 28), dtype=np.float32)
    for axis in (2, 3):
        x = (x + np.roll(x, 1, axis=axis) + np.roll(x, -1, axis=axis)) / 3
    return x.astype(np.float32)


def svp_atc(tmp_path, name, *flags):
    """Compiles LeNet with the svp_atc binary; returns the .om path."""
    out = str(tmp_path / name)
    args = [tool("SVP_SVP_ATC"), "--model=" + LENET, "--framework=5", "--output=" + out] + list(flags)
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return out + ".om"


@pytest.fixture(scope="session")
def lenet_om(tmp_path_factory):
    return svp_atc(tmp_path_factory.mktemp("om"), "lenet", "--soc_version=SS928V100", "--compile_mode=float")
