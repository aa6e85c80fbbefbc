# Sources of src/aipp (the AIPP feature: parameters, parameter block, model config,
# pipeline). Paths relative to the project root.
set(SVP_ACL_AIPP_SOURCES
  src/aipp/params.cpp
  src/aipp/param_block.cpp
  src/aipp/model_config.cpp
  src/aipp/pipeline.cpp
  src/aipp/exec_input.cpp
)
