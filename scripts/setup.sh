#!/usr/bin/env bash
# Installs everything CQLite needs to build and test from Debian packages, then
# configures and builds it into ./build. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config ccache
  liblz4-dev libzstd-dev libsnappy-dev zlib1g-dev libisal-dev libsqlite3-dev
  nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev libpq-dev postgresql libcurl4-openssl-dev libssl-dev
  clang libclang-rt-14-dev
  openjdk-17-jdk-headless maven python3 python3-venv
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
