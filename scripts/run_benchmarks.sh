#!/usr/bin/env bash
# Builds the benchmarks if needed and runs the whole suite:
#   1. codec micro-benchmarks: stock zlib and the pooled codec of every
#      backend at several levels, every payload kind, 1 B to 1 MiB; every
#      decoder on every default encoder's output; the default setups with
#      input as core slices it and, in a process of their own, cold; what
#      codec time's clock and the skip option cost;
#   2. the recommended default backend and level, picked from (1) by the
#      rule "wire bytes within 5% of stock zlib-6 on realistic payloads, and
#      the fastest that does" (bench/report.py --recommend);
#   3. the end-to-end echo benchmark, every client and server in a process
#      of its own: none / stock gzip / pooled gzip with zlib-6, libdeflate,
#      ISA-L-1, the library's default and the recommended one, per payload
#      kind and size, interleaved, then server throughput under 32
#      concurrent streams at 64 KiB;
#   4. the small sizes and the load again with glibc's trim threshold
#      raised;
#   5. decoding: each pooled decoder, the default held to zlib's refusals
#      and the default's library called alone, on zlib-6, libdeflate-6 and
#      ISA-L-1 output (decoder_bench);
#   6. when compression pays: the end-to-end benchmark on unshaped
#      loopback and on loopback shaped to 1 Gbit/s, 100 Mbit/s and
#      10 Mbit/s (e2e_bench --link, a network namespace of its own; needs
#      root and tc, else each link runs on plain loopback and says so),
#      one run per link: none / stock gzip / pooled default / pooled
#      ISA-L-1 / pooled default with skip_incompressible, records, text and
#      random bytes, 1 KiB to 1 MiB;
#   7. large messages: the codec's default setups at 1, 2, 4 and 16 MiB in
#      core's slices, and the echo at those sizes for stock, the default
#      and ISA-L-1: CPU per byte against 1 MiB, page faults per message;
#   8. the other implementations: our client, and h2load under load,
#      against gRPC C++ (none, stock gzip, pooled default, pooled ISA-L-1),
#      grpc-go and grpc-js echo servers (none and gzip), records and words
#      at 1 KiB to 1 MiB, one call at a time and 32 at once
#      (bench/peers_bench; needs the interop peers and h2load,
#      scripts/install_interop_peers.sh);
# and writes results/benchmarks.md and results/benchmarks.png (1-4),
# results/decoding.md (5), results/links.md and results/links.png (6),
# results/large_messages.md (7), results/peers.md and results/peers.png
# (8), raw JSON in results/raw/. About 8 minutes on a 2-core machine for
# 1-4, 6 for 5, 13 for 6, 6 for 7 and 27 for 8, plus the
# build if there is none, plus the wait for the load to settle at each
# end of each report's step (about a minute after a busy step).
#
# Only quiet runs are published (scripts/machine_load.sh): each report's
# step must start and end with the load average at most half the cores,
# and other work must take under a sixth of the CPU time while it runs.
# The tables and figures of README.md and docs/ that quote the reports are
# then rewritten (scripts/figures.py --update).
# Everything is written to BUILD_DIR/staged-results first, and a report
# and its raw files reach results/ only when their step was quiet. A busy
# machine stops the run with status 3, naming the load; reports of steps
# already published stay.
#
#   scripts/run_benchmarks.sh [--quick] [--noisy] [--main] [--decoding]
#                             [--links] [--large] [--peers]
#
# --quick: one repetition, short runs and fewer payload kinds, to try the
# pipeline in a few minutes (figures are then too noisy to quote).
# --noisy: publish even when the machine was busy; such a report says so
# at the top. --main: steps 1-4 only. --decoding: step 5 only. --links:
# step 6 only. --large: step 7 only. --peers: step 8 only.
# BUILD_DIR (default build-bench) and RESULTS_DIR (default results) override
# where it builds and writes; JOBS the build's parallelism (default nproc);
# E2E_BENCH, an e2e_bench already built, skips the build for --links.

set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build-bench}"
source "$(dirname "${BASH_SOURCE[0]}")/configure_preset.sh"
results="${RESULTS_DIR:-$repo/results}"
stage="$build/staged-results"
raw="$stage/raw"
source "$(dirname "${BASH_SOURCE[0]}")/machine_load.sh"

