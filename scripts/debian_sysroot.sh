# shellcheck shell=bash
# Sourced by scripts/arm64_stage.sh: a Debian sysroot of another
# architecture, made without running any of its programs.
#
# The build machine's apt resolves and downloads the packages, with a state
# of its own (its own lists and an empty dpkg status, so every dependency is
# fetched, and the machine's apt is not touched), and dpkg-deb unpacks them.
# Maintainer scripts are not run: a sysroot is compiled and linked against
# and its libraries are loaded by qemu-user, which needs files, not a
# configured system. That takes seconds where debootstrap and apt inside an
# emulated root took minutes (237 s on a quiet 2-core machine).

# sysroot_ready DIR ARCH SUITE MIRROR PACKAGES...: whether DIR holds a
# sysroot that make_sysroot made from exactly these arguments (a changed
# package list makes it again).
sysroot_digest() { printf '%s\n' "${@:2}" | sha256sum | cut -d' ' -f1; }
sysroot_ready() {
  [[ -f $1/.pooled_gzip_sysroot &&
    $(cat "$1/.pooled_gzip_sysroot") == "$(sysroot_digest "$@")" ]]
}

# make_sysroot DIR ARCH SUITE MIRROR PACKAGES...: the packages and their
# dependencies unpacked in DIR, which is replaced only once it is complete.
make_sysroot() {
  local dir=$1 arch=$2 suite=$3 mirror=$4 digest work=$1.work
  digest=$(sysroot_digest "$@")
  shift 4
  rm -rf "$work" "$dir"
  mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial" \
    "$work/root"
  : > "$work/status"
  echo "deb [arch=$arch] $mirror $suite main" > "$work/sources.list"
  local apt=(apt-get -qq
    -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch"
    -o "Dir::State=$work/state" -o "Dir::State::status=$work/status"
    -o "Dir::Cache=$work/cache" -o "Dir::Etc::SourceList=$work/sources.list"
    -o Dir::Etc::SourceParts=/nonexistent
    # The mirror's Release files can be past their Valid-Until date.
    -o Acquire::Check-Valid-Until=false)
  "${apt[@]}" update
  "${apt[@]}" install --download-only -y --no-install-recommends "$@" \
    > "$work/download.log"
  local deb
  for deb in "$work"/cache/archives/*.deb; do
    dpkg-deb --extract "$deb" "$work/root"
  done
  merge_usr "$work/root"
  relative_symlinks "$work/root"
  echo "$digest" > "$work/root/.pooled_gzip_sysroot"
  mv "$work/root" "$dir"
  rm -rf "$work"
}

# Debian 12 systems have /lib, /bin and /sbin as links into /usr (the
# dynamic loader is /lib/ld-linux-*.so.1), which debootstrap makes and
# packages do not ship.
merge_usr() {
  local root=$1 top
  for top in bin sbin lib; do
    if [[ -d $root/$top && ! -L $root/$top ]]; then
      mkdir -p "$root/usr/$top"
      cp -a "$root/$top/." "$root/usr/$top/"
      rm -rf "${root:?}/$top"
    fi
    ln -sfn "usr/$top" "$root/$top"
  done
}

# Links such as libz.so -> /lib/aarch64-linux-gnu/libz.so.1 would point
# into the build machine; the linker and qemu follow them within the root.
relative_symlinks() {
  local root=$1 link target
  while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    ln -sfn "$(realpath -s -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
  done < <(find "$root" -type l -lname '/*' -print0)
}
