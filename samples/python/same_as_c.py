"""An exported model run from Python gives what the C demo got, bit for bit.

    python3 same_as_c.py MODEL.rknn INPUT.npy OUTPUT.npy [OUTPUT.npy ...]

INPUT.npy: the UINT8 NHWC pixels a C demo (samples/rknn/yolo, samples/rknn/ppocr) set with
rknn_inputs_set or wrote into its zero-copy input; OUTPUT.npy: the demo's outputs as it
dumped them (float32, int8 ones dequantized with the attributes' zp and scale). The model
is run by rknn.api (load_rknn, init_runtime, inference with data_format nhwc) and every
output must equal the demo's exactly. Prints "python and C outputs identical" (exit 0) or
names the first output that differs (exit 1).
"""
import sys

import numpy as np
from rknn.api import RKNN


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    model, pixels, dumped = argv[0], np.load(argv[1]), argv[2:]
    rknn = RKNN()
    if rknn.load_rknn(model) != 0 or rknn.init_runtime() != 0:
        print("rknn.api could not load {}".format(model))
        return 1
    outputs = rknn.inference(inputs=[pixels], data_format=["nhwc"])
    rknn.release()
    if len(outputs) != len(dumped):
        print("python has {} outputs, the C demo dumped {}".format(len(outputs), len(dumped)))
        return 1
    for path, py in zip(dumped, outputs):
        c = np.load(path)
        same = py.shape == c.shape and np.array_equal(py.astype(np.float32), c)
        diff = float(np.abs(py.astype(np.float64) - c).max()) if py.shape == c.shape else float("inf")
        print("{}: python {} {} vs C {}: {} (max |diff| {:g})".format(path, py.dtype, py.shape, c.shape,
                                                                     "identical" if same else "DIFFERENT", diff))
        if not same:
            return 1
    print("python and C outputs identical")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
