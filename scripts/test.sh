#!/usr/bin/env bash
# The test command: installs everything the tests need (Debian packages and
# the interop peers), builds, and runs every CTest test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}

"$root/scripts/install_deps.sh" --with-test-tools
if [[ -x "$root/scripts/install_interop_peers.sh" ]]; then
  "$root/scripts/install_interop_peers.sh"
fi

BUILD_DIR=$build_dir "$root/scripts/build.sh"
cd "$build_dir"
ctest -j "${JOBS:-2}" --output-on-failure --timeout 600 "$@"
