#!/bin/sh
# acl_workbuf's models: the float LeNet, the int8 LeNet, and the float LeNet compiled with the
# buffer reuse type INOUT_CONT (--buffer_reuse=5: inputs and outputs in one block).
#   compile_model.sh SVP_ATC OUT_DIR
exec "$(dirname "$0")/../../common/script/compile_lenet.sh" "$1" "$2" float int8 reuse
