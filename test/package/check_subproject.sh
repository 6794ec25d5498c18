#!/usr/bin/env bash
# pooled-gzip added to another project (subproject_consumer/, through
# FetchContent) with GoogleTest, Google Benchmark and prometheus-cpp hidden
# from find_package, and CI set as CI services set it: configures without a
# warning, builds only the library, registers none of pooled-gzip's tests,
# and the project's own test pools gzip messages. Installed with that
# project, the package then refuses its absent metrics component by name.
# The build directory is kept in WORK_DIR for incremental reruns.
set -euo pipefail
source_dir=$1
work_dir=$2
consumer_dir=$3
build=$work_dir/build
mkdir -p "$work_dir"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# ccache where the scripts found it: CMake reads the launcher they export,
# CMAKE_CXX_COMPILER_LAUNCHER, when it first configures the build folder.
echo "== configure, the test packages hidden"
# --no-warn-unused-cli: nothing looks for GTest or benchmark, so CMake would
# warn that their switches went unused.
if ! CI=true cmake --no-warn-unused-cli -S "$consumer_dir" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DPOOLED_GZIP_SOURCE_DIR="$source_dir" \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_prometheus-cpp=ON \
  > "$scratch/configure.log" 2>&1; then
  cat "$scratch/configure.log"
  echo "the consumer does not configure"; exit 1
fi
if grep -q 'CMake Warning' "$scratch/configure.log"; then
  cat "$scratch/configure.log"
  echo "configuring the consumer warns"; exit 1
fi

echo "== build"
cmake --build "$build" -j1 > "$scratch/build.log" 2>&1 ||
  { cat "$scratch/build.log"; exit 1; }
sub=$build/_deps/pooled_gzip-build
for folder in test bench examples testing fuzz; do
  if [[ -e $sub/$folder ]]; then
    echo "pooled-gzip's $folder/ was configured in a subproject"; exit 1
  fi
done

echo "== the consumer's tests"
listed=$(cd "$build" && ctest -N)
echo "$listed"
if ! grep -q '^Total Tests: 1$' <<< "$listed"; then
  echo "pooled-gzip's tests are among the consumer's"; exit 1
fi
(cd "$build" && ctest -V --no-tests=error)

echo "== installed with the consumer: find_package without the component"
cmake --install "$build" --prefix "$scratch/prefix" > /dev/null
mkdir "$scratch/asks"
cat > "$scratch/asks/CMakeLists.txt" << 'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(asks_for_prometheus LANGUAGES CXX)
find_package(pooled_gzip REQUIRED COMPONENTS ${COMPONENTS})
CMAKE
cmake -S "$scratch/asks" -B "$scratch/asks-none" -DCOMPONENTS= \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" > /dev/null
status=0
cmake -S "$scratch/asks" -B "$scratch/asks-prometheus" -DCOMPONENTS=prometheus \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" > "$scratch/asks.log" 2>&1 ||
  status=$?
# The message as find_package prints it, its lines joined.
message=$(tr -s ' \n' ' ' < "$scratch/asks.log")
echo "$message"
if [[ $status == 0 || $message != *"'prometheus'"* ||
  $message != *-DPOOLED_GZIP_BUILD_PROMETHEUS=ON* ]]; then
  echo "find_package(pooled_gzip COMPONENTS prometheus) did not fail" \
    "naming the component and the option (exit $status)"; exit 1
fi
echo "pooled-gzip as a subproject: the library only, no test package" \
  "needed, gzip pooled; the absent component named with its option"
