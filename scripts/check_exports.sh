#!/usr/bin/env bash
# Compares the dynamic symbols a shared library defines with a committed
# list, so that any change of its ABI shows as a diff in review. Fails with
# the diff when a symbol was added or removed; --update rewrites the list.
#
#   scripts/check_exports.sh [--update] LIBRARY LIST
#
# The list holds demangled names, one a line, sorted; symbol types (T, W,
# ...) and version suffixes are left out, as are _init and _fini. What a
# library may export at all is its version script's (plugin/abi/*.map).
set -euo pipefail
update=0
if [[ ${1:-} == --update ]]; then
  update=1
  shift
fi
if (($# != 2)); then
  echo "usage: $0 [--update] LIBRARY LIST" >&2
  exit 2
fi
library=$1
list=$2

exports() {
  nm -D --defined-only --demangle "$library" |
    sed -E 's/^[0-9a-fA-F]+ +[A-Za-z] +//; s/@.*$//' |
    grep -Ev '^_(init|fini)$' | LC_ALL=C sort -u
}

if ((update)); then
  exports > "$list"
  echo "$list: $(wc -l < "$list") symbols"
  exit 0
fi
if ! diff -u --label "$list (committed)" --label "$library (built)" \
  "$list" <(exports); then
  echo
  echo "The exports of $(basename "$library") changed (+ added, - removed)."
  echo "Mark only public API with POOLED_GZIP_EXPORT; if the change is meant,"
  echo "commit the new list: scripts/check_exports.sh --update $library $list"
  exit 1
fi
echo "$(basename "$library"): $(wc -l < "$list") exported symbols, as listed"
