#!/usr/bin/env bash
#===- setup-debian.sh - install the build dependencies on Debian 12 --------===#
#
# Installs the Debian packages listed in scripts/debian-packages.txt (LLVM and
# MLIR 22, CMake, Ninja, GoogleTest, Python 3 for lit) when any is missing
# (apt-get update and apt-get install, through sudo when not root), then
# makes sure the `python3` found first on PATH (the one CMake and lit use,
# which may be a pyenv or venv interpreter rather than Debian's) imports
# numpy and what the Python package (python/) builds and tests with
# (nanobind, scikit-build-core, ml_dtypes, pytest), installing the missing
# ones from PyPI with pip (--break-system-packages for Debian's own
# interpreter, which refuses plain installs).
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
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  echo "setup-debian: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The test helpers (test/**/Inputs/*.py) need numpy in the interpreter lit
# runs them with; the Python package needs the others to build (without
# build isolation: scripts/build.sh) and to test.
# Debian's python3 gets numpy from python3-numpy (in the package list);
# another interpreter first on PATH gets it from PyPI.
pip_install() {
  python3 -m pip install --quiet "$@" 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages "$@"
}
missing_py=()
for spec in numpy:numpy nanobind:nanobind scikit_build_core:scikit-build-core \
    ml_dtypes:ml_dtypes pytest:pytest; do
  if ! python3 -c "import ${spec%%:*}" 2>/dev/null; then
    missing_py+=("${spec#*:}")
  fi
done
if [ ${#missing_py[@]} -ne 0 ]; then
  echo "setup-debian: installing ${missing_py[*]} for $(command -v python3)"
  if ! pip_install "${missing_py[@]}"; then
    echo "setup-debian: could not install ${missing_py[*]} for" \
      "$(command -v python3); the Python package and the tests that use" \
      "them will fail" >&2
  fi
fi
