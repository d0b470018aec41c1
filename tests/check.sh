# Sourced by the shell tests: a scratch directory $work removed at exit (with any background
# job still running, and whatever $cleanup says), and check NAME CONDITION... which prints
# ok/FAILED and records a failure in $status (the test exits with it); wait_until SECONDS
# CONDITION... polls the condition until it holds (status 0) or the deadline passes (status 1);
# kept DIR NAME [FIND-ARGS...] lists the files NAME under DIR that an experiment kept, not those
# of the noisy attempts the harness moved aside into attempt-<k>/; failures DIR prints the
# end of the stderr each failed experiment under DIR kept (its ranks' own words, lost with
# $work).
work=$(mktemp -d)
cleanup=:
trap 'eval "$cleanup"; kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
status=0
check() {
  local name=$1
  shift
  if "$@"; then echo "ok: $name"; else echo "FAILED: $name"; status=1; fi
}
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    test $SECONDS -lt $deadline || return 1
    sleep 0.2
  done
}
kept() {
  local dir=$1 name=$2
  shift 2
  find "$dir" -name "$name" -not -path '*/attempt-*/*' "$@"
}
# needs_root [DAEMON...]: exit 77 (ctest: skipped) unless this runs as root and each
# /usr/sbin/DAEMON is installed (make setup-cluster).
needs_root() {
  if [ "$(id -u)" -ne 0 ]; then echo "skipped: the emulated cluster needs root"; exit 77; fi
  local d
  for d in "$@"; do
    if [ ! -x "/usr/sbin/$d" ]; then echo "skipped: no $d (make setup-cluster)"; exit 77; fi
  done
}
failures() {
  local s
  for s in $(grep -rl '"status": *"failed"' "$1" --include=status.json 2>/dev/null); do
    echo "--- $(dirname "$s")/stderr.log"
    tail -n 60 "$(dirname "$s")/stderr.log"
  done
}
# slurm_job_ended ID: the job has left pending, running and completing (scontrol's line for it,
# in $slurm_job, says how it ended).
slurm_job_ended() {
  slurm_job=$(scontrol show job "$1" -o 2>/dev/null)
  [[ -n $slurm_job && ! $slurm_job =~ JobState=(PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED) ]]
}
# slurm_run SCRIPT SECONDS: sbatch SCRIPT, then wait for its job to end, polling scontrol
# (sbatch --wait polls at growing intervals: jobs of 11 s were seen ending 30 s before it
# returned). Prints "Submitted batch job N" and the job's end; status 0 only for a job that
# completed with exit code 0:0, and 1 (the job cancelled) past the deadline.
slurm_run() {
  local script=$1 seconds=$2 id
  id=$(sbatch --parsable "$script") || return 1
  echo "Submitted batch job $id"
  if ! wait_until "$seconds" slurm_job_ended "$id"; then
    echo "job $id: not ended within $seconds s; cancelled"
    scancel "$id"
    return 1
  fi
  grep -oE '(JobState|ExitCode)=[^ ]*' <<<"$slurm_job" | xargs echo "job $id:"
  [[ $slurm_job =~ JobState=COMPLETED && $slurm_job =~ ExitCode=0:0 ]]
}
