#!/usr/bin/env bash
# A table a document holds is what `dtbench NAME` prints from the code's own list (the
# catalogue of methods, the matrices), so that it is typed nowhere: the lines between
# `<!-- dtbench NAME -->` and `<!-- end -->` of DOC are exactly its output.
#   usage: generated_doc_test.sh DOC DTBENCH NAME
set -uo pipefail
doc=$1 dtbench=$2 name=$3
source "$(dirname "$0")/check.sh"
"$dtbench" "$name" >"$work/table.md" 2>"$work/err"
check "dtbench $name prints a table ($(cat "$work/err"))" grep -q '^| `' "$work/table.md"
sed -n "/^<!-- dtbench $name -->\$/,/^<!-- end -->\$/p" "$doc" | sed '1d;$d' >"$work/doc.md"
check "$(basename "$doc") holds that table (regenerate it with build/dtbench $name)" \
  diff "$work/table.md" "$work/doc.md"
exit $status
