#!/bin/sh
# Builds the suite's grpc-go programs offline from Debian's Go packages
# (golang-google-grpc-dev, grpc-go 1.33.3) in GOPATH mode: no module proxy,
# no network. Called by CMake at build time.
#
#   build_go_peers.sh GO PROTOC SOURCE_DIR ECHO_PROTO_DIR OUT_DIR
set -eu
go=$1 protoc=$2 src=$3 echo_proto_dir=$4 out=$5

gopath=$out/gopath
pkg=$gopath/src/pooledgzip.test/interop
# GOENV=off: no per-user go env file, so no need for a HOME.
export GO111MODULE=off GOPROXY=off GOFLAGS= GOENV=off GOCACHE="$out/cache"
export GOPATH="$gopath:/usr/share/gocode"

mkdir -p "$pkg" "$out/bin"
"$go" build -o "$out/bin/protoc-gen-go" github.com/golang/protobuf/protoc-gen-go

# Our sources are copied into the GOPATH, as GOPATH mode requires.
for dir in peerlib echo_server echo_client interop_client; do
  rm -rf "${pkg:?}/$dir"
  cp -R "$src/$dir" "$pkg/$dir"
done
# echo.proto names no Go package, so its output directory decides it.
mkdir -p "$pkg/echopb"
"$protoc" --plugin=protoc-gen-go="$out/bin/protoc-gen-go" \
  --go_out=plugins=grpc:"$pkg/echopb" \
  -I "$echo_proto_dir" "$echo_proto_dir/echo.proto"
"$protoc" --plugin=protoc-gen-go="$out/bin/protoc-gen-go" \
  --go_out=plugins=grpc:"$gopath/src" -I "$src/../proto" \
  "$src/../proto/grpc/testing/empty.proto" \
  "$src/../proto/grpc/testing/messages.proto" \
  "$src/../proto/grpc/testing/test.proto"

"$go" build -o "$out/bin/" pooledgzip.test/interop/echo_server \
  pooledgzip.test/interop/echo_client pooledgzip.test/interop/interop_client
