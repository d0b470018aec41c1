#!/usr/bin/env bash
# `dtbench doctor` on the emulated cluster (needs root; exit 77 = skipped otherwise): 4 hosts at
# 1 Gbit/s, one of them (the third) at 100 Mbit/s, which the doctor is not told: every host is
# reached, the builds and data agree, and the one warning about links names that host and no
# other; a 4-rank training run, which measures the links between its hosts before its first
# iteration, names the same host. Then a firewall (nft, from make setup-cluster) in the fourth host's namespace drops new
# TCP connections from the second: the doctor fails naming both, and measures no link. Own
# prefix and subnet: a user's cluster is untouched.
#   usage: doctor_cluster_test.sh DTBENCH MAKE_FIXTURE
set -uo pipefail
dtbench=$1 make_fixture=$2
if [ "$(id -u)" -ne 0 ]; then echo "skipped: the emulated cluster needs root"; exit 77; fi
source "$(dirname "$0")/check.sh"
prefix=dtbd- subnet=10.94.0
cleanup='"$dtbench" cluster down --prefix $prefix >/dev/null 2>&1'
"$make_fixture" "$work/data"
"$dtbench" cluster up --prefix $prefix --subnet $subnet --nodes 4 --rate 1gbit --delay none \
  --bottleneck-host 2 --bottleneck-rate 100mbit --write-hosts "$work/hosts" >/dev/null
check "up: exit 0 ($?)" test $? -eq 0
"$dtbench" doctor --hosts "$work/hosts" --data-dir "$work/data" >"$work/doctor.out" 2>&1
code=$?
cat "$work/doctor.out"
check "doctor: exit 0, a warning is not a failure ($code)" test $code -eq 0
check "every host reached" grep -q "^PASS  reach: .* all 4 hosts" "$work/doctor.out"
check "the same build" grep -q "^PASS  build:" "$work/doctor.out"
check "the same data" grep -q "^PASS  data: .* 4 dataset files" "$work/doctor.out"
check "one warning" test "$(grep -c "^WARN" "$work/doctor.out")" -eq 1
check "it names the host at 100 Mbit/s" grep -q "^WARN  links: $subnet.3 is slow" "$work/doctor.out"
check "ports open" grep -q "^PASS  ports:" "$work/doctor.out"
"$dtbench" launch --hosts "$work/hosts" --ranks 4 -- "$(dirname "$dtbench")/dtbench-train" \
  --model lenet5 --data-dir "$work/data" --global-batch 24 --max-iters 3 --eval-limit 40 \
  --out "$work/train.json" >"$work/train.out" 2>&1
code=$?
tail -3 "$work/train.out"
check "training across the hosts: exit 0 ($code)" test $code -eq 0
check "the training names the host at 100 Mbit/s" grep -q "; ${prefix}n2 is slow: " "$work/train.out"
check "and aligns the ranks' clocks" grep -q "aligned with rank 0's to within" "$work/train.out"
if command -v nft >/dev/null; then
  ip netns exec ${prefix}n3 nft -f - <<EOF
table inet dtbench_test {
  chain input {
    type filter hook input priority 0;
    ip saddr $subnet.2 tcp flags & (syn | ack) == syn drop
  }
}
EOF
  "$dtbench" doctor --hosts "$work/hosts" --data-dir "$work/data" >"$work/blocked.out" 2>&1
  code=$?
  cat "$work/blocked.out"
  check "blocked: exit 1 ($code)" test $code -eq 1
  check "blocked: one failure, naming both hosts" \
    test "$(grep -c "^FAIL  ports: $subnet.2 cannot connect to $subnet.4 at $subnet.4:" "$work/blocked.out")" \
    -eq 1 -a "$(grep -c "^FAIL" "$work/blocked.out")" -eq 1
  check "blocked: no link measured" bash -c "! grep -q 'links:' '$work/blocked.out'"
  ip netns exec ${prefix}n3 nft delete table inet dtbench_test
else
  echo "skipped: a blocked port (no nft: make setup-cluster)"
fi
"$dtbench" cluster down --prefix $prefix >/dev/null
"$dtbench" doctor --hosts "$work/hosts" --data-dir "$work/data" >"$work/down.out" 2>"$work/down.err"
code=$?
check "doctor on a cluster that is down: one line, exit 2 ($code)" \
  test $code -eq 2 -a "$(wc -l <"$work/down.err")" -eq 1
exit $status
