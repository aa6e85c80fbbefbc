"""Resolution gears from Python: Model.execute(..., resolution=(h, w)) selects one of the
model's compiled gears (svp_acl_mdl_set_dynamic_hw_size) for that execution."""
import os

import numpy as np
import pytest

import svp_acl
from conftest import SOURCE_DIR

CONV_BLOCK = os.path.join(SOURCE_DIR, "tests", "fuzz", "onnx_corpus", "conv_block.onnx")  # x: 1x2x4x4


@pytest.fixture(scope="module")
def geared():
    image = svp_acl.compile(CONV_BLOCK, soc_version="SS928V100", compile_mode="float", input_shape="x:1,2,-1,-1",
                            dynamic_image_size="8,8;4,4")
    with svp_acl.Model(image) as m:
        yield m


def x_of(h, w, seed):
    return np.random.default_rng(seed).standard_normal((1, 2, h, w)).astype(np.float32)


def test_each_gear_runs_at_its_resolution_as_the_fixed_model_does(geared):
    assert geared.resolutions() == [(8, 8), (4, 4)]
    with svp_acl.Model(svp_acl.compile(CONV_BLOCK, soc_version="SS928V100", compile_mode="float")) as fixed:
        x4 = x_of(4, 4, 1)
        (want,) = fixed.execute([x4])
    (at4,) = geared.execute([x4], resolution=(4, 4))
    np.testing.assert_allclose(at4, want, rtol=1e-5, atol=1e-6)
    assert geared.inputs()[0]["shape"] == (1, 2, 4, 4)  # the description follows the gear
    (at8,) = geared.execute([x_of(8, 8, 2)], resolution=(8, 8))
    assert geared.inputs()[0]["shape"] == (1, 2, 8, 8)
    assert at8.shape == at4.shape and not np.array_equal(at8, at4)


def test_an_input_of_another_gear_is_refused_with_both_shapes(geared):
    with pytest.raises(ValueError, match=r"takes shape \(1, 2, 8, 8\), not \(1, 2, 4, 4\)"):
        geared.execute([x_of(4, 4, 3)], resolution=(8, 8))


def test_a_resolution_the_model_lacks_is_refused_naming_the_gears(geared):
    with pytest.raises(ValueError, match=r"resolution \(5, 5\).*8x8, 4x4"):
        geared.execute([x_of(5, 5, 4)], resolution=(5, 5))


def test_a_model_without_gears_refuses_a_resolution(lenet_om):
    with svp_acl.Model(lenet_om) as m:
        assert m.resolutions() == []
        with pytest.raises(ValueError, match="no resolution gears"):
            m.execute([np.zeros((1, 1, 28, 28), np.float32)], resolution=(28, 28))


def test_async_executions_keep_the_gear_they_were_started_with(geared):
    want = {}
    for k, hw in enumerate([(8, 8), (4, 4)] * 4):
        x = x_of(hw[0], hw[1], 10 + k)
        want[k] = (x, hw, geared.execute([x], resolution=hw)[0])
    got = {}
    with svp_acl.Stream() as s:
        for k, (x, hw, _) in want.items():
            geared.execute_async([x], s, lambda outs, err, k=k: got.__setitem__(k, (outs, err)), resolution=hw)
        s.synchronize()
    for k, (x, hw, expected) in want.items():
        outs, err = got[k]
        assert err is None and outs[0].tobytes() == expected.tobytes(), (k, hw)
