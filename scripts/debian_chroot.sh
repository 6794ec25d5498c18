# shellcheck shell=bash
# shellcheck disable=SC2154  # chroot_dir is set by the sourcing script
# Sourced by the scripts that build and test in a Debian chroot
# (grpc183_stage.sh, library_install_check.sh): the chroot is the folder in
# $chroot_dir, read each time a function runs. Sourcing it sets an EXIT
# trap that undoes every mount made through mount_into; a script that needs
# more cleanup calls unmount_all from its own trap.
mounted=()
unmount_all() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" || umount -l "${mounted[i]}" || true
  done
  mounted=()
}
trap unmount_all EXIT
trap 'exit 130' INT TERM
# mount_into SOURCE TARGET_IN_CHROOT [MOUNT OPTIONS...]
mount_into() {
  local source=$1 target=$chroot_dir$2
  shift 2
  if [[ -d $source ]]; then mkdir -p "$target"; else touch "$target"; fi
  mount "$@" "$source" "$target"
  mounted+=("$target")
}
# What apt and the tests need of the kernel's: processes, terminals
# (apt's log), shared memory (gRPC, the tests' child processes).
mount_system() {
  mount_into /proc /proc -t proc
  mount_into /dev /dev --bind
  mount_into /dev/pts /dev/pts --bind
  mount_into /dev/shm /dev/shm --bind
}
# in_chroot [NAME=VALUE...] COMMAND...: a clean environment, as root.
in_chroot() {
  chroot "$chroot_dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}
apt_in_chroot() {
  # The mirror's Release files can be past their Valid-Until date.
  in_chroot apt-get -o Acquire::Check-Valid-Until=false -y -qq "$@"
}
# debootstrap_minbase SUITE MIRROR: a minimal Debian SUITE in $chroot_dir,
# unless a completed one is there (debootstrap removes its own /debootstrap
# folder when it completes; anything else found there is a run that was
# cut short, and is made again).
debootstrap_minbase() {
  local suite=$1 mirror=$2
  if [[ -x $chroot_dir/usr/bin/apt-get && ! -d $chroot_dir/debootstrap ]]; then
    return 0
  fi
  if ! command -v debootstrap > /dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends debootstrap > /dev/null
  fi
  rm -rf "$chroot_dir"
  mkdir -p "$chroot_dir"
  debootstrap --variant=minbase "$suite" "$chroot_dir" "$mirror" \
    > "$chroot_dir.debootstrap.log" 2>&1 || {
    tail -n 20 "$chroot_dir.debootstrap.log" >&2
    exit 1
  }
}
# chroot_ready NAME PACKAGES...: whether a set-up of $chroot_dir with
# exactly these packages completed, as mark_chroot_ready NAME PACKAGES...
# records it (in $chroot_dir/.pooled_gzip_NAME_ready). A changed list makes
# the next run set the chroot up again.
packages_digest() { printf '%s\n' "$@" | sha256sum | cut -d' ' -f1; }
chroot_ready() {
  local marker=$chroot_dir/.pooled_gzip_$1_ready
  shift
  [[ -f $marker && $(cat "$marker") == "$(packages_digest "$@")" ]]
}
mark_chroot_ready() {
  local marker=$chroot_dir/.pooled_gzip_$1_ready
  shift
  packages_digest "$@" > "$marker"
}
# install_and_mark NAME [APT-GET INSTALL OPTIONS...] -- PACKAGES...:
# apt's lists updated and PACKAGES installed in $chroot_dir (the system and
# the build machine's resolv.conf mounted for it, unmounted after), then
# the set-up recorded for chroot_ready NAME PACKAGES...
install_and_mark() {
  local name=$1 options=()
  shift
  while [[ $1 != -- ]]; do
    options+=("$1")
    shift
  done
  shift
  mount_system
  mount_into /etc/resolv.conf /etc/resolv.conf --bind
  apt_in_chroot update
  apt_in_chroot install --no-install-recommends "${options[@]}" "$@" \
    > /dev/null
  unmount_all
  mark_chroot_ready "$name" "$@"
}
