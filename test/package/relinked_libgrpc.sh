#!/usr/bin/env bash
# The core codec against libgrpc builds that are not the one it was built
# against (relink_libgrpc.sh makes them from the system's own libgrpc.a),
# loaded in its place through LD_LIBRARY_PATH by the package consumer
# (consumer/main.cc, built against a scratch install of this build tree's
# shared library):
#
#   debian    the archive relinked as it is: the control. Active, with
#             libgrpc's zlib imports and its codec functions' slots served.
#   ubuntu    -Wl,-Bsymbolic-functions, as Ubuntu links every library:
#             libgrpc binds its own calls to its codec functions, so only
#             its zlib imports lead here. Active both ways all the same,
#             seen through libgrpc's own codec, and the log says that its
#             codec functions are left to it and why.
#   one-slot  a slot for grpc_msg_compress alone: active both ways all the
#             same, received messages served through the zlib imports.
#   stand-in  message_compress.cc.o replaced by relinked_libgrpc_stand_in.cc,
#             the same two functions with another contract, whose zlib
#             streams keep zlib's default allocator (core's have gpr's).
#             The admission probe refuses the functions, the log names the
#             first difference, their slots are left, and the zlib seam
#             leaves the stand-in's streams to zlib: not active, seen in
#             neither direction, the fallback path.
#
#   relinked_libgrpc.sh BUILD_DIR CONSUMER_DIR LIBGRPC CACHE
#
# CACHE holds the relinked libraries (the relinked_libgrpc fixture makes
# them). Every variant is run and every failed check reported before the
# exit status says so.
set -euo pipefail
build_dir=$1
consumer_dir=$2
libgrpc=$3
cache=$4

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Bounds every step: a hang is a failure, not a stuck CTest.
run() { timeout 120 "$@"; }

