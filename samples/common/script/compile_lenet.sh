#!/bin/sh
# Compiles the Fashion-MNIST LeNet (models/lenet_fashion_mnist.onnx, trained) with svp_atc,
# the vendor ATC's command line, into one of the variants the guide samples use.
#
#   compile_lenet.sh SVP_ATC OUT_DIR VARIANT...
#
#   float     OUT_DIR/lenet.om          --compile_mode=float
#   int8      OUT_DIR/lenet_int8.om     A8W8, calibrated on 32 *training* images
#   dynbatch  OUT_DIR/lenet_dynbatch.om batch gears 1,2,4,8
#   aicpu     OUT_DIR/lenet_aicpu.om    the fc1 Gemm forced onto the AI-CPU
#   reuse     OUT_DIR/lenet_reuse.om    buffer reuse type INOUT_CONT (--buffer_reuse=5)
#   preempt   OUT_DIR/lenet_preempt.om  preemption-enabled (--preemptible=1)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$here/../../..
atc=$1
out=$2
shift 2
onnx=$repo/models/lenet_fashion_mnist.onnx
mkdir -p "$out"
common="--model=$onnx --framework=5 --soc_version=Hi3516CV610"
for variant in "$@"; do
    case $variant in
    float) "$atc" $common --output="$out/lenet" --compile_mode=float ;;
    int8)
        python3 "$repo/scripts/models/fashion_calibration.py" "$out/fashion_calibration.txt" 32
        "$atc" $common --output="$out/lenet_int8" --compile_mode=0 --image_list="image:$out/fashion_calibration.txt"
        ;;
    dynbatch)
        "$atc" $common --output="$out/lenet_dynbatch" --compile_mode=float --input_shape="image:-1,1,28,28" \
            --dynamic_batch_size="1,2,4,8"
        ;;
    aicpu) "$atc" $common --output="$out/lenet_aicpu" --compile_mode=float --force_to_cpu="/fc1/Gemm" ;;
    reuse) "$atc" $common --output="$out/lenet_reuse" --compile_mode=float --buffer_reuse=5 ;;
    preempt) "$atc" $common --output="$out/lenet_preempt" --compile_mode=float --preemptible=1 ;;
    *)
        echo "compile_lenet.sh: unknown variant $variant" >&2
        exit 2
        ;;
    esac
done
