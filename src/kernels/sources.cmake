# Sources of src/kernels (owned by the kernel work). Paths relative to the project root.
set(SVP_ACL_KERNEL_SOURCES
  src/kernels/common.cpp
  src/kernels/registry.cpp
  src/kernels/compiled_program.cpp
  src/kernels/reference/spatial.cpp
  src/kernels/reference/int_ops.cpp
  src/kernels/reference/conv.cpp
  src/kernels/reference/pool.cpp
  src/kernels/reference/eltwise.cpp
  src/kernels/reference/binary.cpp
  src/kernels/reference/matmul.cpp
  src/kernels/reference/norm.cpp
  src/kernels/reference/shape_ops.cpp
  src/kernels/reference/resize.cpp
  src/kernels/reference/reduce.cpp
  src/kernels/reference/quant.cpp
)
