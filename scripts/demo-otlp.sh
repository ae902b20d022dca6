#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make demo-otlp: the demo service (300 requests, a span each) traced by vtscope with --otlp into
# an OpenTelemetry Collector built by scripts/build-collector.sh (file exporter, JSON lines), then
# vtscope-otlp-check compares the Collector's log records with vtscope's own JSON lines and looks
# for every request's trace id. Thin glue over the real binaries. OTLP_PORT (default 4318).
set -euo pipefail
build=${1:-build}
port=${OTLP_PORT:-4318}
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
root=$(cd "$(dirname "$0")/.." && pwd)
out="$build/demo-otlp"
mkdir -p "$out"
rm -f "$out"/{service.ready,go,vtscope.ready,trace.jsonl,collector.jsonl,service.out,service.err,vtscope.err,collector.err,summary.json}

if [ "$(id -u)" -ne 0 ]; then
  echo "demo-otlp: vtscope trace loads BPF programs and needs root; run 'sudo make demo-otlp'" >&2
  exit 1
fi

collector=$("$root/scripts/build-collector.sh" "$build")

service_pid=""; tracer_pid=""; collector_pid=""
cleanup() { for p in $tracer_pid $service_pid $collector_pid; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_for() {  # file, seconds, what
  for _ in $(seq $(($2 * 10))); do [ -e "$1" ] && return 0; sleep 0.1; done
  echo "demo-otlp: $3 did not start; see $out" >&2; exit 1
}

echo "demo-otlp: starting the Collector (OTLP/HTTP on 127.0.0.1:$port, file exporter to $out/collector.jsonl)"
VTSCOPE_OTLP_PORT=$port VTSCOPE_COLLECTOR_OUT=$out/collector.jsonl \
  "$collector" --config "$root/consumer/tests/collector/config.yaml" 2>"$out/collector.err" &
collector_pid=$!
for _ in $(seq 300); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$collector_pid" 2>/dev/null || { echo "demo-otlp: the Collector exited; see $out/collector.err" >&2; exit 1; }
  sleep 0.1
done

echo "demo-otlp: starting the sample service"
"$java" --enable-native-access=ALL-UNNAMED -cp "$build/java/*:$build/java/lib/*" \
  io.vtscope.workloads.DemoService --requests 300 --concurrency 8 \
  --ready-file "$out/service.ready" --go-file "$out/go" >"$out/service.out" 2>"$out/service.err" &
service_pid=$!
wait_for "$out/service.ready" 60 "the sample service"

echo "demo-otlp: attaching vtscope to pid $service_pid with --otlp http://127.0.0.1:$port"
"$build/bin/vtscope" trace --pid "$service_pid" --output "$out/trace.jsonl" --otlp "http://127.0.0.1:$port" \
  --service vtscope-demo --summary-json "$out/summary.json" --ready-file "$out/vtscope.ready" 2>"$out/vtscope.err" &
tracer_pid=$!
wait_for "$out/vtscope.ready" 30 "vtscope"

echo "demo-otlp: sending 300 requests"
touch "$out/go"
wait "$service_pid"; service_pid=""
wait "$tracer_pid"; tracer_pid=""
cat "$out/vtscope.err"
kill -TERM "$collector_pid"; wait "$collector_pid" || true; collector_pid=""

echo
"$build/bin/vtscope-otlp-check" "$out/trace.jsonl" "$out/collector.jsonl" --traces "$out/service.out"
echo
echo "demo-otlp: vtscope's JSON lines: $out/trace.jsonl; the Collector's output: $out/collector.jsonl"
