"""1,000 asynchronous executions from Python callbacks on 4 streams: all complete, with
the right outputs, and the process's resident memory stays flat. LeNet makes the
thousand executions take a fraction of a second, so this runs with the unit tests."""
import gc
import sys
import threading

import numpy as np

import svp_acl
from conftest import fashion_like


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


def run_batch(m, streams, xs, wants, n):
    """n executions spread over the streams, each callback checking its outputs and
    starting the next execution of its stream from inside the callback."""
    lock = threading.Lock()
    state = {"done": 0, "started": 0, "bad": 0}
    finished = threading.Event()

    def launch(k):
        s = streams[k % len(streams)]
        i = k % len(xs)

        def done(outs, err):
            with lock:
                state["done"] += 1
                if err is not None or outs[0].tobytes() != wants[i]:
                    state["bad"] += 1
                nxt = state["started"]
                if nxt < n:
                    state["started"] += 1
                if state["done"] == n:
                    finished.set()
            if nxt < n:
                launch(nxt)  # back into the API from the report thread

        m.execute_async([xs[i]], s, done)

    with lock:
        first = min(n, 2 * len(streams))
        state["started"] = first
    for k in range(first):
        launch(k)
    assert finished.wait(300), "only {} of {} executions completed".format(state["done"], n)
    for s in streams:
        s.synchronize()
    return state


def test_a_thousand_async_executions_on_four_streams_complete_without_leaking(lenet_om):
    xs = [fashion_like(i) for i in range(8)]
    with svp_acl.Model(lenet_om) as m:
        wants = [m.execute([x])[0].tobytes() for x in xs]
        streams = [svp_acl.Stream() for _ in range(4)]
        try:
            warm = run_batch(m, streams, xs, wants, 200)  # allocator pools, report thread, caches
            gc.collect()
            before, blocks_before = rss_kib(), sys.getallocatedblocks()
            state = run_batch(m, streams, xs, wants, 1000)
            gc.collect()
            after, blocks_after = rss_kib(), sys.getallocatedblocks()
        finally:
            for s in streams:
                s.close()
    print("RSS after warm-up {} KiB, after 1000 async executions {} KiB (delta {} KiB); Python blocks {} -> {}".format(
        before, after, after - before, blocks_before, blocks_after))
    assert warm["bad"] == 0 and state["bad"] == 0 and state["done"] == 1000
    # A leak of one device dataset (model_io: task_buf and work_buf) per execution would be
    # megabytes; of one Python object per callback, 1000 blocks.
    assert after - before < 1024, "RSS grew by {} KiB over 1000 executions".format(after - before)
    assert blocks_after - blocks_before < 500, "{} Python blocks more".format(blocks_after - blocks_before)
