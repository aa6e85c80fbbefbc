"""A model exported by rknn.api runs through librknnrt.so's C API (ctypes, and the model-zoo
style C program tests/c99/rknn_app_flow.c) with outputs identical to the Python inference."""
import ctypes
import os
import re
import subprocess

import numpy as np
import pytest

from conftest import LENET, fashion_like
from rknn.api import RKNN

LIBRKNNRT = os.environ.get("SVP_RKNNRT_LIBRARY", "")
APP_FLOW = os.environ.get("SVP_RKNN_APP_FLOW", "")
RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW = 0, 0


class RknnInput(ctypes.Structure):  # rknn_input (include/rknn/rknn_api.h)
    _fields_ = [("index", ctypes.c_uint32), ("buf", ctypes.c_void_p), ("size", ctypes.c_uint32),
                ("pass_through", ctypes.c_uint8), ("type", ctypes.c_int), ("fmt", ctypes.c_int)]


class RknnOutput(ctypes.Structure):  # rknn_output
    _fields_ = [("want_float", ctypes.c_uint8), ("is_prealloc", ctypes.c_uint8), ("index", ctypes.c_uint32),
                ("buf", ctypes.c_void_p), ("size", ctypes.c_uint32)]


def export(tmp_path, quantize):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    dataset = None
    if quantize:
        for k in range(4):
            np.save(tmp_path / "c{}.npy".format(k), fashion_like(10 + k))
        (tmp_path / "dataset.txt").write_text("".join("c{}.npy\n".format(k) for k in range(4)))
        dataset = str(tmp_path / "dataset.txt")
    assert rknn.build(do_quantization=quantize, dataset=dataset) == 0
    path = str(tmp_path / "lenet.rknn")
    assert rknn.export_rknn(path) == 0
    rknn.release()
    return path


def python_inference(path, x, data_format):
    rknn = RKNN()
    assert rknn.load_rknn(path) == 0
    assert rknn.init_runtime() == 0
    (y,) = rknn.inference(inputs=[x], data_format=data_format)
    rknn.release()
    return y


def c_inference(path, x):
    """rknn_init / rknn_inputs_set (FLOAT32, NCHW) / rknn_run / rknn_outputs_get through librknnrt.so."""
    lib = ctypes.CDLL(LIBRKNNRT)
    model = open(path, "rb").read()
    ctx = ctypes.c_uint64(0)
    assert lib.rknn_init(ctypes.byref(ctx), model, len(model), 0, None) == 0
    x = np.ascontiguousarray(x, dtype=np.float32)
    inp = RknnInput(0, x.ctypes.data, x.nbytes, 0, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW)
    y = np.zeros((1, 10), np.float32)
    out = RknnOutput(1, 1, 0, y.ctypes.data, y.nbytes)
    assert lib.rknn_inputs_set(ctx, 1, ctypes.byref(inp)) == 0
    assert lib.rknn_run(ctx, None) == 0
    assert lib.rknn_outputs_get(ctx, 1, ctypes.byref(out), None) == 0
    assert lib.rknn_destroy(ctx) == 0
    return y


@pytest.mark.skipif(not os.path.isfile(LIBRKNNRT), reason="SVP_RKNNRT_LIBRARY (librknnrt.so) not given")
@pytest.mark.parametrize("quantize", [False, True], ids=["float", "int8"])
def test_python_and_the_c_api_give_bit_identical_outputs(tmp_path, quantize):
    path = export(tmp_path, quantize)
    x = fashion_like(20)
    from_python = python_inference(path, x, "nchw")
    from_c = c_inference(path, x)
    assert np.array_equal(from_python, from_c)
    assert np.abs(from_c).max() > 0  # a real result, not two untouched buffers


@pytest.mark.skipif(not os.path.isfile(APP_FLOW), reason="SVP_RKNN_APP_FLOW (tests/c99/rknn_app_flow) not given")
def test_a_model_zoo_style_c_program_runs_the_python_exported_model_with_the_same_top1(tmp_path):
    path = export(tmp_path, quantize=False)
    done = subprocess.run([APP_FLOW, path], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    m = re.search(r"top-1: class (\d+) \(([-0-9.e+]+)\)", done.stdout)
    assert m, done.stdout
    # The C program's input: UINT8 NHWC pixels (i * 7) % 256 as values.
    image = (np.arange(28 * 28, dtype=np.int64) * 7 % 256).astype(np.uint8).reshape(1, 28, 28, 1)
    y = python_inference(path, image, "nhwc")
    assert int(np.argmax(y)) == int(m.group(1))
    assert f"{y.ravel()[int(m.group(1))]:f}" == m.group(2)
