#!/usr/bin/env bash
# scripts/npgpu-survey on this machine (two local ranks, no GPU: the host parts).
#   survey_test.sh NPGPU WORK
# 1. bad input: one line naming what is wrong, exit 2;
# 2. a step that fails (an npgpu that refuses --pairs all, standing in for a broken path) is
#    recorded and the survey goes on to the next steps, exiting 1;
# 3. a rerun into the same folder repeats none of the finished steps and runs the failed one;
# 4. the summary leads with the load's impact where the report states one, and with a layer far
#    below the one under it (a planted MPI setting); the load steps say why they cannot run here;
# 5. a step over its budget is stopped, its finished sizes kept in an incomplete run.
set -euo pipefail
npgpu=$1 work=$2
# shellcheck source=tests/batch/common.sh
. "$(dirname "$0")/common.sh"
survey=$root/scripts/npgpu-survey
status_of() { grep "^$2 " "$1/summary.txt" | sed "s/^$2 *//"; }
expect_status() {
  local folder=$1 step=$2 pattern=$3
  status_of "$folder" "$step" | grep -Eq "$pattern" || fail "step $step: '$(status_of "$folder" "$step")', expected /$pattern/"
}

# 1. Bad input.
expect_refusal() {
  local expected=$1 rc=0 message
  shift
  message=$("$survey" --npgpu "$npgpu" "$@" 2>&1 >/dev/null) || rc=$?
  [ "$rc" = 2 ] || fail "npgpu-survey $*: exit $rc, expected 2"
  [[ $(wc -l <<<"$message") == 1 && $message == *"$expected"* ]] ||
    fail "npgpu-survey $*: '$message', expected one line with '$expected'"
}
expect_refusal "--ranks is missing" -o "$work/refused"
expect_refusal "--ranks '0' is not allowed" --ranks 0
expect_refusal "--launcher 'aprun' is not allowed: choose mpirun or srun" --ranks 2 --launcher aprun
expect_refusal "every node needs the same number of ranks" --ranks 3 --nodes 2
expect_refusal "unknown argument '--frobnicate'" --ranks 2 --frobnicate

# 2. A failing step is recorded and the survey goes on.
cat >"$work/npgpu-broken-all" <<SH
#!/bin/sh
case " \$* " in *" --pairs all "*) echo "npgpu-broken-all: refusing --pairs all" >&2; exit 1 ;; esac
exec "$npgpu" "\$@"
SH
chmod +x "$work/npgpu-broken-all"
folder=$work/survey
options=(--ranks 2 -o "$folder" --upper 4K --sizes "8,4K" -- --fac2 --cache warm --trial-time 0.002 --max-trials 3)
rc=0
"$survey" --npgpu "$work/npgpu-broken-all" "${options[@]}" >"$work/first.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "a survey with a failed step exited $rc, expected 1"
expect_status "$folder" mpi-HH-all "^FAILED: exit code [1-9]"
grep -q "refusing --pairs all" "$folder/steps/mpi-HH-all.log" || fail "the failed step's log lacks its error"
for step in mpi-HH-pair-latency mpi-HH-pair-throughput tcp-pair-throughput plots; do
  expect_status "$folder" "$step" "^done"
done
# With 2 ranks --pairs halves is the pair the throughput step measured: not measured again.
expect_status "$folder" mpi-HH-halves "^not run: with 2 ranks --pairs halves is the pair 0:1"
for step in h2d-alone d2h-together p2p-all mpi-DD-pair-latency cudaIpc-pair-throughput nccl-all cudaIpc-under-cudaIpc-load; do
  expect_status "$folder" "$step" "^not run: no GPU"
done
expect_status "$folder" mpi-under-tcp-load "^not run: needs 2 nodes or more"
# The summary opens with what limits the allocation (the report's findings: here one pair, its
# matrix), before the list of steps.
limits_line=$(grep -n "^What limits this allocation:" "$folder/summary.txt" | cut -d: -f1)
first_step=$(grep -n "^mpi-HH-pair-latency " "$folder/summary.txt" | cut -d: -f1)
[[ -n $limits_line && -n $first_step && $limits_line -lt $first_step ]] ||
  fail "the summary does not open with what limits the allocation: $(cat "$folder/summary.txt")"
sed -n "$((limits_line + 1))p" "$folder/summary.txt" | grep -Eq "^  (mpi |nothing stands out)" ||
  fail "no finding under 'What limits this allocation': $(cat "$folder/summary.txt")"
