#!/bin/sh
# acl_priority's models: the float LeNet, and the same LeNet compiled preemption-enabled
# (--preemptible=1) so that higher-priority tasks may interrupt it.
#   compile_model.sh SVP_ATC OUT_DIR
exec "$(dirname "$0")/../../common/script/compile_lenet.sh" "$1" "$2" float preempt
