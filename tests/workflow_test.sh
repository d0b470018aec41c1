#!/usr/bin/env bash
# The GitHub workflows (.github/workflows/*.yml) parse as YAML, every job has steps, and every
# `make TARGET` they run names a target the Makefile has (checked with make -n, which runs
# nothing).
#   usage: workflow_test.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
source "$(dirname "$0")/check.sh"

# The make targets a workflow runs, one line; exit 1 when it is not YAML with jobs and steps.
targets_of() {
  /usr/bin/python3 - "$1" <<'PY'
import re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
jobs = doc.get("jobs") or {}
assert jobs, "no jobs"
targets = set()
for job_name, job in jobs.items():
    steps = job.get("steps") or []
    assert steps, f"job {job_name} has no steps"
    for step in steps:
        for target in re.findall(r"(?m)(?:^|&&|;|\|\|)\s*make\s+([a-z][a-z0-9_-]*)",
                                 step.get("run", "")):
            targets.add(target)
print(" ".join(sorted(targets)))
PY
}

# The checks themselves: a package named make is not a target, a target the Makefile lacks is
# caught, and a file that is not YAML fails.
printf 'jobs:\n  a:\n    steps:\n      - run: apt-get install make sudo && make nosuch\n' >"$work/bad.yml"
check "the target of a planted step is read, not apt's package" test "$(targets_of "$work/bad.yml")" = nosuch
make -n -C "$source_dir" nosuch >/dev/null 2>&1
check "a target the Makefile lacks fails make -n" test $? -ne 0
printf 'jobs: [\n' >"$work/broken.yml"
targets_of "$work/broken.yml" >/dev/null 2>&1
check "a file that is not YAML fails" test $? -ne 0

for workflow in "$source_dir"/.github/workflows/*.yml; do
  name=$(basename "$workflow")
  targets=$(targets_of "$workflow")
  check "$name parses as YAML with jobs and steps" test $? -eq 0
  check "$name runs make targets" test -n "$targets"
  for target in $targets; do
    make -n -C "$source_dir" "$target" REPORT_DIRS=x >/dev/null 2>"$work/make.err"
    check "$name: make $target exists" test $? -eq 0
  done
done
exit $status
