#!/usr/bin/env bash
# Builds the Debian packages from the source tree (scripts/build_packages.sh:
# CPack, then lintian, which must be clean apart from the packages' own
# overrides), checks their contents and relations with dpkg-deb, unpacks
# both into a scratch root with dpkg-deb -x, and builds the consumer against
# the unpacked files with CMake and with pkg-config; each consumer runs with
# LD_LIBRARY_PATH at the unpacked libdir and must find the core codec active.
#
#   check_debs.sh SOURCE_DIR WORK_DIR CONSUMER_DIR
#
# WORK_DIR keeps the packaging build between runs (incremental); the root
# and the consumer builds are scratch. PACKAGE_JOBS sets the compile jobs.
set -euo pipefail
source_dir=$1
work_dir=$2
consumer_dir=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# has_depend DEPENDS NAME: a Depends field names package NAME.
has_depend() {
  local entry
  while IFS= read -r entry; do
    [[ ${entry%% *} == "$2" ]] && return 0
  done <<< "${1//, /$'\n'}"
  return 1
}

echo "== build the packages (scripts/build_packages.sh)"
debs=$work_dir/debs
rm -f "$debs"/*.deb
"$source_dir/scripts/build_packages.sh" --build-dir "$work_dir/build" \
  --jobs "${PACKAGE_JOBS:-$(nproc)}" "$debs"

runtime_deb=$(find "$debs" -name 'libpooled-gzip1_*.deb')
dev_deb=$(find "$debs" -name 'libpooled-gzip-dev_*.deb')
[[ -f $runtime_deb && -f $dev_deb ]] || fail "missing .deb in $debs"
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=usr/lib/$multiarch
version=$(dpkg-deb -f "$runtime_deb" Version)
[[ $(basename "$runtime_deb") == "libpooled-gzip1_${version}_${arch}.deb" ]] ||
  fail "runtime file name $(basename "$runtime_deb")"
[[ $(basename "$dev_deb") == "libpooled-gzip-dev_${version}_${arch}.deb" ]] ||
  fail "dev file name $(basename "$dev_deb")"

echo "== runtime package: $(basename "$runtime_deb")"
dpkg-deb -I "$runtime_deb"
dpkg-deb -c "$runtime_deb"
# Files and links: the versioned library, its SONAME link, the docs and the
# lintian overrides; nothing else.
allowed_runtime="^\./($libdir/libpooled_gzip\.so\.1(\.[0-9]+\.[0-9]+)?\
|usr/share/doc/libpooled-gzip1/(copyright|changelog\.Debian\.gz)\
|usr/share/lintian/overrides/libpooled-gzip1)$"
entries=$(dpkg-deb -c "$runtime_deb" | awk '$1 !~ /^d/ {print $6}')
if extra=$(grep -Ev "$allowed_runtime" <<< "$entries"); then
  fail "runtime package holds more than the library and docs: $extra"
fi
for entry in "./$libdir/libpooled_gzip.so.1" \
    "./usr/share/doc/libpooled-gzip1/copyright" \
    "./usr/share/doc/libpooled-gzip1/changelog.Debian.gz"; do
  grep -qxF "$entry" <<< "$entries" || fail "runtime package lacks $entry"
done
grep -Eq "^\./$libdir/libpooled_gzip\.so\.1\.[0-9]+\.[0-9]+$" <<< "$entries" ||
  fail "runtime package lacks the versioned library"
[[ $(dpkg-deb -f "$runtime_deb" Section) == libs ]] || fail "runtime section"
runtime_depends=$(dpkg-deb -f "$runtime_deb" Depends)
for package in libc6 libgrpc++1.51 zlib1g; do
  has_depend "$runtime_depends" "$package" ||
    fail "runtime Depends lacks $package (dpkg-shlibdeps): $runtime_depends"
done
[[ $(dpkg-deb -I "$runtime_deb" shlibs) == \
   "libpooled_gzip 1 libpooled-gzip1 (= $version)" ]] ||
  fail "runtime shlibs: $(dpkg-deb -I "$runtime_deb" shlibs)"
[[ $(dpkg-deb -I "$runtime_deb" triggers) == "activate-noawait ldconfig" ]] ||
  fail "runtime triggers"

echo "== dev package: $(basename "$dev_deb")"
dpkg-deb -I "$dev_deb"
dpkg-deb -c "$dev_deb"
[[ $(dpkg-deb -f "$dev_deb" Section) == libdevel ]] || fail "dev section"
dev_depends=$(dpkg-deb -f "$dev_deb" Depends)
grep -Eq "(^|, )libpooled-gzip1 \(= ${version//./\\.}\)(,|$)" \
  <<< "$dev_depends" ||
  fail "dev does not depend on libpooled-gzip1 (= $version): $dev_depends"
dev_entries=$(dpkg-deb -c "$dev_deb" | awk '$1 !~ /^d/ {print $6}')
for entry in "./$libdir/libpooled_gzip.so" "./usr/include/pooled_gzip/pooled_gzip.h" \
    "./$libdir/cmake/pooled_gzip/pooled_gzipConfig.cmake" \
    "./$libdir/pkgconfig/pooled_gzip.pc" \
    "./usr/share/doc/libpooled-gzip-dev/copyright"; do
  grep -qxF "$entry" <<< "$dev_entries" || fail "dev package lacks $entry"
done
if grep -E '\.so\.' <<< "$dev_entries"; then
  fail "dev package holds a versioned library"
fi
# Owner, permissions: root/root, 0644 files, 0755 directories, links.
for deb in "$runtime_deb" "$dev_deb"; do
  if bad=$(dpkg-deb -c "$deb" |
      grep -Ev '^(-rw-r--r--|drwxr-xr-x|lrwxrwxrwx) root/root '); then
    fail "$(basename "$deb"): owner or permissions: $bad"
  fi
done

echo "== relations: every pkg-config module the .pc requires comes from a Depends"
# Each Depends entry must name an installed package of a new enough version.
check_installed() {
  local entry name op required installed
  while IFS= read -r entry; do
    [[ $entry =~ ^([^ ]+)( \(([<>=]+) ([^\)]+)\))?$ ]] ||
      fail "Depends entry '$entry'"
    name=${BASH_REMATCH[1]} op=${BASH_REMATCH[3]} required=${BASH_REMATCH[4]}
    [[ $name == libpooled-gzip1 ]] && continue
    installed=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null) ||
      fail "Depends names $name, which is not an installed package"
    if [[ -n $op ]]; then
      case $op in '>=') op=ge ;; '<=') op=le ;; '=') op=eq ;;
        '>>') op=gt ;; '<<') op=lt ;; esac
      dpkg --compare-versions "$installed" "$op" "$required" ||
        fail "$name $installed does not satisfy ($op $required)"
    fi
  done <<< "${1//, /$'\n'}"
}
check_installed "$runtime_depends"
check_installed "$dev_depends"

root=$scratch/root
mkdir -p "$root"
dpkg-deb -x "$runtime_deb" "$root"
dpkg-deb -x "$dev_deb" "$root"
pc_dir=$root/$libdir/pkgconfig
modules=$(sed -n 's/^Requires\(\.private\)\{0,1\}: *//p' "$pc_dir/pooled_gzip.pc" |
  tr -s ', ' '\n' | sed '/^$/d')
