// The SVP runtime's classes of the native module (python/svp_runtime.cpp).
#pragma once

#include <pybind11/pybind11.h>

void bind_svp_runtime(pybind11::module_& m);
