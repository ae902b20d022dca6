#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs vtscope's libFuzzer targets (consumer/fuzz) over their committed seeds (thin glue).
#   scripts/fuzz.sh run BIN_DIR OUT_DIR SECONDS [TARGET...]   each BIN_DIR/TARGET_fuzz for SECONDS,
#       two at a time; one summary line per target; exit 1 if any found a crash (its input kept in
#       OUT_DIR/fuzz-artifacts/TARGET, the logs in OUT_DIR/fuzz-logs)
#   scripts/fuzz.sh smoke BINARY TARGET BUILD_DIR RUNS  one target for RUNS executions after its
#       seeds and regression inputs (the ctest label "fuzz" of make test)
# New inputs go to a scratch corpus (OUT_DIR/fuzz-corpus/TARGET, BUILD_DIR/fuzz-smoke/TARGET), never
# into the repository.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
fuzz_src=$repo/consumer/fuzz

# The seed directories of a target that exist: corpus/TARGET and regressions/TARGET.
seed_dirs() {
  local d
  for d in "$fuzz_src/corpus/$1" "$fuzz_src/regressions/$1"; do
    if [ -d "$d" ]; then echo "$d"; fi
  done
}

smoke() {
  local binary=$1 target=$2 build=$3 runs=$4
  local scratch=$build/fuzz-smoke/$target
  rm -rf "$scratch" && mkdir -p "$scratch" "$build/fuzz-artifacts/$target"
  # -runs counts the executions after the seeds are read; every seed and regression input runs
  # first, so a crash any of them reproduces fails the test.
  mapfile -t seeds < <(seed_dirs "$target")
  # An input that takes a minute means work that is not linear in it: a failure too.
  "$binary" -runs="$runs" -seed=1 -timeout=60 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$target/" "$scratch" "${seeds[@]}"
}

# One target for SECONDS; writes its log to OUT/fuzz-logs/TARGET.log, prints its summary line.
run_one() {
  local bin=$1 out=$2 seconds=$3 target=$4
  local binary=$bin/${target}_fuzz corpus=$out/fuzz-corpus/$target
  local log=$out/fuzz-logs/$target.log artifacts=$out/fuzz-artifacts/$target
  mkdir -p "$corpus" "$artifacts" "$out/fuzz-logs"
  mapfile -t seeds < <(seed_dirs "$target")
  local d
  for d in "${seeds[@]}"; do cp -n "$d"/* "$corpus"/ 2>/dev/null || true; done
  local result=ok
  "$binary" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || result=CRASH
  summarize "$target" "$log" "$result" "$artifacts"
  [ "$result" = ok ]
}

# "TARGET: execs N (M/s), cov C ft F, corpus K: ok|CRASH <artifact>" from a libFuzzer log.
summarize() {
  local target=$1 log=$2 result=$3 artifacts=$4
  local execs rate cov ft corp
  # A log without a line (a crash on the first input) leaves the field "?".
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  if [ "$result" != ok ]; then
    result="CRASH $(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1) (log $log)"
  fi
  printf '%-24s execs %s (%s/s), cov %s ft %s, corpus %s: %s\n' "$target" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
}

run() {
  local bin=$1 out=$2 seconds=$3
  shift 3
  local targets=("$@")
  if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cd "$fuzz_src" && ls ./*_fuzz.cpp | sed 's|^\./||; s|_fuzz\.cpp$||')
  fi
  local failed=0 pids=()
  for target in "${targets[@]}"; do
    # Two at a time: the machine's two cores.
    while [ ${#pids[@]} -ge 2 ]; do
      wait "${pids[0]}" || failed=1
      pids=("${pids[@]:1}")
    done
    run_one "$bin" "$out" "$seconds" "$target" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  if [ $failed -ne 0 ]; then
    echo "fuzz: a target found a crash; inputs kept in $out/fuzz-artifacts" >&2
  fi
  return $failed
}

case "${1:-}" in
  run) shift; run "$@" ;;
  smoke) shift; smoke "$@" ;;
  *) echo "usage: $0 run BIN_DIR OUT_DIR SECONDS [TARGET...] | smoke BINARY TARGET BUILD_DIR RUNS" >&2; exit 2 ;;
esac
