#!/usr/bin/env bash
# Runs a program (and every process it starts) on a relinked libgrpc
# (relink_libgrpc.sh), after checking that the loader resolves libgrpc to
# it rather than to the system's:
#
#   on_relinked_libgrpc.sh VARIANT_DIR PROGRAM [ARGUMENT...]
set -euo pipefail
dir=$1
shift
soname=$(basename "$(find "$dir" -maxdepth 1 -name 'libgrpc.so.*' | head -n1)")
resolved=$(LD_LIBRARY_PATH="$dir" ldd "$1" |
  sed -n "s/^\t$soname => \([^ ]*\).*/\1/p")
if [[ "$resolved" != "$dir/$soname" ]]; then
  echo "on_relinked_libgrpc.sh: $1 resolves $soname to '$resolved'," \
    "not $dir/$soname" >&2
  exit 1
fi
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$@"
