#!/usr/bin/env bash
# make data's script against local file:// mirrors (never the network): an unreachable mirror
# gives the offline advice and exit 1; an archive whose checksum differs is refused and not
# unpacked; data already in place is kept without any download.
set -uo pipefail
script=$1
source "$(dirname "$0")/check.sh"

out=$(DTBENCH_DATA_MIRROR="file://$work/nowhere" "$script" "$work/d1" 2>&1)
check "unreachable mirror exits 1" test $? -eq 1
check "unreachable mirror says how to use an existing copy" grep -q "DATA_DIR" <<<"$out"

mkdir -p "$work/mirror"
echo "not the archive" >"$work/mirror/cifar-10-binary.tar.gz"
out=$(DTBENCH_DATA_MIRROR="file://$work/mirror" "$script" "$work/d2" 2>&1)
check "wrong archive exits 1" test $? -eq 1
check "wrong archive is named with its checksum" grep -q "checksum mismatch for cifar-10-binary.tar.gz" <<<"$out"
check "wrong archive is not left behind" test ! -e "$work/d2/cifar-10-binary.tar.gz"

mkdir -p "$work/d3/cifar-10-batches-bin" "$work/d3/mnist"
touch "$work/d3/cifar-10-batches-bin/test_batch.bin"
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte.gz; do
  touch "$work/d3/mnist/$f"
done
out=$(DTBENCH_DATA_MIRROR="file://$work/nowhere" "$script" "$work/d3" 2>&1)
check "present data is kept without downloading" test $? -eq 0
echo "$out" | tail -1
exit $status
