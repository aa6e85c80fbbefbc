"""An asynchronous multi-stream pipeline on svp-acl's SVP runtime from Python
(docs/python.md, "The SVP runtime").

    python3 async_pipeline.py <model.om> [frames] [streams]

Feeds `frames` inputs (random, in the model's dtype and shape) to the model over `streams`
streams with asyncio: at most two executions in flight per stream, each awaited as an
asyncio future, then checks every output against a synchronous execution of the same
input and prints the throughput.
"""
import asyncio
import sys
import time

import numpy as np

import svp_acl


def random_inputs(model, seed):
    rng = np.random.default_rng(seed)
    arrays = []
    for t in model.inputs():
        if t["dtype"].kind == "f":
            arrays.append(rng.random(t["shape"], dtype=np.float32).astype(t["dtype"]))
        else:
            info = np.iinfo(t["dtype"])
            arrays.append(rng.integers(info.min, info.max, size=t["shape"], endpoint=True).astype(t["dtype"]))
    return arrays


async def pipeline(model, streams, frames):
    """Returns {frame: outputs}; frame k runs on stream k mod len(streams)."""
    results = {}
    slots = [asyncio.Semaphore(2) for _ in streams]  # two in flight per stream

    async def one(k):
        stream = k % len(streams)
        async with slots[stream]:
            results[k] = await model.async_execute(random_inputs(model, k), streams[stream])

    await asyncio.gather(*(one(k) for k in range(frames)))
    return results


def main(argv):
    if len(argv) < 2:
        print("Usage: python3 {} model.om [frames] [streams]".format(argv[0]))
        return 1
    frames = int(argv[2]) if len(argv) > 2 else 64
    n_streams = int(argv[3]) if len(argv) > 3 else 4
    with svp_acl.Model(argv[1]) as model:
        streams = [svp_acl.Stream() for _ in range(n_streams)]
        try:
            start = time.perf_counter()
            results = asyncio.run(pipeline(model, streams, frames))
            elapsed = time.perf_counter() - start
        finally:
            for s in streams:
                s.close()
        for k in range(frames):
            want = model.execute(random_inputs(model, k))
            if any(a.tobytes() != b.tobytes() for a, b in zip(results[k], want)):
                print("ERROR: frame {} differs from its synchronous execution".format(k))
                return 2
    print("{} frames on {} streams in {:.3f} s ({:.1f} frames/s, host time); every output equals the "
          "synchronous execution's".format(frames, n_streams, elapsed, frames / elapsed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
