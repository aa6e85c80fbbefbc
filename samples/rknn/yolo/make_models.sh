#!/bin/sh
# The YOLO demo's models, made the model zoo's way: a YOLOv5-style detector written as ONNX
# (tests/yolo_onnx_model.cpp, 320x320, synthetic weights) converted by the zoo-style
# samples/python/convert.py for RK3588, float (fp) and int8 (i8). int8 calibration: the
# float demo's letterboxed pixels of four rendered pages (samples/ocr/eval/calibration), a
# source of another origin than the icons the checks run on. The i8 model's quantization
# is also written as QDQ ONNX (yolov5n_i8.qdq.onnx): onnxruntime's int8 reference.
#   make_models.sh PYTHON YOLO_ONNX_MODEL FLOAT_DEMO OUT_DIR
# Without the Python package (rknn.api): a message and exit 77 (a skip for ctest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
py=$1 make_onnx=$2 demo=$3 out=$4
if ! "$py" -c "import rknn.api" 2>/dev/null; then
  echo "make_models.sh: rknn.api is not importable by $py (SVP_ACL_BUILD_PYTHON=OFF?)" >&2
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
"$make_onnx" "$out/yolov5n.onnx" 320
"$py" "$here/../../python/convert.py" "$out/yolov5n.onnx" rk3588 fp "$out/yolov5n_fp.rknn" > "$out/convert_fp.log" 2>&1 ||
  { cat "$out/convert_fp.log"; exit 1; }
dumps=
for k in 0 1 2 3; do
  mkdir -p "$out/calib/$k"
  "$demo" "$out/yolov5n_fp.rknn" "$here/../../ocr/eval/calibration/calib_0$k.png" "$out/calib/$k" > /dev/null
  dumps="$dumps $out/calib/$k"
done
# shellcheck disable=SC2086
"$py" "$here/check_yolo.py" calib $dumps "$out/calib/dataset.txt"
"$py" "$here/../../python/convert.py" "$out/yolov5n.onnx" rk3588 i8 "$out/yolov5n_i8.rknn" "$out/calib/dataset.txt" \
  "$out/yolov5n_i8.qdq.onnx" > "$out/convert_i8.log" 2>&1 || { cat "$out/convert_i8.log"; exit 1; }
echo "converted $out/yolov5n_fp.rknn $out/yolov5n_i8.rknn $out/yolov5n_i8.qdq.onnx"
