#!/usr/bin/env bash
# `dtbench report` on committed results of real smoke runs, two systems: LOCAL, a smoke run
# with 2 repetitions, the noise guard and Python DDP on hosts/local (tests/fixtures/results/), and
# NETNS, an older smoke run on the emulated cluster without them (tests/fixtures/results/): every
# section is in the PDF's text, the CSVs hold the statistics recomputed here from the raw
# samples, older results still read, two systems give the comparison, a corrupt result is
# named and skipped, no results (or a folder of results directories) is one line and exit 2. OVERLAP, the overlap matrix on the
# emulated cluster (tests/fixtures/results/), gives figure 15 on its own; COMPRESSION, the compression
# matrix on hosts/local (tests/fixtures/results/), gives figures 17 and 18; HIERARCHICAL, the
# hierarchical matrix on the emulated cluster with 2 ranks per host, the bytes leaving each host;
# COMPRESSION_EPOCHS, the compression-epochs matrix (VGG-11 over epochs; at 100 Mbit/s, where
# PowerSGD gets to its final accuracy before float32), with COMPRESSION's LeNet-5 runs in one
# directory, figure 18 with a row per model; DIAGNOSIS, the diagnosis matrix on the emulated
# cluster with host 2 at 100 Mbit/s (a fixture), its Diagnosis naming the slowed rank
# from the traces and that host from every run's start-up probe; STUDY, the study on that
# cluster (a fixture), its answer page naming that host beside the cells it verified.
#   usage: report_test.sh DTBENCH LOCAL NETNS OVERLAP COMPRESSION HIERARCHICAL COMPRESSION_EPOCHS
#          DIAGNOSIS STUDY
set -uo pipefail
dtbench=$1 local=$2 netns=$3 overlap=$4 compression=$5 hierarchical=$6 compression_epochs=$7
diagnosis=$8 study=$9
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3

"$dtbench" report "$local" "$netns" -o "$work/both/group.pdf" \
  >"$work/both.out" 2>&1
code=$?
cat "$work/both.out"
check "two systems: exit 0 ($code)" test $code -eq 0
check "report.md kept beside the PDF" test -s "$work/both/report.md"
pdftotext -layout "$work/both/group.pdf" "$work/both.txt"
for section in "1. Iteration time per synchronisation method" "2. Where the iteration goes" \
  "3. Collectives alone" "4. Bytes moved per node" "5. CPU and memory" "6. Bucket size" \
  "7. Loss and accuracy per method" "8. Global batch size" "9. Epochs" \
  "10. Blocking, overlap, stale" "11. Mean vs sum" "12. A bottleneck node" \
  "13. Scaling with the number of ranks" "14. Memory allocator" "15. Overlap engines on one network" "16. Across systems" \
  "17. Sending less: time and bytes" "18. Sending less: accuracy and time to accuracy" "19. Model vs measurement" "Systems" \
  "Method" "Measurement conditions"; do
  check "section: $section" grep -q "$section" "$work/both.txt"
done
check "both systems described" grep -q "S2: vm" "$work/both.txt"
check "a result built with uncommitted changes is flagged" \
  grep -q "built with uncommitted changes" "$work/both/report.md"
check "figure 16: each method's rank on its system" \
  grep -q "^system,measure,mean,ratio_to_first,rank$" "$work/both/data/fig16_cross_hardware.csv"
check "figure 16: whether the other system ranks the methods alike" \
  grep -Eq "S2 ranks the methods (as S1 does|differently from S1)|rankings are not compared" \
  "$work/both/report.md"
check "figure 16: Kendall's tau-b over the methods both systems ran" \
  grep -Eq "Kendall's tau-b over the [0-9]+ methods both ran -?[01]\.[0-9]{2}" "$work/both/report.md"
"$dtbench" report "$local" "$(dirname "$0")/fixtures/results/model-netns-4-1gbit-xeon-vm" \
  -o "$work/models/group.pdf" >/dev/null 2>&1
check "figure 16: the model both systems ran (VGG-11), though one ran LeNet-5 most" \
  python3 - "$work/models/data/fig16_cross_hardware.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["measure"].startswith("vgg11 ") for r in rows), rows
assert {r["system"] for r in rows} == {"S1", "S2"}, rows
PY
"$dtbench" report "$(dirname "$0")/fixtures/results/model-netns-4-1gbit-xeon-vm" \
  -o "$work/model/group.pdf" >/dev/null 2>&1
check "figure 1: a backend with one method says so, without ranking it against itself" \
  grep -q "Over gloo, only c10d_ddp/gloo ran ([0-9.]* s per iteration): nothing to rank it against." \
  "$work/model/report.md"
