#!/usr/bin/env bash
# Links the Debian -dev package's libpooled_gzip.a by hand, as
# docs/packaging.md says: a typed echo (static_install/typed_echo.cc) with
# the static flavour's routing options and gRPC's archives by file name.
# scripts/debian_packages_check.sh runs it in the root the packages are
# installed in, then checks that the program is served at link time.
#
#   link_static_archive.sh SOURCE_DIR ARCHIVE OUTPUT_DIR
set -euo pipefail
source_dir=$1
archive=$2
out_dir=$3
mkdir -p "$out_dir"
cd "$out_dir"
cp "$source_dir/test/package/static_install/typed_echo.cc" .
protoc -I "$source_dir/proto" --cpp_out=. --grpc_out=. \
  --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" \
  "$source_dir/proto/echo.proto"
routing=()
# An assignment, whose failure set -e sees.
names=$("$source_dir/scripts/zlib_entry_names.sh")
mapfile -t symbols <<< "$names"
for symbol in "${symbols[@]}"; do
  routing+=("-Wl,--wrap=$symbol" "-Wl,--undefined=__wrap_$symbol")
done
# What gRPC's archives need: the modules and libraries its .pc files name,
# less gRPC's own, which would bring its shared libraries.
mapfile -t modules < <(pkg-config --print-requires grpc++ grpc gpr |
  sed 's/[ <>=].*//' | grep -vxE 'grpc\+\+|grpc|gpr' | sort -u)
mapfile -t libraries < <(pkg-config --libs-only-l grpc | tr ' ' '\n' |
  grep -vxE -e '-l(grpc|address_sorting|upb|gpr)' -e '')
# shellcheck disable=SC2046  # pkg-config output is meant to be split
c++ -std=c++17 typed_echo.cc echo.pb.cc echo.grpc.pb.cc -I. -o typed_echo \
  "$archive" "${routing[@]}" \
  -l:libgrpc++.a -l:libgrpc.a -l:libaddress_sorting.a -l:libupb.a \
  -l:libgpr.a "${libraries[@]}" \
  $(pkg-config --libs "${modules[@]}" protobuf zlib libdeflate libisal) -ldl
