#!/usr/bin/env bash
# The model past the ranks it was fitted on, on committed results of an extrapolation matrix
# (RESULTS: LeNet-5 on 2, 4, 8 and maybe 16 hosts of the emulated cluster): dtbench predict
# predicts the runs on the most ranks from the runs and sweeps on fewer ranks only, each row's
# measured time recomputed here from the raw samples and its error from the two times; with the
# most ranks' sweeps removed the extrapolation is the same to the digit (it never read them),
# while the predictions from their own inputs change; the report shows figure 21; results on one
# rank count have no extrapolation.
#   usage: extrapolation_test.sh DTBENCH RESULTS ONE_RANK_COUNT
set -uo pipefail
dtbench=$1 results=$2 one=$3
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3

# What the directory holds: the most ranks a training run had, the fewer ones, how many runs on
# the most (methods x backends), each rank's share of the global batch of 64, the ranks on each
# of the machine's cores, and the most ranks of a traced run (the model predicts a run from its
# own ranks' inputs where their traces give the gradients' ready times).
read -r most fitted runs batch per_core traced < <($py - "$results" <<'PY'
import glob, gzip, json, os, sys
counts, methods, traced = set(), {}, 0
for result in glob.glob(os.path.join(sys.argv[1], "experiments/*/*/rep-*/result.json*")):
    r = json.load(gzip.open(result) if result.endswith(".gz") else open(result))
    if "config" not in r: continue
    c = r["config"]
    counts.add(c["world_size"])
    methods.setdefault(c["world_size"], set()).add((c["sync"], c["backend"]))
    if glob.glob(os.path.join(os.path.dirname(result), "trace.json*")):
        traced = max(traced, c["world_size"])
cores = json.load(open(os.path.join(sys.argv[1], "system.json")))["cores"]
most = max(counts)
print(most, ",".join(str(n) for n in sorted(counts - {most})), len(methods[most]), 64 // most,
      most // cores, traced)
PY
)
fewer=${fitted//,/, }
echo "runs on $most ranks ($runs), fitted on $fewer"

"$dtbench" predict "$results" >"$work/all.out" 2>&1
code=$?
cat "$work/all.out"
check "predict: exit 0 ($code)" test $code -eq 0
sed -n '/^Past the ranks fitted on/,$p' "$work/all.out" >"$work/past.out"
check "the $most-rank runs predicted from the $fewer-rank ones" \
  grep -q "the runs on $most ranks predicted from those on $fewer ranks only" "$work/past.out"
check "the compute from the blocking runs on $fewer ranks" \
  grep -q "compute of lenet5 on $most ranks (batch $batch each, $per_core ranks' threads per core).*through the blocking runs on $fewer ranks" "$work/past.out"
check "each strategy's link fitted to its sweeps on $fewer ranks" \
  grep -q "gather_scatter/mpi: its formula fitted to the MPI sweeps of gather_scatter on $fewer ranks: latency" "$work/past.out"
check "a bucketed engine's rate read where the ring steps carry what they do on $most ranks" \
  grep -q "bucketed/mpi: its formula fitted to the MPI sweeps of ring_allreduce on $fewer ranks: .*rate [0-9.]* MB/s at the sizes whose ring steps carry what its buckets' do on $most ranks" "$work/past.out"
if grep -q "^allgather " "$work/past.out"; then
  check "allgather's rate from the 4-rank sweeps only, where Open MPI runs it as on 8" \
  grep -q "allgather/mpi: its formula fitted to the MPI sweeps of allgather on 2, 4 ranks: .*rate [0-9.]* MB/s at the swept sizes around its tensors', on 4 ranks only, where Open MPI runs its allgather as on 8" "$work/past.out"
fi

env PYTHONPATH="$(dirname "$0")" $py - "$results" "$work/past.out" "$most" "$runs" <<'PY'
import re, statistics, sys
from raw_samples import percentile, timed_on
results, out, most, runs = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3]), int(sys.argv[4])
rows = re.findall(r"^(\S.*?)\s+(\d+\.\d{3})s\s+(\d+\.\d{3})s\s+([+-]\d+\.\d)%\s+p95 (\d+\.\d{3})/", out, re.M)
measured, pooled = timed_on(results, most)
ok = len(rows) == len(measured) == runs
for label, m, p, e, p95 in rows:
    parts = label.split()[0].split("/")
    sync, backend = parts[0], parts[1] if len(parts) > 1 else "mpi"
    want = statistics.fmean(measured.get((sync, backend), [float("nan")]))
    # The error from the two times as printed (3 decimals): within their rounding.
    slack = 100 * 5e-4 * (1 + float(p) / float(m)) / float(m) + 0.1
    want95 = percentile(pooled.get((sync, backend), [float("nan")]), 95)
    good = abs(float(m) - want) < 6e-4 and abs(100 * (float(p) / float(m) - 1) - float(e)) < slack \
        and abs(float(p95) - want95) < 6e-4
    print(f"{'ok' if good else 'WRONG'}: {label}: measured {m} (raw samples {want:.4f}), error {e}%, "
          f"p95 {p95} (raw samples {want95:.4f})")
    ok = ok and good
