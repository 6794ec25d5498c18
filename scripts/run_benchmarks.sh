#!/usr/bin/env bash
# Builds the benchmarks if needed and runs the whole suite of issue 4: codec
# micro-benchmarks and the end-to-end echo benchmark (none / stock gzip /
# pooled gzip, interleaved in one process), then writes
# results/benchmarks.md and results/benchmarks.png, raw JSON in results/raw/.
# About 3 minutes on a 2-core machine, plus the build if there is none.
#
#   scripts/run_benchmarks.sh [--quick]
#
# --quick: one repetition and short runs, to try the pipeline (figures are
# then too noisy to quote). BUILD_DIR (default build-bench) and RESULTS_DIR
# (default results) override where it builds and writes.

set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build-bench}"
results="${RESULTS_DIR:-$repo/results}"
raw="$results/raw"

# Repetitions interleave the modes (e2e) and the benchmarks (codec, random
# order); more of them steady the medians on a shared machine.
codec_reps=5
e2e_reps=4
budget_ms=250
min_messages=5  # per thread and run: 1 MiB round trips take ~150 ms
min_time=0.05
if [[ "${1:-}" == "--quick" ]]; then
  codec_reps=1
  e2e_reps=1
  budget_ms=60
  min_messages=2
  min_time=0.01
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--quick]" >&2
  exit 2
fi

start=$(date +%s)
# Other work on the machine moves absolute numbers; the report says how busy
# it was.
load_at_start="$(cut -d' ' -f1-3 /proc/loadavg)"
log() { echo "== $* ($(($(date +%s) - start)) s)"; }

# Release build of the two benchmark binaries only. A fresh build dir leaves
# examples and tests off: the suite needs neither.
log "building in $build"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DPOOLED_GZIP_BUILD_BENCHMARKS=ON -DPOOLED_GZIP_BUILD_EXAMPLES=OFF \
    -DPOOLED_GZIP_BUILD_TESTS=OFF >/dev/null
else
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DPOOLED_GZIP_BUILD_BENCHMARKS=ON >/dev/null
fi
cmake --build "$build" --target codec_bench e2e_bench -j "$(nproc)" >/dev/null

mkdir -p "$raw"
rm -f "$raw"/codec_bench_*.json

# Codec: one process per size. What the heap held before changes whether
# glibc trims (and so stock's time for small messages); a process per size
# keeps large payloads from changing the heap that small ones see.
codec_json=()
repeated=$([[ $codec_reps -gt 1 ]] && echo true || echo false)
for size in 1 1024 8192 65536 1048576; do
  log "codec_bench, ${size}-byte messages"
  out="$raw/codec_bench_$size.json"
  "$build/bench/codec_bench" --benchmark_filter="/$size/" \
    --benchmark_min_time="$min_time" --benchmark_repetitions="$codec_reps" \
    --benchmark_enable_random_interleaving="$repeated" \
    --benchmark_report_aggregates_only="$repeated" \
    --benchmark_out="$out" --benchmark_out_format=json \
    >"$raw/codec_bench_$size.log" 2>&1
  codec_json+=("$out")
done

log "e2e_bench, glibc malloc defaults"
"$build/bench/e2e_bench" --reps="$e2e_reps" --budget_ms="$budget_ms" \
  --min_messages="$min_messages" --out="$raw/e2e_bench.json" | tee "$raw/e2e_bench.log"

# A common malloc tuning for servers, to show what pooling saves
# beyond it. Small sizes only: that is where trimming matters.
log "e2e_bench, trim threshold raised"
MALLOC_TRIM_THRESHOLD_=1073741824 "$build/bench/e2e_bench" \
  --sizes=1,1024 --threads=1 --reps="$e2e_reps" --budget_ms="$budget_ms" \
  --min_messages="$min_messages" \
  --label="trim threshold raised" --out="$raw/e2e_bench_trim_raised.json" \
  | tee "$raw/e2e_bench_trim_raised.log"

log "writing $results/benchmarks.md"
python3 "$repo/bench/report.py" --codec "${codec_json[@]}" \
  --e2e "$raw/e2e_bench.json" --e2e-tuned "$raw/e2e_bench_trim_raised.json" \
  --md "$results/benchmarks.md" --png "$results/benchmarks.png" \
  --runtime-seconds "$(($(date +%s) - start))" --load-at-start "$load_at_start"
log "done: $results/benchmarks.md, $results/benchmarks.png"
