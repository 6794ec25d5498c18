#!/usr/bin/env bash
# The static flavour (BUILD_SHARED_LIBS=OFF), built from this source tree in
# a build directory of its own (kept for incremental rebuilds), installed
# into a scratch prefix, and used by a separate project that links gRPC
# from Debian's archives. Each consumer runs as a server and a client in
# separate processes: linked through pooled_gzip::pooled_gzip, in either
# order, gRPC's zlib calls must be routed to the pooled codec by --wrap
# (bomb capped, over-limit refused as stock does), and so must those of an
# LTO gRPC stand-in, made from LTO objects; linked with the archive alone,
# the program must say once that nothing is served, name the missing
# options, and work as stock gRPC, nothing pooled.
#
# Builds with $PACKAGE_JOBS jobs, 1 by default: CTest runs it beside other
# tests.
set -euo pipefail
source_dir=$1
work_dir=$2
consumer_dir=$3
mkdir -p "$work_dir"
# shellcheck source=../../scripts/needed_libraries.sh
source "$source_dir/scripts/needed_libraries.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
echo "== the static flavour, built and installed"
cmake -S "$source_dir" -B "$work_dir/build" -DBUILD_SHARED_LIBS=OFF \
  -DPOOLED_GZIP_BUILD_TESTS=OFF -DPOOLED_GZIP_BUILD_EXAMPLES=OFF \
  -DPOOLED_GZIP_BUILD_BENCHMARKS=OFF "${launcher[@]}" > /dev/null
cmake --build "$work_dir/build" -j "${PACKAGE_JOBS:-1}" > "$scratch/build.log" ||
  { cat "$scratch/build.log"; exit 1; }
cmake --install "$work_dir/build" --prefix "$scratch/prefix" > /dev/null
find "$scratch/prefix" -name 'libpooled_gzip*' -printf '%P\n'

echo "== the consumer, gRPC linked from its archives"
cmake -S "$consumer_dir" -B "$work_dir/consumer" \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" "${launcher[@]}" > /dev/null
cmake --build "$work_dir/consumer" -j "${PACKAGE_JOBS:-1}" > "$scratch/consumer.log" ||
  { cat "$scratch/consumer.log"; exit 1; }
bin=$work_dir/consumer
for program in static_pooled_first static_grpc_first static_without_routing \
  static_lto_grpc
do
  refuse_shared_grpc "$bin/$program" "$program"
done

# Runs `server_program server path` and `client_program client path PORT`,
# every process bounded; prints both outputs, fails if either side fails.
run_pair() {
  local server_program=$1 client_program=$2 path=$3
  local log=$scratch/$server_program-$client_program.server
  echo "== server $server_program, client $client_program ($path)"
  # The server's output through a pipe: its "listening on" line is read as
  # it comes, within a bound, and the rest is copied to the log.
  local pipe=$scratch/$server_program-$client_program.pipe
  mkfifo "$pipe"
  timeout 120 "$bin/$server_program" server "$path" > "$pipe" 2>&1 &
  local server_pid=$!
  local port="" line fd
  exec {fd}< "$pipe"
  while IFS= read -r -t 10 -u "$fd" line; do
    echo "$line" >> "$log"
    if [[ $line =~ listening\ on\ 127\.0\.0\.1:([0-9]+) ]]; then
      port=${BASH_REMATCH[1]}
      break
    fi
  done
  cat <&"$fd" >> "$log" &
  local drain_pid=$!
  exec {fd}<&-
  if [[ -z "$port" ]]; then
    kill "$server_pid" 2> /dev/null || true
    wait "$drain_pid" || true
    cat "$log"
    echo "the server did not listen"; return 1
  fi
  local client_status=0 server_status=0
  timeout 120 "$bin/$client_program" client "$path" "$port" ||
    client_status=$?
  wait "$server_pid" || server_status=$?
  wait "$drain_pid" || true
  cat "$log"
  echo "client exit $client_status, server exit $server_status"
  last_server_log=$log
  [[ $client_status -eq 0 && $server_status -eq 0 ]]
}

run_pair static_pooled_first static_grpc_first active
run_pair static_grpc_first static_pooled_first active
run_pair static_without_routing static_without_routing stock
# Said once, with the options for zlib's six entry points, which
# plugin/CMakeLists.txt gives pooled_gzip::pooled_gzip.
lines=$(grep -c -F "pooled_gzip: core codec NOT active" "$last_server_log" ||
  true)
if [[ $lines != 1 ]]; then
  echo "linked without the options, the server said NOT active $lines times"
  exit 1
fi
if ! grep -q "linked statically without pooled_gzip's link-time routing" \
  "$last_server_log"; then
  echo "linked without the options, the log does not say why"; exit 1
fi
# An assignment, whose failure set -e sees.
names=$("$source_dir/scripts/zlib_entry_names.sh")
mapfile -t zlib_entries <<< "$names"
for fn in "${zlib_entries[@]}"; do
  if ! grep -q -F -- "-Wl,--wrap=$fn -Wl,--undefined=__wrap_$fn" \
    "$last_server_log"; then
    echo "linked without the options, the log does not name --wrap=$fn"
    exit 1
  fi
done
echo "== a gRPC archive built with -flto (a stand-in): its zlib calls wrapped"
timeout 120 "$bin/static_lto_grpc"
echo "== two gRPC cores: the archives, and the shared libgrpc that a"
echo "   forgotten target (the shared reflection add-on) loads"
needed=$(needed_libraries "$bin/static_two_grpcs")
case "$needed" in
  *libgrpc++_reflection*) ;;
  *) echo "static_two_grpcs does not load the shared add-on: $needed"; exit 1 ;;
esac
two_log=$scratch/two_grpcs.log
two_status=0
timeout 60 "$bin/static_two_grpcs" > "$two_log" 2>&1 || two_status=$?
cat "$two_log"
grpc_version=$(cat "$bin/grpc_version")
echo "gRPC $grpc_version; static_two_grpcs exited with $two_status"
if [[ $(printf '%s\n' "$grpc_version" 1.60 | sort -V | head -n1) != 1.60 ]]; then
  # gRPC 1.51 loads both cores: the library must refuse, naming both.
  if ((two_status != 0)); then
    echo "static_two_grpcs reported the core codec active, or failed"; exit 1
  fi
  if ! grep -q "two gRPC cores in one process: gRPC is linked statically into the program, and .*libgrpc[^ ]*\.so" "$two_log"; then
    echo "the log does not name both gRPCs"; exit 1
  fi
else
  # Newer gRPC aborts at load, loudly, before the program's main.
  if ((two_status != 134)) ||
    ! grep -q "has already been registered" "$two_log" ||
    grep -q "core codec" "$two_log"; then
    echo "expected gRPC $grpc_version to abort at load with two cores"; exit 1
  fi
fi
echo "static flavour usable: core codec routed at link time in both link" \
  "orders and from LTO objects; without the options, stock gRPC and a log" \
  "line naming them; two gRPC cores are refused, both named"