check "every section measured but the overlap engines, compression, the model and its extrapolation (not in smoke)" \
  test "$(grep -c "Not measured" "$work/both.txt")" -eq 5 -a \
       "$(grep -A8 "15. Overlap engines" "$work/both.txt" | grep -c "Not measured")" -eq 1
check "16 figures: every section's but those not measured in smoke" \
  test "$(ls "$work/both/figures" | wc -l)" -eq 16
check "a diagnosis per system" test "$(grep -c "^## S[12] (" "$work/both/report.md")" -eq 2
for part in Ranks Stragglers "Links between hosts" Overlap "Link efficiency" "The model"; do
  check "diagnosis: $part, for both systems" test "$(grep -c "^\*\*$part\.\*\*" "$work/both/report.md")" -eq 2
done
"$dtbench" report "$study" -o "$work/study/group.pdf" >/dev/null 2>&1
check "the study on the emulated cluster: its answer page names the host at 100 Mbit/s" \
  grep -q "^\*\*The diagnosis\*\* (below)\. .* dtb-n2 is slow in 23 of 23 probed runs" \
  "$work/study/report.md"
check "and compares the VGG-11 cell it verified with its prediction" \
  grep -q "sync=c10d_ddp,trace=true\` 5.924 s against 5.094 s predicted (-14.0%)" \
  "$work/study/report.md"
"$dtbench" report "$diagnosis" -o "$work/diagnosis/group.pdf" >/dev/null 2>&1
check "the answer page opens the report, its straggler from the diagnosis" \
  grep -q "^\*\*The diagnosis\*\* (below). allreduce (bottleneck_compute, rank 2 slowed by 50 ms): rank 2 computed longest" \
  "$work/diagnosis/report.md"
check "the answer page: the fastest method, from section 1 and its CSV" \
  grep -q "^\*\*The fastest method here.\*\* .*(Section 1, \`data/fig01_iteration_time.csv\`.)" \
  "$work/diagnosis/report.md"
check "the answer page: what these results do not measure, said" \
  grep -q "^\*\*The bucket size.\*\* These results do not measure it (measured by: " \
  "$work/diagnosis/report.md"
check "the answer page: a bigger cluster without a measured compute, said" \
  grep -q "^\*\*A bigger cluster\*\* (predicted by the cost model, not measured). These results have no traced" \
  "$work/both/report.md"
check "the answer page comes first" \
  test "$(grep -m1 -n '^# ' "$work/diagnosis/report.md" | cut -d: -f2)" == "# The answer"
check "diagnosis: the slowed rank from the traces" grep -q \
  "rank 2 slowed by 50 ms): rank 2 computed longest in 39 of 39 iterations" "$work/diagnosis/report.md"
check "diagnosis: the clocks aligned by start-up offsets" \
  grep -q "clocks were aligned with rank 0's to within [0-9.]* ms at worst (offsets measured" \
  "$work/diagnosis/report.md"
check "diagnosis: the host at 100 Mbit/s named by every run's probe" \
  grep -q "dtb-n2 is slow in 5 of 5 probed runs" "$work/diagnosis/report.md"
check "diagnosis: the link efficiency against the capped rate" \
  grep -q "of the emulated cluster's 1gbit, host 2 at 100mbit" "$work/diagnosis/report.md"
check "section 20 says which rank is slowest" grep -q "is the slowest by its median in" "$work/both/report.md"
"$dtbench" report "$overlap" -o "$work/overlap/group.pdf" >/dev/null 2>&1
pdftotext -layout "$work/overlap/group.pdf" "$work/overlap.txt"
check "the overlap matrix gives figure 15" test -s "$work/overlap/figures/fig15_overlap.pdf"
check "figure 15: four engines and Python DDP" \
  test "$(tail -n +2 "$work/overlap/data/fig15_overlap.csv" | wc -l)" -eq 5
check "figure 15: overlap mode named where it is not the default" \
  grep -q "^allreduce (overlap),gloo," "$work/overlap/data/fig15_overlap.csv"
check "figure 15: exposed sync of each engine" grep -q "Exposed synchronisation after backward" "$work/overlap/report.md"
"$dtbench" report "$netns" -o "$work/netns/group.pdf" >/dev/null 2>&1
check "the emulated cluster's results give the link bottleneck" grep -q "link_mbit" "$work/netns/data/fig12_bottleneck.csv"
check "Python DDP beside the methods" grep -q "Python DDP (torch" "$work/both.txt"
check "Python's missing MPI backend said" grep -q "has no MPI backend" "$work/both.txt"
check "rankings judged against the noise" grep -Eq "stands out of the noise|within the noise" "$work/both.txt"
check "conditions of every repetition listed" grep -q "repetitions ran on a noisy machine" "$work/both.txt"
check "older results without conditions said so" grep -q "before the harness recorded foreign load" "$work/both.txt"
check "page faults per setting" grep -q "faulted in" "$work/both.txt"

