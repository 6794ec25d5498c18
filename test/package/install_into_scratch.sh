# shellcheck shell=bash
# Sourced by the package tests (and the README snippet test): installs the
# build in $1 into $2/prefix, as a user's `cmake --install` would, and sets
# `prefix` and `libdir` (where libpooled_gzip and pkgconfig/ are) and
# exports PKG_CONFIG_PATH for it.
install_into_scratch() {
  local build_dir=$1 scratch=$2
  prefix=$scratch/prefix
  cmake --install "$build_dir" --prefix "$prefix" > /dev/null
  libdir=$(find "$prefix" -name pooled_gzip.pc -printf '%h\n')
  libdir=${libdir%/pkgconfig}
  export PKG_CONFIG_PATH="$libdir/pkgconfig"
}
