#!/usr/bin/env bash
# The README's code blocks, built as a reader would build them: extracts
# every marked block (extract_snippets.py, which also fails on an unmarked
# C++ or CMake block), installs this build into a scratch prefix as the
# package test does, then configures and builds each CMake block's project
# against that prefix with find_package, runs the snippets its program
# holds that are safe to run (the harnesses say which), and runs each shell block that has a runner (the pkg-config
# command line).
# Usage: check_readme_snippets.sh README BUILD_DIR
set -euo pipefail
readme=$1
build_dir=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "== extracting the README's snippets"
python3 "$here/extract_snippets.py" "$readme" "$here/snippets" \
  "$scratch/snippets"

# shellcheck source=../package/install_into_scratch.sh
source "$here/../package/install_into_scratch.sh"
install_into_scratch "$build_dir" "$scratch"

for project in "$scratch"/snippets/projects/*/; do
  name=$(basename "$project")
  echo "== CMake snippet $name: configure, build, run"
  if ! cmake -S "$project" -B "$scratch/build-$name" \
      -DCMAKE_PREFIX_PATH="$prefix" > "$scratch/configure-$name.log" 2>&1; then
    cat "$scratch/configure-$name.log"
    echo "CMake snippet $name: configure failed"
    exit 1
  fi
  cmake --build "$scratch/build-$name" > "$scratch/build-$name.log" 2>&1 || {
    cat "$scratch/build-$name.log"
    echo "CMake snippet $name: build failed"
    exit 1
  }
  # The program's RUNPATH names the prefix for the libraries it links
  # directly; libpooled_gzip_prometheus has none of its own (as Debian's
  # policy wants), so its libpooled_gzip is found through LD_LIBRARY_PATH
  # where the program does not link that one directly (--as-needed).
  LD_LIBRARY_PATH="$libdir" "$scratch/build-$name/my_service" run
done

for runner in "$scratch"/snippets/sh/*.sh; do
  case "$runner" in *.snippet.sh) continue ;; esac
  name=$(basename "$runner" .sh)
  echo "== shell snippet $name"
  bash "$runner" "$scratch/snippets" "$scratch/sh-$name"
done
echo "every C++ and CMake snippet of the README built against the" \
  "installed package"
