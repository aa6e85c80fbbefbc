# Included by every guide sample's CMakeLists.txt. A sample needs only the installed SVP ACL
# package: find_package(SvpAcl CONFIG) by default, pkg-config with -DSAMPLE_USE_PKG_CONFIG=ON
# (point CMAKE_PREFIX_PATH resp. PKG_CONFIG_PATH at the install prefix). When the samples are
# built inside the svp-acl tree (samples/CMakeLists.txt), SAMPLE_ACL_LIBRARY is set already.
if(NOT SAMPLE_ACL_LIBRARY)
  option(SAMPLE_USE_PKG_CONFIG "Find svp_acl with pkg-config instead of find_package(SvpAcl)" OFF)
  if(SAMPLE_USE_PKG_CONFIG)
    find_package(PkgConfig REQUIRED)
    pkg_check_modules(SVP_ACL REQUIRED IMPORTED_TARGET svp_acl)
    set(SAMPLE_ACL_LIBRARY PkgConfig::SVP_ACL)
    set(CMAKE_BUILD_RPATH ${SVP_ACL_LIBRARY_DIRS})
  else()
    find_package(SvpAcl CONFIG REQUIRED)
    set(SAMPLE_ACL_LIBRARY SvpAcl::svp_acl)
  endif()
endif()
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
set(SAMPLE_COMMON_DIR ${CMAKE_CURRENT_LIST_DIR})

# sample_add_executable(<name> <sources>...): the sample's program from src/, its inc/ and
# the common code (samples/common), as C99.
function(sample_add_executable name)
  add_executable(${name} ${ARGN} ${SAMPLE_COMMON_DIR}/src/sample_common.c)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/inc ${SAMPLE_COMMON_DIR}/inc)
  target_link_libraries(${name} PRIVATE ${SAMPLE_ACL_LIBRARY} ZLIB::ZLIB Threads::Threads)
  set_target_properties(${name} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${name} PRIVATE -Wall -Wextra)
  endif()
endfunction()
