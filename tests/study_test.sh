#!/usr/bin/env bash
# A study (docs/harness.md, "The study"): phases in turn within a budget. A budget too small is
# a one-line error before anything runs; a study runs calibrate, measure, accuracy and verify in
# that order, writes verify.json with the model's prediction of every cell (the predicted
# fastest first), never starts a cell whose estimate would end past the budget, and a rerun
# resumes, counting what earlier runs spent. The only blocking run before verify is calibrate's,
# without synchronisation: the compute the cells are predicted from, whatever the network. What holds on any machine is asserted: the order
# of the phases and of the cells, not their times.
#   usage: study_test.sh DTBENCH MAKE_FIXTURE
set -uo pipefail
dtbench=$1 make_fixture=$2
source "$(dirname "$0")/check.sh"
"$make_fixture" "$work/data"
printf 'localhost slots=4\n' >"$work/hosts"
# The cell estimated at a day never fits the budget, nor the one of 10^8 iterations, estimated
# at 5 s but predicted at more than the budget; the others are estimated high enough that any
# machine meeting the README finishes them.
cat >"$work/study.json" <<'JSON'
{"description": "study test", "repeat": 2, "until_within": 1000, "budget_s": 900,
 "defaults": {"ranks": 2, "model": "lenet5", "global_batch": 24, "threads": 1, "eval": false,
              "max_iters": 12, "trace": true, "backend": "mpi", "estimate_s": 5,
              "time_limit_s": 120},
 "entries": [
  {"phase": "calibrate", "group": "collectives", "kind": "collectives", "estimate_s": 20,
   "filter": "^(i?allreduce|ring_allreduce)/backend:mpi/bytes:(4096|65536|262144|1048576)/"},
  {"phase": "calibrate", "group": "calibrate", "sync": "none", "mode": "blocking"},
  {"phase": "measure", "group": "sync_methods", "sync": "bucketed"},
  {"phase": "accuracy", "group": "modes", "trace": false, "mode": "stale"},
  {"phase": "verify", "group": "sync_methods", "sync": ["ring_allreduce", "gather_scatter"]},
  {"phase": "verify", "group": "sync_methods", "sync": "allgather", "estimate_s": 86400},
  {"phase": "verify", "group": "long", "sync": "allreduce", "max_iters": 100000000},
  {"phase": "verify", "group": "bucket_sweep", "sync": "bucketed", "bucket_mb": [0.01, 1]}]}
JSON
run=("$dtbench" run --hosts "$work/hosts" --matrix "$work/study.json" --data-dir "$work/data"
     --quiet-wait-s 0 --noise-tries 1 --out "$work/out")

"${run[@]}" --budget 0.5 >"$work/small.out" 2>&1
code=$?
cat "$work/small.out"
check "a budget too small: exit 2 ($code)" test $code -eq 2
check "a budget too small: one line naming the least it needs" \
  test "$(wc -l <"$work/small.out")" -eq 1 -a \
       "$(grep -c 'a budget of 30.0s is too small for matrix study: .* take about 40.0s (--budget 1 or more)' "$work/small.out")" -eq 1
check "a budget too small: nothing ran" test ! -e "$work/out"

"${run[@]}" >"$work/study.out" 2>&1
code=$?
cat "$work/study.out"
failures "$work/out"
check "the study: exit 0 ($code)" test $code -eq 0
check "the phases in turn: calibrate, measure, accuracy, verify" python3 - "$work" <<'PY'
import re, sys
out = open(f"{sys.argv[1]}/study.out").read()
firsts = [out.index(s) for s in ("collectives/", "sync_methods/backend=mpi,eval=false,"
          "global_batch=24,max_iters=12,model=lenet5,ranks=2,sync=bucketed", "modes/", "verify 1:")]
assert firsts == sorted(firsts), firsts
PY
check "verify.json: every cell predicted, the fastest first, the two long ones not run" \
  python3 - "$work/out" <<'PY'
import json, os, sys
out = sys.argv[1]
cells = json.load(open(f"{out}/verify.json"))["cells"]
assert len(cells) == 6, cells
times = [c["predicted_s"] for c in cells]
assert all(t is not None and t > 0 for t in times), cells
assert times == sorted(times), times
for c in cells:
    ran = os.path.exists(f"{out}/{c['dir']}/rep-1/result.json")
    long = "sync=allgather" in c["dir"] or c["dir"].startswith("experiments/long/")
    assert ran == (not long), (c["dir"], ran)
    if c["dir"].startswith("experiments/long/"):
        assert c["estimate_s"] == c["predicted_s"] * 1e8, c
PY
check "the budget: the cells past it said, not run" \
  grep -q "2 repetitions not run within it" "$work/study.out"

"$dtbench" report "$work/out" -o "$work/report/group.pdf" >"$work/report.out" 2>&1
code=$?
cat "$work/report.out"
check "the report: exit 0 ($code)" test $code -eq 0 -a -s "$work/report/group.pdf"
check "the answer page: the cells predicted, 4 measured beside their predictions" \
  grep -q "The cost model predicted 6 cells from the compute and sweeps measured here, and the study measured 4 of them" "$work/report/report.md"
check "the answer page: the cell the budget left, named" \
  grep -Eq "The fastest predicted cell the budget left unmeasured: \`(sync_methods/.*sync=allgather|long/)" "$work/report/report.md"
check "answer_study.csv: every cell, its prediction, the measured ones' times" python3 - "$work" <<'PY'
import csv, json, sys
work = sys.argv[1]
rows = list(csv.DictReader(open(f"{work}/report/data/answer_study.csv")))
cells = json.load(open(f"{work}/out/verify.json"))["cells"]
assert [r["experiment"] for r in rows] == [c["experiment"] for c in cells]
for r, c in zip(rows, cells):
    assert abs(float(r["predicted_s"]) - c["predicted_s"]) <= 1e-9 * c["predicted_s"], (r, c)
    assert (r["measured_s"] == "") == ("sync=allgather" in r["experiment"] or r["experiment"].startswith("long/")), r
PY

"${run[@]}" >"$work/again.out" 2>&1
code=$?
cat "$work/again.out"
check "a rerun resumes: exit 0 ($code)" test $code -eq 0
check "a rerun resumes: nothing new run" grep -q "^dtbench run: [0-9]* results (\([0-9]*\) from earlier runs)" "$work/again.out"
check "a rerun resumes the verify order verify.json keeps" \
  test "$(grep '^  verify ' "$work/study.out")" = "$(grep '^  verify ' "$work/again.out")"
check "a rerun resumes: the time spent before counted" \
  grep -q "a study within 15m00s ([1-9][0-9.]*s spent on it before)" "$work/again.out"
exit $status
