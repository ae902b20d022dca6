#!/usr/bin/env bash
# make demo: run the bundled sample service (virtual thread per request, an OpenTelemetry span
# per request, file and loopback socket I/O) under its built-in load generator, trace it with
# vtscope, and summarise the attributed syscalls per trace id. Thin glue over the real binaries.
set -euo pipefail
build=${1:-build}
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
out="$build/demo"
mkdir -p "$out"
rm -f "$out"/{service.ready,go,vtscope.ready,trace.jsonl,service.out,service.err,vtscope.err}

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
"$java" --enable-native-access=ALL-UNNAMED -cp "$build/java/*:$build/java/lib/*" \
  io.vtscope.workloads.DemoService --requests 300 --concurrency 8 \
  --ready-file "$out/service.ready" --go-file "$out/go" >"$out/service.out" 2>"$out/service.err" &
service_pid=$!
wait_for "$out/service.ready" 60 "the sample service"

echo "demo: attaching vtscope to pid $service_pid"
"$build/bin/vtscope" trace --pid "$service_pid" --output "$out/trace.jsonl" \
  --ready-file "$out/vtscope.ready" 2>"$out/vtscope.err" &
tracer_pid=$!
wait_for "$out/vtscope.ready" 30 "vtscope"

echo "demo: sending 300 requests from the built-in load generator"
touch "$out/go"
wait "$service_pid"; service_pid=""
wait "$tracer_pid"; tracer_pid=""
cat "$out/vtscope.err"

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
