#!/usr/bin/env bash
# `dtbench predict` and the report's "Model vs measurement" on committed results of the model
# matrix on the emulated cluster (MODEL, tests/fixtures/results/): every method of sync_methods and
# every point of the bucket sweep is predicted, with a signed error that is the predicted over
# the measured iteration time recomputed here from the raw samples; the link is the one fitted
# to the collectives sweep; the CPU that overlapped communication takes from compute, from the
# machine CPU time of the nonblocking allreduce's sweep (Gloo's allreduce in older results); the compute comes from the blocking runs and their traces. Results
# without traces (SMOKE) say what is missing; no results is one line and exit 2. What-if runs on
# a parameter list and on the measured compute (its own, or another model's scaled), labelled as
# predicted, with its figure.
# The same matrix with one host at 100 Mbit/s (BOTTLENECK) is a system of its own, its link the
# bottleneck's. Results that swept the nonblocking allreduce (SWEPT_IALLREDUCE) charge each
# backend's overlapped runs that sweep's CPU; they hold the lossy methods too, each predicted,
# and the sweep of their hooks, whose time and CPU each of their buckets is charged.
# Results of the hierarchical matrix on 2 hosts of 2 ranks (HIERARCHICAL) predict the two-level
# allreduce with the link within a host fitted to the ring's sweep on 2 ranks of one machine.
#   usage: predict_test.sh DTBENCH MODEL SMOKE BOTTLENECK SWEPT_IALLREDUCE HIERARCHICAL
set -uo pipefail
dtbench=$1 model=$2 smoke=$3 bottleneck=$4 swept=$5 hierarchical=$6
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3

"$dtbench" predict "$model" >"$work/model.out" 2>&1
code=$?
cat "$work/model.out"
check "predict: exit 0 ($code)" test $code -eq 0
check "the mpi link fitted to the hand-written ring's sweep" \
  grep -q "mpi link: fitted to the mpi ring_allreduce sweep on 4 ranks" "$work/model.out"
check "the per-tensor methods priced by the sweeps of their collectives" \
  grep -q "each tensor of allgather, allreduce, gather_scatter, reduce_broadcast, ring_allreduce, ring_reduce costs what the sweeps" "$work/model.out"
check "the CPU that overlapped communication takes, from a sweep's machine CPU time" \
  grep -Eq "communication's CPU: 4 ranks of 1 threads fill each machine's [0-9]+ cores; an allreduce costs a machine [0-9.]+ s of CPU per 10 MB \((MPI|Gloo)'s i?allreduce sweep" "$work/model.out"
check "the compute from the blocking runs and their traces" \
  grep -Eq "median of [0-9]+ blocking runs.*34 gradients' ready times from their traces" "$work/model.out"

# Each row: label, measured, predicted, signed error; the measured time is the mean over the
# repetitions of each one's mean of iterations 1..39, the error predicted / measured - 1.
$py - "$model" "$work/model.out" <<'PY'
import glob, json, os, re, statistics, sys
model, out = sys.argv[1], open(sys.argv[2]).read()
rows = re.findall(r"^(\S.*?)\s+(\d+\.\d{3})s\s+(\d+\.\d{3})s\s+([+-]\d+\.\d)%", out, re.M)
measured = {}
for result in glob.glob(os.path.join(model, "experiments/*/*/rep-*/result.json")):
    r = json.load(open(result))
    if "config" not in r: continue  # a collectives sweep
    c = r["config"]
    key = (c["sync"], c["bucket_mb"] if c["sync"] in ("bucketed", "c10d_ddp") else None)
    measured.setdefault(key, []).append(statistics.fmean(r["iterations"]["total_s"][1:40]))
ok = len(rows) == len(measured) == 12
for label, m, p, e in rows:
    sync = label.split()[0].split("/")[0]
    mb = re.search(r" (\d+(\.\d+)?) MB", label)
    key = (sync, float(mb.group(1)) if mb else None)
    want = statistics.fmean(measured.get(key, [float("nan")]))
    good = abs(float(m) - want) < 6e-4 and abs(100 * (float(p) / float(m) - 1) - float(e)) < 0.1
    print(f"{'ok' if good else 'WRONG'}: {label}: measured {m} (raw samples {want:.4f}), error {e}%")
    ok = ok and good
sys.exit(0 if ok else 1)
PY
check "12 experiments, each measured from the raw samples, with its signed error" test $? -eq 0

