#!/usr/bin/env bash
# make tidy skips a file whose exact input was found clean before (tools/tidy.py), and that input
# is the same on every machine with the same clang-tidy: its version line, not the host CPU that
# `clang-tidy --version` also prints; the checkout's own text, not the system headers' around
# it. A fake clang-tidy on PATH logs each file it lints.
#   usage: tidy_salt_test.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
source "$(dirname "$0")/check.sh"

# A checkout of its own (tools/tidy.py takes the checkout from where it lies) with a header, and
# a system header outside it.
checkout=$work/checkout
mkdir -p "$checkout/tools" "$work/system"
cp "$source_dir/tools/tidy.py" "$checkout/tools/"
cp "$source_dir/.clang-tidy" "$checkout/"
printf '#include <c.h>\n#include "b.h"\nint answer() { return 42 + b() + c(); }\n' \
  >"$checkout/a.cpp"
printf 'inline int b() { return 1; }\n' >"$checkout/b.h"
printf 'inline int c() { return 2; }\n' >"$work/system/c.h"
command="c++ -isystem $work/system -c $checkout/a.cpp -o $checkout/a.o"
printf '[{"directory": "%s", "file": "%s/a.cpp", "command": "%s"}]\n' \
  "$checkout" "$checkout" "$command" >"$checkout/compile_commands.json"
mkdir -p "$work/bin"
# fake_clang_tidy VERSION CPU: a clang-tidy that prints that version and CPU and finds nothing.
fake_clang_tidy() {
  cat >"$work/bin/clang-tidy" <<FAKE
#!/bin/sh
if [ "\$1" = --version ]; then
  printf 'Debian LLVM version %s\n  Optimized build.\n  Host CPU: %s\n' "$1" "$2"
  exit 0
fi
echo "\$@" >>"$work/linted.log"
FAKE
  chmod +x "$work/bin/clang-tidy"
}
# linted_by VERSION CPU: how many files tools/tidy.py lints with that clang-tidy.
linted_by() {
  fake_clang_tidy "$1" "$2"
  : >"$work/linted.log"
  PATH="$work/bin:$PATH" TIDY_CLEAN_LIST="$work/clean.txt" \
    "$checkout/tools/tidy.py" "$checkout" 1 "$checkout/a.cpp" >"$work/out.txt" ||
    cat "$work/out.txt"
  wc -l <"$work/linted.log"
}

check "a file never seen is linted" test "$(linted_by 14.0.6 znver3)" -eq 1
check "it is listed clean" grep -q "a.cpp" "$work/clean.txt"
check "on a machine whose CPU is named otherwise it is not linted again" \
  test "$(linted_by 14.0.6 icelake-client)" -eq 0
check "nor with no CPU named" test "$(linted_by 14.0.6 '(unknown)')" -eq 0
# A point release adds a declaration to a system header.
printf 'inline int c() { return 2; }\ninline int d() { return 3; }\n' >"$work/system/c.h"
check "a system header's change is not the checkout's: not linted again" \
  test "$(linted_by 14.0.6 znver3)" -eq 0
printf 'inline int b() { return 2; }\n' >"$checkout/b.h"
check "a change to the checkout's own header lints it again" test "$(linted_by 14.0.6 znver3)" -eq 1
printf '// NOLINT is a comment\n' >>"$checkout/a.cpp"
check "so does a comment's" test "$(linted_by 14.0.6 znver3)" -eq 1
check "another clang-tidy lints it again" test "$(linted_by 15.0.7 icelake-client)" -eq 1
printf 'int answer() { return 43; }\n' >"$checkout/a.cpp"
check "so does a change to the file" test "$(linted_by 15.0.7 icelake-client)" -eq 1
exit $status
