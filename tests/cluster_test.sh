#!/usr/bin/env bash
# The emulated cluster (needs root; exit 77 = skipped otherwise): `dtbench cluster up` makes
# two namespaces on a bridge with 200 Mbit/s links, a 2-rank MPI job and a 2-rank Gloo job run
# across them through `dtbench run`, the measured throughput is within 20% of the set rate
# (also for a per-experiment 100 Mbit/s bottleneck, which is then undone), `up` again is
# idempotent and remakes a host whose namespace went but left its veth behind, and `down`
# removes everything. Own prefix and subnet: a user's cluster is untouched.
#   usage: cluster_test.sh DTBENCH MAKE_FIXTURE
set -uo pipefail
dtbench=$1 make_fixture=$2
if [ "$(id -u)" -ne 0 ]; then echo "skipped: the emulated cluster needs root"; exit 77; fi
source "$(dirname "$0")/check.sh"
prefix=dtbt-
cleanup='"$dtbench" cluster down --prefix $prefix >/dev/null 2>&1'
"$make_fixture" "$work/data"
refused() {  # refused FILE EXIT_CODE TEXT: exit code 2 and one line saying TEXT
  test "$2" -eq 2 -a "$(wc -l <"$1")" -eq 1 && grep -q "$3" "$1"
}
setpriv --reuid=65534 --regid=65534 --clear-groups "$dtbench" cluster up 2>"$work/nonroot.err"
check "without root: refused" refused "$work/nonroot.err" $? "needs root"
PATH=/nonexistent "$dtbench" cluster up 2>"$work/noip.err"
check "without iproute2: refused" refused "$work/noip.err" $? "needs iproute2"
py=/usr/bin/python3
up=("$dtbench" cluster up --prefix $prefix --subnet 10.98.0 --nodes 2 --rate 200mbit --delay none)
"${up[@]}" --write-hosts "$work/hosts" >"$work/up.out" 2>&1
check "up: exit 0" test $? -eq 0
cat "$work/up.out"
check "up: two namespaces" test "$(ip netns list | grep -c "^${prefix}n[01] ")" -eq 2
check "up: shaped at 200 Mbit/s" grep -q "rate 200Mbit" "$work/up.out"
"${up[@]}" >"$work/up2.out" 2>&1
check "up again: idempotent (exit $?)" test "$(ip netns list | grep -c "^${prefix}n")" -eq 2
# A namespace deleted while a process still holds it keeps its veth (as one that `down` just
# deleted does until the kernel has torn it down): up makes the host's pair again.
ip netns exec ${prefix}n1 sleep 300 &
holder=$!
held() { test -n "$(ip netns pids ${prefix}n1 2>/dev/null)"; }
wait_until 10 held
ip netns del ${prefix}n1
"${up[@]}" >"$work/up3.out" 2>&1
code=$?
cat "$work/up3.out"
check "up after a namespace went but its veth stayed: exit 0 ($code)" test $code -eq 0
has_address() { [[ "$(ip -n ${prefix}n1 -o addr show dev eth0)" == *" 10.98.0.2/24 "* ]]; }
check "up after it: the host has its link and address again (the jobs below cross it)" has_address
kill $holder 2>/dev/null

cat >"$work/matrix.json" <<'JSON'
{"entries": [
  {"group": "train", "ranks": 2, "model": "lenet5", "global_batch": 24, "eval": false,
   "max_iters": 10, "sync": "allreduce", "backend": ["mpi", "gloo"]},
  {"group": "link", "kind": "collectives", "ranks": 2, "backend": "mpi",
   "filter": "^broadcast/backend:mpi/bytes:4194304/"},
  {"group": "slow", "kind": "collectives", "ranks": 2, "backend": "mpi",
   "filter": "^broadcast/backend:mpi/bytes:1048576/", "bottleneck_host": 1,
   "bottleneck_rate": "100mbit"}
]}
JSON
# Not a test of the noise guard: no wait for a quiet machine and no reruns, so that a busy
# machine cannot stretch it past its timeout.
"$dtbench" run --hosts "$work/hosts" --matrix "$work/matrix.json" --data-dir "$work/data" \
  --quiet-wait-s 0 --noise-tries 1 \
  --out "$work/r" >"$work/run.out" 2>&1
code=$?
cat "$work/run.out"
check "run across namespaces: exit 0 ($code)" test $code -eq 0
for backend in mpi gloo; do
  record=$(kept "$work/r/experiments/train" result.json -path "*backend=$backend*")
  hosts=$($py -c 'import json,sys; print(" ".join(r["host"] for r in json.load(open(sys.argv[1]))["ranks"]))' "$record")
  check "$backend job: one rank per namespace ($hosts)" test "$hosts" == "${prefix}n0 ${prefix}n1"
done
algbw() {  # algbw GROUP: the broadcast's algbw in bytes/s
  $py -c 'import json,sys; print(json.load(open(sys.argv[1]))["benchmarks"][0]["algbw"])' \
    "$(kept "$work/r/experiments/$1" result.json)"
}
within() {  # within MEASURED EXPECTED: |measured/expected - 1| <= 0.2
  $py -c 'import sys; m, e = map(float, sys.argv[1:]); sys.exit(abs(m / e - 1) > 0.2)' "$1" "$2"
}
bw=$(algbw link)
check "shaping in effect: broadcast at $bw B/s, set 25e6 B/s (200 Mbit/s)" within "$bw" 25e6
bw=$(algbw slow)
check "bottleneck profile: broadcast at $bw B/s, set 12.5e6 B/s (100 Mbit/s)" within "$bw" 12.5e6
check "bottleneck recorded" grep -q '"rate": "100mbit"' "$(kept "$work/r/experiments/slow" status.json)"
"$dtbench" cluster status --prefix $prefix >"$work/status.out"
check "profile undone after the experiment" test "$(grep -c 'rate 200Mbit' "$work/status.out")" -eq 2

"$dtbench" cluster down --prefix $prefix
check "down: no namespaces left" test -z "$(ip netns list | grep "^${prefix}")"
# The kernel removes a deleted namespace's veth after it, later where processes ran in it.
no_link_left() { test -z "$(ip -o link show | grep "${prefix}")"; }
check "down: no bridge or veth left" wait_until 30 no_link_left
"$dtbench" cluster status --prefix $prefix >"$work/status.out"
check "status after down: down (exit $?)" grep -q "down" "$work/status.out"
"$dtbench" run --hosts "$work/hosts" --matrix "$work/matrix.json" --data-dir "$work/data" \
  --quiet-wait-s 0 --noise-tries 1 \
  --out "$work/r2" 2>"$work/notup.err"
check "run on a cluster that is down: exit 2 ($?)" test $? -eq 2
grep -q "is not up: run \`make cluster-up\`" "$work/notup.err" || { echo "FAILED: not-up message"; status=1; }
exit $status
