# Sources of src/model: the offline model file format and the Program IR (with the AIPP
# schema a model input carries). The lowest layer: it includes nothing from kernels, the
# executor or the runtime. Paths relative to the project root.
set(SVP_ACL_MODEL_SOURCES
  src/model/tensor.cpp
  src/model/crc32.cpp
  src/model/program.cpp
  src/model/format.cpp
  src/model/io_desc.cpp
  src/model/aipp/params.cpp
  src/model/aipp/model_config.cpp
)
