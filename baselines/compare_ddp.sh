#!/usr/bin/env bash
# dtbench against PyTorch's Python DDP on one configuration (VGG-11, CIFAR-10, global batch 256,
# Gloo, 25 MiB buckets), in interleaved rounds launched the same way (`dtbench launch`):
# bench_train's allreduce (blocking), bucketed and c10d_ddp, then bucketed over MPI (dtbench's
# default backend under mpirun; shared memory between ranks on one host: Debian's Python torch
# has no MPI backend, so Python DDP has only Gloo), then baselines/python_ddp.py.
#   baselines/compare_ddp.sh [HOSTS [ROUNDS [THREADS]]]     defaults: hosts/local 3, and
#   THREADS = this machine's CPUs / 4 (at least 1) intra-op threads per rank on both sides.
# Environment: DATA_DIR (default data), BUILD (default build), OUT (default
# $BUILD/ddp-compare/<hosts file name>); PYTHON_KEEP_FREED=1 adds a row: Python DDP run with
# the malloc settings dtbench's trainers make for themselves (core/common/allocator.h).
# Prints every round's mean of iterations 1..39 and the
# ratios to Python DDP; the JSON files stay in OUT.
set -euo pipefail
hosts=${1:-hosts/local}
rounds=${2:-3}
ranks=4
threads=${3:-$(($(nproc) / ranks > 0 ? $(nproc) / ranks : 1))}
build=${BUILD:-build}
data=$(realpath "${DATA_DIR:-data}")
out=${OUT:-$build/ddp-compare/$(basename "$hosts")}
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3  # Debian's python3-torch: the same libtorch as dtbench
first=$(awk '!/^#/ && NF { print $1; exit }' "$hosts")
[ "$first" = localhost ] && first=127.0.0.1
mkdir -p "$out"
launch=("$build/dtbench" launch --hosts "$hosts" --ranks "$ranks" --)
filter='^vgg11/sync:(allreduce/mode:blocking|bucketed/mode:overlap|c10d_ddp/mode:overlap)'
filter+='/batch:256/bucket_mb:25/aggregate:mean/backend:gloo/'
mpi_filter='^vgg11/sync:bucketed/mode:overlap/batch:256/bucket_mb:25/aggregate:mean/backend:mpi/'
for round in $(seq 1 "$rounds"); do
  echo "round $round/$rounds: bench_train" >&2
  "${launch[@]}" "$(realpath "$build/bench_train")" --backend gloo --data-dir "$data" \
    --threads "$threads" --benchmark_filter="$filter" \
    --benchmark_out="$(realpath "$out")/train-r$round.json" --benchmark_out_format=json \
    > "$out/train-r$round.log" 2>&1
  echo "round $round/$rounds: bench_train, bucketed over MPI" >&2
  "${launch[@]}" "$(realpath "$build/bench_train")" --backend mpi --data-dir "$data" \
    --threads "$threads" --benchmark_filter="${mpi_filter}" \
    --benchmark_out="$(realpath "$out")/train-mpi-r$round.json" --benchmark_out_format=json \
    > "$out/train-mpi-r$round.log" 2>&1
  echo "round $round/$rounds: Python DDP" >&2
  "${launch[@]}" "$python" "$here/python_ddp.py" --data-dir "$data" --threads "$threads" \
    --master "$first:29531" --out "$(realpath "$out")/python-r$round.json" \
    > "$out/python-r$round.log" 2>&1
  if [ "${PYTHON_KEEP_FREED:-0}" = 1 ]; then
    echo "round $round/$rounds: Python DDP, keeping freed memory" >&2
    "${launch[@]}" /usr/bin/env MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 \
      "$python" "$here/python_ddp.py" --data-dir "$data" --threads "$threads" \
      --master "$first:29531" --out "$(realpath "$out")/python-kept-r$round.json" \
      > "$out/python-kept-r$round.log" 2>&1
  fi
done
"$python" - "$out" "$rounds" "$hosts" "$threads" <<'PY'
import json, statistics, sys
out, rounds, hosts, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = {}
for r in range(1, rounds + 1):
    for backend, file in (("gloo", f"{out}/train-r{r}.json"), ("mpi", f"{out}/train-mpi-r{r}.json")):
        for b in json.load(open(file))["benchmarks"]:
            sync = b["name"].split("/")[1].split(":")[1] + ("" if backend == "gloo" else "_mpi")
            rows.setdefault(sync, []).append((b["real_time"] / 1000, b["sync_s"]))
    py = statistics.fmean(json.load(open(f"{out}/python-r{r}.json"))["iterations"]["total_s"][1:40])
    rows.setdefault("python_ddp", []).append((py, None))
    try:
        kept = statistics.fmean(json.load(open(f"{out}/python-kept-r{r}.json"))["iterations"]["total_s"][1:40])
        rows.setdefault("python_kept", []).append((kept, None))
    except FileNotFoundError:
        pass
base = [t for t, _ in rows["python_ddp"]]
print(f"VGG-11, 4 ranks over Gloo (_mpi: over MPI), global batch 256, {threads} thread(s) per rank, {hosts}")
print("s/iteration (mean of 1..39) per round | median | exposed sync | ratio to Python DDP "
      "per round | of the medians")
for name, values in rows.items():
    times = [t for t, _ in values]
    sync = [s for _, s in values if s is not None]
    ratios = [t / b for t, b in zip(times, base)]
    print(f"{name:12} {' '.join(f'{t:.3f}' for t in times)} | {statistics.median(times):.3f} | "
          + (f"{statistics.median(sync):.3f} s" if sync else "-") + " | "
          + " ".join(f"{x:.3f}" for x in ratios)
          + f" | {statistics.median(times) / statistics.median(base):.3f}")
PY
