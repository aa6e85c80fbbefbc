"""export_encrypted_rknn_model (seed 000 §5.9, docs/python.md): the encrypted file runs from
Python and through librknnrt.so with the plain model's outputs; damaged files are refused
with the runtime's message; the file holds no weights in the clear; bad arguments refused."""
import ctypes
import os

import numpy as np
import pytest

from conftest import fashion_like
from rknn.api import RKNN
from test_rknn_python_c_equivalence import LIBRKNNRT, c_inference, export, python_inference

RKNN_ERR_MODEL_INVALID = -6


@pytest.fixture
def plain(tmp_path):
    return export(tmp_path, quantize=False)


def encrypt(plain, out, level):
    rknn = RKNN()
    ret = rknn.export_encrypted_rknn_model(plain, out, level)
    rknn.release()
    return ret


@pytest.mark.parametrize("level", [1, 2, 3])
def test_encrypted_model_runs_with_the_plain_outputs(tmp_path, plain, level):
    out = str(tmp_path / "lenet.enc.rknn")
    assert encrypt(plain, out, level) == 0
    x = fashion_like(5)
    expected = python_inference(plain, x, "nchw")
    assert np.array_equal(python_inference(out, x, "nchw"), expected)
    if LIBRKNNRT:
        assert np.array_equal(c_inference(out, x), expected)


def test_default_output_name_and_level(tmp_path, plain):
    rknn = RKNN()
    assert rknn.export_encrypted_rknn_model(plain) == 0
    rknn.release()
    out = plain[:-len(".rknn")] + ".crypt.rknn"
    assert os.path.exists(out)
    assert open(out, "rb").read()[12] == 1  # crypt_level 1 in the header
    x = fashion_like(6)
    assert np.array_equal(python_inference(out, x, "nchw"), python_inference(plain, x, "nchw"))


def test_the_file_holds_no_plain_weights(tmp_path, plain):
    out = str(tmp_path / "e.rknn")
    assert encrypt(plain, out, 1) == 0
    data, enc = open(plain, "rb").read(), open(out, "rb").read()
    windows = [data[at:at + 16] for at in range(0, len(data) - 16, 97)]
    assert len(windows) > 100
    assert not any(w in enc for w in windows)


def init_code(path, messages):
    rknn = RKNN()
    assert rknn.load_rknn(path) == 0
    ret = rknn.init_runtime()
    rknn.release()
    return ret


def damaged(tmp_path, plain, change):
    out = str(tmp_path / "e.rknn")
    assert encrypt(plain, out, 1) == 0
    data = bytearray(open(out, "rb").read())
    data = change(data)
    bad = str(tmp_path / "bad.rknn")
    open(bad, "wb").write(bytes(data))
    return bad


def flip(data):
    data[len(data) // 2] ^= 0x01
    return data


def other_level(data):
    data[12] = 3
    return data


@pytest.mark.parametrize("change,message", [(flip, "failed authentication"), (lambda d: d[:-1], "truncated"),
                                            (lambda d: d[:30], "truncated"),
                                            (other_level, "another crypt_level")])
def test_damaged_files_are_refused_with_the_message(tmp_path, plain, messages, change, message):
    bad = damaged(tmp_path, plain, change)
    assert init_code(bad, messages) == -1
    assert message in messages.text()
    if LIBRKNNRT:
        lib = ctypes.CDLL(LIBRKNNRT)
        model = open(bad, "rb").read()
        ctx = ctypes.c_uint64(0)
        assert lib.rknn_init(ctypes.byref(ctx), model, len(model), 0, None) == RKNN_ERR_MODEL_INVALID


@pytest.mark.parametrize("level", [0, 4, "1", True])
def test_bad_levels_are_refused(tmp_path, plain, messages, level):
    assert encrypt(plain, str(tmp_path / "e.rknn"), level) == -1
    assert "crypt_level" in messages.text()
    assert not os.path.exists(tmp_path / "e.rknn")


def test_inputs_that_are_not_plain_models_are_refused(tmp_path, plain, messages):
    once = str(tmp_path / "once.rknn")
    assert encrypt(plain, once, 1) == 0
    assert encrypt(once, str(tmp_path / "twice.rknn"), 1) == -1
    assert "already encrypted" in messages.text()
    junk = tmp_path / "junk.rknn"
    junk.write_bytes(b"not a model at all")
    assert encrypt(str(junk), str(tmp_path / "j.rknn"), 1) == -1
    assert "not a model svp-acl exported" in messages.text()
    assert encrypt(str(tmp_path / "missing.rknn"), None, 1) == -1


def test_eval_perf_of_an_encrypted_model_says_why_not(tmp_path, plain):
    out = str(tmp_path / "e.rknn")
    assert encrypt(plain, out, 1) == 0
    rknn = RKNN()
    assert rknn.load_rknn(out) == 0
    assert rknn.init_runtime() == 0
    with pytest.raises(RuntimeError, match="encrypted"):
        rknn.eval_perf(is_print=False)
    rknn.release()
