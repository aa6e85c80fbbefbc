"""RKNN.hybrid_quantization_step1/2: the cfg's custom_quantize_layers computed at higher precision."""
import json
import os
import re

import numpy as np
import pytest

from conftest import LENET, cosine, fashion_like, onnxruntime
from rknn.api import RKNN
from rknn.api import hybrid
from svp_acl import _svp_acl

NAME = "lenet_fashion_mnist"


@pytest.fixture
def step1(tmp_path, monkeypatch):
    """Step 1 on LeNet in tmp_path (the files go to the working directory)."""
    monkeypatch.chdir(tmp_path)
    items = fashion_like(2, n=8)
    for k in range(len(items)):
        np.save(str(tmp_path / "calib_{}.npy".format(k)), items[k:k + 1])
    (tmp_path / "dataset.txt").write_text("".join("calib_{}.npy\n".format(k) for k in range(len(items))))

    def run(**kwargs):
        rknn = RKNN()
        assert rknn.config(target_platform="rk3588") == 0
        assert rknn.load_onnx(model=LENET) == 0
        assert rknn.hybrid_quantization_step1(dataset="dataset.txt", **kwargs) == 0
        rknn.release()
        return tmp_path
    return run


def with_layers(tmp_path, layers, file_name="edited.cfg"):
    """The step1 cfg with custom_quantize_layers replaced (as a user edits it)."""
    cfg = (tmp_path / (NAME + ".quantization.cfg")).read_text()
    body = "".join("    {}: {}\n".format(json.dumps(n), d) for n, d in layers)
    cfg = re.sub(r"custom_quantize_layers:.*?\nquantize_parameters:", lambda m: "custom_quantize_layers:\n" + body +
                 "quantize_parameters:", cfg, flags=re.S)
    path = tmp_path / file_name
    path.write_text(cfg)
    return str(path)


def step2(tmp_path, cfg):
    rknn = RKNN()
    code = rknn.hybrid_quantization_step2(NAME + ".model", NAME + ".data", cfg)
    return rknn, code


def outputs(rknn, xs):
    assert rknn.init_runtime() == 0
    out = np.stack([rknn.inference([xs[k:k + 1]], data_format="nchw")[0] for k in range(len(xs))])
    rknn.release()
    return out


def built(do_quantization, tmp_path):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=do_quantization, dataset=str(tmp_path / "dataset.txt")) == 0
    return rknn


def test_step1_writes_the_model_data_and_a_cfg_with_the_compilers_quantize_parameters(step1):
    tmp_path = step1()
    for suffix in (".model", ".data", ".quantization.cfg"):
        assert (tmp_path / (NAME + suffix)).is_file()
    doc = _svp_acl.load_yaml(str(tmp_path / (NAME + ".quantization.cfg")))
    assert set(doc) == {"custom_quantize_layers", "quantize_parameters"}
    assert not doc["custom_quantize_layers"]
    image = (tmp_path / (NAME + ".data")).read_bytes()
    params = dict(hybrid.quantize_parameters(image))
    assert len(params) >= 5 and set(doc["quantize_parameters"]) == set(params)
    conv = doc["quantize_parameters"]["/conv1/Conv_output_0"]
    assert float(conv["scale"][0]) == pytest.approx(params["/conv1/Conv_output_0"]["scale"][0], rel=1e-7)
    # .data is step1's int8 model: what build() makes from the same settings.
    assert image == built(True, tmp_path)._model


def test_proposal_lists_the_layer_with_the_worst_single_cosine(step1, tmp_path):
    step1(proposal=True, proposal_dataset_size=1)
    layers = _svp_acl.load_yaml(str(tmp_path / (NAME + ".quantization.cfg")))["custom_quantize_layers"]
    assert layers and set(layers.values()) == {"float16"}
    rknn = built(True, tmp_path)
    assert rknn.accuracy_analysis(inputs=[str(tmp_path / "calib_0.npy")], output_dir=str(tmp_path / "snap")) == 0
    quantized = [r for r in rknn.accuracy_report if r["single_cos"] is not None]
    worst = min(quantized, key=lambda r: r["single_cos"])
    assert list(layers)[0] == worst["layer"]
    below = [r["layer"] for r in sorted(quantized, key=lambda r: r["single_cos"]) if r["single_cos"] < 0.99]
    assert list(layers) == (below[:8] or [worst["layer"]])


