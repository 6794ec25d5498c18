#!/usr/bin/env bash
# The core codec against libgrpc builds that are not the one it was built
# against (relink_libgrpc.sh makes them from the system's own libgrpc.a),
# loaded in its place through LD_LIBRARY_PATH by the package consumer
# (consumer/main.cc, built against a scratch install of this build tree's
# shared library). pooled_gzip reaches gRPC's codec by one route, its six
# zlib imports' slots; gRPC's codec functions stay gRPC's, whatever slots
# libgrpc has for them. Each run logs the one activation line once.
#
#   debian        the archive relinked as it is: the control. Active, seen
#                 both ways, the six zlib slots leading here.
#   ubuntu        -Wl,-Bsymbolic-functions, as Ubuntu links every library:
#                 libgrpc binds its own calls to its codec functions. Its
#                 zlib imports still lead here: active, seen both ways; and
#                 again with ISA-L configured, gRPC's codec compressing with
#                 it.
#   one-slot      a slot for grpc_msg_compress alone, as a libgrpc linked
#                 with a dynamic list of its own has. Kept although no slot
#                 of a codec function is pointed any more: a link that binds
#                 otherwise than Debian's must still be served through its
#                 zlib imports, active and seen both ways.
#   stand-in-gpr  message_compress.cc.o replaced by the stand-in
#                 (relinked_libgrpc_stand_in.cc): codec functions of their
#                 own with another contract, whose streams are opened as
#                 core's. Kept from the admission probe's days for what it
#                 proves now: the zlib route serves a codec that is not
#                 core's, active and seen both ways, and gRPC's filter
#                 still calls those functions (their slots lead to the
#                 stand-in) both ways.
#   stand-in      the same stand-in on zlib's default allocator: not gRPC's
#                 streams to the zlib seam, which leaves them to zlib. NOT
#                 active, seen in neither direction, logged once as not
#                 served, and the process is stock gRPC: every echo served
#                 by gRPC's own codec (the stand-in's functions, both ways),
#                 nothing pooled.
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

# Runs the consumer on VARIANT's libgrpc expecting PATH: `active` (the
# consumer requires it and pooled readers and writers for every message) or
# `stock` (see below); checks that it was that libgrpc that was loaded, and
# that the activation line was logged exactly once; prints that line.
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
  local status=0
  env "${settings[@]}" LD_LIBRARY_PATH="$dir:$libdir" LD_DEBUG=libs \
    LD_DEBUG_OUTPUT="$scratch/ld-$variant/trace" \
    timeout 60 "$scratch/consumer" "$expected" \
    > "$scratch/$variant.log" 2>&1 || status=$?
  if ((status != 0)); then
    fail "the consumer failed (exit $status):"
    sed 's/^/   /' "$scratch/$variant.log"
  fi
  local stock_line="consumer: core codec not active; pooled writes 0"
  stock_line+=" (0 on a reused writer), pooled reads 0 for 20 gzip echoes"
  if [[ $expected == stock ]] && ! has "$stock_line"; then
    fail "not every echo was served by gRPC alone:"
    sed 's/^/   /' "$scratch/$variant.log"
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
  local lines
  lines=$(grep -c -F "pooled_gzip: core codec " "$scratch/$variant.log" || true)
  [[ $lines == 1 ]] || fail "the activation line was logged $lines times"
  echo "   $(grep -o 'pooled_gzip: core codec.*' "$scratch/$variant.log" ||
        echo '(no log line)')"
  grep '^consumer:' "$scratch/$variant.log" | sed 's/^/   /' || true
}

# libgrpc's six zlib imports, each leading to pooled_gzip.
zlib_slots_lead_here() {
  local fn
  for fn in deflateInit2_ deflate deflateEnd inflateInit2_ inflate \
    inflateEnd; do
    has "$soname:$fn->pooled_gzip" || fail "libgrpc's $fn does not lead here"
  done
}

# Active, seen both ways, through the six zlib slots.
served_and_seen() {
  has "pooled_gzip: core codec active" || fail "the core codec is not active"
  has "seen both ways" || fail "the log does not say it saw both ways served"
  zlib_slots_lead_here
}

# gRPC's filter called the stand-in's own codec functions, both ways.
stand_in_functions_called() {
  local fn
  for fn in grpc_msg_compress grpc_msg_decompress; do
    has "relinked_libgrpc stand-in: $fn called by libgrpc" ||
      fail "gRPC's filter did not call the stand-in's $fn"
  done
}

run_consumer debian active
served_and_seen

run_consumer ubuntu active
served_and_seen
# Another backend configured: gRPC's own codec then compresses with it.
run_consumer ubuntu active INFO ubuntu-isal CONSUMER_BACKEND=isal
has "pooled_gzip: core codec active" || fail "the core codec is not active"
has "consumer: 40 messages compressed by isal" ||
  fail "the statistics do not show the configured backend"

run_consumer one-slot active
served_and_seen

run_consumer stand-in-gpr active
served_and_seen
stand_in_functions_called

run_consumer stand-in stock
has "pooled_gzip: core codec NOT active" || fail "the core codec is active"
has "seen in neither direction" || fail "the log does not say what was seen"
has "compressed and inflated by gRPC as without pooled_gzip" ||
  fail "the log does not say that gRPC's own codec serves the messages"
stand_in_functions_called

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "relinked libgrpc: served and seen both ways through the zlib imports" \
  "on the faithful relink, the Ubuntu-style one, the one with a single" \
  "codec slot and the stand-in codec whose streams are opened as core's;" \
  "the stand-in on zlib's allocator not served, logged once, stock gRPC"
