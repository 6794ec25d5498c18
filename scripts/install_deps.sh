#!/usr/bin/env bash
# Installs what pooled-gzip builds and tests against, from Debian 12's
# packages. Idempotent; run as root (or with sudo available).
#
#   scripts/install_deps.sh                    # building
#   scripts/install_deps.sh --with-test-tools  # and every test stage
#   scripts/install_deps.sh --only PACKAGE...  # these (a stage's own tools)
set -euo pipefail

packages=(
  build-essential cmake pkg-config ccache git clang-format
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libabsl-dev zlib1g-dev libdeflate-dev libisal-dev libgtest-dev
  libbenchmark-dev prometheus-cpp-dev
  # tc, for the demo's and the benchmarks' shaped links
  iproute2
)
if [[ "${1:-}" == "--with-test-tools" ]]; then
  # Sanitizer and fuzzing runtimes, charts for the benchmark report, the
  # Prometheus text parser the metrics test checks scrapes with; the
  # Debian packages' checks (dpkg-dev's dpkg-parsechangelog, lintian; the
  # package build itself runs in a Debian 12 root with its Build-Depends),
  # the ABI test's abidw and abidiff, and file for the arm64 stage.
  packages+=(clang libclang-rt-14-dev gnuplot-nox python3
    python3-prometheus-client dpkg-dev lintian abigail-tools file)
elif [[ "${1:-}" == "--only" ]]; then
  packages=("${@:2}")
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
    grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" > /dev/null
fi
