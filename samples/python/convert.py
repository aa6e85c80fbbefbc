"""ONNX -> model for librknnrt, written as the Rockchip model zoo's convert.py scripts are,
run unchanged on svp-acl's rknn.api (docs/python.md).

    python3 convert.py <onnx_model> [platform] [i8|fp] [output.rknn] [dataset.txt] [qdq.onnx]

platform: rk3588, rk3576, rk3566, rk3568, rk3562, rv1106, rv1103 (default rk3588); i8
quantizes with the dataset list (DATASET_PATH: one .npy / .png / .jpg per line, relative to
the list), fp keeps float. qdq.onnx (svp-acl's addition, i8 only): the built model's
quantization also written as a QDQ ONNX model (RKNN.export_qdq), which onnxruntime runs with
the very scales and zero points of output.rknn. Run the exported model with rknn.api (load_rknn, init_runtime,
inference) or with librknnrt from C (samples/rknn/yolo, samples/rknn/ppocr).

The zoo keeps one convert.py per model, differing only in mean_values / std_values and, for
PP-OCR, the fixed input shape its ONNX export was given; this one script carries those
values (MODEL_CONFIGS, the zoo's numbers) and picks them by the model file's name, so the
same script converts the classifier (LeNet, MobileNet, ResNet), the YOLO detector and
PP-OCR det / rec.
"""
import os
import sys

from rknn.api import RKNN

DATASET_PATH = "dataset.txt"
DEFAULT_PLATFORM = "rk3588"
DEFAULT_QUANT = True
DEFAULT_RKNN_PATH = "model.rknn"

# (file name keyword, mean_values, std_values, input_size_list or None), first match wins.
MODEL_CONFIGS = [
    # examples/yolov5, yolov8: RGB pixels / 255.
    ("yolo", [[0, 0, 0]], [[255, 255, 255]], None),
    # examples/PPOCR-Det: ImageNet normalisation; dynamic H, W fixed (a multiple of 32).
    ("det", [[123.675, 116.28, 103.53]], [[58.395, 57.12, 57.375]], [[1, 3, 480, 480]]),
    # examples/PPOCR-Rec: (x - 127.5) / 127.5 on 48-pixel lines of width 320.
    ("rec", [[127.5, 127.5, 127.5]], [[127.5, 127.5, 127.5]], [[1, 3, 48, 320]]),
    # examples/mobilenet, resnet: ImageNet normalisation of RGB pixels.
    ("mobilenet", [[123.675, 116.28, 103.53]], [[58.395, 57.12, 57.375]], None),
    ("resnet", [[123.675, 116.28, 103.53]], [[58.395, 57.12, 57.375]], None),
    # svp-acl's trained classifier (models/lenet_fashion_mnist.onnx, grey [0, 1] input):
    # pixels / 255, so that the model takes raw pixels as the zoo's classifiers do.
    ("lenet", [[0]], [[255]], None),
]
# Any other model: inputs as they are.
DEFAULT_CONFIG = (None, None, None)


def parse_arg():
    if len(sys.argv) < 2:
        print("Usage: python3 {} onnx_model_path [platform] [dtype(optional)] [output_rknn_path(optional)] "
              "[dataset(optional)]".format(sys.argv[0]))
        print("       platform choose from [rk3562,rk3566,rk3568,rk3576,rk3588,rv1103,rv1106]")
        print("       dtype choose from [i8, fp]")
        sys.exit(1)
    model_path = sys.argv[1]
    platform = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_PLATFORM
    do_quant = DEFAULT_QUANT
    if len(sys.argv) > 3:
        model_type = sys.argv[3]
        if model_type not in ["i8", "fp"]:
            print("ERROR: Invalid model type: {}".format(model_type))
            sys.exit(1)
        do_quant = model_type == "i8"
    output_path = sys.argv[4] if len(sys.argv) > 4 else DEFAULT_RKNN_PATH
    dataset = sys.argv[5] if len(sys.argv) > 5 else DATASET_PATH
    qdq_path = sys.argv[6] if len(sys.argv) > 6 else None
    if qdq_path is not None and not do_quant:
        print("ERROR: a QDQ model ({}) is the quantization of an i8 model: fp quantizes nothing".format(qdq_path))
        sys.exit(1)
    return model_path, platform, do_quant, output_path, dataset, qdq_path


def model_config(model_path):
    name = os.path.basename(model_path).lower()
    for keyword, mean, std, sizes in MODEL_CONFIGS:
        if keyword in name:
            return mean, std, sizes
    return DEFAULT_CONFIG


if __name__ == "__main__":
    model_path, platform, do_quant, output_path, dataset, qdq_path = parse_arg()
    mean, std, input_size_list = model_config(model_path)

    # Create RKNN object
    rknn = RKNN(verbose=False)

    # Pre-process config
    print("--> Config model")
    if mean is None:
        rknn.config(target_platform=platform)
    else:
        rknn.config(mean_values=mean, std_values=std, target_platform=platform)
    print("done")

    # Load model
    print("--> Loading model")
    if input_size_list is None:
        ret = rknn.load_onnx(model=model_path)
    else:
        ret = rknn.load_onnx(model=model_path, inputs=["x"], input_size_list=input_size_list)
    if ret != 0:
        print("Load model failed!")
        sys.exit(ret)
    print("done")

    # Build model
    print("--> Building model")
    ret = rknn.build(do_quantization=do_quant, dataset=dataset if do_quant else None)
    if ret != 0:
        print("Build model failed!")
        sys.exit(ret)
    print("done")

    # Export rknn model
    print("--> Export rknn model")
    ret = rknn.export_rknn(output_path)
    if ret != 0:
        print("Export rknn model failed!")
        sys.exit(ret)
    print("done")

    if qdq_path is not None:
        print("--> Export the quantization as QDQ ONNX (svp-acl)")
        ret = rknn.export_qdq(qdq_path)
        if ret != 0:
            print("Export QDQ model failed!")
            sys.exit(ret)
        print("done")

    # Release
    rknn.release()
