#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The agent extension's cost (issue 13): JMH AgentContextPublication under the OpenTelemetry Java
# agent alone and with vtscope's extension, side by side: ROUNDS rounds, each running both
# configurations one after the other (1 fork each), so machine noise hits both alike. Prints each
# JMH result line and, per benchmark, both means over the rounds and their ratio.
#   bench/agent-extension-jmh.sh [BUILD_DIR] [ROUNDS]     (after make; BUILD_DIR default build)
# PROBE_ONLY=1 runs only the CPU-time probe (AgentCostProbe), not JMH; JMH_ONLY=1 only JMH;
# PROBE_THREADS (default "platform virtual") chooses the threads the probe runs on.
set -euo pipefail
build=${1:-build}
rounds=${2:-3}
java=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
jar=java/vtscope-bench/target/vtscope-bench.jar
agent=$build/java/agent/opentelemetry-javaagent.jar
extension=$build/java/vtscope-otel-agent-extension.jar
for f in "$jar" "$agent" "$extension"; do
  [ -f "$f" ] || { echo "agent-extension-jmh: no $f (run make first)" >&2; exit 1; }
done

out=${KEEP_DIR:-$(mktemp -d)}
mkdir -p "$out"
# The uber-jar holds vtscope-otel.jar too: its provider is kept out in both configurations
# (contextStorageProvider=default), so the application side is the same in both.
common="--enable-native-access=ALL-UNNAMED -Dio.opentelemetry.context.contextStorageProvider=default -javaagent:$agent -Dotel.traces.exporter=none -Dotel.metrics.exporter=none -Dotel.logs.exporter=none"
# CPU time per pair (AgentCostProbe): the estimate that survives a machine shared with other
# builds, where the wall-clock scores below spread by hundreds of ns (and by tens on a quiet one).
for r in $(seq 1 "$rounds"); do
  [ -n "${JMH_ONLY:-}" ] && break
  for thread in ${PROBE_THREADS:-platform virtual}; do
    for config in agent agent+extension; do
      args=$common
      [ "$config" = agent+extension ] && args="$args -Dotel.javaagent.extensions=$extension"
      # shellcheck disable=SC2086
      "$java" $args -cp "$jar" io.vtscope.bench.AgentCostProbe "$config" 15 1000000 "$thread" 2>&1 | grep "^AgentCostProbe" | sed "s/^/round $r: /"
    done
  done
done
[ -n "${PROBE_ONLY:-}" ] && exit 0
for r in $(seq 1 "$rounds"); do
  for config in agent agent+extension; do
    args=$common
    [ "$config" = agent+extension ] && args="$args -Dotel.javaagent.extensions=$extension"
    # -Djmh.ignoreLock: /tmp/jmh.lock is shared with other JMH runs on this machine.
    "$java" -Djmh.ignoreLock=true -jar "$jar" AgentContextPublication -f 1 -wi 3 -w 1s -i 5 -r 1s -p config="$config" \
      -jvmArgsAppend "$args" -rf csv -rff "$out/$r-$config.csv" >"$out/$r-$config.log" 2>&1 \
      || { cat "$out/$r-$config.log" >&2; exit 1; }
    grep -E '^AgentContextPublication\.' "$out/$r-$config.log" | sed "s/^/round $r: /"
  done
done
# Per benchmark and config: the mean of the rounds' scores, the spread (min-max) and the ratio.
cat "$out"/*.csv | grep -v '^"Benchmark"' | tr -d '"' | awk -F, '
  { key = $1 SUBSEP $8; n[key]++; s[key] += $5; e[key] += $6;
    if (!(key in lo) || $5 < lo[key]) lo[key] = $5; if (!(key in hi) || $5 > hi[key]) hi[key] = $5; b[$1] = 1 }
  END {
    for (bench in b) {
      a = bench SUBSEP "agent"; x = bench SUBSEP "agent+extension";
      if (!(a in n) || !(x in n)) continue;
      ma = s[a] / n[a]; mx = s[x] / n[x];
      printf "%s: agent %.2f ns (rounds %.2f..%.2f, mean JMH error %.2f), agent+extension %.2f ns (rounds %.2f..%.2f, mean JMH error %.2f); difference %+.2f ns, ratio %.3f (range %.3f..%.3f)\n",
        bench, ma, lo[a], hi[a], e[a] / n[a], mx, lo[x], hi[x], e[x] / n[x], mx - ma, mx / ma, lo[x] / hi[a], hi[x] / lo[a]
    }
  }'
[ -n "${KEEP_DIR:-}" ] || rm -rf "$out"
