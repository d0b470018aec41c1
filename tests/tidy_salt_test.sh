#!/usr/bin/env bash
# make tidy skips a file whose exact input was found clean before (tools/tidy.py), and that input
# is the same on every machine with the same clang-tidy: its version line, not the host CPU that
# `clang-tidy --version` also prints. A fake clang-tidy on PATH logs each file it lints.
#   usage: tidy_salt_test.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
source "$(dirname "$0")/check.sh"

printf 'int answer() { return 42; }\n' >"$work/a.cpp"
printf '[{"directory": "%s", "file": "%s/a.cpp", "command": "c++ -c %s/a.cpp -o %s/a.o"}]\n' \
  "$work" "$work" "$work" "$work" >"$work/compile_commands.json"
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
    "$source_dir/tools/tidy.py" "$work" 1 "$work/a.cpp" >"$work/out.txt" || cat "$work/out.txt"
  wc -l <"$work/linted.log"
}

check "a file never seen is linted" test "$(linted_by 14.0.6 znver3)" -eq 1
check "it is listed clean" grep -q "a.cpp" "$work/clean.txt"
check "on a machine whose CPU is named otherwise it is not linted again" \
  test "$(linted_by 14.0.6 icelake-client)" -eq 0
check "nor with no CPU named" test "$(linted_by 14.0.6 '(unknown)')" -eq 0
check "another clang-tidy lints it again" test "$(linted_by 15.0.7 icelake-client)" -eq 1
printf 'int answer() { return 43; }\n' >"$work/a.cpp"
check "so does a change to the file" test "$(linted_by 15.0.7 icelake-client)" -eq 1
exit $status
