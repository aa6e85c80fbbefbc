#!/bin/sh
# The YOLO demo checked against onnxruntime (check_yolo.py), or against rknn.api:
#   check_yolo.sh float|int8 PYTHON DEMO MODELS_DIR IMAGE.png...
#   check_yolo.sh python PYTHON MODELS_DIR NORMAL_DEMO ZERO_COPY_DEMO IMAGE.png
# float|int8: each image through the demo and onnxruntime; int8 against onnxruntime on the
# QDQ export of the same quantization (yolov5s_i8.qdq.onnx) and against onnxruntime's float
# answers, ending with the criteria over all images (check_yolo.py summary). python: the fp and i8 models, each run by both
# demos and by rknn.api on the same pixels, outputs identical (samples/python/same_as_c.py).
# Models from make_models.sh (missing: it was skipped), onnxruntime-node or the images
# missing: exit 77. An image make_models.sh calibrated on is refused (exit 2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export SVP_NPM_MODULES="${SVP_NPM_MODULES:-$here/../../../build/npm/node_modules}"
mode=$1 py=$2
shift 2
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
need() {
  for f in "$@"; do
    [ -f "$f" ] || { echo "check_yolo.sh: $f is missing (make_models.sh skipped: the npm model or opencv-doc absent?)"; exit 77; }
  done
}
held_out() {
  for f in "$@"; do
    if grep -qx "$(basename "$f")" "$models/calib/images.txt" 2>/dev/null; then
      echo "check_yolo.sh: $f is a calibration image of the i8 model: check on held-out images only"
      exit 2
    fi
  done
}
if [ "$mode" = python ]; then
  models=$1 normal=$2 zero_copy=$3 image=$4
  need "$models/yolov5s_fp.rknn" "$models/yolov5s_i8.rknn" "$image"
  held_out "$image"
  for m in fp i8; do
    for demo in "$normal" "$zero_copy"; do
      rm -rf "$dump/run" && mkdir "$dump/run"
      "$demo" "$models/yolov5s_$m.rknn" "$image" "$dump/run" > "$dump/stdout.txt" || { cat "$dump/stdout.txt"; exit 1; }
      echo "$m $(basename "$demo"): $(tail -n 1 "$dump/stdout.txt")"
      "$py" "$here/../../python/same_as_c.py" "$models/yolov5s_$m.rknn" "$dump/run/input.npy" \
        "$dump/run/output0.npy" "$dump/run/output1.npy" "$dump/run/output2.npy" > "$dump/check.txt" ||
        { cat "$dump/check.txt"; exit 1; }
      cat "$dump/check.txt"
    done
  done
  echo "python and C outputs identical: fp and i8, normal and zero-copy demo"
  exit 0
fi
demo=$1 models=$2
shift 2
model=$models/yolov5s_$( [ "$mode" = float ] && echo fp || echo i8 ).rknn
qdq=$models/yolov5s_i8.qdq.onnx
need "$model" "$@"
held_out "$@"
[ "$mode" = float ] || need "$qdq"
if [ ! -d "$SVP_NPM_MODULES/onnxruntime-node" ]; then
  echo "check_yolo.sh: onnxruntime-node is missing: run scripts/npm_deps.sh and set SVP_NPM_MODULES"
  exit 77
fi
k=0
for image in "$@"; do
  k=$((k + 1))
  mkdir -p "$dump/$k"
  "$demo" "$model" "$image" "$dump/$k" > "$dump/$k/stdout.txt" || { cat "$dump/$k/stdout.txt"; exit 1; }
  echo "$(basename "$image"): $(tail -n 1 "$dump/$k/stdout.txt")"
  if [ "$mode" = float ]; then
    "$py" "$here/check_yolo.py" ort "$models/yolov5s.onnx" "$dump/$k" "$dump/$k/stdout.txt" float
  else
    # The summary decides: every image is checked and reported first.
    "$py" "$here/check_yolo.py" ort "$models/yolov5s.onnx" "$dump/$k" "$dump/$k/stdout.txt" int8 "$dump/report.json" \
      "$qdq" || true
  fi
done
if [ "$mode" = int8 ]; then
  "$py" "$here/check_yolo.py" summary "$dump/report.json" "$k"
else
  echo "rknn_yolo_check OK"
fi
