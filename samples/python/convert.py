"""ONNX -> model for librknnrt, written as the Rockchip model zoo's convert.py scripts are,
run unchanged on svp-acl's rknn.api (docs/python.md).

    python3 convert.py <onnx_model> [platform] [i8|fp] [output.rknn] [dataset.txt]

platform: rk3588, rk3576, rk3566, rk3568, rk3562, rv1106, rv1103 (default rk3588); i8
quantizes with the dataset list (one .npy / image per line, relative to the list), fp keeps
float. Run the exported model with rknn.api (load_rknn, init_runtime, inference) or with
librknnrt from C.
"""
import sys

from rknn.api import RKNN

DEFAULT_PLATFORM = "rk3588"
DEFAULT_DTYPE = "i8"
DEFAULT_OUTPUT = "model.rknn"
DEFAULT_DATASET = "dataset.txt"


def parse_args(argv):
    if len(argv) < 2:
        print("Usage: python3 {} onnx_model [platform] [i8|fp] [output.rknn] [dataset.txt]".format(argv[0]))
        sys.exit(1)
    model = argv[1]
    platform = argv[2] if len(argv) > 2 else DEFAULT_PLATFORM
    dtype = argv[3] if len(argv) > 3 else DEFAULT_DTYPE
    if dtype not in ("i8", "fp"):
        print("ERROR: dtype must be i8 or fp, not {}".format(dtype))
        sys.exit(1)
    output = argv[4] if len(argv) > 4 else DEFAULT_OUTPUT
    dataset = argv[5] if len(argv) > 5 else DEFAULT_DATASET
    return model, platform, dtype == "i8", output, dataset


def main(argv):
    model, platform, quantize, output, dataset = parse_args(argv)
    rknn = RKNN(verbose=False)
    print("--> Config model")
    rknn.config(mean_values=[[0]], std_values=[[1]], target_platform=platform)
    print("--> Loading model")
    if rknn.load_onnx(model=model) != 0:
        print("Load model failed!")
        sys.exit(1)
    print("--> Building model")
    if rknn.build(do_quantization=quantize, dataset=dataset if quantize else None) != 0:
        print("Build model failed!")
        sys.exit(1)
    print("--> Export rknn model")
    if rknn.export_rknn(output) != 0:
        print("Export rknn model failed!")
        sys.exit(1)
    rknn.release()

    print("done: {}".format(output))


if __name__ == "__main__":
    main(sys.argv)
