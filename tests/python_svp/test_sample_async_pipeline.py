"""samples/python/async_pipeline.py runs and checks its asynchronous outputs."""
import os
import subprocess
import sys

from conftest import SOURCE_DIR


def test_the_async_multi_stream_pipeline_sample_runs(lenet_om):
    script = os.path.join(SOURCE_DIR, "samples", "python", "async_pipeline.py")
    done = subprocess.run([sys.executable, script, lenet_om, "40", "4"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "40 frames on 4 streams" in done.stdout and "equals the synchronous" in done.stdout
