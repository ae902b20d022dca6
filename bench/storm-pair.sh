#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two vtscope builds side by side on one write storm (issue 9): both `vtscope trace --syscalls
# write` attach to the same io.vtscope.bench.WriteStorm JVM (one writing virtual thread on CPU 0,
# both tracers on CPU 1), so each program runs on the same syscalls under the same machine noise;
# the kernel's run-time statistics (bpf_stats) give each one's ns per run. The program attached
# second runs with the first one's cache lines warm (about 15 ns here): run both orders.
#   bench/storm-pair.sh VTSCOPE_A VTSCOPE_B [SECONDS]       (as root, after make)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/storm-pair.sh VTSCOPE_A VTSCOPE_B [SECONDS]" >&2; exit 2; }
a=$1 b=$2 seconds=${3:-4}
java=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
jar=${JAR:-java/vtscope-bench/target/vtscope-bench.jar}
for f in "$a" "$b" "$jar"; do [ -e "$f" ] || { echo "storm-pair: no $f" >&2; exit 1; }; done
command -v bpftool >/dev/null && command -v jq >/dev/null || { echo "storm-pair: needs bpftool and jq" >&2; exit 1; }
out=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; sysctl -q kernel.bpf_stats_enabled=0; rm -rf "$out"; }
trap cleanup EXIT
sysctl -q kernel.bpf_stats_enabled=1
intervals=$(( (seconds + 8) * 2 ))
taskset -c 0 "$java" -Xms256m -Xmx256m --enable-native-access=ALL-UNNAMED -cp "$jar" io.vtscope.bench.WriteStorm 1 3000 500 "$intervals" >"$out/storm.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q '^# writestorm started' "$out/storm.out" && break; sleep 0.1; done
pid=$(grep -o 'pid=[0-9]*' "$out/storm.out" | cut -d= -f2)
[ -n "$pid" ] || { echo "storm-pair: the write storm did not start" >&2; exit 1; }
for bin in "$a" "$b"; do
  taskset -c 1 "$bin" trace --pid "$pid" --syscalls write --output /dev/null --ready-file "$out/ready" 2>>"$out/tracers.err" &
  pids+=($!)
  for _ in $(seq 100); do [ -e "$out/ready" ] && break; sleep 0.1; done
  rm -f "$out/ready"
done
sleep 3
# The syscall programs of vtscope trace are on_sys_enter_N (syscalls.bpf.c); write has 3 arguments.
snapshot() { bpftool prog show -j | jq -r '.[] | select(.name == "on_sys_enter_3") | "\(.id) \(.run_time_ns) \(.run_cnt)"' | sort -n; }
before=$(snapshot); sleep "$seconds"; after=$(snapshot)
paste -d" " <(echo "$before") <(echo "$after") | awk -v a="$a" -v b="$b" '
  { name = NR == 1 ? a : b; printf "%s (attached %s): %.1f ns per run over %d runs\n", name, NR == 1 ? "first" : "second", ($5 - $2) / ($6 - $3), $6 - $3 }'
