# Installs the build into a scratch prefix, then builds and runs a tiny consumer project
# against it twice: with find_package(SvpAcl CONFIG) and with pkg-config; with PYTHON
# given (the Python package is built), imports rknn.api from the installed PYTHON_DIR and
# checks that its svp_acl/_paths.py (RKNN.codegen) names the installed header and library.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
if(PYTHON)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${prefix}/${PYTHON_DIR} ${PYTHON} -c
                          "import os, rknn.api, svp_acl; from svp_acl import _paths; assert os.path.isfile(os.path.join(_paths.RKNN_INCLUDE_DIR, 'rknn_api.h')) and os.path.isfile(os.path.join(_paths.RKNNRT_LIBRARY_DIR, 'librknnrt.so')), 'codegen paths: ' + _paths.RKNN_INCLUDE_DIR + ' ' + _paths.RKNNRT_LIBRARY_DIR; print(rknn.api.RKNN.__name__, svp_acl._svp_acl.__file__)"
                  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc OR NOT out MATCHES "^RKNN ${prefix}/")
    message(FATAL_ERROR "importing the installed Python package from ${prefix}/${PYTHON_DIR} failed: ${rc} ${out} ${err}")
  endif()
  message(STATUS "Python package: ${out}")
endif()
foreach(mode cmake pkgconfig)
  set(bdir ${WORK_DIR}/build_${mode})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${bdir} -DCMAKE_PREFIX_PATH=${prefix}
                          -DCONSUMER_MODE=${mode} "-DCMAKE_C_FLAGS=${FLAGS}" "-DCMAKE_CXX_FLAGS=${FLAGS}"
                          "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}" RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "configuring the consumer (${mode}) failed")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${bdir} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "building the consumer (${mode}) failed")
  endif()
  execute_process(COMMAND ${bdir}/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(rc OR NOT out MATCHES "consumer ok")
    message(FATAL_ERROR "running the consumer (${mode}) failed: ${rc} ${out}")
  endif()
  message(STATUS "consumer (${mode}): ${out}")
  execute_process(COMMAND ${bdir}/consumer_cpp RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(rc OR NOT out MATCHES "cpp consumer ok")
    message(FATAL_ERROR "running the C++ consumer (${mode}) failed: ${rc} ${out}")
  endif()
  message(STATUS "C++ consumer (${mode}): ${out}")
endforeach()
