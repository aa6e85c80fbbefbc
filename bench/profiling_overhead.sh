#!/usr/bin/env bash
# "Profiling off costs nothing": prof_bench's "off" latency in a normal build against a
# build with the hooks compiled out (-DSVP_ACL_PROFILING_HOOKS=OFF), runs alternated so
# machine noise hits both alike. Prints each run and the median ratio (hooks / no hooks).
#   bench/profiling_overhead.sh [runs=5]
# Set PIN="taskset -c 0" to run both on one vCPU: on a VM whose idle vCPUs take tens of
# microseconds to wake, that removes the wake-up noise that otherwise swamps a 1% effect.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
for v in ON OFF; do
  dir="build-prof-hooks-$v"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSVP_ACL_PROFILING_HOOKS=$v \
        -DSVP_ACL_BUILD_TESTS=OFF -DSVP_ACL_BUILD_SAMPLES=OFF >/dev/null
  cmake --build "$dir" -j2 --target prof_bench >/dev/null
done
on=()
off=()
for ((i = 1; i <= runs; ++i)); do
  a=$(${PIN:-} build-prof-hooks-ON/bench/prof_bench | sed -n 's/.*off_p50_ns=\([0-9]*\).*/\1/p')
  b=$(${PIN:-} build-prof-hooks-OFF/bench/prof_bench | sed -n 's/.*off_p50_ns=\([0-9]*\).*/\1/p')
  on+=("$a")
  off+=("$b")
  echo "run $i: hooks built, profiling off P50 ${a} ns; hooks compiled out P50 ${b} ns; ratio $(python3 -c "print(f'{$a/$b:.3f}')")"
done
python3 - "${on[*]}" "${off[*]}" <<'PY'
import statistics, sys
on = [float(x) for x in sys.argv[1].split()]
off = [float(x) for x in sys.argv[2].split()]
ratios = [a / b for a, b in zip(on, off)]
print(f"median P50 hooks built {statistics.median(on):.0f} ns, compiled out {statistics.median(off):.0f} ns; "
      f"median ratio {statistics.median(ratios):.3f} (target <= 1.01)")
PY
