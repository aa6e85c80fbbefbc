"""rknn.utils.onnx_edit (seed 004, docs/python.md): transform equations parsed as the guide
defines them (its own example's inserted ops), the edited model's outputs equal to the
original's after the inverse transform (both built and run by rknn.api on the software
NPU), the dataset transformed alike, bad equations refused naming the problem."""
import os

import numpy as np
import pytest

from conftest import LENET, fashion_like
from rknn.api import RKNN
from rknn.utils import onnx_edit
from rknn.utils.onnx_edit import Transform
from svp_acl import _svp_acl


def test_the_guides_example_inserts_the_ops_its_log_shows():
    # seed 004: input 'k_cache.1' [4, 48, 1, 8] with 'a,b,c,d->1,ad,b,c'
    t = Transform("a,b,c,d->1,ad,b,c", [4, 48, 1, 8])
    assert t.new_shape == [1, 32, 48, 1]
    assert t.steps_inverse() == [("reshape", [4, 8, 48, 1]), ("transpose", [0, 2, 3, 1])]
    # output 'k_cache' [4, 8, 48, 1] with 'a,b,c,d->1,ab,c,d'
    o = Transform("a,b,c,d->1,ab,c,d", [4, 8, 48, 1])
    assert o.new_shape == [1, 32, 48, 1]
    assert o.steps_forward() == [("reshape", [1, 32, 48, 1])]


def test_split_with_assignments_matches_numpy_and_inverts():
    t = Transform("ab,c,d,qk[a=2,k=8]->aq,cd,1,kb", [32, 4, 1, 64])
    assert t.new_shape == [16, 4, 1, 128]
    x = np.random.default_rng(1).random((32, 4, 1, 64), dtype=np.float32)
    expected = x.reshape(2, 16, 4, 1, 8, 8).transpose(0, 4, 2, 3, 5, 1).reshape(16, 4, 1, 128)
    y = t.forward(x)
    assert np.array_equal(y, expected)
    assert np.array_equal(t.inverse(y), x)


def test_letters_are_independent_names():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert np.array_equal(Transform("a,b->b,a", [2, 3]).forward(x), Transform("c,a->a,c", [2, 3]).forward(x))
    assert Transform("a,b,c->a,1,cb,1,1", [2, 3, 4]).new_shape == [2, 1, 12, 1, 1]


@pytest.mark.parametrize("equation,dims,message", [
    ("a,1,c,d->ac,1", [2, 1, 3, 4], "missing: d"),
    ("a,b,c->a,b", [2, 3], "left side has 3 dimensions"),
    ("ab,c[a=5]->a,b,c", [32, 4], "not divisible"),
    ("ab,c->a,b,c", [32, 4], "several unknown sizes"),
    ("a,1->a", [2, 3], "'1' stands for a dimension of 3"),
    ("a,b->a,b,a", [2, 3], "repeated: a"),
    ("a,b", [2, 3], "exactly one '->'"),
    ("a,B->a,B", [2, 3], "only a-z"),
    ("a,b[z=2]->a,b", [2, 3], "not on the left side"),
])
def test_bad_equations_are_refused_naming_the_problem(equation, dims, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        Transform(equation, dims)


def test_dynamic_shapes_are_refused_as_not_implemented():
    with pytest.raises(NotImplementedError, match="not implemented yet"):
        Transform("a,b->b,a", [-1, 3])


def run_float(onnx, x):
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=onnx) == 0
    assert rknn.build(do_quantization=False) == 0
    assert rknn.init_runtime() == 0
    (y,) = rknn.inference(inputs=[x], data_format="nchw")
    rknn.release()
    return y


def lenet_io():
    io = _svp_acl.onnx_io(LENET)
    (inp,) = [n for n, out, _ in io if not out]
    (outp,) = [n for n, out, _ in io if out]
    return inp, outp


def test_edited_model_equals_the_original_after_the_inverse_transform(tmp_path, messages):
    inp, outp = lenet_io()
    edited = str(tmp_path / "lenet_nhwc.onnx")
    assert onnx_edit(LENET, edited, inputs_transform={inp: "a,b,c,d->a,c,d,b"},
                     outputs_transform={outp: "a,bc[b=2]->a,c,1,b"}) is None
    assert "was reset as shape-[1, 28, 28, 1]" in messages.text()
    io = {name: dims for name, _, dims in _svp_acl.onnx_io(edited)}
    assert io[inp] == [1, 28, 28, 1] and io[outp] == [1, 5, 1, 2]
    ti = Transform("a,b,c,d->a,c,d,b", [1, 1, 28, 28])
    to = Transform("a,bc[b=2]->a,c,1,b", [1, 10])
    for seed in (3, 4):
        x = fashion_like(seed)
        y = run_float(LENET, x)
        y_edit = run_float(edited, ti.forward(x))
        assert y_edit.shape == (1, 5, 1, 2)
        assert not np.array_equal(y_edit.reshape(1, 10), y)  # the output really is transposed
        np.testing.assert_allclose(to.inverse(y_edit), y, rtol=1e-5, atol=1e-6)


def test_dataset_is_transformed_alike_and_builds_the_edited_model(tmp_path):
    inp, _ = lenet_io()
    xs = [fashion_like(20 + k) for k in range(3)]
    for k, x in enumerate(xs):
        np.save(tmp_path / "x{}.npy".format(k), x)
    (tmp_path / "dataset.txt").write_text("".join("x{}.npy\n".format(k) for k in range(3)))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    edited = str(out_dir / "lenet_nhwc.onnx")
    listed = onnx_edit(LENET, edited, inputs_transform={inp: "a,b,c,d->a,c,d,b"}, dataset=str(tmp_path / "dataset.txt"))
    assert listed == str(out_dir / "lenet_nhwc_dataset.txt")
    lines = open(listed).read().split()
    assert len(lines) == 3
    for x, line in zip(xs, lines):
        assert np.array_equal(np.load(os.path.join(out_dir, line)), x.transpose(0, 2, 3, 1))
    rknn = RKNN()
    assert rknn.config(target_platform="rk3588") == 0
    assert rknn.load_onnx(model=edited) == 0
    assert rknn.build(do_quantization=True, dataset=listed) == 0
    rknn.release()


def test_unknown_tensor_names_and_missing_models_are_refused(tmp_path):
    with pytest.raises(ValueError, match="'nope' is not one of the model's inputs"):
        onnx_edit(LENET, str(tmp_path / "e.onnx"), inputs_transform={"nope": "a->a"})
    with pytest.raises(Exception, match="cannot read"):
        onnx_edit(str(tmp_path / "missing.onnx"), str(tmp_path / "e.onnx"))
    with pytest.raises(TypeError, match="unexpected keyword argument 'opset'"):
        onnx_edit(LENET, str(tmp_path / "e.onnx"), opset=13)
