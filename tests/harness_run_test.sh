#!/usr/bin/env bash
# `dtbench run` end to end on this machine (ranks on localhost): a crash of the harness loses no
# finished result and a rerun does not redo it; a hung experiment is killed at its timeout and
# recorded; --retry-failed reruns only that; Ctrl-C stops cleanly; bad input is one line, exit 2.
#   usage: harness_run_test.sh DTBENCH MAKE_FIXTURE
set -uo pipefail
dtbench=$1 make_fixture=$2
source "$(dirname "$0")/check.sh"
"$make_fixture" "$work/data"
one_error_line() {  # one_error_line FILE: exactly one line, "dtbench: error: ..."
  test "$(wc -l <"$1")" -eq 1 && grep -q '^dtbench: error: ' "$1"
}
printf '#dtbench: links rate=1gbit\nlocalhost slots=4\n' >"$work/hosts"
cat >"$work/matrix.json" <<'JSON'
{"description": "harness test",
 "defaults": {"ranks": 2, "model": "lenet5", "global_batch": 24, "threads": 1, "eval": false,
              "estimate_s": 3, "time_limit_s": 120},
 "entries": [
   {"group": "a", "sync": ["allreduce", "ring_allreduce", "bucketed"]},
   {"group": "hang", "time_limit_s": 6}
 ]}
JSON
# ctest runs other tests beside this one: the noise guard measures and flags, but neither waits
# nor reruns here (noise_guard_test.sh tests that).
# Rank 1 of the "hang" group stops answering (a test-only fault the matrix cannot ask for).
run=("$dtbench" run --hosts "$work/hosts" --matrix "$work/matrix.json" --data-dir "$work/data"
     --quiet-wait-s 0 --noise-tries 1 --fault hang=hang:1)
out=$work/results
first="$out/experiments/a/eval=false,global_batch=24,model=lenet5,ranks=2,sync=allreduce,threads=1/rep-1"
wait_for() {  # wait_for FILE SECONDS
  wait_until "$2" test -e "$1"
}
no_experiment_left() { test -z "$(pgrep -f "$work/data")"; }

# 1. The harness crashes (SIGKILL) after the first experiment finished.
"${run[@]}" --out "$out" >"$work/run1.out" 2>&1 &
harness=$!
check "first result written" wait_for "$first/result.json" 60
kill -KILL $harness
wait $harness 2>/dev/null
check "no experiment outlives the harness" wait_until 60 no_experiment_left
identity() { stat -c '%i %Y' "$first/result.json"; sha256sum <"$first/result.json"; }
before=$(identity)

# 2. Rerun: the finished one is skipped, the rest run, the hung one times out.
start=$SECONDS
"${run[@]}" --out "$out" >"$work/run2.out" 2>&1
code=$?
cat "$work/run2.out"
check "rerun exits 1 (one experiment timed out) ($code)" test $code -eq 1
check "the finished experiment is not rerun" grep -q '^\[1/4\] done ' "$work/run2.out"
check "its result is intact" test "$(identity)" == "$before"
check "the others ran" test "$(grep -c '^\[[23]/4\] ok ' "$work/run2.out")" -eq 2
check "every finished experiment has a result" \
  test "$(kept "$out/experiments/a" result.json | wc -l)" -eq 3
hang=$(kept "$out/experiments/hang" status.json)
check "the hang is recorded as a timeout" grep -q '"status": "timeout"' "$hang"
check "with its stderr tail" grep -q '"stderr_tail"' "$hang"
check "killed near its 6 s timeout ($((SECONDS - start)) s in all)" test $((SECONDS - start)) -lt 60
check "no partial result left" test -z "$(find "$out" -name '*.partial')"
check "system.json describes the machine" grep -q '"cpu_model"' "$out/system.json"
check "system.json keeps the hosts file's stated rate" \
  grep -q '"stated_link_rate": "1gbit"' "$out/system.json"
check "system.json names the stack: this machine's libtorch package and MPI, and the rest" \
  python3 - "$out/system.json" <<'PY'
import json, subprocess, sys
stack = json.load(open(sys.argv[1]))["stack"]
ask = lambda *argv: subprocess.run(argv, capture_output=True, text=True).stdout.split("\n")[0]
libtorch = ask("dpkg-query", "-W", "-f=${Version}", "libtorch-dev")
mpi = ask("mpirun", "--version").split()[-1]
sys.exit(not (stack["libtorch"] == libtorch and stack["mpi"].endswith(" " + mpi)
              and {"distribution", "compiler", "gloo", "python_torch"} <= set(stack)))
