#!/bin/sh
# The feature demos of seed 000 chapter 5 on the Fashion-MNIST LeNet
# (models/lenet_fashion_mnist.onnx) converted by rknn_convert for RK3588 (mean 0 / std 255:
# the .rknn takes raw pixels), float or int8 (asymmetric_quantized-8, per-channel, the 32
# calibration images of fashion_data.py, one image an item whatever the model's batch), in
# three shapes:
#   static  batch 1, the ONNX model's shape;
#   dynamic configs.dynamic_input [[[1,1,28,28]], [[4,1,28,28]]] (batch gears 1 and 4, §5.4);
#   batch4  subgraphs.input_size_list [[4,1,28,28]] (a model of batch 4, §5.6; rknn-toolkit2
#           sets that with build(rknn_batch_size=4); svp-acl's rknn_convert YAML has no such key).
#   run_lenet_demo.sh RKNN_CONVERT OUT_DIR DEMO float|int8 MODEL...
# runs DEMO OUT_DIR/images.u8 8 OUT_DIR/lenet_MODEL.rknn... on the first 8 Fashion-MNIST
# test images. Exit 77 without the dataset (a skip for ctest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../../..
convert=$1 out=$2 demo=$3 mode=$4
shift 4
n=8
rm -rf "$out"
mkdir -p "$out"
python3 "$here/../classify/fashion_data.py" prepare "$out" "$n" || exit $?
args=
for kind in "$@"; do
  sub= dyn=
  case $kind in
    static) ;;
    dynamic)
      dyn="      dynamic_input: [[[1,1,28,28]], [[4,1,28,28]]]" ;;
    batch4)
      sub="    subgraphs:
      inputs: [image]
      input_size_list: [[4,1,28,28]]" ;;
    *) echo "run_lenet_demo.sh: unknown model kind $kind (static, dynamic, batch4)" >&2; exit 2 ;;
  esac
  case $mode in
    float) quant="    quantize: false" ;;
    int8) quant="    quantize: true
    dataset: $out/calib/dataset.txt" ;;
    *) echo "run_lenet_demo.sh: mode $mode is not float or int8" >&2; exit 2 ;;
  esac
  cat > "$out/lenet_$kind.yml" <<YML
models:
    name: lenet_$kind
    platform: onnx
    model_file_path: $root/models/lenet_fashion_mnist.onnx
$quant
$sub
    configs:
      quantized_dtype: asymmetric_quantized-8
      quantized_method: channel
      mean_values: [[0]]
      std_values: [[255]]
$dyn
YML
  "$convert" -t rk3588 -i "$out/lenet_$kind.yml" -o "$out" > "$out/convert_$kind.log" 2>&1 ||
    { cat "$out/convert_$kind.log"; exit 1; }
  args="$args $out/lenet_$kind.rknn"
done
# shellcheck disable=SC2086
exec "$demo" "$out/images.u8" "$n" $args
