#!/usr/bin/env bash
# Configures with the CMake preset dev and builds into build/ (or
# $BUILD_DIR); extra arguments are build targets, CMAKE_ARGS extra configure
# arguments. Two cores: -j2 unless JOBS says otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}

# Configure output is kept in the build dir and shown when configure fails.
configure_log=$build_dir/configure.log
mkdir -p "$build_dir"
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
if ! cmake -S "$root" --preset dev -B "$build_dir" ${CMAKE_ARGS:-} \
  > "$configure_log" 2>&1; then
  tail -n 40 "$configure_log" >&2
  echo "configure failed; full log: $configure_log" >&2
  exit 1
fi
if grep -q '^CMake.* Warning' "$configure_log"; then
  echo "configure warned; see $configure_log" >&2
fi

targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$build_dir" -j "${JOBS:-2}" "${targets[@]}"
