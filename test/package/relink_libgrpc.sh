#!/usr/bin/env bash
# libgrpc builds that are not the one the build uses, made from the
# system's own libgrpc.a relinked as a shared library with libgrpc's
# SONAME, each in CACHE/VARIANT/, to be loaded in its place through
# LD_LIBRARY_PATH (on_relinked_libgrpc.sh). pooled_gzip serves gRPC's
# codec at its six zlib imports, which every variant keeps as slots
# whatever else its link binds; each variant exports gRPC's two codec
# functions, through which activation sees that codec served.
#
#   debian        the archive relinked as it is: the control.
#   ubuntu        the same with -Wl,-Bsymbolic-functions, which Ubuntu's
#                 dpkg-buildflags add to every shared library: libgrpc
#                 binds its own calls to grpc_msg_compress and
#                 grpc_msg_decompress, and has no slot for them; its zlib
#                 imports remain.
#   one-slot      every function bound within libgrpc but grpc_msg_compress
#                 (-Wl,--dynamic-list naming it alone): a slot for one codec
#                 function, none for the other, as a libgrpc linked with a
#                 dynamic list or a visibility map of its own may have.
#   stand-in-gpr  message_compress.cc.o replaced by STAND_IN_SOURCE built
#                 with POOLED_GZIP_STAND_IN_GPR_ALLOCATOR: the same two
#                 functions, code of their own with another contract, whose
#                 zlib streams are opened as core's (gpr's allocator).
#   stand-in      the same stand-in on zlib's default allocator: its
#                 streams are not opened as core's.
#
#   relink_libgrpc.sh LIBGRPC CACHE STAND_IN_SOURCE
#
# LIBGRPC is the shared libgrpc the build uses; libgrpc.a is taken from
# beside it. A variant is relinked only when the archive, the stand-in or
# this script is newer than it.
set -euo pipefail
libgrpc=$1
cache=$2
stand_in_source=$3

archive=$(dirname "$(readlink -f "$libgrpc")")/libgrpc.a
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$cache"

# Bounds every step: a hang is a failure, not a stuck CTest.
run() { timeout 300 "$@"; }

soname=$(run readelf -d "$libgrpc" |
  sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
# What libgrpc itself is linked with, by SONAME, less what the compiler
# driver adds anyway: the relink resolves against the same libraries.
mapfile -t needed < <(run readelf -d "$libgrpc" |
  sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' |
  grep -v -E '^(libc|libm|libstdc\+\+|libgcc_s|ld-linux-.*)\.so' |
  sed 's/^/-l:/')

# Whether CACHE/VARIANT/SONAME is newer than everything it is made from.
cached() {
  local out="$cache/$1/$soname"
  [[ -f "$out" && "$out" -nt "$archive" && "$out" -nt "$0" &&
     "$out" -nt "$stand_in_source" ]]
}

# Relinks `archive_in` (whole) plus OBJECTS into CACHE/VARIANT/SONAME with
# `flags`, unless cached.
relink() {
  local variant=$1 archive_in=$2 flags=$3
  shift 3
  local out="$cache/$variant/$soname"
  cached "$variant" && return
  mkdir -p "$cache/$variant"
  local started=$EPOCHREALTIME
  # --no-undefined: a dependency missing from `needed` fails here, not at
  # load time in a consumer.
  # shellcheck disable=SC2086  # `flags` is empty or one option
  run c++ -shared -o "$out.tmp" -Wl,-soname,"$soname" $flags \
    -Wl,--no-undefined "$@" -Wl,--whole-archive "$archive_in" \
    -Wl,--no-whole-archive "${needed[@]}"
  mv "$out.tmp" "$out"
  echo "   relinked $variant in" \
    "$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $started }") s"
}