"$dtbench" report "$model" -o "$work/report/group.pdf" >/dev/null 2>&1
check "the model matrix gives figure 19" test -s "$work/report/figures/fig19_model.pdf"
check "figure 19: the share within the target and the worst phase" \
  grep -Eq "The model is within 10.0% of the measured iteration time for [0-9]+ of 12 experiments" \
  "$work/report/report.md"
check "figure 19: bucketed against the best any bucket plan could reach, with and without the CPU" \
  grep -Eq "from the best any bucket plan could reach here \([0-9.]+ s: .* and the CPU of what is sent during backward; [+-][0-9.]+% from [0-9.]+ s without that CPU\)" \
  "$work/report/report.md"
check "the answer page: a bigger cluster from the compute measured here, the model's error beside" \
  grep -Eq "^\*\*A bigger cluster\*\* \(predicted by the cost model, not measured\)\. With the compute of vgg11 measured here.* at 1 Gbit/s is [a-z_0-9]+ at 16 ranks \([0-9]+% scaling efficiency\).*Measured here: up to 4 ranks; the model's error on the 12 runs it predicted here: [0-9.]+% on average, [0-9.]+% at most; validated up to 4 ranks on 4 hosts, where the model's error is [0-9.]+% on average" \
  "$work/report/report.md"
check "the answer page's what-if: 3 rates x 3 rank counts x every method, one fastest exact each" \
  python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cells = {(r["gbit"], r["ranks"]) for r in rows}
