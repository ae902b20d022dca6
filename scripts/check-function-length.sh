#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The 80-line rule of consumer/src and native/src: fails, listing them, when a function there is
# longer than MAX_LINES (default 80). Measured by Universal Ctags' C++ parser, which records each
# function definition's first and last line (its "end" field): in a second, where clang-tidy's
# readability-function-size, which gives the same list on this tree, parses every file for
# minutes on two cores. A function's lines run from its signature's first line to its closing
# brace, comments and blank lines included; a lambda counts inside its function.
#   usage: scripts/check-function-length.sh [MAX_LINES]
# Exit status: 0 none too long, 1 some too long (or a function ctags could not measure, or none found), 77 no Universal Ctags.
set -euo pipefail

max_lines=${1:-80}
src=$(cd "$(dirname "$0")/.." && pwd)
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  echo "SKIPPED: no Universal Ctags (apt-get install universal-ctags; scripts/setup.sh installs it)"
  exit 77
fi

cd "$src"
# One row per function definition: its last line, file, first line, name.
tags=$(ctags -x --_xformat='%{end}	%{input}	%{line}	%{name}' --languages=C,C++ --kinds-C=f \
  --kinds-C++=f --fields=+ne -R consumer/src native/src)
unmeasured=$(printf '%s\n' "$tags" | awk -F'\t' 'NF && $1 !~ /^[0-9]+$/')
if [ -n "$unmeasured" ]; then
  printf 'check-function-length: ctags found no end of:\n%s\n' "$unmeasured" >&2
  exit 1
fi
rows=$(printf '%s\n' "$tags" | awk -F'\t' 'NF { print $1 - $3 + 1 "\t" $2 ":" $3 "\t" $4 }')
functions=$(printf '%s\n' "$rows" | grep -c . || true)
if [ "$functions" -eq 0 ]; then
  echo "check-function-length: ctags found no function in consumer/src or native/src" >&2
  exit 1
fi
long=$(printf '%s\n' "$rows" | awk -F'\t' -v max="$max_lines" '$1 > max' | sort -k1,1nr)
if [ -n "$long" ]; then
  echo "functions over $max_lines lines in consumer/src and native/src (lines, where, name):"
  printf '%s\n' "$long"
  echo "$(printf '%s\n' "$long" | wc -l) function(s) over $max_lines lines ($functions functions checked)"
  exit 1
fi
echo "no function over $max_lines lines ($functions functions checked)"
