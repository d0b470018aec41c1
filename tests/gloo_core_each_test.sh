#!/usr/bin/env bash
# Gloo where each rank has a core of its own, on committed results of the extrapolation matrix
# (each RESULTS: LeNet-5 on 2, 4 and 8 hosts of the emulated cluster on a 2-core machine, Gloo's
# allreduce swept chained and after 3 ms of rest): training's traced allreduces of LeNet-5's
# tensors up to 16 KiB took closer to the rested sweep's time than to the chained one's on 2 ranks
# (a core each: a waiting rank's core idles), and closer to the chained one's on 8 (4 ranks a
# core: a waiting rank's core runs another rank); dtbench predict prices them so and says which
# sweep it read, and predicts allreduce/gloo on 2 ranks within 10%.
#   usage: gloo_core_each_test.sh DTBENCH RESULTS...
set -uo pipefail
dtbench=$1
shift
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3
# closer T A B: T is nearer A than B.
closer() { $py -c "import sys; t, a, b = map(float, sys.argv[1:]); sys.exit(0 if abs(t - a) < abs(t - b) else 1)" "$@"; }

for results in "$@"; do
  name=$(basename "$results")
  for ranks in 2 8; do
    read -r train rested chained < <($py - "$results" "$ranks" <<'PY'
import glob, gzip, json, os, statistics, sys
results, ranks = sys.argv[1], int(sys.argv[2])
exp = os.path.join(results, "experiments")
def load(p): return json.load(gzip.open(p) if p.endswith(".gz") else open(p))
train = []
for t in glob.glob(f"{exp}/scaling/*sync=allreduce,*/rep-*/trace.json*"):
    j = load(t)
    if j["otherData"]["backend"] != "gloo" or j["otherData"]["ranks"] != ranks: continue
    train += [e["dur"] / 1e3 for e in j["traceEvents"]
              if e.get("cat") == "comm" and e["args"]["bytes"] <= 16384]
def swept(kind):
    v = []
    for f in glob.glob(f"{exp}/{kind}/backend=gloo,*/rep-*/result.json*"):
        for b in load(f)["benchmarks"]:
            if b["name"].startswith("allreduce/") and b["ranks"] == ranks and 16 <= b["bytes"] <= 16384:
                v.append(b["real_time"] / 1e3 if kind == "rested" else b["chained_s"] * 1e3)
    return statistics.fmean(v) if v else float("nan")
print(f"{statistics.fmean(train) if train else float('nan'):.3f} {swept('rested'):.3f} {swept('collectives'):.3f}")
PY
    )
    echo "$name, $ranks ranks: LeNet-5's tensors up to 16 KiB: training $train ms, rested sweep $rested ms, chained $chained ms"
    if [ "$ranks" = 2 ]; then
      check "$name: on 2 ranks training is closer to the rested sweep" closer "$train" "$rested" "$chained"
    else
      check "$name: on 8 ranks training is closer to the chained sweep" closer "$train" "$chained" "$rested"
    fi
  done
  "$dtbench" predict "$results" >"$work/predict.out" 2>&1
  check "$name: predict exits 0" test $? -eq 0
  check "$name: predict says Gloo on 2 ranks is priced after a rest, chained on 4 and 8" \
    grep -q "Gloo's operations on 2 ranks (a core each) as swept after a rest up to the links' token bucket of 31 KB (chained beyond); on 4, 8 ranks chained" "$work/predict.out"
  error=$(grep -m1 -E "^allreduce/gloo " "$work/predict.out" | awk '{print $4}' | tr -d '%+')
  echo "$name: allreduce/gloo on 2 ranks, error $error%"
  check "$name: allreduce/gloo on 2 ranks predicted within 10%" \
    $py -c "import sys; sys.exit(0 if abs(float(sys.argv[1])) <= 10 else 1)" "${error:-nan}"
done
exit $status
