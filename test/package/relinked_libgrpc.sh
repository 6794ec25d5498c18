#!/usr/bin/env bash
# The core codec against libgrpc builds that are not the one it was built
# against, made here from the system's own libgrpc.a relinked as a shared
# library with libgrpc's SONAME, and loaded in its place through
# LD_LIBRARY_PATH by the package consumer (consumer/main.cc, built against
# a scratch install of this build tree's shared library):
#
#   debian    the archive relinked as it is: the control. The core codec is
#             active, so the relink itself is faithful.
#   ubuntu    the same with -Wl,-Bsymbolic-functions, which Ubuntu's
#             dpkg-buildflags add to every shared library: libgrpc binds its
#             own calls, no slot can be pointed. Not active, and the log
#             names the way out, the static flavour (BUILD_SHARED_LIBS=OFF),
#             also at gRPC's default verbosity (GRPC_VERBOSITY unset), with
#             the core codec asked for (POOLED_GZIP_CORE_CODEC=1) or not.
#   stand-in  message_compress.cc.o replaced by relinked_libgrpc_stand_in.cc,
#             the same two functions with another contract. The admission
#             probe refuses it, the log names the first difference, and no
#             slot is written: gRPC's own calls still reach the stand-in.
#
#   relinked_libgrpc.sh BUILD_DIR CONSUMER_DIR STAND_IN_SOURCE LIBGRPC CACHE
#
# LIBGRPC is the shared libgrpc the build uses; libgrpc.a is taken from
# beside it. The relinked libraries are kept in CACHE and relinked only when
# the archive, the stand-in or this script is newer. Every variant is run
# and every failed check reported before the exit status says so.
set -euo pipefail
build_dir=$1
consumer_dir=$2
stand_in_source=$3
libgrpc=$4
cache=$5

archive=$(dirname "$(readlink -f "$libgrpc")")/libgrpc.a
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$cache"

# Bounds every step: a hang is a failure, not a stuck CTest.
run() { timeout 120 "$@"; }

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
if ! cached stand-in; then
  # shellcheck disable=SC2046  # pkg-config output is meant to be split
  run c++ -std=c++17 -O2 -fPIC -Wall -Wextra -Werror -c "$stand_in_source" \
    -o "$scratch/stand_in.o" $(run pkg-config --cflags grpc)
  cp "$archive" "$scratch/without_codec.a"
  run ar d "$scratch/without_codec.a" message_compress.cc.o
fi
relink stand-in "$scratch/without_codec.a" "" "$scratch/stand_in.o"

# The relinks are what they stand for: two lazy slots for gRPC's codec in
# the faithful ones, none where libgrpc binds its own calls.
slots() {
  run readelf -rW "$cache/$1/$soname" | grep -c 'JUMP_SLOT.*grpc_msg_' || true
}
for variant in debian stand-in; do
  if [[ $(slots "$variant") != 2 ]]; then
    echo "the $variant relink has not 2 grpc_msg_* slots"; exit 1
  fi
done
if [[ $(slots ubuntu) != 0 ]]; then
  echo "the ubuntu relink has grpc_msg_* slots"; exit 1
fi

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
# Through libgrpc's own slots (the slot rewrite), both of them.
for fn in grpc_msg_compress grpc_msg_decompress; do
  has "$soname:$fn->pooled_gzip" || fail "libgrpc's $fn does not lead here"
done

run_consumer ubuntu fallback
has "pooled_gzip: core codec NOT active" || fail "the core codec is active"
has "BUILD_SHARED_LIBS=OFF" || fail "the log does not name the static flavour"

# A process whose core codec cannot be active says so where an operator who
# changed nothing looks: gRPC's default verbosity, which prints errors
# (gRPC 1.51) or leaves Abseil's default (1.66 on). Asking for the codec
# with POOLED_GZIP_CORE_CODEC=1 is no choice of the fallback.
for asked in "" POOLED_GZIP_CORE_CODEC=1; do
  run_consumer ubuntu fallback unset "ubuntu-default-verbosity${asked:+-asked}" \
    ${asked:+"$asked"}
  has "pooled_gzip: core codec NOT active" ||
    fail "not active, and silent at gRPC's default verbosity"
done

run_consumer stand-in fallback
has "pooled_gzip: core codec NOT active" || fail "the core codec is active"
has "does not keep the contract" || fail "the probe did not refuse"
# The first probe the stand-in answers otherwise (contract_probe.cc): the
# two before it, plain gzip and deflate, it answers byte for byte as core.
has "(compress gzip, output already holding 4000 B: gRPC returned 1 " ||
  fail "the log does not name the first difference"
# No slot reported as leading here ("->pooled_gzip", "(pointed)" when this
# activation wrote it)...
if has "->pooled_gzip"; then fail "a slot leads to pooled_gzip"; fi
# ...and gRPC's filter still calls the stand-in directly: its slot leads
# there, whatever the log says.
has "relinked_libgrpc stand-in: grpc_msg_decompress called by libgrpc" ||
  fail "gRPC's received messages did not reach the stand-in"

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "relinked libgrpc: faithful relink active; Ubuntu-style not active and" \
  "pointed at the static flavour; other contract refused, nothing written"
