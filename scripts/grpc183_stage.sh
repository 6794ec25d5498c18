#!/usr/bin/env bash
# The gRPC 1.83 stage: builds the library, its unit, e2e, reliability and
# package tests and the echo examples against Debian experimental's gRPC
# 1.83 in a Debian sid chroot, and runs them there (the core codec test
# against libgrpc.so.56's own functions included). The interop peers stay
# on the host's gRPC 1.51.
#
#   scripts/grpc183_stage.sh          # set up (or reuse) the chroot, build, test
#   scripts/grpc183_stage.sh setup    # only set up the chroot
#   scripts/grpc183_stage.sh e2e_bench [ARGS...]
#       # build the end-to-end benchmark against gRPC 1.83 in
#       # build-grpc183-bench/ and run it there with ARGS
#
# Runs as root (debootstrap, chroot and mount need it). The chroot lives in
# $GRPC183_CHROOT (default /var/tmp/pgz-sid/root) and is reused by later
# runs on the same machine once its setup completed, which a marker file
# records; the build folder is build-grpc183/ in the source tree, and
# ccache's cache stays in the chroot.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
chroot_dir=${GRPC183_CHROOT:-/var/tmp/pgz-sid/root}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
build_dir=$root/build-grpc183
jobs=${JOBS:-2}
start=$SECONDS

# What the stage builds with. gRPC and protobuf come from experimental
# (-t below), everything else from sid. Abseil too: experimental's
# libabsl-dev (20260817) is newer than the abseil its gRPC 1.83.0-2+b1 and
# protobuf 36.2-3 are linked with (sid's 20260526), and a program built
# with its headers links both abseils, or fails to link.
packages=(
  g++ cmake make pkg-config ccache binutils file ca-certificates
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libabsl-dev/unstable zlib1g-dev libdeflate-dev libisal-dev libgtest-dev
  libgmock-dev
)
# Changing the list above makes the next run set the chroot up again.

if [[ $(id -u) -ne 0 ]]; then
  echo "grpc183_stage: needs root (debootstrap, chroot, mount)" >&2
  exit 1
fi

source "$root/scripts/debian_chroot.sh"

if ! chroot_ready grpc183 "${packages[@]}"; then
  echo "== grpc183: setting up the Debian sid chroot in $chroot_dir"
  debootstrap_minbase sid "$mirror"
  echo "deb $mirror experimental main" \
    > "$chroot_dir/etc/apt/sources.list.d/experimental.list"
  install_and_mark grpc183 --allow-downgrades -t experimental -- \
    "${packages[@]}"
  echo "== grpc183: chroot ready in $((SECONDS - start)) s"
else
  echo "== grpc183: reusing the chroot in $chroot_dir"
fi
if [[ "${1:-}" == setup ]]; then exit 0; fi
if [[ "${1:-}" == e2e_bench ]]; then
  # Google Benchmark only for this build: the stage's own list stays as
  # the tests need it.
  if ! chroot_ready grpc183_bench libbenchmark-dev; then
    install_and_mark grpc183_bench -- libbenchmark-dev
  fi
  mount_system
  mount_into "$root" /src --bind
  mkdir -p "$root/build-grpc183-bench"
  in_chroot cmake -S /src -B /src/build-grpc183-bench \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DPOOLED_GZIP_BUILD_TESTS=OFF -DPOOLED_GZIP_BUILD_EXAMPLES=OFF \
    -DPOOLED_GZIP_BUILD_INTEROP=OFF -DPOOLED_GZIP_BUILD_BENCHMARKS=ON \
    > "$root/build-grpc183-bench/configure.log" 2>&1 || {
    tail -n 40 "$root/build-grpc183-bench/configure.log" >&2
    exit 1
  }
  in_chroot cmake --build /src/build-grpc183-bench -j "$jobs" \
    --target e2e_bench > "$root/build-grpc183-bench/build.log" 2>&1 || {
    tail -n 40 "$root/build-grpc183-bench/build.log" >&2
    exit 1
  }
  in_chroot /src/build-grpc183-bench/bench/e2e_bench "${@:2}"
  exit
fi

mount_system
mount_into "$root" /src --bind
in_chroot sh -c 'echo "gRPC $(pkg-config --modversion grpc++)," \
  "protobuf $(pkg-config --modversion protobuf), $(g++ --version | head -n 1)," \
  "$(cmake --version | head -n 1)"'

# The dev preset's warnings-as-errors and optimisation, without debug
# information (which only slows the build) or the benchmarks. The interop
# suite is built for its harness (the stock-status tests run stock peers
# with it) but not run: its peers are the host's.
stage_build=/src/build-grpc183
mkdir -p "$build_dir"
echo "== grpc183: building in $build_dir"
if ! in_chroot cmake -S /src -B "$stage_build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DCMAKE_COMPILE_WARNING_AS_ERROR=ON \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DPOOLED_GZIP_BUILD_TESTS=ON -DPOOLED_GZIP_BUILD_EXAMPLES=ON \
  -DPOOLED_GZIP_BUILD_INTEROP=ON -DPOOLED_GZIP_BUILD_BENCHMARKS=OFF \
  > "$build_dir/configure.log" 2>&1; then
  tail -n 40 "$build_dir/configure.log" >&2
  echo "configure failed; full log: $build_dir/configure.log" >&2
  exit 1
fi
# -k: a failed build lists every error, not the first one.
in_chroot cmake --build "$stage_build" -j "$jobs" -- -k \
  > "$build_dir/build.log" 2>&1 || {
  grep -B 5 -A 20 -m 5 'error' "$build_dir/build.log" >&2 || true
  tail -n 40 "$build_dir/build.log" >&2
  echo "build failed; full log: $build_dir/build.log" >&2
  exit 1
}
echo "== grpc183: built in $((SECONDS - start)) s; running tests"
in_chroot sh -c "cd $stage_build && ctest -j $jobs --output-on-failure \
  --timeout 600 --no-tests=error -L '^(unit|e2e|reliability|package)\$'"
echo "== grpc183: PASSED in $((SECONDS - start)) s"
