#!/usr/bin/env bash
# The demo: installs and builds, runs the example server and client once end
# to end, then compares no compression, stock gRPC gzip and pooled gzip (the
# library's default backend) with the end-to-end benchmark, interleaved, and
# prints what pooling saved: first on loopback, where sending bytes costs
# almost nothing and compression can only lose to sending plain, then on a
# 100 Mbit/s link (loopback shaped in a network namespace of the
# benchmark's own; without root or tc it says so and uses plain loopback),
# where it wins. The benchmark runs every client and server in a process of
# its own: pooled-gzip's codec serves every gzip message of a process that
# set it up, so stock is only stock in a process that never did. About two
# minutes on 2 cores once built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh"
"$root/scripts/build.sh" echo_server echo_client e2e_bench > /dev/null
build=${BUILD_DIR:-$root/build}

# The server prints "listening on HOST:PORT" first; reading that line is the
# readiness handshake.
exec {server_out}< <(exec "$build/examples/echo_server" --port=0 --mode=pooled)
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
read -r -u "$server_out" server_line
echo "example server: $server_line"
"$build/examples/echo_client" --mode=pooled --compression=gzip --rpc=bidi \
  --count=1000 --target="$(awk '{print $3}' <<< "$server_line")"
kill -TERM "$server_pid"
echo "example server: $(cat <&"$server_out")"
echo

"$build/bench/e2e_bench" --table --setups=none,stock,default --kinds=words \
  --rpc=bidi --sizes="${DEMO_SIZES:-1,1024,65536}" --reps=3 \
  --budget_ms="${DEMO_BUDGET_MS:-1500}" --load_threads=0
echo
"$build/bench/e2e_bench" --table --link=100mbit --setups=none,stock,default \
  --kinds=words --rpc=bidi --sizes="${DEMO_LINK_SIZES:-1024,65536,1048576}" \
  --reps=3 --budget_ms="${DEMO_LINK_BUDGET_MS:-1000}" --load_threads=0