soname=$(run readelf -d "$libgrpc" |
  sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')

echo "== the consumer, against a scratch install of $build_dir"
# The core library's install rules only: the metrics component is not
# needed here, and need not be built.
run cmake -DCMAKE_INSTALL_PREFIX="$scratch/prefix" \
  -P "$build_dir/plugin/cmake_install.cmake" > /dev/null
libdir=$(find "$scratch/prefix" -name pooled_gzip.pc -printf '%h\n')
libdir=${libdir%/pkgconfig}
# No rpath: LD_LIBRARY_PATH alone decides which libgrpc is loaded.
# shellcheck disable=SC2046
PKG_CONFIG_PATH="$libdir/pkgconfig" run c++ -std=c++17 \
  "$consumer_dir/main.cc" -o "$scratch/consumer" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" run pkg-config --cflags --libs \
    pooled_gzip)

failures=0
fail() {
  echo "FAIL ($variant): $*"
  failures=$((failures + 1))
}
has() { grep -q -F -- "$1" "$scratch/$variant.log"; }

# Runs the consumer on VARIANT's libgrpc expecting PATH (active|fallback);
# checks that it was that libgrpc that was loaded; prints the log line.
# VERBOSITY is GRPC_VERBOSITY (INFO unless given; "unset" for gRPC's
# default), LOG_AS the name of the run's log (VARIANT unless given), and
# further arguments (NAME=value) are added to the consumer's environment.
run_consumer() {
  variant=$1
  local expected=$2 verbosity=${3:-INFO} log_as=${4:-$1} dir="$cache/$1"
  shift $(($# < 4 ? $# : 4))
  local settings=(-u GRPC_VERBOSITY "$@")
  [[ $verbosity == unset ]] || settings+=("GRPC_VERBOSITY=$verbosity")
  variant=$log_as
  echo "== $variant: expecting the $expected path"
  mkdir -p "$scratch/ld-$variant"
  if ! env "${settings[@]}" LD_LIBRARY_PATH="$dir:$libdir" LD_DEBUG=libs \
       LD_DEBUG_OUTPUT="$scratch/ld-$variant/trace" \
       timeout 60 "$scratch/consumer" "$expected" \
       > "$scratch/$variant.log" 2>&1; then
    fail "the consumer failed:"; sed 's/^/   /' "$scratch/$variant.log"
  fi
  # The loader's own account of what it initialised, one file per process.
  if ! grep -h -q -F "calling init: $dir/$soname" "$scratch/ld-$variant"/*
  then
    fail "$dir/$soname was not loaded"
  fi
  if grep -h "calling init: .*/$soname" "$scratch/ld-$variant"/* |
     grep -q -v -F "$dir/"; then
    fail "another $soname was loaded as well"
  fi
  echo "   $(grep -o 'pooled_gzip: core codec.*' "$scratch/$variant.log" ||
        echo '(no log line)')"
  grep '^consumer:' "$scratch/$variant.log" | sed 's/^/   /' || true
}

run_consumer debian active
has "pooled_gzip: core codec active" || fail "the core codec is not active"
has "seen both ways" || fail "the log does not say it saw both ways served"
# libgrpc's zlib imports and its codec functions' slots, all of them.
for fn in deflateInit2_ deflate deflateEnd inflateInit2_ inflate inflateEnd \
  grpc_msg_compress grpc_msg_decompress; do
  has "$soname:$fn->pooled_gzip" || fail "libgrpc's $fn does not lead here"
done

run_consumer ubuntu active
has "pooled_gzip: core codec active" || fail "the core codec is not active"
has "seen both ways" || fail "the log does not say it saw both ways served"
for fn in deflateInit2_ deflate deflateEnd inflateInit2_ inflate inflateEnd; do
  has "$soname:$fn->pooled_gzip" || fail "libgrpc's $fn does not lead here"
done
has "codec functions are left to it: libgrpc binds its own calls" ||
  fail "the log does not say why the codec functions are left to libgrpc"
if has "grpc_msg_compress->"; then fail "a codec function slot was found"; fi
# Another backend configured: gRPC's own codec then compresses with it.
run_consumer ubuntu active INFO ubuntu-isal CONSUMER_BACKEND=isal
has "pooled_gzip: core codec active" || fail "the core codec is not active"
has "consumer: 40 messages compressed by isal" ||
  fail "the statistics do not show the configured backend"

run_consumer one-slot active
has "pooled_gzip: core codec active" || fail "the core codec is not active"
has "seen both ways" || fail "the log does not say it saw both ways served"
for fn in deflateInit2_ deflate deflateEnd inflateInit2_ inflate inflateEnd \
  grpc_msg_compress; do
  has "$soname:$fn->pooled_gzip" || fail "libgrpc's $fn does not lead here"
done
if has "grpc_msg_decompress->"; then fail "a decompress slot was found"; fi

run_consumer stand-in fallback
has "pooled_gzip: core codec NOT active" || fail "the core codec is active"
has "seen in neither direction" || fail "the log does not say what was seen"
has "does not keep the contract" || fail "the probe did not refuse"
# The first probe the stand-in answers otherwise (contract_probe.cc): the
# two before it, plain gzip and deflate, it answers byte for byte as core.
has "(compress gzip, output already holding 4000 B: gRPC returned 1 " ||
  fail "the log does not name the first difference"
# No codec function slot leads here ("->pooled_gzip")...
if has "grpc_msg_compress->pooled_gzip" ||
   has "grpc_msg_decompress->pooled_gzip"; then
  fail "a codec function slot leads to pooled_gzip"
fi
# ...and gRPC's filter still calls the stand-in directly: its slot leads
# there, whatever the log says.
has "relinked_libgrpc stand-in: grpc_msg_decompress called by libgrpc" ||
  fail "gRPC's received messages did not reach the stand-in"

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "relinked libgrpc: served and seen both ways on the faithful relink," \
  "the Ubuntu-style one (zlib imports only) and the one with a single" \
  "codec slot; the stand-in's other contract refused, nothing of it seen" \
  "served, the fallback path"
