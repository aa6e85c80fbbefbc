# Sources of src/model (owned by the model-format work). Paths relative to the project root.
set(SVP_ACL_MODEL_SOURCES
  src/model/tensor.cpp
  src/model/crc32.cpp
  src/model/program.cpp
  src/model/format.cpp
  src/model/builder.cpp
  src/model/gears.cpp
  src/model/model_registry.cpp
)
