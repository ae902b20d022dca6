#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The otel_thread_ctx_v1 paths side by side in process CPU time (io.vtscope.bench.CpuCost):
# nothing of vtscope, -agentpath:libvtscope.so=otep (the mount hook), the same on a java.base the
# library patched (otep-patched: --patch-module java.base=DIR, written first with write-patch=DIR;
# no JVMTI environment), =otep-jvmti (the JVMTI events), and a JVMTI environment that does nothing
# after VMInit (jvmti-env: write-patch=DIR of a scratch directory, which only writes a patch there
# at VMInit), HotSpot's own cost of any environment; with OLD_LIB also =otep of another build of
# the library (otep-old: for example main's, to compare two hooks); one JVM each, interleaved
# REPS times per workload, parallelism 1.
# Prints each JVM's medians, then per configuration the mean difference from the baseline JVM of
# the same repetition, with its 99.9% Student-t half-width, and with OLD_LIB the paired
# difference otep - otep-old (bench/RESULTS.md, "otel_thread_ctx_v1 on mount").
# With JAVAAGENT=JAR in the environment (for example the OpenTelemetry Java agent, run with its
# exporters off) the configurations are instead nothing, otep, the Java agent alone ("javaagent")
# and the Java agent with otep ("javaagent+otep"), and the paired row javaagent+otep - javaagent
# gives what the hook adds to a JVM that already has a JVMTI environment (every -javaagent has
# one, through libinstrument), where HotSpot already takes its notifying transition path.
# With WORKLOADS="churn" (for example) only those workloads run; JVM_OPTS adds options to every JVM
# (for example a fixed heap, -Xms1g -Xmx1g, which takes heap resizing out of Churn's spread).
# Usage: [JAVAAGENT=JAR] [WORKLOADS=...] [JVM_OPTS=...] bench/otep-cpu-cost.sh [REPS] [BUILD] [OLD_LIB]
set -eu
REPS=${1:-5}
BUILD=${2:-build}
OLD_LIB=${3:-}
JAVAAGENT=${JAVAAGENT:-}
WORKLOADS=${WORKLOADS:-transition parkunpark churn}
JVM_OPTS=${JVM_OPTS:-}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
LIB=$BUILD/native/libvtscope.so
JAR=java/vtscope-bench/target/vtscope-bench.jar
[ -f "$LIB" ] && [ -f "$JAR" ] || { echo "otep-cpu-cost: build $LIB and $JAR first (make BUILD=$BUILD java)" >&2; exit 1; }
[ -z "$OLD_LIB" ] || [ -f "$OLD_LIB" ] || { echo "otep-cpu-cost: no library at $OLD_LIB" >&2; exit 1; }
[ -z "$JAVAAGENT" ] || [ -f "$JAVAAGENT" ] || { echo "otep-cpu-cost: no Java agent jar at $JAVAAGENT" >&2; exit 1; }
[ -z "$JAVAAGENT" ] || [ -z "$OLD_LIB" ] || { echo "otep-cpu-cost: JAVAAGENT and OLD_LIB are separate comparisons; give one" >&2; exit 1; }
case $REPS in '' | *[!0-9]*) echo "otep-cpu-cost: REPS must be a number of repetitions, not '$REPS'" >&2; exit 1 ;; esac
[ "$REPS" -ge 2 ] && [ "$REPS" -le 20 ] || { echo "otep-cpu-cost: REPS must be 2 to 20 (the t table's range)" >&2; exit 1; }
CONFIGS="baseline otep otep-patched jvmti-env otep-jvmti"
[ -z "$OLD_LIB" ] || CONFIGS="baseline otep otep-old otep-jvmti"
[ -z "$JAVAAGENT" ] || CONFIGS="baseline otep javaagent javaagent+otep"
# The agent's exporters off: it then connects nowhere and exports nothing.
AGENT_ARGS="-javaagent:$JAVAAGENT -Dotel.traces.exporter=none -Dotel.metrics.exporter=none -Dotel.logs.exporter=none"
OUT=$(mktemp)
PATCH=$(mktemp -d)
trap 'rm -rf "$OUT" "$PATCH"' EXIT
"$JAVA" -agentpath:"$LIB"=write-patch="$PATCH/java.base" -version 2>"$PATCH/write.err" ||
    { echo "otep-cpu-cost: write-patch failed: $(cat "$PATCH/write.err")" >&2; exit 1; }
