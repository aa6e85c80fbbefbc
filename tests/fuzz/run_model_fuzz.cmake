# ctest fuzz_build / model_loader_fuzz / onnx_import_fuzz: tests/fuzz is a separate clang
# project with -fsanitize=fuzzer,address,undefined. SUITE=build configures and builds all
# its fuzz targets in WORK_DIR/build (once: the model format objects and the protobuf
# schema are shared between targets, and the two fuzz runs below reuse the build, so
# nothing is compiled twice). SUITE=model (default): fuzzes the model-file reader for
# MAX_TOTAL_TIME seconds, then svp_run's .npy reader, svp_atc's --insert_op_conf reader and
# svp_compare's dump readers and acl.json for a quarter of the time each; SUITE=onnx: the compiler's ONNX front end. Runs start
# from the committed seed corpus and use BUILD_DIR's fuzzers when given (ctest's fixture),
# otherwise build their own. Fails if the build fails or the fuzzer reports a crash, leak,
# timeout or sanitizer error (the input is kept in WORK_DIR/artifacts).
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DCLANGXX=... [-DGENERATOR=Ninja] [-DMAX_TOTAL_TIME=20]
#         [-DSUITE=build|model|onnx] [-DBUILD_DIR=...] -P run_model_fuzz.cmake
if(NOT MAX_TOTAL_TIME)
  set(MAX_TOTAL_TIME 20)
endif()
if(NOT SUITE)
  set(SUITE model)
endif()
if(SUITE STREQUAL "model")
  set(targets model_loader_fuzz npy_reader_fuzz insert_op_conf_fuzz dump_parsers_fuzz acl_json_fuzz)
elseif(SUITE STREQUAL "onnx")
  set(targets onnx_import_fuzz)
elseif(SUITE STREQUAL "build")
  set(targets model_loader_fuzz npy_reader_fuzz insert_op_conf_fuzz dump_parsers_fuzz acl_json_fuzz onnx_import_fuzz)
else()
  message(FATAL_ERROR "SUITE must be build, model or onnx, not ${SUITE}")
endif()
if(BUILD_DIR AND NOT SUITE STREQUAL "build")
  set(build ${BUILD_DIR})
  foreach(t ${targets})
    if(NOT EXISTS ${build}/${t})
      message(FATAL_ERROR "${build}/${t} does not exist: the fuzz_build test builds it (ctest runs it first)")
    endif()
  endforeach()
else()
  set(build ${WORK_DIR}/build)
  set(generator_args)
  if(GENERATOR)
    set(generator_args -G ${GENERATOR})
  endif()
  if(NOT EXISTS ${build}/CMakeCache.txt)
    execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/fuzz -B ${build} ${generator_args}
                            -DCMAKE_CXX_COMPILER=${CLANGXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo
                            -DSVP_ACL_SOURCE_DIR=${SOURCE_DIR}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(rc)
      file(REMOVE_RECURSE ${build})
      message(FATAL_ERROR "configuring the fuzzer with ${CLANGXX} failed:\n${out}")
    endif()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} -j2 --target ${targets}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "building the fuzzer failed:\n${out}")
  endif()
  if(SUITE STREQUAL "build")
    return()
  endif()
endif()

# Fuzzes `target` for `seconds` from the committed `seeds` (and `dict`, if given), in a
# fresh working corpus each run (new inputs go to the first directory; seeds are only read).
set(artifacts ${WORK_DIR}/artifacts/)
file(REMOVE_RECURSE ${artifacts})
file(MAKE_DIRECTORY ${artifacts})
function(run_fuzz target seconds seeds dict)
  set(corpus ${WORK_DIR}/corpus_${target})
  file(REMOVE_RECURSE ${corpus})
  file(MAKE_DIRECTORY ${corpus})
  set(dict_arg)
  if(dict)
    set(dict_arg -dict=${dict})
  endif()
  set(log ${WORK_DIR}/${target}.log)
  execute_process(COMMAND ${build}/${target} -max_total_time=${seconds} -rss_limit_mb=2048 -timeout=10
                          -print_final_stats=1 -artifact_prefix=${artifacts} ${dict_arg} ${corpus} ${seeds}
                  RESULT_VARIABLE rc OUTPUT_FILE ${log} ERROR_FILE ${log})
  file(READ ${log} text)
  string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second" done "${text}")
  string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" units "${text}")
  string(REGEX MATCH "stat::peak_rss_mb: *[0-9]+" rss "${text}")
  if(rc)
    file(GLOB found ${artifacts}*)
    string(LENGTH "${text}" len)
    if(len GREATER 12000)
      math(EXPR start "${len} - 12000")
      string(SUBSTRING "${text}" ${start} -1 text)
    endif()
    message(FATAL_ERROR "${target} failed (exit ${rc}); reproducer(s): ${found}\nlog ${log}:\n${text}")
  endif()
  message(STATUS "${target}: ${done}s, ${units}, ${rss}; log ${log}")
endfunction()

if(SUITE STREQUAL "model")
  run_fuzz(model_loader_fuzz ${MAX_TOTAL_TIME} ${SOURCE_DIR}/tests/fuzz/corpus ${SOURCE_DIR}/tests/fuzz/model.dict)
  math(EXPR npy_time "(${MAX_TOTAL_TIME} + 3) / 4")
  run_fuzz(npy_reader_fuzz ${npy_time} ${SOURCE_DIR}/tests/fuzz/npy_corpus "")
  run_fuzz(insert_op_conf_fuzz ${npy_time} "${SOURCE_DIR}/tests/data/aipp;${SOURCE_DIR}/tests/data/calibration_param" "")
  run_fuzz(dump_parsers_fuzz ${npy_time} ${SOURCE_DIR}/tests/fuzz/dump_corpus "")
  run_fuzz(acl_json_fuzz ${npy_time} ${SOURCE_DIR}/tests/fuzz/acl_json_corpus "")
else()
  run_fuzz(onnx_import_fuzz ${MAX_TOTAL_TIME} ${SOURCE_DIR}/tests/fuzz/onnx_corpus ${SOURCE_DIR}/tests/fuzz/onnx.dict)
endif()
