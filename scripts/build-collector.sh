#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the OpenTelemetry Collector that vtscope's OTLP tests and `make demo-otlp` use, from the
# Go module proxy with the Collector builder, into BUILD/collector/otelcol-vtscope. A second run
# with the same manifest is instant (the binary is kept with a stamp of the manifest's hash).
#   scripts/build-collector.sh [BUILD]     prints the binary's path on stdout
# Needs the Go toolchain (`go`); the Go module cache stays in Go's own place (GOMODCACHE).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build}")
manifest=$root/consumer/tests/collector/manifest.yaml
out=$build/collector
binary=$out/otelcol-vtscope
builder_version=v0.165.0

stamp=$( (cat "$manifest" "$(dirname "$manifest")"/otlpencodingextension-stub/*; echo "$builder_version") | sha256sum | cut -d' ' -f1)
if [ -x "$binary" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$binary"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  for g in /usr/local/go/bin/go /usr/lib/go/bin/go; do [ -x "$g" ] && PATH=$(dirname "$g"):$PATH; done
fi
command -v go >/dev/null 2>&1 || { echo "build-collector: no Go toolchain (go) on PATH" >&2; exit 1; }

mkdir -p "$out/bin"
builder=$out/bin/builder
if [ ! -x "$builder" ]; then
  echo "build-collector: installing the Collector builder $builder_version" >&2
  GOBIN=$out/bin go install "go.opentelemetry.io/collector/cmd/builder@$builder_version" >&2
fi

start=$(date +%s)
echo "build-collector: building otelcol-vtscope (about 5 minutes on 2 cores the first time)" >&2
sed -e "s|OUTPUT_PATH|$out/src|" -e "s|STUB_DIR|$(dirname "$manifest")/otlpencodingextension-stub|" "$manifest" > "$out/manifest.yaml"
"$builder" --config "$out/manifest.yaml" >&2
cp "$out/src/otelcol-vtscope" "$binary.tmp"
mv "$binary.tmp" "$binary"
echo "$stamp" > "$out/.stamp"
echo "build-collector: built in $(( $(date +%s) - start )) s" >&2
echo "$binary"
