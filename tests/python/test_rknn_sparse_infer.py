"""config(sparse_infer=True) (seed 000 §5.11, docs/rknn.md): RK3576 only (other platforms:
build returns -1 naming the argument); the flag changes no output on the software NPU and
a float build warns that it has no effect. The per-layer 4:2 check is tested by
RknnConvert.SparseInferReportsEachConvsSparsityOnRk3576WithTheSameOutputs."""
import numpy as np

from conftest import LENET, fashion_like
from rknn.api import RKNN


def build(platform, sparse, x=None):
    rknn = RKNN()
    assert rknn.config(target_platform=platform, sparse_infer=sparse) == 0
    assert rknn.load_onnx(model=LENET) == 0
    ret = rknn.build(do_quantization=False)
    y = None
    if ret == 0 and x is not None:
        assert rknn.init_runtime() == 0
        (y,) = rknn.inference(inputs=[x], data_format="nchw")
    rknn.release()
    return ret, y


def test_sparse_infer_on_rk3576_keeps_the_outputs_and_warns_for_float(messages):
    x = fashion_like(9)
    ret, y = build("rk3576", True, x)
    assert ret == 0
    assert "config(sparse_infer) has no effect on a float model" in messages.text()
    assert np.array_equal(y, build("rk3576", False, x)[1])


def test_sparse_infer_elsewhere_is_refused_naming_it(messages):
    assert build("rk3588", True)[0] == -1
    assert "config(sparse_infer)" in messages.text() and "rk3576 only" in messages.text()