echo "== relinking $archive ($(run ar t "$archive" | wc -l) objects) as $soname"
# message_compress.cc.o must define exactly the two functions as strong
# symbols, or the stand-in would not replace all of it (1.83's also holds
# weak template instances of Abseil's logging, which any other object's
# copy replaces). The archive is edited with `ar d`
# rather than extracted and relinked from files: some of its member names
# repeat (ev_epoll1_linux.cc.o, the upb files), and `ar x` keeps only the
# last of each.
(cd "$scratch" && run ar x "$archive" message_compress.cc.o)
defined=$(run nm -g --defined-only "$scratch/message_compress.cc.o" |
  awk '$2 !~ /^[VWu]$/ {print $3}' | sort | tr '\n' ' ')
if [[ "$defined" != "_Z17grpc_msg_compress26grpc_compression_algorithmP17grpc_slice_bufferS1_ _Z19grpc_msg_decompress26grpc_compression_algorithmP17grpc_slice_bufferS1_ " ]]; then
  echo "message_compress.cc.o defines other symbols: $defined"
  exit 1
fi

relink debian "$archive" ""
relink ubuntu "$archive" -Wl,-Bsymbolic-functions
echo '{ _Z17grpc_msg_compress26grpc_compression_algorithmP17grpc_slice_bufferS1_; };' \
  > "$scratch/compress_only.list"
relink one-slot "$archive" -Wl,--dynamic-list="$scratch/compress_only.list"

# stand_in VARIANT [OPTION...]: the archive without its
# message_compress.cc.o, and STAND_IN_SOURCE compiled with OPTIONS in its
# place.
stand_in() {
  local variant=$1
  shift
  if ! cached "$variant"; then
    if [[ ! -f "$scratch/without_codec.a" ]]; then
      cp "$archive" "$scratch/without_codec.a"
      run ar d "$scratch/without_codec.a" message_compress.cc.o
    fi
    # shellcheck disable=SC2046  # pkg-config output is meant to be split
    run c++ -std=c++17 -O2 -fPIC -Wall -Wextra -Werror "$@" \
      -c "$stand_in_source" -o "$scratch/$variant.o" \
      $(run pkg-config --cflags grpc)
  fi
  relink "$variant" "$scratch/without_codec.a" "" "$scratch/$variant.o"
}
stand_in stand-in-gpr -DPOOLED_GZIP_STAND_IN_GPR_ALLOCATOR
stand_in stand-in

# The relinks are what they stand for: two lazy slots for gRPC's codec in
# the faithful ones, none where libgrpc binds its own calls, one in the
# one-slot relink; the six zlib imports, through which pooled_gzip serves
# them, in every one; and both codec functions exported, through which
# activation sees them served.
variants=(debian ubuntu one-slot stand-in-gpr stand-in)
codec_functions='_Z1(7grpc_msg_|9grpc_msg_de)compress26grpc_compression_'
codec_functions+='algorithmP17grpc_slice_bufferS1_'
count() { run readelf -rW "$cache/$1/$soname" | grep -c -E "$2" || true; }
for variant in "${variants[@]}"; do
  codec_slots=$(count "$variant" 'JUMP_SLOT.*grpc_msg_')
  expected=2
  [[ $variant == ubuntu ]] && expected=0
  [[ $variant == one-slot ]] && expected=1
  if [[ $codec_slots != "$expected" ]]; then
    echo "the $variant relink has $codec_slots grpc_msg_* slots, not $expected"
    exit 1
  fi
  zlib_slots=$(count "$variant" \
    ' (deflateInit2_|deflate|deflateEnd|inflateInit2_|inflate|inflateEnd) \+')
  if [[ $zlib_slots != 6 ]]; then
    echo "the $variant relink has $zlib_slots zlib import slots, not 6"
    exit 1
  fi
  exported=$(run nm -D --defined-only "$cache/$variant/$soname" |
    grep -c -E " T $codec_functions\$" || true)
  if [[ $exported != 2 ]]; then
    echo "the $variant relink exports $exported of gRPC's two codec functions"
    exit 1
  fi
done
if [[ $(count one-slot 'JUMP_SLOT.*grpc_msg_compress') != 1 ]]; then
  echo "the one-slot relink's slot is not grpc_msg_compress's"
  exit 1
fi
echo "relinked libgrpc: ${variants[*]} in $cache"
