#!/usr/bin/env bash
# Configures with the CMake preset dev and builds into build/ (or
# $BUILD_DIR); extra arguments are build targets, CMAKE_ARGS extra configure
# arguments. Two cores: -j2 unless JOBS says otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
source "$(dirname "${BASH_SOURCE[0]}")/configure_preset.sh"

# shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
configure_preset "$build_dir" -S "$root" --preset dev -B "$build_dir" \
  ${CMAKE_ARGS:-}

targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$build_dir" -j "${JOBS:-2}" "${targets[@]}"
