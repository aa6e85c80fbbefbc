#!/bin/sh
# The classifier demo (rknn_classify / rknn_classify_zero_copy) on the Fashion-MNIST LeNet
# (models/lenet_fashion_mnist.onnx) converted by rknn_convert for RK3588, float or int8
# (asymmetric_quantized-8, per-channel, 32 training images), with mean 0 / std 255 so the
# .rknn takes raw pixels as the zoo's models do; its top-1 on the first N test images
# compared with onnxruntime's on the ONNX model (fashion_data.py compare); int8: with
# onnxruntime's on the QDQ export of the same quantization (rknn_convert --export_qdq).
#   check_classify.sh float|int8 RKNN_CONVERT DEMO OUT_DIR [N=500]
# Exit 77 without the dataset or onnxruntime (a skip for ctest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../../..
export SVP_NPM_MODULES="${SVP_NPM_MODULES:-$root/build/npm/node_modules}"
mode=$1 convert=$2 demo=$3 out=$4 n=${5:-500}
if [ ! -d "$SVP_NPM_MODULES/onnxruntime-node" ]; then
  echo "check_classify.sh: onnxruntime-node is missing: run scripts/npm_deps.sh and set SVP_NPM_MODULES" >&2
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
python3 "$here/fashion_data.py" prepare "$out" "$n" || exit $?
if [ "$mode" = int8 ]; then
  quant="    quantize: true
    dataset: $out/calib/dataset.txt"
else
  quant="    quantize: false"
fi
cat > "$out/lenet.yml" <<YML
models:
    name: lenet_$mode
    platform: onnx
    model_file_path: $root/models/lenet_fashion_mnist.onnx
$quant
    configs:
      quantized_dtype: asymmetric_quantized-8
      quantized_method: channel
      mean_values: [[0]]
      std_values: [[255]]
YML
qdq=
[ "$mode" = int8 ] && qdq="--export_qdq $out/lenet_int8.qdq.onnx"
# shellcheck disable=SC2086
"$convert" -t rk3588 -i "$out/lenet.yml" -o "$out" $qdq > "$out/convert.log" 2>&1 || { cat "$out/convert.log"; exit 1; }
"$demo" "$out/lenet_$mode.rknn" "$out/images.u8" "$n" "$out/demo.txt"
node "$root/tests/oracle/ort_run.mjs" "$root/models/lenet_fashion_mnist.onnx" "$out/ort" "image=$out/ort_input.npy" \
  --items "$n"
if [ "$mode" = int8 ]; then
  node "$root/tests/oracle/ort_run.mjs" "$out/lenet_int8.qdq.onnx" "$out/qdq" "image=$out/qdq_input.npy" --items "$n" \
    --as-written 2> "$out/qdq.log" || { cat "$out/qdq.log"; exit 1; }
  python3 "$here/fashion_data.py" compare "$out/demo.txt" "$out/ort/logits.npy" "$out/labels.txt" int8 \
    "$out/qdq/logits.npy"
else
  python3 "$here/fashion_data.py" compare "$out/demo.txt" "$out/ort/logits.npy" "$out/labels.txt" float
fi
