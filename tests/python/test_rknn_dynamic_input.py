"""inference on a config(dynamic_input) model picks the shape set its arrays have
(librknnrt's rknn_set_input_shapes), as the toolkit does."""
import numpy as np
import pytest

from conftest import LENET, fashion_like
from rknn.api import RKNN


@pytest.fixture
def models():
    dyn = RKNN()
    assert dyn.config(target_platform="rk3588", dynamic_input=[[[1, 1, 28, 28]], [[2, 1, 28, 28]], [[4, 1, 28, 28]]]) == 0
    assert dyn.load_onnx(model=LENET) == 0
    assert dyn.build(do_quantization=False) == 0
    assert dyn.init_runtime() == 0
    one = RKNN()
    assert one.config(target_platform="rk3588") == 0
    assert one.load_onnx(model=LENET) == 0
    assert one.build(do_quantization=False) == 0
    assert one.init_runtime() == 0
    yield dyn, one
    dyn.release()
    one.release()


def test_each_shape_set_runs_when_the_arrays_have_its_shape(models):
    dyn, one = models
    x = fashion_like(31, n=4)
    singles = [one.inference([x[k:k + 1]], data_format="nchw")[0] for k in range(4)]
    for n in (2, 4, 1, 2):  # back and forth between the sets
        (got,) = dyn.inference([x[:n]], data_format="nchw")
        assert got.shape == (n, 10)
        for k in range(n):
            np.testing.assert_allclose(got[k:k + 1], singles[k], rtol=1e-5, atol=1e-5)
    (nhwc,) = dyn.inference([x[:2].transpose(0, 2, 3, 1)])  # the default layout picks the set too
    np.testing.assert_allclose(nhwc[1:2], singles[1], rtol=1e-5, atol=1e-5)


def test_a_shape_outside_the_sets_raises_listing_them(models):
    dyn, _ = models
    with pytest.raises(ValueError, match=r"\(3, 1, 28, 28\).*not one of the model's shape sets.*\(4, 28, 28, 1\)"):
        dyn.inference([fashion_like(1, n=3)], data_format="nchw")
