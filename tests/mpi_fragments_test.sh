#!/usr/bin/env bash
# OpenMPI's TCP fragment held against the exchanges' timing, on two committed runs on one machine
# (LeNet-5's 192,000 B on 2 emulated hosts at 100 Mbit/s): with the ranks' own 128 KiB fragments
# (DEFAULT, the fragments matrix) an exchange made back to back took more than 20% longer than
# between barriers, and after a rest less than either; with the extrapolation matrix's 8 KiB
# (SMALL, mpi_fragment) back to back within 10% of between barriers, and the records say which
# fragment each run's ranks had.
#   usage: mpi_fragments_test.sh DTBENCH DEFAULT SMALL
set -uo pipefail
dtbench=$1 default=$2 small=$3
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3

# Each run's rested-sweep lines for 2 hosts, once.
"$dtbench" predict "$default" 2>/dev/null | grep -E "^  after 3 ms of rest, mpi on 2 ranks:" >"$work/default"
"$dtbench" predict "$small" 2>/dev/null | grep -E "^  after 3 ms of rest, mpi on 2 ranks:" >"$work/small"

# "OP at 192000 B (lenet5) R ms (B between barriers, C chained)": OP's B, C and R
times() {  # times LINES OP
  $py -c "
import re
m = re.search(r'\b$2 at 192000 B \(lenet5\) ([0-9.]+) ms \(([0-9.]+) between barriers, ([0-9.]+) chained',
              open('$1').read())
print(*(m.groups()[1:] + m.groups()[:1] if m else ('0', '0', '0')))"
}
ratio() { $py -c "print(f'{$2 / $1:.3f}' if $1 > 0 else 0)"; }

for op in allreduce allgather ring_allreduce; do
  read -r between chained rested < <(times "$work/default" $op)
  r=$(ratio "$between" "$chained")
  check "128 KiB: $op back to back over between barriers, $chained / $between ms = $r > 1.2" \
    $py -c "import sys; sys.exit(0 if $r > 1.2 else 1)"
  check "128 KiB: $op after a rest under between barriers, $rested < $between ms" \
    $py -c "import sys; sys.exit(0 if 0 < $rested < $between else 1)"
  read -r between chained rested < <(times "$work/small" $op)
  r=$(ratio "$between" "$chained")
  check "8 KiB: $op back to back over between barriers, $chained / $between ms = $r within 10%" \
    $py -c "import sys; sys.exit(0 if 0.9 <= $r <= 1.1 else 1)"
done

check "each 8 KiB run's ranks ran with that fragment, each other run's with 128 KiB" \
  $py - "$default" "$small" <<'PY'
import glob, gzip, json, sys
read = 0
for root, want in ((sys.argv[1], "131072"), (sys.argv[2], "8192")):
    for path in glob.glob(root + "/experiments/*/*mpi*/rep-1/result.json.gz"):
        record = json.load(gzip.open(path))
        if "benchmarks" in record:  # bench_collectives: the record's system in its context
            record = {"system": json.loads(record["context"]["dtbench_system"])}
        got = record["system"]["mpi"]["mca"].get("btl_tcp_rdma_pipeline_frag_size")
        if got != want:
            sys.exit(f"{path}: {got}, not {want}")
        read += 1
sys.exit(0 if read >= 4 + 24 else f"only {read} MPI records")
PY
exit $status