# info and report run when this npgpu has them, and the summary says so when it does not.
for subcommand in info report; do
  if [ "$("$npgpu" "$subcommand" --help 2>&1)" != "$("$npgpu" --help 2>&1)" ]; then
    expect_status "$folder" "$subcommand" "^done"
  else
    expect_status "$folder" "$subcommand" "^not run: this npgpu has no '$subcommand' subcommand yet"
  fi
done
/usr/bin/python3 "$root/tests/batch/check_record.py" "$folder/survey.h5" --runs 3 --modules mpi,mpi,tcp ||
  fail "after the first survey the record is not two complete mpi runs and the tcp one under them"
[ -s "$folder/plots/curves.png" ] || fail "no plot"

# 3. The rerun repeats no finished step and runs the one that failed.
"$survey" --npgpu "$npgpu" "${options[@]}" >"$work/rerun.out" 2>&1 || fail "the rerun failed: $(tail -n 5 "$work/rerun.out")"
for step in mpi-HH-pair-latency mpi-HH-pair-throughput; do
  grep -q "^npgpu-survey: $step: done by an earlier survey into this folder, not repeated" "$work/rerun.out" ||
    fail "the rerun did not skip $step"
done
expect_status "$folder" mpi-HH-all "^done"
/usr/bin/python3 "$root/tests/batch/check_record.py" "$folder/survey.h5" --runs 4 --modules mpi,mpi,tcp,mpi ||
  fail "after the rerun the record is not the three runs plus the all-pairs one"

# 3b. The summary leads with the load's impact where the report states one (its load lines): an
#     npgpu whose report adds such a line stands in for a survey whose load steps ran.
cat >"$work/npgpu-loaded-report" <<SH
#!/bin/sh
if [ "\$1 \$2" = "report --json" ]; then
  "$npgpu" "\$@" | /usr/bin/python3 -c 'import json, sys; r = json.load(sys.stdin); r["load"] = [{"heading": "mpi pingpong, pairs all, under a tcp stream load", "lines": ["victims across the split: 8 B one-way x6.2 under load"]}]; print(json.dumps(r))'
  exit
fi
exec "$npgpu" "\$@"
SH
chmod +x "$work/npgpu-loaded-report"
"$survey" --npgpu "$work/npgpu-loaded-report" "${options[@]}" >"$work/loaded.out" 2>&1 ||
  fail "the survey with a loaded report failed: $(tail -n 5 "$work/loaded.out")"
limits_line=$(grep -n "^What limits this allocation:" "$folder/summary.txt" | cut -d: -f1)
sed -n "$((limits_line + 1))p" "$folder/summary.txt" | grep -q "^  mpi pingpong, pairs all, under a tcp stream load: victims across the split: 8 B one-way x6.2 under load$" ||
  fail "the summary does not lead with the load's impact: $(cat "$folder/summary.txt")"

# 4. The summary leads with a layer far below the one under it: MPI over its TCP transport with its
#    socket buffers planted at 4 KiB keeps about a tenth of what raw TCP moves between the same pair.
OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_sndbuf=4096 OMPI_MCA_btl_tcp_rcvbuf=4096 \
  "$survey" --npgpu "$npgpu" --ranks 2 -o "$work/starved" --upper 64K --sizes 8 -- --fac2 --cache warm --trial-time 0.002 \
  --max-trials 3 >"$work/starved.out" 2>&1 || fail "the survey of a starved MPI failed: $(tail -n 5 "$work/starved.out")"
limits_line=$(grep -n "^What limits this allocation:" "$work/starved/summary.txt" | cut -d: -f1)
sed -n "$((limits_line + 1))p" "$work/starved/summary.txt" | grep -q "^  mpi moves host memory at .* of what tcp moves.*btl_tcp_sndbuf=4096" ||
  fail "the summary does not lead with MPI far below TCP: $(cat "$work/starved/summary.txt")"

# 5. A step over its budget: stopped by SIGTERM, its finished sizes kept.
rc=0
"$survey" --npgpu "$npgpu" --ranks 2 -o "$work/budget" --budget 15 --run "--module mpi --trial-time 0.1 --min-trials 3 --cache warm" \
  >"$work/budget.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "a survey whose step ran over its budget exited $rc, expected 1"
expect_status "$work/budget" run "^FAILED: over its budget of 15 s"
/usr/bin/python3 "$root/tests/batch/check_record.py" "$work/budget/survey.h5" --runs 1 --status incomplete --min-sizes 2 ||
  fail "the step stopped at its budget left no incomplete run with its finished sizes"
echo "PASS: survey"
