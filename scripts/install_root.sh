# shellcheck shell=bash
# shellcheck disable=SC2154  # root, base, minbase, run_root, src, jobs: the sourcing script's
# Sourced by the install stage's scripts (library_install_check.sh,
# debian_packages_check.sh), after debian_chroot.sh and needed_libraries.sh:
# a fresh copy of the minimal Debian 12 root with the source tree in it,
# and the programs that check a pooled-gzip installed there. Failures go to
# stderr and exit.

# Never remove a folder something is still mounted under.
remove_run_root() {
  if grep -q " ${run_root}[/ ]" /proc/mounts; then
    echo "$(basename "$0" .sh): $run_root still has mounts; not removed" >&2
    exit 1
  fi
  rm -rf "$run_root"
}

# $run_root afresh, the chroot from now on: a copy of $minbase holding at
# $src the tracked files as they are in the work tree (`git stash create`
# commits them without touching anything; it prints nothing when the work
# tree is clean, and HEAD is that commit), what a clean clone holds once
# they are committed; the system mounted, and apt's caches shared through
# $base between runs.
fresh_run_root() {
  local tree
  remove_run_root
  cp -a "$minbase" "$run_root"
  # shellcheck disable=SC2034  # read by debian_chroot.sh's functions
  chroot_dir=$run_root
  tree=$(git -C "$root" stash create)
  mkdir -p "$run_root$src"
  git -C "$root" archive "${tree:-HEAD}" | tar -x -C "$run_root$src"
  mount_system
  mount_into /etc/resolv.conf /etc/resolv.conf --bind
  mkdir -p "$base/apt-archives" "$base/apt-lists"
  mount_into "$base/apt-archives" /var/cache/apt/archives --bind
  mount_into "$base/apt-lists" /var/lib/apt/lists --bind
}

# The consumers of the pooled-gzip installed in the root, each echoing gzip
# with the core codec active: test/package/library_install through
# find_package (the core library, and the metrics component served by an
# Exposer), test/package/consumer/main.cc through pkg-config. With an
# argument, find_package must have found the CMake package in that folder.
run_consumers() {
  local expected_dir=${1:-} consumer=$src/test/package/library_install
  in_chroot sh -euc "
    cmake -S $consumer -B /tmp/consumer > /dev/null
    found=\$(sed -n 's/^pooled_gzip_DIR:PATH=//p' /tmp/consumer/CMakeCache.txt)
    echo \"find_package(pooled_gzip): \$found\"
    [ -z '$expected_dir' ] || [ \"\$found\" = '$expected_dir' ]
    cmake --build /tmp/consumer -j $jobs > /dev/null
    echo '== find_package: core library'
    /tmp/consumer/pooled_consumer active
    echo '== find_package: the metrics component, served by an Exposer'
    /tmp/consumer/metrics_consumer
    echo '== pkg-config'
    c++ -std=c++17 $src/test/package/consumer/main.cc -o /tmp/pc_consumer \
      \$(pkg-config --cflags --libs pooled_gzip)
    /tmp/pc_consumer active
  "
}

# A typed echo linked with gRPC's archives (a path in the root): no gRPC or
# pooled_gzip shared library in NEEDED, a run that succeeds, and the log line
# docs/packaging.md tells a user to look for.
check_static_echo() {
  local program=$1 out
  refuse_shared_grpc "$run_root$program" "$program"
  out=$(in_chroot env GRPC_VERBOSITY=INFO "$program" 2>&1) ||
    { printf '%s\n' "$out"; echo "$program failed" >&2; exit 1; }
  printf '%s\n' "$out" | grep -E 'pooled_gzip: core codec|typed calls'
  if ! grep -q "pooled_gzip: core codec active: gRPC is linked into the program, and its zlib calls are routed to pooled_gzip at link time (--wrap), seen both ways" <<< "$out"; then
    printf '%s\n' "$out"
    echo "$program: no link-time routing line in the log" >&2
    exit 1
  fi
}
