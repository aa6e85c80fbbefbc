# ctest model_loader_fuzz: builds tests/fuzz as a separate clang project with
# -fsanitize=fuzzer,address,undefined, then fuzzes read_model for MAX_TOTAL_TIME seconds
# starting from the committed seed corpus. Fails if the build fails or the fuzzer reports
# a crash, leak, timeout or sanitizer error (the input is kept in WORK_DIR/artifacts).
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DCLANGXX=... [-DGENERATOR=Ninja] [-DMAX_TOTAL_TIME=20]
#         -P run_model_fuzz.cmake
if(NOT MAX_TOTAL_TIME)
  set(MAX_TOTAL_TIME 20)
endif()
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
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} -j2 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "building the fuzzer failed:\n${out}")
endif()

# A fresh working corpus each run (new inputs go to the first directory; the committed
# seeds are only read).
set(corpus ${WORK_DIR}/corpus)
set(artifacts ${WORK_DIR}/artifacts/)
file(REMOVE_RECURSE ${corpus} ${artifacts})
file(MAKE_DIRECTORY ${corpus} ${artifacts})
set(log ${WORK_DIR}/fuzz.log)
execute_process(COMMAND ${build}/model_loader_fuzz -max_total_time=${MAX_TOTAL_TIME} -rss_limit_mb=2048 -timeout=10
                        -print_final_stats=1 -artifact_prefix=${artifacts} -dict=${SOURCE_DIR}/tests/fuzz/model.dict
                        ${corpus} ${SOURCE_DIR}/tests/fuzz/corpus
                RESULT_VARIABLE rc OUTPUT_FILE ${log} ERROR_FILE ${log})
file(READ ${log} text)
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second" done "${text}")
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" units "${text}")
string(REGEX MATCH "stat::peak_rss_mb: *[0-9]+" rss "${text}")
string(REGEX MATCH "cov: [0-9]+ ft: [0-9]+ corp: [^ ]+" cov_all "${text}")
if(rc)
  file(GLOB found ${artifacts}*)
  string(LENGTH "${text}" len)
  if(len GREATER 12000)
    math(EXPR start "${len} - 12000")
    string(SUBSTRING "${text}" ${start} -1 text)
  endif()
  message(FATAL_ERROR "model_loader_fuzz failed (exit ${rc}); reproducer(s): ${found}\nlog ${log}:\n${text}")
endif()
message(STATUS "model_loader_fuzz: ${done}s, ${units}, ${rss}; log ${log}")

# svp_run's .npy reader, a quarter of the time, from the committed .npy seeds.
math(EXPR npy_time "(${MAX_TOTAL_TIME} + 3) / 4")
set(npy_corpus ${WORK_DIR}/npy_corpus)
file(REMOVE_RECURSE ${npy_corpus})
file(MAKE_DIRECTORY ${npy_corpus})
set(npy_log ${WORK_DIR}/npy_fuzz.log)
execute_process(COMMAND ${build}/npy_reader_fuzz -max_total_time=${npy_time} -rss_limit_mb=2048 -timeout=10
                        -artifact_prefix=${artifacts} ${npy_corpus} ${SOURCE_DIR}/tests/fuzz/npy_corpus
                RESULT_VARIABLE rc OUTPUT_FILE ${npy_log} ERROR_FILE ${npy_log})
if(rc)
  file(READ ${npy_log} text)
  file(GLOB found ${artifacts}*)
  message(FATAL_ERROR "npy_reader_fuzz failed (exit ${rc}); reproducer(s): ${found}\nlog ${npy_log}:\n${text}")
endif()
message(STATUS "npy_reader_fuzz: ${npy_time}s; log ${npy_log}")

# The --insert_op_conf reader, a quarter of the time, from the golden configurations
# (absent when the fuzz project found no protobuf).
if(EXISTS ${build}/insert_op_conf_fuzz)
  set(cfg_corpus ${WORK_DIR}/insert_op_corpus)
  file(REMOVE_RECURSE ${cfg_corpus})
  file(MAKE_DIRECTORY ${cfg_corpus})
  set(cfg_log ${WORK_DIR}/insert_op_fuzz.log)
  execute_process(COMMAND ${build}/insert_op_conf_fuzz -max_total_time=${npy_time} -rss_limit_mb=2048 -timeout=10
                          -artifact_prefix=${artifacts} ${cfg_corpus} ${SOURCE_DIR}/tests/data/aipp
                  RESULT_VARIABLE rc OUTPUT_FILE ${cfg_log} ERROR_FILE ${cfg_log})
  if(rc)
    file(READ ${cfg_log} text)
    file(GLOB found ${artifacts}*)
    message(FATAL_ERROR "insert_op_conf_fuzz failed (exit ${rc}); reproducer(s): ${found}\nlog ${cfg_log}:\n${text}")
  endif()
  message(STATUS "insert_op_conf_fuzz: ${npy_time}s; log ${cfg_log}")
endif()
