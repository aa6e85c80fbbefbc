"""samples/python/accuracy_analysis.py: an accuracy-analysis session runs and reports."""
import os
import subprocess
import sys

import numpy as np

from conftest import LENET, SOURCE_DIR, fashion_like


def test_the_accuracy_analysis_sample_runs(tmp_path):
    for k in range(4):
        np.save(str(tmp_path / "c{}.npy".format(k)), fashion_like(60 + k))
    (tmp_path / "dataset.txt").write_text("".join("c{}.npy\n".format(k) for k in range(4)))
    np.save(str(tmp_path / "x.npy"), fashion_like(70))
    script = os.path.join(SOURCE_DIR, "samples", "python", "accuracy_analysis.py")
    snap = str(tmp_path / "snap")
    done = subprocess.run([sys.executable, script, LENET, str(tmp_path / "dataset.txt"), str(tmp_path / "x.npy"),
                           "rk3588", snap], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "worst layers alone" in done.stdout and "/" in done.stdout
    assert os.path.isfile(os.path.join(snap, "error_analysis.txt"))
