"""RKNN.codegen (docs/python.md): the generated C project (CMakeLists.txt + main.c on
rknn_api.h) configures and builds against this repository's librknnrt, runs the exported
model on the inputs written beside it, and its outputs equal RKNN.inference's; bad
arguments refused naming them."""
import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import fashion_like
from rknn.api import RKNN
from test_rknn_python_c_equivalence import export

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                                reason="needs cmake and a C compiler")


def loaded(path):
    rknn = RKNN()
    assert rknn.load_rknn(path) == 0
    return rknn


@pytest.mark.parametrize("quantize", [False, True])
def test_generated_project_builds_runs_and_matches_inference(tmp_path, quantize):
    model = export(tmp_path, quantize)
    x = fashion_like(31)
    np.save(tmp_path / "x.npy", x)
    rknn = loaded(model)
    project = str(tmp_path / "demo")
    assert rknn.codegen(project, inputs=[str(tmp_path / "x.npy")]) == 0
    assert rknn.init_runtime() == 0
    (expected,) = rknn.inference(inputs=[x], data_format="nchw")
    rknn.release()
    assert sorted(os.listdir(project)) == ["CMakeLists.txt", "input_0.bin", "main.c", "model.rknn"]
    build = os.path.join(project, "build")
    env = dict(os.environ, CCACHE_DISABLE="1")
    for cmd in (["cmake", "-S", project, "-B", build, "-DCMAKE_BUILD_TYPE=Release"],
                ["cmake", "--build", build]):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    run = subprocess.run([os.path.join(build, "rknn_demo"), os.path.join(project, "model.rknn"), project],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "output 0: 10 values" in run.stdout
    y = np.fromfile(os.path.join(project, "output_0.bin"), dtype=np.float32).reshape(expected.shape)
    assert np.array_equal(y, expected)


def test_existing_folders_need_overwrite_and_bad_inputs_are_refused(tmp_path, messages):
    model = export(tmp_path, False)
    rknn = loaded(model)
    project = tmp_path / "demo"
    project.mkdir()
    (project / "keep.txt").write_text("x")
    assert rknn.codegen(str(project)) == -1
    assert "overwrite=True" in messages.text()
    assert rknn.codegen(str(project), overwrite=True) == 0
    assert (project / "main.c").exists() and not (project / "input_0.bin").exists()
    assert rknn.codegen(str(tmp_path / "p2"), inputs=["a.jpg"]) == -1
    assert "only .npy files" in messages.text()
    assert rknn.codegen(str(tmp_path / "p3"), inputs=["a.npy", "b.npy"]) == -1
    assert "2 input file(s) for the model's 1 input(s)" in messages.text()
    np.save(tmp_path / "small.npy", np.zeros((3,), np.float32))
    assert rknn.codegen(str(tmp_path / "p4"), inputs=[str(tmp_path / "small.npy")]) == -1
    assert "holds 3 values" in messages.text()
    rknn.release()
    assert RKNN().codegen(str(tmp_path / "p5")) == -1
    assert "no model" in messages.text()
