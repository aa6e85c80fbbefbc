#!/usr/bin/env bash
# Builds with warnings as errors and runs the whole test suite (unit + stress labels).
#   scripts/test.sh                 normal build in build/
#   scripts/test.sh thread          ThreadSanitizer build in build-tsan/
#   scripts/test.sh address         AddressSanitizer + UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
mode="${1:-normal}"
case "$mode" in
  normal)  dir=build;      flags=(-DSVP_ACL_WERROR=ON) ;;
  thread)  dir=build-tsan; flags=(-DSVP_ACL_SANITIZE_THREAD=ON -DSVP_ACL_BUILD_BENCH=OFF) ;;
  address) dir=build-asan; flags=(-DSVP_ACL_SANITIZE_ADDRESS=ON -DSVP_ACL_BUILD_BENCH=OFF) ;;
  *) echo "usage: $0 [normal|thread|address]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${flags[@]}" >/dev/null
cmake --build "$dir" -j2
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir "$dir" --output-on-failure -j2 -L 'unit|stress|bench'
