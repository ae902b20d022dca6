#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The 80-line rule of consumer/src and native/src: fails, listing them, when a function there is
# longer than MAX_LINES (default 80). Measured on the compiler's AST, not by counting braces:
# clang-tidy's readability-function-size over every source file of those folders, with the flags
# of the build's compile_commands.json, and over the headers of those folders that they include.
# A function's lines are those from its opening brace's to its closing brace's, both included,
# comments and blank lines too (clang-tidy counts one less: the distance between the two), so
# with the signature on the brace's line, as clang-format writes it, all of the function's lines.
# Lambdas count inside their function, and as functions.
#   usage: scripts/check-function-length.sh BUILD_DIR [MAX_LINES]
# Exit status: 0 none too long, 1 some too long (or a file not checked), 77 no clang-tidy.
set -euo pipefail

build=${1:?usage: check-function-length.sh BUILD_DIR [MAX_LINES]}
max_lines=${2:-80}
src=$(cd "$(dirname "$0")/.." && pwd)
db=$build/compile_commands.json

tidy=
for candidate in clang-tidy clang-tidy-14 clang-tidy-15 clang-tidy-16 clang-tidy-17 clang-tidy-18 clang-tidy-19; do
  if command -v "$candidate" >/dev/null; then tidy=$candidate; break; fi
done
if [ -z "$tidy" ]; then
  echo "SKIPPED: no clang-tidy (apt-get install clang-tidy-14; scripts/setup.sh installs it)"
  exit 77
fi
if [ ! -f "$db" ]; then
  echo "check-function-length: no $db (configure with CMAKE_EXPORT_COMPILE_COMMANDS)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# GCC flags clang does not know would stop the parse (-mtls-dialect before clang 19); -Werror
# and the warnings are the compiler's business, not this check's (-w below).
sed -e 's/ -mtls-dialect=[^ "]*//g' -e 's/ -Werror//g' "$db" >"$work/compile_commands.json"

mapfile -t files < <(find "$src/consumer/src" "$src/native/src" -name '*.cpp' | sort)
unchecked=()
for f in "${files[@]}"; do
  grep -qF "\"file\": \"$f\"" "$db" || unchecked+=("$f")
done
if [ ${#unchecked[@]} -gt 0 ]; then
  printf 'check-function-length: not in %s, so not checked: %s\n' "$db" "${unchecked[*]}" >&2
  exit 1
fi

# bpftool's skeletons spell bool as C's _Bool, which g++ takes in C++ and clang does not.
config="{CheckOptions: [{key: readability-function-size.LineThreshold, value: $((max_lines - 1))}]}"
status=0
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -n 4 "$tidy" -p "$work" --quiet --checks='-*,readability-function-size' \
    --config="$config" --header-filter='/(consumer|native)/src/' --extra-arg=-w \
    --extra-arg=-D_Bool=bool >"$work/out" 2>&1 ||
  status=$?

# A file clang could not parse has not been checked: that fails too.
if [ "$status" -ne 0 ] || grep -q ' error: ' "$work/out"; then
  grep ' error: ' "$work/out" | sort -u >&2 || true
  echo "check-function-length: clang-tidy failed (status $status): some files were not checked" >&2
  exit 1
fi

# "FILE:L:C: warning: function 'NAME' exceeds ..." then "FILE:L:C: note: N lines including ...":
# one row per function (a header's function is reported once per file including it).
awk -v root="$src/" '
  / warning: function .* exceeds recommended size/ {
    loc = $1; sub(/:$/, "", loc); sub(root, "", loc)
    name = $0; sub(/^[^\x27]*\x27/, "", name); sub(/\x27.*$/, "", name)
  }
  / note: [0-9]+ lines including whitespace and comments/ {
    for (i = 1; i <= NF; i++) if ($i == "note:") { print $(i + 1) + 1 "\t" loc "\t" name; break }
  }' "$work/out" | sort -u | sort -k1,1nr >"$work/long"

checked=${#files[@]}
if [ -s "$work/long" ]; then
  echo "functions over $max_lines lines in consumer/src and native/src (lines, where, name):"
  cat "$work/long"
  echo "$(wc -l <"$work/long") function(s) over $max_lines lines ($checked source files checked)"
  exit 1
fi
echo "no function over $max_lines lines ($checked source files checked, with the headers they include)"
