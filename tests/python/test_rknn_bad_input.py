"""rknn.api.RKNN refuses bad arguments and calls out of order with a message (a -1 return
code where the toolkit returns codes, an exception from inference), never a crash."""
import numpy as np
import pytest

from conftest import LENET, fashion_like
from rknn.api import RKNN


@pytest.fixture
def running():
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False) == 0
    assert rknn.init_runtime() == 0
    yield rknn
    rknn.release()


def test_inference_of_a_float64_array_raises_naming_the_dtype(running):
    with pytest.raises(TypeError, match="float64.*astype"):
        running.inference(inputs=[fashion_like(1).astype(np.float64)], data_format="nchw")


def test_inference_of_an_unsupported_dtype_raises(running):
    with pytest.raises(TypeError, match="complex"):
        running.inference(inputs=[fashion_like(1).astype(np.complex64)], data_format="nchw")


def test_inference_of_a_wrong_shape_raises_naming_both_shapes(running):
    with pytest.raises(ValueError, match=r"\(1, 1, 28, 27\).*\(1, 1, 28, 28\)"):
        running.inference(inputs=[np.zeros((1, 1, 28, 27), np.float32)], data_format="nchw")


def test_inference_of_too_many_inputs_raises(running):
    x = fashion_like(1)
    with pytest.raises(ValueError, match="1 input"):
        running.inference(inputs=[x, x], data_format="nchw")


def test_inference_with_a_bad_data_format_raises(running):
    with pytest.raises(ValueError, match="'nc1hwc2'"):
        running.inference(inputs=[fashion_like(1)], data_format="nc1hwc2")


def test_a_pass_through_buffer_in_nhwc_is_refused_naming_the_model_order(running):
    with pytest.raises(ValueError, match="pass-through"):
        running.inference(inputs=[np.zeros((1, 28, 28, 1), np.float32)], inputs_pass_through=[1])


def test_an_image_without_its_batch_dimension_is_taken_as_the_toolkit_takes_it(running):
    x = fashion_like(1)
    (with_batch,) = running.inference(inputs=[x], data_format="nchw")
    (without,) = running.inference(inputs=[x[0]], data_format="nchw")
    assert np.array_equal(with_batch, without)


def test_inference_before_init_runtime_raises():
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    with pytest.raises(RuntimeError, match="init_runtime"):
        rknn.inference(inputs=[fashion_like(1)])


def test_calls_after_release_fail_with_a_message(messages):
    rknn = RKNN()
    rknn.release()
    with pytest.raises(RuntimeError, match="released"):
        rknn.inference(inputs=[fashion_like(1)])
    assert rknn.init_runtime() == -1
    assert rknn.load_onnx(model=LENET) == -1
    assert "released" in messages.text()


def test_build_before_load_onnx_returns_minus_one(messages):
    rknn = RKNN()
    assert rknn.build(do_quantization=False) == -1
    assert "load_onnx" in messages.text()


def test_a_bad_quantized_algorithm_fails_build_naming_the_config_argument(messages):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588", quantized_algorithm="best") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False) == -1
    assert "config(quantized_algorithm)" in messages.text() and "best" in messages.text()


def test_an_unknown_target_platform_is_refused_by_config(messages):
    assert RKNN().config(target_platform="rk9999") == -1
    assert "rk9999" in messages.text() and "RK3588" in messages.text()


def test_unknown_and_unsupported_config_arguments_are_refused_naming_them(messages):
    rknn = RKNN()
    # An argument the toolkit's signature lacks raises TypeError, as Python raises it there.
    with pytest.raises(TypeError, match="mean_valuez"):
        rknn.config(target_platform="rk3588", mean_valuez=[[0]])
    assert rknn.config(target_platform="rk3588", float_dtype="bfloat16") == -1
    assert "float_dtype" in messages.text() and "not implemented yet" in messages.text()
    assert rknn.config(target_platform="rk3588", float_dtype="float16") == 0  # the default is accepted


def test_quantize_weight_is_refused_at_build_as_not_implemented(messages):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588", quantize_weight=True) == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False) == -1
    assert "config(quantize_weight)" in messages.text() and "not implemented yet" in messages.text()


def test_quantization_without_a_dataset_fails_build(messages):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=True) == -1
    assert "build(dataset)" in messages.text()


def test_a_board_target_is_refused_by_init_runtime(messages):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False) == 0
    assert rknn.init_runtime(target="rk3588") == -1
    assert "software NPU" in messages.text() and "target=None" in messages.text()
    assert rknn.init_runtime(async_mode=True) == -1
    assert "async_mode" in messages.text()


def test_a_rockchip_rknn_file_is_refused_with_how_to_rebuild(tmp_path, messages):
    path = tmp_path / "vendor.rknn"
    path.write_bytes(b"RKNN" + bytes(60))
    assert RKNN().load_rknn(str(path)) == -1
    assert "closed format" in messages.text() and "load_onnx" in messages.text()


def test_a_damaged_model_file_fails_init_runtime_with_the_runtime_message(tmp_path, messages):
    path = tmp_path / "junk.rknn"
    path.write_bytes(b"\x00" * 64)
    rknn = RKNN()
    assert rknn.load_rknn(str(path)) == 0
    assert rknn.init_runtime() == -1
    assert "rknn_init failed: RKNN_ERR_MODEL_INVALID" in messages.text()


def test_a_missing_onnx_file_is_refused_by_load_onnx(tmp_path, messages):
    assert RKNN().load_onnx(model=str(tmp_path / "none.onnx")) == -1
    assert "none.onnx" in messages.text()


def test_unsupported_build_and_load_arguments_are_refused_naming_them(messages):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET, input_initial_val=[0]) == -1
    assert "input_initial_val" in messages.text()
    assert rknn.load_onnx(model=LENET, outputs=["logits"]) == 0
    assert rknn.build(do_quantization=False) == -1
    assert "load_onnx(outputs)" in messages.text()
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False, auto_hybrid=True) == -1
    assert "auto_hybrid" in messages.text()


def test_a_core_mask_reaches_librknnrt_which_checks_it_against_the_platforms_cores(messages):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False) == 0
    assert rknn.init_runtime(core_mask=RKNN.NPU_CORE_0_1) == 0  # RK3588 has three cores
    rknn.release()
    one_core = RKNN()
    assert one_core.config(target_platform="rk3566") == 0
    assert one_core.load_onnx(model=LENET) == 0
    assert one_core.build(do_quantization=False) == 0
    assert one_core.init_runtime(core_mask=RKNN.NPU_CORE_0_1) == -1
    assert "rknn_set_core_mask failed: RKNN_ERR_FAIL" in messages.text()
    assert one_core.init_runtime(core_mask=5) == -1
    assert "core_mask=5" in messages.text()
    assert one_core.init_runtime(core_mask=RKNN.NPU_CORE_AUTO) == 0
    one_core.release()


def test_verbose_file_receives_the_log(tmp_path):
    log = tmp_path / "build.log"
    rknn = RKNN(verbose=True, verbose_file=str(log))
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=LENET) == 0
    assert rknn.build(do_quantization=False) == 0
    rknn.release()
    assert "build:" in log.read_text()
