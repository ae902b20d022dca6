#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kernel's run time of the 999 Hz sampling programs, per program run, on one demo service JVM:
# vtscope profile with and without --stacks beside bpftrace programs on the same per-CPU cpu-clock
# events (empty; counting the target's user stack ids, kernel stack ids, or both, as
# vtscope-bench's sampler-N-stacks does). What it separates: vtscope's attribution from the
# kernel's stack walks (bpf_get_stackid), which any sampler that takes stacks pays.
# Usage (root, after make all): bench/profile-bpf-stats.sh [ROUNDS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
seconds=${2:-10}
[ "$(id -u)" = 0 ] || { echo "profile-bpf-stats.sh: needs root (BPF, kernel.bpf_stats_enabled)" >&2; exit 1; }
for tool in bpftrace bpftool; do
    command -v $tool > /dev/null || { echo "profile-bpf-stats.sh: $tool is not installed" >&2; exit 1; }
done
java_home=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
work=$(mktemp -d /tmp/profile-bpf-stats.XXXXXX)
jvm=
consumer=
stats_before=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
    [ -n "$consumer" ] && kill -INT "$consumer" 2> /dev/null && wait "$consumer" 2> /dev/null || true
    [ -n "$jvm" ] && kill "$jvm" 2> /dev/null && wait "$jvm" 2> /dev/null || true
    sysctl -q kernel.bpf_stats_enabled="$stats_before"
    rm -rf "$work"
}
trap cleanup EXIT

# Ten loads of 100,000 requests, each released at once: load enough for every configuration.
for i in $(seq 1 10); do touch "$work/go.$i"; done
"$java_home/bin/java" -Xms1g -Xmx1g -XX:+PreserveFramePointer --enable-native-access=ALL-UNNAMED \
    -cp "build/java/vtscope-workloads.jar:build/java/vtscope-java.jar:build/java/vtscope-otel.jar:build/java/lib/*" \
    io.vtscope.workloads.DemoService --requests 100000 --concurrency 8 --warm-up-requests 30000 \
    --ready-file "$work/ready" --go-file "$work/go" --batches 10 > "$work/demo.out" 2> "$work/demo.err" &
jvm=$!
until [ -f "$work/ready" ]; do
    kill -0 "$jvm" 2> /dev/null || { echo "profile-bpf-stats.sh: the demo service exited:" >&2; cat "$work/demo.err" >&2; exit 1; }
    sleep 0.5
done
sleep 5
sysctl -q kernel.bpf_stats_enabled=1

# The run time and run count of the loaded perf_event program named $1 (bpftool -j prog show).
program_stats() {
    bpftool -j prog show | tr '}' '\n' | grep "\"type\":\"perf_event\",\"name\":\"$1\"" |
        sed -n 's/.*"run_time_ns":\([0-9]*\),"run_cnt":\([0-9]*\).*/\1 \2/p' | head -1
}

echo "round config run_time_ms runs us_per_run"
for round in $(seq 1 "$rounds"); do
    for config in vtscope-stacks bpftrace-stacks bpftrace-user-stacks bpftrace-kernel-stacks vtscope bpftrace-empty; do
        filter="/pid == $jvm/"
        case $config in
            vtscope-stacks | vtscope)
                extra=""
                [ $config = vtscope-stacks ] && extra="--stacks"
                build/bin/vtscope profile --pid "$jvm" --hz 999 $extra --duration $((seconds + 5)) --output /dev/null \
                    > "$work/consumer.out" 2> "$work/consumer.err" &
                name=on_cpu_sample ;;
            bpftrace-stacks) program="profile:hz:999 $filter { @[ustack, kstack] = count(); } END { clear(@); }" ;;
            bpftrace-user-stacks) program="profile:hz:999 $filter { @[ustack] = count(); } END { clear(@); }" ;;
            bpftrace-kernel-stacks) program="profile:hz:999 $filter { @[kstack] = count(); } END { clear(@); }" ;;
            bpftrace-empty) program="profile:hz:999 { }" ;;
        esac
        if [[ $config == bpftrace-* ]]; then
            bpftrace -e "$program" > "$work/consumer.out" 2> "$work/consumer.err" &
            name=999 # bpftrace names a profile:hz:N program N
        fi
        consumer=$!
        sleep "$seconds"
        read -r run_time runs <<< "$(program_stats $name)" || true
        kill -INT "$consumer" 2> /dev/null || true
        wait "$consumer" 2> /dev/null || true
        consumer=
        if [ -z "${runs:-}" ] || [ "$runs" = 0 ]; then
            echo "profile-bpf-stats.sh: $config: no program run (see its stderr below)" >&2
            cat "$work/consumer.err" >&2
            exit 1
        fi
        awk -v r="$round" -v c="$config" -v t="$run_time" -v n="$runs" \
            'BEGIN { printf "%s %s %.1f %d %.2f\n", r, c, t / 1e6, n, t / n / 1e3 }'
        sleep 2
    done
done
