"""svp_acl.Profiling: profiling on and off from Python, read back by svp_prof."""
import os
import subprocess

import numpy as np
import pytest

import svp_acl
from conftest import fashion_like, tool


def test_executions_while_profiling_is_on_are_in_the_svp_prof_report(lenet_om, tmp_path):
    with svp_acl.Model(lenet_om) as m:
        m.execute([fashion_like(1)])  # before: not profiled
        with svp_acl.Profiling(str(tmp_path)) as p:
            for k in range(3):
                m.execute([fashion_like(k)])
        assert p.stopped
        m.execute([fashion_like(9)])  # after: not profiled
    jobs = [d for d in os.listdir(str(tmp_path)) if d.startswith("JOB")]
    assert len(jobs) == 1, jobs
    job = os.path.join(str(tmp_path), jobs[0])
    assert os.path.isfile(os.path.join(job, "end_info.json"))
    done = subprocess.run([tool("SVP_SVP_PROF"), job, "-o", str(tmp_path / "report"), "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    report = "".join(open(os.path.join(str(tmp_path / "report"), f)).read()
                     for f in os.listdir(str(tmp_path / "report")) if f.endswith(".csv"))
    assert "/conv1/Conv" in report
    api = open(os.path.join(str(tmp_path / "report"), "api_statistics.csv")).read().splitlines()
    executes = [l for l in api if l.startswith("svp_acl_mdl_execute,")]
    assert len(executes) == 1 and executes[0].split(",")[1] == "3"  # the three inside, not those around


def test_profiling_refuses_a_missing_directory_and_an_empty_selection(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a directory"):
        svp_acl.Profiling(str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="nothing to collect"):
        svp_acl.Profiling(str(tmp_path), acl_api=False, task_time=False)


def test_a_second_session_at_once_raises_with_the_runtime_message(tmp_path):
    with svp_acl.Profiling(str(tmp_path)):
        with pytest.raises(RuntimeError, match="svp_acl_prof"):
            svp_acl.Profiling(str(tmp_path))
