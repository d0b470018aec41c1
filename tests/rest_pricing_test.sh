#!/usr/bin/env bash
# Which sweep prices the small calls, on committed results of the extrapolation matrix (each
# RESULTS: LeNet-5 on 2, 4 and 8 hosts of the emulated cluster on a 2-core machine, the
# collectives swept between barriers, chained, and after 3 ms of rest). Training's traced
# allreduces of LeNet-5's tensors up to 16 KiB (each iteration's first call left out: it waits for
# the slowest rank's compute, which the model adds apart) took:
# - over Gloo, closer to the rested sweep's time than to the chained one's on 2 ranks (a core
#   each: a waiting rank's core idles), and closer to the chained one's on 8 (4 ranks a core: a
#   waiting rank's core runs another rank);
# - over MPI, closer to the rested sweep's time than to the one between barriers on 2, 4 and 8
#   ranks (Open MPI's own allreduce; its calls inside training find the links' token bucket
#   refilled and their ranks arriving apart, as after a rest).
# dtbench predict prices them so, says which sweep it read, and predicts allreduce/gloo on 2 ranks
# within 10%.
#   usage: rest_pricing_test.sh DTBENCH RESULTS...
set -uo pipefail
dtbench=$1
shift
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3
# closer T A B: T is nearer A than B.
closer() { $py -c "import sys; t, a, b = map(float, sys.argv[1:]); sys.exit(0 if abs(t - a) < abs(t - b) else 1)" "$@"; }

for results in "$@"; do
  name=$(basename "$results")
  for case in "gloo 2 chained" "gloo 8 chained" "mpi 2 between" "mpi 4 between" "mpi 8 between"; do
    read -r backend ranks other <<<"$case"
    read -r train rested swept < <($py - "$results" "$backend" "$ranks" "$other" <<'PY'
import glob, gzip, json, os, statistics, sys
results, backend, ranks, other = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
exp = os.path.join(results, "experiments")
def load(p): return json.load(gzip.open(p) if p.endswith(".gz") else open(p))
train = []
for t in glob.glob(f"{exp}/scaling/*sync=allreduce,*/rep-*/trace.json*"):
    j = load(t)
    if j["otherData"]["backend"] != backend or j["otherData"]["ranks"] != ranks: continue
    calls = {}
    for e in j["traceEvents"]:
        if e.get("cat") == "comm": calls.setdefault(e["pid"], []).append(e)
    for rank in calls.values():
        rank.sort(key=lambda e: e["ts"])
        tensors = len({e["args"]["bytes"] for e in rank})
        train += [e["dur"] / 1e3 for i, e in enumerate(rank)
                  if i % tensors and e["args"]["bytes"] <= 16384]
def swept(kind, chained):
    v = []
    for f in glob.glob(f"{exp}/{kind}/backend={backend},*/rep-*/result.json*"):
        for b in load(f)["benchmarks"]:
            if b["name"].startswith("allreduce/") and b["ranks"] == ranks and 16 <= b["bytes"] <= 16384:
                v.append(b["chained_s"] * 1e3 if chained else b["real_time"] / 1e3)
    return statistics.fmean(v) if v else float("nan")
mean = statistics.fmean(train) if train else float("nan")
print(f"{mean:.3f} {swept('rested', False):.3f} {swept('collectives', other == 'chained'):.3f}")
PY
    )
    echo "$name, $backend on $ranks ranks: LeNet-5's tensors up to 16 KiB: training $train ms, rested sweep $rested ms, $other $swept ms"
    if [ "$backend $ranks" = "gloo 8" ]; then
      check "$name: over Gloo on 8 ranks training is closer to the chained sweep" \
        closer "$train" "$swept" "$rested"
    else
      check "$name: over $backend on $ranks ranks training is closer to the rested sweep" \
        closer "$train" "$rested" "$swept"
    fi
  done
  "$dtbench" predict "$results" >"$work/predict.out" 2>&1
  check "$name: predict exits 0" test $? -eq 0
  check "$name: predict says Gloo on 2 ranks is priced after a rest, chained on 4 and 8" \
    grep -q "Gloo's operations on 2 ranks (a core each) as swept after a rest up to the links' token bucket of 31 KB (chained beyond); on 4, 8" "$work/predict.out"
  check "$name: predict says Open MPI's own collectives on 2, 4 and 8 ranks are priced after a rest" \
    grep -qE "Open MPI's own collectives \(.*allreduce.*\) on 2, 4, 8(, 16)? ranks as swept after a rest up to the links' token bucket of 31 KB \(between barriers beyond\); its hand-written rings between barriers" "$work/predict.out"
  error=$(grep -m1 -E "^allreduce/gloo " "$work/predict.out" | awk '{print $4}' | tr -d '%+')
  echo "$name: allreduce/gloo on 2 ranks, error $error%"
  check "$name: allreduce/gloo on 2 ranks predicted within 10%" \
    $py -c "import sys; sys.exit(0 if abs(float(sys.argv[1])) <= 10 else 1)" "${error:-nan}"
done
exit $status
