#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The OTLP encodings' CPU side by side: vtscope_otlp_encoding_bench (bench/otlp_encoding_bench.cpp)
# built from this tree (http/json, http/protobuf, grpc) and from the commit before the generated
# messages came in (the hand-written JSON encoder), in a scratch folder removed afterwards
# (BUILD/otlp-bench-old: laid out as the repository, so that ccache finds main's objects).
#   scripts/otlp-encoding-bench.sh [BUILD] [OLD_COMMIT]
# OLD_COMMIT: by default the parent of the commit that added cmake/OtlpProto.cmake.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build}")
old=${2:-$(git -C "$root" log --diff-filter=A --format=%H -- cmake/OtlpProto.cmake | tail -1)^}
scratch=$build/otlp-bench-old
rm -rf "$scratch"
trap 'rm -rf "$scratch"' EXIT

mkdir -p "$scratch"
git -C "$root" archive "$old" | tar -x -C "$scratch"
cp "$root/bench/otlp_encoding_bench.cpp" "$scratch/bench/"
printf '\nadd_executable(vtscope_otlp_encoding_bench otlp_encoding_bench.cpp)\ntarget_link_libraries(vtscope_otlp_encoding_bench PRIVATE vtscope_core)\n' \
  >> "$scratch/bench/CMakeLists.txt"
echo "otlp-encoding-bench: building the hand-written encoder of $(git -C "$root" rev-parse --short "$old")" >&2
cmake -S "$scratch" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVTSCOPE_TESTS=OFF >/dev/null
nice -n 5 cmake --build "$scratch/build" --target vtscope_otlp_encoding_bench >/dev/null
nice -n 5 cmake --build "$build" --target vtscope_otlp_encoding_bench >/dev/null

echo "old: $(git -C "$root" rev-parse --short "$old"), new: $(git -C "$root" rev-parse --short HEAD)"
"$scratch/build/bin/vtscope_otlp_encoding_bench"
"$build/bin/vtscope_otlp_encoding_bench" | tail -n +2
