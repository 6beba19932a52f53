#!/bin/sh
# Installs the Debian 12 packages asyncshift needs, when they are missing.
# Run as root it installs them; otherwise it names what is missing and fails.
#   scripts/install-deps.sh [test|bench]
set -eu

PACKAGES="cmake ninja-build g++ make python3
clang-19 libclang-19-dev llvm-19-dev llvm-19-tools libclang-cpp19-dev
libgtest-dev libgmock-dev libbenchmark-dev"
if [ "${1:-test}" = bench ]; then
  # Peers in the benchmark (standalone Asio, Boost.Thread) and instruction counts.
  PACKAGES="$PACKAGES libasio-dev libboost-thread-dev valgrind"
fi

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "asyncshift: missing Debian packages:$missing" >&2
  echo "asyncshift: run 'sudo apt-get install$missing' (or run make as root)" >&2
  exit 1
fi
echo "asyncshift: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
