#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make demo: run the bundled sample service (virtual thread per request, an OpenTelemetry span
# per request, file and loopback socket I/O) under its built-in load generator, trace it with
# vtscope, and summarise the attributed syscalls per trace id. Thin glue over the real binaries.
# With "profile" as the second argument (make demo-profile) it samples the service's CPU with
# vtscope profile --stacks instead and writes the flame graph $build/demo/profile.svg (the
# README's docs/profile-demo.svg comes from this run).
set -euo pipefail
build=${1:-build}
mode=${2:-trace}
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
out="$build/demo"
mkdir -p "$out"
rm -f "$out"/{service.ready,go,vtscope.ready,trace.jsonl,service.out,service.err,vtscope.err,profile.txt,profile.svg}
case "$mode" in
  trace) jvm_flags=(); service_flags=(); requests=300 ;;
  # Java frames in the stacks need frame pointers; a long warm-up leaves less JIT compilation in
  # the profile, and few requests keep the flame graph (one tower per request's trace) small.
  profile) jvm_flags=(-XX:+PreserveFramePointer); service_flags=(--warm-up-requests 4000); requests=${REQUESTS:-35} ;;
  *) echo "demo: unknown mode '$mode' (trace or profile)" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
  echo "demo: vtscope trace loads BPF programs and needs root; run 'sudo make demo'" >&2
  exit 1
fi

service_pid=""; tracer_pid=""
cleanup() { for p in $tracer_pid $service_pid; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_for() {  # file, seconds, what
  for _ in $(seq $(($2 * 10))); do [ -e "$1" ] && return 0; sleep 0.1; done
  echo "demo: $3 did not start; see $out" >&2; exit 1
}

echo "demo: starting the sample service (virtual thread per request, OpenTelemetry span per request)"
"$java" --enable-native-access=ALL-UNNAMED "${jvm_flags[@]}" -cp "$build/java/*:$build/java/lib/*" \
  io.vtscope.workloads.DemoService --requests "$requests" --concurrency 8 "${service_flags[@]}" \
  --ready-file "$out/service.ready" --go-file "$out/go" >"$out/service.out" 2>"$out/service.err" &
service_pid=$!
wait_for "$out/service.ready" 60 "the sample service"

echo "demo: attaching vtscope $mode to pid $service_pid"
if [ "$mode" = profile ]; then
  "$build/bin/vtscope" profile --pid "$service_pid" --hz 999 --stacks --output "$out/profile.txt" \
    --flamegraph "$out/profile.svg" --ready-file "$out/vtscope.ready" 2>"$out/vtscope.err" &
else
  "$build/bin/vtscope" trace --pid "$service_pid" --output "$out/trace.jsonl" \
    --ready-file "$out/vtscope.ready" 2>"$out/vtscope.err" &
fi
tracer_pid=$!
wait_for "$out/vtscope.ready" 30 "vtscope"

echo "demo: sending $requests requests from the built-in load generator"
touch "$out/go"
wait "$service_pid"; service_pid=""
wait "$tracer_pid"; tracer_pid=""
cat "$out/vtscope.err"
if [ "$mode" = profile ]; then
  sed -n '1,30p' "$out/profile.txt"
  echo
  echo "demo: the report: $out/profile.txt; the flame graph: $out/profile.svg"
  exit 0
fi

served=$(grep -c '^trace_id=' "$out/service.out" || true)
found=0
while read -r id; do
  grep -q "\"trace_id\":\"$id\"" "$out/trace.jsonl" && found=$((found + 1))
done < <(sed -n 's/^trace_id=\([0-9a-f]*\) .*/\1/p' "$out/service.out")
echo
echo "demo: $found of $served request traces appear in the trace with their syscalls"
echo
"$build/bin/vtscope" report "$out/trace.jsonl" --top 10
echo
echo "demo: JSON lines: $out/trace.jsonl"
