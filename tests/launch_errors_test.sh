#!/usr/bin/env bash
# What a user sees when a launch fails. An input error that every rank finds (a batch that does
# not divide by the ranks, an unknown option) is said once, by rank 0; through `dtbench launch`
# it is the only line, without OpenMPI's boxed notices; a rank that dies is named in one line.
#   usage: launch_errors_test.sh DTBENCH DTBENCH_TRAIN MAKE_FIXTURE MPIRUN
set -uo pipefail
dtbench=$1 train=$2 make_fixture=$3 mpirun=$4
source "$(dirname "$0")/check.sh"
"$make_fixture" "$work/data"
echo "localhost slots=4" >"$work/hosts"
launch=("$dtbench" launch --hosts "$work/hosts" --ranks 4 -- "$train" --model lenet5
        --data-dir "$work/data" --threads 1 --no-eval)
lines() { wc -l <"$1"; }

"${launch[@]}" --global-batch 30 --out "$work/a.json" >"$work/a.out" 2>"$work/a.err"
code=$?
check "batch 30 on 4 ranks: exit 2 ($code)" test "$code" -eq 2
check "batch 30 on 4 ranks: one line" test "$(lines "$work/a.err")" -eq 1
check "batch 30 on 4 ranks: names the batch" \
  grep -q '^dtbench-train: error: global batch 30 does not divide by the 4 ranks$' "$work/a.err"
sed 's/^/  /' "$work/a.err"

"${launch[@]}" --bogus >"$work/b.out" 2>"$work/b.err"
code=$?
check "unknown option: exit 2 ($code)" test "$code" -eq 2
check "unknown option: one line" test "$(lines "$work/b.err")" -eq 1
check "unknown option: names it" grep -q -- '--bogus' "$work/b.err"

# Plain mpirun: still OpenMPI's notices (no switch removes only them), but the error once.
"$mpirun" -np 4 --oversubscribe --bind-to none "$train" --model lenet5 --data-dir "$work/data" \
  --global-batch 30 >"$work/c.out" 2>"$work/c.err"
check "mpirun, batch 30: the error once" test "$(grep -c 'does not divide' "$work/c.err")" -eq 1

"${launch[@]}" --global-batch 24 --max-iters 200 --fault kill:1 --out "$work/d.json" \
  >"$work/d.out" 2>"$work/d.err"
code=$?
check "killed rank: fails ($code)" test "$code" -ne 0
check "killed rank: named" grep -q 'process rank 1 .*exited on signal 9' "$work/d.err"
check "killed rank: no boxes" bash -c "! grep -q -- '------' '$work/d.err'"
check "killed rank: no record" test ! -e "$work/d.json"
sed 's/^/  /' "$work/d.err"
exit $status
