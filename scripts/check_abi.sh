#!/usr/bin/env bash
# Compares the ABI of a shared library with a committed baseline, libabigail's
# XML from abidw (plugin/abi/*.abi), counting what the exported functions
# reach, never the library's internals. Fails on any change but an
# addition: a function removed, a signature or return type changed, a
# public type whose layout changed, a new SONAME. Added functions pass, as
# a minor release may bring them (CHANGELOG.md, "Compatibility promise").
# --update rewrites the baseline.
#
#   scripts/check_abi.sh [--update] LIBRARY BASELINE PUBLIC_HEADERS_DIR...
#
# abidw reads the types from the library's DWARF, so the library must be
# built with -g (RelWithDebInfo or Debug, as scripts/build.sh builds).
set -euo pipefail
update=0
if [[ ${1:-} == --update ]]; then
  update=1
  shift
fi
if (($# < 3)); then
  echo "usage: $0 [--update] LIBRARY BASELINE PUBLIC_HEADERS_DIR..." >&2
  exit 2
fi
library=$1
baseline=$2
shift 2
for tool in abidw abidiff; do
  if ! command -v "$tool" > /dev/null; then
    echo "$tool not found (Debian: abigail-tools;" \
      "scripts/install_deps.sh --with-test-tools)" >&2
    exit 1
  fi
done
if ! grep -q '\.debug_info' <<< "$(readelf -S "$library")"; then
  echo "$library has no DWARF: build it with -g (RelWithDebInfo or Debug)" >&2
  exit 1
fi

source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
headers=()
for dir in "$@"; do headers+=(--headers-dir "$dir"); done
# The ABI the exported functions reach, as the public headers see it: the
# library's internals and unreachable types are left out, and nothing
# that names this machine (the source tree's path, source lines) is kept.
dump_abi() {
  abidw --exported-interfaces-only --drop-private-types "${headers[@]}" \
    --no-corpus-path --no-comp-dir-path --no-show-locs --no-parameter-names \
    --no-elf-needed "$library" | sed "s|path='$source_dir/|path='|"
}

if ((update)); then
  dump_abi > "$baseline"
  echo "$baseline: the ABI of $(basename "$library") written"
  exit 0
fi
current=$(mktemp)
report=$(mktemp)
trap 'rm -f "$current" "$report"' EXIT
dump_abi > "$current"
# abidiff's status is a bit mask: 1 error, 2 usage, 4 ABI change, 8 an
# incompatible one. Without the added symbols, any change left is one that
# is not an addition.
status=0
abidiff --no-added-syms "$baseline" "$current" > "$report" || status=$?
if ((status & 3)); then
  cat "$report"
  echo "abidiff failed to run (status $status)" >&2
  exit 1
fi
if ((status != 0)); then
  cat "$report"
  echo
  echo "The ABI of $(basename "$library") changed against $baseline, and"
  echo "not only by additions. A 1.x release may only add (CHANGELOG.md);"
  echo "a break is a major release with a new SONAME and a new baseline:"
  echo "scripts/check_abi.sh --update $library $baseline $*"
  exit 1
fi
# What was added, for the record: the baseline stays the last release's.
abidiff "$baseline" "$current" | grep -E 'Added|^  \[A\]' || true
echo "$(basename "$library"): ABI compatible with $(basename "$baseline")"
