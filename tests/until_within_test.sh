#!/usr/bin/env bash
# `dtbench run --until-within`: every experiment repeats in rounds until the 95% interval of its
# mean iteration time is within the target, or the cap. What holds on any machine is asserted:
# a target no run misses (1000%) closes each experiment at the least repetitions; one no run
# meets (0.0001%) runs the cap and is said to be wide (each experiment alone in its group, so
# none closes by ranking apart from another: interval_test.cpp tests that rule); interval.json
# holds the repetitions' means as their records give them, and a rerun with a higher cap adds
# only the new round; a rerun into records gzip-compressed as committed ones are runs nothing.
#   usage: until_within_test.sh DTBENCH MAKE_FIXTURE
set -uo pipefail
dtbench=$1 make_fixture=$2
source "$(dirname "$0")/check.sh"
"$make_fixture" "$work/data"
printf 'localhost slots=4\n' >"$work/hosts"
cat >"$work/matrix.json" <<'JSON'
{"description": "until-within test",
 "defaults": {"ranks": 2, "model": "lenet5", "global_batch": 24, "threads": 1, "eval": false,
              "max_iters": 12, "estimate_s": 3, "time_limit_s": 120},
 "entries": [{"group": "a", "sync": "allreduce"}, {"group": "b", "sync": "ring_allreduce"}]}
JSON
run=("$dtbench" run --hosts "$work/hosts" --matrix "$work/matrix.json" --data-dir "$work/data"
     --quiet-wait-s 0 --noise-tries 1)
reps() { find "$1/experiments" -mindepth 3 -maxdepth 3 -name 'rep-*' | wc -l; }
# interval.json of every experiment against its repetitions' records: FIELD=VALUE pairs to hold.
intervals() {
  python3 - "$@" <<'PY'
import glob, json, os, statistics, sys
out, *wants = sys.argv[1:]
wants = dict(w.split("=") for w in wants)
files = glob.glob(f"{out}/experiments/*/*/interval.json")
assert len(files) == 2, files
for path in files:
    j = json.load(open(path))
    means = [json.load(open(r))["summary"]["iteration_s"]["mean"]
             for r in glob.glob(os.path.join(os.path.dirname(path), "rep-*", "result.json"))]
    assert sorted(j["values_s"]) == sorted(means), (j["values_s"], means)
    assert abs(j["mean_s"] - statistics.mean(means)) < 1e-12
    assert j["ci95_low_s"] < j["mean_s"] < j["ci95_high_s"]
    for key, value in wants.items():
        assert str(j[key]).lower() == value, (path, key, j[key], value)
PY
}

"${run[@]}" --out "$work/loose" --until-within 1000 --repeat 2 --max-repeat 4 >"$work/loose.out" 2>&1
code=$?
cat "$work/loose.out"
check "a target every run meets: exit 0 ($code)" test $code -eq 0
check "a target every run meets: the least repetitions, 2 each" test "$(reps "$work/loose")" -eq 4
check "a target every run meets: interval.json reached, 2 repetitions" \
  intervals "$work/loose" reached=true repetitions=2
check "a target every run meets: said within" grep -q "2 experiments within +-1000%" "$work/loose.out"

"${run[@]}" --out "$work/tight" --until-within 0.0001 --repeat 2 --max-repeat 3 >"$work/tight.out" 2>&1
code=$?
cat "$work/tight.out"
check "a target no run meets: exit 0 ($code)" test $code -eq 0
check "a target no run meets: the cap, 3 each" test "$(reps "$work/tight")" -eq 6
check "a target no run meets: interval.json not reached, 3 repetitions" \
  intervals "$work/tight" reached=false repetitions=3
check "a target no run meets: each said wide" test "$(grep -c '^  WIDE: ' "$work/tight.out")" -eq 2

"${run[@]}" --out "$work/tight" --until-within 0.0001 --repeat 2 --max-repeat 4 >"$work/more.out" 2>&1
code=$?
cat "$work/more.out"
check "a higher cap resumes: exit 0 ($code)" test $code -eq 0
check "a higher cap resumes: 6 from earlier runs" grep -q "(6 from earlier runs)" "$work/more.out"
check "a higher cap resumes: one round more" test "$(reps "$work/tight")" -eq 8
check "a higher cap resumes: 4 repetitions" intervals "$work/tight" repetitions=4

# Records compressed as committed results keep them (result.json.gz): the same run again finds
# every repetition done and each interval still made of their 4 means.
find "$work/tight/experiments" -name result.json -exec gzip -n {} +
"${run[@]}" --out "$work/tight" --until-within 0.0001 --repeat 2 --max-repeat 4 >"$work/gz.out" 2>&1
code=$?
cat "$work/gz.out"
check "compressed records: exit 0 ($code)" test $code -eq 0
check "compressed records: all 8 from earlier runs" grep -q "(8 from earlier runs)" "$work/gz.out"
check "compressed records: nothing run again (no record written anew)" \
  test "$(reps "$work/tight")" -eq 8 -a -z "$(find "$work/tight/experiments" -name result.json)"
check "compressed records: each interval of its 4 means" python3 -c '
import glob, json, sys
files = glob.glob(sys.argv[1] + "/experiments/*/*/interval.json")
sys.exit(not (len(files) == 2 and all(
    len(json.load(open(f))["values_s"]) == 4 and json.load(open(f))["repetitions"] == 4
    for f in files)))' "$work/tight"

"$dtbench" report "$work/tight" -o "$work/report/group.pdf" >"$work/report.out" 2>&1
check "the report lists each experiment's interval, the wide ones flagged" \
  test "$(grep -c '| WIDE |' "$work/report/report.md")" -eq 2 -a \
       "$(grep -c "2 of 2 stayed wider than the target" "$work/report/report.md")" -eq 1

"$dtbench" run --hosts "$work/hosts" --matrix "$work/matrix.json" --until-within 0 \
  --out "$work/bad" >"$work/bad.out" 2>&1
check "--until-within 0: a one-line error, exit 2 ($?)" test "$(wc -l <"$work/bad.out")" -eq 1
exit $status
