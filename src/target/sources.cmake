# Sources of src/target: the device profiles (one per SoC: op support set, cores, layouts,
# memory and timing figures). Above src/ops, below everything that asks about a target.
# Paths relative to the project root.
set(SVP_ACL_TARGET_SOURCES
  src/target/board_time.cpp
  src/target/board_work.cpp
  src/target/device_profile.cpp
  src/target/rknn_op_support.cpp
)
