#!/usr/bin/env bash
# The names of the zlib entry points that the seam serves, one a line, read
# from their one list (plugin/src/seam/zlib_entries.def, which
# plugin/CMakeLists.txt reads the same way): for scripts that link or check
# the static flavour's --wrap options.
set -euo pipefail
entries="$(dirname "${BASH_SOURCE[0]}")/../plugin/src/seam/zlib_entries.def"
names=$(sed -n 's/^POOLED_GZIP_ZLIB_ENTRY(\([A-Za-z0-9_]*\),.*/\1/p' \
  "$entries")
if [[ -z $names ]]; then
  echo "zlib_entry_names.sh: no POOLED_GZIP_ZLIB_ENTRY row in $entries" >&2
  exit 1
fi
echo "$names"