fastest = [r for r in rows if r["fastest"] in ("yes", "true", "1")]
sys.exit(not (len(cells) == 9 and len(fastest) == 9))' "$work/report/data/answer_what_if.csv"
check "the report links each experiment's trace" \
  test "$(grep -Ec "\): \[trace.json(.gz)?\]\(file://$model/experiments/.*/trace.json(.gz)?\)" "$work/report/report.md")" -eq "$(find "$model" -name 'trace.json*' | wc -l)"

"$dtbench" predict "$bottleneck" >"$work/bottleneck.out" 2>&1
code=$?
check "bottleneck: exit 0 ($code), labelled with its links" \
  grep -q "links 1gbit (host 3 at 100mbit)" "$work/bottleneck.out"
check "bottleneck: the ring's link is the 100 Mbit/s host's (under 12.5 MB/s)" \
  grep -Eq "mpi link: fitted to the mpi ring_allreduce sweep on 4 ranks .*, rate ([0-9]|1[0-2])\.[0-9] MB/s" \
  "$work/bottleneck.out"
check "bottleneck: 12 experiments with a signed error" \
  test "$(grep -Ec "s +[0-9]+\.[0-9]{3}s +[+-][0-9]+\.[0-9]%" "$work/bottleneck.out")" -eq 12

"$dtbench" predict "$swept" >"$work/swept.out" 2>&1
code=$?
check "iallreduce swept: exit 0 ($code), 16 experiments with a signed error" \
  test $code -eq 0 -a "$(grep -Ec "s +[0-9]+\.[0-9]{3}s +[+-][0-9]+\.[0-9]%" "$work/swept.out")" -eq 16
check "iallreduce swept: the four lossy methods predicted, each hook's buckets as its sweep measured" \
  test "$(grep -Ec "^(fp16|powersgd|topk|local_sgd) .*s +[0-9]+\.[0-9]{3}s +[+-][0-9]+\.[0-9]%" "$work/swept.out")" -eq 4 \
  -a "$(grep -Ec "^  (fp16|powersgd|topk): each bucket takes what the (fp16|powersgd|topk)_hook sweep measured \([0-9]+ sizes; compressing included\), and costs a machine [0-9.]+ s of CPU per 10 MB of bucket" "$work/swept.out")" -eq 3 \
  -a "$(grep -c "not modelled" "$work/swept.out")" -eq 0
"$dtbench" report "$swept" -o "$work/swept-report/group.pdf" >/dev/null 2>&1
check "iallreduce swept: figure 19 holds the exact methods to the target and names the lossy ones apart" \
  grep -Eq "for [0-9]+ of 12 experiments here \(the target on the emulated cluster, for the methods that send the exact sum\).*The lossy methods, stated apart from the target: fp16 [+-][0-9.]+% \([a-z]+ [+-][0-9.]+ s; its buckets as its hook's sweep measured, compressing included\)" \
  "$work/swept-report/report.md"
# The same results without the hooks' sweep: priced by what they send, and predict says the
# compressing is not modelled.
cp -rs "$(realpath "$swept")" "$work/no-hooks"
rm -rf "$work/no-hooks/experiments/collectives/"*hook*
"$dtbench" predict "$work/no-hooks" >"$work/no-hooks.out" 2>&1
check "without the hooks' sweep: the three hooks priced by what they send, compressing not modelled" \
  test "$(grep -Ec "^  (fp16|powersgd|topk): what it sends, on the link; the CPU time of compressing .* is not modelled without a sweep of its hook" "$work/no-hooks.out")" -eq 3 \
  -a "$(grep -Ec "^(fp16|powersgd|topk) .*s +[0-9]+\.[0-9]{3}s +[+-][0-9]+\.[0-9]%" "$work/no-hooks.out")" -eq 3
check "iallreduce swept: MPI's runs charged MPI's iallreduce CPU, Gloo's Gloo's" \
  test "$(grep -Ec "per 10 MB \(MPI's iallreduce sweep" "$work/swept.out")" -eq 1 \
  -a "$(grep -Ec "per 10 MB \(Gloo's iallreduce sweep" "$work/swept.out")" -eq 1

"$dtbench" predict "$hierarchical" >"$work/hierarchical.out" 2>&1
code=$?
grep "hierarchical" "$work/hierarchical.out"
check "hierarchical: exit 0 ($code), 2 ranks per host, the link within a host fitted to the sweep on one machine" \
  grep -Eq "^  hierarchical: 2 ranks per host; the link within a host: fitted to the mpi ring_allreduce sweep on 2 ranks of one machine \([0-9]+ sizes\): latency [0-9.]+ us, rate [0-9.]+ MB/s" \
  "$work/hierarchical.out"
check "hierarchical: the leaders' ring on the link of the ring's sweep on 2 ranks, one per host" \
  grep -Eq "; the leaders' ring: fitted to the mpi ring_allreduce sweep on 2 ranks, one per host \([0-9]+ sizes\)[^:;]*: latency [0-9.]+ us, rate [0-9.]+ MB/s$" \
  "$work/hierarchical.out"
# Without the leaders' sweep: their ring on the link of the sweep on all 4 ranks, as said.
cp -rs "$(realpath "$hierarchical")" "$work/no-leaders"
rm -rf "$work/no-leaders/experiments/collectives/"*ranks_per_host=1*
"$dtbench" predict "$work/no-leaders" >"$work/no-leaders.out" 2>&1
check "hierarchical without the leaders' sweep: the link of all 4 ranks, and said so" \
  grep -q "mpi link: fitted to the mpi ring_allreduce sweep on 4 ranks (.*; the leaders' ring on the link of all 4 ranks (no ring_allreduce sweep on 2 ranks, one per host)" \
  <(tr '\n' ' ' <"$work/no-leaders.out")
check "hierarchical: predicted, with a signed error, beside bucketed and the blocking ring" \
  test "$(grep -Ec "^(hierarchical|bucketed|ring_allreduce)[ /].*s +[0-9]+\.[0-9]{3}s +[+-][0-9]+\.[0-9]%" "$work/hierarchical.out")" -eq 3

"$dtbench" predict "$smoke" >"$work/smoke.out" 2>&1
check "no traces: exit 0 ($?) and said what is missing" \
  grep -q 'no trace of when their gradients are ready (run them with "trace": true)' "$work/smoke.out"
"$dtbench" predict "$work/nowhere" >/dev/null 2>"$work/n.err"
code=$?
check "missing directory: exit 2 ($code), one line" \
  test $code -eq 2 -a "$(wc -l <"$work/n.err")" -eq 1

# What-if: a model given as a parameter list, its compute given; VGG-11 with the compute
# measured in MODEL; labelled as predicted, with the figure; bad input is one line and exit 2.
"$dtbench" what-if --model resnet50 --forward-s 0.1 --backward-s 0.2 --ranks 64 \
  --gbit 10,100 -o "$work/what-if/resnet50.pdf" >"$work/w.out" 2>&1
code=$?
head -8 "$work/w.out"
check "what-if: exit 0 ($code), labelled as predicted" grep -q "PREDICTED by the cost model" "$work/w.out"
check "what-if: ResNet-50's 161 tensors and 102.2 MB" grep -q "resnet50: 161 parameter tensors, 102.2 MB" "$work/w.out"
check "what-if: 8 methods x 6 rank counts x 2 rates" \
  test "$(tail -n +2 "$work/what-if/resnet50.csv" | wc -l)" -eq 96
check "what-if: the figure" test -s "$work/what-if/resnet50.pdf"
"$dtbench" what-if --model vgg11 --profile "$model" --ranks 1024 --gbit 100 >"$work/v.out" 2>&1
check "what-if: VGG-11's compute measured in the results" \
  grep -q "compute measured in $model" "$work/v.out"
check "what-if: 1024 ranks" grep -Eq "^bucketed +1024 +100 " "$work/v.out"
# Validated where every run is 4 ranks on 4 hosts: its error there is dtbench predict's over all.
mean_error=$("$dtbench" predict "$model" | sed -n 's/^accuracy: over [0-9]* predicted experiments, mean |error| \([0-9.]*%\), largest \([0-9.]*%\).*/\1 on average, \2 at most/p')
check "what-if: validated up to the 4 hosts measured, with dtbench predict's error there ($mean_error)" \
  grep -q "validated in $model up to 4 ranks on 4 hosts, where the model's error is $mean_error ([0-9]* runs); past 4 ranks (dashed) extrapolated" "$work/v.out"
check "what-if: nothing measured, nothing validated" \
  grep -q "not validated: no measured results given (--profile)" "$work/w.out"
# ResNet-50 with VGG-11's measured compute scaled: forward and backward times the factor.
"$dtbench" what-if --model resnet50 --profile "$model" --compute-scale 25 --ranks 8 \
  --gbit 10 >"$work/s.out" 2>&1
check "what-if: compute scaled from VGG-11's measured" \
  grep -q "compute scaled from vgg11 measured in $model" "$work/s.out"
forward_of() { sed -n 's/.*compute per rank: forward \([0-9.]*\) s, backward \([0-9.]*\) s.*/\1 \2/p' "$1"; }
check "what-if: scaled forward and backward 25 x measured ($(forward_of "$work/s.out") against $(forward_of "$work/v.out"))" \
  awk -v s="$(forward_of "$work/s.out")" -v m="$(forward_of "$work/v.out")" 'BEGIN {
    split(s, a, " "); split(m, b, " ");
    exit !(b[1] > 0 && b[2] > 0 && (a[1] / b[1] - 25)^2 < 0.1 && (a[2] / b[2] - 25)^2 < 0.1) }'
"$dtbench" what-if --model resnet50 --profile "$model" --compute-scale 2 \
  --scale-from lenet5 >/dev/null 2>"$work/f.err"
code=$?
check "what-if: nothing measured to scale: exit 2 ($code), one line: $(cat "$work/f.err")" \
  test $code -eq 2 -a "$(wc -l <"$work/f.err")" -eq 1
"$dtbench" what-if --model resnet50 --profile "$model" --compute-scale -1 >/dev/null 2>"$work/g.err"
check "what-if: a negative scale: one line ($(cat "$work/g.err"))" grep -q "is not > 0" "$work/g.err"
"$dtbench" what-if --model nosuch >/dev/null 2>"$work/m.err"
code=$?
check "what-if: unknown model: exit 2 ($code), one line: $(cat "$work/m.err")" \
  test $code -eq 2 -a "$(wc -l <"$work/m.err")" -eq 1
"$dtbench" what-if --model resnet50 >/dev/null 2>"$work/c.err"
check "what-if: no compute for ResNet-50: one line ($(cat "$work/c.err"))" \
  grep -q "no compute for resnet50: give --profile" "$work/c.err"
# Collectives only (the committed cases directory): no training run, said so, exit 0.
cases="$(dirname "$0")/../results/reference/cases-netns-4-bottleneck-epyc-vm"
"$dtbench" predict "$cases" >"$work/cases.out" 2>&1
code=$?
check "sweeps only: exit 0 ($code), what is missing said: $(tail -1 "$work/cases.out")" \
  grep -Eq "no experiment could be predicted: no training run here, only [0-9]+ sizes of collectives swept" \
  "$work/cases.out"
test $code -eq 0 || { echo "FAILED: sweeps only: exit $code"; status=1; }
exit $status
