"""svp_acl.compile: svp_atc's options as keyword arguments, the model image as bytes."""
import numpy as np
import pytest

import svp_acl
from conftest import LENET, fashion_like
from rknn.api import RKNN
from svp_acl import _svp_acl


def run(image, x):
    runtime = _svp_acl.Runtime(image)
    try:
        return runtime.run([x], [_svp_acl.RKNN_TENSOR_NCHW], [False])[0]
    finally:
        runtime.close()


def test_compile_gives_the_model_rknn_api_builds_for_the_same_settings(tmp_path):
    image = svp_acl.compile(LENET, soc_version="RK3588", compile_mode="float")
    assert isinstance(image, bytes) and image[:8] == b"SVPACLOM"
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False) == 0
    path = str(tmp_path / "m.rknn")
    assert rknn.export_rknn(path) == 0
    rknn.release()
    x = fashion_like(30)
    assert np.array_equal(run(image, x), run(open(path, "rb").read(), x))


def test_an_unknown_option_raises_naming_it_and_the_nearest_flag():
    with pytest.raises(ValueError, match="soc_versio.*soc_version"):
        svp_acl.compile(LENET, soc_versio="RK3588")


def test_a_bad_option_value_raises_naming_the_flag():
    with pytest.raises(ValueError, match="soc_version"):
        svp_acl.compile(LENET, soc_version="RK9999")


def test_a_missing_model_raises():
    with pytest.raises((ValueError, FileNotFoundError, RuntimeError), match="nope.onnx"):
        svp_acl.compile("nope.onnx", soc_version="RK3588", compile_mode="float")


def test_output_is_refused_because_the_bytes_are_returned():
    with pytest.raises(ValueError, match="output"):
        svp_acl.compile(LENET, output="lenet")
