#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan + coverage; the
# CMake preset fuzz) in build-fuzz/ and runs each for a bounded time,
# starting from the committed seed corpora in fuzz/corpus/. Any crash,
# sanitizer report or failed check stops the run with a non-zero exit; the
# input that did it is saved in build-fuzz/artifacts/.
#
#   scripts/fuzz.sh                     # every target, 60 s each
#   FUZZ_SECONDS=3600 scripts/fuzz.sh decode_fuzzer   # one target, longer
#
# New inputs that the fuzzer finds go to build-fuzz/corpus/<target>/, kept
# between runs (the committed seeds are only read).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${FUZZ_BUILD_DIR:-$root/build-fuzz}
source "$(dirname "${BASH_SOURCE[0]}")/configure_preset.sh"
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(decode_fuzzer decode_diff_fuzzer decode_diff_exact_fuzzer
    roundtrip_fuzzer)
fi

start=$SECONDS
# The CMake preset fuzz; FUZZ_CXX replaces its clang++.
compiler=()
if [[ -n "${FUZZ_CXX:-}" ]]; then
  compiler=(-DCMAKE_CXX_COMPILER="$FUZZ_CXX")
fi
configure_preset "$build_dir" -S "$root" --preset fuzz -B "$build_dir" \
  "${compiler[@]}"
target_args=()
for target in "${targets[@]}"; do target_args+=(--target "$target"); done
cmake --build "$build_dir" -j "${JOBS:-2}" "${target_args[@]}" > /dev/null
echo "== fuzz: built in $((SECONDS - start)) s"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
mkdir -p "$build_dir/artifacts"
for target in "${targets[@]}"; do
  seeds=$root/fuzz/corpus/${target%_fuzzer}
  corpus=$build_dir/corpus/$target
  mkdir -p "$corpus"
  log=$build_dir/$target.log
  echo "== fuzz: $target for $seconds s (log: $log)"
  if ! "$build_dir/fuzz/$target" -max_total_time="$seconds" -max_len=8192 \
    -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 \
    -artifact_prefix="$build_dir/artifacts/$target-" \
    "$corpus" "$seeds" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "== fuzz: $target FAILED; reproduce with:"
    echo "   $build_dir/fuzz/$target $build_dir/artifacts/$target-*"
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  echo "== fuzz: $target PASSED: $runs executions ($per_second/s)," \
    "corpus $(ls "$corpus" | wc -l) inputs"
done
echo "== fuzz: PASSED in $((SECONDS - start)) s"
