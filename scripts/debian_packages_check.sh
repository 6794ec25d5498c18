#!/usr/bin/env bash
# The Debian source package (debian/) built and used as a distribution
# would: in a copy of the install stage's minimal Debian 12 root
# (library_install_check.sh's, made there with debootstrap and never
# changed after), with only build-essential and the Build-Depends installed
# (`apt-get build-dep`), `dpkg-buildpackage -us -uc -b` in a clean export
# of the source tree; lintian on the three packages, which must report no
# error and no warning; then the packages installed in that root, and
# everything the build alone installed removed again, so that what -dev
# depends on must carry a consumer's build. The consumers:
# test/package/library_install through find_package (the core library and
# the metrics component) and test/package/consumer/main.cc through
# pkg-config, each echoing gzip messages with the core codec active; and
# the static library linked by hand into a program with gRPC's archives,
# served at link time.
#
#   scripts/debian_packages_check.sh [OUTPUT_DIR]
#
# Runs as root (debootstrap, chroot, mount). Works in
# $LIBRARY_INSTALL_ROOT/debs-run (default /var/tmp/pgz-bookworm), removed
# when it passes, with the apt caches library_install_check.sh keeps. The
# packages stay in OUTPUT_DIR (default $LIBRARY_INSTALL_ROOT/debs), the
# build's output in $LIBRARY_INSTALL_ROOT/debian-packages.log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${LIBRARY_INSTALL_ROOT:-/var/tmp/pgz-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
jobs=${JOBS:-2}
minbase=$base/minbase
run_root=$base/debs-run
out_dir=${1:-$base/debs}
log=$base/debian-packages.log
start=$SECONDS

if [[ $(id -u) -ne 0 ]]; then
  echo "debian_packages_check: needs root (debootstrap, chroot, mount)" >&2
  exit 1
fi
for tool in lintian dpkg-parsechangelog git; do
  if ! command -v "$tool" > /dev/null; then
    echo "$tool not found: run scripts/install_deps.sh --with-test-tools" >&2
    exit 1
  fi
done
source "$root/scripts/debian_chroot.sh"
source "$root/scripts/needed_libraries.sh"
source "$root/scripts/install_root.sh"

step() { echo "== debian packages: $* ($((SECONDS - start)) s)"; }
fail() {
  echo "debian_packages_check: $*" >&2
  exit 1
}
# logged COMMAND...: its output goes to the log, shown when it fails.
logged() {
  if ! "$@" >> "$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "failed: $*; full log: $log"
  fi
}
installed_packages() {
  # shellcheck disable=SC2016  # dpkg-query's own field syntax
  in_chroot dpkg-query -W -f='${Package}\n' | sort
}

chroot_dir=$minbase
if [[ ! -x $minbase/usr/bin/apt-get || -d $minbase/debootstrap ]]; then
  step "making a minimal Debian 12 root in $minbase"
  debootstrap_minbase bookworm "$mirror"
fi
unmount_all  # nothing should be mounted; a run cut short may have left some

src=/src/pooled-gzip
fresh_run_root
: > "$log"

step "installing build-essential and the Build-Depends"
# What the root held before: the build's own packages are the rest.
installed_packages > "$run_root/minbase.list"
logged apt_in_chroot update
logged apt_in_chroot install --no-install-recommends build-essential
logged apt_in_chroot build-dep --no-install-recommends "$src"

step "dpkg-buildpackage -us -uc -b"
# The tests run in the test command's other stages, not in the package
# build (nocheck); no debug symbol packages (noddebs).
logged in_chroot DEB_BUILD_OPTIONS="parallel=$jobs nocheck noddebs" \
  sh -c "cd $src && dpkg-buildpackage -us -uc -b"
version=$(dpkg-parsechangelog -l "$root/debian/changelog" -SVersion)
arch=$(dpkg --print-architecture)
rm -rf "$out_dir"
mkdir -p "$out_dir"
cp "$run_root"/src/*.deb "$run_root"/src/*.buildinfo "$run_root"/src/*.changes \
  "$out_dir/"
debs=()
for package in libpooled-gzip1 libpooled-gzip-prometheus1 libpooled-gzip-dev; do
  deb=$out_dir/${package}_${version}_${arch}.deb
  [[ -f $deb ]] || fail "no $(basename "$deb") in $out_dir"
  debs+=("$deb")
  echo "$(basename "$deb"):"
  dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print "  " $6, $7, $8}'
done
made=$(find "$out_dir" -name '*.deb' | wc -l)
((made == 3)) || fail "$made packages in $out_dir, not three"

step "lintian"
lintian --fail-on error,warning --display-info "${debs[@]}" \
  2> >(grep -v '^running with root privileges' >&2) ||
  fail "lintian found errors or warnings (E: or W: above)"
echo "lintian: no errors, no warnings"

step "installing the packages; removing what only the build needed"
installed_packages > "$run_root/built.list"
mapfile -t build_only < <(comm -13 "$run_root/minbase.list" \
  "$run_root/built.list")
logged in_chroot apt-mark auto "${build_only[@]}"
mkdir -p "$run_root/debs"
in_root_debs=()
for deb in "${debs[@]}"; do
  cp "$deb" "$run_root/debs/"
  in_root_debs+=("/debs/$(basename "$deb")")
done
# The consumer's own tools, and prometheus-cpp-dev for the metrics
# component, which -dev only suggests.
logged apt_in_chroot install --no-install-recommends "${in_root_debs[@]}" \
  cmake make g++ pkg-config prometheus-cpp-dev
logged apt_in_chroot autoremove --purge

step "consumers of the installed packages"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
run_consumers "/usr/lib/$multiarch/cmake/pooled_gzip"
# Each loads the packaged library, not another copy.
for program in /tmp/consumer/pooled_consumer /tmp/consumer/metrics_consumer \
    /tmp/pc_consumer; do
  library=$(in_chroot ldd "$program" |
    awk '$1 == "libpooled_gzip.so.1" {print $3}')
  owner=$(in_chroot dpkg -S "$(in_chroot readlink -f "$library")" |
    cut -d: -f1)
  echo "$program: $library, from $owner"
  [[ $owner == libpooled-gzip1 ]] ||
    fail "$program does not load libpooled_gzip from libpooled-gzip1"
done

# The static library as docs/packaging.md says to link it, by hand
# (test/package/link_static_archive.sh): served at link time, with no gRPC
# or pooled_gzip in NEEDED.
step "the static library, linked by hand with gRPC's archives"
in_chroot bash "$src/test/package/link_static_archive.sh" "$src" \
  "/usr/lib/$multiarch/libpooled_gzip.a" /tmp/static
check_static_echo /tmp/static/typed_echo

unmount_all
remove_run_root
step "PASSED"
