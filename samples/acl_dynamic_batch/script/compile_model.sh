#!/bin/sh
# acl_dynamic_batch's models: the float LeNet (batch 1) and the same LeNet with batch gears
# 1,2,4,8 (--input_shape="image:-1,1,28,28" --dynamic_batch_size="1,2,4,8").
#   compile_model.sh SVP_ATC OUT_DIR
exec "$(dirname "$0")/../../common/script/compile_lenet.sh" "$1" "$2" float dynbatch