def test_a_layer_raised_to_float_brings_the_outputs_closer_to_the_float_model(step1):
    tmp_path = step1()
    xs = fashion_like(21, n=8)
    reference = outputs(built(False, tmp_path), xs)
    int8 = outputs(built(True, tmp_path), xs)
    rknn, code = step2(tmp_path, with_layers(tmp_path, [("/conv2/Conv", "float32")]))
    assert code == 0
    precisions = hybrid.layer_precisions(rknn._model)
    assert precisions["/conv2/Conv"] == "FP32" and precisions["/conv1/Conv"] == "A8W8"
    assert rknn.export_rknn(str(tmp_path / "hybrid.rknn")) == 0
    hybrid_out = outputs(rknn, xs)
    mse = lambda a: float(np.square(a - reference).mean())  # noqa: E731
    # Measured: int8 3.7e-4, with /conv2/Conv float 2.2e-4 (cosine 0.99990 -> 0.99994).
    assert mse(hybrid_out) < 0.8 * mse(int8)
    assert cosine(hybrid_out, reference) > cosine(int8, reference)
    loaded = RKNN()
    assert loaded.load_rknn(str(tmp_path / "hybrid.rknn")) == 0
    assert np.array_equal(outputs(loaded, xs), hybrid_out)


def test_an_int16_layer_is_a16w8_in_the_compiled_model(step1):
    tmp_path = step1()
    rknn, code = step2(tmp_path, with_layers(tmp_path, [("/conv1/Conv", "int16"), ("/fc3/Gemm", "int8")]))
    assert code == 0
    precisions = hybrid.layer_precisions(rknn._model)
    assert precisions["/conv1/Conv"] == "A16W8"
    assert precisions["/conv2/Conv"] == "A8W8" and precisions["/fc3/Gemm"] == "A8W8"
    # RKNN.export_qdq writes step2's quantization, the int16 layer included (as rounded float
    # arithmetic): onnxruntime runs it as written within one output step of the model.
    qdq = str(tmp_path / "hybrid.qdq.onnx")
    assert rknn.export_qdq(qdq) == 0
    runtime = _svp_acl.Runtime(rknn._model)
    step = runtime.outputs()[0]["scale"]
    runtime.close()
    xs = fashion_like(22, n=2)
    got = outputs(rknn, xs)
    for k in range(len(xs)):
        (want,) = onnxruntime(qdq, {"image": xs[k:k + 1]}, str(tmp_path / "ort_{}".format(k)), as_written=True)
        assert np.abs(got[k] - want).max() <= step * 1.01


def test_unknown_layers_bad_dtypes_malformed_and_edited_cfgs_are_refused_naming_them(step1, messages):
    tmp_path = step1()
    cases = [
        (with_layers(tmp_path, [("/no/such/Conv", "int16")], "a.cfg"), '"/no/such/Conv", which is not a node'),
        (with_layers(tmp_path, [("/no/such/Gemm", "float16")], "b.cfg"), '"/no/such/Gemm", which is not a node'),
        (with_layers(tmp_path, [("/conv1/Conv", "int4")], "c.cfg"), "/conv1/Conv: 'int4'"),
    ]
    malformed = tmp_path / "malformed.cfg"
    malformed.write_text("custom_quantize_layers:\n  - [unclosed\n")
    cases.append((str(malformed), "not valid YAML"))
    listed = tmp_path / "listed.cfg"
    listed.write_text("custom_quantize_layers:\n  - /conv1/Conv\nquantize_parameters: {}\n")
    cases.append((str(listed), "must map layer names to dtypes"))
    edited = (tmp_path / (NAME + ".quantization.cfg")).read_text().replace("zero_point: [0]", "zero_point: [3]", 1)
    (tmp_path / "edited_params.cfg").write_text(edited)
    cases.append((str(tmp_path / "edited_params.cfg"), "not implemented yet"))
    for cfg, expected in cases:
        messages.lines.clear()
        rknn, code = step2(tmp_path, cfg)
        assert code == -1, cfg
        assert expected in messages.text() and "hybrid_quantization_step2" in messages.text(), messages.text()
        rknn.release()
    rknn = RKNN()
    assert rknn.hybrid_quantization_step2(NAME + ".data", NAME + ".data", NAME + ".quantization.cfg") == -1
    assert "not a .model file" in messages.text()
    rknn.release()
    assert os.path.isfile(NAME + ".model")


def test_step1_refuses_a_missing_model_or_dataset_and_bad_sizes_naming_them(tmp_path, monkeypatch, messages):
    monkeypatch.chdir(tmp_path)
    rknn = RKNN()
    assert rknn.hybrid_quantization_step1(dataset="dataset.txt") == -1
    assert "call load_onnx() first" in messages.text()
    assert rknn.config(target_platform="rk3588") == 0 and rknn.load_onnx(model=LENET) == 0
    for kwargs, expected in [({}, "dataset is required"),
                             ({"dataset": "d.txt", "rknn_batch_size": 0}, "rknn_batch_size must be -1"),
                             ({"dataset": "d.txt", "proposal_dataset_size": 0}, "proposal_dataset_size must be")]:
        messages.lines.clear()
        assert rknn.hybrid_quantization_step1(**kwargs) == -1
        assert expected in messages.text(), messages.text()
    assert not os.listdir(str(tmp_path))  # nothing written
    rknn.release()
