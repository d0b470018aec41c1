#!/usr/bin/env bash
# A study held against its grid, on committed results (STUDY: the study on the emulated
# cluster; GRID: quick-answer measured after it on the same machine): dtbench predict --grid
# predicts each of the grid's experiments from the study alone; each row's measured time is
# recomputed here from the grid's raw samples, its error from the two times, and Kendall's tau-b
# over the methods and over every cell from the rows and the grid's repetitions (a pair tied
# where their ranges overlap); a method the study measured itself is predicted on the compute
# `dtbench predict STUDY` gives it; a study of another model, on another system, predicts nothing
# of the grid, and says why and that the systems differ.
#   usage: against_grid_test.sh DTBENCH STUDY GRID OTHER_STUDY
set -uo pipefail
dtbench=$1 study=$2 grid=$3 other=$4
source "$(dirname "$0")/check.sh"
py=/usr/bin/python3

"$dtbench" predict "$study" --grid "$grid" >"$work/grid.out" 2>&1
code=$?
cat "$work/grid.out"
check "predict --grid: exit 0 ($code)" test $code -eq 0
check "Python DDP named as not predicted" grep -q "^not predicted: python_ddp" "$work/grid.out"
check "one system: no warning" bash -c "! grep -q '^warning' '$work/grid.out'"

$py - "$grid" "$work/grid.out" <<'PY'
import glob, gzip, json, os, re, statistics, sys
grid, out = sys.argv[1], open(sys.argv[2]).read()
rows = re.findall(r"^(\S.*?)\s+(\d+)\s+(\d+\.\d{4})-(\d+\.\d{4})\s+(\d+\.\d{4})s\s+(\d+\.\d{4})s\s+([+-]\d+\.\d)%$", out, re.M)
reps = {}  # (sync, backend, bucket_mb) -> each repetition's mean of iterations 1..39
for result in glob.glob(os.path.join(grid, "experiments/*/*/rep-*/result.json*")):
    r = json.load(gzip.open(result) if result.endswith(".gz") else open(result))
    if r["config"]["sync"] == "python_ddp": continue  # not modelled
    c = r["config"]
    key = (c["sync"], c["backend"], c["bucket_mb"] if c["sync"] in ("bucketed",) else 25)
    reps.setdefault(key, []).append(statistics.fmean(r["iterations"]["total_s"][1:40]))
def key_of(label):
    words = label.split()
    parts = words[0].split("/")
    mb = float(words[1]) if len(words) > 2 and words[2] == "MB" else 25
    return (parts[0], parts[1] if len(parts) > 1 else "mpi", mb)
print(f"{len(rows)} rows, {len(reps)} experiments of the grid with a record")
ok = len(rows) == len(reps) == 12
table = []
for label, n, lo, hi, m, p, e in rows:
    times = reps.get(key_of(label), [float("nan")])
    want = statistics.fmean(times)
    ranged = int(n) == len(times) and abs(float(lo) - min(times)) < 6e-5 \
        and abs(float(hi) - max(times)) < 6e-5
    slack = 100 * 5e-5 * (1 + float(p) / float(m)) / float(m) + 0.1
    good = ranged and abs(float(m) - want) < 6e-5 and abs(100 * (float(p) / float(m) - 1) - float(e)) < slack
    print(f"{'ok' if good else 'WRONG'}: {label}: {n} reps {lo}-{hi}, measured {m} (raw samples "
          f"{want:.4f}, {min(times):.4f}-{max(times):.4f}), error {e}%")
    ok = ok and good
    table.append((key_of(label), float(m), float(p), min(times), max(times)))
def tau_b(cells):  # pairs tied on either side left out, each side's ties in the denominator
    pairs = conc = disc = tm = tp = 0
    for i in range(len(cells)):
        for j in range(i + 1, len(cells)):
            a, b = cells[i], cells[j]
            pairs += 1
            tied_m = not (a[4] < b[3] or b[4] < a[3]) or a[1] == b[1]
            tied_p = a[2] == b[2]
            tm += tied_m; tp += tied_p
            if tied_m or tied_p: continue
            if (a[1] < b[1]) == (a[2] < b[2]): conc += 1
            else: disc += 1
    return (conc - disc) / ((pairs - tm) * (pairs - tp)) ** 0.5
printed = [float(x) for x in re.findall(r"Kendall's tau-b between the measured and the predicted order (-?\d\.\d\d)", out)]
methods = [c for c in table if c[0][2] == 25]
want = [round(tau_b(methods), 2), round(tau_b(table), 2)]
print(f"tau-b printed {printed}, from the rows and the grid's ranges {want}; methods {len(methods)}")
ok = ok and len(methods) == 8 and printed == want
within = sum(abs(c[2] / c[1] - 1) <= 0.10 for c in table)
print(f"within 10%: {within}")
ok = ok and f"within 10% of the grid: {within} of 12 predictions" in out
sys.exit(0 if ok else 1)
PY
check "12 cells, each measured (mean, range) from the grid's raw samples, its error, tau-b, within 10%" \
  test $? -eq 0

"$dtbench" predict "$study" >"$work/own.out" 2>&1
# A VGG-11 cell the study's verify phase measured, bucketed at its default: the grid's is
# predicted from the same compute as the study's own run (forward, optimizer; backward differs
# with the bucket plan, recorded by the run, planned for the cell), and the wait for its slowest
# rank from the traces of the study's bucketed runs, of which the study's own prediction leaves
# out its own (model.md).
check "bucketed 25 MB: the grid's cell and the study's own run on the same compute" \
  $py - "$work/grid.out" "$work/own.out" <<'PY'
import re, sys
def phases(path):  # VGG-11's (the study's LeNet-5 runs have one too, far shorter)
    found = re.findall(r"^bucketed 25 MB\s+(\d+\.\d{3})s.*forward \S+/(\S+)\s+backward \S+/(\S+)\s+"
                       r"sync \S+/(\S+)\s+optimizer \S+/(\S+)", open(path).read(), re.M)
    return max(found, key=lambda f: float(f[0]))[1:] if found else None
a, b = phases(sys.argv[1]), phases(sys.argv[2])
print(f"predicted forward, backward, sync, optimizer: against the grid {a}, its own run {b}")
sys.exit(0 if a and b and (a[0], a[3]) == (b[0], b[3]) else 1)
PY
check "  ... the study's own names the runs its wait comes from" \
  grep -q "overlapping its communication, the slowest rank ends its compute .* traced bucketed runs at [0-9, ]* MB)" \
  "$work/own.out"

"$dtbench" predict "$other" --grid "$grid" >"$work/other.out" 2>&1
code=$?
cat "$work/other.out"
check "a study of another model: exit 0 ($code), nothing predicted and why" \
  grep -q "no experiment of the grid is predicted from the study" "$work/other.out"
check "  ... each cell names what is missing" grep -q "^not predicted: allreduce.*no run of vgg11" \
  "$work/other.out"
check "  ... and that the two were measured on different systems" \
  grep -q "^warning: measured on different systems (the study: .*netns-8.*; the grid: .*netns-4" \
  "$work/other.out"
"$dtbench" predict "$study" --grid "$work/none" >"$work/none.out" 2>&1
code=$?
check "a grid that does not exist: one line, exit non-zero ($code)" \
  test $code -ne 0 -a "$(wc -l <"$work/none.out")" -eq 1
exit $status
