#!/usr/bin/env bash
# The noise guard of `dtbench run`: with a busy loop on every core beside it, an experiment's
# attempts are measured as noisy (other processes' CPU above the threshold), the noisy attempt
# is rerun, every attempt is kept, and the summary and status.json say so. Nothing here depends
# on how fast the machine is: the busy loops take whatever the experiment leaves.
#   usage: noise_guard_test.sh DTBENCH MAKE_FIXTURE
set -uo pipefail
dtbench=$1 make_fixture=$2
source "$(dirname "$0")/check.sh"
"$make_fixture" "$work/data"
echo "localhost slots=2" >"$work/hosts"
cat >"$work/matrix.json" <<'JSON'
{"description": "noise guard test",
 "entries": [{"group": "n", "ranks": 2, "model": "lenet5", "global_batch": 24, "threads": 1,
              "eval": false, "max_iters": 5, "time_limit_s": 240}]}
JSON
for _ in $(seq "$(nproc)"); do
  sh -c 'while :; do :; done' &
done
"$dtbench" run --hosts "$work/hosts" --matrix "$work/matrix.json" --data-dir "$work/data" \
  --out "$work/out" --noise-tries 2 --quiet-wait-s 1 >"$work/run.out" 2>&1
code=$?
kill $(jobs -p) 2>/dev/null
cat "$work/run.out"
status_json=$(kept "$work/out" status.json)
check "the experiment itself succeeded ($code)" test $code -eq 0
check "its result is there" test -s "$(dirname "$status_json")/result.json"
/usr/bin/python3 - "$status_json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
attempts = s["attempts"]
problems = []
if len(attempts) != 2: problems.append(f"{len(attempts)} attempts, not 2")
for a in attempts:
    n = a["noise"]
    if not a["noisy"] or n["foreign_load"] <= 0.02: problems.append(f"attempt {a['attempt']}: {n}")
    if n["own_cpu_s"] <= 0 or n["wall_s"] <= 0: problems.append(f"no own CPU: {n}")
    if a["quiet_before"]: problems.append("the machine looked quiet with the busy loops running")
if not s["noisy"] or s["noise"] != attempts[-1]["noise"]: problems.append("kept result not flagged")
print("\n".join(problems) or "status.json: 2 noisy attempts, both measured, the kept one flagged")
sys.exit(1 if problems else 0)
PY
check "both attempts detected as noisy and recorded" test $? -eq 0
check "the first attempt's files are kept" test -s "$(dirname "$status_json")/attempt-1/result.json"
check "the progress line flags it" grep -Eq "NOISY: foreign [0-9.]+%(, steal [0-9.]+%)?, 2 attempts" "$work/run.out"
check "the summary counts it" grep -q " 1 noisy (foreign load above 2%" "$work/run.out"
exit $status
