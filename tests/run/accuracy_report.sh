#!/bin/sh
# svp_atc --accuracy_report=1 end to end on the committed Fashion-MNIST LeNet (A8W8, four
# synthetic calibration rows): the CSV has a row per layer with both cosines, and the HTML
# page beside it two bars per quantized layer (svp_atc_accuracy_report_chromium opens it).
#   accuracy_report.sh SVP_ATC SOURCE_DIR WORK_DIR
set -eu
atc=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
awk 'BEGIN { for (i = 0; i < 4; ++i) { line = ""; for (k = 0; k < 784; ++k) line = line (k ? " " : "") ((k * 7 + i * 3) % 17) / 16; print line } }' \
  >"$work/calibration.txt"
"$atc" --model="$src/models/lenet_fashion_mnist.onnx" --framework=5 --output="$work/lenet" --soc_version=Hi3516CV610 \
       --image_list="image:$work/calibration.txt" --accuracy_report=1 --log_level=3
csv=$work/lenet_layer_accuracy.csv html=$work/lenet_layer_accuracy.html
test -s "$csv" && test -s "$html"
head -1 "$csv" | grep -q '^order,layer,op,single_cosine,'
rows=$(($(wc -l <"$csv") - 1))
[ "$rows" -eq 12 ] || { echo "expected the LeNet's 12 layers in $csv, found $rows"; exit 1; }
# A layer with a single figure has two bars (single, entire), a float one only entire.
singles=$(awk -F, 'NR > 1 && $4 != "" { n++ } END { print n + 0 }' "$csv")
bars=$(grep -o '<rect class="bar' "$html" | wc -l)
[ "$bars" -eq $((rows + singles)) ] || { echo "expected $((rows + singles)) bars in $html, found $bars"; exit 1; }
grep -q '<code>.*lenet_fashion_mnist.onnx</code>' "$html"
# --accuracy_inputs: the same report on other inputs (two rows of their own) differs.
awk 'BEGIN { for (i = 0; i < 2; ++i) { line = ""; for (k = 0; k < 784; ++k) line = line (k ? " " : "") ((k * 5 + i) % 13) / 12; print line } }' \
  >"$work/inputs.txt"
"$atc" --model="$src/models/lenet_fashion_mnist.onnx" --framework=5 --output="$work/given" --soc_version=Hi3516CV610 \
       --image_list="image:$work/calibration.txt" --accuracy_inputs="image:$work/inputs.txt" --log_level=3
test -s "$work/given_layer_accuracy.csv" && test -s "$work/given_layer_accuracy.html"
[ "$(wc -l <"$work/given_layer_accuracy.csv")" -eq $((rows + 1)) ]
if cmp -s "$csv" "$work/given_layer_accuracy.csv"; then
  echo "--accuracy_inputs gave the calibration data's figures"
  exit 1
fi
if "$atc" --model="$src/models/lenet_fashion_mnist.onnx" --framework=5 --output="$work/bad" --soc_version=Hi3516CV610 \
       --image_list="image:$work/calibration.txt" --accuracy_inputs="image:$work/missing.txt" 2>"$work/bad.log"; then
  echo "a missing --accuracy_inputs list was accepted"
  exit 1
fi
grep -q 'accuracy_inputs' "$work/bad.log"
echo "OK: $rows layers, $bars bars"
