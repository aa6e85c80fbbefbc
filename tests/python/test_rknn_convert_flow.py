"""rknn.api.RKNN in a model-zoo convert.py flow (config -> load_onnx -> build -> export_rknn,
then load_rknn in a new RKNN -> init_runtime -> inference), checked against onnxruntime."""
import os

import numpy as np
import pytest

from conftest import LENET, cosine, fashion_like, onnxruntime
from rknn.api import RKNN
from svp_acl import _svp_acl


def convert(tmp_path, do_quantization, dataset=None, **config):
    rknn = RKNN(verbose=False)
    assert rknn.config(target_platform="rk3588", **config) == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=do_quantization, dataset=dataset) == 0
    path = str(tmp_path / ("lenet_i8.rknn" if do_quantization else "lenet_fp.rknn"))
    assert rknn.export_rknn(path) == 0
    rknn.release()
    return path


def run_saved(path, x, data_format="nchw", perf_debug=False):
    rknn = RKNN()
    assert rknn.load_rknn(path) == 0
    assert rknn.init_runtime(perf_debug=perf_debug) == 0
    outputs = rknn.inference(inputs=[x], data_format=[data_format])
    rknn.release()
    return outputs


def test_float_model_exported_and_reloaded_matches_onnxruntime(tmp_path):
    path = convert(tmp_path, do_quantization=False)
    x = fashion_like(1)
    (got,) = run_saved(path, x)
    (want,) = onnxruntime(LENET, {"image": x}, str(tmp_path / "ort"))
    assert got.dtype == np.float32 and got.shape == want.shape == (1, 10)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_int8_model_built_from_a_dataset_list_agrees_with_onnxruntime(tmp_path):
    items = fashion_like(2, n=8)
    lines = []
    for k in range(len(items)):
        np.save(tmp_path / "calib_{}.npy".format(k), items[k:k + 1])
        lines.append("calib_{}.npy".format(k))  # relative to the list, as the toolkit reads it
    (tmp_path / "dataset.txt").write_text("\n".join(lines) + "\n")
    path = convert(tmp_path, do_quantization=True, dataset=str(tmp_path / "dataset.txt"))
    x = fashion_like(3)
    (got,) = run_saved(path, x)
    (want,) = onnxruntime(LENET, {"image": x}, str(tmp_path / "ort"))
    assert cosine(got, want) > 0.99
    assert int(np.argmax(got)) == int(np.argmax(want))
    assert not np.array_equal(got, want)  # int8: not the float model's exact values


def test_export_qdq_writes_the_int8_builds_quantization_that_onnxruntime_runs_alike(tmp_path):
    """svp-acl's RKNN.export_qdq: the quantization of the last int8 build as QDQ ONNX; run
    as written by onnxruntime it gives the exported model's outputs within one output step."""
    items = fashion_like(5, n=8)
    for k in range(len(items)):
        np.save(tmp_path / "calib_{}.npy".format(k), items[k:k + 1])
    (tmp_path / "dataset.txt").write_text("".join("calib_{}.npy\n".format(k) for k in range(len(items))))
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.export_qdq(str(tmp_path / "none.onnx")) == -1  # nothing built yet
    assert rknn.build(do_quantization=True, dataset=str(tmp_path / "dataset.txt")) == 0
    path, qdq = str(tmp_path / "lenet_i8.rknn"), str(tmp_path / "lenet_i8.qdq.onnx")
    assert rknn.export_rknn(path) == 0
    assert rknn.export_qdq(qdq) == 0
    assert rknn.build(do_quantization=False) == 0
    assert rknn.export_qdq(str(tmp_path / "float.onnx")) == -1  # a float build has no quantization
    assert not os.path.exists(str(tmp_path / "float.onnx"))
    rknn.release()
    with open(path, "rb") as f:
        runtime = _svp_acl.Runtime(f.read())
    step = runtime.outputs()[0]["scale"]
    runtime.close()
    for seed in (6, 7):
        x = fashion_like(seed)
        (got,) = run_saved(path, x)
        (want,) = onnxruntime(qdq, {"image": x}, str(tmp_path / "ort_{}".format(seed)), as_written=True)
        assert got.shape == want.shape == (1, 10)
        assert np.abs(got - want).max() <= step * 1.01
        assert int(np.argmax(got)) == int(np.argmax(want))


def test_mean_and_std_values_normalise_raw_input_inside_the_model(tmp_path):
    path = convert(tmp_path, do_quantization=False, mean_values=[[127.5]], std_values=[[255.0]])
    raw = (fashion_like(4) * 255).astype(np.float32)
    (got,) = run_saved(path, raw)
    (want,) = onnxruntime(LENET, {"image": (raw - 127.5) / 255.0}, str(tmp_path / "ort"))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_nhwc_and_nchw_inputs_give_the_same_outputs(tmp_path):
    path = convert(tmp_path, do_quantization=False)
    x = fashion_like(5)
    (nchw,) = run_saved(path, x, "nchw")
    (nhwc,) = run_saved(path, np.ascontiguousarray(x.transpose(0, 2, 3, 1)), "nhwc")
    (default,) = run_saved(path, np.ascontiguousarray(x.transpose(0, 2, 3, 1)), None)
    assert np.array_equal(nchw, nhwc) and np.array_equal(nchw, default)


def test_the_session_model_and_the_reloaded_file_give_identical_outputs(tmp_path):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False) == 0
    assert rknn.init_runtime() == 0
    x = fashion_like(6)
    (session,) = rknn.inference(inputs=[x], data_format="nchw")
    path = str(tmp_path / "m.rknn")
    assert rknn.export_rknn(path) == 0
    rknn.release()
    (reloaded,) = run_saved(path, x)
    assert np.array_equal(session, reloaded)


def test_eval_perf_reports_each_layer_in_host_time(tmp_path, capsys):
    path = convert(tmp_path, do_quantization=False)
    rknn = RKNN()
    assert rknn.load_rknn(path) == 0
    assert rknn.init_runtime(perf_debug=True) == 0
    report = rknn.eval_perf(is_print=False)
    rknn.release()
    assert "HOST time" in report
    for layer in ("/conv1/Conv", "/conv2/Conv", "/fc3/Gemm"):
        assert layer in report
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("dtype", ["fp", "i8"])
def test_the_model_zoo_style_convert_script_runs_unchanged(tmp_path, dtype):
    import subprocess
    import sys
    # convert.py gives LeNet the zoo classifiers' pixel input (std 255): calibration items
    # and the input are pixels, onnxruntime's input the [0, 1] values the ONNX model takes.
    for k in range(4):
        np.save(tmp_path / "c{}.npy".format(k), fashion_like(40 + k) * np.float32(255))
    (tmp_path / "dataset.txt").write_text("".join("c{}.npy\n".format(k) for k in range(4)))
    script = os.path.join(os.path.dirname(LENET), "..", "samples", "python", "convert.py")
    out = str(tmp_path / "lenet.rknn")
    done = subprocess.run([sys.executable, script, LENET, "rk3588", dtype, out, str(tmp_path / "dataset.txt")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    x = fashion_like(50)
    (got,) = run_saved(out, x * np.float32(255))
    (want,) = onnxruntime(LENET, {"image": x}, str(tmp_path / "ort"))
    assert cosine(got, want) > (0.99 if dtype == "i8" else 0.99999)
