"""config(model_pruning=True) (seed 000 §5.8, docs/rknn.md): accepted and applied by build;
a model with no all-zero channels (LeNet) builds unchanged: the same outputs, no
"model_pruning results" line. The pruning itself is tested on a model with zero channels
by RknnConvert.ModelPruningRemovesAllZeroChannelsWithTheSameOutputs (rknn_convert_tests)."""
import numpy as np

from conftest import LENET, fashion_like
from rknn.api import RKNN


def outputs(pruning, x):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588", model_pruning=pruning) == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False) == 0
    assert rknn.init_runtime() == 0
    (y,) = rknn.inference(inputs=[x], data_format="nchw")
    rknn.release()
    return y


def test_model_pruning_builds_and_keeps_a_model_without_zero_channels(messages):
    x = fashion_like(8)
    assert np.array_equal(outputs(True, x), outputs(False, x))
    assert "model_pruning results" not in messages.text()