for module in $modules; do
  pc_file=$(pkg-config --path "$module") || fail "no $module.pc on this system"
  owner=$(dpkg -S "$pc_file" | head -1 | cut -d: -f1) ||
    fail "no Debian package owns $pc_file"
  has_depend "$dev_depends" "$owner" ||
    fail "pooled_gzip.pc requires $module ($owner), not in dev Depends"
  echo "$module: $owner"
done

echo "== runtime .so: SONAME, stripped"
so=$(find "$root/$libdir" -name 'libpooled_gzip.so.1.*' -type f)
soname=$(objdump -p "$so" | awk '$1 == "SONAME" {print $2}')
[[ $soname == libpooled_gzip.so.1 ]] || fail "SONAME of $so: $soname"
[[ $(file -L "$so") == *", stripped"* ]] || fail "$so is not stripped"
[[ $(readlink "$root/$libdir/libpooled_gzip.so") == libpooled_gzip.so.1 ]] ||
  fail "the dev link libpooled_gzip.so"

# The consumers run against the unpacked library only.
export LD_LIBRARY_PATH=$root/$libdir
uses_unpacked_library() {
  ldd "$1" | grep -F "libpooled_gzip.so.1 => $root/$libdir/" ||
    fail "$1 does not load libpooled_gzip from $root/$libdir"
}

echo "== CMake consumer (CMAKE_PREFIX_PATH=$root/usr)"
cmake -S "$consumer_dir" -B "$scratch/cmake-build" \
  -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_SKIP_RPATH=ON > /dev/null
found_dir=$(sed -n 's/^pooled_gzip_DIR:PATH=//p' "$scratch/cmake-build/CMakeCache.txt")
[[ $found_dir == "$root/$libdir/cmake/pooled_gzip" ]] ||
  fail "find_package found $found_dir, not the unpacked package"
cmake --build "$scratch/cmake-build" > /dev/null
for consumer in consumer_pooled_first consumer_grpc_first; do
  uses_unpacked_library "$scratch/cmake-build/$consumer"
  "$scratch/cmake-build/$consumer" active
done

echo "== pkg-config consumer (PKG_CONFIG_PATH=$pc_dir)"
export PKG_CONFIG_PATH=$pc_dir
# The .pc finds its prefix from ${pcfiledir}: -I and -L point into the root.
cflags=$(pkg-config --cflags pooled_gzip)
libs=$(pkg-config --libs pooled_gzip)
echo "cflags: $cflags"
echo "libs: $libs"
include_dir=$(grep -o -- '-I[^ ]*' <<< "$cflags" | head -1)
[[ $(readlink -f "${include_dir#-I}") == "$root/usr/include" ]] ||
  fail "pkg-config -I is $include_dir, not in the root"
lib_dir=$(grep -o -- '-L[^ ]*' <<< "$libs" | head -1)
[[ $(readlink -f "${lib_dir#-L}") == "$root/$libdir" ]] ||
  fail "pkg-config -L is $lib_dir, not in the root"
# shellcheck disable=SC2086  # pkg-config output is meant to be split
c++ -std=c++17 "$consumer_dir/main.cc" -o "$scratch/pkg-config-consumer" \
  $cflags $libs
uses_unpacked_library "$scratch/pkg-config-consumer"
"$scratch/pkg-config-consumer" active
echo "Debian packages usable from a scratch root through find_package and pkg-config"
