#!/usr/bin/env bash
# The output buffer pool, off against on: e2e_bench with
# POOLED_GZIP_BUFFER_POOL=0 and =1 (inherited by its server and client
# processes), alternating which goes first, PAIRS times; then the medians of
# the paired on/off ratios (bench/bufpool_ratios.py).
#
#   scripts/bufpool_experiment.sh OUT_DIR [PAIRS]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="${BUILD_DIR:-$repo/build-bench}/bench/e2e_bench"
out="$1"
pairs="${2:-5}"
mkdir -p "$out"
echo "load at start: $(cat /proc/loadavg)" | tee "$out/load.txt"
for ((i = 0; i < pairs; ++i)); do
  order=(0 1)
  if ((i % 2 == 1)); then order=(1 0); fi
  for pool in "${order[@]}"; do
    echo "== pair $i, pool=$pool, load $(cut -d' ' -f1-3 /proc/loadavg)"
    POOLED_GZIP_BUFFER_POOL=$pool POOLED_GZIP_BUFFER_POOL_STATS=1 "$bench" \
      --sizes=1024,65536,1048576 --kinds=proto \
      --setups=stock,libdeflate,isal-1 --reps=3 --budget_ms=300 \
      --warmup_ms=30 --load_budget_ms=1500 --load_warmup_ms=500 \
      --label="buffer pool $pool" --out="$out/pool${pool}_$i.json" \
      >"$out/pool${pool}_$i.log" 2>"$out/pool${pool}_$i.err"
  done
done
echo "load at end: $(cat /proc/loadavg)" | tee -a "$out/load.txt"
python3 "$repo/bench/bufpool_ratios.py" "$out" | tee "$out/summary.md"