# Repetitions interleave the setups (e2e) and the benchmarks (codec, random
# order); more of them steady the medians on a shared machine.
codec_reps=5
codec_min_time=0.03
codec_kinds=all
e2e_reps=5
budget_ms=150
warmup_ms=30
load_budget_ms=1000
e2e_kinds=proto,json,source,text,words,random
link_reps=5
link_slow_reps=3
link_streams=4
link_load_budget_ms=1000
link_load_warmup_ms=500
quick=()
allow_noisy=false
main_only=false
links_only=false
decoding_only=false
large_only=false
large_reps=3
large_min_time=0.5
peers_only=false
peers_args=()
decoder_reps=9
decoder_min_time=0.1
for arg in "$@"; do
  case "$arg" in
    --quick) quick=(--quick) ;;
    --noisy) allow_noisy=true ;;
    --main) main_only=true ;;
    --links) links_only=true ;;
    --decoding) decoding_only=true ;;
    --large) large_only=true ;;
    --peers) peers_only=true ;;
    *)
      echo "usage: $0 [--quick] [--noisy] [--main] [--decoding] [--links]" \
        "[--large] [--peers]" >&2
      exit 2
      ;;
  esac
done
if [[ ${#quick[@]} -gt 0 ]]; then
  codec_reps=1
  codec_min_time=0.005
  codec_kinds=proto,json,source
  e2e_reps=1
  budget_ms=40
  warmup_ms=10
  load_budget_ms=300
  e2e_kinds=proto,json,random
  link_reps=1
  link_slow_reps=1
  link_load_budget_ms=300
  link_load_warmup_ms=100
  decoder_reps=1
  decoder_min_time=0.005
  large_reps=1
  large_min_time=0.01
  peers_args=(--reps=1 --budget_ms=200 --load_budget_ms=400
    --load_warmup_ms=200)
fi

start=$(date +%s)
log() { echo "== $* ($(($(date +%s) - start)) s)"; }

# publish FILE...: copies a quiet step's report and raw files (paths under
# the stage) into results/.
published=false
published_noisy=false
publish() {
  local file
  for file in "$@"; do
    mkdir -p "$results/$(dirname "$file")"
    cp "$stage/$file" "$results/$file"
  done
  published=true
  if ! $step_quiet; then published_noisy=true; fi
  log "published $1 and $(($# - 1)) more files in $results"
}

# Once anything reached the repository's results/, even if a later step
# was refused: the tables README.md and docs/ quote follow the reports
# published, and prose figures that no longer match are listed. Not after
# a quick or noisy run, whose figures are not to be quoted.
update_docs() {
  if ! $published || [[ "$(cd "$results" && pwd)" != "$repo/results" ]]; then
    return 0
  fi
  if [[ ${#quick[@]} -gt 0 ]] || $published_noisy; then
    echo "run_benchmarks: a quick or noisy run; README.md and docs/ left" \
      "as they are (scripts/figures.py --update would quote it)" >&2
    return 0
  fi
  python3 "$repo/scripts/figures.py" --update ||
    echo "run_benchmarks: reword the figures above (scripts/figures.py)" >&2
}
trap update_docs EXIT

# Release build of the benchmark binaries only (the CMake preset bench).
# A fresh build dir leaves examples and tests off: the suite needs neither.
# One that exists (BUILD_DIR=build, say) keeps whether it builds them.
build_benchmarks() {
  log "building in $build"
  local keep=()
  if [[ -f "$build/CMakeCache.txt" ]]; then
    for option in POOLED_GZIP_BUILD_EXAMPLES POOLED_GZIP_BUILD_TESTS; do
      value="$(sed -n "s/^$option:[A-Z]*=//p" "$build/CMakeCache.txt")"
      if [[ -n "$value" ]]; then keep+=("-D$option=$value"); fi
    done
  fi
  # peers_bench runs the interop suite's peers, which the tests build.
  if [[ " $* " == *" peers_bench "* ]]; then
    keep+=(-DPOOLED_GZIP_BUILD_TESTS=ON -DPOOLED_GZIP_BUILD_EXAMPLES=ON)
  fi
  configure_preset "$build" -S "$repo" --preset bench -B "$build" "${keep[@]}"
  cmake --build "$build" --target "$@" -j "${JOBS:-$(nproc)}" >/dev/null
}

# Step 6: one e2e_bench run per link, every cell of the matrix within it,
# so that each link's ratios come from setups interleaved in one run. At
# 10 Mbit/s an uncompressed 1 MiB round trip takes 1.7 s: fewer
# repetitions and round trips there keep the step to minutes.
# Each run ends with a throughput cell: $link_streams streams of records at
# once, so that one message's codec time overlaps others' time on the
# wire, as in a bulk transfer. 1 MiB messages, but 64 KiB at 10 Mbit/s,
# where $link_streams uncompressed 1 MiB echoes take 7 s a round.
run_links() {
  local e2e=$1 link reps min_messages warmup_messages load_size
  local link_json=() files=(links.md links.png raw/conditions_links.json)
  step_begin || exit 3
  for link in loopback 1gbit 100mbit 10mbit; do
    reps=$link_reps min_messages=3 warmup_messages=2 load_size=1048576
    if [[ $link == 10mbit ]]; then
      reps=$link_slow_reps min_messages=2 warmup_messages=1 load_size=65536
    fi
    log "e2e_bench, link $link"
    "$e2e" --link="$link" --kinds=proto,text,random \
      --sizes=1024,65536,1048576 \
      --setups=none,stock,default,isal-1,default+skip \
      --reps="$reps" --budget_ms="$budget_ms" --warmup_ms="$warmup_ms" \
      --min_messages="$min_messages" --warmup_messages="$warmup_messages" \
      --load_threads="$link_streams" --load_kind=proto \
      --load_size="$load_size" --load_budget_ms="$link_load_budget_ms" \
      --load_warmup_ms="$link_load_warmup_ms" --label="link $link" \
      --out="$raw/e2e_link_$link.json" | tee "$raw/e2e_link_$link.log"
    link_json+=("$raw/e2e_link_$link.json")
    files+=("raw/e2e_link_$link.json" "raw/e2e_link_$link.log")
  done
  step_end "$raw/conditions_links.json" || exit 3
  python3 "$repo/bench/links_report.py" --e2e "${link_json[@]}" \
    --md "$stage/links.md" --png "$stage/links.png" \
    --conditions "$raw/conditions_links.json" "${quick[@]}"
  publish "${files[@]}"
}

# Step 5: every decoder on every cell in one process, medians of
# repetitions in random order; the table decoder_bench prints last is the
# report.
run_decoding() {
  step_begin || exit 3
  log "decoder_bench"
  "$build/bench/decoder_bench" --benchmark_repetitions="$decoder_reps" \
    --benchmark_min_time="$decoder_min_time" \
    --benchmark_enable_random_interleaving="$([[ $decoder_reps -gt 1 ]] && echo true || echo false)" \
    --benchmark_report_aggregates_only="$([[ $decoder_reps -gt 1 ]] && echo true || echo false)" \
    >"$raw/decoder_bench.log" 2>&1
  step_end "$raw/conditions_decoding.json" || exit 3
  {
    echo "# Decoding"
    echo
    echo "Generated by \`scripts/run_benchmarks.sh\` on $(date -u '+%Y-%m-%d %H:%M') UTC."
    python3 "$repo/bench/conditions.py" "$raw/conditions_decoding.json"
    echo
    echo "Each pooled decoder on one message of each cell, sliced as core hands a"
    echo "received message to the codec, gRPC slices out; CPU time per message,"
    echo "median of $decoder_reps. *exact*: the default decoder with"
    echo "\`Options::exact_zlib_refusals\`; *library*: the default decoder's library"
    echo "alone, the message in one block into a buffer of its own. The default"
    echo "decoder's time is in bold (docs/backends.md, \"Decoders\")."
    echo
    sed -n '/^| format /,$p' "$raw/decoder_bench.log"
  } >"$stage/decoding.md"
  publish decoding.md raw/decoder_bench.log raw/conditions_decoding.json
}

# Step 7: large messages, the codec's cells in one process (random order)
# and the echo in fresh process pairs, then results/large_messages.md.
run_large() {
  local repeated
  repeated=$([[ $large_reps -gt 1 ]] && echo true || echo false)
  step_begin || exit 3
  log "codec_bench, large messages"
  "$build/bench/codec_bench" --payloads=proto \
    --benchmark_filter='^(de)?compress/proto/(1048576|2097152|4194304|16777216)/[^/]+/sliced$' \
    --benchmark_min_time="$large_min_time" \
    --benchmark_repetitions="$large_reps" \
    --benchmark_enable_random_interleaving="$repeated" \
    --benchmark_report_aggregates_only="$repeated" \
    --benchmark_out="$raw/codec_bench_large.json" --benchmark_out_format=json \
    >"$raw/codec_bench_large.log" 2>&1
  log "e2e_bench, large messages"
  "$build/bench/e2e_bench" --kinds=proto \
    --sizes=1048576,2097152,4194304,16777216 --setups=stock,default,isal-1 \
    --reps="$large_reps" --budget_ms=1000 --warmup_ms=200 --load_threads=0 \
    --label="large messages" --out="$raw/e2e_bench_large.json" \
    >"$raw/e2e_bench_large.log" 2>&1
  step_end "$raw/conditions_large.json" || exit 3
  python3 "$repo/bench/large_report.py" \
    --codec "$raw/codec_bench_large.json" --e2e "$raw/e2e_bench_large.json" \
    --md "$stage/large_messages.md" \
    --date "$(date -u '+%Y-%m-%d %H:%M')" \
    --conditions "$raw/conditions_large.json"
  publish large_messages.md raw/codec_bench_large.json \
    raw/codec_bench_large.log raw/e2e_bench_large.json \
    raw/e2e_bench_large.log raw/conditions_large.json
}

# Steps 1-4, results/benchmarks.md.
run_main() {
  local files=(benchmarks.md benchmarks.png raw/conditions_benchmarks.json)
  step_begin || exit 3
  rm -f "$raw"/codec_bench_*.json "$raw"/codec_bench_*.log

  # One codec_bench process: codec_run NAME KINDS REPS FILTER writes
  # $raw/codec_bench_NAME.json and adds it to codec_json.
  codec_json=()
  codec_run() {
    local out="$raw/codec_bench_$1.json"
    local repeated
    repeated=$([[ $3 -gt 1 ]] && echo true || echo false)
    "$build/bench/codec_bench" --payloads="$2" \
      --benchmark_filter="$4" \
      --benchmark_min_time="$codec_min_time" \
      --benchmark_repetitions="$3" \
      --benchmark_enable_random_interleaving="$repeated" \
      --benchmark_report_aggregates_only="$repeated" \
      --benchmark_out="$out" --benchmark_out_format=json \
      >"$raw/codec_bench_$1.log" 2>&1
    codec_json+=("$out")
    files+=("raw/codec_bench_$1.json" "raw/codec_bench_$1.log")
  }

  # Codec: one process per size. What the heap held before changes whether
  # glibc trims (and so stock's time for small messages); a process per
  # size keeps large payloads from changing the heap that small ones see,
  # and one more per size for the cold feeds keeps their thousands of held
  # outputs from changing it for the rest.
  local size kinds reps
  for size in 1 1024 65536 1048576; do
    log "codec_bench, ${size}-byte messages"
    kinds="$codec_kinds"
    reps=$codec_reps
    # One byte is one byte whatever the payload: what it shows is the cost
    # of a message itself (stock's fresh zlib state). And 1 MiB ops are
    # long enough to be steady with fewer repetitions, which saves a minute.
    if [[ $size == 1 ]]; then kinds=proto; fi
    if [[ $size == 1048576 && $reps -gt 3 ]]; then reps=3; fi
    codec_run "$size" "$kinds" "$reps" \
      "^[a-z]+/[a-z]+/$size/[^/]+(/deflate|/sliced)?\$"
    if [[ $size != 1 ]]; then
      log "codec_bench, ${size}-byte messages, cold"
      codec_run "${size}_cold" proto "$reps" "^[a-z]+/proto/$size/[^/]+/cold\$"
    fi
  done

  # What codec time's clock and the skip option cost.
  log "codec_cost_bench"
  local cost_reps
  cost_reps=$([[ $codec_reps -gt 3 ]] && echo 3 || echo "$codec_reps")
  "$build/bench/codec_cost_bench" --benchmark_min_time="$codec_min_time" \
    --benchmark_repetitions="$cost_reps" \
    --benchmark_enable_random_interleaving="$([[ $cost_reps -gt 1 ]] && echo true || echo false)" \
    --benchmark_report_aggregates_only="$([[ $cost_reps -gt 1 ]] && echo true || echo false)" \
    --benchmark_out="$raw/codec_cost_bench.json" --benchmark_out_format=json \
    >"$raw/codec_cost_bench.log" 2>&1

  # The default the codec figures recommend runs end to end too, next to
  # the library's own default ("default"; the run drops whichever repeats
  # another).
  local recommended setups
  recommended="$(python3 "$repo/bench/report.py" --codec "${codec_json[@]}" \
    --recommend || true)"
  log "recommended default: ${recommended:-none qualifies}"
  setups="none,stock,zlib-6,libdeflate,isal-1,default${recommended:+,$recommended}"

  log "e2e_bench, glibc malloc defaults"
  "$build/bench/e2e_bench" --kinds="$e2e_kinds" --setups="$setups" \
    --reps="$e2e_reps" --budget_ms="$budget_ms" --warmup_ms="$warmup_ms" \
    --load_budget_ms="$load_budget_ms" --out="$raw/e2e_bench.json" \
    | tee "$raw/e2e_bench.log"

  # A common malloc tuning for servers, to show what pooling saves beyond
  # it: the small sizes, where trimming matters, and the load cell, where
  # every setup's 64 KiB buffers otherwise fault their pages back in per
  # message.
  log "e2e_bench, trim threshold raised"
  MALLOC_TRIM_THRESHOLD_=1073741824 "$build/bench/e2e_bench" \
    --sizes=1,1024 --kinds=proto --setups="$setups" \
    --reps="$e2e_reps" --budget_ms="$budget_ms" --warmup_ms="$warmup_ms" \
    --load_budget_ms="$load_budget_ms" --label="trim threshold raised" \
    --out="$raw/e2e_bench_trim_raised.json" \
    | tee "$raw/e2e_bench_trim_raised.log"
  files+=(raw/codec_cost_bench.json raw/codec_cost_bench.log
    raw/e2e_bench.json raw/e2e_bench.log raw/e2e_bench_trim_raised.json
    raw/e2e_bench_trim_raised.log)
  step_end "$raw/conditions_benchmarks.json" || exit 3

  local versions
  versions="libdeflate $(pkg-config --modversion libdeflate 2>/dev/null || echo '?'),"
  versions+=" ISA-L $(pkg-config --modversion libisal 2>/dev/null || echo '?')"
  python3 "$repo/bench/report.py" --codec "${codec_json[@]}" \
    --e2e "$raw/e2e_bench.json" --e2e-tuned "$raw/e2e_bench_trim_raised.json" \
    --cost "$raw/codec_cost_bench.json" --md "$stage/benchmarks.md" \
    --png "$stage/benchmarks.png" \
    --conditions "$raw/conditions_benchmarks.json" \
    --backend-versions "$versions" "${quick[@]}"
  publish "${files[@]}"
}

# Step 8: every server of bench/peer_servers.h in turn, interleaved, then
# results/peers.md and results/peers.png.
run_peers() {
  step_begin || exit 3
  log "peers_bench"
  "$build/bench/peers_bench" "${peers_args[@]}" --out="$raw/peers.json" |
    tee "$raw/peers.log"
  step_end "$raw/conditions_peers.json" || exit 3
  python3 "$repo/bench/peers_report.py" --json "$raw/peers.json" \
    --conditions "$raw/conditions_peers.json" --md "$stage/peers.md" \
    --png "$stage/peers.png"
  publish peers.md peers.png raw/peers.json raw/peers.log \
    raw/conditions_peers.json
}

# A machine that is busy before anything starts is refused before the
# build; the build's own load then settles before the first step.
if ! settle_load && ! $allow_noisy; then
  busy_refusal "before the run" "$(load_averages)"
  exit 3
fi
rm -rf "$stage"
mkdir -p "$raw"
if $main_only; then
  build_benchmarks codec_bench codec_cost_bench e2e_bench
  run_main
elif $peers_only; then
  build_benchmarks peers_bench
  run_peers
elif $large_only; then
  build_benchmarks codec_bench e2e_bench
  run_large
elif $decoding_only; then
  build_benchmarks decoder_bench
  run_decoding
elif $links_only; then
  if [[ -n "${E2E_BENCH:-}" ]]; then
    run_links "$E2E_BENCH"
  else
    build_benchmarks e2e_bench
    run_links "$build/bench/e2e_bench"
  fi
else
  build_benchmarks codec_bench codec_cost_bench decoder_bench e2e_bench \
    peers_bench
  run_main
  run_decoding
  run_large
  run_links "$build/bench/e2e_bench"
  run_peers
fi
