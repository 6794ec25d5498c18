#!/usr/bin/env bash
# pooled-gzip configured as the top-level project with GoogleTest and
# Google Benchmark hidden from find_package: by default it leaves the tests
# and benchmarks out with one warning naming both options; where CI is set,
# or with -DPOOLED_GZIP_BUILD_TESTS=ON, it fails naming the option. Only
# configures (in build folders kept in WORK_DIR).
set -euo pipefail
source_dir=$1
work_dir=$2
mkdir -p "$work_dir"
failures=0

# configure NAME EXPECTED_STATUS(pass|fail) [ENV=VALUE...] -- [CMAKE ARGS...]
# prints the output with its lines joined into $output.
output=""
configure() {
  local name=$1 want=$2
  shift 2
  local environment=()
  while [[ $1 != -- ]]; do environment+=("$1"); shift; done
  shift
  local status=0
  output=$(env -u CI "${environment[@]}" cmake -S "$source_dir" \
    -B "$work_dir/$name" -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON "$@" 2>&1) || status=$?
  output=$(tr -s ' \n' ' ' <<< "$output")
  if [[ ($want == pass && $status != 0) || ($want == fail && $status == 0) ]]
  then
    echo "FAIL: $name: expected to $want, exit $status: $output"
    failures=$((failures + 1))
    return 1
  fi
}
# expect_in NAME TEXT: TEXT is in the last configure's output.
expect_in() {
  if [[ $output != *"$2"* ]]; then
    echo "FAIL: $1: no '$2' in: $output"
    failures=$((failures + 1))
  else
    echo "ok: $1: says '$2'"
  fi
}

if configure default pass --; then
  expect_in default "POOLED_GZIP_BUILD_TESTS (GTest not found, Debian: libgtest-dev"
  expect_in default "POOLED_GZIP_BUILD_BENCHMARKS (benchmark not found, Debian:"
  warnings=$(grep -o 'CMake Warning' <<< "$output" | wc -l)
  if [[ $warnings != 1 ]]; then
    echo "FAIL: default: $warnings warnings, not one: $output"
    failures=$((failures + 1))
  fi
  if [[ -e $work_dir/default/test || -e $work_dir/default/bench ]]; then
    echo "FAIL: default: tests or benchmarks configured without their packages"
    failures=$((failures + 1))
  fi
fi
# Fresh each time: AUTO is resolved at every configure, but a cache left by
# the case above must not decide this one.
rm -rf "$work_dir/ci"
if configure ci fail CI=true --; then
  expect_in ci "POOLED_GZIP_BUILD_TESTS is AUTO (AUTO means ON where CI is set)"
  expect_in ci "-DPOOLED_GZIP_BUILD_TESTS=OFF"
fi
if configure tests-on fail -- -DPOOLED_GZIP_BUILD_TESTS=ON; then
  expect_in tests-on "POOLED_GZIP_BUILD_TESTS is ON and GTest is not found"
fi

if ((failures > 0)); then
  echo "$failures checks failed"
  exit 1
fi
echo "without the test packages: left out with one warning, or an error" \
  "naming the option where CI is set or the option is ON"