for workload in $WORKLOADS; do
    for rep in $(seq "$REPS"); do
        for config in $CONFIGS; do
            case $config in
                baseline) agent="" ;;
                otep-old) agent="-agentpath:$OLD_LIB=otep" ;;
                otep-patched) agent="--patch-module=java.base=$PATCH/java.base -agentpath:$LIB=otep" ;;
                jvmti-env) agent="-agentpath:$LIB=write-patch=$PATCH/scratch-$rep-$workload" ;;
                javaagent) agent="$AGENT_ARGS" ;;
                javaagent+otep) agent="$AGENT_ARGS -agentpath:$LIB=otep" ;;
                *) agent="-agentpath:$LIB=$config" ;;
            esac
            # shellcheck disable=SC2086
            line=$("$JAVA" $JVM_OPTS -Djdk.virtualThreadScheduler.parallelism=1 $agent -cp "$JAR" io.vtscope.bench.CpuCost "$workload" 9 3 2>/dev/null | tail -1)
            echo "$rep $config $line" | tee -a "$OUT"
        done
    done
done
# Each line: REP CONFIG WORKLOAD cpu_ns_per_unit CPU wall_ns_per_unit WALL.
awk -v configs="$CONFIGS" -v workloads_run="$WORKLOADS" '
    # Two-sided 99.9% Student-t quantiles by degrees of freedom.
    BEGIN {
        split("636.6 31.60 12.92 8.610 6.869 5.959 5.408 5.041 4.781 4.587 4.437 4.318 4.221 4.140 4.073 4.015 3.965 3.922 3.883", T, " ")
        unit["transition"] = "ns per mount or unmount"; unit["parkunpark"] = "ns per mount or unmount"; unit["churn"] = "ns per thread"
        nconfigs = split(configs, config, " ")
    }
    NF != 7 || $4 != "cpu_ns_per_unit" { print "otep-cpu-cost: a JVM printed no result: " $0 > "/dev/stderr"; failed = 1; next }
    { cpu[$3, $2, $1] = $5; wall[$3, $2, $1] = $7; if ($1 > reps) reps = $1 }
    # "mean +- half-width" of the paired differences a - b over the repetitions of workload w.
    function diff(w, a, b, k,    r, d, s, ss, n, m) {
        n = 0; s = 0
        for (r = 1; r <= reps; r++) {
            d[r] = (k == "cpu") ? cpu[w, a, r] - cpu[w, b, r] : wall[w, a, r] - wall[w, b, r]
            s += d[r]; n++
        }
        m = s / n; ss = 0
        for (r = 1; r <= reps; r++) ss += (d[r] - m) ^ 2
        return sprintf("%+.0f ± %.0f", m, T[n - 1] * sqrt(ss / (n - 1)) / sqrt(n))
    }
    function mean(w, c, k,    r, s) {
        s = 0
        for (r = 1; r <= reps; r++) s += (k == "cpu") ? cpu[w, c, r] : wall[w, c, r]
        return s / reps
    }
    END {
        if (failed) exit 1
        print "| workload | config | CPU vs baseline | wall vs baseline | n |"
        print "| --- | --- | --- | --- | --- |"
        nworkloads = split(workloads_run, workloads, " ")
        for (i = 1; i <= nworkloads; i++) {
            w = workloads[i]
            printf "| %s | baseline | %.0f %s (CPU) | %.0f (wall) | %d |\n", w, mean(w, "baseline", "cpu"), unit[w], mean(w, "baseline", "wall"), reps
            for (c = 2; c <= nconfigs; c++)
                printf "| %s | %s | %s | %s | %d |\n", w, config[c], diff(w, config[c], "baseline", "cpu"), diff(w, config[c], "baseline", "wall"), reps
            if (configs ~ /otep-old/)
                printf "| %s | otep - otep-old (paired) | %s | %s | %d |\n", w, diff(w, "otep", "otep-old", "cpu"), diff(w, "otep", "otep-old", "wall"), reps
            if (configs ~ /javaagent/)
                printf "| %s | javaagent+otep - javaagent (paired) | %s | %s | %d |\n", w, diff(w, "javaagent+otep", "javaagent", "cpu"), diff(w, "javaagent+otep", "javaagent", "wall"), reps
        }
    }' "$OUT"
