#!/usr/bin/env bash
# Installs the built library into a scratch prefix, then builds and runs a
# separate consumer project against it twice: through find_package and
# through pkg-config.
set -euo pipefail
build_dir=$1
consumer_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build_dir" --prefix "$scratch/prefix" > /dev/null

cmake -S "$consumer_dir" -B "$scratch/cmake-build" \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" > /dev/null
cmake --build "$scratch/cmake-build" > /dev/null
"$scratch/cmake-build/consumer"

libdir=$(find "$scratch/prefix" -name pooled_gzip.pc -printf '%h\n')
export PKG_CONFIG_PATH="$libdir"
# shellcheck disable=SC2046  # pkg-config output is meant to be split
c++ -std=c++17 "$consumer_dir/main.cc" -o "$scratch/pkg-config-consumer" \
  $(pkg-config --cflags --libs pooled_gzip)
"$scratch/pkg-config-consumer"
echo "package usable through find_package and pkg-config"
