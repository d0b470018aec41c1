#!/usr/bin/env bash
# libtorch's headers only where tensors are, as a folder rule: core/, harness/, report/, model/
# and cli/ build without them, and every file of trainers/ needs them.
# - No object of the plain targets (the core library, the harness, the report, the cost model, the
#   dtbench program and the plain tests) included a header of libtorch (ATen, c10, torch), as the
#   compiler's own dependency files (*.o.d) list every header it read; the tensor library's
#   objects do include them (the check can see one). Every target is a unity build, so there is
#   one dependency file per batch of sources, and each plain target must have at least one.
# - No source of the plain folders names a libtorch header.
# - Every .cpp and .h of trainers/ reaches a libtorch header through its includes (its
#   dependency files are per batch, not per file).
#   usage: plain_targets_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
source_dir=$1 build=$2
source "$(dirname "$0")/check.sh"
libtorch='/(ATen|c10|torch)/'

plain=
for target in core harness report model cli tests/CMakeFiles/dtbench_unit_tests.dir; do
  found=$(find "$build/$target" -name '*.o.d')
  check "$target has dependency files to read" test -n "$found"
  plain="$plain $found"
done
offenders=$(grep -El "$libtorch" $plain)
check "no plain object included a libtorch header${offenders:+: $offenders}" test -z "$offenders"
tensors=$(find "$build/trainers/CMakeFiles/dtbench.dir" -name '*.o.d')
check "the tensor library's objects did (the check sees them)" grep -Eq "$libtorch" $tensors

named=$(cd "$source_dir" && grep -rlE '#include [<"](torch|ATen|c10)/' core harness report model cli)
check "no source of core, harness, report, model or cli names one${named:+: $named}" test -z "$named"

plain_trainers=$(cd "$source_dir" && python3 - <<'PY'
import os, re
include = re.compile(r'#include\s+([<"])([^>"]+)[>"]')
def resolve(name, at):
    for base in (os.path.dirname(at), "trainers", "core"):
        path = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(path):
            return path
    return None
seen = {}
def needs_torch(path):
    if path not in seen:
        seen[path] = False
        for kind, name in include.findall(open(path).read()):
            if re.match(r"(torch|ATen|c10)/", name) or (
                    kind == '"' and (found := resolve(name, path)) and needs_torch(found)):
                seen[path] = True
                break
    return seen[path]
for folder, _, names in os.walk("trainers"):
    for name in sorted(names):
        path = os.path.join(folder, name)
        if name.endswith((".cpp", ".h")) and not needs_torch(path):
            print(path)
PY
)
check "every file of trainers/ needs libtorch${plain_trainers:+; these do not: $plain_trainers}" \
  test -z "$plain_trainers"
exit $status
