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
source "$root/scripts/install_root.sh"

chroot_dir=$minbase
if [[ ! -x $minbase/usr/bin/apt-get || -d $minbase/debootstrap ]]; then
  echo "== library install: making a minimal Debian 12 root in $minbase"
  debootstrap_minbase bookworm "$mirror"
  echo "== library install: root made in $((SECONDS - start)) s"
fi

unmount_all  # nothing should be mounted; a run cut short may have left some

src=/src/pooled-gzip

# A fresh copy of the minimal root with the source tree in it, in which the
# bash block after "<!-- snippet: $1 -->" in $2 (a file of the source
# tree) runs as written, from the tree's top folder.
run_block() {
  local snippet=$1 doc=$2
  fresh_run_root
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
run_consumers ""  # wherever CMake finds it by default
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
  check_static_echo "$program"
done
unmount_all
remove_run_root
echo "== library install: PASSED in $((SECONDS - start)) s"
