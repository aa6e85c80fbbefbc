#!/bin/sh
# svp_compare end to end on the committed Fashion-MNIST LeNet, the documented workflow:
# svp_atc compiles the ONNX file float and int8 (calibrated on 32 training images),
# svp_run runs both on the same N test images with --dump, svp_compare compares the dumps.
# Checks: exit 0, compare.csv has one row per layer the float dump wrote, the model
# output's cosine is at least 0.99, and compare.html exists (the Chromium test opens it).
#   fashion_mnist_svp_compare.sh SVP_ATC SVP_RUN SVP_COMPARE SOURCE_DIR WORK_DIR N
set -eu
atc=$1 run=$2 compare=$3 src=$4 work=$5 n=$6
dataset=/usr/share/datasets/fashion-mnist
if [ ! -f "$dataset/t10k-images-idx3-ubyte.gz" ]; then
  echo "Fashion-MNIST not installed ($dataset; scripts/deps.sh installs dataset-fashion-mnist)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
python3 "$src/scripts/models/fashion_inputs.py" "$work/images" "$n"
python3 "$src/scripts/models/fashion_calibration.py" "$work/calibration.txt" 32
"$atc" --model="$src/models/lenet_fashion_mnist.onnx" --framework=5 --output="$work/lenet" \
       --soc_version=Hi3516CV610 --compile_mode=float --log_level=3
"$atc" --model="$src/models/lenet_fashion_mnist.onnx" --framework=5 --output="$work/lenet_int8" \
       --soc_version=Hi3516CV610 --image_list="image:$work/calibration.txt" --log_level=3
# One stream (the default), the same flags for both: execution k is the same input in both dumps.
for name in lenet lenet_int8; do
  "$run" --model "$work/$name.om" --input "$work/images" --output "$work/out" --output_dirname "$name" --dump \
         >"$work/$name.log"
done
rc=0
"$compare" --golden="$work/out/lenet" --actual="$work/out/lenet_int8" --output="$work/compare" >"$work/table.txt" || rc=$?
cat "$work/table.txt"
[ "$rc" -eq 0 ] || { echo "FAIL: svp_compare exited $rc"; exit 1; }
test -s "$work/compare/compare.html" || { echo "FAIL: no compare.html"; exit 1; }
python3 - "$work/out/lenet/dump/lenet/index.jsonl" "$work/compare/compare.csv" <<'PY'
import csv, json, sys
index, table = sys.argv[1], sys.argv[2]
# The float model's layers with a file, in execution order (the first execution's lines).
layers = []
for line in open(index):
    e = json.loads(line)
    if e["execution"] == 0 and e["io"] == "output" and e["file"] is not None:
        layers.append((e["layer"], e["tensor"]))
rows = list(csv.DictReader(open(table)))
got = sorted(r["golden_layer"] for r in rows)
if got != sorted(l for l, _ in layers):
    sys.exit(f"FAIL: compare.csv rows {got} are not one per dumped layer {[l for l, _ in layers]}")
final_layer, final_tensor = layers[-1]
final = [r for r in rows if r["golden_layer"] == final_layer][0]
print(f"model output {final_tensor} ({final['layer']}): cosine {final['cosine']}, {final['samples']} samples")
if not float(final["cosine"]) >= 0.99:
    sys.exit(f"FAIL: the model output's cosine {final['cosine']} is below 0.99")
print(f"OK: {len(rows)} layers compared")
PY
