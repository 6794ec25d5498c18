#!/usr/bin/env bash
# Installs the built library into a scratch prefix, then builds a separate
# consumer program against it in several link orders and runs each: the
# core codec's self-check must tell the truth in every one, and the
# deliberately wrong order must still echo correctly through the fallback.
set -euo pipefail
build_dir=$1
consumer_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build_dir" --prefix "$scratch/prefix" > /dev/null

echo "== CMake, pooled_gzip::pooled_gzip before gRPC, and after it"
cmake -S "$consumer_dir" -B "$scratch/cmake-build" \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" > /dev/null
cmake --build "$scratch/cmake-build" > /dev/null
"$scratch/cmake-build/consumer_pooled_first" active
"$scratch/cmake-build/consumer_grpc_first" active

libdir=$(find "$scratch/prefix" -name pooled_gzip.pc -printf '%h\n')
libdir=${libdir%/pkgconfig}
export PKG_CONFIG_PATH="$libdir/pkgconfig"
echo "== pkg-config"
# shellcheck disable=SC2046  # pkg-config output is meant to be split
c++ -std=c++17 "$consumer_dir/main.cc" -o "$scratch/pkg-config-consumer" \
  -Wl,-rpath,"$libdir" $(pkg-config --cflags --libs pooled_gzip)
"$scratch/pkg-config-consumer" active

echo "== wrong order: libgrpc ahead of libpooled_gzip"
# shellcheck disable=SC2046
c++ -std=c++17 "$consumer_dir/main.cc" -o "$scratch/wrong-order-consumer" \
  $(pkg-config --cflags pooled_gzip) -Wl,--no-as-needed -lgrpc \
  $(pkg-config --libs grpc++) -Wl,-rpath,"$libdir" -L"$libdir" -lpooled_gzip
"$scratch/wrong-order-consumer" fallback
echo "package usable through find_package and pkg-config; self-check truthful"