sys.exit(0 if ok else 1)
PY
check "$runs runs on $most ranks, each measured (mean and p95) from the raw samples, with its signed error" test $? -eq 0
check "each p95 predicted as the mean predicted times the other methods' p95 / mean on ${fitted##*,} ranks" \
  env PYTHONPATH="$(dirname "$0")" $py - "$results" "$work/past.out" "$runs" "${fitted##*,}" <<'PY'
import re, statistics, sys
from raw_samples import percentile, timed_on
results, out, runs, fitted = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3]), int(sys.argv[4])
means, pooled = timed_on(results, fitted)
ratio = {k: percentile(pooled[k], 95) / statistics.fmean(means[k]) for k in means}
rows = re.findall(r"^(\S+).*?\s+\d+\.\d{3}s\s+(\d+\.\d{3})s\s+\S+%\s+p95 \d+\.\d{3}/(\d+\.\d{3})", out, re.M)
assert len(rows) == runs, rows
for label, mean, p95 in rows:
    sync, _, backend = label.partition("/")
    backend = backend or "mpi"
    others = [v for (s, b), v in ratio.items() if b == backend and s != sync]
    want = float(mean) * statistics.median(others)
    print(f"{label}: p95 {p95} predicted, {want:.4f} from the others' median ratio")
    assert abs(float(p95) - want) < 1.5e-3, (label, mean, p95, want)
PY
check "the p95 predicted and its error stated" \
  grep -Eq "^the 95th percentile iteration, predicted as the mean times the p95-to-mean ratio that the other methods of its workload and backend measured on ${fitted##*,} ranks .*: mean \|error\| [0-9.]+%, largest [+-][0-9.]+% \(.*\), over $runs experiments" "$work/past.out"

# Without the sweeps on the most ranks: the extrapolation unchanged, their own predictions not.
cp -r "$results" "$work/fewer"
rm -r "$work"/fewer/experiments/{collectives,rested}/*ranks=$most,*
"$dtbench" predict "$work/fewer" >"$work/fewer.out" 2>&1
sed -n '/^Past the ranks fitted on/,$p' "$work/fewer.out" >"$work/fewer-past.out"
check "the $most-rank sweeps removed" test -z "$(ls -d "$work"/fewer/experiments/{collectives,rested}/*ranks=$most,* 2>/dev/null)"
check "without them the extrapolation is the same" cmp "$work/past.out" "$work/fewer-past.out"
check "while the $most ranks' own predictions change" \
  bash -c "! cmp -s <(sed '/^Past the ranks/,\$d' '$work/all.out') <(sed '/^Past the ranks/,\$d' '$work/fewer.out')"

"$dtbench" report "$results" -o "$work/report/group.pdf" >"$work/report.out" 2>&1
code=$?
check "report: exit 0 ($code)" test $code -eq 0
check "figure 21: fitted on $fewer ranks, predicting $most" \
  grep -q "Fitted on $fewer ranks only, the model predicts the $runs runs on $most ranks with mean |error|" "$work/report/report.md"
mean=$(grep -o "over $runs predicted experiments, mean |error| [0-9.]*%" "$work/past.out" | grep -o "[0-9.]*%$")
check "the answer states the extrapolation's error beside the validated range ($mean)" \
  grep -q "validated up to $traced ranks on $traced hosts.*; fitted on $fewer ranks only, it predicted the $runs runs on $most ranks within $mean on average" "$work/report/report.md"

"$dtbench" predict "$one" >"$work/one.out" 2>&1
check "results on one rank count: predicted, no extrapolation" \
  bash -c "grep -q 'mean |error|' '$work/one.out' && ! grep -q 'Past the ranks fitted on' '$work/one.out'"

exit $status
