#!/usr/bin/env bash
# Configures and builds into build/ (or $BUILD_DIR); extra arguments are
# build targets. Two cores: -j2 unless JOBS says otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  ${CMAKE_ARGS:-} > /dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$build_dir" -j "${JOBS:-2}" "${targets[@]}"
