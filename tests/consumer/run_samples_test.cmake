# Builds every guide sample (samples/<name>/CMakeLists.txt; also the C++ OCR sample) the
# way a vendor application developer would: against the package installed by `cmake
# --install` into a scratch prefix, every sample with find_package(SvpAcl CONFIG), and
# acl_sync and the RKNN demos (samples/rknn) also with pkg-config (the guide samples share
# that code path, samples/common/sample_common.cmake); then runs acl_sync from both builds on
# the LeNet the sample_acl_sync_model fixture compiled, and the RKNN matmul demo.
#   -DBUILD_DIR -DSOURCE_DIR -DWORK_DIR -DSAMPLES=a,b -DMODEL=lenet.om -DDATASET=dir -DFLAGS
string(REPLACE "," ";" SAMPLES "${SAMPLES}")
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} OUTPUT_QUIET RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
set(pc_path "${prefix}/lib/pkgconfig:${prefix}/lib/x86_64-linux-gnu/pkgconfig")
foreach(mode cmake pkgconfig)
  if(mode STREQUAL "pkgconfig")
    set(use_pc ON)
    set(built acl_sync rknn)
  else()
    set(use_pc OFF)
    set(built ${SAMPLES})
  endif()
  foreach(sample ${built})
    set(bdir ${WORK_DIR}/${mode}/${sample})
    # Only the prefix is given: no path into the source or build tree of svp-acl.
    execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_path}
                            ${CMAKE_COMMAND} -S ${SOURCE_DIR}/samples/${sample} -B ${bdir} -DCMAKE_PREFIX_PATH=${prefix}
                            -DSAMPLE_USE_PKG_CONFIG=${use_pc} -DRKNN_USE_PKG_CONFIG=${use_pc}
                            --no-warn-unused-cli "-DCMAKE_C_FLAGS=-Werror ${FLAGS}"
                            "-DCMAKE_CXX_FLAGS=-Werror ${FLAGS}"
                            "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}"
                    OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
    if(rc)
      message(FATAL_ERROR "configuring ${sample} (${mode}) failed:\n${out}")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} --build ${bdir} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
    if(rc)
      message(FATAL_ERROR "building ${sample} (${mode}) failed:\n${out}")
    endif()
    message(STATUS "${sample} (${mode}): built against ${prefix}")
  endforeach()
  execute_process(COMMAND ${WORK_DIR}/${mode}/acl_sync/acl_sync ${MODEL} ${DATASET} 100 80 RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc OR NOT out MATCHES "acl_sync OK")
    message(FATAL_ERROR "acl_sync built with ${mode} failed: ${rc}\n${out}\n${err}")
  endif()
  message(STATUS "acl_sync (${mode}) against the installed library: OK")
  # librknnrt: the matmul demo needs no model.
  execute_process(COMMAND ${WORK_DIR}/${mode}/rknn/rknn_matmul_sample RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc OR NOT out MATCHES "rknn matmul sample OK")
    message(FATAL_ERROR "rknn_matmul_sample built with ${mode} failed: ${rc}\n${out}\n${err}")
  endif()
  message(STATUS "rknn_matmul_sample (${mode}) against the installed librknnrt: OK")
endforeach()
