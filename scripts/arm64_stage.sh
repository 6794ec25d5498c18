#!/usr/bin/env bash
# The arm64 stage: the project cross-built for arm64 Debian 12 (gRPC 1.51)
# with an arm64 Debian root as the sysroot, and the tests that matter for
# the core codec on arm64 run under qemu-user emulation against the root's
# libraries:
# - the core codec differential: arm64 libgrpc's own codec functions,
#   served at their zlib calls, against stock's results on real zlib
#   (core_codec_test), the zlib seam against arm64 zlib (zlib_seam_test),
#   the caps and limits on a typed echo server (core_codec_limits_test:
#   the 1 GiB bomb), and the over-limit statuses against stock gRPC in
#   child processes (stock_statuses_test);
# - every activation case of the installed shared library (check_package.sh:
#   both CMake orders, pkg-config, libgrpc first, dlopen);
# - the static flavour with gRPC's archives (check_static_package.sh:
#   server and client in separate processes, bomb and over-limit);
# - typed echo between a pooled echo_server and echo_client in separate
#   processes, pooled both ways.
# Everything else (the e2e matrix, reliability races, sanitizers, interop)
# runs on x86-64 only.
#
#   scripts/arm64_stage.sh          # make (or reuse) the root, build, test
#   scripts/arm64_stage.sh setup    # only make the root
#
# Runs as root (binfmt_misc, the build machine's packages). The root is an
# arm64 Debian 12 sysroot, its packages unpacked without running anything
# of it (scripts/debian_sysroot.sh). It lives in $ARM64_ROOT (default
# /var/tmp/pgz-arm64/root) and is reused by later runs made from the same
# package list; the build folder is build-arm64/ in the source tree.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
arm64_root=${ARM64_ROOT:-/var/tmp/pgz-arm64/root}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
build_dir=$source_dir/build-arm64
jobs=${JOBS:-2}
start=$SECONDS

# The sysroot: what the cross build compiles and links against, and what
# the programs load under emulation (their dependencies come along).
# protobuf-compiler-grpc only because gRPC's CMake config checks that its
# plugin exists (the build runs the build machine's).
packages=(
  libc6-dev libstdc++-12-dev libgrpc++-dev libprotobuf-dev
  protobuf-compiler-grpc libabsl-dev zlib1g-dev libdeflate-dev libisal-dev
  libgtest-dev libgmock-dev
)
# Changing the list above makes the next run make the root again.
# The build machine's tools: the cross compiler, the emulator and its
# binfmt_misc registration, and protoc and the gRPC plugin of the same
# versions as the root's.
host_packages=(
  qemu-user-static binfmt-support g++-aarch64-linux-gnu
  protobuf-compiler protobuf-compiler-grpc cmake make pkg-config
)

if [[ $(id -u) -ne 0 ]]; then
  echo "arm64_stage: needs root (binfmt_misc, the build machine's packages)" >&2
  exit 1
fi
source "$source_dir/scripts/debian_sysroot.sh"

step() { echo "== arm64: $* ($((SECONDS - start)) s)"; }

"$source_dir/scripts/install_deps.sh" --only "${host_packages[@]}"

# arm64 programs, the root's own included, run through binfmt_misc.
if ! mountpoint -q /proc/sys/fs/binfmt_misc; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
  update-binfmts --enable qemu-aarch64
fi
if ! grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64; then
  echo "arm64_stage: qemu-aarch64 is not enabled in binfmt_misc" >&2
  exit 1
fi

root_spec=("$arm64_root" arm64 bookworm "$mirror" "${packages[@]}")
if ! sysroot_ready "${root_spec[@]}"; then
  step "making the arm64 Debian 12 root in $arm64_root"
  make_sysroot "${root_spec[@]}"
  step "root ready"
else
  step "reusing the root in $arm64_root"
fi
if [[ "${1:-}" == setup ]]; then exit 0; fi

# Where CI is set, a top-level configure insists on every test being
# buildable (the README's metrics snippet included); this build is a chosen
# subset, and says so with its options.
unset CI