PY
check "run.json lists 4 experiments" test "$(grep -c '"dir":' "$out/run.json")" -eq 4
check "every attempt's conditions recorded" \
  test "$(grep -l '"foreign_load"' "$out"/experiments/*/*/rep-1/status.json | wc -l)" -eq 4
check "the summary counts noisy results" grep -q ' noisy (foreign load above 2% or steal above 5%' "$work/run2.out"

# 3. --retry-failed reruns only the failed one.
"${run[@]}" --out "$out" --retry-failed >"$work/run3.out" 2>&1
check "--retry-failed: 3 done, the hang again" \
  test "$(grep -c ' done ' "$work/run3.out")" -eq 3 -a "$(grep -c ' timeout ' "$work/run3.out")" -eq 1

# 4. Ctrl-C: stops the running experiment, keeps what finished, exit 130.
"${run[@]}" --out "$work/int" >"$work/int.out" 2>&1 &
harness=$!
check "Ctrl-C run: first result" wait_for "$work/int/experiments/a/eval=false,global_batch=24,model=lenet5,ranks=2,sync=allreduce,threads=1/rep-1/result.json" 60
kill -INT $harness
start=$SECONDS
wait $harness
code=$?
check "Ctrl-C: exit 130 ($code) within 10 s ($((SECONDS - start)) s)" test $code -eq 130 -a $((SECONDS - start)) -lt 10
check "Ctrl-C: says so" grep -q "interrupted; finished results are kept" "$work/int.out"
check "Ctrl-C: no partial result" test -z "$(find "$work/int" -name '*.partial')"

# 4b. Repetitions in rounds, resumed per repetition: 2 rounds, then a third.
cat >"$work/rounds.json" <<'JSON'
{"description": "rounds", "repeat": 2,
 "defaults": {"ranks": 2, "model": "lenet5", "global_batch": 24, "threads": 1, "eval": false,
              "max_iters": 3, "estimate_s": 3, "time_limit_s": 120},
 "entries": [{"group": "r", "sync": ["allreduce", "ring_allreduce", "bucketed", "none"]}]}
JSON
rounds=("$dtbench" run --hosts "$work/hosts" --matrix "$work/rounds.json" --data-dir "$work/data"
        --quiet-wait-s 0 --noise-tries 1 --out "$work/rounds")
"${rounds[@]}" >"$work/rounds1.out" 2>&1
check "rounds: exit 0" test $? -eq 0
check "rounds: 8 results, 4 per repetition" \
  test "$(kept "$work/rounds" result.json -path '*rep-1/*' | wc -l)" -eq 4 -a \
       "$(kept "$work/rounds" result.json -path '*rep-2/*' | wc -l)" -eq 4
order=$(grep -o '^\[[0-9]/8\] ok      r/[^ ]*' "$work/rounds1.out" | sed 's/.*sync=\([a-z_]*\).*/\1/' | tr '\n' ' ')
check "rounds: the second round rotated ($order)" \
  test "$order" == "allreduce ring_allreduce bucketed none bucketed none allreduce ring_allreduce "
"${rounds[@]}" --repeat 3 >"$work/rounds2.out" 2>&1
check "rounds: --repeat 3 reruns nothing done, runs the third round" \
  test "$(grep -c ' done ' "$work/rounds2.out")" -eq 8 -a "$(grep -c '(rep 3)' "$work/rounds2.out")" -eq 4
check "rounds: run.json says 3 repetitions" grep -q '"repeat": 3' "$work/rounds/run.json"

# 4c. An experiment's TCP fragment reaches its ranks through the launcher: the record says what
# MPI ran with, the matrix's 8 KiB beside the ranks' own 128 KiB.
cat >"$work/fragment.json" <<'JSON'
{"description": "fragment",
 "defaults": {"ranks": 2, "model": "lenet5", "global_batch": 24, "threads": 1, "eval": false,
              "max_iters": 3, "estimate_s": 3, "time_limit_s": 120, "backend": "mpi"},
 "entries": [{"group": "f", "sync": "allreduce", "mpi_fragment": [0, 8192]}]}
JSON
"$dtbench" run --hosts "$work/hosts" --matrix "$work/fragment.json" --data-dir "$work/data" \
  --quiet-wait-s 0 --noise-tries 1 --out "$work/fragment" >"$work/fragment.out" 2>&1
check "fragment: exit 0" test $? -eq 0
check "fragment: each record keeps the fragment its ranks ran with" \
  python3 - "$work/fragment/experiments/f" <<'PY'