# The CSV's statistics against the raw samples, recomputed independently here: per repetition
# the mean of iterations 1..39, then the median and range over repetitions, the within-run 95%
# interval with one repetition, and the ratio to Python DDP as the median of per-round ratios.
$py - "$work/both/data" "$local" "$netns" <<'PY'
import csv, glob, json, math, os, statistics, sys
data, systems = sys.argv[1], sys.argv[2:]
T975 = {38: 2.0243941639119702}
def window(v): return v[1:40]
def close(a, b, tol=1e-12): return math.isclose(float(a), b, rel_tol=tol)
rows = list(csv.DictReader(open(os.path.join(data, "fig01_iteration_time.csv"))))
checked = 0
for system in systems:
    runs = {}  # (sync, backend) -> {repetition: samples}
    for status in glob.glob(os.path.join(system, "experiments/sync_methods/**/status.json"), recursive=True):
        s = json.load(open(status))
        r = json.load(open(status.replace("status.json", "result.json")))
        if r["config"]["model"] != "lenet5": continue
        key = (r["config"]["sync"], r["config"]["backend"])
        runs.setdefault(key, {})[s.get("repeat", 1)] = window(r["iterations"]["total_s"])
    ok = all((row["method"], row["backend"]) in runs for row in rows)
    for row in rows if ok else []:
        reps = runs[(row["method"], row["backend"])]
        means = {k: statistics.fmean(v) for k, v in reps.items()}
        ok = ok and int(row["reps"]) == len(means)
        ok = ok and close(row["median_s"], statistics.median(means.values()))
        ok = ok and close(row["rep_min_s"], min(means.values())) and close(row["rep_max_s"], max(means.values()))
        if len(reps) == 1:
            v = next(iter(reps.values()))
            half = T975[len(v) - 1] * statistics.stdev(v) / math.sqrt(len(v))
            # dtbench's t quantile is a Cornish-Fisher expansion, documented to 1e-4 for df > 10.
            ok = ok and close(float(row["high_s"]) - statistics.fmean(v), half, 1e-4)
        python = runs.get(("python_ddp", "gloo"))
        if python and row["vs_python_ddp"]:
            py_means = {k: statistics.fmean(v) for k, v in python.items()}
            ratios = [means[k] / py_means[k] for k in means if k in py_means]
            ok = ok and close(row["vs_python_ddp"], statistics.median(ratios))
    if ok:
        checked = len(rows)
        print(f"fig01 ({system}): {checked} rows equal to the statistics of the raw samples")
        break
sys.exit(0 if checked == len(rows) and checked > 0 else 1)
PY
check "fig01 CSV = statistics recomputed from the raw samples" test $? -eq 0

"$dtbench" report "$compression" -o "$work/compression/group.pdf" >/dev/null 2>&1
check "the compression matrix gives figures 17 and 18" \
  test -s "$work/compression/figures/fig17_compression.pdf" -a \
       -s "$work/compression/figures/fig18_compression_accuracy.pdf"
check "figure 17: five methods, the payload of each against float32's" \
  test "$(tail -n +2 "$work/compression/data/fig17_compression.csv" | wc -l)" -eq 5
check "figure 17: fp16 hands over half of float32's payload" \
  grep -Eq '^fp16,([^,]*,){6}0\.5(,|$)' "$work/compression/data/fig17_compression.csv"
check "figure 18: a target accuracy, the time to it, who got there first" \
  grep -q "got there first" "$work/compression/report.md"

mkdir -p "$work/two-models"
cp -r "$compression/experiments" "$compression/system.json" "$compression/run.json" "$work/two-models/"
cp -r "$compression_epochs/experiments/compression_epochs" "$work/two-models/experiments/"
"$dtbench" report "$work/two-models" -o "$work/two-models/group.pdf" >/dev/null 2>&1
check "figure 18 with LeNet-5 and VGG-11 runs over epochs: a row of each, a target for each" \
  test "$(grep -cE '^(lenet5|vgg11),' "$work/two-models/data/fig18_compression_accuracy.csv")" \
  -eq 10 -a "$(grep -oE '(lenet5|vgg11): target' "$work/two-models/report.md" | sort -u | wc -l)" \
  -eq 2
