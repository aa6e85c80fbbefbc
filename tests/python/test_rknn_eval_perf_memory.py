"""RKNN.eval_perf (predicted board time per layer, host time) and RKNN.eval_memory."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import LENET, fashion_like
from rknn.api import RKNN


def built(platform="rk3588", quantize=False, tmp_path=None):
    rknn = RKNN()
    assert rknn.config(target_platform=platform) == 0
    assert rknn.load_onnx(model=LENET) == 0
    dataset = None
    if quantize:
        items = fashion_like(2, n=4)
        for k in range(len(items)):
            np.save(str(tmp_path / "c{}.npy".format(k)), items[k:k + 1])
        (tmp_path / "ds.txt").write_text("".join("c{}.npy\n".format(k) for k in range(len(items))))
        dataset = str(tmp_path / "ds.txt")
    assert rknn.build(do_quantization=quantize, dataset=dataset) == 0
    return rknn


def predicted_total_us(report):
    return float(re.search(r"Total predicted board time \(us\): ([0-9.]+)", report).group(1))


def test_eval_perf_gives_each_layer_its_predicted_board_time_as_svp_atc_predicts(tmp_path):
    svp_atc = os.environ.get("SVP_SVP_ATC", "")
    if not os.path.isfile(svp_atc):
        pytest.skip("needs SVP_SVP_ATC (set by ctest)")
    rknn = built()
    assert rknn.init_runtime(perf_debug=True) == 0
    report = rknn.eval_perf(is_print=False)
    rknn.release()
    assert "Predicted board time on RK3588" in report and "NOT measured" in report and "HOST time" in report
    rows = [l for l in report.splitlines() if re.match(r"\s+\d+\s+\S+\s+/", l)]
    assert any("/conv1/Conv" in r for r in rows) and any("/fc3/Gemm" in r for r in rows)
    assert any(r.split()[2] == "/Relu" and r.split()[5] == "fused" for r in rows)  # folded into /conv1/Conv
    total = predicted_total_us(report)
    per_layer = sum(float(r.split()[4]) for r in rows)
    assert 0 < per_layer < total
    # svp_atc prints the same model's prediction when it compiles it.
    done = subprocess.run([svp_atc, "--model=" + LENET, "--framework=5", "--soc_version=RK3588", "--compile_mode=float",
                           "--output=" + str(tmp_path / "lenet")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    atc_ms = float(re.search(r"predicted board time on RK3588: ([0-9.]+) ms", done.stderr).group(1))
    assert total / 1000 == pytest.approx(atc_ms, abs=0.0005)


def test_the_prediction_depends_on_the_target_and_the_precision(tmp_path):
    totals = {}
    for platform, quantize in (("rk3588", False), ("rk3566", False), ("rk3588", True)):
        rknn = built(platform, quantize, tmp_path)
        assert rknn.init_runtime() == 0
        totals[(platform, quantize)] = predicted_total_us(rknn.eval_perf(is_print=False))
        rknn.release()
    assert len(set(totals.values())) == 3, totals


def test_eval_memory_reports_what_the_runtime_allocated(capsys):
    rknn = built()
    assert rknn.init_runtime(eval_mem=True) == 0
    mem = rknn.eval_memory()
    out = capsys.readouterr().out
    assert "Memory Profile Info Dump" in out and "Weight Memory" in out
    # The float model's weights are about the ONNX file (which is almost all float32 weights).
    onnx_bytes = os.path.getsize(LENET)
    assert 0.8 * onnx_bytes < mem["total_weight_allocation"] < 1.2 * onnx_bytes
    assert mem["total_model_allocation"] >= mem["total_weight_allocation"] + mem["total_internal_allocation"]
    assert mem["total_internal_allocation"] > 0
    rknn.release()


def test_eval_memory_needs_eval_mem_and_eval_perf_a_runtime():
    rknn = built()
    with pytest.raises(RuntimeError, match="eval_perf: call init_runtime"):
        rknn.eval_perf()
    assert rknn.init_runtime() == 0
    with pytest.raises(RuntimeError, match="eval_mem=True"):
        rknn.eval_memory()
    rknn.release()


# The board clock is the runtime's configuration (SVP_ACL_RKNN_CONFIG, read when the process's
# first init_runtime starts the software NPU): a fresh interpreter per clock.
_EVAL_PERF_SCRIPT = r"""
import re, sys
from rknn.api import RKNN
rknn = RKNN()
assert rknn.config(target_platform="rk3588") == 0
assert rknn.load_onnx(model=sys.argv[1]) == 0
assert rknn.build(do_quantization=False) == 0
assert rknn.init_runtime(perf_debug=sys.argv[2] == "1") == 0
reports = [rknn.eval_perf(is_print=False) for _ in range(2)]
print(reports[0])
print("RUNS-IDENTICAL" if reports[0] == reports[1] else "RUNS-DIFFER")
rknn.release()
"""


def eval_perf_in_process(tmp_path, clock, perf_debug):
    env = dict(os.environ)
    env.pop("SVP_ACL_RKNN_CONFIG", None)
    if clock == "board":
        (tmp_path / "acl.json").write_text('{"softnpu": {"clock": "board"}}')
        env["SVP_ACL_RKNN_CONFIG"] = str(tmp_path / "acl.json")
    done = subprocess.run([sys.executable, "-c", _EVAL_PERF_SCRIPT, LENET, "1" if perf_debug else "0"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_eval_perf_on_the_board_clock_reports_the_runs_predicted_board_time_labelled_as_predicted(tmp_path):
    out = eval_perf_in_process(tmp_path, "board", perf_debug=True)
    assert "PREDICTED board time on RK3588" in out and "HOST time" not in out
    assert "predicted board time on RK3588 (board clock)" in out  # librknnrt's table header
    assert "RUNS-IDENTICAL" in out  # a prediction: the same every run
    run_us = int(re.search(r"Total Predicted Run Time\(us\): (\d+)", out).group(1))
    # The runtime's run is the timing model's prediction for the model's target (rounded to us).
    assert run_us == pytest.approx(predicted_total_us(out), abs=1)
    summary = eval_perf_in_process(tmp_path, "board", perf_debug=False)
    assert "(per-layer predicted times need init_runtime(perf_debug=True))" in summary
    assert int(re.search(r"Total Predicted Run Time\(us\): (\d+)", summary).group(1)) == run_us


def test_eval_perf_on_the_host_clock_still_reports_host_time(tmp_path):
    out = eval_perf_in_process(tmp_path, "host", perf_debug=True)
    assert "HOST time" in out and "(svp-acl software NPU, host time)" in out
    assert "PREDICTED board time" not in out and "Total Predicted Run Time" not in out
