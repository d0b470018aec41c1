#!/usr/bin/env bash
# Slurm on the emulated cluster (needs root and Slurm and munge from `make setup-cluster`; exit
# 77 = skipped otherwise): `dtbench cluster up --slurm` makes a partition of 4 namespaces, srun
# reaches each node under its own name, and a matrix written by `dtbench slurm-script` and
# submitted with sbatch (its end polled with scontrol) runs `dtbench run` inside the
# allocation: its results are read back, one rank per node, with the job recorded, launched by
# srun --mpi=pmix and by mpirun; a script asking for fewer nodes than the matrix's largest
# experiment is refused. `down` stops the daemons. Own prefix and subnet.
#   usage: slurm_cluster_test.sh DTBENCH MAKE_FIXTURE
set -uo pipefail
dtbench=$1 make_fixture=$2
source "$(dirname "$0")/check.sh"
needs_root slurmctld slurmd munged
prefix=dtbl- subnet=10.93.0
cleanup='"$dtbench" cluster down --prefix $prefix >/dev/null 2>&1'
"$make_fixture" "$work/data"
"$dtbench" cluster up --slurm --prefix $prefix --subnet $subnet --nodes 4 --rate none \
  --delay none >"$work/up.out" 2>&1
check "up --slurm: exit 0 ($?)" test $? -eq 0
cat "$work/up.out"
export SLURM_CONF=/run/dtbench/${prefix}slurm/slurm.conf
names=$(srun -N4 hostname | sort | xargs)
check "srun: each node under its own name ($names)" \
  test "$names" == "${prefix}n0 ${prefix}n1 ${prefix}n2 ${prefix}n3"

cat >"$work/matrix.json" <<'JSON'
{"entries": [
  {"group": "train", "ranks": 4, "model": "lenet5", "global_batch": 24, "eval": false,
   "max_iters": 5, "sync": "allreduce", "backend": ["mpi", "gloo"]}
]}
JSON
"$dtbench" slurm-script --matrix "$work/matrix.json" --nodes 3 --out "$work/r" 2>"$work/small.err"
check "a script for fewer nodes than the largest experiment: refused, exit 2 ($?)" \
  test $? -eq 2 -a "$(wc -l <"$work/small.err")" -eq 1
# Inside the allocation the harness launches with srun --mpi=pmix (the plugin is there), or with
# mpirun when asked.
for launcher in srun mpirun; do
  out=$work/r-$launcher
  "$dtbench" slurm-script --matrix "$work/matrix.json" --data-dir "$work/data" --out "$out" \
    -o "$work/job-$launcher.sh" -- --quiet-wait-s 0 --noise-tries 1 --launcher $launcher
  slurm_run "$work/job-$launcher.sh" 240 >"$work/sbatch.out" 2>&1
  code=$?
  cat "$work/sbatch.out" "$out"/slurm-*.out
  check "sbatch, $launcher: the job succeeded ($code)" test $code -eq 0
  job=$(sed -n 's/^Submitted batch job //p' "$work/sbatch.out")
  for backend in mpi gloo; do
    record=$(kept "$out/experiments/train" result.json -path "*backend=$backend*")
    summary=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(x["host"] for x in r["ranks"]), r["system"]["slurm"]["job_id"], r["system"]["launcher"])' "$record")
    check "$backend: one rank per node, job $job, launched by $launcher ($summary)" \
      test "$summary" == "${prefix}n0 ${prefix}n1 ${prefix}n2 ${prefix}n3 $job $launcher"
  done
  check "system.json records the job" \
    python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["slurm"]["job_id"] != sys.argv[2])' \
    "$out/system.json" "$job"
done

pids=$(cat /run/dtbench/${prefix}slurm/*.pid 2>/dev/null | xargs)
"$dtbench" cluster down --prefix $prefix
gone() { for pid in $pids; do ! kill -0 "$pid" 2>/dev/null || return 1; done; }
check "down: slurmctld and the slurmds have ended ($pids)" wait_until 10 gone
check "down: configuration and state removed" test ! -e /run/dtbench/${prefix}slurm
exit $status
