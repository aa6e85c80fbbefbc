"""svp_acl.Model with dynamic AIPP (aipp=) and svp_acl.Dump, against svp_run (the C API)."""
import os
import subprocess

import numpy as np
import pytest

import svp_acl
from conftest import fashion_like, svp_atc, tool

# LeNet's 1x28x28 input fed from a grey (YUV400) camera frame up to 64x64.
DYNAMIC_AIPP = """aipp_op {
  aipp_mode: dynamic
  related_input_rank: 0
  max_src_image_size_w: 64
  max_src_image_size_h: 64
}
"""
# Two parameter sets: the 28x28 window at (5, 3) of a 40x36 frame scaled to [0, 1]; a
# 30x30 frame padded to 32x32 and resized to 28x28 with a mean taken off.
PARAMS = [
    {"input_format": "YUV400_U8", "src_image_size_w": 40, "src_image_size_h": 36, "crop": True,
     "load_start_pos_w": 5, "load_start_pos_h": 3, "crop_size_w": 28, "crop_size_h": 28,
     "var_reci_chn_0": 0.00392157},
    {"input_format": "YUV400_U8", "src_image_size_w": 30, "src_image_size_h": 30, "padding": 1,
     "top_padding_size": 1, "bottom_padding_size": 1, "left_padding_size": 1, "right_padding_size": 1,
     "resize": 1, "resize_output_w": 28, "resize_output_h": 28, "mean_chn_0": 100, "var_reci_chn_0": 0.005},
]


@pytest.fixture(scope="module")
def dyn_om(tmp_path_factory):
    d = tmp_path_factory.mktemp("dyn")
    (d / "dyn.cfg").write_text(DYNAMIC_AIPP)
    return svp_atc(d, "dyn", "--soc_version=SS928V100", "--compile_mode=float", "--insert_op_conf=" + str(d / "dyn.cfg"))


def frame(params, seed):
    return np.random.default_rng(seed).integers(0, 256, (params["src_image_size_h"], params["src_image_size_w"]),
                                                dtype=np.uint8)


def aipp_config(path, params):
    text = "[aipp_op]\n" + "".join("    {} : {}\n".format(k, int(v) if isinstance(v, bool) else v)
                                    for k, v in params.items())
    path.write_text(text)
    return str(path)


def svp_run(tmp_path, om, inputs, *flags):
    out = tmp_path / "run"
    args = [tool("SVP_SVP_RUN"), "--model", om, "--input", ",".join(inputs), "--output", str(out),
            "--output_dirname", "r", "--warmup_count", "0"] + list(flags)
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return out / "r"


def test_dynamic_aipp_outputs_are_byte_identical_to_svp_run_with_the_same_parameters(dyn_om, tmp_path):
    with svp_acl.Model(dyn_om) as m:
        assert [(t["name"], t.get("aipp")) for t in m.inputs()] == [("image", "dynamic")]  # no parameter input
        outputs = []
        for k, params in enumerate(PARAMS):
            image = frame(params, k)
            image.tofile(str(tmp_path / "frame{}.yuv".format(k)))
            cfg = aipp_config(tmp_path / "aipp{}.config".format(k), params)
            result = svp_run(tmp_path / str(k), dyn_om, [str(tmp_path / "frame{}.yuv".format(k))], "--aipp_config", cfg)
            expected = (result / "frame{}_0.bin".format(k)).read_bytes()
            (y,) = m.execute([image], aipp=params)
            assert y.dtype == np.float32 and y.shape == (1, 10)
            assert y.tobytes() == expected
            (from_file,) = m.execute([image.ravel()], aipp=cfg)  # the same file svp_run read; any shape of the bytes
            assert from_file.tobytes() == expected
            outputs.append(y)
        # The parameters really reach the model: the two sets give different scores.
        assert not np.array_equal(outputs[0], outputs[1])


def test_dynamic_aipp_mistakes_are_refused_naming_them(dyn_om, lenet_om):
    params = PARAMS[0]
    with svp_acl.Model(dyn_om) as m:
        image = frame(params, 0)
        with pytest.raises(ValueError, match="has dynamic AIPP: give its parameters with aipp="):
            m.execute([image])
        with pytest.raises(ValueError, match="unknown key 'crop_size_x'"):
            m.execute([image], aipp=dict(params, crop_size_x=3))
        with pytest.raises(ValueError, match="src_image_size_h is missing"):
            m.execute([image], aipp={k: v for k, v in params.items() if k != "src_image_size_h"})
        with pytest.raises(ValueError, match=r"40x36 YUV400_U8 \(W x H = 1440 bytes\)"):
            m.execute([image[:30]], aipp=params)
        with pytest.raises(ValueError, match="as uint8"):
            m.execute([image.astype(np.int16)], aipp=params)
    with svp_acl.Model(lenet_om) as m:
        with pytest.raises(ValueError, match="no dynamic-AIPP input"):
            m.execute([fashion_like(1)], aipp=params)


def dumped(result_dir):
    """svp_run's dump (one model directory) as read_dump records."""
    (name,) = [d for d in os.listdir(str(result_dir / "dump")) if os.path.isdir(str(result_dir / "dump" / d))]
    return svp_acl.read_dump(str(result_dir / "dump"), name)


def test_dump_tensors_are_byte_identical_to_svp_run_dump(dyn_om, tmp_path):
    params = PARAMS[1]
    image = frame(params, 7)
    image.tofile(str(tmp_path / "frame.yuv"))
    cfg = aipp_config(tmp_path / "aipp.config", params)
    expected = dumped(svp_run(tmp_path, dyn_om, [str(tmp_path / "frame.yuv")], "--aipp_config", cfg, "--dump"))
    (tmp_path / "py").mkdir()
    with svp_acl.Dump(str(tmp_path / "py")) as dump:
        with svp_acl.Model(dyn_om) as m:
            (y,) = m.execute([image], aipp=params)
    got = dump.tensors()
    assert len(got) == len(expected) >= 10
    for g, e in zip(got, expected):
        assert (g["layer"], g["io"], g["index"], g["dims"], g["dtype"]) == (e["layer"], e["io"], e["index"], e["dims"],
                                                                             e["dtype"])
        if e["array"] is None:
            assert g["array"] is None and g["note"] == e["note"]
        else:
            assert g["array"].dtype == e["array"].dtype and g["array"].tobytes() == e["array"].tobytes(), g["layer"]
    assert np.array_equal(got[-1]["array"].reshape(y.shape), y)  # the last layer's output is the model's


def test_dump_selects_layers_and_executions_as_svp_run_dump_layer_and_dump_step(lenet_om, tmp_path):
    x = fashion_like(3)
    with svp_acl.Model(lenet_om) as probe:
        name = probe.name
    assert name == "lenet"
    with svp_acl.Dump(str(tmp_path), models={name: ["/fc1/Gemm", "/Relu_2"]}, steps="1") as dump:
        with svp_acl.Model(lenet_om) as m:
            for _ in range(3):
                m.execute([x])
    got = dump.tensors()
    assert sorted(r["layer"] for r in got) == ["/Relu_2", "/fc1/Gemm"]
    assert {r["execution"] for r in got} == {1}
    # A model loaded after the block is not dumped.
    with svp_acl.Model(lenet_om) as m:
        m.execute([x])
    assert len(svp_acl.read_dump(str(tmp_path))) == 2
    with pytest.raises(FileNotFoundError):
        svp_acl.Dump(str(tmp_path / "missing"))
