#!/usr/bin/env bash
# Installs the built library into a scratch prefix, then builds separate
# consumer programs against it in every link and load order and runs each:
# the core codec must be active, and pool gRPC's messages both ways, in
# every one.
set -euo pipefail
build_dir=$1
consumer_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# shellcheck source=install_into_scratch.sh
source "$(dirname "${BASH_SOURCE[0]}")/install_into_scratch.sh"
# shellcheck source=../../scripts/needed_libraries.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/needed_libraries.sh"
install_into_scratch "$build_dir" "$scratch"

echo "== CMake, pooled_gzip::pooled_gzip before gRPC, and after it"
cmake -S "$consumer_dir" -B "$scratch/cmake-build" \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" > /dev/null
cmake --build "$scratch/cmake-build" > /dev/null
"$scratch/cmake-build/consumer_pooled_first" active
"$scratch/cmake-build/consumer_grpc_first" active

echo "== CMake without prometheus-cpp: only the metrics component needs it"
cmake -S "$consumer_dir" -B "$scratch/no-prometheus-build" \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DCMAKE_DISABLE_FIND_PACKAGE_prometheus-cpp=TRUE > /dev/null

echo "== pkg-config"
# shellcheck disable=SC2046  # pkg-config output is meant to be split
c++ -std=c++17 "$consumer_dir/main.cc" -o "$scratch/pkg-config-consumer" \
  -Wl,-rpath,"$libdir" $(pkg-config --cflags --libs pooled_gzip)
"$scratch/pkg-config-consumer" active

# gRPC first in the NEEDED list, as `$(pkg-config --libs grpc++)
# $(pkg-config --libs pooled_gzip)` gives a program that calls gRPC's C core
# itself: libgrpc ahead in the lookup order, and installing the core codec
# must still point libgrpc's zlib imports here.
echo "== libgrpc ahead of libpooled_gzip in the lookup order"
# shellcheck disable=SC2046
c++ -std=c++17 "$consumer_dir/main.cc" -o "$scratch/grpc-first-consumer" \
  $(pkg-config --cflags pooled_gzip) -Wl,--no-as-needed -lgrpc++ -lgrpc \
  $(pkg-config --libs grpc++) -Wl,-rpath,"$libdir" -L"$libdir" -lpooled_gzip
needed=$(needed_libraries "$scratch/grpc-first-consumer")
case "$needed" in
  *libgrpc.so.*libpooled_gzip.so.*) ;;
  *) echo "libgrpc is not ahead of libpooled_gzip: $needed"; exit 1 ;;
esac
"$scratch/grpc-first-consumer" active

echo "== dlopen()ed after gRPC, by a program linked with gRPC only"
# shellcheck disable=SC2046
c++ -std=c++17 "$consumer_dir/dlopen_consumer.cc" \
  -o "$scratch/dlopen-consumer" $(pkg-config --cflags pooled_gzip) \
  $(pkg-config --libs grpc++) -ldl
if readelf -d "$scratch/dlopen-consumer" | grep -q pooled_gzip; then
  echo "dlopen_consumer links libpooled_gzip"; exit 1
fi
# By its SONAME, which the development link names.
"$scratch/dlopen-consumer" "$libdir/$(readlink "$libdir/libpooled_gzip.so")"

echo "== C++20 consumer: the package imposes no language standard"
# shellcheck disable=SC2046
c++ -std=c++20 -x c++ - -o "$scratch/cxx20-consumer" \
  $(pkg-config --cflags --libs pooled_gzip) -Wl,-rpath,"$libdir" <<'CXX'
#include <pooled_gzip/pooled_gzip.h>
static_assert(__cplusplus >= 202002L, "built as C++20");
int main() { return pooled_gzip::GetOptions().max_pooled_bytes > 0 ? 0 : 1; }
CXX
"$scratch/cxx20-consumer"
echo "package usable through find_package, pkg-config and dlopen; core" \
  "codec active in every link and load order"
