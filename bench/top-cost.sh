#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What `vtscope top` costs (docs/user-guide.md, "vtscope top"): bench/TopLoad.java's 10,000 live
# virtual threads (each under its own trace, about 10,000 wake-ups and writes a second in all),
# then phases of SECONDS each: nothing attached, `top -b` at 1 s refresh, `stat` and `block`
# together (what top must not exceed), nothing again. Per phase it prints the target's CPU per
# second (/proc/PID/stat utime + stime) and, for the attached ones, each vtscope's CPU per
# second in its steady state (the same fields, read 2 s after its ready file and at the phase's
# end: the attach is a one-off and not counted). Thin glue; needs root (BPF).
# usage: bench/top-cost.sh [BUILD [SECONDS [THREADS]]]
set -euo pipefail
build=${1:-build}
seconds=${2:-15}
threads=${3:-10000}
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
jar=${VTSCOPE_JAVA_JAR:-$build/java/vtscope-java.jar}
vtscope=$build/bin/vtscope
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$out"; }
trap cleanup EXIT

ticks=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }  # utime + stime, clock ticks (proc(5))
wait_for() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done; echo "top-cost: $1 never came" >&2; exit 1; }

"$java" --enable-native-access=ALL-UNNAMED -cp "$jar" "$here/TopLoad.java" "$threads" "$out/load.ready" \
  >"$out/load.out" 2>"$out/load.err" &
load=$!
pids+=("$load")
wait_for "$out/load.ready"
sleep 5  # the threads' first wake-ups spread out

# phase NAME COMMAND...: each COMMAND is "vtscope ARGS" started with its own ready file.
phase() {
  local name=$1
  shift
  local sessions=() i=0
  for args in "$@"; do
    # shellcheck disable=SC2086
    "$vtscope" $args --pid "$load" --ready-file "$out/r$i" >"$out/o$i" 2>"$out/e$i" &
    sessions+=("$!")
    pids+=("$!")
    i=$((i + 1))
  done
  for ((j = 0; j < i; j++)); do wait_for "$out/r$j"; done
  [ "$i" -gt 0 ] && sleep 2
  local t0 v0=() k
  t0=$(cpu "$load")
  for k in "${sessions[@]}"; do v0+=("$(cpu "$k")"); done
  sleep "$seconds"
  local line
  line=$(awk -v a="$t0" -v b="$(cpu "$load")" -v s="$seconds" -v t="$ticks" -v n="$name" \
    'BEGIN { printf "%-14s target %6.1f%% of a core", n, (b - a) / t / s * 100 }')
  for ((j = 0; j < i; j++)); do
    line+=$(awk -v a="${v0[$j]}" -v b="$(cpu "${sessions[$j]}")" -v s="$seconds" -v t="$ticks" \
      -v n="$(cut -d' ' -f1 <<<"${@:$((j + 1)):1}")" 'BEGIN { printf ", vtscope %s %.2f%%", n, (b - a) / t / s * 100 }')
  done
  for k in "${sessions[@]}"; do kill -INT "$k"; wait "$k" || true; done
  for ((j = 0; j < i; j++)); do rm -f "$out/r$j"; done
  echo "$line"
}

echo "top-cost: $threads live virtual threads, pid $load, $seconds s a phase, $(nproc) CPUs"
phase none
phase top "top -b --interval 1 --iterations 100000"
phase stat+block "stat --output /dev/null" "block --output /dev/null"
phase none
