#!/bin/sh
# acl_dynamic_hw's models: the float LeNet (the reference) and the LeNet made fully
# convolutional (make_lenet_fcn, same trained weights) with resolution gears 64x64 and 28x28.
#   compile_model.sh SVP_ATC OUT_DIR MAKE_LENET_FCN
# MAKE_LENET_FCN is built in the svp-acl tree (build/samples/make_lenet_fcn).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
"$here/../../common/script/compile_lenet.sh" "$1" "$2" float
"$3" "$here/../../../models/lenet_fashion_mnist.onnx" "$2/lenet_fcn.onnx"
"$1" --model="$2/lenet_fcn.onnx" --framework=5 --soc_version=Hi3516CV610 --output="$2/lenet_fcn" \
    --compile_mode=float --input_shape="image:1,1,-1,-1" --dynamic_image_size="64,64;28,28"
