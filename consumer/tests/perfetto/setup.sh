#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Python side of the Perfetto timeline test (block_test.cpp, perfetto_check.py), installed once
# under DIR (the build tree's perfetto-py) and reused: Perfetto's own decoder, the perfetto_trace_pb2
# module the PyPI wheel `perfetto` carries (generated from protos/perfetto/trace/perfetto_trace.proto),
# and the protobuf runtime it was generated for (its header: "Protobuf Python Version: 6.31.1").
# Usage: setup.sh DIR. Prints nothing on success but DIR's state; exits non-zero on failure.
set -eu
dir=$1
perfetto_version=0.59.1
protobuf_version=6.31.1
stamp="$dir/.installed-perfetto-$perfetto_version-protobuf-$protobuf_version"
[ -f "$stamp" ] && exit 0
rm -rf "$dir"
mkdir -p "$dir/wheel"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest "$dir/wheel" "perfetto==$perfetto_version"
python3 -m pip install --quiet --root-user-action=ignore --disable-pip-version-check --no-deps --target "$dir/site" "protobuf==$protobuf_version"
# Only the generated module is used (not the package's trace_processor, which downloads a binary).
python3 - "$dir" <<'PY'
import sys, zipfile, glob
d = sys.argv[1]
wheel = glob.glob(d + "/wheel/perfetto-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("perfetto/protos/"):
            z.extract(name, d + "/site")
PY
touch "$dir/site/perfetto/__init__.py" "$dir/site/perfetto/protos/__init__.py" \
      "$dir/site/perfetto/protos/perfetto/__init__.py" "$dir/site/perfetto/protos/perfetto/trace/__init__.py"
touch "$stamp"
