#!/usr/bin/env bash
# The emulated cluster reached by ssh, as a real one is (needs root and OpenSSH's server from
# `make setup-cluster`; exit 77 = skipped otherwise): `dtbench cluster up --ssh` gives each of 4
# namespaces an sshd with its own hostname and key-only login, the hosts file it writes names
# the nodes, and `dtbench run` on it launches through stock mpirun over ssh: every node's sshd
# accepts a login and each rank reports its own node's hostname, for MPI and for Gloo. `down`
# removes the daemons, keys and configuration. The doctor reaches every node over ssh; with one
# node's sshd stopped it names that node, and `dtbench run` launches nothing. Own prefix and subnet: a user's cluster is untouched.
#   usage: ssh_cluster_test.sh DTBENCH MAKE_FIXTURE
set -uo pipefail
dtbench=$1 make_fixture=$2
if [ "$(id -u)" -ne 0 ]; then echo "skipped: the emulated cluster needs root"; exit 77; fi
if [ ! -x /usr/sbin/sshd ]; then echo "skipped: no OpenSSH server (make setup-cluster)"; exit 77; fi
source "$(dirname "$0")/check.sh"
prefix=dtbu- subnet=10.96.0
cleanup='"$dtbench" cluster down --prefix $prefix >/dev/null 2>&1'
"$make_fixture" "$work/data"
config=/run/dtbench/${prefix}ssh/config
"$dtbench" cluster up --ssh --prefix $prefix --subnet $subnet --nodes 4 --rate none --delay none \
  --write-hosts "$work/hosts" >"$work/up.out" 2>&1
check "up --ssh: exit 0 ($?)" test $? -eq 0
cat "$work/up.out" "$work/hosts"
check "the hosts file names the nodes and asks for ssh" \
  test "$(grep -c "^${prefix}n[0-3] slots=1$" "$work/hosts")" -eq 4 -a \
  "$(grep -c "launch=ssh" "$work/hosts")" -eq 1
name=$(ssh -F "$config" ${prefix}n1 hostname 2>"$work/ssh.err")
check "ssh to a node by name, its host key checked: it is $name" test "$name" == ${prefix}n1
name=$(ssh -F "$config" ${prefix}n1 ssh ${prefix}n3 hostname 2>>"$work/ssh.err")
check "a node reaches another by name: $name" test "$name" == ${prefix}n3
ssh-keygen -q -t ed25519 -N "" -f "$work/stranger"
ssh -F /dev/null -i "$work/stranger" -o IdentitiesOnly=yes -o BatchMode=yes \
  -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null root@$subnet.3 true 2>/dev/null
check "a key the cluster does not know is refused ($?)" test $? -eq 255
cat "$work/ssh.err"

cat >"$work/matrix.json" <<'JSON'
{"entries": [
  {"group": "train", "ranks": 4, "model": "lenet5", "global_batch": 24, "eval": false,
   "max_iters": 5, "sync": "allreduce", "backend": ["mpi", "gloo"]}
]}
JSON
"$dtbench" run --hosts "$work/hosts" --matrix "$work/matrix.json" --data-dir "$work/data" \
  --quiet-wait-s 0 --noise-tries 1 --out "$work/r" >"$work/run.out" 2>&1
code=$?
cat "$work/run.out"
check "run over ssh: exit 0 ($code)" test $code -eq 0
for backend in mpi gloo; do
  record=$(kept "$work/r/experiments/train" result.json -path "*backend=$backend*")
  hosts=$(python3 -c 'import json,sys; print(" ".join(r["host"] for r in json.load(open(sys.argv[1]))["ranks"]))' "$record")
  check "$backend: each rank on its own node ($hosts)" \
    test "$hosts" == "${prefix}n0 ${prefix}n1 ${prefix}n2 ${prefix}n3"
done
for i in 0 1 2 3; do
  check "mpirun logged in to ${prefix}n$i by ssh" \
    grep -q "Accepted publickey for root from $subnet.254" "/run/dtbench/${prefix}ssh/sshd-${prefix}n$i.log"
done

"$dtbench" doctor --hosts "$work/hosts" --data-dir "$work/data" --link-mb 1 >"$work/doctor.out" 2>&1
check "doctor over ssh: exit 0 ($?)" test $? -eq 0
cat "$work/doctor.out"
check "doctor: every host reached over ssh" grep -q "^PASS  reach: .* all 4 hosts (over ssh)" "$work/doctor.out"

sshds=$(for i in 0 1 2 3; do ip netns pids ${prefix}n$i; done)
check "an sshd in each namespace ($(echo $sshds))" test "$(echo $sshds | wc -w)" -ge 4
# A host that refuses ssh: the doctor names it, and a run launches nothing.
kill $(ip netns pids ${prefix}n2)
refusing() { ! ssh -F "$config" ${prefix}n2 true 2>/dev/null; }
check "the sshd of ${prefix}n2 stopped" wait_until 10 refusing
"$dtbench" doctor --hosts "$work/hosts" --data-dir "$work/data" >"$work/refused.out" 2>&1
code=$?
cat "$work/refused.out"
check "doctor: exit 1 ($code)" test $code -eq 1
check "doctor: one failure, naming ${prefix}n2" \
  test "$(grep -c "^FAIL" "$work/refused.out")" -eq 1 -a \
  "$(grep -c "^FAIL  reach: ${prefix}n2: .*Connection refused" "$work/refused.out")" -eq 1
"$dtbench" run --hosts "$work/hosts" --matrix "$work/matrix.json" --data-dir "$work/data" \
  --quiet-wait-s 0 --noise-tries 1 --out "$work/r2" >"$work/r2.out" 2>"$work/r2.err"
code=$?
cat "$work/r2.err"
check "run: the preflight refuses, exit 2 ($code)" test $code -eq 2
check "run: one line naming the host, then the verdict" \
  test "$(wc -l <"$work/r2.err")" -eq 2 -a "$(grep -c "preflight: reach: ${prefix}n2:" "$work/r2.err")" -eq 1
check "run: nothing launched" test ! -e "$work/r2/experiments"

"$dtbench" cluster down --prefix $prefix
gone() { for pid in $sshds; do ! kill -0 "$pid" 2>/dev/null || return 1; done; }
check "down: the sshds have ended" wait_until 10 gone
check "down: no namespace left" test -z "$(ip netns list | grep "^${prefix}")"
check "down: keys and configuration removed" test ! -e /run/dtbench/${prefix}ssh -a ! -e /etc/netns/${prefix}n0
exit $status
