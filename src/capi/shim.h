// The vocabulary of the C shim files: Status, Result and Error from the core, the guard
// that turns them into the vendor's codes at the boundary (guard.h), and the error codes.
// Included by src/capi/*.cpp only, never by a header, so the using-declarations stay
// inside the shims.
#pragma once

#include "capi/guard.h"
#include "common/status.h"

using svp::Error;
using svp::Result;
using svp::Status;
using svp::capi::guard;
using svp::capi::guard_value;
namespace err = svp::err;
