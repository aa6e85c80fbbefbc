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


def test_output_writes_the_om_file_svp_atc_would_and_returns_the_same_bytes(tmp_path):
    image = svp_acl.compile(LENET, soc_version="RK3588", compile_mode="float", output=str(tmp_path / "lenet"))
    assert (tmp_path / "lenet.om").read_bytes() == image


def calibration_list(tmp_path, n):
    lines = []
    for i in range(n):
        path = tmp_path / "item{}.npy".format(i)
        np.save(path, fashion_like(100 + i))
        lines.append(str(path))
    (tmp_path / "calib.txt").write_text("\n".join(lines) + "\n")
    return "{}:{}".format(_svp_acl.onnx_inputs(LENET)[0][0], tmp_path / "calib.txt")


def test_calibration_progress_reaches_the_callback_and_the_logger_as_it_goes(tmp_path, caplog):
    image_list = calibration_list(tmp_path, 12)
    seen = []
    svp_acl.compile(LENET, soc_version="RK3588", image_list=image_list, progress=lambda *a: seen.append(a))
    calibration = [a for a in seen if a[0] == "calibration"]
    assert calibration, seen
    assert [d for _, d, _ in calibration] == sorted(d for _, d, _ in calibration)
    assert calibration[-1][1] == calibration[-1][2] and len(calibration) >= 2
    caplog.set_level("INFO", logger="svp_acl")
    svp_acl.compile(LENET, soc_version="RK3588", image_list=image_list)
    lines = [r.getMessage() for r in caplog.records if "calibration" in r.getMessage()]
    assert lines and lines[-1].endswith("{0}/{0}".format(calibration[-1][2])), lines
    with pytest.raises(TypeError, match="progress"):
        svp_acl.compile(LENET, soc_version="RK3588", compile_mode="float", progress=3)
