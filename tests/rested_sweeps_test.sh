#!/usr/bin/env bash
# Sweeps after a rest held against training, on committed results of the extrapolation matrix
# (RESULTS: LeNet-5 on 2, 4 and 8 hosts of the emulated cluster at 100 Mbit/s, its collectives
# swept again with every operation after 3 ms of rest): dtbench predict prints the rested sweeps;
# the hand-written ring on 2 hosts, whose first large call in each training step finds its links
# rested, took within 5% of the rested sweep's time for LeNet-5's fc1 tensor (192,000 B), closer
# to it than to the same sweep between barriers, which finds the links' token buckets drained.
#   usage: rested_sweeps_test.sh DTBENCH RESULTS
set -uo pipefail
dtbench=$1 results=$2
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3

"$dtbench" predict "$results" >"$work/predict.out" 2>&1
code=$?
check "predict: exit 0 ($code)" test $code -eq 0
line=$(grep -E "^  after 3 ms of rest, mpi on 2 ranks:" "$work/predict.out")
check "the rested sweeps on 2 hosts are printed" test -n "$line"
echo "$line"
# "ring_allreduce at 192000 B (lenet5) R ms (B between barriers, C chained)"
read -r rested between < <(echo "$line" | $py -c "
import re, sys
m = re.search(r'ring_allreduce at 192000 B \(lenet5\) ([0-9.]+) ms \(([0-9.]+) between', sys.stdin.read())
print(*(m.groups() if m else ('0', '0')))")

# Training's fc1 call: in each step after the first, from the ring's first step on that tensor
# (its 96,000 B halves) to its last, on rank 0; the median over the steps, in ms.
trace=$(find "$results/experiments/scaling" -path '*ranks=2,*sync=ring_allreduce*' \
  -path '*/rep-1/*' -name 'trace.json.gz' | head -1)
check "the 2-host ring's trace is there" test -n "$trace"
training=$($py - "$trace" <<'PY'
import gzip, json, statistics, sys
events = json.load(gzip.open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
begun, spans = {}, []
for e in sorted((e for e in events if e.get("cat") == "comm" and e["pid"] == 0),
                key=lambda e: e["ts"]):
    if e["ph"] == "b":
        begun[e["id"]] = e
    elif e["ph"] == "e" and e["id"] in begun:
        b = begun.pop(e["id"])
        spans.append((b["ts"], e["ts"], b["args"]["bytes"]))
steps = [e for e in events if e.get("name") == "sync" and e["pid"] == 0 and e["dur"] > 100]
calls = []
for s in steps[1:]:
    fc1 = [x for x in spans if s["ts"] <= x[0] <= s["ts"] + s["dur"] and x[2] == 96000]
    if fc1:
        calls.append((max(x[1] for x in fc1) - min(x[0] for x in fc1)) / 1000)
print(statistics.median(calls) if calls else 0)
PY
)
echo "ring_allreduce of 192000 B on 2 hosts: training $training ms, rested $rested ms, between barriers $between ms"
check "training's fc1 call within 5% of the rested sweep" \
  $py -c "import sys; sys.exit(0 if $rested > 0 and abs($training / $rested - 1) <= 0.05 else 1)"
check "and closer to it than to the sweep between barriers" \
  $py -c "import sys; sys.exit(0 if $training > 0 and abs($training - $rested) < abs($training - $between) else 1)"
exit $status
