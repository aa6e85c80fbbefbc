"""RKNN.accuracy_analysis: svp_atc's per-layer accuracy report as the toolkit's snapshot."""
import csv
import os
import shlex
import subprocess

import numpy as np
import pytest

from conftest import LENET, fashion_like
from rknn.api import RKNN


def int8_lenet(tmp_path):
    items = fashion_like(2, n=8)
    for k in range(len(items)):
        np.save(str(tmp_path / "calib_{}.npy".format(k)), items[k:k + 1])
    (tmp_path / "dataset.txt").write_text("".join("calib_{}.npy\n".format(k) for k in range(len(items))))
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=True, dataset=str(tmp_path / "dataset.txt")) == 0
    return rknn


def test_it_names_the_same_worst_layer_as_svp_atc_accuracy_report(tmp_path):
    svp_atc = os.environ.get("SVP_SVP_ATC", "")
    if not os.path.isfile(svp_atc):
        pytest.skip("needs SVP_SVP_ATC (set by ctest)")
    rknn = int8_lenet(tmp_path)
    x = fashion_like(11)
    np.save(str(tmp_path / "x.npy"), x)
    snapshot = str(tmp_path / "snapshot")
    assert rknn.accuracy_analysis(inputs=[str(tmp_path / "x.npy")], output_dir=snapshot) == 0
    rows = rknn.accuracy_report
    rknn.release()
    quantized = [r for r in rows if r["single_cos"] is not None]
    assert len(rows) >= 5 and quantized
    worst = min(quantized, key=lambda r: r["single_cos"])

    text = open(os.path.join(snapshot, "error_analysis.txt")).read()
    assert "[{}] {}".format(worst["op"], worst["layer"]) in text
    assert 'worst layer alone: "{}"'.format(worst["layer"]) in text
    # The same model and inputs through svp_atc's command line, as the snapshot records it.
    recorded = next(l for l in text.splitlines() if "as svp_atc:" in l).split("as svp_atc:")[1]
    (tmp_path / "x.txt").write_text(str(tmp_path / "x.npy") + "\n")
    args = [svp_atc] + shlex.split(recorded) + ["--output=" + str(tmp_path / "atc"),
                                                "--accuracy_inputs=image:" + str(tmp_path / "x.txt")]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(str(tmp_path / "atc_layer_accuracy.csv")) as f:
        first = next(csv.DictReader(f))  # worst single cosine first
    assert first["layer"] == worst["layer"]
    assert float(first["single_cosine"]) == pytest.approx(worst["single_cos"], abs=1e-6)
    assert float(first["single_euclidean"]) == pytest.approx(worst["single_euc"], rel=1e-5)
    # euc is the distance itself: the relative one times the float output's norm, so it
    # differs from it wherever that norm is not 1.
    assert all(r["entire_euc"] >= 0 and r["entire_rel"] >= 0 for r in rows)
    assert any(abs(r["entire_euc"] - r["entire_rel"]) > 1e-3 for r in rows)

    for folder in ("golden", "simulator"):
        files = os.listdir(os.path.join(snapshot, folder))
        assert len(files) == 1 and files[0].endswith(".npy")
    golden = np.load(os.path.join(snapshot, "golden", files[0]))
    simulated = np.load(os.path.join(snapshot, "simulator", files[0]))
    assert golden.shape == simulated.shape == (1, 10) and not np.array_equal(golden, simulated)


def test_arrays_in_nhwc_and_nchw_give_the_same_report(tmp_path):
    rknn = int8_lenet(tmp_path)
    x = fashion_like(12)
    assert rknn.accuracy_analysis(inputs=[x], output_dir=str(tmp_path / "a")) == 0
    nchw = rknn.accuracy_report
    assert rknn.accuracy_analysis(inputs=[x.transpose(0, 2, 3, 1)], output_dir=str(tmp_path / "b")) == 0
    assert rknn.accuracy_report == nchw
    assert rknn.accuracy_analysis(inputs=[fashion_like(13)], output_dir=str(tmp_path / "c")) == 0
    assert rknn.accuracy_report != nchw  # the analysis runs on the inputs given
    rknn.release()


def test_refusals_name_the_problem(tmp_path, messages):
    rknn = int8_lenet(tmp_path)
    assert rknn.accuracy_analysis(inputs=[np.zeros((1, 3, 28, 28), np.float32)], output_dir=str(tmp_path / "s")) == -1
    assert "has shape (1, 3, 28, 28)" in messages.text()
    assert rknn.accuracy_analysis(inputs=["photo.jpg"], output_dir=str(tmp_path / "s")) == -1
    assert "image files are not implemented yet" in messages.text()
    assert rknn.accuracy_analysis(inputs=[fashion_like(1)], output_dir=str(tmp_path / "s"), target="rk3588") == -1
    assert "target=None" in messages.text()
    rknn.release()
    fp = RKNN()
    assert fp.config(target_platform="rk3588") == 0 and fp.load_onnx(model=LENET) == 0
    assert fp.build(do_quantization=False) == 0
    assert fp.accuracy_analysis(inputs=[fashion_like(1)], output_dir=str(tmp_path / "s")) == -1
    assert "do_quantization=False" in messages.text()
    fp.release()
    rebuilt = int8_lenet(tmp_path)
    assert rebuilt.load_onnx(model=LENET) == 0  # a new model, not built yet
    assert rebuilt.accuracy_analysis(inputs=[fashion_like(1)], output_dir=str(tmp_path / "s")) == -1
    assert "call load_onnx() and build() first" in messages.text()
    rebuilt.release()
