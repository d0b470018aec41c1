#!/usr/bin/env bash
# `dtbench report` on committed results of real smoke runs (tests/fixtures/results: one on
# hosts/local, one on the emulated cluster, i.e. two systems): every section is in the PDF's
# text, the CSVs hold the statistics recomputed here from the raw samples, two systems give
# the comparison, a corrupt result is named and skipped, no results is one line and exit 2.
#   usage: report_test.sh DTBENCH FIXTURES
set -uo pipefail
dtbench=$1 fixtures=$2
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3

"$dtbench" report "$fixtures/smoke-local" "$fixtures/smoke-netns" -o "$work/both/group.pdf" \
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
  "13. Scaling with the number of ranks" "14. Across systems" "Systems" "Method"; do
  check "section: $section" grep -q "$section" "$work/both.txt"
done
check "both systems described" grep -q "S2: vm" "$work/both.txt"
check "every section measured" test "$(grep -c "Not measured" "$work/both.txt")" -eq 0
check "14 figures" test "$(ls "$work/both/figures" | wc -l)" -eq 14
check "the link bottleneck came from the emulated cluster" grep -q "link_mbit" "$work/both/data/fig12_bottleneck.csv"

# The CSV's statistics against the raw samples, recomputed independently here.
$py - "$work/both/data" "$fixtures" <<'PY'
import csv, glob, json, math, os, statistics, sys
data, fixtures = sys.argv[1], sys.argv[2]
T975 = {38: 2.0243941639119702}
def window(v): return v[1:40]
problems, checked = [], 0
rows = list(csv.DictReader(open(os.path.join(data, "fig01_iteration_time.csv"))))
for system in ("smoke-local", "smoke-netns"):
    ok = True
    for row in rows:
        found = None
        for status in glob.glob(os.path.join(fixtures, system, "experiments/sync_methods/*/status.json")):
            e = json.load(open(status))["experiment"]
            r = json.load(open(status.replace("status.json", "result.json")))
            if r["config"]["model"] == "lenet5" and r["config"]["sync"] == row["method"] and r["config"]["backend"] == row["backend"]:
                found = r
        if found is None: ok = False; break
        v = window(found["iterations"]["total_s"])
        mean = statistics.fmean(v)
        half = T975[len(v) - 1] * statistics.stdev(v) / math.sqrt(len(v))
        for key, want in (("mean_s", mean), ("median_s", statistics.median(v))):
            ok = ok and math.isclose(float(row[key]), want, rel_tol=1e-12)
        # dtbench's t quantile is a Cornish-Fisher expansion, documented to 1e-4 for df > 10.
        for key, sign in (("ci95_low_s", -1), ("ci95_high_s", 1)):
            ok = ok and math.isclose(sign * (float(row[key]) - mean), half, rel_tol=1e-4)
    if ok:
        checked += len(rows)
        break
print(f"fig01: {checked} rows equal to the statistics of the raw samples")
sys.exit(0 if checked == len(rows) and checked > 0 else 1)
PY
check "fig01 CSV = statistics recomputed from the raw samples" test $? -eq 0

# One system: no comparison, and said so.
"$dtbench" report "$fixtures/smoke-local" -o "$work/one/group.pdf" >/dev/null 2>&1
check "one system: exit 0" test $? -eq 0
pdftotext "$work/one/group.pdf" "$work/one.txt"
check "one system: section 14 not measured" grep -q "Not measured in these results (measured by: any matrix" "$work/one.txt"

# A corrupt result is named and skipped.
cp -r "$fixtures/smoke-local" "$work/corrupt"
victim=$(find "$work/corrupt/experiments/sync_methods" -name result.json | head -1)
head -c 300 "$victim" >"$victim.cut" && mv "$victim.cut" "$victim"
"$dtbench" report "$work/corrupt" -o "$work/c/group.pdf" >"$work/c.out" 2>"$work/c.err"
check "corrupt: exit 0 ($?)" true
check "corrupt: named on stderr" grep -q "skipped $victim: not valid JSON" "$work/c.err"
pdftotext "$work/c/group.pdf" "$work/c.txt"
check "corrupt: listed in the report" grep -q "not valid JSON" "$work/c.txt"

# No experiments: one line, exit 2.
mkdir -p "$work/empty/experiments"
cp "$fixtures/smoke-local/run.json" "$fixtures/smoke-local/system.json" "$work/empty/"
"$dtbench" report "$work/empty" -o "$work/e/group.pdf" >/dev/null 2>"$work/e.err"
code=$?
check "no experiments: exit 2 ($code): $(cat "$work/e.err")" test $code -eq 2 -a "$(wc -l <"$work/e.err")" -eq 1
grep -q "no finished experiments in" "$work/e.err" || { echo "FAILED: no-experiments message"; status=1; }
"$dtbench" report "$work/nowhere" -o "$work/e/group.pdf" >/dev/null 2>"$work/n.err"
check "missing directory: exit 2 ($?)" grep -q "results directory $work/nowhere does not exist" "$work/n.err"
exit $status
