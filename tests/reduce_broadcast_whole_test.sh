#!/usr/bin/env bash
# reduce_broadcast priced as training calls it, on committed results of the extrapolation matrix
# (RESULTS: LeNet-5 on 2, 4 and 8 hosts of the emulated cluster at 100 Mbit/s, with the sweep of
# the reduce and broadcast together): dtbench predict's 2-rank reduce_broadcast, gather_scatter
# and ring_reduce (whose links take turns, followed through the iteration's calls) within 5% of
# the measured runs; with the composite's sweeps taken out, reduce_broadcast is priced by the
# reduce's and the broadcast's sweeps composed as it makes them (the formula's together less
# apart, on these links all alike), within 5% too.
#   usage: reduce_broadcast_whole_test.sh DTBENCH RESULTS
set -uo pipefail
dtbench=$1 results=$2
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3

# The first row of a method: its run on 2 ranks (the matrix lists 2, 4, 8 in turn).
error_of() {  # FILE SYNC
  grep -E "^$2 +[0-9.]+s +[0-9.]+s +[+-][0-9.]+%" "$1" | head -1 | awk '{print $4}' | tr -d '%+'
}
within() {  # ERROR LIMIT: |ERROR| <= LIMIT
  $py -c "import sys; sys.exit(0 if abs(float('$1')) <= $2 else 1)"
}

"$dtbench" predict "$results" >"$work/whole.out" 2>&1
code=$?
sed -n '1,/^accuracy/p' "$work/whole.out"
check "predict: exit 0 ($code)" test $code -eq 0
for sync in reduce_broadcast gather_scatter ring_reduce; do
  e=$(error_of "$work/whole.out" $sync)
  check "$sync on 2 ranks within 5% of the runs ($e%)" within "${e:-99}" 5
done

cp -r "$results" "$work/apart"
$py - "$work/apart" <<'PY'
import glob, gzip, json, os, sys
for path in glob.glob(os.path.join(sys.argv[1], "experiments/collectives/*/rep-*/result.json*")):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        r = json.load(f)
    r["benchmarks"] = [b for b in r["benchmarks"] if not b["name"].startswith("reduce_broadcast/")]
    with opener(path, "wt") as f:
        json.dump(r, f)
PY
"$dtbench" predict "$work/apart" >"$work/apart.out" 2>&1
check "predict without the composite's sweeps: exit 0" test $? -eq 0
e=$(error_of "$work/apart.out" reduce_broadcast)
check "priced by the reduce's and broadcast's sweeps composed, within 5% ($e%)" within "${e:-99}" 5
check "the parts' sweeps named where the composite's are missing" \
  grep -q "reduce_broadcast/mpi: its formula fitted to the MPI sweeps of reduce + broadcast on 2, 4 ranks" "$work/apart.out"
check "the composite's sweep named where it is there" \
  grep -q "reduce_broadcast/mpi: its formula fitted to the MPI sweeps of reduce_broadcast on 2, 4 ranks" "$work/whole.out"
exit $status
