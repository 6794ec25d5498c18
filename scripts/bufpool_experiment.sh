#!/usr/bin/env bash
# The output buffer pool, off against on, within each e2e_bench run: every
# pooled setup twice, as <setup>+pool0 and <setup>+pool1 (the peers'
# POOLED_GZIP_BUFFER_POOL), interleaved with stock by e2e_bench's rotation;
# then the medians of the per-repetition on/off ratios
# (bench/bufpool_ratios.py).
#
#   scripts/bufpool_experiment.sh OUT_DIR [RUNS] [REPS]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="${BUILD_DIR:-$repo/build-bench}/bench/e2e_bench"
out="$1"
runs="${2:-1}"
reps="${3:-9}"
mkdir -p "$out"
echo "load at start: $(cat /proc/loadavg)" | tee "$out/load.txt"
for ((i = 0; i < runs; ++i)); do
  POOLED_GZIP_BUFFER_POOL_STATS=1 "$bench" \
    --sizes=1024,65536,1048576 --kinds=proto \
    --setups=stock,libdeflate+pool0,libdeflate+pool1,isal-1+pool0,isal-1+pool1 \
    --reps="$reps" --budget_ms=300 --warmup_ms=30 \
    --load_budget_ms=1500 --load_warmup_ms=500 \
    --out="$out/run_$i.json" >"$out/run_$i.log" 2>"$out/run_$i.err"
  echo "run $i done, load $(cat /proc/loadavg)" | tee -a "$out/load.txt"
done
echo "load at end: $(cat /proc/loadavg)" | tee -a "$out/load.txt"
python3 "$repo/bench/bufpool_ratios.py" "$out"/run_*.json |
  tee "$out/summary.md"
