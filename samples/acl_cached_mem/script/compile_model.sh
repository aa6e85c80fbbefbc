#!/bin/sh
# acl_cached_mem's model: the float LeNet.   compile_model.sh SVP_ATC OUT_DIR
exec "$(dirname "$0")/../../common/script/compile_lenet.sh" "$1" "$2" float
