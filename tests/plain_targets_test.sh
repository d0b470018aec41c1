#!/usr/bin/env bash
# libtorch's headers only where tensors are: no object of the plain targets (the core library,
# the harness, the report, the cost model, the dtbench program and the plain tests) included a
# header of libtorch (ATen, c10, torch), as the compiler's own dependency files (*.o.d) list
# every header it read. The tensor library's objects do include them (the check can see one).
#   usage: plain_targets_test.sh BUILD_DIR
set -uo pipefail
build=$1
source "$(dirname "$0")/check.sh"
libtorch='/(ATen|c10|torch)/'

plain=$(find "$build/trainers/CMakeFiles/dtbench_core.dir" "$build/harness" "$build/report" \
  "$build/model" "$build/cli" "$build/tests/CMakeFiles/dtbench_unit_tests.dir" -name '*.o.d')
check "the plain targets' dependency files are there ($(echo "$plain" | wc -w))" \
  test "$(echo "$plain" | wc -w)" -ge 40
offenders=$(grep -El "$libtorch" $plain)
check "no plain object included a libtorch header${offenders:+: $offenders}" test -z "$offenders"
tensors=$(find "$build/trainers/CMakeFiles/dtbench.dir" -name '*.o.d')
check "the tensor library's objects did (the check sees them)" grep -Eq "$libtorch" $tensors
exit $status
