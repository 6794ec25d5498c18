#!/usr/bin/env bash
# The demo: installs, builds, then runs the echo pair three ways in one
# interleaved run (no compression, stock gRPC gzip, pooled gzip with the
# library's default backend) and prints what pooling saved. Every client
# and server runs in a process of its own: pooled-gzip's codec serves every
# gzip message of a process that set it up, so stock is only stock in a
# process that never did. Under a minute on 2 cores once built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh"
"$root/scripts/build.sh" echo_server echo_client > /dev/null
bin=${BUILD_DIR:-$root/build}/examples

# Each server prints "listening on HOST:PORT" first; reading that line is
# the readiness handshake.
exec {stock_out}< <(exec "$bin/echo_server" --port=0 --mode=stock)
stock_pid=$!
exec {pooled_out}< <(exec "$bin/echo_server" --port=0 --mode=pooled)
pooled_pid=$!
trap 'kill $stock_pid $pooled_pid 2>/dev/null || true' EXIT
read -r -u "$stock_out" stock_line
read -r -u "$pooled_out" pooled_line
stock_target=$(awk '{print $3}' <<< "$stock_line")
pooled_target=$(awk '{print $3}' <<< "$pooled_line")
echo "stock server:  $stock_line"
echo "pooled server: $pooled_line"
echo
# The comparison means nothing if the stock server runs pooled-gzip's codec
# or the pooled one does not.
if [[ "$stock_line" != *"core codec not active"* ||
      "$pooled_line" != *"core codec active"* ]]; then
  echo "demo: the servers are not stock and pooled as intended" >&2
  exit 1
fi

"$bin/echo_client" --compare --rpc=bidi --compression=gzip \
  --sizes="${DEMO_SIZES:-1,1024,65536}" --count="${DEMO_COUNT:-3000}" \
  --target="$pooled_target" --stock_target="$stock_target"

kill -TERM "$stock_pid" "$pooled_pid"
echo
echo "pooled server: $(cat <&"$pooled_out")"
