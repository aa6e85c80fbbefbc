"""svp_acl.Model / svp_acl.Stream: the SVP runtime from Python with numpy arrays."""
import asyncio
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import svp_acl
from conftest import LENET, fashion_like, svp_atc, tool


def test_a_model_describes_its_data_inputs_and_outputs(lenet_om):
    with svp_acl.Model(lenet_om) as m:
        ins, outs = m.inputs(), m.outputs()
    assert len(ins) == 1 and len(outs) == 1
    assert ins[0]["shape"] == (1, 1, 28, 28) and ins[0]["dtype"] == np.float32
    assert outs[0]["shape"][-1] == 10 and outs[0]["dtype"] == np.float32
    assert ins[0]["name"] and outs[0]["name"]


def test_outputs_are_bit_identical_to_svp_run_through_the_c_api(lenet_om, tmp_path):
    x = fashion_like(7)
    np.save(str(tmp_path / "x.npy"), x)
    done = subprocess.run([tool("SVP_SVP_RUN"), "--model", lenet_om, "--input", str(tmp_path / "x.npy"), "--output",
                           str(tmp_path / "out"), "--output_dirname", "r", "--outfmt", "NPY"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    files = sorted(f for f in os.listdir(str(tmp_path / "out" / "r")) if f.endswith(".npy"))
    assert len(files) == 1, files
    c_out = np.load(str(tmp_path / "out" / "r" / files[0]))
    with svp_acl.Model(lenet_om) as m:
        py_out = m.execute([x])[0]
    assert py_out.dtype == c_out.dtype and py_out.shape == c_out.shape
    assert py_out.tobytes() == c_out.tobytes()
    assert np.abs(py_out).sum() > 0  # a real result, not zeroed buffers


def test_a_model_loads_from_bytes_as_from_its_file(lenet_om):
    x = fashion_like(8)
    with svp_acl.Model(lenet_om) as a, svp_acl.Model(open(lenet_om, "rb").read()) as b:
        assert a.execute([x])[0].tobytes() == b.execute([x])[0].tobytes()


def test_different_inputs_give_different_outputs(lenet_om):
    with svp_acl.Model(lenet_om) as m:
        assert not np.array_equal(m.execute([fashion_like(1)])[0], m.execute([fashion_like(2)])[0])


@pytest.mark.parametrize("array, error, words", [
    (np.zeros((1, 1, 28, 28), np.float64), TypeError, "takes float32, not float64"),
    (np.zeros((1, 1, 28, 28), np.uint8), TypeError, "takes float32, not uint8"),
    (np.zeros((1, 28, 28), np.float32), ValueError, r"takes shape \(1, 1, 28, 28\), not \(1, 28, 28\)"),
    (np.zeros((2, 1, 28, 28), np.float32), ValueError, r"not \(2, 1, 28, 28\)"),
])
def test_a_wrong_array_raises_naming_the_problem(lenet_om, array, error, words):
    with svp_acl.Model(lenet_om) as m:
        with pytest.raises(error, match=words):
            m.execute([array])
        with svp_acl.Stream() as s:
            with pytest.raises(error, match=words):
                m.execute_async([array], s, lambda o, e: None)


def test_a_wrong_number_of_arrays_raises(lenet_om):
    with svp_acl.Model(lenet_om) as m:
        with pytest.raises(ValueError, match="1 data input.*2 array"):
            m.execute([fashion_like(1), fashion_like(2)])
        with pytest.raises(ValueError, match="0 array"):
            m.execute([])


def test_bad_model_bytes_raise_with_the_runtime_message(tmp_path):
    with pytest.raises(RuntimeError, match="svp_acl_mdl_load_from_mem"):
        svp_acl.Model(b"not a model at all")
    with pytest.raises(TypeError, match="path or bytes"):
        svp_acl.Model(42)


def test_closed_models_and_streams_raise(lenet_om):
    m = svp_acl.Model(lenet_om)
    m.close()
    assert m.closed
    for call in (m.inputs, m.outputs, lambda: m.execute([fashion_like(1)])):
        with pytest.raises(RuntimeError, match="closed"):
            call()
    s = svp_acl.Stream()
    s.close()
    assert s.closed
    with pytest.raises(RuntimeError, match="closed"):
        s.synchronize()
    with svp_acl.Model(lenet_om) as live:
        with pytest.raises(RuntimeError, match="closed"):
            live.execute_async([fashion_like(1)], s, lambda o, e: None)
    m.close()  # closing twice is harmless
    s.close()


def test_execute_async_calls_back_with_the_outputs_of_execute(lenet_om):
    x = fashion_like(9)
    got = []
    with svp_acl.Model(lenet_om) as m, svp_acl.Stream() as s:
        want = m.execute([x])[0]
        m.execute_async([x], s, lambda outs, err: got.append((outs, err, threading.get_ident())))
        s.synchronize()
    assert len(got) == 1
    outs, err, thread = got[0]
    assert err is None and outs[0].tobytes() == want.tobytes()
    assert thread != threading.get_ident()  # the runtime's report thread, holding the GIL


def test_async_execute_is_an_asyncio_future(lenet_om):
    xs = [fashion_like(i) for i in range(6)]

    async def main(m, streams):
        futures = [m.async_execute([x], streams[i % 2]) for i, x in enumerate(xs)]
        return await asyncio.wait_for(asyncio.gather(*futures), timeout=60)

    with svp_acl.Model(lenet_om) as m, svp_acl.Stream() as a, svp_acl.Stream() as b:
        results = asyncio.run(main(m, [a, b]))
        for x, outs in zip(xs, results):
            assert outs[0].tobytes() == m.execute([x])[0].tobytes()


def test_a_callback_that_raises_is_reported_as_unraisable_and_the_stream_goes_on(lenet_om, monkeypatch):
    seen, reported = [], []

    def bad(outs, err):
        raise ValueError("callback failure")

    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(u.exc_value))
    with svp_acl.Model(lenet_om) as m, svp_acl.Stream() as s:
        m.execute_async([fashion_like(1)], s, bad)
        m.execute_async([fashion_like(1)], s, lambda o, e: seen.append(e))
        s.synchronize()
    assert seen == [None]
    assert len(reported) == 1 and "callback failure" in str(reported[0])


def test_callbacks_that_call_back_into_the_api_do_not_deadlock(lenet_om):
    """A callback runs model.execute and chains execute_async on its own stream."""
    x = fashion_like(3)
    done = threading.Event()
    results = []
    with svp_acl.Model(lenet_om) as m, svp_acl.Stream() as s:
        want = m.execute([x])[0]

        def step(outs, err):
            results.append(outs[0])
            results.append(m.execute([x])[0])  # synchronous execution from the report thread
            if len(results) < 10:
                m.execute_async([x], s, step)  # chained on the same stream
            else:
                done.set()

        m.execute_async([x], s, step)
        assert done.wait(60), "callbacks stopped after {} results".format(len(results))
        s.synchronize()
        with pytest.raises(RuntimeError, match="not from a completion callback"):
            failed = []

            def sync_inside(outs, err):
                try:
                    s.synchronize()
                except RuntimeError as e:
                    failed.append(e)

            m.execute_async([x], s, sync_inside)
            s.synchronize()
            raise failed[0]
    assert all(r.tobytes() == want.tobytes() for r in results)


def test_dynamic_batch_runs_the_chosen_number_of_items(tmp_path):
    with svp_acl.Model(lenet_om_path := svp_atc(tmp_path, "dyn", "--soc_version=SS928V100", "--compile_mode=float",
                                                "--input_shape=" + input_name() + ":-1,1,28,28",
                                                "--dynamic_batch_size=1,2,4")) as m:
        assert m.batches() == [4] or 4 in m.batches()
        x = np.concatenate([fashion_like(1), fashion_like(2)])
        two = m.execute([x], batch=2)[0]
        assert two.shape[0] == 2 * m.outputs()[0]["shape"][0]
        one = m.execute([fashion_like(2)], batch=1)[0]
        assert two[1:].tobytes() == one.tobytes()
        with pytest.raises(ValueError, match="2 batch items"):
            m.execute([fashion_like(1)], batch=2)
    assert os.path.isfile(lenet_om_path)


def input_name():
    out = svp_acl.Model(svp_acl.compile(LENET, soc_version="SS928V100", compile_mode="float"))
    try:
        return out.inputs()[0]["name"]
    finally:
        out.close()


def test_priorities_are_set_at_load_and_later(lenet_om):
    x = fashion_like(4)
    with svp_acl.Model(lenet_om, priority=1) as m:
        a = m.execute([x])[0]
        m.set_priority(3)
        assert m.execute([x])[0].tobytes() == a.tobytes()
        with pytest.raises(RuntimeError, match="priority|PRIORITY|svp_acl_mdl"):
            m.set_priority(-100)


def test_a_non_contiguous_array_gives_what_its_contiguous_copy_gives(lenet_om):
    x = fashion_like(5)
    wide = np.zeros((1, 1, 28, 56), np.float32)
    wide[..., ::2] = x
    view = wide[..., ::2]  # every other column: strided memory
    assert not view.flags["C_CONTIGUOUS"] and np.array_equal(view, x)
    with svp_acl.Model(lenet_om) as m:
        assert m.execute([view])[0].tobytes() == m.execute([x])[0].tobytes()


def test_after_librknnrt_started_the_runtime_a_model_raises_saying_so(lenet_om):
    """librknnrt and svp_acl share the process's software NPU (docs/python.md)."""
    code = ("import svp_acl\n"
            "from svp_acl import _svp_acl\n"
            "rt = _svp_acl.Runtime(svp_acl.compile({lenet!r}, soc_version='RK3588', compile_mode='float'))\n"
            "try:\n"
            "    svp_acl.Model({om!r})\n"
            "except RuntimeError as e:\n"
            "    print('RAISED', e)\n").format(lenet=LENET, om=lenet_om)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "RAISED" in done.stdout and "already started" in done.stdout and "librknnrt" in done.stdout
