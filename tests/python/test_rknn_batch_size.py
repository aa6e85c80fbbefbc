"""build(rknn_batch_size=N): a model that runs N items per inference, each as the batch-1 model."""
import numpy as np
import pytest

from conftest import LENET, fashion_like
from rknn.api import RKNN


def built(tmp_path, batch, quantize=False, **onnx):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET, **onnx) == 0
    dataset = None
    if quantize:
        items = fashion_like(2, n=4)
        for k in range(len(items)):
            np.save(str(tmp_path / "c{}.npy".format(k)), items[k:k + 1])
        (tmp_path / "ds.txt").write_text("".join("c{}.npy\n".format(k) for k in range(len(items))))
        dataset = str(tmp_path / "ds.txt")
    assert rknn.build(do_quantization=quantize, dataset=dataset, rknn_batch_size=batch) == 0
    assert rknn.init_runtime() == 0
    return rknn


@pytest.mark.parametrize("quantize", [False, True])
def test_each_item_of_a_batch_gives_what_the_batch_1_model_gives(tmp_path, quantize):
    x = fashion_like(21, n=4)
    four = built(tmp_path, 4, quantize)
    one = built(tmp_path, None, quantize)
    (got,) = four.inference([x], data_format="nchw")
    assert got.shape == (4, 10)
    for k in range(4):
        (want,) = one.inference([x[k:k + 1]], data_format="nchw")
        np.testing.assert_allclose(got[k:k + 1], want, rtol=1e-5, atol=1e-5 if not quantize else 0)
    assert not np.array_equal(got[0], got[1])
    with pytest.raises(ValueError, match=r"the model wants \(4, 1, 28, 28\)"):
        four.inference([x[:1]], data_format="nchw")
    four.release()
    one.release()


def test_the_batch_multiplies_input_size_list(tmp_path):
    rknn = built(tmp_path, 3, inputs=["image"], input_size_list=[[1, 1, 28, 28]])
    (got,) = rknn.inference([fashion_like(5, n=3).transpose(0, 2, 3, 1)])  # NHWC, the default
    assert got.shape == (3, 10)
    rknn.release()


@pytest.mark.parametrize("value, words", [(0, "positive integer"), (2.5, "positive integer"), (True, "positive integer")])
def test_a_bad_batch_size_is_refused_naming_it(value, words, messages):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False, rknn_batch_size=value) == -1
    assert "rknn_batch_size" in messages.text() and words in messages.text()


def test_a_batch_size_with_dynamic_input_is_refused(messages):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588", dynamic_input=[[[1, 1, 28, 28]], [[2, 1, 28, 28]]]) == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False, rknn_batch_size=2) == -1
    assert "dynamic_input" in messages.text() and "not implemented yet" in messages.text()


def test_an_input_already_batched_is_refused(messages):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET, inputs=["image"], input_size_list=[[2, 1, 28, 28]]) == 0
    assert rknn.build(do_quantization=False, rknn_batch_size=2) == -1
    assert "already has batch 2" in messages.text()
