#!/usr/bin/env bash
# Builds the unit, e2e and reliability tests with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included) in
# build-asan/, and under ThreadSanitizer in build-tsan/ (the CMake presets
# asan and tsan), then runs them. Any sanitizer report fails the test that
# triggered it. SANITIZER_CXX replaces clang++.
#
#   scripts/sanitizers.sh            # both
#   scripts/sanitizers.sh asan       # or just one: asan | tsan
#
# gRPC, protobuf, abseil and zlib are Debian's uninstrumented builds. ASan
# and UBSan need nothing from them. TSan cannot see their synchronisation
# (abseil's Mutex, gRPC's completion queues), so it reports races between
# threads that gRPC really does order. The TSan stage therefore ignores
# interceptors called from uninstrumented libraries and reads
# test/reliability/tsan.supp, which names gRPC's own inlined functions and
# two test helpers, each with the reason; none matches the library's code.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/configure_preset.sh"
cd "$root"  # where the presets are read from
stages=("$@")
if ((${#stages[@]} == 0)); then stages=(asan tsan); fi

for stage in "${stages[@]}"; do
  case "$stage" in
    asan)
      export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1"
      export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
      ;;
    tsan)
      export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:suppressions=$root/test/reliability/tsan.supp"
      ;;
    *)
      echo "unknown stage: $stage (asan or tsan)" >&2
      exit 2
      ;;
  esac
  # The CMake presets of the stage's name hold the build dir and flags, and
  # which tests run with what timeout.
  build_dir=$root/build-$stage
  start=$SECONDS
  echo "== $stage: building in $build_dir"
  compiler=()
  if [[ -n "${SANITIZER_CXX:-}" ]]; then
    compiler=(-DCMAKE_CXX_COMPILER="$SANITIZER_CXX")
  fi
  configure_preset "$build_dir" --preset "$stage" "${compiler[@]}"
  # Every test binary, so that a new one cannot be left out of this stage.
  cmake --build --preset "$stage" -j "${JOBS:-2}" > /dev/null
  echo "== $stage: built in $((SECONDS - start)) s; running tests"
  ctest --preset "$stage" -j "${JOBS:-2}"
  echo "== $stage: PASSED in $((SECONDS - start)) s"
done
