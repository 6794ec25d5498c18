#!/bin/sh
# Installs the peers of the interop suite (test/interop, `ctest -L interop`):
# grpc-go 1.33.3 and Go, Python grpcio, libnghttp2 (the wire decoder's HPACK),
# and @grpc/grpc-js with @grpc/proto-loader at the versions locked in
# test/interop/node/package-lock.json; and nghttp2's h2load, bench/peers_bench's
# second client against those peers. Idempotent: installs only what is
# missing, and `npm ci` reproduces the same node_modules every time.
# Run as root (or with sudo available) before configuring the build; the Go
# peers and Python stubs are built by CMake when it finds the tools.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
packages="golang-go golang-google-grpc-dev python3-grpcio python3-protobuf
  libnghttp2-dev nghttp2-client protobuf-compiler-grpc pkg-config"
# Node from any source will do (Debian's nodejs and npm if none is there).
command -v node >/dev/null 2>&1 || packages="$packages nodejs"
command -v npm >/dev/null 2>&1 || packages="$packages npm"

missing=""
for package in $packages; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing="$missing $package"
  fi
done

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ -n "$missing" ]; then
  echo "install_interop_peers: installing$missing"
  $sudo apt-get update
  # shellcheck disable=SC2086  # word splitting is the point
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends $missing
else
  echo "install_interop_peers: Debian packages already installed"
fi

echo "install_interop_peers: npm ci in test/interop/node"
(cd "$root/test/interop/node" && npm ci --no-audit --no-fund)

# Fail loudly here rather than in the tests.
/usr/bin/python3 -c "import grpc, google.protobuf" ||
  { echo "python3-grpcio is not importable by /usr/bin/python3" >&2; exit 1; }
go version
node --version
echo "install_interop_peers: done"
