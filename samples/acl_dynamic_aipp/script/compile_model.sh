#!/bin/sh
# acl_dynamic_aipp's models: the float LeNet (the host reference) and the LeNet with a colour
# input (make_lenet_rgb: the same trained weights, the first layer reading the luma of R, G,
# B) compiled with a dynamic AIPP input (aipp_dynamic.cfg).
#   compile_model.sh SVP_ATC OUT_DIR MAKE_LENET_FCN MAKE_LENET_RGB
# MAKE_LENET_RGB is built in the svp-acl tree (build/samples/make_lenet_rgb); MAKE_LENET_FCN
# is not used here (samples/CMakeLists.txt passes every script the same arguments).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
"$here/../../common/script/compile_lenet.sh" "$1" "$2" float
"$4" "$here/../../../models/lenet_fashion_mnist.onnx" "$2/lenet_rgb.onnx"
"$1" --model="$2/lenet_rgb.onnx" --framework=5 --soc_version=Hi3516CV610 --output="$2/lenet_rgb_aipp" \
    --compile_mode=float --insert_op_conf="$here/aipp_dynamic.cfg"
