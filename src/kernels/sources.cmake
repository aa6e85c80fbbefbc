# Sources of src/kernels (owned by the kernel work). Paths relative to the project root.
set(SVP_ACL_KERNEL_SOURCES
)
