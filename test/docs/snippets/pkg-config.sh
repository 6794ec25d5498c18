#!/usr/bin/env bash
# Runner of the README's shell snippet "pkg-config": builds my_service.cc
# (every C++ snippet that the CMake snippet "cmake" builds, as one file)
# with the snippet's command, in a scratch folder, with PKG_CONFIG_PATH
# pointing at the scratch install, then runs the program with no
# LD_LIBRARY_PATH: the snippet's rpath must find the library.
# Usage: pkg-config.sh EXTRACTED_DIR WORK_DIR
set -euo pipefail
extracted=$(cd "$1" && pwd)
work=$2
mkdir -p "$work"
{
  sed -n 's|.*\.\./\.\./cpp/\(.*\)\.cc$|#include "'"$extracted"'/cpp/\1.cc"|p' \
    "$extracted/projects/cmake/CMakeLists.txt"
  cat "$extracted/projects/cmake/main.cc"
} > "$work/my_service.cc"
cd "$work"
bash -euo pipefail "$extracted/sh/pkg-config.snippet.sh"
env -u LD_LIBRARY_PATH ./my_service run
