#!/usr/bin/env bash
# The GitHub workflows (.github/workflows/*.yml) parse as YAML, every job has steps, and every
# `make TARGET` they run names a target the Makefile has (checked with make -n, which runs
# nothing). And bench.yml's comparison job, its own commands, on artifacts laid out as
# download-artifact lays them out: one runner's, and two (a Debian 12 and a Debian 13 stack).
#   usage: workflow_test.sh SOURCE_DIR DTBENCH SMOKE_RESULTS
set -uo pipefail
source_dir=$1 dtbench=$2 smoke=$3
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
# The commands of a step of bench.yml's compare job, by name.
step_run() {
  /usr/bin/python3 - "$source_dir/.github/workflows/bench.yml" "$1" <<'PY'
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["jobs"]["compare"]["steps"]
print(next(s["run"] for s in steps if s.get("name") == sys.argv[2]))
PY
}
# `make report` as the compare step runs it, by the dtbench built here.
make() {
  local arg dirs="" out=""
  for arg; do
    case $arg in
      REPORT_DIRS=*) dirs=${arg#REPORT_DIRS=} ;;
      REPORT=*) out=${arg#REPORT=} ;;
    esac
  done
  # shellcheck disable=SC2086 # the step's list of directories, split as make splits it
  "$dtbench" report $dirs -o "$out"
}
# merge-multiple puts every artifact's files in one tree: results/NAME/ and reports/NAME/.
for runners in 1 2; do
  tree=$work/compare-$runners
  mkdir -p "$tree/results/reference" "$tree/artifacts/results" "$tree/artifacts/reports"
  cp -r "$source_dir"/results/reference/stacks-smoke-local-debian12-epyc-vm "$tree/results/reference/"
  names=(smoke-ubuntu-24.04-debian12 smoke-ubuntu-24.04-arm-debian13)
  # Each runner a machine of its own name, the second on Debian 13's stack.
  for name in "${names[@]:0:$runners}"; do
    cp -r "$smoke" "$tree/artifacts/results/$name"
    mkdir -p "$tree/artifacts/reports/$name" && touch "$tree/artifacts/reports/$name/group.pdf"
    /usr/bin/python3 - "$tree/artifacts/results/$name/system.json" "$name" <<'PY'
import json, sys
system = json.load(open(sys.argv[1]))
system["hostname"] = sys.argv[2]
if sys.argv[2].endswith("debian13"):
    system["stack"] = {"libtorch": "2.6.0+dfsg-7", "mpi": "Open MPI 5.0.7"}
json.dump(system, open(sys.argv[1], "w"))
PY
  done
  (cd "$tree" && set -e && eval "$(step_run collect)" && eval "$(step_run compare)") \
    >"$work/compare-$runners.out" 2>&1
  code=$?
  check "compare, $runners runner(s): the job's own steps, exit 0 ($code)" test $code -eq 0
  check "compare, $runners runner(s): the reference and each runner a system" \
    test "$(grep -c '^### S[0-9]*: ' "$tree/report/build/report.md")" -eq $((runners + 1))
  check "compare, $runners runner(s): section 16 says what S$((runners + 1)) differs in" \
    grep -Eq "S$((runners + 1)) (is another machine|has S1's hardware)" "$tree/report/build/report.md"
done
exit $status
