#!/usr/bin/env bash
# docs/harness.md's table of the matrices is `dtbench matrices`' own: each matrix's description,
# experiments and estimated time come from harness/matrices/*.json, typed nowhere else.
#   usage: matrices_doc_test.sh SOURCE_DIR DTBENCH
set -uo pipefail
source_dir=$1 dtbench=$2
source "$(dirname "$0")/check.sh"
"$dtbench" matrices >"$work/table.md" 2>"$work/err"
check "dtbench matrices prints a row per matrix ($(cat "$work/err"))" \
  test "$(grep -c '^| `' "$work/table.md")" -eq "$(ls "$source_dir"/harness/matrices/*.json | wc -l)"
sed -n '/^<!-- dtbench matrices -->$/,/^<!-- end -->$/p' "$source_dir/docs/harness.md" |
  sed '1d;$d' >"$work/doc.md"
check "docs/harness.md holds that table (regenerate it with build/dtbench matrices)" \
  diff "$work/table.md" "$work/doc.md"
exit $status
