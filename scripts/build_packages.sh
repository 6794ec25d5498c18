#!/usr/bin/env bash
# Builds the Debian packages libpooled-gzip0 and libpooled-gzip-dev with
# CPack (cmake/packaging.cmake), copies them into OUTPUT_DIR and runs lintian
# on them. Exits non-zero when the build fails or lintian reports an error
# or a warning that the packages' overrides (cmake/debian/*.lintian-overrides)
# do not justify.
#
#   scripts/build_packages.sh [--build-dir DIR] [--jobs N]
#                             [--with-prometheus] [OUTPUT_DIR]
#
#   --build-dir DIR    packaging build directory (default: build-deb in the
#                      source tree); configured for /usr, Release, library
#   --jobs N           parallel compile jobs (default: all cores)
#   --with-prometheus  also package pooled_gzip::prometheus (into the same
#                      two packages, which then depend on prometheus-cpp);
#                      left out by default
#   OUTPUT_DIR         where the .deb files go (default: DIR/debs)
#
# Compiler and linker flags come from dpkg-buildflags (hardening: fortify,
# stack protector, relro, bindnow), as in a Debian package build; the
# library is stripped, so -g is dropped.
set -euo pipefail

source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# ccache, when installed (CMAKE_CXX_COMPILER_LAUNCHER).
source "$source_dir/scripts/configure_preset.sh"
build_dir=$source_dir/build-deb
jobs=$(nproc)
prometheus=OFF
out_dir=""
while (($# > 0)); do
  case $1 in
    --build-dir) build_dir=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --with-prometheus) prometheus=ON; shift ;;
    -h|--help) sed -n '2,21s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "unknown option: $1" >&2; exit 2 ;;
    *) out_dir=$1; shift ;;
  esac
done
mkdir -p "$build_dir"
build_dir=$(cd "$build_dir" && pwd)
out_dir=${out_dir:-$build_dir/debs}
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)

for tool in dpkg-buildflags dpkg-shlibdeps dpkg-deb file lintian; do
  if ! command -v "$tool" > /dev/null; then
    echo "$tool not found: run scripts/install_deps.sh --with-test-tools" >&2
    exit 1
  fi
done

# Files 0644, directories 0755 in the packages, whatever the caller's umask.
umask 022

flags() {
  (cd "$source_dir" &&
    DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1") |
    sed -e 's/\(^\| \)-g\( \|$\)/\1/'
}
cxxflags="$(flags CPPFLAGS) $(flags CXXFLAGS)"
ldflags=$(flags LDFLAGS)

echo "== configure $build_dir"
cmake -S "$source_dir" -B "$build_dir" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_CXX_FLAGS="$cxxflags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$ldflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
  -DPOOLED_GZIP_BUILD_TESTS=OFF \
  -DPOOLED_GZIP_BUILD_BENCHMARKS=OFF \
  -DPOOLED_GZIP_BUILD_EXAMPLES=OFF \
  -DPOOLED_GZIP_BUILD_FUZZERS=OFF \
  -DPOOLED_GZIP_BUILD_PROMETHEUS="$prometheus" > "$build_dir/configure.log" ||
  { cat "$build_dir/configure.log" >&2; exit 1; }

echo "== build"
cmake --build "$build_dir" -j"$jobs"

echo "== cpack -G DEB"
staging=$build_dir/cpack
rm -rf "$staging"
(cd "$build_dir" && cpack -G DEB -B "$staging" > "$build_dir/cpack.log") ||
  { cat "$build_dir/cpack.log" >&2; exit 1; }
mapfile -t debs < <(find "$staging" -maxdepth 1 -name '*.deb' | sort)
if ((${#debs[@]} == 0)); then
  echo "cpack made no .deb files; see $build_dir/cpack.log" >&2
  exit 1
fi
for deb in "${debs[@]}"; do
  cp "$deb" "$out_dir/"
  echo "$out_dir/$(basename "$deb")"
done

echo "== lintian"
mapfile -t built < <(for deb in "${debs[@]}"; do
  echo "$out_dir/$(basename "$deb")"; done)
# --display-info: also the informational tags (I:); --show-overrides: the
# justified (overridden) ones too, as O: with the reason as N: lines. With
# --show-overrides, lintian 2.116 counts overridden tags for --fail-on, so
# the verdict comes from the E: and W: lines instead.
report=$build_dir/lintian.txt
status=0
lintian --display-info --show-overrides --fail-on none "${built[@]}" \
  > "$report" 2> "$build_dir/lintian.err" || status=$?
grep -v '^running with root privileges' "$build_dir/lintian.err" >&2 || true
cat "$report"
if ((status != 0)); then
  echo "lintian failed to run (exit $status)" >&2
  exit "$status"
fi
if grep -q '^[EW]: ' "$report"; then
  echo "lintian: errors or warnings without an override (E:/W: above)" >&2
  exit 1
fi
echo "lintian: no errors, no warnings without an override"
