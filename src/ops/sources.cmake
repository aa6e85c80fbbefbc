# Sources of src/ops: the op table (what every op is: cost, quantization, layout and
# fast-path traits, the SVP NPU's operator list). Below src/model: it includes only
# src/common. Paths relative to the project root.
set(SVP_ACL_OPS_SOURCES
  src/ops/op_table.cpp
)
