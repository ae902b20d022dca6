#!/bin/sh
# The otel_thread_ctx_v1 paths side by side in process CPU time (io.vtscope.bench.CpuCost):
# nothing of vtscope, -agentpath:libvtscope.so=otep (the mount hook) and =otep-jvmti (the JVMTI
# events), one JVM each, interleaved REPS times per workload, parallelism 1. Prints each JVM's
# medians, then per configuration the mean difference from the baseline JVM of the same
# repetition, with its 99.9% Student-t half-width (bench/RESULTS.md, "otel_thread_ctx_v1 on mount").
# Usage: bench/otep-cpu-cost.sh [REPS] [BUILD]
set -eu
REPS=${1:-5}
BUILD=${2:-build}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
LIB=$BUILD/native/libvtscope.so
JAR=java/vtscope-bench/target/vtscope-bench.jar
[ -f "$LIB" ] && [ -f "$JAR" ] || { echo "otep-cpu-cost: build $LIB and $JAR first (make BUILD=$BUILD java)" >&2; exit 1; }
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
for workload in transition parkunpark churn; do
    for rep in $(seq "$REPS"); do
        for config in baseline otep otep-jvmti; do
            agent=""
            [ "$config" = baseline ] || agent="-agentpath:$LIB=$config"
            # shellcheck disable=SC2086
            line=$("$JAVA" -Djdk.virtualThreadScheduler.parallelism=1 $agent -cp "$JAR" io.vtscope.bench.CpuCost "$workload" 9 3 2>/dev/null | tail -1)
            echo "$rep $config $line" | tee -a "$OUT"
        done
    done
done
python3 - "$OUT" <<'PY'
import sys, statistics, math
T = {1: 636.6, 2: 31.60, 3: 12.92, 4: 8.610, 5: 6.869, 6: 5.959, 7: 5.408, 8: 5.041, 9: 4.781, 10: 4.587, 11: 4.437, 12: 4.318, 13: 4.221, 14: 4.140, 15: 4.073, 16: 4.015, 17: 3.965, 18: 3.922, 19: 3.883}
rows = {}
for line in open(sys.argv[1]):
    rep, config, workload, _, cpu, _, wall = line.split()
    rows[(workload, config, rep)] = (float(cpu), float(wall))
unit = {"transition": "ns per mount or unmount", "parkunpark": "ns per mount or unmount", "churn": "ns per thread"}
print("| workload | config | CPU vs baseline | wall vs baseline | n |")
print("| --- | --- | --- | --- | --- |")
for workload in ["transition", "parkunpark", "churn"]:
    reps = sorted({r for (w, c, r) in rows if w == workload})
    base = [rows[(workload, "baseline", r)] for r in reps]
    print(f"| {workload} | baseline | {statistics.mean(b[0] for b in base):.0f} {unit[workload]} (CPU) | {statistics.mean(b[1] for b in base):.0f} (wall) | {len(reps)} |")
    for config in ["otep", "otep-jvmti"]:
        cells = []
        for k in (0, 1):
            d = [rows[(workload, config, r)][k] - rows[(workload, "baseline", r)][k] for r in reps]
            e = T[len(d) - 1] * statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
            cells.append(f"{statistics.mean(d):+.0f} ± {e:.0f}")
        print(f"| {workload} | {config} | {cells[0]} | {cells[1]} | {len(reps)} |")
PY