check "figure 18: when each method first had its final accuracy, against float32, with a verdict" \
  grep -Eq "powersgd 20\.0% at [0-9.,]+ s against bucketed's [0-9.,]+ s \(epoch 5, below it at [0-9.,]+ s\): sooner" \
  "$work/two-models/report.md"

"$dtbench" report "$hierarchical" -o "$work/hierarchical/group.pdf" >/dev/null 2>&1
check "figure 17 on 2 hosts of 2 ranks: hierarchical's bytes leaving each host, from the NICs" \
  grep -Eq "hierarchical \([^)]*x the bytes leaving each host\)" "$work/hierarchical/report.md"

# One system: no comparison, and said so.
"$dtbench" report "$local" -o "$work/one/group.pdf" >/dev/null 2>&1
check "one system: exit 0" test $? -eq 0
pdftotext "$work/one/group.pdf" "$work/one.txt"
check "one system: section 15 not measured" grep -q "Not measured in these results (measured by: any matrix" "$work/one.txt"

# Captions and sentences follow the data: who was slow comes from the runs, and "ranks that share
# the same cores" is said of one machine only (the same results, told they ran on four hosts).
# ($netns's report is the one made above.)
check "the bottleneck caption names the slow rank and the shaped host" \
  grep -q "rank 3 doing extra work each iteration (compute, ms), or host 3's link" "$work/netns/report.md"
check "one machine: shared cores said" grep -q "ranks that share the same cores" "$work/one/report.md"
cp -r "$local" "$work/cluster"
"$py" - "$work/cluster/system.json" <<'PY'
import json, sys
path = sys.argv[1]
system = json.load(open(path))
system["hosts"] = [{"name": f"node{k}", "slots": 1} for k in range(4)]
json.dump(system, open(path, "w"))
PY
"$dtbench" report "$work/cluster" -o "$work/cluster-report/group.pdf" >/dev/null 2>&1
check "a real cluster: report built" test -s "$work/cluster-report/report.md"
check "a real cluster: no shared cores claimed" \
  test "$(grep -c "share the same cores" "$work/cluster-report/report.md")" -eq 0

# The same results on another software stack (as Debian 13's would record it): two systems, and
# section 16 says that its ratios measure the stack.
cp -r "$local" "$work/stack"
"$py" - "$work/stack/system.json" <<'PY'
import json, sys
path = sys.argv[1]
system = json.load(open(path))
system["stack"] = {"distribution": "Debian GNU/Linux 13 (trixie)", "compiler": "g++ 14.2.0",
                   "libtorch": "2.6.0+dfsg-7", "mpi": "Open MPI 5.0.7", "gloo": "0.0~git-3",
                   "python_torch": "2.6.0+dfsg-7"}
json.dump(system, open(path, "w"))
PY
# ... whose runs held oneDNN to its AVX2 kernels, as its record says (system.cpu_kernels).
"$py" - "$work/stack" <<'PY'
import json, pathlib, sys
for path in pathlib.Path(sys.argv[1]).glob("experiments/**/result.json"):
    record = json.load(open(path))
    if "system" not in record:
        continue  # a collectives sweep: Google Benchmark's own record
    record["system"]["cpu_kernels"] = "environment (ONEDNN_MAX_CPU_ISA=AVX2)"
    json.dump(record, open(path, "w"))
PY
"$dtbench" report "$local" "$work/stack" -o "$work/stacks/group.pdf" >/dev/null 2>&1
check "another stack: two systems" grep -q "^### S2: " "$work/stacks/report.md"
check "another stack: its runs' oneDNN kernels in its system table" grep -q \
  "^| CPU kernels | environment (ONEDNN_MAX_CPU_ISA=AVX2) |$" "$work/stacks/report.md"
check "records without the kernels said so" grep -q "^| CPU kernels | not recorded |$" \
  "$work/stacks/report.md"
check "another stack: section 16 says the ratios measure the stack" grep -q \
  "S2 has S1's hardware (.*) and another software stack, libtorch 2.6.0, Open MPI 5.0.7 against S1's libtorch 1.13.1, Open MPI 4.1.4: its ratios measure the stack and oneDNN's kernels (S2's runs: environment (ONEDNN_MAX_CPU_ISA=AVX2); S1's: not recorded)" \
  "$work/stacks/report.md"

# A corrupt result is named and skipped.
cp -r "$local" "$work/corrupt"
victim=$(kept "$work/corrupt/experiments/sync_methods" result.json -print -quit)
head -c 300 "$victim" >"$victim.cut" && mv "$victim.cut" "$victim"
"$dtbench" report "$work/corrupt" -o "$work/c/group.pdf" >"$work/c.out" 2>"$work/c.err"
check "corrupt: exit 0 ($?)" true
check "corrupt: named on stderr" grep -q "skipped $victim: not valid JSON" "$work/c.err"
pdftotext "$work/c/group.pdf" "$work/c.txt"
check "corrupt: listed in the report" grep -q "not valid JSON" "$work/c.txt"

