# shellcheck shell=bash
# Sourced by the package checks (check_package.sh, check_static_package.sh,
# library_install_check.sh): what a program loads, from its NEEDED entries.

# needed_libraries FILE: the shared libraries FILE names in NEEDED, on one
# line, in their order.
needed_libraries() {
  readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' '
}

# refuse_shared_grpc FILE [NAME]: prints FILE's NEEDED line, and fails,
# saying so, if gRPC or pooled_gzip is among them: for a program that must
# link both statically. NAME (default FILE) is what the lines call it.
refuse_shared_grpc() {
  local file=$1 name=${2:-$1} needed
  needed=$(needed_libraries "$file")
  echo "$name NEEDED: $needed"
  case "$needed" in
    *libgrpc*|*libgpr*|*libupb*|*libpooled_gzip*)
      echo "$name loads gRPC or pooled_gzip as a shared library"
      return 1 ;;
  esac
}
