#!/usr/bin/env bash
# docs/result-record.md names every setting the record's `config` holds: the list is the
# record's own, the `setting("KEY", ...)` calls of core/record/record.cpp.
#   usage: record_doc_test.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
source "$(dirname "$0")/check.sh"
keys=$(grep -oE 'setting\("[a-z_0-9]+"' "$source_dir/core/record/record.cpp" | cut -d'"' -f2)
check "the record's settings are found in record.cpp" test "$(echo "$keys" | wc -w)" -ge 30
for key in $keys; do
  check "config.$key documented" grep -q "\`$key\`" "$source_dir/docs/result-record.md"
done
exit $status
