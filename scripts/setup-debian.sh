#!/usr/bin/env bash
#===- setup-debian.sh - install the build dependencies on Debian 12 --------===#
#
# Installs the Debian packages listed in scripts/debian-packages.txt (LLVM and
# MLIR 22, CMake, Ninja, GoogleTest, Python 3 for lit). Does nothing when they
# are all installed already; otherwise runs apt-get update and apt-get install
# (through sudo when not root).
#
#===------------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mapfile -t packages < <(grep -v '^\s*\(#\|$\)' "$root/scripts/debian-packages.txt")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-debian: all ${#packages[@]} packages are installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
echo "setup-debian: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${missing[@]}"
