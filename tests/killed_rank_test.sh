#!/usr/bin/env bash
# A rank that dies must not leave the others hanging: under mpirun the job ends non-zero at
# once; launched by hand over Gloo, the survivors exit non-zero within --timeout-s, each with
# one "error:" line. A rank that stops answering (SIGSTOP: a dead link) is caught the same way.
#   usage: killed_rank_test.sh DTBENCH_TRAIN MAKE_FIXTURE MPIRUN
set -uo pipefail
train=$1 make_fixture=$2 mpirun=$3
source "$(dirname "$0")/check.sh"
"$make_fixture" "$work/data"
args=(--model lenet5 --data-dir "$work/data" --global-batch 24 --threads 1 --no-eval
      --max-iters 200 --fault kill:1)

start=$SECONDS
timeout 120 "$mpirun" -np 3 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
  "$train" "${args[@]}" --timeout-s 60 --out "$work/mpi.json" >"$work/mpi.out" 2>&1
code=$?
check "mpirun: the job fails (exit $code)" test "$code" -ne 0 -a "$code" -ne 124
check "mpirun: within 60 s ($((SECONDS - start)) s)" test $((SECONDS - start)) -lt 60
check "mpirun: no result record" test ! -e "$work/mpi.json"

port=$((20000 + RANDOM % 20000))
start=$SECONDS
for rank in 0 1 2; do
  timeout 120 "$train" "${args[@]}" --backend gloo --master "127.0.0.1:$port" --world-size 3 \
    --rank $rank --timeout-s 15 --out "$work/gloo.json" >"$work/gloo$rank.out" 2>"$work/gloo$rank.err" &
  pids[$rank]=$!
done
for rank in 0 2; do
  wait "${pids[$rank]}"
  code=$?
  check "gloo: rank $rank fails (exit $code)" test "$code" -ne 0 -a "$code" -ne 124
  check "gloo: rank $rank says why in one line" test "$(grep -c 'error:' "$work/gloo$rank.err")" -eq 1
  sed 's/^/  /' "$work/gloo$rank.err"
done
wait "${pids[1]}"
check "gloo: survivors out within 45 s ($((SECONDS - start)) s)" test $((SECONDS - start)) -lt 45

port=$((20000 + RANDOM % 20000))
for rank in 0 1; do
  timeout 120 "$train" --model lenet5 --data-dir "$work/data" --global-batch 24 --threads 1 \
    --no-eval --epochs 100000 --backend gloo --master "127.0.0.1:$port" --world-size 2 \
    --rank $rank --timeout-s 10 --log-interval 1 --out "$work/stop.json" >"$work/stop$rank.out" \
    2>"$work/stop$rank.err" &
  pids[$rank]=$!
done
training() { grep -q "loss" "$1"; }  # rank 0 prints the loss of every iteration
check "silent peer: training started" wait_until 120 training "$work/stop0.out"
silent=$(pgrep -P "${pids[1]}")  # the rank itself, not its timeout wrapper
kill -STOP "$silent"
start=$SECONDS
wait "${pids[0]}"
code=$?
check "silent peer: rank 0 fails (exit $code)" test "$code" -ne 0 -a "$code" -ne 124
check "silent peer: within --timeout-s + 10 s ($((SECONDS - start)) s)" test $((SECONDS - start)) -lt 20
check "silent peer: one error line" test "$(grep -c 'error:' "$work/stop0.err")" -eq 1
sed 's/^/  /' "$work/stop0.err"
kill -KILL "$silent" 2>/dev/null

# MPI has no timeout of its own: the trainer's watchdog must end the blocked rank.
"$mpirun" -np 2 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 "$train" \
  --model lenet5 --data-dir "$work/data" --global-batch 24 --threads 1 --no-eval \
  --epochs 100000 --timeout-s 10 --log-interval 1 --out "$work/mpistop.json" \
  >"$work/mpistop.out" 2>"$work/mpistop.err" &
launcher=$!
check "mpi silent peer: training started" wait_until 120 training "$work/mpistop.out"
for pid in $(pgrep -P $launcher); do
  grep -qz '^OMPI_COMM_WORLD_RANK=1$' "/proc/$pid/environ" && silent=$pid
done
kill -STOP "$silent"
start=$SECONDS
timeout 60 tail --pid=$launcher -f /dev/null
wait $launcher
code=$?
check "mpi silent peer: the job fails (exit $code)" test "$code" -ne 0
check "mpi silent peer: within --timeout-s + 10 s ($((SECONDS - start)) s)" test $((SECONDS - start)) -lt 20
check "mpi silent peer: the watchdog says why" grep -q "no progress for 10 s" "$work/mpistop.err"
grep "error:" "$work/mpistop.err" | sed 's/^/  /'
kill -KILL "$silent" 2>/dev/null
exit $status
