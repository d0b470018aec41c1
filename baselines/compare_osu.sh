#!/usr/bin/env bash
# bench_collectives' MPI allreduce against a plain OSU-style loop (its osu_allreduce benchmark),
# at 4 MiB and VGG-11's 36.9 MB, measured in the same jobs: JOBS jobs launched by
# `dtbench launch`, each running both with --benchmark_repetitions=REPS. Prints every job's
# medians and the ratios dtbench / OSU loop, under the OSU loop's own statistic (the slowest
# rank's mean) and under dtbench's (the mean over operations of each one's slowest rank).
#   baselines/compare_osu.sh [HOSTS [JOBS [REPS]]]     defaults: hosts/local 3 5
# Environment: BUILD (default build), OUT (default $BUILD/osu-compare/<hosts file name>).
set -euo pipefail
hosts=${1:-hosts/local}
jobs=${2:-3}
reps=${3:-5}
build=${BUILD:-build}
out=${OUT:-$build/osu-compare/$(basename "$hosts")}
mkdir -p "$out"
filter='^(allreduce|osu_allreduce)/backend:mpi/bytes:(4194304|36924456)/'
for job in $(seq 1 "$jobs"); do
  echo "job $job/$jobs" >&2
  "$build/dtbench" launch --hosts "$hosts" --ranks 4 -- "$(realpath "$build/bench_collectives")" \
    --backend mpi --benchmark_filter="$filter" --benchmark_repetitions="$reps" \
    --benchmark_out="$(realpath "$out")/osu-j$job.json" --benchmark_out_format=json \
    > "$out/osu-j$job.log" 2>&1
done
python3 - "$out" "$jobs" "$hosts" <<'PY'
import json, statistics, sys
out, jobs, hosts = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(f"MPI allreduce, 4 ranks, {hosts}: medians of each job's repetitions (ms)")
print("bytes    | job | dtbench | OSU loop | OSU, per-op max | dtbench/OSU | same statistic")
ratios = {}
for job in range(1, jobs + 1):
    runs = [b for b in json.load(open(f"{out}/osu-j{job}.json"))["benchmarks"]
            if b.get("run_type") == "iteration"]
    def median(kind, size, value):
        return statistics.median(value(b) for b in runs
                                 if b["name"].startswith(f"{kind}/") and f"/bytes:{size}/" in b["name"])
    for size in (4194304, 36924456):
        ours = median("allreduce", size, lambda b: b["real_time"] / 1e3)
        osu = median("osu_allreduce", size, lambda b: b["real_time"] / 1e3)
        per_op = median("osu_allreduce", size, lambda b: b["per_op_max_s"] * 1e3)
        ratios.setdefault(size, []).append((ours / osu, ours / per_op))
        print(f"{size:8} | {job:3} | {ours:7.3f} | {osu:8.3f} | {per_op:15.3f} | "
              f"{ours / osu:11.3f} | {ours / per_op:.3f}")
for size, values in ratios.items():
    print(f"{size:8}: median ratio {statistics.median(r for r, _ in values):.3f} "
          f"(same statistic {statistics.median(s for _, s in values):.3f}) over {jobs} jobs")
PY
