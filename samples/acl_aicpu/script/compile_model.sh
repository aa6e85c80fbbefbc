#!/bin/sh
# acl_aicpu's models: the float LeNet (all on the NPU) and the same LeNet with its fc1 Gemm
# forced onto the AI-CPU (--force_to_cpu="/fc1/Gemm").   compile_model.sh SVP_ATC OUT_DIR
exec "$(dirname "$0")/../../common/script/compile_lenet.sh" "$1" "$2" float aicpu