# No experiments: one line, exit 2.
mkdir -p "$work/empty/experiments"
cp "$local/run.json" "$local/system.json" "$work/empty/"
"$dtbench" report "$work/empty" -o "$work/e/group.pdf" >/dev/null 2>"$work/e.err"
code=$?
check "no experiments: exit 2 ($code): $(cat "$work/e.err")" test $code -eq 2 -a "$(wc -l <"$work/e.err")" -eq 1
grep -q "no finished experiments in" "$work/e.err" || { echo "FAILED: no-experiments message"; status=1; }
"$dtbench" report "$work/nowhere" -o "$work/e/group.pdf" >/dev/null 2>"$work/n.err"
check "missing directory: exit 2 ($?)" grep -q "results directory $work/nowhere does not exist" "$work/n.err"
# A folder that holds no results at all (empty, or only an empty experiments/): one line, exit 2.
mkdir -p "$work/bare/experiments"
"$dtbench" report "$work/bare" -o "$work/b/group.pdf" >/dev/null 2>"$work/b.err"
code=$?
check "a folder without results: exit 2 ($code), one line: $(cat "$work/b.err")" \
  test $code -eq 2 -a "$(wc -l <"$work/b.err")" -eq 1
grep -q "$work/bare holds no results (no run.json)" "$work/b.err" || { echo "FAILED: bare message"; status=1; }
# A folder of results directories (as results/reference/) is not read as one run: one line
# naming what it holds, exit 2, no report.
archive=$(dirname "$local")
"$dtbench" report "$archive" -o "$work/a/group.pdf" >/dev/null 2>"$work/a.err"
code=$?
check "an archive folder: exit 2 ($code), one line: $(cat "$work/a.err")" \
  test $code -eq 2 -a "$(wc -l <"$work/a.err")" -eq 1 -a ! -e "$work/a/group.pdf"
check "an archive folder: the directories inside named" \
  grep -q "$archive is not a results directory but holds [0-9]*: .*e.g. $archive/" "$work/a.err"
# Collectives only, swept up to 1 MiB over two rounds (the committed cases directory): figure 3
# is drawn, its table at the largest size swept (not "not measured"), one point per operation,
# backend and size in its sweep, the mean of the rounds, and no ring bound without an allreduce.
cases="$(dirname "$0")/../results/reference/cases-netns-4-bottleneck-epyc-vm"
"$dtbench" report "$cases" -o "$work/cases/group.pdf" >"$work/cases.out" 2>&1
check "collectives only: figure 3 drawn ($(cat "$work/cases.out"))" \
  grep -q "^!\[Collectives on 4 ranks: time per operation (slowest rank) and bus bandwidth vs message size\]" \
  "$work/cases/report.md"
check "collectives only: its table at 1 MiB" grep -q "| allgather | mpi | 1 MiB |" "$work/cases/report.md"
check "collectives only: each point the mean of its rounds" \
  python3 - "$cases" "$work/cases/data/fig03_collectives_sweep.csv" <<'PY'
import csv, glob, gzip, json, sys
times = {}
for f in glob.glob(sys.argv[1] + "/experiments/*/*/rep-*/result.json.gz"):
    for b in json.load(gzip.open(f))["benchmarks"]:
        if "case:" in b["name"]:
            continue
        key = (b["name"].split("/")[0], b["name"].split("/")[1].split(":")[1], int(b["bytes"]))
        times.setdefault(key, []).append(b["real_time"])
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == len(times) == 6, (len(rows), len(times))
for r in rows:
    want = times[(r["op"], r["backend"], int(r["bytes"]))]
    assert len(want) == 2, want
    assert abs(float(r["time_us"]) - sum(want) / 2) < 1e-6 * sum(want), (r, want)
PY

# An output that cannot be written: one line naming it, exit 2, before any work.
"$dtbench" report "$local" -o /proc/dtbench-none/group.pdf >/dev/null 2>"$work/w.err"
code=$?
check "an unwritable output: exit 2 ($code), one line: $(cat "$work/w.err")" \
  test $code -eq 2 -a "$(wc -l <"$work/w.err")" -eq 1
grep -q "cannot write /proc/dtbench-none/group.pdf: " "$work/w.err" || { echo "FAILED: unwritable message"; status=1; }
exit $status
