"""An exported model run from Python gives what the C demo got, bit for bit.

    python3 same_as_c.py MODEL.rknn INPUT.npy OUTPUT.npy [OUTPUT.npy ...] [-- INPUT.npy OUTPUT.npy ...]...

INPUT.npy: the UINT8 NHWC pixels a C demo (samples/rknn/yolo, samples/rknn/ppocr) set with
rknn_inputs_set or wrote into its zero-copy input; OUTPUT.npy: the demo's outputs as it
dumped them (float32, int8 ones dequantized with the attributes' zp and scale). The model
is run by rknn.api (load_rknn, init_runtime, inference with data_format nhwc) and every
output must equal the demo's exactly; "--" starts another run of the same model (the lines
of a page, one runtime). Prints "python and C outputs identical" (exit 0) or
names the first output that differs (exit 1).
"""
import sys

import numpy as np
from rknn.api import RKNN


def runs(argv):
    """[(input, [outputs])] from "INPUT OUTPUT... -- INPUT OUTPUT... ..."."""
    out, current = [], []
    for arg in argv + ["--"]:
        if arg != "--":
            current.append(arg)
            continue
        if len(current) < 2:
            return None
        out.append((current[0], current[1:]))
        current = []
    return out


def main(argv):
    listed = runs(argv[1:]) if len(argv) >= 3 else None
    if listed is None:
        print(__doc__)
        return 2
    model = argv[0]
    rknn = RKNN()
    if rknn.load_rknn(model) != 0 or rknn.init_runtime() != 0:
        print("rknn.api could not load {}".format(model))
        return 1
    try:
        for pixels, dumped in listed:
            if not same(rknn, np.load(pixels), dumped):
                return 1
    finally:
        rknn.release()
    print("python and C outputs identical")
    return 0


def same(rknn, pixels, dumped):
    outputs = rknn.inference(inputs=[pixels], data_format=["nhwc"])
    if len(outputs) != len(dumped):
        print("python has {} outputs, the C demo dumped {}".format(len(outputs), len(dumped)))
        return False
    for path, py in zip(dumped, outputs):
        c = np.load(path)
        equal = py.shape == c.shape and np.array_equal(py.astype(np.float32), c)
        diff = float(np.abs(py.astype(np.float64) - c).max()) if py.shape == c.shape else float("inf")
        print("{}: python {} {} vs C {}: {} (max |diff| {:g})".format(path, py.dtype, py.shape, c.shape,
                                                                     "identical" if equal else "DIFFERENT", diff))
        if not equal:
            return False
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
