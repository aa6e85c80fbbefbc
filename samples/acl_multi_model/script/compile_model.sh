#!/bin/sh
# acl_multi_model's models: the float LeNet and the same LeNet quantized to int8 (A8W8,
# --compile_mode=0 --image_list, calibrated on 32 training images).
#   compile_model.sh SVP_ATC OUT_DIR
exec "$(dirname "$0")/../../common/script/compile_lenet.sh" "$1" "$2" float int8