import glob, json, sys
seen = {}
for path in glob.glob(sys.argv[1] + "/*/rep-1/result.json"):
    mca = json.load(open(path))["system"]["mpi"]["mca"]
    seen["mpi_fragment=8192" in path] = mca["btl_tcp_rdma_pipeline_frag_size"]
sys.exit(0 if seen == {True: "8192", False: "131072"} else f"records say {seen}")
PY

# 4d. A loss turned NaN is launched once more and both attempts are kept: a method's own
# divergence (here a fault that makes rank 0's parameters NaN every time) fails again.
cat >"$work/diverge.json" <<'JSON'
{"description": "diverge",
 "defaults": {"ranks": 2, "model": "lenet5", "global_batch": 24, "threads": 1, "eval": false,
              "max_iters": 6, "estimate_s": 3, "time_limit_s": 120},
 "entries": [{"group": "d", "sync": "allreduce"}]}
JSON
"$dtbench" run --hosts "$work/hosts" --matrix "$work/diverge.json" --data-dir "$work/data" \
  --quiet-wait-s 0 --noise-tries 1 --out "$work/diverge" --fault d=nan:0 >"$work/diverge.out" 2>&1
code=$?
check "diverge: exit 1 ($code)" test $code -eq 1
check "diverge: launched twice, the first kept, the second's failure named" \
  python3 - "$(kept "$work/diverge/experiments/d" status.json)" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
a = s["attempts"]
sys.exit(not (s["status"] == "failed" and len(a) == 2 and
              a[0]["why"] == "the loss turned NaN or infinite (the training diverged)" and
              "the training diverged" in s["why"] and
              os.path.exists(os.path.join(os.path.dirname(sys.argv[1]), "attempt-1"))))
PY
check "diverge: the summary says what a NaN loss may be and how to run it again" \
  grep -q "^dtbench run: 1 of the failed diverged (a NaN or infinite loss, launched twice): .*ONEDNN_MAX_CPU_ISA=AVX2.*--retry-failed" \
  "$work/diverge.out"

# 5. Dry run and bad input.
"${run[@]}" --out "$work/dry" --dry-run >"$work/dry.out" 2>&1
check "dry run lists the expansion" grep -q "matrix matrix: 4 experiments, estimated 12.0s" "$work/dry.out"
check "dry run writes nothing" test ! -e "$work/dry"
bad() {  # bad NAME ARGS...: exit 2 with one error line
  local name=$1
  shift
  "$dtbench" "$@" >"$work/bad.out" 2>"$work/bad.err"
  local code=$?
  check "$name: exit 2 ($code), one line: $(cat "$work/bad.err")" test $code -eq 2
  one_error_line "$work/bad.err" || { echo "FAILED: $name: not one line"; status=1; }
}
printf 'localhost\n' >"$work/hosts-bad"
bad "malformed hosts file" run --hosts "$work/hosts-bad" --matrix "$work/matrix.json" --out "$work/x"
bad "missing hosts file" run --hosts "$work/none" --matrix smoke --out "$work/x"
bad "unknown matrix" run --hosts "$work/hosts" --matrix huge --out "$work/x"
echo "localhost slots=1" >"$work/hosts-1"
bad "more ranks than slots" run --hosts "$work/hosts-1" --matrix "$work/matrix.json" --out "$work/x"
bad "no dataset" run --hosts "$work/hosts" --matrix "$work/matrix.json" --data-dir "$work/none" --out "$work/x"
echo '{"entries": [{"group": "f", "fault_hang_rank": 1}]}' >"$work/fault.json"
bad "a matrix cannot ask for a fault" run --hosts "$work/hosts" --matrix "$work/fault.json" --out "$work/x"
bad "malformed --fault" run --hosts "$work/hosts" --matrix "$work/matrix.json" --out "$work/x" --fault hang
bad "unknown subcommand" fly
bad "launch: more ranks than slots" launch --hosts "$work/hosts-1" --ranks 2 -- true
bad "launch: no command" launch --hosts "$work/hosts" --ranks 2
check "bad input ran nothing" test ! -e "$work/x"

# 6. dtbench launch: any command on the ranks, its exit code passed on.
"$dtbench" launch --hosts "$work/hosts" --ranks 3 -- sh -c 'echo "rank $OMPI_COMM_WORLD_RANK"' \
  >"$work/launch.out" 2>&1
check "launch runs 3 ranks" test "$(sort "$work/launch.out" | tr '\n' ' ')" == "rank 0 rank 1 rank 2 "
"$dtbench" launch --hosts "$work/hosts" --ranks 1 -- sh -c 'exit 3' >/dev/null 2>&1
code=$?
check "launch passes the exit code on ($code)" test $code -eq 3
exit $status
