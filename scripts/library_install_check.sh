#!/usr/bin/env bash
# The README's library-only install, as a user runs it: the bash block
# marked "<!-- snippet: library-install -->" in README.md, read from the
# README (not a copy of it), run in a minimal Debian 12 root that has only
# what debootstrap --variant=minbase gives, in a clean export of the source
# tree (the files git tracks, as they are in the work tree: what a clone
# would hold once they are committed). Then a separate project built
# against what it installed, through find_package and through pkg-config,
# pools gzip messages (test/package/library_install/). Then the same for
# the static flavour, in a root of its own: docs/packaging.md's
# "static-install" block, and a typed echo built through the package's
# CMake config (with gRPC's reflection add-on) and through the docs'
# pkg-config line, each routed at link time with no gRPC in NEEDED
# (test/package/static_install/).
#
#   scripts/library_install_check.sh
#
# Runs as root (debootstrap, chroot and mount need it). The minimal root is
# made once in $LIBRARY_INSTALL_ROOT/minbase (default /var/tmp/pgz-bookworm)
# and never changed after: each run copies it to .../run, where the block
# installs its packages and builds, and removes that copy when it passes.
# Only the downloaded .deb files and apt's lists are kept between runs
# ($LIBRARY_INSTALL_ROOT/apt-*), so that the block's apt-get downloads
# little; what it installs is installed anew each time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${LIBRARY_INSTALL_ROOT:-/var/tmp/pgz-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
jobs=${JOBS:-2}
minbase=$base/minbase
run_root=$base/run
start=$SECONDS

if [[ $(id -u) -ne 0 ]]; then
  echo "library_install_check: needs root (debootstrap, chroot, mount)" >&2
  exit 1
fi
source "$root/scripts/debian_chroot.sh"
source "$root/scripts/needed_libraries.sh"

# Never remove a folder something is still mounted under.
remove_run_root() {
  if grep -q " ${run_root}[/ ]" /proc/mounts; then
    echo "library_install_check: $run_root still has mounts; not removed" >&2
    exit 1
  fi
  rm -rf "$run_root"
}

chroot_dir=$minbase
if [[ ! -x $minbase/usr/bin/apt-get || -d $minbase/debootstrap ]]; then
  echo "== library install: making a minimal Debian 12 root in $minbase"
  debootstrap_minbase bookworm "$mirror"
  echo "== library install: root made in $((SECONDS - start)) s"
fi

unmount_all  # nothing should be mounted; a run cut short may have left some

# Tracked files as they are in the work tree (`git stash create` makes a
# commit of them without touching anything; it prints nothing when the
# work tree is clean, and HEAD is that commit).
tree=$(git -C "$root" stash create)
tree=${tree:-HEAD}
src=/src/pooled-gzip

# A fresh copy of the minimal root with the source tree in it, in which the
# bash block after "<!-- snippet: $1 -->" in $2 (a file of the source
# tree) runs as written, from the tree's top folder.
run_block() {
  local snippet=$1 doc=$2
  remove_run_root
  cp -a "$minbase" "$run_root"
  chroot_dir=$run_root
  mkdir -p "$run_root$src"
  git -C "$root" archive "$tree" | tar -x -C "$run_root$src"
  local block
  block=$(python3 "$root/test/docs/extract_snippets.py" --print \
    "$snippet" "$run_root$src/$doc")
  if [[ -z $block ]]; then
    echo "library_install_check: $doc has no bash block after" \
      "'<!-- snippet: $snippet -->'" >&2
    exit 1
  fi
  printf 'cd %s\n%s\n' "$src" "$block" > "$run_root/block.sh"
  echo "== library install: $doc's $snippet block"
  printf '%s\n' "$block"
  mount_system
  mount_into /etc/resolv.conf /etc/resolv.conf --bind
  mkdir -p "$base/apt-archives" "$base/apt-lists"
  mount_into "$base/apt-archives" /var/cache/apt/archives --bind
  mount_into "$base/apt-lists" /var/lib/apt/lists --bind
  local log=$base/$snippet.log
  if ! in_chroot CMAKE_BUILD_PARALLEL_LEVEL="$jobs" \
    bash -euo pipefail -x /block.sh > "$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "library_install_check: the $snippet block failed; full log: $log" >&2
    exit 1
  fi
  echo "== library install: block ran in $((SECONDS - start)) s; installed:"
  in_chroot sh -c 'find /usr/local -name "libpooled_gzip*" | sort'
}

run_block library-install README.md
# The consumer, in the chroot as the block left it: no prefix given (the
# block installs where CMake and pkg-config look by default), and for the
# pkg-config build no rpath (the block's ldconfig finds the library).
consumer=$src/test/package/library_install
in_chroot sh -euc "
  cmake -S $consumer -B /tmp/consumer > /dev/null
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
unmount_all

# The static flavour as docs/packaging.md installs it, in a root of its
# own: a typed echo through its CMake config, with gRPC's reflection add-on
# linked too, and through its pkg-config line as the docs write it. Each
# must have the core codec routed at link time and seen, and no gRPC or
# pooled_gzip shared library in NEEDED.
run_block static-install docs/packaging.md
pkg_config_line=$(python3 "$root/test/docs/extract_snippets.py" --print \
  static-pkg-config "$run_root$src/docs/packaging.md" |
  sed 's|my_service.cc|typed_echo.cc echo.pb.cc echo.grpc.pb.cc -I.|;
       s|-o my_service|-o /tmp/pc_typed/typed_echo|' | tr -d '\\\n')
static_consumer=$src/test/package/static_install
in_chroot sh -euc "
  cmake -S $static_consumer -B /tmp/static_consumer > /dev/null
  cmake --build /tmp/static_consumer -j $jobs > /dev/null
  mkdir -p /tmp/pc_typed && cd /tmp/pc_typed
  cp $static_consumer/typed_echo.cc .
  protoc -I $src/proto --cpp_out=. --grpc_out=. \
    --plugin=protoc-gen-grpc=\$(command -v grpc_cpp_plugin) $src/proto/echo.proto
  echo '== pkg-config: $pkg_config_line'
  $pkg_config_line
"
for program in /tmp/static_consumer/typed_echo /tmp/pc_typed/typed_echo; do
  echo "== static flavour: $program"
  refuse_shared_grpc "$run_root$program" "$program"
  out=$(in_chroot env GRPC_VERBOSITY=INFO "$program" 2>&1) ||
    { printf '%s\n' "$out"; echo "$program failed"; exit 1; }
  printf '%s\n' "$out" | grep -E 'pooled_gzip: core codec|typed calls'
  # The line docs/packaging.md tells a user to look for.
  if ! grep -q "pooled_gzip: core codec active: gRPC is linked into the program, and its zlib calls are routed to pooled_gzip at link time (--wrap), seen both ways" <<< "$out"; then
    printf '%s\n' "$out"
    echo "$program: no link-time routing line in the log"; exit 1
  fi
done
unmount_all
remove_run_root
echo "== library install: PASSED in $((SECONDS - start)) s"
