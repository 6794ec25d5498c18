#!/usr/bin/env bash
# extract_snippets.py refuses what would let a README block escape the
# snippet test, and leaves a marked shell block without a runner alone.
set -euo pipefail
extract=$(dirname "${BASH_SOURCE[0]}")/extract_snippets.py
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/harnesses"
fail() { echo "FAIL: $*"; exit 1; }

# $1: the Markdown; $2: expected exit status; $3: text the output must hold.
expect() {
  printf '%s\n' "$1" > "$scratch/doc.md"
  local status=0
  python3 "$extract" "$scratch/doc.md" "$scratch/harnesses" "$scratch/out" \
    > "$scratch/log" 2>&1 || status=$?
  [[ $status == "$2" ]] || { cat "$scratch/log"; fail "status $status, not $2"; }
  grep -qF -- "$3" "$scratch/log" || { cat "$scratch/log"; fail "no '$3'"; }
}

fence='```'
expect "$(printf 'Text.\n\n%scpp\nint x;\n%s' "$fence" "$fence")" 1 \
  "without a <!-- snippet: NAME --> mark"
expect "$(printf '%scmake\nfind_package(x)\n%s' "$fence" "$fence")" 1 \
  "without a <!-- snippet: NAME --> mark"
expect "$(printf '<!-- snippet: lost -->\n\nText.')" 1 \
  "not followed by a fence"
expect "$(printf '<!-- snippet: a -->\n%scpp\nint x;\n%s' "$fence" "$fence")" 1 \
  "no harness"
expect "$(printf '<!-- snippet: install -->\n%sbash\nmake\n%s' "$fence" \
  "$fence")" 0 "shell install: not run here"
echo "unmarked C++ and CMake blocks, stray marks and missing harnesses" \
  "refused; shell blocks without a runner left alone"
