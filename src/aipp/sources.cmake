# Sources of src/aipp (the AIPP feature at run time: parameter block, pipeline, the
# execution's input preparation; the schema of parameters and model configs is in src/model/aipp). Paths relative to the project root.
set(SVP_ACL_AIPP_SOURCES
  src/aipp/param_block.cpp
  src/aipp/pipeline.cpp
  src/aipp/exec_input.cpp
)
# The pipeline's inner loops are written to vectorize; -O3 lets GCC do it (at -O2 GCC 12
# only vectorizes with its "very cheap" cost model). Measured in bench/aipp_bench.
set_source_files_properties(src/aipp/pipeline.cpp PROPERTIES COMPILE_OPTIONS "-O3")
