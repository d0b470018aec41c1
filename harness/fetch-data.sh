#!/usr/bin/env bash
# make data: the official CIFAR-10 (binary version) and MNIST archives into DATA_DIR, each
# checked against its published MD5 before it is unpacked. Already-present data is kept.
#   usage: harness/fetch-data.sh DATA_DIR
# DTBENCH_DATA_MIRROR=URL replaces every download's directory (e.g. file:///srv/archives).
set -euo pipefail

data_dir=${1:?usage: fetch-data.sh DATA_DIR}
mirror=${DTBENCH_DATA_MIRROR:-}

cifar_url=https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz
cifar_md5=c32a1d4ab5d03f1284b67883e8d87530
mnist_base=https://ossci-datasets.s3.amazonaws.com/mnist
mnist_files=(
  "train-images-idx3-ubyte.gz f68b3c2dcbeaaa9fbdd348bbdeb94873"
  "train-labels-idx1-ubyte.gz d53e105ee54ea40749a09fcbcd1e9432"
  "t10k-images-idx3-ubyte.gz 9fb629c4189551a2d022fa330f9573f3"
  "t10k-labels-idx1-ubyte.gz ec29112dd5afa0611ce80d1b7f02629c"
)

fail() {
  echo "make data: $*" >&2
  exit 1
}

# fetch URL MD5 DEST: download to DEST.part, verify, then rename into place.
fetch() {
  local url=$1 md5=$2 dest=$3
  [ -n "$mirror" ] && url="$mirror/${url##*/}"
  echo "make data: downloading $url"
  if ! curl --fail --location --silent --show-error --connect-timeout 15 -o "$dest.part" "$url"; then
    rm -f "$dest.part"
    fail "cannot download $url (offline?). Put an existing copy in place instead: DATA_DIR must" \
      "hold cifar-10-batches-bin/*.bin and mnist/*-ubyte[.gz]; then run with DATA_DIR=that/folder."
  fi
  local got
  got=$(md5sum "$dest.part" | cut -d' ' -f1)
  if [ "$got" != "$md5" ]; then
    rm -f "$dest.part"
    fail "checksum mismatch for ${url##*/}: md5 $got, expected $md5"
  fi
  mv "$dest.part" "$dest"
}

mkdir -p "$data_dir/mnist"

if [ -f "$data_dir/cifar-10-batches-bin/test_batch.bin" ]; then
  echo "make data: CIFAR-10 already in $data_dir/cifar-10-batches-bin"
else
  archive="$data_dir/cifar-10-binary.tar.gz"
  fetch "$cifar_url" "$cifar_md5" "$archive"
  tar -xzf "$archive" -C "$data_dir"
  rm -f "$archive"
fi

for entry in "${mnist_files[@]}"; do
  read -r name md5 <<<"$entry"
  if [ -f "$data_dir/mnist/$name" ] || [ -f "$data_dir/mnist/${name%.gz}" ]; then
    echo "make data: $name already in $data_dir/mnist"
  else
    fetch "$mnist_base/$name" "$md5" "$data_dir/mnist/$name"
  fi
done
echo "make data: ready in $data_dir"