# What the build and the tests need to see of the root: the toolchain file
# reads it from the environment (so do the package tests' own CMake
# projects, through CMAKE_TOOLCHAIN_FILE), pkg-config reads the root's
# .pc files, a plain `c++` is the cross compiler, and every arm64 process,
# children of the tests included, loads its libraries from the root.
export POOLED_GZIP_ARM64_ROOT=$arm64_root
export CMAKE_TOOLCHAIN_FILE=$source_dir/cmake/toolchains/aarch64-linux-gnu.cmake
export PKG_CONFIG_LIBDIR=$arm64_root/usr/lib/aarch64-linux-gnu/pkgconfig:$arm64_root/usr/share/pkgconfig
export PKG_CONFIG_SYSTEM_INCLUDE_PATH=/usr/include
export PKG_CONFIG_SYSTEM_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu:/usr/lib
export QEMU_LD_PREFIX=$arm64_root
mkdir -p "$build_dir/cross-bin"
cat > "$build_dir/cross-bin/c++" << EOF
#!/bin/sh
exec aarch64-linux-gnu-g++ --sysroot="$arm64_root" "\$@"
EOF
chmod +x "$build_dir/cross-bin/c++"
export PATH=$build_dir/cross-bin:$PATH

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
step "configuring in $build_dir"
if ! cmake -S "$source_dir" -B "$build_dir" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "${launcher[@]}" \
  -DPOOLED_GZIP_BUILD_TESTS=ON -DPOOLED_GZIP_BUILD_EXAMPLES=ON \
  -DPOOLED_GZIP_BUILD_INTEROP=OFF -DPOOLED_GZIP_BUILD_BENCHMARKS=OFF \
  -DPOOLED_GZIP_BUILD_PROMETHEUS=OFF \
  > "$build_dir/configure.log" 2>&1; then
  tail -n 40 "$build_dir/configure.log" >&2
  echo "configure failed; full log: $build_dir/configure.log" >&2
  exit 1
fi
targets=(pooled_gzip core_codec_test zlib_seam_test core_codec_limits_test
  stock_statuses_test echo_server echo_client status_client)
step "building ${targets[*]}"
cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}" -- -k \
  > "$build_dir/build.log" 2>&1 || {
  grep -B 5 -A 20 -m 5 'error' "$build_dir/build.log" >&2 || true
  tail -n 40 "$build_dir/build.log" >&2
  echo "build failed; full log: $build_dir/build.log" >&2
  exit 1
}
file -L "$build_dir/examples/echo_server" | grep -q 'ARM aarch64' || {
  echo "arm64_stage: echo_server is not an arm64 program" >&2
  exit 1
}

step "core codec tests under emulation"
# The differential, the activation and the bomb print what they found.
shown='^(CoreCodecTest\.SameResultsAndBytesAsStock|InstallTest\.ActiveWhenLinkedThroughTheCMakeTarget|CoreCodecLimitsTest\.GzipBombIsRefusedAndTheServerKeepsServing)$'
(cd "$build_dir" &&
  GRPC_VERBOSITY=info ctest -V --timeout 600 --no-tests=error -R "$shown" |
  grep -E 'Test +#|cases compared|core codec|bomb|OK \]|FAILED|Failure|Expected|Which is|peak RSS')
(cd "$build_dir" && ctest -j "$jobs" --output-on-failure --timeout 600 \
  --no-tests=error -E "$shown" \
  -R '^([A-Za-z]+/)?(CoreCodec[A-Za-z]*|ZlibSeamTest|InstallTest|StockStatusesTest)\.')

step "typed echo between separate processes"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkfifo "$scratch/server.pipe"
# At info, the server logs which slots activation pointed.
GRPC_VERBOSITY=info timeout 300 "$build_dir/examples/echo_server" --port=0 \
  --compression=gzip > "$scratch/server.pipe" 2>&1 &
server_pid=$!
exec {server_fd}< "$scratch/server.pipe"
port=""
while IFS= read -r -t 60 -u "$server_fd" line; do
  echo "server: $line"
  if [[ $line =~ listening\ on\ 127\.0\.0\.1:([0-9]+) ]]; then
    port=${BASH_REMATCH[1]}
    [[ $line == *"core codec active"* ]] || {
      echo "arm64_stage: the echo server's core codec is not active" >&2
      exit 1
    }
    break
  fi
done
[[ -n $port ]] || { echo "arm64_stage: the echo server did not listen" >&2; exit 1; }
cat <&"$server_fd" > "$scratch/server.log" &
drain_pid=$!
exec {server_fd}<&-
timeout 300 "$build_dir/examples/echo_client" --target="127.0.0.1:$port" \
  --compression=gzip --count=200 --size=16384 | tee "$scratch/client.log"
kill -TERM "$server_pid"
wait "$server_pid"
wait "$drain_pid"
# Its own lines, not gRPC's info-level ones.
grep -Ev '^[IDWE][0-9]{4} ' "$scratch/server.log" | sed 's/^/server: /'
grep -q ' 0 mismatched, status OK' "$scratch/client.log"
grep -q 'core codec active' "$scratch/client.log"
# Pooled both ways in both processes: each compressed and decompressed
# messages with the pool.
for log in "$scratch/client.log" "$scratch/server.log"; do
  for direction in compress decompress; do
    grep -Eq "traffic: $direction gzip [a-z]+: [1-9][0-9]* messages" "$log" || {
      echo "arm64_stage: no pooled $direction traffic in $log" >&2
      exit 1
    }
  done
done

step "the installed shared library in every link and load order"
"$source_dir/test/package/check_package.sh" "$build_dir" \
  "$source_dir/test/package/consumer"

step "the static flavour with gRPC's archives"
PACKAGE_JOBS=$jobs "$source_dir/test/package/check_static_package.sh" \
  "$source_dir" "$build_dir/static" "$source_dir/test/package/static_consumer"

step "PASSED"
